//! Fluid–body coupling in one solve (issue 3): buoyancy (001 §5.5) and the seesaw's first
//! coupled solve (001 §5.6).

mod common;
use std::path::Path;
use vcsim::model::values::Positive;

fn model(name: &str) -> vcsim::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name);
    vcsim::load_file(&path).expect("model loads").0
}

/// Buoyancy against Archimedes ([`common::fluid_checks::buoyancy`]).
#[test]
fn buoyancy() {
    let r = common::fluid_checks::buoyancy(2.0, |_| {});
    for (ratio, (frac, force)) in ["0.2", "0.5", "0.8"].iter().zip(&r) {
        common::quotes::assert_quotes(
            "examples/buoyancy.md",
            &format!("| {ratio} |"),
            &[format!("| {ratio} | {frac:.3} | {force:.4} |")],
        );
    }
    common::quotes::assert_quotes(
        "validation.md",
        "buoyancy, box 0.6 m",
        &[common::fluid_checks::buoyancy_quoted(&r)],
    );
}

/// Buoyancy against Archimedes with `body_contacts: false` (no contact rows between the fluid
/// and the box: only the density rows keep the water out of it): the same tolerances as with
/// them.
#[test]
fn buoyancy_without_body_contact_rows() {
    let r = common::fluid_checks::buoyancy(2.0, |m| {
        m.fluid.as_mut().expect("a fluid model").body_contacts = false;
    });
    eprintln!("without body contact rows: {r:?}");
}

/// Seesaw (001 §5.6), g = 0: after the FIRST step (one coupled solve) the fluid below the
/// pinned plate, which started at rest, already has positive pressure and moves right: the top
/// fluid's push reached it through the plate within the same solve. The angular momentum about
/// the pin (plate + fluid) is unchanged by that step's velocity update (velocity filter and
/// solve) to round-off: the filter keeps the fluid's momenta, pressure pairs act along the line
/// between particles and the pin's impulse has no moment about the pin. (The density projection
/// after the move is off here: its impulses act at the moved positions, not at the start-of-step
/// lever arms this test measures with; `the_density_projection_keeps_momentum` checks it. The
/// water's viscosity is off too: Morris' viscous term acts along the velocity difference, not
/// along the line between the particles, so it does not keep angular momentum — with the
/// model's 1e-6 m²/s it moves L by 9.7e-7 of itself in this step, 2026-11-26.)
#[test]
fn seesaw_first_solve() {
    let mut m = model("seesaw_2d_apgd.ron");
    m.fluid.as_mut().unwrap().method =
        vcsim::fluid::FluidMethodChoice::Constraint(vcsim::fluid::constraint::ConstraintParams {
            projection: vcsim::fluid::constraint::ProjectionParams {
                max_sweeps: 0,
                ..Default::default()
            },
            ..Default::default()
        });
    m.fluid.as_mut().unwrap().viscosity = vcsim::model::values::NonNegative(0.0);
    let mut w = vcsim::build_world(&m).expect("model builds");
    let b = w.body("plate").unwrap();
    // L_z about the pin (the origin) with the particles at their start-of-step positions
    // (looked up by id, as a step re-sorts them): a step moves them by `h v` (no change to
    // `x × v`) and then shifts them slightly (particle shifting keeps velocities, so it is not a
    // momentum exchange and is left out here).
    let start: Vec<_> = {
        let f = w.fluid.as_ref().unwrap();
        let mut x = vec![nalgebra::Vector3::zeros(); f.len()];
        for (p, &id) in f.pos.iter().zip(&f.id) {
            x[id as usize] = *p;
        }
        x
    };
    let lz = |w: &vcsim::World| {
        let f = w.fluid.as_ref().unwrap();
        let fluid: f64 =
            f.id.iter()
                .zip(&f.vel)
                .map(|(&id, v)| f.mass * start[id as usize].cross(v).z)
                .sum();
        fluid + w.bodies[b].angular_momentum().z
    };
    let before = lz(&w);
    w.step();
    let after = lz(&w);
    let f = w.fluid.as_ref().unwrap();
    let (mut n, mut loaded, mut moving, mut pmax) = (0, 0, 0, 0.0f64);
    for ((x, v), p) in f.pos.iter().zip(&f.vel).zip(&f.pressure) {
        if x.y < -0.05 && x.x < 0.15 {
            n += 1;
            pmax = pmax.max(*p);
            loaded += (*p > 0.0) as usize;
            moving += (v.x > 1e-3) as usize;
        }
    }
    let omega = w.bodies[b].ang_vel.z;
    eprintln!(
        "first solve: plate ω = {omega:.4} rad/s; bottom fluid next to the plate: {n} particles, \
         {loaded} with p > 0 (max {pmax:.1} Pa), {moving} moving right; L_z {before:.6} -> {after:.6}"
    );
    assert!(omega > 0.0, "the plate turns counter-clockwise");
    assert!(n > 20);
    assert!(
        loaded * 2 > n,
        "most of the bottom fluid by the plate is loaded"
    );
    assert!(
        moving * 2 > n,
        "most of the bottom fluid by the plate moves right"
    );
    assert!(
        ((after - before) / before).abs() < 1e-12,
        "angular momentum about the pin {before} -> {after}"
    );
    common::quotes::assert_quotes(
        "validation.md",
        "seesaw, first solve",
        &[format!(
            "| {loaded}/{n} loaded, {moving}/{n} moving; L kept to {} |",
            common::quotes::sci(((after - before) / before).abs(), 2)
        )],
    );
    common::quotes::assert_quotes(
        "examples/buoyancy.md",
        "Test `seesaw_first_solve`",
        &[
            format!(
                "{loaded} of the {n} bottom particles next to the plate are loaded (peak {:.1} kPa), \
                 {moving} of {n} move right, the plate turns at {omega:.2} rad/s",
                pmax / 1e3
            ),
            format!(
                "unchanged by the solve to {} relative",
                common::quotes::sci(((after - before) / before).abs(), 2)
            ),
        ],
    );
}

/// The density projection's impulses on the fluid and their reaction on the bodies keep the
/// linear momentum: a free block of water, 1 m/s towards a free box inside it, no gravity, no
/// walls. Each step's projection acts (the summary's counter), and the total momentum of fluid
/// and box stays what it was to rounding.
#[test]
fn the_density_projection_keeps_momentum() {
    let text = r#"Model(
        scene: (dimension: Two, gravity: (0, 0)),
        time: (dt: 0.004, end: 0.04),
        solver: Pgs(max_iterations: 10, tolerance: 1e-9),
        bodies: [(name: "box", kind: Dynamic, shape: Cuboid(half_extents: (0.1, 0.1)), position: (0.5, 0.3))],
        fluid: (spacing: 0.02, viscosity: 0, shifting: 0,
            regions: [Box(min: (0, 0), max: (0.35, 0.6), velocity: Uniform(1, 0))]),
    )"#;
    let m = vcsim::parse_str(Path::new("free.ron"), text).expect("valid model");
    let mut w = vcsim::build_world(&m).expect("model builds");
    let momentum = |w: &vcsim::World| {
        let f = w.fluid.as_ref().unwrap();
        f.vel.iter().sum::<nalgebra::Vector3<f64>>() * f.mass
            + w.bodies[0].lin_vel * w.bodies[0].mass
    };
    let p0 = momentum(&w);
    let mut box_moved = false;
    for _ in 0..40 {
        w.step();
        box_moved |= w.bodies[0].lin_vel.x > 1e-3;
        let p = momentum(&w);
        assert!(
            (p - p0).norm() < 1e-9 * p0.norm(),
            "momentum {p0:?} -> {p:?} at t = {}",
            w.time
        );
    }
    assert!(box_moved, "the water pushed the box");
    let line = w.fluid_method.summary_line(w.steps).unwrap();
    assert!(!line.starts_with("projection       0 of"), "{line}");
}

/// Floating cylinder (004 §4.3), 3D: r = 0.12 m, length 0.2 m, 700 kg/m³, dropped from 0.25 m
/// above the water. Once settled (t = 1.5–3 s) the mean vertical fluid force equals its weight
/// ρ_s g π r² L = 62.1 N (004: 62.07 N with g = 9.8) within 3 %. The test runs the shipped model
/// at a coarser spacing (0.04 m instead of 0.025 m: 1500 fluid particles, the radius three
/// spacings) and dt = 3 ms, to stay within a minute.
#[test]
fn floating_cylinder_force() {
    let mut m = model("floating_cylinder_3d_apgd.ron");
    m.fluid.as_mut().unwrap().spacing = Positive(0.04);
    m.time.dt = Some(Positive(0.003));
    if let Some(vcsim::solver::SolverChoice::Apgd(p)) = &mut m.solver {
        p.tolerance = 1e-2;
    }
    let mut w = vcsim::build_world(&m).expect("model builds");
    let b = w.body("cylinder").unwrap();
    let weight = w.bodies[b].mass * 9.81;
    let (mut sum, mut sum2, mut n) = (0.0, 0.0, 0);
    while w.time < 3.0 - 1e-9 {
        w.step();
        if w.time > 1.5 {
            let fy = w.fluid.as_ref().unwrap().body_force[b].y;
            sum += fy;
            sum2 += fy * fy;
            n += 1;
        }
    }
    let mean = sum / n as f64;
    let sd = (sum2 / n as f64 - mean * mean).max(0.0).sqrt();
    eprintln!(
        "floating cylinder: weight {weight:.2} N, mean fluid force {mean:.2} N ({:+.2} %), step-to-step sd {sd:.1} N, cylinder at y = {:.3} m",
        100.0 * (mean / weight - 1.0),
        w.bodies[b].com().y
    );
    assert!((weight - 62.07).abs() < 0.2, "the model's weight {weight}");
    assert!(
        (mean / weight - 1.0).abs() < 0.03,
        "mean force {mean} vs {weight}"
    );
    let off = common::quotes::signed_pct(mean / weight - 1.0, 2);
    common::quotes::assert_quotes(
        "validation.md",
        "floating cylinder 3D",
        &[format!("| {off} |")],
    );
    common::quotes::assert_quotes(
        "examples/floating-cylinder.md",
        "The test `floating_cylinder_force`",
        &[format!("is {mean:.2} N, {off} of the weight")],
    );
}
