//! A fourth fluid method and a fourth contact resolver, written here, outside the crate, through
//! the public interfaces only (`vcsim::fluid::FluidMethod`, `vcsim::impulse::ContactResolver`),
//! stepping a world built from a model. Nothing in `src/` knows them: this is the walk-through
//! of the book's "Adding a method" page.

use std::f64::consts::PI;
use std::path::Path;
use vcsim::body::RigidBody;
use vcsim::fluid::{Fluid, FluidMethod, SubStepInfo};
use vcsim::impulse::{ContactResolver, ImpulseBody, ImpulseInfo, Point};
use vcsim::math::{Real, Vec3};

/// A fluid whose particles follow a given velocity field: here a rigid rotation at `omega`
/// (rad/s) about the z axis through `centre` (m), u = ω × (x − c). Each step moves every
/// particle along its exact circle over `dt` and sets its velocity to the field's. A
/// partitioned method: no rows, no force on the bodies.
struct Rotating {
    omega: Real,
    centre: Vec3,
    steps: usize,
}

impl FluidMethod for Rotating {
    fn name(&self) -> &'static str {
        "prescribed rotation (test)"
    }

    fn advance(&mut self, f: &mut Fluid, bodies: &[RigidBody], _g: &Vec3, dt: Real) -> SubStepInfo {
        let (s, c) = (self.omega * dt).sin_cos();
        for (x, v) in f.pos.iter_mut().zip(f.vel.iter_mut()) {
            let r = *x - self.centre;
            let r = Vec3::new(c * r.x - s * r.y, s * r.x + c * r.y, r.z);
            *x = self.centre + r;
            *v = Vec3::new(-self.omega * r.y, self.omega * r.x, 0.0);
        }
        f.clear_body_forces(bodies.len());
        self.steps += 1;
        SubStepInfo {
            substeps: 1,
            ..Default::default()
        }
    }
}

/// A perfectly plastic contact resolver: the most negative approaching contact is stopped
/// (u_n → 0) by one impulse, repeatedly, until no contact approaches (order dependent; a test
/// of the interface, not a method to use).
struct Plastic {
    calls: usize,
}

impl ContactResolver for Plastic {
    fn name(&self) -> &'static str {
        "plastic impulses (test)"
    }

    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        self.calls += 1;
        let mut info = ImpulseInfo::default();
        for _ in 0..1000 {
            let worst = points
                .iter()
                .enumerate()
                .map(|(k, p)| (k, p.normal_velocity(bodies)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            match worst {
                Some((k, un)) if un < -1e-12 => {
                    points[k].apply(bodies, -un);
                    info.iterations += 1;
                }
                _ => break,
            }
        }
        info
    }
}

const MODEL: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.002, end: 1.0),
    materials: [(name: "default", density: 1000, friction: 0)],
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (2.0, 0.1)), position: (0, -0.1)),
        (name: "ball", shape: Ball(radius: 0.1), position: (-1.5, 0.5)),
    ],
    fluid: (spacing: 0.05, regions: [Box(min: (0.5, 0.5), max: (1.0, 1.0))]),
)"#;

/// The model, without its fluid if `fluid` is false.
fn world(fluid: bool) -> vcsim::World {
    let text = if fluid {
        MODEL.to_string()
    } else {
        MODEL.replace(
            "    fluid: (spacing: 0.05, regions: [Box(min: (0.5, 0.5), max: (1.0, 1.0))]),\n",
            "",
        )
    };
    let m = vcsim::parse_str(Path::new("extension.ron"), &text).expect("the model is valid");
    vcsim::build_world(&m).expect("the model builds")
}

#[test]
fn a_fluid_method_written_outside_the_crate_steps_a_world() {
    let mut w = world(true);
    let centre = Vec3::new(0.75, 0.75, 0.0);
    w.fluid_method = Box::new(Rotating {
        omega: 2.0 * PI,
        centre,
        steps: 0,
    });
    let start: Vec<Vec3> = w.fluid.as_ref().unwrap().pos.clone();
    let ids: Vec<u32> = w.fluid.as_ref().unwrap().id.clone();
    // A quarter turn: 0.25 s at one turn per second.
    for _ in 0..125 {
        w.step();
    }
    assert_eq!(
        w.last_substeps.substeps, 1,
        "the method's report reaches the world"
    );
    let f = w.fluid.as_ref().unwrap();
    let mut worst: Real = 0.0;
    for (x, &id) in f.pos.iter().zip(&f.id) {
        let k = ids.iter().position(|&i| i == id).unwrap();
        let r0 = start[k] - centre;
        // A quarter turn maps (x, y) to (−y, x).
        let expected = centre + Vec3::new(-r0.y, r0.x, 0.0);
        worst = worst.max((x - expected).norm());
    }
    assert!(
        worst < 1e-12,
        "particles off their circles by {worst:e} m after a quarter turn"
    );
    // The ball fell freely beside it, by symplectic Euler: y_n = y0 − g h² n(n+1)/2.
    let b = &w.bodies[w.body("ball").unwrap()];
    let (h, n) = (0.002, 125.0);
    let y = 0.5 - 9.81 * h * h * n * (n + 1.0) / 2.0;
    assert!(
        (b.com().y - y).abs() < 1e-12,
        "ball at {} m, free fall gives {y} m",
        b.com().y
    );
}

#[test]
fn a_contact_resolver_written_outside_the_crate_steps_a_world() {
    let mut w = world(false);
    assert!(w.fluid.is_none());
    w.contact_resolver = Box::new(Plastic { calls: 0 });
    let ball = w.body("ball").unwrap();
    let mut landed = None;
    for k in 0..500 {
        w.step();
        if landed.is_none() && w.last_impulses.iterations > 0 {
            landed = Some(k);
        }
    }
    // Dropped from 0.4 m above the floor: it lands at t = √(2 · 0.4 / g) = 0.286 s (step 143)
    // and, stopped plastically, stays on the floor.
    let k = landed.expect("the resolver stopped the ball");
    assert!(
        (140..=146).contains(&k),
        "first impulse at step {k}, free fall lands at step 143"
    );
    let b = &w.bodies[ball];
    // At rest: a tenth of what one step of gravity gives (g h = 0.0196 m/s).
    assert!(
        b.lin_vel.norm() < 0.1 * 9.81 * 0.002,
        "resting ball moves at {} m/s",
        b.lin_vel
    );
    assert!(
        (b.com().y - 0.1).abs() < 0.005,
        "ball centre at {} m, resting on the floor is 0.1 m",
        b.com().y
    );
    assert!(!w.contact_resolver.rows_in_solve());
}
