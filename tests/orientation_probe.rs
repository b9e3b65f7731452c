//! The `Orientation` probe: a body's frame as a rotation vector. A box spinning freely at
//! ω = 1 rad/s about z (2D and 3D, no gravity) reads `(0, 0, ω t)` while `ω t < π`, and the
//! same angle wrapped into (−π, π] after.

mod common;

use common::world;

#[test]
fn a_spinning_box_reads_its_angle() {
    for (dim, shape) in [("Two", "(0.1, 0.2)"), ("Three", "(0.1, 0.2, 0.3)")] {
        let src = format!(
            "Model(scene: (dimension: {dim}, gravity: (0, 0, 0)), time: (dt: 0.01, end: 4),
               bodies: [(name: \"box\", shape: Cuboid(half_extents: {shape}), angular_velocity: (0, 0, 1))],
               probes: [Orientation(\"box\")])"
        );
        let model = vcsim::parse_str(std::path::Path::new("t.ron"), &src).unwrap();
        let mut w = world(&src);
        let probes = vcsim::model::resolve_probes(&model, &w).unwrap();
        assert_eq!(
            probes[0].columns(&w),
            ["box.rot.x", "box.rot.y", "box.rot.z"]
        );
        for k in 1..=400 {
            w.step();
            if k % 50 == 0 {
                let mut v = Vec::new();
                probes[0].sample(&w, &mut v);
                let t = w.time;
                let wrapped = (t + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
                    - std::f64::consts::PI;
                assert!(v[0].abs() < 1e-9 && v[1].abs() < 1e-9, "{dim}: {v:?}");
                assert!(
                    (v[2] - wrapped).abs() < 1e-9,
                    "{dim} at t = {t}: {} vs {wrapped}",
                    v[2]
                );
            }
        }
    }
}
