//! A channel's velocity profile: runs a model to a time and prints the fluid's mean velocity
//! along x in bands of height, and the RMS of the vertical velocity (m/s). The measurement
//! behind the fluid chapter's "under load the water does not shear freely" (a copy of
//! `models/poiseuille_2d_apgd.ron` with `gravity: (0.01, -9.81)` and the variants named there).
//!
//! `cargo run --release --example profile -- MODEL TIME [--bands N] [--threads N] [--settle S]`
//!
//! Bands split the fluid's initial height range evenly (default 10); the first is the lowest.
//! `--settle S` first runs the model S seconds with gravity's x component (the channel's
//! driving force) removed, then zeroes the velocities and runs TIME seconds more.

mod common;

use common::{arg, fail, load_world};
use vcsim::math::Real;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(end)) = (
        args.get(1),
        args.get(2).and_then(|t| t.parse::<Real>().ok()),
    ) else {
        fail("usage: profile MODEL TIME [--bands N] [--threads N] [--settle S]")
    };
    common::threads(&args, 1);
    let (_, mut w) = load_world(path);
    let Some(f) = w.fluid.as_ref().filter(|f| !f.is_empty()) else {
        fail(format!("{path} has no fluid"))
    };
    let bands = (arg(&args, "--bands").unwrap_or(10.0) as usize).max(1);
    let (lo, hi) = f
        .pos
        .iter()
        .fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), p| {
            (a.min(p.y), b.max(p.y))
        });
    let width = ((hi - lo) / bands as Real).max(1e-12);
    if let Some(settle) = arg(&args, "--settle") {
        // The water settles under the rest of the gravity first, without its part along x
        // (the channel's driving force), at rest at the end; then the clock starts again.
        let g = w.gravity;
        w.gravity.x = 0.0;
        while w.time < settle - 1e-9 {
            w.step();
        }
        w.gravity = g;
        let f = w.fluid.as_mut().expect("a fluid");
        f.vel
            .iter_mut()
            .for_each(|v| *v = vcsim::math::Vec3::zeros());
        println!("settled {settle} s without the force along x");
    }
    let t0 = w.time;
    while w.time - t0 < end - 1e-9 {
        w.step();
        if w.abort.is_some() {
            fail(format!("the run stopped at t = {:.4} s", w.time));
        }
    }
    let f = w.fluid.as_ref().expect("a fluid");
    let mut sums = vec![(0.0, 0usize); bands];
    for (p, v) in f.pos.iter().zip(&f.vel) {
        let b = (((p.y - lo) / width).max(0.0) as usize).min(bands - 1);
        sums[b].0 += v.x;
        sums[b].1 += 1;
    }
    let rms = (f.vel.iter().map(|v| v.y * v.y).sum::<Real>() / f.len() as Real).sqrt();
    println!(
        "t = {:.3} s, mean u (m/s) by band of height, lowest first:",
        w.time - t0
    );
    let cells: Vec<String> = sums
        .iter()
        .map(|(u, n)| format!("{:.4}", u / (*n).max(1) as Real))
        .collect();
    println!("  {}", cells.join(" "));
    println!("RMS vertical velocity {rms:.2e} m/s");
}
