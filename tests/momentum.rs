//! Momentum at walls in motion: a water column 0.4 × 0.3 m collapses along a floor toward a
//! wall 0.5 m away (2D, spacing 0.01 m, dt 0.5 ms, 0.2 s: the surge has not reached the wall).
//! Gravity is vertical, so the fluid's x-momentum change equals the x-impulse the walls give it:
//! `Δp_x + Σ_walls ∫ F_x dt = 0`, the walls' forces being what `FluidForce` reports (every wall
//! is a static body a probe reads). Both methods keep it to round-off. Before the constraint
//! method's fluid–wall contact rows (001 §4.2) reported their reaction on static bodies, the
//! sum was −4.9 N s/m at 0.2 s against the back wall's −67 N s/m (2026-11-28), and the force
//! on an obstacle in a dam break a third of DualSPHysics' (the book's performance chapter).
//! The water is inviscid here: the constraint method's viscous wall term (Morris, no-slip) is
//! not in `FluidForce` (with the default 1e-6 m²/s the sum is −4.4e-3 N s/m at 0.2 s).

const SCENE: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.0005, end: 0.2),
    solver: Pgs(max_iterations: 10, tolerance: 1e-9),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.85, 0.05)), position: (0.8, -0.05)),
        (name: "back", kind: Static, shape: Cuboid(half_extents: (0.05, 0.35)), position: (-0.05, 0.35)),
        (name: "wall", kind: Static, shape: Cuboid(half_extents: (0.06, 0.35)), position: (0.96, 0.35)),
    ],
    fluid: (spacing: 0.01, viscosity: 0, METHOD regions: [Box(min: (0, 0), max: (0.4, 0.3))]),
    probes: [FluidForce("floor"), FluidForce("back"), FluidForce("wall")],
)"#;

/// `Δp_x + Σ ∫ F_x dt` over 400 steps and the back wall's impulse (N s/m).
fn balance(method: &str) -> (f64, f64) {
    let text = SCENE.replace("METHOD", method);
    let m = vcsim::parse_str(std::path::Path::new("collapse.ron"), &text).expect("parses");
    let mut w = vcsim::build_world(&m).expect("builds");
    let ids = ["floor", "back", "wall"].map(|n| w.body(n).expect("body"));
    let px = |w: &vcsim::World| {
        let f = w.fluid.as_ref().expect("fluid");
        f.vel.iter().map(|v| v.x).sum::<f64>() * f.mass
    };
    let p0 = px(&w);
    let (mut walls, mut back) = (0.0, 0.0);
    for _ in 0..400 {
        w.step();
        let f = w.fluid.as_ref().expect("fluid");
        walls += ids.iter().map(|&b| f.body_force[b].x).sum::<f64>() * w.dt;
        back += f.body_force[ids[1]].x * w.dt;
    }
    (px(&w) - p0 + walls, back)
}

/// Asserts the balance for `method` (a RON field, or empty for the default).
fn assert_balance(method: &str) {
    let (sum, back) = balance(method);
    assert!(back < -50.0, "{method}: the back wall's impulse {back}");
    assert!(
        sum.abs() < 1e-6 * back.abs(),
        "{method}: Δp + wall impulses = {sum} N s/m"
    );
}

#[test]
fn wcsph_keeps_momentum_at_the_walls() {
    assert_balance("method: Wcsph(),");
}

#[test]
fn constraint_method_keeps_momentum_at_the_walls() {
    assert_balance("");
}
