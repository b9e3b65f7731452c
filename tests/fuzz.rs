//! Bounded fuzzing of the loader, the world builder and the first two steps with mutated
//! shipped models (`tests/common/fuzz.rs`): no input may panic. CI runs 20 s of it; long runs
//! use `cargo run --release --example fuzz_models -- INPUTS SEED`.

#[path = "common/fuzz.rs"]
mod fuzz;

use std::path::Path;
use std::time::Duration;

#[test]
fn mutated_models_never_panic() {
    let models = fuzz::small_models(Path::new(env!("CARGO_MANIFEST_DIR")));
    let opts = fuzz::Options {
        max_particles: 2000,
        step_every: 1,
    };
    let rep = fuzz::run(
        &models,
        0x5eed,
        u64::MAX,
        Duration::from_secs(20),
        &opts,
        None,
    );
    println!(
        "fuzz: {} inputs, {} parsed, {} built, {} stepped, {} panics, slowest {:?}",
        rep.inputs,
        rep.parsed,
        rep.built,
        rep.stepped,
        rep.panics.len(),
        rep.slowest
    );
    assert!(rep.inputs > 100, "too few inputs in the time budget");
    assert!(
        rep.panics.is_empty(),
        "{} inputs panicked; the first:\n{}",
        rep.panics.len(),
        rep.panics[0]
    );
}
