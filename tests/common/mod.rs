//! Helpers shared by the validation tests.
#![allow(dead_code)]

pub mod fluid_checks;

use std::path::Path;
use vcsim::{build_world, parse_str, World};

/// Builds a world from model text; panics with the located error if the model is invalid.
pub fn world(src: &str) -> World {
    let model = match parse_str(Path::new("test-model.ron"), src) {
        Ok(m) => m,
        Err(e) => panic!("test model invalid: {e}"),
    };
    build_world(&model).expect("test model builds")
}

/// Steps until `t` (s), calling `f` after each step.
pub fn run_until(w: &mut World, t: f64, mut f: impl FnMut(&World)) {
    let n = (t / w.dt).round() as u64;
    for _ in 0..n {
        w.step();
        f(w);
    }
}

/// Both solvers, as RON.
pub const SOLVERS: [&str; 2] = [
    "Pgs(max_iterations: 500, tolerance: 1e-10)",
    "Apgd(max_iterations: 1000, tolerance: 1e-10)",
];

/// Complete elliptic integral of the first kind K(k) by the arithmetic–geometric mean.
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..40 {
        let (na, nb) = (0.5 * (a + b), (a * b).sqrt());
        a = na;
        b = nb;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Runs `f` on a pool of `threads` threads.
pub fn with_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
        .install(f)
}

/// The files in `folder` (relative to the crate root), sorted by name.
pub fn files_in(folder: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}
