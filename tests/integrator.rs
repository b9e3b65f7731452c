//! Integrator references: free fall / projectile against the closed-form discrete solution of
//! symplectic Euler, and torque-free rotation against conservation of angular momentum and
//! energy.

mod common;
use common::*;
use vcsim::math::Vec3;

/// Symplectic Euler under constant g: v_n = v0 + g t_n exactly, and
/// x_n = x0 + v0 t_n + g dt² n(n+1)/2 = x0 + v0 t + ½ g t² + ½ g t dt.
#[test]
fn free_fall_and_projectile_match_the_discrete_solution() {
    let (mut worst_x, mut worst_v) = (0.0f64, 0.0f64);
    for (dim, g, v0) in [
        ("Three", (0.0, 0.0, -9.81), (0.0, 0.0, 0.0)),
        ("Three", (0.0, 0.0, -9.81), (3.0, -2.0, 5.0)),
        ("Two", (0.0, -9.81, 0.0), (4.0, 6.0, 0.0)),
    ] {
        let src = format!(
            "Model(scene: (dimension: {dim}, gravity: {g:?}), time: (dt: 0.001, end: 1.0),
               bodies: [(name: \"p\", shape: Ball(radius: 0.1), position: (1, 2, 0), velocity: {v0:?})])"
        );
        let mut w = world(&src);
        let x0 = w.bodies[0].com();
        run_until(&mut w, 1.0, |_| {});
        let (t, dt) = (w.time, w.dt);
        assert!((t - 1.0).abs() < 1e-12);
        let g = Vec3::new(g.0, g.1, g.2);
        let v0 = Vec3::new(v0.0, v0.1, v0.2);
        let x_exact = x0 + v0 * t + g * (0.5 * t * t);
        let x_discrete = x_exact + g * (0.5 * t * dt);
        let b = &w.bodies[0];
        let disp = (x_discrete - x0).norm();
        let err = (b.com() - x_discrete).norm() / disp;
        assert!(
            err < 1e-9,
            "{dim} v0={v0:?}: position error {err:e} relative to the discrete solution"
        );
        // The deviation from the exact parabola is the known discretisation error g t dt / 2.
        let dev = b.com() - x_exact;
        assert!((dev - g * (0.5 * t * dt)).norm() < 1e-9 * disp);
        let verr = (b.lin_vel - (v0 + g * t)).norm();
        eprintln!(
            "{dim} v0 = {v0:?}: position error {err:.2e} (relative), velocity error {verr:.2e} m/s"
        );
        assert!(
            verr < 1e-12 * (v0 + g * t).norm(),
            "velocity error {verr:e}"
        );
        worst_x = worst_x.max(err);
        worst_v = worst_v.max(verr);
    }
    quotes::assert_quotes(
        "validation.md",
        "free fall and projectile",
        &[
            format!("≤ {} relative", quotes::sci(worst_x, 2)),
            format!("≤ {} m/s", quotes::sci(worst_v, 1)),
        ],
    );
}

/// The validation page's figures for a torque-free run: drift, growth (0 when none) and loss.
fn quote_torque_free(anchor: &str, dl: f64, growth: f64, loss: f64) {
    let growth = if growth == 0.0 {
        "0".to_string()
    } else {
        quotes::sci(growth, 2)
    };
    quotes::assert_quotes(
        "validation.md",
        anchor,
        &[format!(
            "{}, growth {growth} (loss {})",
            quotes::sci(dl, 2),
            quotes::sci(loss, 2)
        )],
    );
}

/// Torque-free box (0.8 × 0.5 × 0.2 m, I_x < I_y < I_z) with initial ω (rad/s) over 10 s at
/// dt = 1e-3: returns (max relative drift of world L, max relative KE growth, max relative KE
/// loss, min dot product of the body axis `watch` with its initial direction).
fn torque_free(omega: (f64, f64, f64), watch: Vec3) -> (f64, f64, f64, f64) {
    torque_free_at(omega, watch, 0.001)
}

/// The same at time step `dt` (s).
fn torque_free_at(omega: (f64, f64, f64), watch: Vec3, dt: f64) -> (f64, f64, f64, f64) {
    let src = format!(
        "Model(scene: (gravity: (0, 0, 0)), time: (dt: {dt}, end: 10.0),
           bodies: [(name: \"b\", shape: Cuboid(half_extents: (0.4, 0.25, 0.1)), angular_velocity: {omega:?})])"
    );
    let mut w = world(&src);
    let i = w.bodies[0].inertia;
    assert!(i.x < i.y && i.y < i.z, "principal inertia {i:?}");
    let l0 = w.bodies[0].angular_momentum();
    let e0 = w.bodies[0].kinetic_energy();
    let a0 = w.bodies[0].pose.rotation * watch;
    let (mut dl, mut up, mut down, mut min_dot) = (0.0f64, 0.0f64, 0.0f64, 1.0f64);
    run_until(&mut w, 10.0, |w| {
        let b = &w.bodies[0];
        dl = dl.max((b.angular_momentum() - l0).norm() / l0.norm());
        let e = b.kinetic_energy();
        up = up.max((e - e0) / e0);
        down = down.max((e0 - e) / e0);
        min_dot = min_dot.min((b.pose.rotation * watch).dot(&a0));
    });
    eprintln!("ω0 = {omega:?}: |ΔL|/|L| = {dl:.3e}, KE growth {up:.3e}, KE loss {down:.3e}, min axis dot {min_dot:.3}");
    (dl, up, down, min_dot)
}

#[test]
fn torque_free_spin_near_major_axis_conserves_momentum_and_energy() {
    // z has the largest inertia: a spin near it stays a spin.
    let (dl, growth, loss, min_dot) = torque_free((0.05, 0.05, 4.0), Vec3::z());
    quote_torque_free("torque-free spin near the major axis", dl, growth, loss);
    assert!(
        min_dot > 0.95,
        "spin about the major axis must stay stable, min z·z0 = {min_dot}"
    );
    assert!(dl < 1e-4, "angular momentum drift {dl:e}");
    assert!(growth < 1e-4, "kinetic energy growth {growth:e}");
}

#[test]
fn torque_free_tumbling_near_intermediate_axis_conserves_momentum_and_energy() {
    // y is the intermediate axis: a spin near it is unstable and the body flips over
    // periodically (Dzhanibekov effect).
    let (dl, growth, loss, min_dot) = torque_free((0.01, 4.0, 0.01), Vec3::y());
    quote_torque_free("tumbling about the intermediate axis", dl, growth, loss);
    // `models/tumbling_box_pgs.ron` is this box; its page quotes the drift and the loss at
    // h = 1e-3 and 5e-4 s.
    let (_, _, half_loss, _) = torque_free_at((0.01, 4.0, 0.01), Vec3::y(), 5e-4);
    quotes::assert_quotes(
        "examples/tumbling.md",
        "World angular momentum",
        &[
            format!("conserved to {}", quotes::sci(dl, 2)),
            format!(
                "lowers the loss over 10 s from {} to {}",
                quotes::pct(loss, 2),
                quotes::pct(half_loss, 2)
            ),
        ],
    );
    assert!(
        min_dot < -0.9,
        "the body should flip over, min y·y0 = {min_dot}"
    );
    assert!(dl < 1e-4, "angular momentum drift {dl:e}");
    assert!(growth < 1e-4, "kinetic energy growth {growth:e}");
}
