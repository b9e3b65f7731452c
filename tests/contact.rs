//! Contact references: sliding and sticking on an incline (Coulomb's law), restitution
//! (Newton's law), a resting stack, and agreement of PGS and APGD — in 3D and in the planar mode.

mod common;
use common::*;
use vcsim::math::Vec3;

const G: f64 = 9.81;

/// Block (cube of edge 0.2 m) on a 30° static incline made of a rotated cuboid.
/// Returns (acceleration along the slope measured from t = 0.5 s to 1.5 s, displacement after 2 s).
fn incline(planar: bool, solver: &str, mu: f64) -> (f64, f64) {
    let (mut w, _, down) = common::incline(planar, 30.0, mu, solver, "Complementarity()");
    let x0 = w.bodies[1].com();
    let (mut v1, mut v2) = (0.0, 0.0);
    run_until(&mut w, 2.0, |w| {
        let s = w.bodies[1].lin_vel.dot(&down);
        if (w.time - 0.5).abs() < 1e-9 {
            v1 = s;
        }
        if (w.time - 1.5).abs() < 1e-9 {
            v2 = s;
        }
    });
    ((v2 - v1) / 1.0, (w.bodies[1].com() - x0).norm())
}

fn check_incline(planar: bool) {
    let th = 30f64.to_radians();
    let (mut worst_err, mut worst_drift) = (0.0f64, 0.0f64);
    for solver in SOLVERS {
        let (a, _) = incline(planar, solver, 0.3);
        let exact = G * (th.sin() - 0.3 * th.cos());
        let err = (a - exact).abs() / exact;
        eprintln!("planar={planar} {solver}: μ=0.3 a = {a:.5} m/s², exact {exact:.5}, rel. error {err:.2e}");
        assert!(err < 0.01, "sliding acceleration {a} vs {exact}");
        let (_, drift) = incline(planar, solver, 0.7);
        eprintln!("planar={planar} {solver}: μ=0.7 drift over 2 s = {drift:.2e} m");
        assert!(drift < 1e-3, "sticking block drifted {drift} m");
        worst_err = worst_err.max(err);
        worst_drift = worst_drift.max(drift);
    }
    quotes::assert_quotes(
        "validation.md",
        "block on a 30° incline",
        &[format!(
            "{}: error ≤ {}, drift ≤ {} m",
            if planar { "planar" } else { "3D" },
            quotes::sci(worst_err, 2),
            quotes::sci(worst_drift, 2)
        )],
    );
}

#[test]
fn block_on_incline_slides_and_sticks_per_coulomb() {
    check_incline(false);
}

#[test]
fn planar_block_on_incline_slides_and_sticks_per_coulomb() {
    check_incline(true);
}

/// Ball dropped from 1 m with restitution 0.5: rebound speed / impact speed.
fn bounce_ratio(planar: bool, solver: &str) -> f64 {
    let (dim, grav, pos, ground) = if planar {
        ("Two", "(0, -9.81)", "(0, 1.1)", "(0, -0.1)")
    } else {
        ("Three", "(0, 0, -9.81)", "(0, 0, 1.1)", "(0, 0, -0.1)")
    };
    let up = if planar { 1 } else { 2 };
    let src = format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}), time: (dt: 0.001, end: 1.0), solver: {solver},
           materials: [(name: \"m\", density: 1000, friction: 0.4, restitution: 0.5)],
           bodies: [
             (name: \"ground\", kind: Static, shape: Cuboid(half_extents: (2, 0.1, 2)), position: {ground}, material: \"m\",
              rotation: {}),
             (name: \"ball\", shape: Ball(radius: 0.1), position: {pos}, material: \"m\"),
           ])",
        if planar { "Identity" } else { "AxisDeg((1, 0, 0), 90)" }
    );
    let mut w = world(&src);
    let (mut impact, mut rebound, mut prev) = (0.0f64, 0.0f64, 0.0f64);
    run_until(&mut w, 0.8, |w| {
        let v = w.bodies[1].lin_vel[up];
        if prev < 0.0 && v > 0.0 && impact == 0.0 {
            impact = -prev;
            rebound = v;
        }
        prev = v;
    });
    assert!(
        impact > 4.0,
        "the ball should hit the ground at about 4.4 m/s, got {impact}"
    );
    rebound / impact
}

#[test]
fn ball_rebounds_with_restitution_half() {
    for planar in [false, true] {
        for solver in SOLVERS {
            let r = bounce_ratio(planar, solver);
            eprintln!("planar={planar} {solver}: rebound ratio {r:.5}");
            assert!((r - 0.5).abs() < 0.02 * 0.5, "rebound ratio {r}");
            quotes::assert_quotes(
                "validation.md",
                "ball dropped, e = 0.5",
                &[format!("| {} (", quotes::fixed(r, 5))],
            );
        }
    }
}

/// A stack of 10 unit cubes on the ground for 10 s at dt = 0.01 s: displacement of the top cube.
fn stack_drift(planar: bool, solver: &str) -> f64 {
    let (dim, grav) = if planar {
        ("Two", "(0, -9.81)")
    } else {
        ("Three", "(0, 0, -9.81)")
    };
    let up = |h: f64| {
        if planar {
            format!("(0, {h})")
        } else {
            format!("(0, 0, {h})")
        }
    };
    let mut bodies = format!(
        "(name: \"ground\", kind: Static, shape: Cuboid(half_extents: (5, 5, 5)), position: {}, material: \"m\"),",
        up(-5.0)
    );
    for i in 0..10 {
        bodies += &format!(
            "(name: \"cube{i}\", shape: Cuboid(half_extents: (0.5, 0.5, 0.5)), position: {}, material: \"m\"),",
            up(0.5 + i as f64)
        );
    }
    let src = format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}), time: (dt: 0.01, end: 10.0), solver: {solver},
           materials: [(name: \"m\", density: 1000, friction: 0.6)], bodies: [{bodies}])"
    );
    let mut w = world(&src);
    let top0 = w.bodies[10].com();
    let mut worst = 0.0f64;
    run_until(&mut w, 10.0, |w| {
        worst = worst.max((w.bodies[10].com() - top0).norm())
    });
    worst
}

#[test]
fn stack_of_ten_cubes_rests() {
    let mut apgd = 0.0f64;
    let mut quoted = Vec::new();
    for planar in [false, true] {
        for solver in SOLVERS {
            let d = stack_drift(planar, solver);
            eprintln!("planar={planar} {solver}: top cube moved at most {d:.3e} m in 10 s");
            assert!(d < 1e-3, "top cube moved {d} m");
            let dim = if planar { "planar" } else { "3D" };
            if solver.starts_with("Pgs") {
                let dim2 = if planar { "2D" } else { "3D" };
                quoted.push(format!("{} mm ({dim2})", quotes::fixed(1e3 * d, 2)));
                let q = format!("{} mm ({dim})", quotes::fixed(1e3 * d, 2));
                quotes::assert_quotes("examples/stack.md", "| PGS (500 sweeps max", &[q]);
            } else {
                apgd = apgd.max(d);
                let q = format!("{} m ({dim})", quotes::sci(d, 2));
                quotes::assert_quotes("examples/stack.md", "| APGD (1000 max", &[q]);
            }
        }
    }
    quoted.push(format!("APGD ≤ {} m", quotes::sci(apgd, 2)));
    quotes::assert_quotes("validation.md", "stack of 10 unit cubes", &quoted);
}

/// One frictional problem solved by both solvers from a cold start: a block held on a 30°
/// incline by friction (μ = 0.9, sticking, 4 contact points). The per-point split of a
/// statically indeterminate block is not unique, so the resultant contact force and moment are
/// compared; they are unique.
#[test]
fn pgs_and_apgd_agree_on_a_frictional_problem() {
    let th = 30f64.to_radians();
    let n = Vec3::new(th.sin(), 0.0, th.cos());
    let c = n * 0.6;
    // Moving down the slope at 0.01 m/s and sideways at 0.01 m/s with μ = 0.9: stopping it and
    // holding it against gravity within the step needs a tangential impulse of about 0.48 N·s,
    // below μ λ_n ≈ 0.61 N·s, so it sticks. Sliding is where the two problems differ by design: box friction is an
    // LCP, the cone a CCP whose normal velocity after a sliding step is μ|u_t| (see the book).
    let v = Vec3::new(th.cos(), 0.0, -th.sin()) * 0.01 + Vec3::new(0.0, 0.01, 0.0);
    let mut results = Vec::new();
    for solver in [
        "Pgs(max_iterations: 5000, tolerance: 1e-11, warm_start: false)",
        "Apgd(max_iterations: 5000, tolerance: 1e-11, warm_start: false)",
    ] {
        let src = format!(
            "Model(time: (dt: 0.01, end: 1.0), solver: {solver},
               materials: [(name: \"m\", density: 1000, friction: 0.9)],
               bodies: [
                 (name: \"incline\", kind: Static, shape: Cuboid(half_extents: (3, 3, 0.5)), rotation: AxisDeg((0, 1, 0), 30), material: \"m\"),
                 (name: \"block\", shape: Cuboid(half_extents: (0.1, 0.1, 0.1)), rotation: AxisDeg((0, 1, 0), 30), material: \"m\",
                  position: ({}, {}, {}), velocity: ({}, {}, {})),
               ])",
            c.x, c.y, c.z, v.x, v.y, v.z
        );
        let mut w = world(&src);
        let info = w.step();
        assert!(info.converged, "{solver} did not converge: {info:?}");
        let com = w.bodies[1].com();
        let (mut f, mut m) = (Vec3::zeros(), Vec3::zeros());
        for (ct, imp) in w.contacts().iter().zip(w.contact_impulses()) {
            let p = ct.normal * imp.normal + Vec3::from(imp.tangent);
            f += p;
            m += (ct.point - com).cross(&p);
        }
        eprintln!("{solver}: {} points, resultant impulse {f:?}, moment {m:?}, {} iterations, residual {:.1e}", w.contacts().len(), info.iterations, info.residual);
        results.push((f, m, info.residual));
    }
    let (f0, m0, _) = results[0];
    let (f1, m1, _) = results[1];
    quotes::assert_quotes(
        "validation.md",
        "PGS vs APGD on one frictional problem",
        &[format!(
            "resultant impulses differ by {} N·s (of {} N·s)",
            quotes::sci((f0 - f1).norm(), 1),
            quotes::fixed(f0.norm(), 2)
        )],
    );
    // Both solve to 1e-11 m/s; the impulses (N·s) agree to far better than 1e-6 of their size.
    assert!(
        (f0 - f1).norm() < 1e-6 * f0.norm(),
        "resultants differ: {f0:?} vs {f1:?}"
    );
    assert!(
        (m0 - m1).norm() < 1e-6 * f0.norm(),
        "moments differ: {m0:?} vs {m1:?}"
    );
    // Friction stops the block within the cone.
    let fz = f0.dot(&n);
    let ft = (f0 - n * fz).norm();
    assert!(
        fz > 0.0 && ft > 0.0 && ft < 0.9 * fz,
        "the block must stick: |f_t| = {ft}, μ f_n = {}",
        0.9 * fz
    );
}
