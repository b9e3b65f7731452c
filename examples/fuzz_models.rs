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
    // Chunks of 1000 inputs (each chunk its own seed), a progress line after each, panicking
    // inputs written as soon as they are found.
    let (mut done, mut panics) = (0u64, 0usize);
    let mut slowest = Duration::ZERO;
    let mut chunk = 0u64;
    while done < inputs {
        let n = (inputs - done).min(1000);
        let rep = fuzz::run(
            &models,
            seed.wrapping_mul(1_000_003).wrapping_add(chunk),
            n,
            Duration::from_secs(u64::MAX / 4),
            2000,
        );
        if !rep.panics.is_empty() {
            let _ = std::fs::create_dir_all("fuzz-panics");
            for p in &rep.panics {
                let _ = std::fs::write(format!("fuzz-panics/{panics}.ron"), p);
                panics += 1;
            }
        }
        done += rep.inputs;
        slowest = slowest.max(rep.slowest);
        chunk += 1;
        println!(
            "{done} inputs (seed {seed}): {panics} panics so far; this chunk {} parsed, {} built, {} stepped; slowest input {slowest:?}",
            rep.parsed, rep.built, rep.stepped
        );
    }
}
