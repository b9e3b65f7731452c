//! The fluid's force on static bodies (`FluidForce` of a wall or a fixed obstacle), for every
//! fluid method, against the conservation of momentum and hydrostatics: water at rest in a 2D
//! tank 0.5 m wide and deep (spacing 0.02 m) presses on its floor and two side walls, all
//! static bodies. In equilibrium the walls together carry the water's weight,
//! `Σ F_y = −N m g` (N particles of mass m per unit thickness), and each side wall the
//! hydrostatic thrust `ρ g H² / 2` (N/m) outward, the two equal and opposite. Static bodies
//! reported zero force before they had the wall particles' bodies ([`vcsim::fluid::Fluid::wall_body`],
//! kept for the static bodies a `FluidForce` probe reads).

const TANK: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 1.0),
    solver: Pgs(max_iterations: 500, tolerance: 1e-4, multilevel: true),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.25, 0.05)), position: (0.25, -0.05)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.05, 0.45)), position: (-0.05, 0.35)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.05, 0.45)), position: (0.55, 0.35)),
    ],
    fluid: (spacing: 0.02, METHOD regions: [Box(min: (0, 0), max: (0.5, 0.5))]),
    probes: [FluidForce("floor"), FluidForce("left"), FluidForce("right")],
)"#;

/// The walls' mean fluid force (N/m) over steps 200–400 of the tank with `method` (a RON
/// field, or empty for the default), and the water's weight N m g (N/m).
fn wall_forces(method: &str) -> ([vcsim::math::Vec3; 3], f64) {
    let text = TANK.replace("METHOD", method);
    let m = vcsim::parse_str(std::path::Path::new("tank.ron"), &text).expect("model parses");
    let mut w = vcsim::build_world(&m).expect("model builds");
    let ids = ["floor", "left", "right"].map(|n| w.body(n).expect("body"));
    let mut sum = [vcsim::math::Vec3::zeros(); 3];
    for step in 0..400 {
        w.step();
        if step >= 200 {
            let f = w.fluid.as_ref().expect("fluid");
            for (s, &b) in sum.iter_mut().zip(&ids) {
                *s += f.body_force[b] / 200.0;
            }
        }
    }
    let f = w.fluid.as_ref().expect("fluid");
    (sum, f.len() as f64 * f.mass * 9.81)
}

#[test]
fn static_walls_carry_the_weight_and_the_thrust_of_water_at_rest() {
    let thrust = 1000.0 * 9.81 * 0.5 * 0.5 / 2.0;
    for method in ["", "method: Wcsph(),", "method: Isph(),"] {
        let ([floor, left, right], weight) = wall_forces(method);
        let total = floor + left + right;
        eprintln!(
            "{method:?}: floor {floor:?}, left {left:?}, right {right:?} N/m; weight {weight:.2}"
        );
        // Momentum: the walls carry the whole weight, and no net horizontal force.
        assert!(
            (total.y + weight).abs() < 5e-3 * weight,
            "{method}: the walls carry {} N/m of a weight of {weight} N/m",
            -total.y
        );
        assert!(total.x.abs() < 5e-3 * thrust, "{method}: net {}", total.x);
        // The floor carries most of it (the corners share some with the side walls).
        assert!(-floor.y > 0.95 * weight, "{method}: floor {}", floor.y);
        // Hydrostatic thrust on each side wall, outward.
        for (x, sign) in [(left.x, -1.0), (right.x, 1.0)] {
            assert!(
                (sign * x - thrust).abs() < 0.03 * thrust,
                "{method}: side wall {x} N/m against {thrust} N/m"
            );
        }
    }
}
