//! Flexible beams (003, Capasso et al. 2022; `src/model/beams.rs`): rigid elements joined by
//! compliant hinges against Euler–Bernoulli.
//!
//! - Static (003 §4.1, Table 1): a cantilever under its own weight, tip deflection
//!   `q L⁴ / (8 E I)` within 0.5 % at N = 20 (2D, 3D, and a beam at 30° in the plane), and
//!   second-order convergence in N = 5, 10, 20, 40.
//! - Free oscillation (003 §4.2, Table 2): first period `2π / ω₁`, `ω₁ = (β₁L)² √(EI/(ρA)) / L²`,
//!   within 1 % for N = 10, 20, 40; the conservative hinges keep the amplitude, the implicit
//!   ones lose it at the rate `ζ ≈ ωh/2` of the backward-Euler row.

mod common;

use common::{quotes, run_until, world};
use vcsim::math::Vec3;
use vcsim::World;

/// 003's static beam: L = 0.079 m, T = 0.005 m, ρ = 1100 kg/m³, E = 12 MPa, g = 9.81 m/s².
const STATIC: (f64, f64, f64, f64) = (0.079, 0.005, 1100.0, 12e6);
/// 003's oscillating beam: L = 0.2 m, T = 0.02 m, ρ = 1000 kg/m³, E = 2 MPa, no gravity.
const FREE: (f64, f64, f64, f64) = (0.2, 0.02, 1000.0, 2e6);
/// β₁L of a clamped–free beam.
const BETA_L: f64 = 1.875_104_068_711_961;

/// A model of one clamped beam `b` along the unit `dir` (in the x–y plane in 2D, the x–z
/// plane in 3D, bending about y), under gravity `g` (m/s²) across it.
fn model(
    planar: bool,
    dir: (f64, f64),
    n: u32,
    g: f64,
    extra: &str,
    beam: (f64, f64, f64, f64),
) -> String {
    let (l, t, rho, e) = beam;
    let (dim, grav, frame, width) = if planar {
        (
            "Two",
            format!("({}, {})", g * dir.1, -g * dir.0),
            format!("direction: ({}, {})", dir.0, dir.1),
            "",
        )
    } else {
        (
            "Three",
            format!("({}, 0, {})", g * dir.1, -g * dir.0),
            format!(
                "direction: ({}, 0, {}), bending_axis: (0, 1, 0)",
                dir.0, dir.1
            ),
            "width: 0.03,",
        )
    };
    format!(
        "Model(scene: (dimension: {dim}, gravity: {grav}, thickness: 0.03),
           time: (dt: 0.001, end: 1.0), solver: Pgs(max_iterations: 300, tolerance: 1e-12),
           materials: [(name: \"m\", density: {rho})],
           beams: [(name: \"b\", root: (0, 0, 0), {frame}, length: {l}, thickness: {t}, {width}
                    youngs_modulus: {e}, material: \"m\", elements: {n}, {extra})])"
    )
}

/// The tip of beam `b` with `n` elements of length `ds` (m).
fn tip(w: &World, n: u32, ds: f64) -> Vec3 {
    let i = w.body(&format!("b.{}", n - 1)).unwrap();
    let p = w.bodies[i].frame_pose() * nalgebra::Point3::new(0.5 * ds, 0.0, 0.0);
    p.coords
}

/// Relative error of the static tip deflection of a beam at `deg` degrees in the plane (or
/// along x in 3D) with `n` elements, gravity across it, after 1 s with Kelvin–Voigt damping;
/// and the largest speed. (Gravity along a beam loads it axially too, which Euler–Bernoulli
/// leaves out: at 30° up this beam deflects 1.4 % more, the beam-column effect.)
fn static_error(planar: bool, deg: f64, n: u32) -> (f64, f64) {
    static_error_with(planar, deg, n, None)
}

/// [`static_error`] with another solver (RON) than PGS.
fn static_error_with(planar: bool, deg: f64, n: u32, solver: Option<&str>) -> (f64, f64) {
    let (l, t, rho, e) = STATIC;
    let (c, s) = (deg.to_radians().cos(), deg.to_radians().sin());
    let mut src = model(planar, (c, s), n, 9.81, "viscosity: 1e5", STATIC);
    if let Some(solver) = solver {
        src = src.replace("Pgs(max_iterations: 300, tolerance: 1e-12)", solver);
    }
    let mut w = world(&src);
    run_until(&mut w, 1.0, |_| {});
    let p = tip(&w, n, l / n as f64);
    // Load per length q = ρ g T W; I = W T³/12 (the width W cancels).
    let exact = rho * 9.81 * t * l.powi(4) / (8.0 * e * t.powi(3) / 12.0);
    quotes::assert_quotes(
        "examples/beams.md",
        "(8EI)\\\\) = ",
        &[format!("(8EI)\\\\) = {}", quotes::sci(exact, 5))],
    );
    let down = if planar {
        Vec3::new(s, -c, 0.0)
    } else {
        Vec3::new(s, 0.0, -c)
    };
    let defl = (p - Vec3::new(
        c,
        if planar { s } else { 0.0 },
        if planar { 0.0 } else { s },
    ) * l)
        .dot(&down);
    let speed = w
        .bodies
        .iter()
        .map(|b| b.lin_vel.norm())
        .fold(0.0, f64::max);
    ((defl - exact) / exact, speed)
}

#[test]
fn a_cantilever_under_its_own_weight_deflects_as_euler_bernoulli() {
    for (planar, deg) in [(true, 0.0), (false, 0.0), (true, 30.0), (false, -20.0)] {
        let (err, speed) = static_error(planar, deg, 20);
        eprintln!(
            "planar={planar} {deg}°, N = 20: tip deflection error {:+.3} %, speed {speed:.1e} m/s",
            100.0 * err
        );
        assert!(speed < 1e-6, "not at rest: {speed} m/s");
        assert!(
            err.abs() < 0.005,
            "tip deflection off by {:.3} %",
            100.0 * err
        );
        quote_static(err);
    }
    // APGD reaches the same rest state (one scale per row in the beam's block).
    let apgd = "Apgd(max_iterations: 3000, tolerance: 1e-10)";
    let (err, speed) = static_error_with(true, 0.0, 20, Some(apgd));
    eprintln!(
        "APGD, N = 20: tip deflection error {:+.3} %, speed {speed:.1e} m/s",
        100.0 * err
    );
    assert!(
        speed < 1e-6 && err.abs() < 0.005,
        "APGD: {err}, {speed} m/s"
    );
    quote_static(err);
}

/// The validation page quotes one static error for every case.
fn quote_static(err: f64) {
    quotes::assert_quotes(
        "validation.md",
        "beam under its own weight",
        &[format!("{} in every case", quotes::signed_pct(err, 3))],
    );
}

#[test]
fn the_static_tip_deflection_converges_in_the_number_of_elements_at_second_order() {
    let errs: Vec<f64> = [5, 10, 20, 40]
        .iter()
        .map(|&n| {
            let (err, _) = static_error(true, 0.0, n);
            eprintln!("N = {n:2}: tip deflection error {:+.3} %", 100.0 * err);
            err
        })
        .collect();
    for k in 0..2 {
        let ratio = errs[k] / errs[k + 1];
        assert!(
            ratio > 3.0,
            "N doubled, error ratio {ratio} (second order: about 4)"
        );
    }
    assert!(errs[3].abs() < 0.001, "N = 40: {:.3} %", 100.0 * errs[3]);
    let shown: Vec<String> = errs
        .iter()
        .zip([2, 2, 2, 3])
        .map(|(&e, d)| format!("{:+.*}", d, 100.0 * e))
        .collect();
    quotes::assert_quotes(
        "validation.md",
        "the same, N = 5 / 10 / 20 / 40",
        &[format!("| {} % |", shown.join(" / "))],
    );
}

/// Tip displacement series (across the beam, m) of 003's free oscillation with `n` elements,
/// time step `dt` and hinge rule `hinges`, over `end` s.
fn oscillation(n: u32, dt: f64, hinges: &str, end: f64) -> Vec<(f64, f64)> {
    let (l, _, rho, e) = FREE;
    // 003's initial tip speed ξ c_s with ξ = 0.01, c_s = √(E/ρ).
    let v = 0.01 * (e / rho).sqrt();
    let src = model(
        true,
        (1.0, 0.0),
        n,
        0.0,
        &format!("tip_velocity: {v}, hinges: {hinges}"),
        FREE,
    )
    .replace("dt: 0.001", &format!("dt: {dt}"));
    let mut w = world(&src);
    let ds = l / n as f64;
    let mut out = Vec::new();
    run_until(&mut w, end, |w| out.push((w.time, tip(w, n, ds).y)));
    out
}

/// Upward zero crossings (s) and the peaks between them (m) of a series.
fn crossings_and_peaks(s: &[(f64, f64)]) -> (Vec<f64>, Vec<f64>) {
    let mut up = Vec::new();
    let mut peaks = Vec::new();
    let mut peak: f64 = 0.0;
    for w in s.windows(2) {
        let ((t0, y0), (t1, y1)) = (w[0], w[1]);
        peak = peak.max(y1);
        if y0 < 0.0 && y1 >= 0.0 {
            up.push(t0 + (t1 - t0) * (-y0) / (y1 - y0));
            peaks.push(peak);
            peak = 0.0;
        }
    }
    (up, peaks)
}

fn euler_bernoulli_period() -> f64 {
    let (l, t, rho, e) = FREE;
    let omega = BETA_L * BETA_L / (l * l) * (e * t * t / 12.0 / rho).sqrt();
    2.0 * std::f64::consts::PI / omega
}

#[test]
fn the_free_oscillation_has_the_euler_bernoulli_period_and_keeps_its_amplitude() {
    let exact = euler_bernoulli_period();
    quotes::assert_quotes(
        "examples/beams.md",
        "Euler–Bernoulli period",
        &[format!(
            "\\\\(2\\pi /ω\\_{{1}} = {exact:.5}\\ \\mathrm{{s}}\\\\), \\\\(ω\\_{{1}} = (1.8751/L)^2 \\sqrt{{EI/ρA}} = {:.2}\\ \\mathrm{{rad/s}}\\\\)",
            2.0 * std::f64::consts::PI / exact
        )],
    );
    let (mut shown, mut worst_decay) = (Vec::new(), 0.0f64);
    for n in [10, 20, 40] {
        let s = oscillation(n, 0.001, "Conservative", 7.0 * exact);
        let (up, peaks) = crossings_and_peaks(&s);
        // Starting at y = 0 moving up: the upward crossings are whole periods.
        let period = (up[up.len() - 1] - up[0]) / (up.len() - 1) as f64;
        let err = (period - exact) / exact;
        let decay = 1.0 - peaks[peaks.len() - 1] / peaks[1];
        eprintln!(
            "N = {n}: period {period:.5} s (Euler–Bernoulli {exact:.5} s, {:+.3} %), amplitude lost over {} periods {:.3} %",
            100.0 * err,
            peaks.len() - 2,
            100.0 * decay
        );
        assert!(err.abs() < 0.01, "period off by {:.3} %", 100.0 * err);
        assert!(
            decay.abs() < 0.01,
            "conservative hinges lost {:.3} % of the amplitude",
            100.0 * decay
        );
        shown.push(format!("{:+.2}", 100.0 * err));
        worst_decay = worst_decay.max(decay.abs());
    }
    quotes::assert_quotes(
        "validation.md",
        "free oscillation, 003 §4.2",
        &[format!(
            "| {} %; loss ≤ {} |",
            shown.join(" / "),
            quotes::pct(worst_decay, 2)
        )],
    );
}

#[test]
fn implicit_hinges_damp_each_period_as_backward_euler_predicts() {
    let exact = euler_bernoulli_period();
    let omega = 2.0 * std::f64::consts::PI / exact;
    let mut shown = Vec::new();
    for dt in [0.001, 0.004] {
        let s = oscillation(20, dt, "Implicit", 7.0 * exact);
        let (_, peaks) = crossings_and_peaks(&s);
        let per_period = (peaks[peaks.len() - 1] / peaks[1]).powf(1.0 / (peaks.len() - 2) as f64);
        // Amplitude factor per step 1/√(1 + (ωh)²): per period (1 + (ωh)²)^(−T/(2h)).
        let predicted = (1.0 + (omega * dt).powi(2)).powf(-exact / (2.0 * dt));
        eprintln!(
            "dt = {dt}: ωh = {:.4}, amplitude kept per period {per_period:.4} (backward Euler {predicted:.4})",
            omega * dt
        );
        assert!(
            ((1.0 - per_period) / (1.0 - predicted) - 1.0).abs() < 0.2,
            "decay per period {per_period} vs {predicted}"
        );
        shown.push(format!(
            "{} vs {}",
            quotes::pct(1.0 - per_period, 2),
            quotes::pct(1.0 - predicted, 2)
        ));
    }
    quotes::assert_quotes(
        "validation.md",
        "the same, implicit hinges",
        &[format!("| {} |", shown.join("; "))],
    );
}
