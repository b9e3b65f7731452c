//! The fluid references with the ISPH backend (`Isph()`, partitioned coupling): the same checks
//! and tolerances as the constraint method's (`tests/common/fluid_checks.rs`).
//!
//! The dam break and buoyancy are met; the hydrostatic tank and the circular patch are not yet
//! (issue 12 stays open; the book's ISPH page): each is ignored with the number measured on
//! 2026-11-25 with the defaults (symmetric pressure gradient, α = 1, shifting A = 1 never into a
//! wall; `cargo test --release --test isph -- --include-ignored --nocapture`).

mod common;

use common::fluid_checks::{self, build, model_with};

const ISPH: &str = "Isph()";

/// Hydrostatic tank: compression < 1 %, smoothed pressure within 3 %, and the constraint
/// method's speed bound (1e-3 √(g H) = 2.2e-3 m/s).
/// Measured: compression 2.2e-3 (met); the top layers next to the side walls rise and slide
/// along the surface (0.077 m/s at t = 1 s, limit 2.2e-3 m/s; the motion starts at the corners
/// of the surface and the side walls at t ≈ 0.2 s and grows) and the smoothed pressure on the
/// centre line is 33.7 % off. (With `gradient: Renormalised` the water stays still, 1.7e-3 m/s,
/// but the pressure is 11.7 % off at the top of the checked band, where the surface layer holds
/// p = 0 half a spacing below the true surface, and the dam break below fails.)
#[test]
#[ignore = "ISPH: surface layers slide at 0.077 m/s (limit 2.2e-3), pressure 33.7 % off"]
fn hydrostatic_tank_isph() {
    fluid_checks::hydrostatic_tank(build(&model_with("hydrostatic_2d_apgd.ron", ISPH)), 1e-3);
}

/// Dam break front against Koshizuka & Oka, no particle in a wall. Measured: mean front error
/// 7.4 %, max 13.9 %, no particle in a wall. Before the
/// symmetric gradient (renormalised difference form, α = 0.01, no shifting) a particle in the
/// bottom-left corner compressed to 20 % and the guard stopped the run at t = 0.153 s.
#[test]
fn dam_break_front_isph() {
    fluid_checks::dam_break_front(build(&model_with("dam_break_2d_apgd.ron", ISPH)), None);
}

/// Circular patch against Colagrossi's ODE: semi-axes within 3 %, area within 2 %.
/// Measured: the run reaches t = 1 s (largest compression 2.7 %), but the thin semi-axis a
/// comes out 4.4 % long (b +0.4 %) and the area 4.8 % large: the fluid opens small voids inside
/// (particles there count as surface, p = 0). Without shifting: a +16.9 %, area +18 %.
#[test]
#[ignore = "ISPH: thin semi-axis +4.4 % (tolerance 3 %), area +4.8 % (2 %)"]
fn circular_patch_isph() {
    fluid_checks::circular_patch(build(&model_with("circular_patch_2d_apgd.ron", ISPH)));
}

/// Buoyancy: submerged fraction within 0.03 of the density ratio, fluid force within 2 % of
/// the weight. Measured 2026-11-25: submerged fractions 0.2117, 0.5083, 0.8272 and mean fluid
/// forces 1.0024, 1.0008, 1.0002 times the weight for ratios 0.2, 0.5, 0.8 (the ratio-0.8 box
/// 0.027 too deep: a narrow pass). Until shifting stopped pointing into walls the ratio-0.8
/// box floated 0.0300 too deep, passing only by rounding, and the test was ignored. (With a
/// sample every 0.05 s the ratio-0.2 mean force read 1.041 × the weight; before the symmetric
/// gradient the guard stopped the ratio-0.5 run at t = 1.36 s.)
#[test]
fn buoyancy_isph() {
    fluid_checks::buoyancy(|m| {
        m.fluid.as_mut().unwrap().method = ron::from_str(ISPH).unwrap();
    });
}

/// The added mass holds a light body: the box of `buoyancy_2d_apgd` (density ratio 0.5,
/// starting at its equilibrium draft) stays within half a spacing (1 cm) of its start over
/// 0.3 s, the fluid force averaged over 0.05–0.3 s carries its weight within 2 % and the median
/// of its step-by-step deviation from the weight is below 2 % (measured 2026-11-25: moved
/// 8.2e-4 m, mean force −0.15 %, median deviation 0.20 %, RMS 0.74 %; with the renormalised
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

/// CG and the sparse Cholesky solve the same PPE: over 0.05 s of the hydrostatic tank the two
/// runs' pressures agree to 1e-6 of the bottom pressure and positions to 1e-9 m.
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
    let (cg, direct) = (run("Cg"), run("Direct"));
    let bottom = 1000.0 * 9.81 * 0.5;
    let (mut dp, mut dx): (f64, f64) = (0.0, 0.0);
    for (a, b) in cg.iter().zip(&direct) {
        dp = dp.max((a.2 - b.2).abs() / bottom);
        dx = dx.max((a.1 - b.1).norm());
    }
    eprintln!("largest pressure difference {dp:.2e} of ρ g H, position {dx:.2e} m");
    assert!(dp < 1e-6 && dx < 1e-9, "CG and Cholesky differ: {dp}, {dx}");
}
