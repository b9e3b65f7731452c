//! The constraint method's sub-steps at speed (`Constraint(cfl: ..)`, the module docs of
//! `vcsim::fluid::constraint`): a step in which a particle would move more than `cfl` spacings
//! relative to the fluid's mean is taken as equal sub-steps, each a whole step of every stage.
//!
//! Two blocks of water thrown at each other at ±`u` in a tank, beside a box resting on the
//! floor (contact rows with warm starts), at a step whose particles move more than `cfl` (0.5)
//! spacings per step relative to the mean:
//!
//! - the model at `dt` (two sub-steps per step) ends bit for bit where the model at `dt / 2`
//!   (no sub-steps) ends after twice the steps: a sub-step is exactly a step of the shorter
//!   length, bodies, contacts and fluid alike, and the clock stays on the model's grid;
//! - thrown at 1.2 spacings per step, more than the guard's one, the collision runs through
//!   in sub-steps, compressed by less than 1 %.

mod common;

use vcsim::World;

/// The scene at step `dt` (s), the blocks at ±`u` (m/s), the constraint method's `cfl`.
fn scene(dt: f64, u: f64, cfl: f64) -> String {
    format!(
        r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: {dt}, end: 1.0),
    solver: Pgs(max_iterations: 20, tolerance: 1e-9),
    materials: [(name: "wood", density: 600)],
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.5, 0.05)), position: (0.4, -0.05)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.05, 0.3)), position: (-0.05, 0.3)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.05, 0.3)), position: (0.85, 0.3)),
        (name: "box", kind: Dynamic, material: "wood", shape: Cuboid(half_extents: (0.04, 0.02)), position: (0.7, 0.02)),
    ],
    fluid: (
        method: Constraint(cfl: {cfl}),
        spacing: 0.01,
        regions: [
            Box(min: (0.0, 0.0), max: (0.2, 0.15), velocity: Uniform({u}, 0)),
            Box(min: (0.3, 0.0), max: (0.5, 0.15), velocity: Uniform(-{u}, 0)),
        ],
    ),
    output: (every: 0.01),
)"#
    )
}

/// Steps `world` `n` times; the largest sub-step count seen.
fn steps(world: &mut World, n: usize) -> usize {
    let mut most = 0;
    for _ in 0..n {
        world.step();
        most = most.max(world.last_substeps.substeps);
    }
    most
}

#[test]
fn a_sub_step_is_a_whole_step_of_the_shorter_length() {
    // 1.6 to 2.2 m/s relative to the mean over these steps (the fronts speed up): 1.3 to 1.8
    // of `cfl` spacings per step of 4 ms (two sub-steps), 0.64 to 0.89 at 2 ms (none).
    let (dt, u, cfl) = (0.004, 1.6, 0.5);
    let mut split = common::world(&scene(dt, u, cfl));
    let mut whole = common::world(&scene(dt / 2.0, u, cfl));
    let n = 4;
    let most_split = steps(&mut split, n);
    let most_whole = steps(&mut whole, 2 * n);
    assert_eq!(most_whole, 1, "no sub-steps at dt / 2");
    assert_eq!(most_split, 2, "two sub-steps per step at dt");
    assert_eq!(split.steps, n as u64);
    assert_eq!(
        split.time.to_bits(),
        (n as f64 * dt).to_bits(),
        "the clock is on the model's grid: {}",
        split.time
    );
    let (a, b) = (split.fluid.as_ref().unwrap(), whole.fluid.as_ref().unwrap());
    assert!(a.pos.iter().zip(&b.pos).all(|(p, q)| p == q));
    assert!(a.vel.iter().zip(&b.vel).all(|(p, q)| p == q));
    let (p, q) = (&split.bodies[3], &whole.bodies[3]);
    assert_eq!((p.pose, p.lin_vel), (q.pose, q.lin_vel), "the box too");
}

#[test]
fn a_collision_too_fast_for_the_step_runs_in_sub_steps() {
    use vcsim::runner::{run, Bounds};
    let (dt, u) = (0.004, 3.0);
    let mut world = common::world(&scene(dt, u, 0.5));
    let (_, report) = run(&mut world, &[], 0.2, 0.02, &Bounds::default(), &mut ())
        .expect("the collision runs through in sub-steps");
    let (c, at) = report.max_compression;
    println!(
        "{} steps, mean {:.3} sub-steps, largest compression {c:.2e} at {at} s",
        report.steps, report.mean_substeps
    );
    assert!(report.mean_substeps > 1.0, "{}", report.mean_substeps);
    assert!(c < 0.01, "largest compression {c}");
}

/// More sub-steps than `guard.max_substeps` allows are a blow-up, not a flow to follow: the run
/// stops at once and names the field (the partitioned methods' cap).
#[test]
fn more_sub_steps_than_the_guard_allows_stop_the_run() {
    use vcsim::runner::{run, Bounds, RunError};
    let src = scene(0.004, 3.0, 0.5).replace(
        "    output: (every: 0.01),",
        "    guard: (max_substeps: 2),\n    output: (every: 0.01),",
    );
    let mut world = common::world(&src);
    let err = run(&mut world, &[], 0.2, 0.02, &Bounds::default(), &mut ()).unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(matches!(err, RunError::Cap { step: 1, .. }), "{msg}");
    assert!(
        msg.contains("guard.max_substeps") && msg.contains("3 sub-steps"),
        "{msg}"
    );
}
