//! A fluid model without `dt` gets half a spacing per step at the speed it can reach
//! (`vcsim::model::default_time_step`): the fall of the scene's height plus the fastest initial
//! and prescribed motions, computed here from the model's own numbers; `check` says so; a model
//! without a fluid, or in which nothing can move, is told to give `dt`.

mod common;

use common::fluid_checks;
use std::path::Path;
use std::process::Command;

/// The shipped model `name` with its `dt` removed.
fn without_dt(name: &str) -> vcsim::Model {
    let mut m = fluid_checks::model(name);
    m.time.dt = None;
    m
}

/// The particles' extent along y (m) plus a spacing.
fn height(w: &vcsim::World, others: &[f64]) -> f64 {
    let f = w.fluid.as_ref().unwrap();
    let ys = f.pos.iter().map(|x| x.y).chain(others.iter().copied());
    let (lo, hi) = ys.fold((f64::MAX, f64::MIN), |(lo, hi), y| (lo.min(y), hi.max(y)));
    hi - lo + f.params.spacing
}

#[test]
fn a_tank_steps_half_a_spacing_at_the_speed_of_a_fall_from_its_height() {
    let w = fluid_checks::build(&without_dt("hydrostatic_2d_pgs.ron"));
    let h = height(&w, &[]);
    let expected = 0.5 * 0.02 / (2.0 * 9.81 * h).sqrt();
    assert!(
        (w.dt - expected).abs() < 1e-12 * expected,
        "dt {} s, expected {expected} s (H = {h} m)",
        w.dt
    );
    // Within the bound `check` warns of: no resolution warning about the step.
    let warnings = vcsim::model::resolution::warnings(&without_dt("hydrostatic_2d_pgs.ron"), &w);
    assert!(warnings.iter().all(|e| e.path != "time.dt"), "{warnings:?}");
}

#[test]
fn a_paddle_and_a_floating_body_add_their_speeds() {
    let m = fluid_checks::model("flume_2d.ron");
    assert!(m.time.dt.is_none(), "the flume is shipped without dt");
    let w = fluid_checks::build(&m);
    // The box's centre (0.5 m) lies within the water's extent; the paddle's sine peaks at
    // 2π f X = 2π · 1 Hz · 0.05 m.
    let h = height(&w, &[0.5]);
    let u = (2.0 * 9.81 * h).sqrt() + 2.0 * std::f64::consts::PI * 0.05;
    let expected = 0.5 * 0.025 / u;
    assert!(
        (w.dt - expected).abs() < 1e-12 * expected,
        "dt {} s, expected {expected} s",
        w.dt
    );
    // `check` says what it is and where it comes from.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/flume_2d.ron");
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "dt = {:.4e} s (the default: 0.5 spacing per step at",
            w.dt
        )),
        "{text}"
    );
}

#[test]
fn a_model_without_a_fluid_or_without_motion_must_give_dt() {
    let text =
        "Model(\n    time: (end: 1),\n    bodies: [(name: \"a\", shape: Ball(radius: 1))],\n)";
    let e = vcsim::model::parse_str(Path::new("m.ron"), text).expect_err("refused when read");
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    assert!(e.message.contains("expected `dt`"), "{e}");
    // A fluid at rest without gravity: nothing moves, so no speed gives a step.
    let mut m = without_dt("hydrostatic_2d_pgs.ron");
    m.scene.gravity = vcsim::model::values::V3(0.0, 0.0, 0.0);
    let Err(e) = vcsim::build_world(&m) else {
        panic!("a model in which nothing moves got a time step");
    };
    assert_eq!(e.path, "time.dt", "{e}");
    assert!(e.message.contains("nothing in the model can move"), "{e}");
    // A run shorter than the default step.
    let mut m = without_dt("hydrostatic_2d_pgs.ron");
    m.time.end = vcsim::model::values::Positive(1e-4);
    let Err(e) = vcsim::build_world(&m) else {
        panic!("a run shorter than its default step was built");
    };
    assert_eq!(e.path, "time.dt", "{e}");
    assert!(e.message.contains("longer than the run"), "{e}");
}
