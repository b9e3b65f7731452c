//! Multilevel PGS (`Pgs(multilevel: true)`, `solver/multilevel.rs`): the iterations of a cold
//! hydrostatic solve do not grow with the depth, the solution is plain PGS's, and the shipped
//! multilevel tank passes the hydrostatic checks.

mod common;
#[path = "../examples/common/mod.rs"]
mod examples_common;
use common::fluid_checks;
use std::path::Path;

/// The shipped tank's geometry (0.5 m wide, spacing 0.02 m) with water `depth` m deep and the
/// given solver (RON).
fn tank(depth: f64, solver: &str) -> vcsim::World {
    tank_with(depth, solver, "")
}

/// [`tank`] with more fluid fields (RON, starting with a comma).
fn tank_with(depth: f64, solver: &str, fluid: &str) -> vcsim::World {
    let text = examples_common::tank_fluid(depth, solver, fluid);
    let m = vcsim::parse_str(Path::new("tank.ron"), &text).expect("tank model");
    vcsim::build_world(&m).expect("tank builds")
}

/// First-step iterations of tanks 0.25 / 0.5 / 1 / 2 m deep, to 1e-3 m/s: within 1.5× of each
/// other with the corrections (measured 59 / 59 / 55 / 67), where plain PGS grows about
/// linearly with the depth (123 / 313 / 941 / 2749).
#[test]
fn multilevel_iterations_do_not_grow_with_depth() {
    let first = |solver: &str| -> Vec<usize> {
        [0.25, 0.5, 1.0, 2.0]
            .iter()
            .map(|&d| tank(d, solver).step().iterations)
            .collect()
    };
    let spread =
        |its: &[usize]| *its.iter().max().unwrap() as f64 / *its.iter().min().unwrap() as f64;
    let ml = first("Pgs(max_iterations: 5000, tolerance: 1e-3, multilevel: true)");
    let plain = first("Pgs(max_iterations: 5000, tolerance: 1e-3)");
    eprintln!("first-step iterations: multilevel {ml:?}, plain {plain:?}");
    assert!(
        ml.iter().all(|&i| i < 5000),
        "a multilevel solve hit the cap: {ml:?}"
    );
    assert!(
        spread(&ml) <= 1.5,
        "multilevel iterations grow with depth: {ml:?}"
    );
    assert!(
        spread(&plain) > 5.0,
        "plain PGS should grow with depth: {plain:?}"
    );
}

/// Run long, plain PGS approaches the velocities the multilevel solve settles at (the LCP's
/// `v⁺` is unique; neither method drives its residual below about 1e-6 m/s on this tank, whose
/// wall rows make N nearly singular), and every impulse stays admissible (pressure ≥ 0).
#[test]
fn multilevel_pgs_reaches_the_plain_solution() {
    let after = |solver: &str| {
        // Without the density projection, which moves the particles after the solve.
        let mut w = tank_with(
            0.5,
            solver,
            ", method: Constraint(projection: (max_sweeps: 0))",
        );
        w.step();
        let f = w.fluid.as_ref().unwrap();
        assert!(
            f.pressure.iter().all(|&p| p >= 0.0),
            "{solver}: a negative pressure"
        );
        f.vel.clone()
    };
    let diff = |a: &[vcsim::math::Vec3], b: &[vcsim::math::Vec3]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max)
    };
    let ml = after("Pgs(max_iterations: 20000, tolerance: 1e-12, multilevel: true)");
    let ml2 = after("Pgs(max_iterations: 40000, tolerance: 1e-12, multilevel: true)");
    let plain: Vec<f64> = [20, 20000, 40000]
        .iter()
        .map(|n| {
            diff(
                &after(&format!("Pgs(max_iterations: {n}, tolerance: 1e-12)")),
                &ml,
            )
        })
        .collect();
    let settled = diff(&ml, &ml2);
    eprintln!("multilevel 20000 vs 40000 iterations: {settled:.2e} m/s; plain PGS after 20 / 20000 / 40000 sweeps from it: {plain:?}");
    // Both creep in the wall rows' slow mode; the multilevel solve has settled 35× closer
    // (measured 6.0e-6 against 2.1e-4 m/s).
    assert!(
        settled < 0.1 * plain[1],
        "the multilevel solve still moves: {settled} m/s"
    );
    assert!(
        plain[0] > plain[1] && plain[1] > plain[2],
        "plain PGS does not approach the multilevel solution: {plain:?}"
    );
}

/// The shipped multilevel tank passes the hydrostatic checks of the APGD tank (1 s at rest).
#[test]
fn hydrostatic_tank_multilevel() {
    let w = fluid_checks::build(&fluid_checks::model("hydrostatic_2d_pgs.ron"));
    fluid_checks::hydrostatic_tank(w, 1e-3);
}

/// A disc of radius 0.2 m driven up and down (2 cm at 1 Hz) through a closed tank of water at
/// the coarse spacing of 0.04 m, its wall rows coloured (a kinematic body's rows touch no body
/// DOFs): the neighbour lists carry a skin, and rows whose entries sit beyond the kernel's
/// support must still share no point across the colouring's bands or beyond the corrections'
/// stencil (their zero entries are passed over). Before they were, this run panicked at
/// t = 0.495 s inside the corrections' operators (an index three cells away); on one thread,
/// so that the particles' path is the one that did.
#[test]
fn a_driven_body_in_multilevel_sweeps_stays_inside_the_stencil() {
    let text = r#"Model(
        scene: (dimension: Two, gravity: (0, -9.81)),
        time: (end: 0.6),
        solver: Pgs(max_iterations: 30, multilevel: true),
        bodies: [
            (name: "floor", kind: Static, shape: Cuboid(half_extents: (1.7, 0.1)), position: (1.5, -0.1)),
            (name: "lid", kind: Static, shape: Cuboid(half_extents: (1.7, 0.1)), position: (1.5, 2.1)),
            (name: "left", kind: Static, shape: Cuboid(half_extents: (0.1, 1.0)), position: (-0.1, 1.0)),
            (name: "right", kind: Static, shape: Cuboid(half_extents: (0.1, 1.0)), position: (3.1, 1.0)),
            (name: "disc", kind: Kinematic, shape: Ball(radius: 0.2), position: (1.5, 1.0),
             motion: Sine(displacement: (0, 0.02), frequency: 1.0, ramp: 1.0)),
        ],
        fluid: (spacing: 0.04, velocity_filter: 0, shifting: 0, stabilisation: 0, smoothing: 2.0,
                regions: [Box(min: (0, 0), max: (3.0, 2.0))]),
    )"#;
    let m = vcsim::parse_str(Path::new("disc.ron"), text).expect("disc model");
    let mut w = vcsim::build_world(&m).expect("disc builds");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("one-thread pool");
    let steps = (0.6 / w.dt).ceil() as usize;
    let largest = pool.install(|| {
        (0..steps)
            .map(|_| {
                w.step();
                let f = w.fluid.as_ref().expect("fluid");
                f.largest_compression().map_or(0.0, |c| c.1)
            })
            .fold(0.0, f64::max)
    });
    eprintln!("{steps} steps, largest compression {largest:.2e}");
    assert!(
        largest < 0.01,
        "the driven disc compressed the water by {largest}"
    );
}
