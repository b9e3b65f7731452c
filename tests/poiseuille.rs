//! Transient plane Poiseuille flow (004 appendix A.1, eq. 60; Morris, Fox & Zhu 1997, J. Comput.
//! Phys. 136:214, §4.1): fluid at rest between no-slip plates at y = 0 and y = L = 0.2 m, driven
//! from t = 0 by a body force f = 0.01 m/s² along the channel (`models/poiseuille_2d_apgd.ron`,
//! periodic along x, spacing 0.01 m, ν = 1e-3 m²/s). The series solution, with the sign of 004's
//! eq. 60 fixed for flow along +x (its steady term is printed negative; 004 summary §8.5):
//!
//! `u(y, t) = f y (L − y) / (2ν) − Σ_{n≥0} 4 f L² / (ν π³ (2n+1)³) sin((2n+1) π y / L)
//! exp(−(2n+1)² π² ν t / L²)`,
//!
//! tending to the parabola with `u_max = f L² / (8ν) = 0.05 m/s` (time constant
//! `L² / (π² ν) = 4.05 s`). At t = 2.5, 5 and 10 s (u_max at 44 %, 70 % and 91 % of the steady
//! value) the relative RMS velocity error over all particles,
//! `√(Σ |v_i − (u(y_i, t), 0)|² / Σ u(y_i, t)²)`, must stay below 0.5 % for every fluid method.
//!
//! The error at t = 1 s is printed but not asserted: measured 0.78 % (constraint) and 0.80 %
//! (WCSPH) at spacing 0.01 m, mostly in the boundary layers (about six particles thick then; the
//! no-slip extrapolation is linear across the wall and the first layer runs 8 % fast), and
//! 1.7 % at spacing 0.005 m (constraint; centre 1 % slow, not understood), where the later
//! errors fall to 0.45 / 0.14 / 0.05 %.

mod common;

use common::fluid_checks;
use std::f64::consts::PI;

const F: f64 = 0.01;
const L: f64 = 0.2;
const NU: f64 = 1e-3;

/// The series solution u(y, t) (m/s), summed until the terms no longer matter.
fn exact(y: f64, t: f64) -> f64 {
    exact_in(L, y, t)
}

/// The series solution between plates `l` (m) apart.
fn exact_in(l: f64, y: f64, t: f64) -> f64 {
    let mut u = F * y * (l - y) / (2.0 * NU);
    for n in 0..200 {
        let k = (2 * n + 1) as f64;
        u -= 4.0 * F * l * l / (NU * PI.powi(3) * k.powi(3))
            * (k * PI * y / l).sin()
            * (-k * k * PI * PI * NU * t / (l * l)).exp();
    }
    u
}

/// The channel's model with `method` (RON; `None`: the model's own).
fn channel(method: Option<&str>) -> vcsim::Model {
    match method {
        Some(meth) => fluid_checks::model_with("poiseuille_2d_apgd.ron", meth),
        None => fluid_checks::model("poiseuille_2d_apgd.ron"),
    }
}

/// Runs the channel with `method` (RON; `None`: the model's own) and returns the relative RMS
/// error at each check time.
fn poiseuille(method: Option<&str>) -> Vec<(f64, f64)> {
    run_channel(channel(method), method, &[1.0, 2.5, 5.0, 10.0])
}

/// Runs channel model `m` to each time of `times` (s) and returns the relative RMS error there.
fn run_channel(m: vcsim::Model, method: Option<&str>, times: &[f64]) -> Vec<(f64, f64)> {
    run_channel_in(L, m, method, times)
        .into_iter()
        .map(|(t, err, _)| (t, err))
        .collect()
}

/// [`run_channel`] against the series between plates `width` (m) apart: at each time, the
/// relative RMS error of the velocity and that of its along-channel component alone.
fn run_channel_in(
    width: f64,
    m: vcsim::Model,
    method: Option<&str>,
    times: &[f64],
) -> Vec<(f64, f64, f64)> {
    let exact = |y, t| exact_in(width, y, t);
    let mut w = fluid_checks::build(&m);
    let mut out = Vec::new();
    for &t in times {
        while w.time < t - 1e-9 {
            w.step();
        }
        let f = w.fluid.as_ref().unwrap();
        let (mut num, mut vy, mut den) = (0.0, 0.0, 0.0);
        for (x, v) in f.pos.iter().zip(&f.vel) {
            let u = exact(x.y, w.time);
            num += (v.x - u).powi(2);
            vy += v.y.powi(2);
            den += u * u;
        }
        let (err, err_u) = (((num + vy) / den).sqrt(), (num / den).sqrt());
        if std::env::var("VCSIM_POISEUILLE_PROFILE").is_ok() {
            let mut rows: Vec<(f64, f64, f64, usize)> = Vec::new();
            for (x, v) in f.pos.iter().zip(&f.vel) {
                let k = (x.y / 0.01).floor() as usize;
                if rows.len() <= k {
                    rows.resize(k + 1, (0.0, 0.0, 0.0, 0));
                }
                rows[k].0 += x.y;
                rows[k].1 += v.x;
                rows[k].2 += v.y.abs();
                rows[k].3 += 1;
            }
            for (y, u, vy, n) in rows.iter().filter(|r| r.3 > 0) {
                let (y, u, vy) = (y / *n as f64, u / *n as f64, vy / *n as f64);
                eprintln!(
                    "  y {y:.4} n {n} u {u:.5} exact {:.5} |v_y| {vy:.1e}",
                    exact(y, w.time)
                );
            }
        }
        let umax = f.vel.iter().map(|v| v.x).fold(0.0, f64::max);
        eprintln!(
            "{}: t = {:.2} s, u_max {umax:.5} m/s (exact {:.5}), relative RMS error {:.3} % \
             (of u alone {:.3} %; RMS v_y {:.1e} m/s)",
            method.unwrap_or("constraint"),
            w.time,
            exact(0.5 * width, w.time),
            100.0 * err,
            100.0 * err_u,
            (vy / f.len() as f64).sqrt()
        );
        out.push((w.time, err, err_u));
    }
    out
}

fn check(method: Option<&str>, label: &str) {
    let errs = poiseuille(method);
    let shown: Vec<String> = errs[1..]
        .iter()
        .map(|e| format!("{:.2}", 100.0 * e.1))
        .collect();
    common::quotes::assert_quotes(
        "validation.md",
        "transient Poiseuille channel 2D",
        &[format!(
            "{label} {} % (t = 1 s: {:.2} %)",
            shown.join(" / "),
            100.0 * errs[0].1
        )],
    );
    // The example page's table: one row per method, t = 1, 2.5, 5, 10 s.
    let cells: Vec<String> = errs
        .iter()
        .map(|e| format!("{:.2} %", 100.0 * e.1))
        .collect();
    common::quotes::assert_quotes(
        "examples/poiseuille.md",
        &format!("| {label} |"),
        &[format!("| {label} | {} |", cells.join(" | "))],
    );
    for (t, err) in errs.into_iter().filter(|e| e.0 > 2.0) {
        assert!(
            err < 0.005,
            "{}: relative RMS velocity error {:.3} % at t = {t} s",
            method.unwrap_or("constraint"),
            100.0 * err
        );
    }
}

/// The series is right: zero at t = 0 and on the plates, the parabola for large t.
#[test]
fn series_solution_limits() {
    for y in [0.0, 0.03, 0.1, 0.17, 0.2] {
        assert!(exact(y, 0.0).abs() < 1e-7, "u({y}, 0) = {}", exact(y, 0.0));
        let steady = F * y * (L - y) / (2.0 * NU);
        assert!((exact(y, 500.0) - steady).abs() < 1e-12);
    }
    assert!((exact(0.1, 1e3) - 0.05).abs() < 1e-12);
}

#[test]
fn poiseuille_constraint() {
    check(None, "constraint");
}

#[test]
fn poiseuille_wcsph() {
    check(Some("Wcsph(sound_speed: Some(1.0))"), "WCSPH");
}

/// ISPH with its defaults (α = 1). Until the closed channel's singular pressure equation was
/// fixed by its zero-mean solution, one particle was pinned at p = 0 and lost its row: with
/// α = 1 that particle, next to the bottom plate, compressed unchecked (the largest compression
/// grew e-fold every 0.01–0.04 s) until the guard stopped the run at t = 0.70 s, and this test
/// set 000's α = 0.01.
#[test]
fn poiseuille_isph() {
    check(Some("Isph()"), "ISPH");
}

/// The same channel under its own weight: gravity (0.01, −9.81) m/s², the plates horizontal.
/// The weight is carried by a hydrostatic pressure that varies across the channel only, so the
/// flow along it is the series solution above, unchanged (an incompressible fluid's shear
/// does not depend on its pressure). Relative RMS error at 2.5 and 5 s below 0.5 %, as without
/// the weight.
fn loaded(method: Option<&str>) {
    let mut m = channel(method);
    // (`VCSIM_POISEUILLE_G` sets another weight, m/s², for the doc comments' sweeps.)
    let g = std::env::var("VCSIM_POISEUILLE_G")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(9.81);
    m.scene.gravity = vcsim::model::values::V3(F, -g, 0.0);
    let label = method.unwrap_or("constraint");
    let errs = run_channel(m, method, &[2.5, 5.0]);
    for (t, err) in errs {
        assert!(
            err < 0.005,
            "{label} under its weight: relative RMS velocity error {:.1} % at t = {t} s",
            100.0 * err
        );
    }
}

/// ISPH: the weight changes nothing (0.455 / 0.397 % against 0.46 / 0.40 % without it) —
/// in this closed channel ISPH takes its renormalised difference gradient; with a free
/// surface its default symmetric gradient locks as the other methods do (the open channel's
/// tests below).
#[test]
fn poiseuille_under_its_weight_isph() {
    loaded(Some("Isph()"));
}

/// The constraint method does not shear freely under load (2026-11-29, `cargo test --release
/// --test poiseuille -- --ignored --nocapture under_its_weight_constraint`): u_max 0.00095 and
/// 0.0036 m/s at 2.5 and 5 s against 0.0222 and 0.0350 (relative RMS error 114 % and 94 %).
/// With another weight (`VCSIM_POISEUILLE_G`), the error at 5 s: 7.8 % at 0.613 m/s², 71 % at
/// 2.45, 100 % at 39.2 (u_max 0.00032 m/s). Its density rows resist the particle-scale
/// rearrangement that shear needs once they carry a pressure (the fluid chapter's known
/// limits). Ignored until that is fixed.
#[test]
#[ignore = "the constraint method's density rows resist shear under load (see the doc comment)"]
fn poiseuille_under_its_weight_constraint() {
    loaded(None);
}

/// WCSPH (its default sound speed: the weight needs a stiff fluid) does not shear freely under
/// load either (2026-11-29, `cargo test --release --test poiseuille -- --ignored --nocapture
/// under_its_weight_wcsph`): u_max 0.0153 and 0.0118 m/s at 2.5 and 5 s against 0.0222 and
/// 0.0350 (relative RMS error 48 % and 80 %); at 5 s 3.7 % under 0.613 m/s² and 26 % under
/// 2.45. Its pressure force is the symmetric pair form, whose `2 p_i Σ_j V ∇_iW_ij` resists
/// particles sliding past each other in proportion to the pressure (ISPH with that form locks
/// the same way: the open channel's tests below). Ignored until that is fixed.
#[test]
#[ignore = "WCSPH does not shear freely under load (see the doc comment)"]
fn poiseuille_under_its_weight_wcsph() {
    loaded(Some("Wcsph()"));
}

/// The loaded channel without its top plate (a free surface at y = H = 0.2 m, the weight
/// 9.81 m/s²): the series of plates 2H apart, mirrored at the free-slip surface. ISPH with
/// the renormalised difference gradient (`Isph(gradient: Renormalised)`, which gives a uniform
/// pressure no force) shears as without the weight: 2026-11-29, the mean speed in five bands
/// of height at 5 s 0.0137 0.0324 0.0423 0.0469 0.0486 m/s against the series' 0.0135 0.0323
/// 0.0422 0.0469 0.0486 (`cargo run --release --example profile -- MODEL 5 --bands 5`).
/// ISPH's default symmetric gradient, which keeps a pressure's `2 p_i Σ_j V ∇_iW_ij`, does
/// not (the ignored test below): the closed channel above passes with ISPH only because a
/// closed domain takes the renormalised gradient.
#[test]
fn open_channel_under_its_weight_isph_renormalised() {
    open_channel("Isph(gradient: Renormalised)");
}

/// ISPH's default gradient (symmetric, with a free surface) in the open loaded channel:
/// 2026-11-29, 0.0010 0.0024 0.0035 0.0038 0.0028 m/s in the five bands at 5 s against the
/// series' 0.0135–0.0486 — the same lock as the constraint method's density rows and WCSPH,
/// whose pressure forces are symmetric too (the fluid chapter's known limits).
#[test]
#[ignore = "the symmetric pressure gradient resists shear under load (see the doc comment)"]
fn open_channel_under_its_weight_isph_symmetric() {
    open_channel("Isph()");
}

/// Runs the loaded open channel with `method` and asserts the along-channel velocity against
/// the mirrored series: `√(Σ (u_i − u(y_i, t))² / Σ u(y_i, t)²)` below 0.5 % at 2.5 and 5 s,
/// as the closed channel's. The vertical velocity is left out here (printed): the free
/// surface settles under the weight, and its top rows move at up to 1.3e-3 m/s at 2.5 s
/// (RMS over the fluid about 1.6 % of the centre speed) while the bulk's is 1e-5–4e-5.
fn open_channel(method: &str) {
    let mut m = channel(Some(method));
    let plates = m.bodies.len();
    m.bodies.retain(|b| b.name != "top");
    assert_eq!(
        m.bodies.len(),
        plates - 1,
        "the channel's top plate is named \"top\""
    );
    m.scene.gravity = vcsim::model::values::V3(F, -9.81, 0.0);
    for (t, _, err_u) in run_channel_in(2.0 * L, m, Some(method), &[2.5, 5.0]) {
        assert!(
            err_u < 0.005,
            "{method}, open channel under its weight: relative RMS error of u {:.2} % at t = {t} s",
            100.0 * err_u
        );
    }
}
