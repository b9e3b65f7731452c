//! Sloshing tank (004 §4.4): a 2D tank (width w = 0.6 m, water depth h = 0.3 m) shaken
//! sideways, x = X0 sin(2π f t), X0 = 0.1 m, f = 0.75 Hz (`models/sloshing_2d_apgd.ron`). The
//! amplitude of the horizontal force of the water on the tank at the forcing frequency must lie
//! within 10 % of Dodge's linear (inviscid, potential-flow) solution, for every fluid method;
//! WCSPH with Adami walls at X0 = 0.01 m, where the linear solution applies (at 0.1 m it is
//! 14 % above it while the other methods are within 4 %: the book's sloshing page).
//!
//! Dodge (2000), "The New 'Dynamic Behavior of Liquids in Moving Containers'", Southwest
//! Research Institute, §3 (lateral excitation of a rectangular tank); as quoted in 004 §4.4:
//! `ω_n² = (2n−1)π (g/w) tanh((2n−1)π h/w)` and
//! `F_x0 / (Ω² X0 m_l) = 1 + 8 (w/h) Σ_n tanh((2n−1)π h/w) / ((2n−1)³ π³) · Ω² / (ω_n² − Ω²)`,
//! with Ω = 2πf and m_l the water's mass (per metre of thickness in 2D).
//!
//! The tank starts moving at t = 0 with speed X0 Ω from water at rest, which also sets the
//! natural modes swinging; linear theory superposes them on the forced response. The forced
//! amplitude is therefore taken by a least-squares fit of
//! `F(t) = a sin Ωt + b cos Ωt + Σ_{n≤2} (c_n sin ω_n t + d_n cos ω_n t) + e` over t ∈ [1 s, end]
//! (the free modes at the formula's ω_n; the fit is reported together with the plain projection
//! on sin/cos Ωt over whole forcing periods, whose difference shows how much the free modes
//! leak).

mod common;

use common::fluid_checks;
use std::f64::consts::PI;

/// The shipped model's amplitude (m).
const X0: f64 = 0.1;
/// A small amplitude (m), where the linear solution applies (the book's sloshing page: every
/// method approaches it as the spacing is refined).
const X0_SMALL: f64 = 0.01;
const F: f64 = 0.75;
const W: f64 = 0.6;
const H: f64 = 0.3;
const G: f64 = 9.81;

/// Natural circular frequency ω_n (rad/s) of mode n ≥ 1 (Dodge; 004 §4.4).
fn omega_n(n: u32) -> f64 {
    let k = (2 * n - 1) as f64 * PI;
    (k * G / W * (k * H / W).tanh()).sqrt()
}

/// Dodge's force amplitude (N per metre of thickness) for water mass `m` (kg/m) and tank
/// amplitude `x0` (m), modes summed until they no longer change the result.
fn dodge_amplitude(m: f64, x0: f64) -> f64 {
    let omega = 2.0 * PI * F;
    let mut sum = 0.0;
    for n in 1..=50 {
        let k = (2 * n - 1) as f64 * PI;
        let wn2 = omega_n(n).powi(2);
        sum += (k * H / W).tanh() / k.powi(3) * omega * omega / (wn2 - omega * omega);
    }
    omega * omega * x0 * m * (1.0 + 8.0 * W / H * sum)
}

/// Least-squares amplitude at Ω of `series` (t, F) over t ≥ t0, with the first two natural
/// modes and a constant as further unknowns; and the plain projection over whole periods.
fn forced_amplitude(series: &[(f64, f64)], t0: f64) -> (f64, f64) {
    let omega = 2.0 * PI * F;
    let freqs = [omega, omega_n(1), omega_n(2)];
    let basis = |t: f64| {
        let mut b = nalgebra::SVector::<f64, 7>::zeros();
        for (k, w) in freqs.iter().enumerate() {
            b[2 * k] = (w * t).sin();
            b[2 * k + 1] = (w * t).cos();
        }
        b[6] = 1.0;
        b
    };
    let (mut a, mut r) = (
        nalgebra::SMatrix::<f64, 7, 7>::zeros(),
        nalgebra::SVector::<f64, 7>::zeros(),
    );
    for &(t, f) in series.iter().filter(|s| s.0 >= t0) {
        let b = basis(t);
        a += b * b.transpose();
        r += b * f;
    }
    let x = a.lu().solve(&r).expect("a well-posed fit");
    let fit = x[0].hypot(x[1]);
    // Projection over the whole periods after t0.
    let period = 1.0 / F;
    let end = series.last().map(|s| s.0).unwrap_or(0.0);
    let t1 = t0 + ((end - t0) / period).floor() * period;
    let (mut s, mut c, mut n) = (0.0, 0.0, 0.0f64);
    for &(t, f) in series.iter().filter(|s| s.0 > t0 && s.0 <= t1 + 1e-9) {
        s += f * (omega * t).sin();
        c += f * (omega * t).cos();
        n += 1.0;
    }
    (fit, 2.0 * s.hypot(c) / n.max(1.0))
}

/// Runs the sloshing model with `method` (RON; `None`: the model's own) to its end, shaken by
/// `amp` (m), and checks the forced force amplitude against Dodge's.
fn sloshing(method: Option<&str>, end: f64, amp: f64) -> (f64, f64) {
    let mut m = match method {
        Some(meth) => fluid_checks::model_with("sloshing_2d_apgd.ron", meth),
        None => fluid_checks::model("sloshing_2d_apgd.ron"),
    };
    if amp != X0 {
        m.bodies[0].motion = Some(
            vcsim::model::from_ron_str(&format!("Sine(displacement: ({amp}, 0), frequency: {F})"))
                .expect("a motion in RON"),
        );
    }
    let mut w = fluid_checks::build(&m);
    let tank = w.body("tank").expect("the tank");
    let mass = {
        let f = w.fluid.as_ref().unwrap();
        f.mass * f.len() as f64
    };
    let mut series = Vec::new();
    let x0 = w.bodies[tank].com().x;
    let mut worst_pos: f64 = 0.0;
    while w.time < end - 1e-9 {
        w.step();
        let f = w.fluid.as_ref().unwrap();
        series.push((w.time, f.body_force[tank].x));
        let exact = amp * (2.0 * PI * F * w.time).sin();
        worst_pos = worst_pos.max((w.bodies[tank].com().x - x0 - exact).abs());
    }
    let dodge = dodge_amplitude(mass, amp);
    let (fit, projected) = forced_amplitude(&series, 1.0);
    eprintln!(
        "{} (X0 = {amp} m): water {mass:.1} kg/m, ω1 = {:.3} rad/s, Dodge {dodge:.1} N/m (rigid {:.1}); fitted {fit:.1} N/m ({:+.1} %), projected {projected:.1} N/m ({:+.1} %)",
        method.unwrap_or("constraint"),
        omega_n(1),
        (2.0 * PI * F).powi(2) * amp * mass,
        100.0 * (fit / dodge - 1.0),
        100.0 * (projected / dodge - 1.0),
    );
    if let Ok(dir) = std::env::var("VCSIM_SLOSHING_CSV") {
        let text: String = series.iter().map(|(t, f)| format!("{t},{f}\n")).collect();
        let name = method
            .unwrap_or("constraint")
            .replace(|c: char| !c.is_alphanumeric(), "_");
        std::fs::write(format!("{dir}/{name}.csv"), text).unwrap();
    }
    assert!(
        worst_pos < 1e-9,
        "the tank strays {worst_pos} m from its prescribed path"
    );
    assert!(
        (fit / dodge - 1.0).abs() < 0.10,
        "force amplitude {fit:.1} N/m, Dodge {dodge:.1} N/m"
    );
    if method.is_none() && amp == X0 {
        // The reference as the example page gives it.
        common::quotes::assert_quotes(
            "examples/sloshing.md",
            "For this tank ω1 = ",
            &[format!(
                "ω1 = {:.2} rad/s, above the forcing's {:.2} rad/s, and the force is {:.2} times \
                 that of a rigid block of the same water: {dodge:.0} N/m for the {mass:.1} kg/m",
                omega_n(1),
                2.0 * PI * F,
                dodge / ((2.0 * PI * F).powi(2) * amp * mass)
            )],
        );
    }
    (fit, fit / dodge - 1.0)
}

/// The validation page quotes each method's fitted amplitude error after `label`, the example
/// page's table the amplitude and the error in the row `row`.
fn quote(label: &str, row: &str, (fit, err): (f64, f64)) {
    common::quotes::assert_quotes(
        "examples/sloshing.md",
        &format!("| {row} |"),
        &[format!(
            "| {row} | {fit:.1} N/m | {} |",
            common::quotes::signed_pct(err, 1)
        )],
    );
    common::quotes::assert_quotes(
        "validation.md",
        "sloshing tank 2D",
        &[format!("{label} {}", common::quotes::signed_pct(err, 1))],
    );
}

#[test]
fn dodge_formula_limits() {
    // Deep water far below resonance: the rigid mass plus the first mode's share.
    let m = 1000.0 * W * H;
    let rigid = (2.0 * PI * F).powi(2) * X0 * m;
    let d = dodge_amplitude(m, X0);
    assert!(d > rigid && d < 2.0 * rigid, "{d} vs rigid {rigid}");
    // (Independently: ω1 = 6.8636 rad/s, ratio 1.4258 for this tank.)
    assert!((omega_n(1) - 6.8636).abs() < 1e-4, "ω1 = {}", omega_n(1));
    assert!((d / rigid - 1.4258).abs() < 1e-4, "ratio {}", d / rigid);
}

#[test]
fn sloshing_constraint() {
    quote("constraint", "constraint (APGD)", sloshing(None, 8.0, X0));
}

/// WCSPH with dynamic boundary particles (DualSPHysics' default wall treatment, and the one of
/// `dam_break_2d_20k_wcsph.ron`): measured +3.4 % (585.5 N/m against 566.3 N/m).
#[test]
fn sloshing_wcsph() {
    let r = sloshing(Some("Wcsph(walls: Dynamic)"), 8.0, X0);
    quote("WCSPH dynamic walls", "WCSPH, dynamic wall particles", r);
}

/// WCSPH with Adami walls (our WCSPH default), at the small amplitude X0 = 0.01 m where the
/// linear solution applies: measured 2026-11-26 −3.2 % (−2.4 % at spacing 0.01 m; the study
/// `models/studies/sloshing_walls_small.ron`). At the shipped X0 = 0.1 m it lies +14.4 % above
/// Dodge, where the other methods are within +4 %; the book's sloshing page has both
/// amplitudes at two spacings: what the linear solution leaves out at 0.1 m, not a defect of
/// the wall treatment, as far as the two spacings show.
#[test]
fn sloshing_wcsph_adami_small_amplitude() {
    let err = sloshing(Some("Wcsph(walls: Adami)"), 8.0, X0_SMALL);
    quote(
        "WCSPH Adami walls at X0 = 0.01 m",
        "WCSPH, Adami walls, X0 = 0.01 m",
        err,
    );
}

/// ISPH (partitioned coupling, `Isph()` defaults). Measured 2026-11-25: +2.4 % (fitted
/// 577.3 N/m against 564.0 N/m; projected +3.5 %); 2026-11-27 with the renormalised
/// divergence, α = 0.3 and the position correction: +3.7 % (584.8 N/m); 2026-12-02, the free
/// surface's depth from the lattice: +3.8 % (585.3 N/m); that evening, one wall normal per
/// particle where a wall's normals differ (the tank's corners): +3.9 % (585.9 N/m). Before the free-surface particles held
/// ρ0 |g| l/2 and the velocity filter ran after the corrector it was +9.9 % (the water ran up
/// the walls far higher than with the constraint method and a few particles left over the
/// tank's top at t ≈ 1.8 s), and +10.6 % until shifting stopped pointing into walls. (Before
/// the symmetric gradient the fluid next to the moving wall compressed and the guard stopped
/// the run at t = 0.36 s.) The book's ISPH page.
#[test]
fn sloshing_isph() {
    quote("ISPH", "ISPH", sloshing(Some("Isph()"), 8.0, X0));
}
