//! A fluid model written without a `solver` line gets ten warm-started PGS sweeps per step,
//! stopping earlier at `3e-5 l / dt` (`Model::solver_choice`), with the constraint method's
//! density projection: the Koshizuka & Oka dam break of `tests/fluid.rs` keeps its front within
//! that test's tolerance, and scenes in motion at every default (no `solver`, no `dt`) — a
//! sloshing tank and a flume with a paddle and a floating box — keep every particle's
//! compression under 1 % (001 §5.2's criterion, issue 52's). What the default gives up, the
//! converged step that held the hydrostatic tank at rest for about a second, is the ignored
//! test at the end (issue 52, item 2).

mod common;

use common::fluid_checks;
use vcsim::solver::SolverChoice;

/// The shipped model `name` with its `solver` line removed.
fn without_solver(name: &str) -> vcsim::Model {
    let mut m = fluid_checks::model(name);
    assert!(m.solver.is_some(), "{name} names its solver");
    m.solver = None;
    m
}

#[test]
fn a_fluid_model_gets_ten_sweeps_and_bodies_alone_the_pgs_defaults() {
    let m = without_solver("dam_break_2d_apgd.ron");
    let dt = 2e-3;
    match m.solver_choice(dt) {
        SolverChoice::Pgs(p) => {
            assert_eq!(p.max_iterations, 10);
            let l = m.fluid.as_ref().unwrap().spacing.0;
            assert!((p.tolerance / (3e-5 * l / dt) - 1.0).abs() < 1e-12);
            assert!(p.warm_start && !p.multilevel && p.relaxation == 1.0);
        }
        other => panic!("a fluid model's default solver is {other:?}"),
    }
    let mut bodies = without_solver("stack_pgs.ron");
    bodies.fluid = None;
    match bodies.solver_choice(dt) {
        SolverChoice::Pgs(p) => assert_eq!(p.max_iterations, 200),
        other => panic!("a model of bodies alone gets {other:?}"),
    }
}

#[test]
fn the_dam_break_with_the_default_solver() {
    let w = fluid_checks::build(&without_solver("dam_break_2d_apgd.ron"));
    let f = fluid_checks::dam_break_front(w, Some(0.1));
    common::quotes::assert_quotes(
        "validation.md",
        "a fluid model without a `solver` line",
        &[f.quoted()],
    );
}

/// Steps `name` at every default (its `solver` and `dt` lines removed) to `end` (s) and returns
/// the largest compression of any particle at any step.
fn largest_compression_at_defaults(name: &str, end: f64) -> f64 {
    let mut m = fluid_checks::model(name);
    m.solver = None;
    m.time.dt = None;
    let mut w = fluid_checks::build(&m);
    let mut worst: f64 = 0.0;
    while w.time < end - 1e-9 {
        w.step();
        let f = w.fluid.as_ref().unwrap();
        worst = worst.max(f.density_error.iter().copied().fold(0.0, f64::max));
    }
    worst
}

#[test]
fn scenes_in_motion_stay_under_one_percent_at_every_default() {
    let mut quoted = Vec::new();
    for (name, end) in [("sloshing_2d_apgd.ron", 3.0), ("flume_2d.ron", 2.0)] {
        let c = largest_compression_at_defaults(name, end);
        eprintln!("{name} to {end} s at the defaults: largest compression {c:.3e}");
        assert!(c < 0.01, "{name}: largest compression {c}");
        quoted.push(format!(
            "`{name}` to {end} s: {}",
            common::quotes::pct(c, 2)
        ));
    }
    common::quotes::assert_quotes(
        "validation.md",
        "a fluid model without a `solver` line",
        &quoted,
    );
}

/// Issue 52, item 2: water at rest with the default solver. The former default (APGD to
/// `3e-5 l / dt`) held this tank (the shipped model's dt = 1 ms) under the bound to t = 1 s
/// (1.65e-3 m/s, then the square lattice's churn under load from about 1.5 s); ten sweeps leave
/// it at 2.48e-2 m/s at 1 s with the smoothed pressure 40.8 % off ρ g (depth) on the centre line
/// (`cargo test --release --test default_solver -- --ignored --nocapture`, 2026-11-30). At the
/// default step (3.19 ms) it moves at 5.8e-2 m/s at 1 s and 1.3–2.9e-2 m/s to 40 s (`cargo run
/// --release --example rest` on the tank without its `solver` and `dt` lines).
#[test]
#[ignore = "issue 52 item 2: the default's ten sweeps leave the tank at rest moving at 2.48e-2 m/s at 1 s (bound 2.2e-3), its smoothed pressure 40.8 % off"]
fn the_hydrostatic_tank_rests_with_the_default_solver() {
    let w = fluid_checks::build(&without_solver("hydrostatic_2d_apgd.ron"));
    fluid_checks::hydrostatic_tank(w, 1e-3);
}
