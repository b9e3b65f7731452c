//! Joint references: the large-amplitude period of a pendulum on a revolute joint, and the
//! static deflection of a cantilever chain of rigid segments joined by compliant hinges.

mod common;
use common::*;

const G: f64 = 9.81;

/// Pendulum: a ball (r = 0.05 m) on a revolute joint 1 m above it, released at 30°.
/// Returns (measured period, exact period, max joint drift).
fn pendulum(planar: bool, solver: &str) -> (f64, f64, f64) {
    let (l, r, th0) = (1.0f64, 0.05f64, 30f64.to_radians());
    let (dim, grav, axis, bob) = if planar {
        (
            "Two",
            "(0, -9.81)",
            "(0, 0, 1)",
            format!("({}, {})", l * th0.sin(), -l * th0.cos()),
        )
    } else {
        (
            "Three",
            "(0, 0, -9.81)",
            "(0, 1, 0)",
            format!("({}, 0, {})", l * th0.sin(), -l * th0.cos()),
        )
    };
    let src = format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}), time: (dt: 0.001, end: 10.0), solver: {solver},
           bodies: [
             (name: \"pivot\", kind: Static, shape: Ball(radius: 0.01)),
             (name: \"bob\", shape: Ball(radius: {r}), position: {bob}),
           ],
           joints: [(name: \"hinge\", kind: Revolute(axis: {axis}), body1: \"pivot\", body2: \"bob\", anchor: (0, 0, 0))])"
    );
    let mut w = world(&src);
    let b = &w.bodies[1];
    // Physical pendulum: I_pivot = I_cm + m L², period 4 sqrt(I_pivot / (m g L)) K(sin(θ0/2)).
    let i_cm = if planar {
        b.inertia_world()[(2, 2)]
    } else {
        b.inertia_world()[(1, 1)]
    };
    let i_p = i_cm + b.mass * l * l;
    let exact = 4.0 * (i_p / (b.mass * G * l)).sqrt() * elliptic_k((th0 / 2.0).sin());
    let (mut crossings, mut prev_x, mut prev_t, mut drift) =
        (Vec::new(), w.bodies[1].com().x, 0.0, 0.0f64);
    run_until(&mut w, 10.0, |w| {
        let x = w.bodies[1].com().x;
        if prev_x < 0.0 && x >= 0.0 {
            crossings.push(prev_t + (w.time - prev_t) * (-prev_x) / (x - prev_x));
        }
        prev_x = x;
        prev_t = w.time;
        let (a1, a2) = w.joints[0].anchors(&w.bodies);
        drift = drift.max((a1 - a2).norm());
    });
    assert!(crossings.len() >= 4, "too few swings: {crossings:?}");
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    (period, exact, drift)
}

#[test]
fn pendulum_period_matches_the_large_amplitude_solution() {
    let (mut worst_err, mut worst_drift) = (0.0f64, 0.0f64);
    for planar in [false, true] {
        for solver in SOLVERS {
            let (t, exact, drift) = pendulum(planar, solver);
            let err = (t - exact).abs() / exact;
            eprintln!("planar={planar} {solver}: period {t:.6} s, exact {exact:.6} s, rel. error {err:.2e}, joint drift {drift:.2e} m");
            assert!(err < 0.005, "period {t} vs {exact}");
            assert!(drift < 1e-4, "joint drift {drift} m");
            if planar && solver.starts_with("Pgs") {
                // The case of `models/pendulum_2d_pgs.ron`, as its example page quotes it.
                quotes::assert_quotes(
                    "examples/pendulum.md",
                    "Measured period",
                    &[format!(
                        "{t:.6} s, {} relative error; joint drift at most {} m",
                        quotes::sci(err, 2),
                        quotes::sci(drift, 2)
                    )],
                );
                quotes::assert_quotes(
                    "examples/pendulum.md",
                    "K the complete elliptic",
                    &[format!("{exact:.6} s for the disc")],
                );
            }
            worst_err = worst_err.max(err);
            worst_drift = worst_drift.max(drift);
        }
    }
    quotes::assert_quotes(
        "validation.md",
        "pendulum, 30°, 10 s",
        &[format!(
            "| {}; {} m |",
            quotes::sci(worst_err, 2),
            quotes::sci(worst_drift, 2)
        )],
    );
}

/// Exact static equilibrium of the discrete chain (N segments of length ls, hinges of stiffness
/// k at their starts, dead load F downward at the centre of the last segment), by fixed-point
/// iteration of θ_s = −F (P_x − h_s,x) / k on the nonlinear geometry. Returns the load point.
fn chain_equilibrium(n: usize, ls: f64, k: f64, f: f64) -> (f64, f64) {
    let mut theta = vec![0.0f64; n];
    let mut p = (0.0, 0.0);
    for _ in 0..500 {
        let mut h = vec![(0.0f64, 0.0f64); n];
        let mut phi = 0.0;
        let mut pos = (0.0f64, 0.0f64);
        for s in 0..n {
            h[s] = pos;
            phi += theta[s];
            if s + 1 < n {
                pos = (pos.0 + ls * phi.cos(), pos.1 + ls * phi.sin());
            } else {
                p = (pos.0 + 0.5 * ls * phi.cos(), pos.1 + 0.5 * ls * phi.sin());
            }
        }
        for s in 0..n {
            theta[s] = -f * (p.0 - h[s].0) / k;
        }
    }
    p
}

fn cantilever(planar: bool, solver: &str) -> (f64, f64, f64) {
    let (n, ls, k, f) = (10usize, 0.1f64, 20.0f64, 0.2f64);
    let (dim, up, axis, he) = if planar {
        ("Two", 1usize, "(0, 0, 1)", "(0.05, 0.01)")
    } else {
        ("Three", 2usize, "(0, 1, 0)", "(0.05, 0.01, 0.01)")
    };
    let v = |x: f64, y: f64| {
        if planar {
            format!("({x}, {y})")
        } else {
            format!("({x}, 0, {y})")
        }
    };
    let mut bodies = format!(
        "(name: \"wall\", kind: Static, shape: Cuboid(half_extents: {he}), position: {}),",
        v(-0.05, 0.0)
    );
    let mut joints = String::new();
    for s in 0..n {
        let force = if s + 1 == n { v(0.0, -f) } else { v(0.0, 0.0) };
        bodies += &format!(
            "(name: \"s{s}\", shape: Cuboid(half_extents: {he}), position: {}, force: {force}),",
            v(ls * (s as f64 + 0.5), 0.0)
        );
        let prev = if s == 0 {
            "wall".to_string()
        } else {
            format!("s{}", s - 1)
        };
        joints += &format!(
            "(name: \"h{s}\", kind: Revolute(axis: {axis}, spring: (stiffness: {k}, damping: 5.0)), body1: \"{prev}\", body2: \"s{s}\", anchor: {}),",
            v(ls * s as f64, 0.0)
        );
    }
    let src = format!(
        "Model(scene: (dimension: {dim}, gravity: (0, 0, 0), thickness: 0.02), time: (dt: 0.002, end: 6.0), solver: {solver},
           bodies: [{bodies}], joints: [{joints}])"
    );
    let mut w = world(&src);
    run_until(&mut w, 6.0, |_| {});
    let tip = &w.bodies[n];
    let speed = w
        .bodies
        .iter()
        .map(|b| b.lin_vel.norm())
        .fold(0.0, f64::max);
    let p = chain_equilibrium(n, ls, k, f);
    (tip.com()[up], p.1, speed)
}

#[test]
fn cantilever_chain_of_compliant_hinges_matches_the_discrete_spring_chain() {
    let mut least = f64::INFINITY;
    let (mut pgs, mut apgd, mut load) = (0.0f64, 0.0f64, 0.0);
    for planar in [true, false] {
        for solver in SOLVERS {
            let (y, exact, speed) = cantilever(planar, solver);
            let err = (y - exact).abs() / exact.abs();
            eprintln!("planar={planar} {solver}: deflection {y:.6e} m, exact {exact:.6e} m, rel. error {err:.2e}, max speed {speed:.1e} m/s");
            assert!(
                speed < 1e-4,
                "the chain has not come to rest (max speed {speed} m/s)"
            );
            assert!(err < 0.005, "deflection {y} vs {exact}");
            least = least.min(err);
            load = exact;
            if solver.starts_with("Pgs") {
                pgs = pgs.max(err);
            } else {
                apgd = apgd.max(err);
            }
        }
    }
    quotes::assert_quotes(
        "validation.md",
        "cantilever chain, 10 compliant hinges",
        &[format!(
            "| {} to {} |",
            quotes::sci(least, 1),
            quotes::sci(pgs.max(apgd), 1)
        )],
    );
    let load = format!("{load:.7}").replace('-', "−");
    quotes::assert_quotes(
        "examples/cantilever.md",
        "Measured: ",
        &[format!(
            "Measured: {load} m, relative error ≤ {} (PGS) and ≤ {} (APGD)",
            quotes::sci(pgs, 1),
            quotes::sci(apgd, 1)
        )],
    );
    quotes::assert_quotes(
        "examples/cantilever.md",
        "Load point:",
        &[format!("Load point: {load} m")],
    );
}
