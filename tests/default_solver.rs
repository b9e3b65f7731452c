//! A fluid model written without a `solver` line gets a solver that converges in its steps
//! (APGD to `3e-5 l / dt` m/s, at most 5000 iterations: `Model::solver_choice`) and the results
//! the shipped settings give, within the same tests' tolerances: the hydrostatic tank and the
//! Koshizuka & Oka dam break of `tests/fluid.rs`, and no step at the iteration cap in the
//! tank, the box of water and the seesaw.

mod common;

use common::fluid_checks;

/// The shipped model `name` with its `solver` line removed.
fn without_solver(name: &str) -> vcsim::World {
    let mut m = fluid_checks::model(name);
    assert!(m.solver.is_some(), "{name} names its solver");
    m.solver = None;
    fluid_checks::build(&m)
}

#[test]
fn the_hydrostatic_tank_with_the_default_solver() {
    let h = fluid_checks::hydrostatic_tank(without_solver("hydrostatic_2d_apgd.ron"), 1e-3);
    common::quotes::assert_quotes(
        "validation.md",
        "a fluid model without a `solver` line",
        &[h.quoted()],
    );
}

#[test]
fn the_dam_break_with_the_default_solver() {
    let f = fluid_checks::dam_break_front(without_solver("dam_break_2d_apgd.ron"), Some(0.1));
    common::quotes::assert_quotes(
        "validation.md",
        "a fluid model without a `solver` line",
        &[f.quoted()],
    );
}

#[test]
fn no_step_stops_at_the_cap_with_the_default_solver() {
    for (name, end) in [
        ("hydrostatic_2d_apgd.ron", 1.0),
        ("water_box_2d_apgd.ron", 1.0),
        ("seesaw_2d_apgd.ron", 0.5),
    ] {
        let mut w = without_solver(name);
        let (mut capped, mut steps, mut most) = (0, 0, 0);
        while w.time < end - 1e-9 {
            let info = w.step();
            steps += 1;
            most = most.max(info.iterations);
            if !info.converged {
                capped += 1;
            }
        }
        eprintln!("{name}: {steps} steps, {capped} at the cap, at most {most} iterations");
        assert_eq!(capped, 0, "{name}: {capped} of {steps} steps at the cap");
        let q =
            format!("`{name}`: {capped} of {steps} steps at the cap, at most {most} iterations");
        common::quotes::assert_quotes(
            "validation.md",
            "a fluid model without a `solver` line",
            &[q],
        );
    }
}
