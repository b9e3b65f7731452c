//! Long fuzz runs of the loader, the world builder and the first two steps:
//! `cargo run --release --example fuzz_models -- INPUTS [SEED] [STEP_EVERY] [LIMIT_S]`.
//!
//! Inputs run in chunks of 1000 (each chunk its own seed), with a progress line after each.
//! One in `STEP_EVERY` (default 1) of the worlds that build is stepped twice. Panicking inputs
//! are written to `fuzz-panics/` in the current folder as soon as they are found. A watchdog
//! gives every input `LIMIT_S` seconds (default 10): an input that takes longer is written to
//! `fuzz-hangs/` and the run stops with exit code 4. An abort (stack overflow, out of memory)
//! ends the process without the final `done` line. See `tests/common/fuzz.rs` for the mutations.

#[path = "../tests/common/fuzz.rs"]
mod fuzz;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut num = |default: u64| args.next().and_then(|a| a.parse().ok()).unwrap_or(default);
    let inputs = num(100_000);
    let seed = num(1);
    let step_every = num(1);
    let limit = Duration::from_secs(num(10));
    let models = fuzz::small_models(Path::new(env!("CARGO_MANIFEST_DIR")));
    let opts = fuzz::Options {
        max_particles: 2000,
        step_every,
    };
    let watch = Arc::new(fuzz::Watch::default());
    {
        let watch = Arc::clone(&watch);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            if let Some((t, input)) = watch.0.lock().unwrap().as_ref() {
                if t.elapsed() > limit {
                    let _ = std::fs::create_dir_all("fuzz-hangs");
                    let _ = std::fs::write("fuzz-hangs/0.ron", input);
                    println!(
                        "hang: an input ran longer than {limit:?}; written to fuzz-hangs/0.ron"
                    );
                    std::process::exit(4);
                }
            }
        });
    }
    let t0 = Instant::now();
    let (mut done, mut panics) = (0u64, 0usize);
    let (mut parsed, mut built, mut stepped) = (0u64, 0u64, 0u64);
    let mut slowest = Duration::ZERO;
    let mut chunk = 0u64;
    while done < inputs {
        let n = (inputs - done).min(1000);
        let rep = fuzz::run(
            &models,
            seed.wrapping_mul(1 << 32).wrapping_add(chunk),
            n,
            Duration::MAX,
            &opts,
            Some(&watch),
        );
        if !rep.panics.is_empty() {
            let _ = std::fs::create_dir_all("fuzz-panics");
            for p in &rep.panics {
                let _ = std::fs::write(format!("fuzz-panics/{panics}.ron"), p);
                panics += 1;
            }
        }
        done += rep.inputs;
        (parsed, built, stepped) = (
            parsed + rep.parsed,
            built + rep.built,
            stepped + rep.stepped,
        );
        slowest = slowest.max(rep.slowest);
        chunk += 1;
        println!(
            "{done} inputs (seed {seed}, {:.0} s): {panics} panics; {parsed} parsed, {built} built, {stepped} stepped; slowest input {slowest:?}",
            t0.elapsed().as_secs_f64()
        );
    }
    println!(
        "done: {done} inputs, {parsed} parsed, {built} built, {stepped} stepped twice, {panics} panics, 0 hangs over {limit:?}, slowest input {slowest:?}, {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    if panics > 0 {
        std::process::exit(1);
    }
}
