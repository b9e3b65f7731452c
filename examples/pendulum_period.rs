//! Library use: build a planar pendulum from RON text, step it, and compare its period with the
//! exact large-amplitude period `4 sqrt(I_p / (m g L)) K(sin(θ0 / 2))`.
//!
//! `cargo run --release --example pendulum_period -- 60` (amplitude in degrees, default 30).

use std::path::Path;

fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..40 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let deg: f64 = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(30.0);
    let th = deg.to_radians();
    let model = format!(
        "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (dt: 0.001, end: 20.0),
           solver: Pgs(max_iterations: 50, tolerance: 1e-10),
           bodies: [(name: \"pivot\", kind: Static, shape: Ball(radius: 0.01)),
                    (name: \"bob\", shape: Ball(radius: 0.05), position: ({}, {}))],
           joints: [(name: \"hinge\", kind: Revolute(axis: (0, 0, 1)), body1: \"pivot\", body2: \"bob\", anchor: (0, 0))])",
        th.sin(),
        -th.cos()
    );
    let m = vcsim::parse_str(Path::new("pendulum (inline)"), &model)?;
    let mut world = vcsim::build_world(&m)?;
    let bob = world.body("bob").ok_or("no bob")?;
    let b = &world.bodies[bob];
    let i_p = b.inertia_world()[(2, 2)] + b.mass;
    let exact = 4.0 * (i_p / (b.mass * 9.81)).sqrt() * elliptic_k((th / 2.0).sin());

    let mut crossings = Vec::new();
    let mut prev = (0.0, world.bodies[bob].com().x);
    while world.time < 20.0 {
        world.step();
        let x = world.bodies[bob].com().x;
        if prev.1 < 0.0 && x >= 0.0 {
            crossings.push(prev.0 + (world.time - prev.0) * (-prev.1) / (x - prev.1));
        }
        prev = (world.time, x);
    }
    let n = crossings.len();
    if n < 2 {
        return Err("the pendulum did not swing".into());
    }
    let period = (crossings[n - 1] - crossings[0]) / (n - 1) as f64;
    println!(
        "amplitude {deg}°: period {period:.6} s, exact {exact:.6} s, relative error {:.2e}",
        (period - exact).abs() / exact
    );
    Ok(())
}
