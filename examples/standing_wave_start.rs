//! A standing wave started from the lattice or from water that has settled first: how much of
//! a method's wave damping comes from the start (issue 53; the waves chapter's "What a method
//! does to a wave on its own").
//!
//! `cargo run --release --example standing_wave_start -- MODEL [--end S] [--settle S]
//! [--threads N]`
//!
//! MODEL is a closed tank whose first fluid region has a `StandingWave` velocity
//! (`models/standing_wave_2d.ron` or a copy with other settings). Without `--settle` the wave
//! starts as the model says (on the lattice). With `--settle S` the water first runs S seconds
//! from rest (the model's own method and solver, with the default velocity filter and shifting
//! while it settles), then every particle takes the region's wave velocity at its settled
//! position and the clock starts again. Prints the first mode's elevation (half the
//! difference of the surface heights 5 cm from each wall, against their heights at the start)
//! at each extremum (the half-cycle cut off by the run's end left out), the period from its zero crossings, and the height lost per linear-theory
//! period from a log-linear fit through the extrema; on stderr, the fluid's kinetic energy at
//! the start and after each of the first five steps (J per metre in 2D); and the fluid's
//! energy (kinetic + potential) lost over the run beside the sum over the steps of
//! `½ m |v⁺ − v_n|²`, which it equals for a step without bias, filter, shifting or projection
//! (the constraint method's step with `stabilisation: 0`, `velocity_filter: 0`, `shifting: 0`
//! and `projection: (max_sweeps: 0)`: the rows' impulses do no work on `v⁺`, and positions
//! move by `v⁺ dt`), and that sum by depth below the top particles in bands of two spacings.

mod common;

use common::{arg, fail, load_world};
use vcsim::math::{Real, Vec3};

/// The fluid's kinetic and potential energy (J; J per metre in 2D).
fn energies(w: &vcsim::World) -> (Real, Real) {
    w.fluid
        .as_ref()
        .map_or((0.0, 0.0), |f| f.energies(&w.gravity))
}

fn kinetic(w: &vcsim::World) -> Real {
    energies(w).0
}

/// Runs the water `until` seconds from rest with the default filter and shifting, then gives
/// every particle the wave's velocity at its position.
fn settle(w: &mut vcsim::World, until: Real, field: &vcsim::model::fluid_defs::VelocityDef) {
    let g = w.gravity;
    let f = w.fluid.as_mut().expect("a fluid");
    let kept = (f.params.velocity_filter, f.params.shifting);
    f.params.velocity_filter = vcsim::fluid::FluidParams::DEFAULT_VELOCITY_FILTER;
    f.params.shifting = vcsim::fluid::FluidParams::DEFAULT_SHIFTING;
    f.vel.iter_mut().for_each(|v| *v = Vec3::zeros());
    while w.time < until - 1e-9 {
        w.step();
    }
    let f = w.fluid.as_mut().expect("a fluid");
    (f.params.velocity_filter, f.params.shifting) = kept;
    let largest = f.vel.iter().map(|v| v.norm()).fold(0.0, Real::max);
    eprintln!("settled to {until} s: largest speed {largest:.2e} m/s");
    for (v, p) in f.vel.iter_mut().zip(&f.pos) {
        *v = field.at(p, &g);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        fail("usage: standing_wave_start MODEL [--end S] [--settle S] [--threads N]")
    };
    common::threads(&args, 1);
    let (m, mut w) = load_world(path);
    let Some(region) = m.fluid.as_ref().and_then(|f| f.regions.first()) else {
        fail(format!("{path} has no fluid region"))
    };
    let field = region.velocity().clone();
    if let Some(until) = arg(&args, "--settle") {
        settle(&mut w, until, &field);
    }
    let g = w.gravity;
    let gauges = [Vec3::new(0.05, 0.0, 0.0), Vec3::new(0.95, 0.0, 0.0)];
    let height = |w: &vcsim::World, p: &Vec3| {
        let f = w.fluid.as_ref().expect("a fluid");
        f.surface_height(p, &g)
            .unwrap_or_else(|| fail(format!("no water under the gauge at x = {}", p.x)))
    };
    let rest = gauges.map(|p| height(&w, &p));
    let (t0, end) = (w.time, arg(&args, "--end").unwrap_or(6.0));
    eprintln!("kinetic energy at the start {:.4} J", kinetic(&w));
    let mut series = Vec::new();
    let mut steps = 0;
    let e0 = energy(&w);
    // The same sum by depth below the still surface, in bands of two spacings.
    const BANDS: usize = 8;
    let up = -g.normalize();
    let f = w.fluid.as_ref().expect("a fluid");
    let top = f
        .pos
        .iter()
        .map(|p| p.dot(&up))
        .fold(Real::NEG_INFINITY, Real::max);
    let band = 2.0 * f.params.spacing;
    let mut by_depth = [0.0; BANDS];
    // Σ ½ m |v⁺ − v_n|² over the steps (particles matched by id: the search reorders them).
    let (mut removed, mut by_id) = (0.0, Vec::new());
    while w.time - t0 < end - 1e-9 {
        let f = w.fluid.as_ref().expect("a fluid");
        by_id.resize(f.len(), Vec3::zeros());
        for (v, &i) in f.vel.iter().zip(&f.id) {
            by_id[i as usize] = *v;
        }
        w.step();
        let f = w.fluid.as_ref().expect("a fluid");
        for ((v, &i), p) in f.vel.iter().zip(&f.id).zip(&f.pos) {
            let d = 0.5 * f.mass * (v - by_id[i as usize]).norm_squared();
            removed += d;
            let below = ((top - p.dot(&up)) / band).max(0.0) as usize;
            by_depth[below.min(BANDS - 1)] += d;
        }
        steps += 1;
        if steps <= 5 {
            eprintln!("  after step {steps}: {:.4} J", kinetic(&w));
        }
        let eta = 0.5 * ((height(&w, &gauges[0]) - rest[0]) - (height(&w, &gauges[1]) - rest[1]));
        series.push((w.time - t0, eta));
    }
    println!(
        "fluid energy (kinetic + potential) lost: {:.4} J; the steps' velocity changes, sum of 1/2 m |v+ - v|^2: {removed:.4} J",
        e0 - energy(&w)
    );
    let total: Real = by_depth.iter().sum();
    print!("  by depth below the top particles, bands of 2 spacings (last: deeper):");
    for d in by_depth {
        print!(" {:.0} %", 100.0 * d / total);
    }
    println!();
    report(&series, &field, g.norm());
}

/// The fluid's kinetic plus potential energy (J; J per metre in 2D).
fn energy(w: &vcsim::World) -> Real {
    let (k, p) = energies(w);
    k + p
}

/// Extrema between zero crossings, the period and the loss per linear-theory period. (The
/// studies' `Decay` metric, [`vcsim::study::oscillation`], takes one peak per full cycle about
/// the mean; a 4-s run of a 1.2-s wave gives it two or three, so this fits every half-cycle's
/// extremum at its time, and reads the first crest a quarter period after the level start.)
fn report(series: &[(Real, Real)], field: &vcsim::model::fluid_defs::VelocityDef, g: Real) {
    let crossings: Vec<usize> = (1..series.len())
        .filter(|&i| (series[i - 1].1 < 0.0) != (series[i].1 < 0.0))
        .collect();
    // Half-cycles between zero crossings (the first from the start, where the wave is level);
    // the part after the last crossing is cut off by the run's end, not an extremum.
    let mut bounds = vec![0];
    bounds.extend(&crossings);
    let extrema: Vec<(Real, Real)> = bounds
        .windows(2)
        .filter(|b| b[1] - b[0] >= 3)
        .map(|b| {
            series[b[0]..b[1]]
                .iter()
                .copied()
                .fold((0.0 as Real, 0.0 as Real), |m, e| {
                    if e.1.abs() > m.1.abs() {
                        e
                    } else {
                        m
                    }
                })
        })
        .collect();
    println!("extrema (s: mm):");
    for (t, e) in &extrema {
        println!("  {t:.2}: {:+.1}", 1e3 * e);
    }
    if crossings.len() > 2 {
        let (a, b) = (
            series[crossings[0]].0,
            series[crossings[crossings.len() - 1]].0,
        );
        println!(
            "period from {} zero crossings: {:.3} s",
            crossings.len(),
            2.0 * (b - a) / (crossings.len() - 1) as Real
        );
    }
    let period = match field {
        vcsim::model::fluid_defs::VelocityDef::StandingWave {
            wavelength, depth, ..
        } => {
            let k = 2.0 * std::f64::consts::PI / wavelength.0;
            2.0 * std::f64::consts::PI / (g * k * (k * depth.0).tanh()).sqrt()
        }
        _ => return,
    };
    let pts: Vec<(Real, Real)> = extrema
        .iter()
        .filter(|e| e.1 != 0.0)
        .map(|&(t, e)| (t, e.abs().ln()))
        .collect();
    if pts.len() > 2 {
        let n = pts.len() as Real;
        let (mx, my) = (
            pts.iter().map(|p| p.0).sum::<Real>() / n,
            pts.iter().map(|p| p.1).sum::<Real>() / n,
        );
        let slope = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<Real>()
            / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<Real>();
        println!(
            "height lost per linear-theory period ({period:.3} s), log-linear fit over {} extrema: {:.1} %",
            pts.len(),
            100.0 * (1.0 - (slope * period).exp())
        );
    }
}
