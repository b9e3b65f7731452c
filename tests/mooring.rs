//! Mooring lines (`Line` joints): the tension follows the line's law — `k (L − L₀)` at rest,
//! `m g` for a body hanging from it — a slack line carries no force, a line never pushes, and
//! an inextensible line keeps its length. 2D and 3D, PGS and APGD.

mod common;
use common::*;

/// A ball of radius 0.1 m (density 1000) hanging from a static anchor 1 m above it on a line
/// of rest length `rest` (m), stiffness `k` (N/m, or none) and damping `c` (N·s/m).
fn hanging(planar: bool, solver: &str, rest: f64, k: Option<f64>, c: f64) -> String {
    let (dim, grav, top) = if planar {
        ("Two", "(0, -9.81)", "(0, 1)")
    } else {
        ("Three", "(0, 0, -9.81)", "(0, 0, 1)")
    };
    let stiffness = k.map_or(String::new(), |k| format!("stiffness: {k}, "));
    format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}), time: (dt: 0.001, end: 5.0), solver: {solver},
           bodies: [
             (name: \"anchor\", kind: Static, shape: Ball(radius: 0.01), position: {top}),
             (name: \"ball\", shape: Ball(radius: 0.1)),
           ],
           joints: [(name: \"line\", kind: Line(anchor2: (0, 0), rest_length: {rest}, {stiffness}damping: {c}),
                     body1: \"anchor\", body2: \"ball\", anchor: {top})])"
    )
}

/// Line length (m), tension on the ball (N, along +up) and the force's sideways part (N) at
/// the end of a run to `t` (s).
fn settle(src: &str, t: f64) -> (f64, f64, f64, f64) {
    let mut w = world(src);
    run_until(&mut w, t, |_| {});
    let j = &w.joints[0];
    let (p1, p2) = j.anchors(&w.bodies);
    let up = -w.gravity.normalize();
    let along = j.force.dot(&up);
    let side = (j.force - up * along).norm();
    (
        (p2 - p1).norm(),
        along,
        side,
        w.bodies[1].mass * w.gravity.norm(),
    )
}

#[test]
fn a_hanging_body_stretches_its_line_by_its_weight_over_the_stiffness() {
    for planar in [true, false] {
        for solver in ["Pgs()", "Apgd()"] {
            // Damping ratio about 0.5 (the ball's mass is 31 kg in 2D, 4.2 kg in 3D).
            let k = 20_000.0;
            let c = if planar { 800.0 } else { 300.0 };
            let (len, tension, side, weight) =
                settle(&hanging(planar, solver, 0.9, Some(k), c), 3.0);
            // Statics: T = m g, L = L₀ + m g / k.
            assert!(
                (tension / weight - 1.0).abs() < 1e-3,
                "{planar} {solver}: tension {tension} N, weight {weight} N"
            );
            let want = 0.9 + weight / k;
            assert!(
                (len - want).abs() < 1e-3 * (want - 0.9),
                "{planar} {solver}: length {len} m, expected {want} m"
            );
            assert!(side < 1e-9 * weight, "{planar}: sideways force {side} N");
        }
    }
}

#[test]
fn an_inextensible_line_holds_its_length_and_carries_the_weight() {
    for planar in [true, false] {
        let (len, tension, _, weight) = settle(&hanging(planar, "Pgs()", 0.9, None, 0.0), 3.0);
        assert!((len - 0.9).abs() < 1e-4, "{planar}: rope length {len} m");
        assert!(
            (tension / weight - 1.0).abs() < 1e-3,
            "{planar}: tension {tension} N against {weight} N"
        );
    }
}

#[test]
fn a_slack_line_carries_nothing_and_a_line_never_pushes() {
    // The ball starts 1 m below the anchor on a line 1.2 m long: it falls 0.2 m freely, then
    // the line catches it. Before that, and whenever the line is shorter than its rest length,
    // the force is exactly zero; the force is never a push (along −up on the ball).
    let src = hanging(true, "Pgs()", 1.2, Some(5_000.0), 50.0);
    let mut w = world(&src);
    let (mut slack_steps, mut taut_steps, mut min_len) = (0, 0, f64::INFINITY);
    let up = -w.gravity.normalize();
    run_until(&mut w, 2.0, |w| {
        let j = &w.joints[0];
        let (p1, p2) = j.anchors(&w.bodies);
        let len = (p2 - p1).norm();
        min_len = min_len.min(len);
        let f = j.force.dot(&up);
        assert!(f >= -1e-9, "t {}: the line pushes: {f} N", w.time);
        if len < 1.2 - 1e-3 {
            assert_eq!(
                j.force.norm(),
                0.0,
                "t {}: slack line at {len} m pulls",
                w.time
            );
            slack_steps += 1;
        } else if len > 1.2 + 1e-3 {
            taut_steps += 1;
        }
    });
    assert!(
        slack_steps > 100 && taut_steps > 100,
        "{slack_steps} slack, {taut_steps} taut steps"
    );
    // The ball fell from 1 m below the anchor: the line was never shorter than that.
    assert!(min_len > 0.999, "shortest {min_len} m");
}

#[test]
fn a_line_with_compliance_or_a_bad_length_is_refused_where_it_is_written() {
    let bad = [
        (
            hanging(true, "Pgs()", 0.9, Some(1000.0), 50.0).replace(
                "body1: \"anchor\"",
                "compliance: (linear_stiffness: 10), body1: \"anchor\"",
            ),
            "compliance",
        ),
        (
            hanging(true, "Pgs()", 0.9, Some(1000.0), 50.0)
                .replace("rest_length: 0.9", "rest_length: 1e300"),
            "rest_length",
        ),
        (
            hanging(true, "Pgs()", 0.9, Some(1000.0), 50.0)
                .replace("stiffness: 1000", "stiffness: -3"),
            "stiffness",
        ),
    ];
    for (src, field) in bad {
        let path = std::path::Path::new("moored.ron");
        let err = match vcsim::parse_str(path, &src) {
            Err(e) => e.to_string(),
            Ok(m) => panic!("accepted ({field}): {:?}", m.joints[0].kind),
        };
        assert!(
            err.contains(field) && err.contains("moored.ron:"),
            "{field}: {err}"
        );
    }
}
