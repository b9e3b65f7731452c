use std::path::Path;
fn main() {
    let mut bodies = "(name: \"ground\", kind: Static, shape: Cuboid(half_extents: (5, 5, 5)), position: (0,0,-5), material: \"m\"),".to_string();
    let nc: usize = std::env::args().nth(2).unwrap().parse().unwrap(); for i in 0..nc { bodies += &format!("(name: \"c{i}\", shape: Cuboid(half_extents: (0.5, 0.5, 0.5)), position: (0,0,{}), material: \"m\"),", 0.5 + i as f64); }
    let mu: f64 = std::env::args().nth(1).unwrap().parse().unwrap(); let src = format!("Model(time: (dt: 0.01, end: 10.0), solver: Pgs(max_iterations: 500, tolerance: 1e-10), materials: [(name: \"m\", density: 1000, friction: {mu})], bodies: [{bodies}])");
    let m = vcsim::parse_str(Path::new("x"), &src).unwrap();
    let mut w = vcsim::build_world(&m).unwrap();
    for i in 0..1000 {
        let info = w.step();
        if i < 5 || i % 100 == 0 {
            let t = &w.bodies[nc];
            println!("step {i} it={} res={:.2e} contacts={} top={:?} rot={:?}", info.iterations, info.residual, w.contacts().len(), t.com().as_slice(), t.pose.rotation.scaled_axis().as_slice());
            if false { let mut pairs = std::collections::BTreeMap::new(); for c in w.contacts() { *pairs.entry((c.body1,c.body2)).or_insert(0) += 1; } println!("  pairs {pairs:?}"); for (c, imp) in w.contacts().iter().zip(w.contact_impulses()).filter(|(c,_)| c.body1==9) { println!("  {}-{} p={:?} d={:.2e} now={:.3} n={:?}", c.body1, c.body2, c.point.as_slice(), c.dist, imp.normal, c.normal.as_slice()); } }
        }
    }
}
