//! The rigid pile of the performance issue's target 6, built from the same numbers for vcsim
//! (a RON model) and for rapier3d (a `PhysicsWorld`): 1000 cubes of side 0.2 m (1000 kg/m³,
//! friction 0.5, restitution 0) on a 10 × 10 × 10 lattice of pitch 0.3 m (odd layers staggered),
//! each turned by up to 40° so they land on edges and corners, dropped into an open
//! container (floor 4.4 m × 4.4 m, walls 1.5 m high), g = 9.81 m/s², dt = 5 ms. Neither side
//! sleeps. Shared by `benches/pile_vs_rapier.rs` and `examples/perf_targets.rs`.

#![allow(dead_code)]

use rapier3d_f64::prelude::*;
use std::path::Path;

/// Solver iterations per step on both sides.
pub const ITERATIONS: usize = 10;
/// Steps before timing: 1 s of the drop, the pile mostly down.
pub const SETTLE: usize = 200;

/// Cubes per lattice edge (the pile has `N_SIDE³`).
pub const N_SIDE: usize = 10;
/// Half side of a cube (m).
pub const HALF: f64 = 0.1;
/// Lattice pitch (m).
pub const PITCH: f64 = 0.3;
/// Height of the lowest layer's centres (m).
pub const Z0: f64 = 0.4;
/// Time step (s).
pub const DT: f64 = 0.005;
/// Coulomb friction of every surface.
pub const FRICTION: f64 = 0.5;
/// Density (kg/m³).
pub const DENSITY: f64 = 1000.0;
/// Container: (half extents, centre) of the floor and four walls (m).
pub const CONTAINER: [([f64; 3], [f64; 3]); 5] = [
    ([2.4, 2.4, 0.1], [0.0, 0.0, -0.1]),
    ([0.1, 2.4, 0.75], [2.3, 0.0, 0.75]),
    ([0.1, 2.4, 0.75], [-2.3, 0.0, 0.75]),
    ([2.2, 0.1, 0.75], [0.0, 2.3, 0.75]),
    ([2.2, 0.1, 0.75], [0.0, -2.3, 0.75]),
];

/// Centre (m) and orientation of cube `i`: odd layers shifted by half a pitch in x and y so no
/// columns form, each cube turned by deterministic angles (yaw −40° to 40°, pitch and roll
/// −30° to 30°) so cubes land on edges and corners and tumble.
pub fn cube(i: usize) -> ([f64; 3], glamx::DQuat) {
    let (a, b, c) = (i % N_SIDE, (i / N_SIDE) % N_SIDE, i / (N_SIDE * N_SIDE));
    let off = -0.5 * (N_SIDE - 1) as f64 * PITCH + if c % 2 == 1 { 0.5 * PITCH } else { 0.0 };
    let p = [
        off + a as f64 * PITCH - if c % 2 == 1 { 0.25 * PITCH } else { 0.0 },
        off + b as f64 * PITCH - if c % 2 == 1 { 0.25 * PITCH } else { 0.0 },
        Z0 + c as f64 * PITCH,
    ];
    let yaw = 2.0 * (((i * 37) % 41) as f64 - 20.0);
    let pitch = 2.0 * (((i * 53) % 31) as f64 - 15.0);
    let roll = 2.0 * (((i * 29) % 31) as f64 - 15.0);
    let q = glamx::DQuat::from_euler(
        glamx::EulerRot::ZYX,
        yaw.to_radians(),
        pitch.to_radians(),
        roll.to_radians(),
    );
    (p, q)
}

/// The vcsim model: APGD or PGS (`solver`, e.g. `Pgs`) at a fixed iteration count (tolerance
/// 1e-12 m/s, so every step does `iterations` of them).
pub fn vcsim_model(solver: &str, iterations: usize) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "Model(\n description: \"{} cubes dropped into a container\",\n \
         time: (dt: {DT}, end: 10.0),\n \
         solver: {solver}(max_iterations: {iterations}, tolerance: 1e-12),\n \
         materials: [(name: \"m\", density: {DENSITY}, friction: {FRICTION}, restitution: 0)],\n \
         bodies: [\n",
        N_SIDE.pow(3)
    ));
    for (k, (h, c)) in CONTAINER.iter().enumerate() {
        s.push_str(&format!(
            "  (name: \"wall{k}\", kind: Static, material: \"m\", shape: Cuboid(half_extents: \
             ({}, {}, {})), position: ({}, {}, {})),\n",
            h[0], h[1], h[2], c[0], c[1], c[2]
        ));
    }
    for i in 0..N_SIDE.pow(3) {
        let (p, q) = cube(i);
        s.push_str(&format!(
            "  (name: \"c{i}\", material: \"m\", shape: Cuboid(half_extents: ({HALF}, {HALF}, \
             {HALF})), position: ({:?}, {:?}, {:?}), rotation: Quat({:?}, {:?}, {:?}, {:?})),\n",
            p[0], p[1], p[2], q.w, q.x, q.y, q.z
        ));
    }
    s.push_str(" ],\n output: (every: 10.0),\n)\n");
    s
}

/// The vcsim world of [`vcsim_model`].
pub fn vcsim_world(solver: &str, iterations: usize) -> vcsim::World {
    let text = vcsim_model(solver, iterations);
    let m = vcsim::parse_str(Path::new("pile_1000.ron"), &text).expect("pile model parses");
    vcsim::build_world(&m).expect("pile model builds")
}

/// Mean height of the cubes' centres in a vcsim world (m).
pub fn vcsim_mean_height(w: &vcsim::World) -> f64 {
    let n = N_SIDE.pow(3);
    (0..n)
        .filter_map(|i| w.body(&format!("c{i}")))
        .map(|b| w.bodies[b].pose.translation.z)
        .sum::<f64>()
        / n as f64
}

/// Takes `settle` steps, then `steps` timed ones; returns the mean time per timed step (s).
pub fn settle_then_time(settle: usize, steps: usize, mut step: impl FnMut()) -> f64 {
    for _ in 0..settle {
        step();
    }
    let start = std::time::Instant::now();
    for _ in 0..steps {
        step();
    }
    start.elapsed().as_secs_f64() / steps.max(1) as f64
}

/// The rapier3d world of the same scene, `iterations` solver iterations per step (one PGS
/// sweep each, rapier's default of one internal iteration), sleeping off.
pub fn rapier_world(iterations: usize) -> PhysicsWorld {
    let mut w = PhysicsWorld::new();
    w.gravity = Vector::new(0.0, 0.0, -9.81);
    w.integration_parameters.dt = DT;
    w.integration_parameters.num_solver_iterations = iterations;
    for (h, c) in CONTAINER {
        let b = w.insert_body(RigidBodyBuilder::fixed().translation(Vector::new(c[0], c[1], c[2])));
        w.insert_collider(
            ColliderBuilder::cuboid(h[0], h[1], h[2])
                .friction(FRICTION)
                .restitution(0.0),
            Some(b),
        );
    }
    for i in 0..N_SIDE.pow(3) {
        let (p, q) = cube(i);
        w.insert(
            RigidBodyBuilder::dynamic()
                .pose(Pose::from_parts(Vector::new(p[0], p[1], p[2]), q))
                .can_sleep(false),
            ColliderBuilder::cuboid(HALF, HALF, HALF)
                .density(DENSITY)
                .friction(FRICTION)
                .restitution(0.0),
        );
    }
    w
}

/// Mean height of the cubes' centres in a rapier world (m).
pub fn rapier_mean_height(w: &PhysicsWorld) -> f64 {
    let (mut s, mut n) = (0.0, 0);
    for (_, b) in w.bodies.iter() {
        if b.is_dynamic() {
            s += b.translation().z;
            n += 1;
        }
    }
    s / n.max(1) as f64
}
