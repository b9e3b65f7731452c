//! Long fuzz runs of the loader, the world builder and the first two steps:
//! `cargo run --release --example fuzz_models -- INPUTS [SEED]`. Panicking inputs are written to
//! `fuzz-panics/` in the current folder. See `tests/common/fuzz.rs` for the mutations.

#[path = "../tests/common/fuzz.rs"]
mod fuzz;

use std::path::Path;
use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let inputs: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let models = fuzz::small_models(Path::new(env!("CARGO_MANIFEST_DIR")));
    let rep = fuzz::run(
        &models,
        seed,
        inputs,
        Duration::from_secs(u64::MAX / 4),
        2000,
    );
    println!(
        "{} inputs (seed {seed}): {} parsed, {} built, {} stepped, {} panics, slowest input {:?}",
        rep.inputs,
        rep.parsed,
        rep.built,
        rep.stepped,
        rep.panics.len(),
        rep.slowest
    );
    if !rep.panics.is_empty() {
        let _ = std::fs::create_dir_all("fuzz-panics");
        for (i, p) in rep.panics.iter().enumerate() {
            let _ = std::fs::write(format!("fuzz-panics/{i}.ron"), p);
        }
    }
}
