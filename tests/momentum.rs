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

/// The fluid's x-momentum change (N s/m) and each wall's x-impulse (floor, back, wall) over
/// `steps` steps of `method`.
fn impulses(method: &str, steps: usize) -> (f64, [f64; 3]) {
    let text = SCENE.replace("METHOD", method);
    let m = vcsim::parse_str(std::path::Path::new("collapse.ron"), &text).expect("parses");
    let mut w = vcsim::build_world(&m).expect("builds");
    let ids = ["floor", "back", "wall"].map(|n| w.body(n).expect("body"));
    let px = |w: &vcsim::World| {
        let f = w.fluid.as_ref().expect("fluid");
        f.vel.iter().map(|v| v.x).sum::<f64>() * f.mass
    };
    let p0 = px(&w);
    let mut walls = [0.0; 3];
    for _ in 0..steps {
        w.step();
        let f = w.fluid.as_ref().expect("fluid");
        for (k, &b) in ids.iter().enumerate() {
            walls[k] += f.body_force[b].x * w.dt;
        }
    }
    (px(&w) - p0, walls)
}

/// `Δp_x + Σ ∫ F_x dt` over 400 steps and the back wall's impulse (N s/m).
fn balance(method: &str) -> (f64, f64) {
    let (dp, walls) = impulses(method, 400);
    (dp + walls.iter().sum::<f64>(), walls[1])
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

/// The water is inviscid and the floor flat, so the floor's force on the surge is normal: its
/// x-impulse should be small beside the back wall's. Run to 0.6 s (the surge has hit the wall):
/// the floor takes 2.97 of the back wall's 138.6 N s/m (2.1 %) and the wall 76.3; before the
/// fluid–wall contact rows met the wall's plane (2026-11-28) a particle sliding on the boundary
/// particles' spheres climbed a bump per spacing, and (with the default viscosity, 1e-6 m²/s)
/// the floor took 18.1 of 135.8 N s/m (13 %) and the wall 63.7, where WCSPH's takes 76.2
/// ([`vcsim::constraints::particle_contact`]).
#[test]
fn a_flat_floor_does_not_brake_an_inviscid_surge() {
    let (_, [floor, back, wall]) = impulses("", 1200);
    eprintln!("to 0.6 s: floor {floor:.2}, back {back:.2}, wall {wall:.2} N s/m");
    assert!(back < -100.0, "the back wall's impulse {back} N s/m");
    assert!(
        floor.abs() < 0.05 * back.abs(),
        "the floor took {floor} N s/m of the back wall's {back}"
    );
}
