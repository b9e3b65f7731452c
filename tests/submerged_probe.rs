//! `Submerged` reads a fraction only for a body in the fluid: a box floating half-deep in a tank
//! reads about 0.5, the same box at the water's height but 10 m beside the tank reads NaN (it
//! read 1.0: below the tank's free surface, though in no water).

mod common;

fn submerged(x: f64) -> f64 {
    let src = format!(
        "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (dt: 0.001, end: 1),
           bodies: [
             (name: \"floor\", kind: Static, shape: Cuboid(half_extents: (0.6, 0.05)), position: (0, -0.05)),
             (name: \"box\", shape: Cuboid(half_extents: (0.1, 0.1)), position: ({x}, 0.3)),
           ],
           fluid: (spacing: 0.02, regions: [Box(min: (-0.5, 0), max: (-0.15, 0.3)), Box(min: (0.15, 0), max: (0.5, 0.3))]),
           probes: [Submerged(\"box\")])"
    );
    let model = vcsim::parse_str(std::path::Path::new("t.ron"), &src).unwrap();
    let w = common::world(&src);
    let probes = vcsim::model::resolve_probes(&model, &w).unwrap();
    let mut v = Vec::new();
    probes[0].sample(&w, &mut v);
    v[0]
}

#[test]
fn a_body_out_of_the_fluid_reads_nan() {
    let inside = submerged(0.0);
    let beside = submerged(10.0);
    eprintln!("in the tank {inside}, 10 m beside it {beside}");
    assert!((inside - 0.5).abs() < 0.1, "in the tank: {inside}");
    assert!(beside.is_nan(), "beside the tank: {beside}");
}
