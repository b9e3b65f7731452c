//! Water at rest: steps a model (any path) and prints, every `--every` seconds, the fluid's
//! largest and RMS particle speed against 1e-3 √(gH) and 2e-4 √(gH) (H the water's initial
//! depth), the solves at the iteration cap and the mean iterations since the last row, and the
//! time per step. The issue-52 check of "water at rest at the default settings" on any tank.
//!
//! `cargo run --release --example rest -- MODEL [--end S] [--every S] [--threads N]
//! [--settle S --keep K]`
//!
//! A damped start (issue 52, the fluid chapter's lattice under load), off by default:
//! `--settle S` runs the model to `S` seconds first, multiplying the fluid's velocities by `K`
//! (default 0) after each step, before the measured run goes on from there. (A start off the
//! lattice is the model's own `fluid: (jitter: A)`.)

mod common;

use common::{arg, fail, load_world};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        fail("usage: rest MODEL [--end S] [--every S] [--threads N] [--settle S --keep K]")
    };
    common::threads(&args, 2);
    let (m, mut w) = load_world(path);
    let end = arg(&args, "--end").unwrap_or(m.time.end.0);
    let every = arg(&args, "--every").unwrap_or(0.5);
    if let Some(until) = arg(&args, "--settle") {
        settle(&mut w, until, arg(&args, "--keep").unwrap_or(0.0));
    }
    let g = w.gravity.norm();
    let Some(f) = w.fluid.as_ref() else {
        fail(format!("{path} has no fluid"))
    };
    let depth = vcsim::math::fall_height(f.pos.iter().copied(), &w.gravity, f.params.spacing);
    let scale = (g * depth).sqrt();
    println!(
        "{path}: depth {depth:.3} m, bounds: largest {:.2e}, RMS {:.2e} m/s; method {}; dt {} s",
        1e-3 * scale,
        2e-4 * scale,
        w.fluid_method.describe(),
        w.dt
    );
    println!(
        "t (s)  largest (m/s)  RMS (m/s)  at cap  iterations  ms/step  lowest y (m)  mean y (m)"
    );
    let (mut cap, mut iters, mut steps) = (0u64, 0u64, 0u64);
    let (mut worst, mut worst_rms) = (0.0f64, 0.0f64);
    // The first output after the start (a settled run starts at its --settle time).
    let mut next = ((w.time / every).floor() + 1.0) * every;
    let start = Instant::now();
    let mut last = Instant::now();
    while w.time < end - 1e-9 {
        let info = w.step();
        steps += 1;
        cap += (!info.converged) as u64;
        iters += info.iterations as u64;
        if w.time >= next - 1e-9 {
            let f = w.fluid.as_ref().unwrap();
            let largest = f.vel.iter().map(|v| v.norm()).fold(0.0, f64::max);
            let rms = (f.vel.iter().map(|v| v.norm_squared()).sum::<f64>() / f.len() as f64).sqrt();
            worst = worst.max(largest / scale);
            worst_rms = worst_rms.max(rms / scale);
            // How low the water reaches and where its centroid sits: a column that settles,
            // or particles that leave through the floor, show here first.
            let lowest = f.pos.iter().map(|x| x.y).fold(f64::INFINITY, f64::min);
            let mean = f.pos.iter().map(|x| x.y).sum::<f64>() / f.len() as f64;
            println!(
                "{:6.2}  {largest:.2e}  {rms:.2e}  {cap}  {:.1}  {:.3}  {lowest:.5}  {mean:.6}",
                w.time,
                iters as f64 / steps as f64,
                1e3 * last.elapsed().as_secs_f64() / steps as f64
            );
            (cap, iters, steps) = (0, 0, 0);
            last = Instant::now();
            next += every;
            if !largest.is_finite() || largest > 10.0 * scale {
                println!("blown up");
                break;
            }
        }
    }
    println!(
        "worst: largest {worst:.2e} √(gH), RMS {worst_rms:.2e} √(gH); wall {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// Steps to `until` (s), multiplying the fluid's velocities by `keep` after each step.
fn settle(w: &mut vcsim::World, until: f64, keep: f64) {
    let start = Instant::now();
    let mut steps = 0;
    while w.time < until - 1e-9 {
        w.step();
        steps += 1;
        if let Some(f) = w.fluid.as_mut() {
            f.vel.iter_mut().for_each(|v| *v *= keep);
        }
    }
    println!(
        "settled: {steps} steps to t = {:.2} s with velocities times {keep} after each, {:.1} s",
        w.time,
        start.elapsed().as_secs_f64()
    );
}
