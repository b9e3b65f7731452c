//! An impulse contact resolver inside the step of a fluid method (issue 13; 000's ISPH–DEM
//! scheme resolves the solid contacts by ETI inside each fluid step): a 0.1 m block of density
//! 2000 kg/m³ sinks in a 2D tank of water (spacing 0.02 m) with `contact: (resolver: Eti())`.
//!
//! - `Wcsph`: the fluid under the block drains, the block lands on the floor and rests there
//!   on ETI's impulses (measured at 1 s: bottom 7e-6 m above the floor, speed 4e-6 m/s, 60
//!   increments per step).
//! - `Constraint`: the last particle layer under the block cannot be squeezed out (it is
//!   incompressible, with contact rows): at 1 s the block rests on it 0.020 m (one spacing)
//!   above the floor and ETI has had nothing to do. The test runs 0.3 s (the block still
//!   sinking, 0.060 m up) and checks that the run stays finite with the block above the floor.
//! - `Isph`: here the block starts on the floor (000's pairing, `Isph` + `Eti`): it stays
//!   there on ETI's impulses (1.3e-5 m above the floor at 1 s, `vcsim run` of the same model);
//!   the test runs 0.4 s. The sinking block with ISPH is `tests/settling.rs`.

use std::path::Path;

fn tank(method: &str, block_y: f64) -> vcsim::World {
    let src = format!(
        "Model(
            scene: (dimension: Two, gravity: (0, -9.81)),
            time: (dt: 0.001, end: 1.0),
            contact: (resolver: Eti()),
            materials: [(name: \"heavy\", density: 2000, friction: 0.3, restitution: 0.3)],
            bodies: [
                (name: \"floor\", kind: Static, shape: Cuboid(half_extents: (0.25, 0.05)), position: (0.25, -0.05)),
                (name: \"left\", kind: Static, shape: Cuboid(half_extents: (0.05, 0.3)), position: (-0.05, 0.2)),
                (name: \"right\", kind: Static, shape: Cuboid(half_extents: (0.05, 0.3)), position: (0.55, 0.2)),
                (name: \"block\", material: \"heavy\", shape: Cuboid(half_extents: (0.05, 0.05)), position: (0.25, {block_y})),
            ],
            fluid: (spacing: 0.02, regions: [Box(min: (0, 0), max: (0.5, 0.3))], method: {method}),
        )"
    );
    let m = vcsim::parse_str(Path::new("sinking-block.ron"), &src).expect("model");
    vcsim::build_world(&m).expect("builds")
}

#[test]
fn eti_resolves_the_contacts_inside_fluid_steps() {
    // WCSPH: the block lands and rests on ETI's impulses.
    let mut w = tank("Wcsph()", 0.15);
    let b = w.body("block").unwrap();
    let mut increments = 0;
    while w.time < 1.0 - 1e-9 {
        w.step();
        increments = w.last_impulses.iterations;
    }
    let (y, speed) = (w.bodies[b].com().y, w.bodies[b].lin_vel.norm());
    eprintln!("WCSPH + ETI at 1 s: block bottom {:.2e} m above the floor, speed {speed:.1e} m/s, {increments} increments in the last step", y - 0.05);
    assert!(
        (y - 0.05).abs() < 1e-3,
        "block centre at {y} m, not on the floor"
    );
    assert!(speed < 1e-3, "block still moving at {speed} m/s");
    assert!(increments > 0, "ETI did not act on the resting block");
    // Constraint: the block rests on the last fluid layer, above the floor.
    let mut w = tank("Constraint()", 0.15);
    while w.time < 0.3 - 1e-9 {
        w.step();
    }
    let y = w.bodies[b].com().y;
    eprintln!(
        "Constraint + ETI at 0.3 s: block bottom {:.4} m above the floor",
        y - 0.05
    );
    assert!(y.is_finite() && y > 0.05 - 1e-4, "block at {y} m");
    // ISPH: the block starts on the floor (0.2 mm up) and stays there.
    let mut w = tank("Isph()", 0.0502);
    while w.time < 0.4 - 1e-9 {
        w.step();
    }
    let (y, speed) = (w.bodies[b].com().y, w.bodies[b].lin_vel.norm());
    let increments = w.last_impulses.iterations;
    eprintln!("ISPH + ETI at 0.4 s: block bottom {:.2e} m above the floor, speed {speed:.1e} m/s, {increments} increments in the last step", y - 0.05);
    assert!(
        (y - 0.05).abs() < 1e-3 && speed < 1e-3,
        "block at {y} m, {speed} m/s"
    );
    assert!(increments > 0, "ETI did not act on the resting block");
}
