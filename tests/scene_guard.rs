//! A body or fluid particle that leaves the scene is a guard stop with its name: the tutorial's
//! box thrown upward at 60 m/s out of its 2D tank stops the run once it is more than the scene's
//! size (1.4 m) above the scene's box, and the same throw runs on when the model raises
//! `guard.scene_margin`. The scene is measured when the model is built, so a run resumed from a
//! checkpoint keeps it (checked here on a world restored at its throw's height).

use std::path::Path;
use vcsim::runner::RunError;

fn thrown(guard: &str) -> vcsim::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/box_into_water_2d.ron");
    let src = std::fs::read_to_string(&path).unwrap();
    let at = "position: (0.6, 0.6), material: \"wood\"";
    assert!(src.contains(at));
    let src = src
        .replace(at, &format!("{at}, velocity: (0, 60)"))
        .replace("fluid: (", &format!("{guard}fluid: ("));
    vcsim::parse_str(&path, &src).expect("the edited model loads")
}

fn run(
    m: &vcsim::Model,
    world: &mut vcsim::World,
    until: f64,
) -> Result<(), RunError<std::convert::Infallible>> {
    vcsim::runner::run(world, &[], until, 0.01, &m.guard, &mut ()).map(|_| ())
}

#[test]
fn a_body_thrown_out_of_the_tank_stops_the_run_with_its_name() {
    let m = thrown("");
    let mut world = vcsim::build_world(&m).unwrap();
    let [lo, hi] = world.scene.expect("a fluid model has a scene");
    let size = (hi - lo).max();
    // The tank's walls: x from -0.1 to 1.3 m, y from -0.1 m to the box's top.
    assert!((size - 1.4).abs() < 0.05, "scene {lo:?} to {hi:?}");
    let err = run(&m, &mut world, 0.2).expect_err("the thrown box leaves the scene");
    let RunError::Bound {
        bound,
        value,
        limit,
        what,
        time,
        ..
    } = err
    else {
        panic!("a guard stop, not {err}");
    };
    assert_eq!(bound, "scene_margin");
    assert_eq!(limit, 1.0);
    assert!(value > 1.0 && value < 1.2, "stopped as it crossed: {value}");
    assert!(what.contains("body `box`"), "{what}");
    assert!(what.contains("guard.scene_margin"), "{what}");
    // Thrown at 60 m/s from 0.2 m below the walls' top it is 1.4 m above them after 0.027 s.
    assert!(time > 0.015 && time < 0.04, "t = {time}");
}

#[test]
fn a_raised_margin_lets_it_go_and_the_scene_survives_a_restore() {
    let m = thrown("guard: (scene_margin: 100),\n    ");
    let mut world = vcsim::build_world(&m).unwrap();
    run(&m, &mut world, 0.05).expect("the margin allows the throw");
    let y = world.bodies[3].pose.translation.y;
    assert!(y > 2.5, "the box rose: {y} m");
    let scene = world.scene;
    // Restored into a world built from the default margin: the scene is the model's, not the
    // box around the saved state (which has the box 2.6 m up), so the guard stops at once.
    let state = world.state();
    let strict = thrown("");
    let mut fresh = vcsim::build_world(&strict).unwrap();
    fresh.restore(state).unwrap();
    assert_eq!(fresh.scene, scene);
    let err = run(&strict, &mut fresh, 0.06).expect_err("outside the scene after the restore");
    assert!(
        matches!(
            err,
            RunError::Bound {
                bound: "scene_margin",
                ..
            }
        ),
        "{err}"
    );
}
