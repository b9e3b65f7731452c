//! The fluid references with the ISPH backend (`Isph()`, partitioned coupling): the same checks
//! and tolerances as the constraint method's (`tests/common/fluid_checks.rs`).
//!
//! All are met with the defaults (symmetric pressure gradient, renormalised divergence, α = 0.3,
//! α_e = 0.05 in the interior, the position correction α_p = 1, free-surface particles at
//! the pressure of the depth that holds the lattice's top row (ρ0 |g| l/2 before 2026-12-02),
//! the velocity filter with walls after the corrector, shifting A = 1 never into a wall);
//! numbers measured with `cargo test --release --test isph -- --nocapture` (the defaults of
//! 2026-11-27 unless a test says otherwise).

mod common;

use common::fluid_checks::{self, build, model_with};

const ISPH: &str = "Isph()";

/// Hydrostatic tank: compression < 1 %, smoothed pressure within 3 %, and the constraint
/// method's speed bound (1e-3 √(g H) = 2.2e-3 m/s). Measured 2026-11-25: compression 2.0e-5,
/// pressure 0.83 %, largest speed 3.0e-4 m/s at t = 1 s (2026-11-27: 2.7e-5, 0.22 %,
/// 2.9e-4 m/s; 2026-12-02, the surface's depth from the lattice: 1.7e-5, 0.36 %, 2.86e-4 m/s).
/// Before the free-surface particles held
/// ρ0 |g| l/2 and the velocity filter (with the walls) ran after the corrector, the top layer
/// bounced and a shear mode next to the side walls grew: 0.077 m/s, pressure 33.7 % off.
#[test]
fn hydrostatic_tank_isph() {
    let h =
        fluid_checks::hydrostatic_tank(build(&model_with("hydrostatic_2d_apgd.ron", ISPH)), 1e-3);
    common::quotes::assert_quotes(
        "validation.md",
        "the four references above with ISPH",
        &[h.quoted()],
    );
}

/// Dam break front against Koshizuka & Oka, no particle in a wall. Measured 2026-11-25: mean
/// front error 5.3 %, max 11.6 %, none in a wall (7.4 / 13.9 % before the surface pressure and
/// the filter; 2026-11-27, renormalised divergence, α = 0.3 and the position correction:
/// 4.5 / 9.4 %; 2026-12-02, the surface's depth from the lattice: 4.6 / 9.2 %; that evening, one
/// wall normal per particle where a wall's normals differ: 4.7 / 10.1 %). Before the
/// symmetric gradient (renormalised difference form, α = 0.01, no
/// shifting) a particle in the bottom-left corner compressed to 20 % and the guard stopped the
/// run at t = 0.153 s.
#[test]
fn dam_break_front_isph() {
    let f = fluid_checks::dam_break_front(build(&model_with("dam_break_2d_apgd.ron", ISPH)), None);
    common::quotes::assert_quotes(
        "validation.md",
        "the four references above with ISPH",
        &[f.quoted()],
    );
}

/// Circular patch against Colagrossi's ODE: semi-axes within 3 %, area within 2 %, from the
/// exact square lattice and from lattices offset at random by 0.005 (the model's `jitter`) and
/// 0.02 spacings. Measured 2026-11-27 (with 0.01 spacings too, third below) (renormalised divergence, `alpha: 0.3`, position
/// correction): area +0.90 / +0.87 / +0.84 / +0.81 %. With the lattice divergence
/// (`divergence: Lattice`) the exact lattice's area grows 6.4 % (the columns a pure strain
/// makes of it; the ISPH module docs), and with the defaults before that day (lattice
/// divergence, `alpha: 1`, no position correction) +15.7 / +1.21 / +2.09 / +84.9 %.
#[test]
fn circular_patch_isph() {
    // (0.01 spacings too, until 2026-11-29: +0.84 %, between its neighbours; dropped for the
    // suite's time, 31 s.)
    for jitter in [0.0, 0.005, 0.02] {
        let mut m = model_with("circular_patch_2d_apgd.ron", ISPH);
        m.fluid.as_mut().unwrap().jitter = vcsim::model::values::NonNegative(jitter);
        eprintln!("offset {jitter} spacings:");
        let p = fluid_checks::circular_patch(build(&m));
        if jitter == 0.005 {
            // The model's own offset: the figures the book quotes.
            common::quotes::assert_quotes(
                "validation.md",
                "the four references above with ISPH",
                &[p.quoted()],
            );
            common::quotes::assert_quotes("examples/circular-patch.md", "| ISPH |", &[p.row()]);
        }
    }
}

/// The position correction (the ISPH module docs' step 6, default `position_alpha: 1`): at the
/// small dam break's impact it holds the largest compression at least a tenth below what the
/// same step gives without it (`position_alpha: 0`). Measured 2026-11-27 to t = 0.6 s: 4.13 %
/// against 6.07 % (4.70 % with the lattice divergence; 5.55 % with the defaults before that
/// day).
#[test]
fn isph_position_correction() {
    let largest_compression = |method: &str| {
        let mut w = build(&model_with("dam_break_2d_apgd.ron", method));
        let mut worst: f64 = 0.0;
        while w.time < 0.6 - 1e-9 {
            w.step();
            let f = w.fluid.as_ref().unwrap();
            worst = worst.max(f.largest_compression().map_or(0.0, |(_, c)| c));
        }
        worst
    };
    let (plain, corrected) = (
        largest_compression("Isph(position_alpha: 0)"),
        largest_compression(ISPH),
    );
    eprintln!(
        "dam break to 0.6 s, largest compression: without the position correction {:.2} %, with it {:.2} %",
        100.0 * plain,
        100.0 * corrected
    );
    assert!(corrected < 0.9 * plain, "{corrected} against {plain}");
}

/// Buoyancy: submerged fraction within 0.03 of the density ratio, fluid force within 2 % of
/// the weight. Measured 2026-11-25: submerged fractions 0.2053, 0.5144, 0.8228 and mean fluid
/// forces 1.0000, 1.0001, 1.0002 times the weight for ratios 0.2, 0.5, 0.8 (2026-11-27:
/// 0.2100, 0.5225, 0.8236 and 1.0001, 1.0004, 1.0004; 2026-12-02, the surface's depth from the
/// lattice: 0.211 / 0.523 / 0.823; that evening, one wall normal per particle where a wall's
/// normals differ: 0.211 / 0.523 / 0.825 — the boxes float 0.01 deeper with the
/// position correction, which pushes compressed particles apart and leaves expanded ones, so
/// the water is slightly lighter; without it, `position_alpha: 0`, 0.2047 / 0.5133 / 0.8194;
/// 0.2117 / 0.5083 /
/// 0.8272 before the surface pressure and the filter; until shifting stopped pointing into
/// walls the ratio-0.8 box floated 0.0300 too deep and the test was ignored). (With a sample
/// every 0.05 s the ratio-0.2 mean force read 1.041 × the weight; before the symmetric gradient
/// the guard stopped the ratio-0.5 run at t = 1.36 s.)
#[test]
fn buoyancy_isph() {
    let r = fluid_checks::buoyancy(3.0, |m| {
        m.fluid.as_mut().unwrap().method = vcsim::model::from_ron_str(ISPH).unwrap();
    });
    let q = fluid_checks::buoyancy_quoted(&r);
    common::quotes::assert_quotes("validation.md", "the four references above with ISPH", &[q]);
}

/// The added mass holds a light body: the box of `buoyancy_2d_apgd` (density ratio 0.5,
/// starting at its equilibrium draft) stays within half a spacing (1 cm) of its start over
/// 0.3 s, the fluid force averaged over 0.05–0.3 s carries its weight within 2 % and the median
/// of its step-by-step deviation from the weight is below 2 % (measured 2026-11-25: moved
/// 6.9e-4 m, mean force −0.08 %, median deviation 0.07 %, RMS 0.11 %; before the surface
/// pressure and the filter 8.2e-4 m, −0.15 %, 0.20 %, 0.74 %; with the renormalised
/// gradient median 0.73 %, RMS 15.8 % from single-step spikes; without the added mass median
/// 104 %, RMS 110 %). Without the implicit added mass the
/// force swings between about −100 N and +4 700 N from step to step (weight 1 766 N; before
/// negative pressures were clamped the swings grew until the box left the tank within 0.1 s).
#[test]
fn added_mass_holds_a_light_body() {
    let mut w = build(&model_with("buoyancy_2d_apgd.ron", ISPH));
    let b = w.body("box").unwrap();
    let (y0, weight) = (w.bodies[b].com().y, w.bodies[b].mass * 9.81);
    let (mut worst_move, mut force, mut sq, mut n): (f64, f64, f64, f64) = (0.0, 0.0, 0.0, 0.0);
    let mut devs = Vec::new();
    while w.time < 0.3 - 1e-9 {
        w.step();
        worst_move = worst_move.max((w.bodies[b].com().y - y0).abs());
        if w.time > 0.05 {
            let f = w.fluid.as_ref().unwrap().body_force[b].y;
            force += f;
            sq += (f / weight - 1.0).powi(2);
            devs.push((f / weight - 1.0).abs());
            n += 1.0;
        }
    }
    let (off, rms) = (force / n / weight - 1.0, (sq / n).sqrt());
    devs.sort_by(f64::total_cmp);
    let median = devs[devs.len() / 2];
    eprintln!(
        "box moved at most {worst_move:.2e} m; mean fluid force off its weight by {:.2} %, median deviation {:.2} %, RMS {:.2} %",
        100.0 * off,
        100.0 * median,
        100.0 * rms
    );
    assert!(
        median < 0.02,
        "fluid force swings: median deviation {median} of the weight"
    );
    assert!(worst_move < 0.01, "box moved {worst_move} m");
    assert!(off.abs() < 0.02, "fluid force off by {off}");
}

/// CG (with either preconditioner) and the sparse Cholesky solve the same PPE: over 0.05 s of
/// the hydrostatic tank the runs' pressures agree to 1e-6 of the bottom pressure and positions
/// to 1e-9 m.
#[test]
fn cg_and_cholesky_agree() {
    let run = |solver: &str| {
        let mut w = build(&model_with(
            "hydrostatic_2d_apgd.ron",
            &format!("Isph(solver: {solver})"),
        ));
        while w.time < 0.05 - 1e-9 {
            w.step();
        }
        let f = w.fluid.unwrap();
        let mut by_id: Vec<_> =
            f.id.iter()
                .zip(f.pos.iter().zip(&f.pressure))
                .map(|(i, (x, p))| (*i, *x, *p))
                .collect();
        by_id.sort_by_key(|e| e.0);
        by_id
    };
    let direct = run("Direct");
    for solver in ["Cg", "TwoLevel"] {
        let cg = run(solver);
        let bottom = 1000.0 * 9.81 * 0.5;
        let (mut dp, mut dx): (f64, f64) = (0.0, 0.0);
        for (a, b) in cg.iter().zip(&direct) {
            dp = dp.max((a.2 - b.2).abs() / bottom);
            dx = dx.max((a.1 - b.1).norm());
        }
        eprintln!("{solver}: largest pressure difference {dp:.2e} of ρ g H, position {dx:.2e} m");
        assert!(
            dp < 1e-6 && dx < 1e-9,
            "{solver} and Cholesky differ: {dp}, {dx}"
        );
    }
}

/// A closed compartment of water beside a tank with a free surface: its particles have no
/// free-surface neighbour, so their block of the pressure equation is a pure Neumann problem
/// (singular) while the rest of the water holds the surface pressure. Before such pockets got
/// the closed domain's treatment (right-hand side without its mean, the same small diagonal
/// shift), CG diverged on it and the run blew apart in its second step (a particle at 1e11 m/s;
/// the same happened to a lone particle on a wall of the refined sloshing tank). A pocket's
/// lowest pressure is taken as zero, as at a free surface (with the zero-mean pressure of the
/// closed domain, clamped at zero, the water moved at 1.2e-2 m/s). Measured 2026-11-26:
/// largest speed 2.9e-3 m/s over 0.05 s, compression below 0.01 %.
#[test]
fn a_closed_pocket_beside_a_free_surface_stays_at_rest() {
    const MODEL: &str = r#"Model(
        scene: (dimension: Two, gravity: (0, -9.81)),
        time: (dt: 0.001, end: 0.05),
        bodies: [
            (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.6, 0.05)), position: (0.5, -0.05)),
            (name: "left", kind: Static, shape: Cuboid(half_extents: (0.05, 0.2)), position: (-0.05, 0.15)),
            (name: "right", kind: Static, shape: Cuboid(half_extents: (0.05, 0.2)), position: (0.35, 0.15)),
            (name: "box_left", kind: Static, shape: Cuboid(half_extents: (0.05, 0.15)), position: (0.55, 0.1)),
            (name: "box_right", kind: Static, shape: Cuboid(half_extents: (0.05, 0.15)), position: (0.85, 0.1)),
            (name: "lid", kind: Static, shape: Cuboid(half_extents: (0.15, 0.05)), position: (0.7, 0.15)),
        ],
        fluid: (
            spacing: 0.02,
            method: Isph(),
            regions: [Box(min: (0, 0), max: (0.3, 0.2)), Box(min: (0.6, 0), max: (0.8, 0.1))],
        ),
    )"#;
    let m = vcsim::model::parse_str(std::path::Path::new("pocket.ron"), MODEL).expect("model");
    let mut w = build(&m);
    let (mut fastest, mut compression): (f64, f64) = (0.0, 0.0);
    while w.time < 0.05 - 1e-9 {
        w.step();
        let f = w.fluid.as_ref().unwrap();
        fastest = f.vel.iter().map(|v| v.norm()).fold(fastest, f64::max);
        compression = f.density_error.iter().cloned().fold(compression, f64::max);
    }
    eprintln!(
        "pocket: largest speed {fastest:.2e} m/s, compression {:.2} %",
        100.0 * compression
    );
    assert!(fastest < 0.01, "the water moved at {fastest} m/s");
    assert!(compression < 0.01, "compressed by {compression}");
}

/// A wide kernel's free surface holds: the hydrostatic tank at h = 2.0 l without the velocity
/// filter and shifting (as the wave models run ISPH), to 0.3 s. The free-surface particles hold
/// the pressure under which the lattice's top row rests (0.733 ρ0 |g| l at 2.0 l; the ISPH
/// module docs, step 2). With ρ0 |g| l/2, the value for every kernel until 2026-12-02, the
/// top row sank into the second, left the free surface together and the pressure solve threw
/// the water up: largest kinetic energy 5.73 J, largest speed 0.85 m/s (this test with the old
/// depth, 2026-12-02). Measured 2026-12-02 (`cargo test --release --test isph -- --nocapture
/// a_wide`): 0.138 J, 0.145 m/s (the start's settling; 1.5e-3 J at 2 s in a `vcsim run`).
#[test]
fn a_wide_kernels_free_surface_holds_the_water_at_rest() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/models/hydrostatic_2d_apgd.ron"
    ))
    .expect("model")
    .replace(
        "spacing: 0.02,",
        "spacing: 0.02, method: Isph(), smoothing: 2.0, velocity_filter: 0, shifting: 0,",
    );
    assert!(
        src.contains("method: Isph()"),
        "the tank's fluid line moved"
    );
    let mut w = common::world(&src);
    let g = w.gravity;
    let (mut fastest, mut energy): (f64, f64) = (0.0, 0.0);
    common::run_until(&mut w, 0.3, |w| {
        let f = w.fluid.as_ref().unwrap();
        fastest = f.vel.iter().map(|v| v.norm()).fold(fastest, f64::max);
        energy = energy.max(f.energies(&g).0);
    });
    eprintln!("wide kernel: largest speed {fastest:.3e} m/s, kinetic energy {energy:.3e} J");
    assert!(energy < 0.5, "kinetic energy {energy} J");
    assert!(fastest < 0.4, "the water moved at {fastest} m/s");
}
