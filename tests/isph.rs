//! The fluid references with the ISPH backend (`Isph()`, partitioned coupling): the same checks
//! and tolerances as the constraint method's (`tests/common/fluid_checks.rs`).
//!
//! None is met yet (issue 12 stays open; the book's ISPH page): each is ignored with the number
//! measured on 2026-11-24 (`cargo test --release --test isph -- --ignored --nocapture`, or
//! `vcsim run` of the model with `method: Isph()` for the runs the guard stops). The tests that
//! diverge run `World::step` without the runner's guard: run them one at a time.

mod common;

use common::fluid_checks::{self, build, model_with};

const ISPH: &str = "Isph()";

/// Hydrostatic tank: compression < 1 %, smoothed pressure within 3 %, and the constraint
/// method's speed bound (1e-3 √(g H) = 2.2e-3 m/s).
/// Measured: compression 2.9e-3 (met), pressure 11.6 % off at the top of the checked band (the
/// surface layer holds p = 0 half a spacing below the true surface: ρ g l/2 against ρ g 3 l),
/// speed 2.9e-3 m/s (limit 2.2e-3).
#[test]
#[ignore = "ISPH: pressure 11.6 % off next to the surface, speed 2.9e-3 > 2.2e-3 m/s"]
fn hydrostatic_tank_isph() {
    fluid_checks::hydrostatic_tank(build(&model_with("hydrostatic_2d_apgd.ron", ISPH)), 1e-3);
}

/// Dam break front against Koshizuka & Oka, no particle in a wall.
/// Measured: a particle in the bottom-left wall corner compresses to 20 % and the guard stops
/// the run at t = 0.153 s.
#[test]
#[ignore = "ISPH: corner compression reaches 20 % at t = 0.153 s (guard)"]
fn dam_break_front_isph() {
    fluid_checks::dam_break_front(build(&model_with("dam_break_2d_apgd.ron", ISPH)), None);
}

/// Circular patch against Colagrossi's ODE: semi-axes within 3 %, area within 2 %.
/// Measured: the particles converging on the x axis at the tips compress to 22 % and the guard
/// stops the run at t = 0.608 s (0.432 s before negative pressures were clamped).
#[test]
#[ignore = "ISPH: tip compression reaches 22 % at t = 0.61 s (guard)"]
fn circular_patch_isph() {
    fluid_checks::circular_patch(build(&model_with("circular_patch_2d_apgd.ron", ISPH)));
}

/// Buoyancy: submerged fraction within 0.03 of the density ratio.
/// Measured (ratio 0.5): with the implicit added mass the box holds still for 0.5 s (fluid
/// force 1 753 N against 1 766 N weight), then fluid at the tank's right wall near the surface
/// compresses and the guard stops the run at t = 1.36 s (compression 20.7 %); without the added
/// mass the coupling diverged within 0.02 s.
#[test]
#[ignore = "ISPH: wall-side compression reaches 20 % at t = 1.36 s (guard)"]
fn buoyancy_isph() {
    fluid_checks::buoyancy(|m| {
        m.fluid.as_mut().unwrap().method = ron::from_str(ISPH).unwrap();
    });
}

/// The added mass holds a light body: the box of `buoyancy_2d_apgd` (density ratio 0.5,
/// starting at its equilibrium draft) stays within half a spacing (1 cm) of its start over
/// 0.3 s, the fluid force averaged over 0.05–0.3 s carries its weight within 2 % and the median
/// of its step-by-step deviation from the weight is below 2 % (measured 2026-11-24: median 0.73 %,
/// RMS 15.8 % from a few single-step spikes that are not understood yet; without the added mass
/// median 104 %, RMS 110 %). Without the implicit added mass the
/// force swings between about −100 N and +4 700 N from step to step (weight 1 766 N; before
/// negative pressures were clamped the swings grew until the box left the tank within 0.1 s).
#[test]
fn added_mass_holds_a_light_body() {
    let mut w = build(&model_with("buoyancy_2d_apgd.ron", ISPH));
    let b = w.body("box").unwrap();
    let (y0, weight) = (w.bodies[b].com().y, w.bodies[b].mass * 9.81);
    let (mut worst_move, mut force, mut sq, mut n): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
    let mut devs = Vec::new();
    while w.time < 0.3 - 1e-9 {
        w.step();
        worst_move = worst_move.max((w.bodies[b].com().y - y0).abs());
        if w.time > 0.05 {
            let f = w.fluid.as_ref().unwrap().body_force[b].y;
            force += f;
            sq += (f / weight - 1.0).powi(2);
            devs.push((f / weight - 1.0).abs());
            n += 1.0;
        }
    }
    let (off, rms) = (force / n / weight - 1.0, (sq / n).sqrt());
    devs.sort_by(f64::total_cmp);
    let median = devs[devs.len() / 2];
    eprintln!(
        "box moved at most {worst_move:.2e} m; mean fluid force off its weight by {:.2} %, median deviation {:.2} %, RMS {:.2} %",
        100.0 * off,
        100.0 * median,
        100.0 * rms
    );
    assert!(
        median < 0.02,
        "fluid force swings: median deviation {median} of the weight"
    );
    assert!(worst_move < 0.01, "box moved {worst_move} m");
    assert!(off.abs() < 0.02, "fluid force off by {off}");
}

/// CG and the sparse Cholesky solve the same PPE: over 0.05 s of the hydrostatic tank the two
/// runs' pressures agree to 1e-6 of the bottom pressure and positions to 1e-9 m.
#[test]
fn cg_and_cholesky_agree() {
    let run = |solver: &str| {
        let mut w = build(&model_with(
            "hydrostatic_2d_apgd.ron",
            &format!("Isph(solver: {solver})"),
        ));
        while w.time < 0.05 - 1e-9 {
            w.step();
        }
        let f = w.fluid.unwrap();
        let mut by_id: Vec<_> =
            f.id.iter()
                .zip(f.pos.iter().zip(&f.pressure))
                .map(|(i, (x, p))| (*i, *x, *p))
                .collect();
        by_id.sort_by_key(|e| e.0);
        by_id
    };
    let (cg, direct) = (run("Cg"), run("Direct"));
    let bottom = 1000.0 * 9.81 * 0.5;
    let (mut dp, mut dx): (f64, f64) = (0.0, 0.0);
    for (a, b) in cg.iter().zip(&direct) {
        dp = dp.max((a.2 - b.2).abs() / bottom);
        dx = dx.max((a.1 - b.1).norm());
    }
    eprintln!("largest pressure difference {dp:.2e} of ρ g H, position {dx:.2e} m");
    assert!(dp < 1e-6 && dx < 1e-9, "CG and Cholesky differ: {dp}, {dx}");
}
