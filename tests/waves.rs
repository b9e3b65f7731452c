//! Regular waves from a piston wavemaker in a 2D flume with a damping zone, at three values of
//! kd from shallow to deep water, with each fluid method: the incident wave's height against
//! linear wavemaker theory (Biésel's transfer function) and the reflection coefficient, both
//! from two gauges by Goda & Suzuki's separation ([`vcsim::probe::waves`]).
//!
//! Coarse resolution (spacing 0.025 m in water 0.5 m deep: 20 particles over the depth, the
//! 4 cm wave 1.6 spacings high). The targets (height within 5 %, reflection below
//! 10 %) are not met here: that test is ignored, with its measured figures, until they are.
//! The gauge, the separation and the refusals are tested here; the transfer functions and the
//! dispersion relation in `vcsim::body::wavemaker`'s unit tests.

mod common;
use common::*;
use vcsim::body::wavemaker::{Paddle, Wave};
use vcsim::probe::waves::{harmonic, modulus, separate};

const G: f64 = 9.81;
const DEPTH: f64 = 0.5;
const HEIGHT: f64 = 0.04;
const SPACING: f64 = 0.025;

/// One flume: the model's text, the wave, the gauges (m) and the analysis window (s).
struct Flume {
    src: String,
    wave: Wave,
    gauges: [f64; 2],
    window: (f64, f64),
}

/// A flume for period `period` (s) run by fluid `method` (RON) with `solver` (RON or empty):
/// the working length 2.5 wavelengths, then a damping zone 1.5 wavelengths long; gauges two
/// depths from the paddle and 0.15 wavelengths further; the window the last three periods of
/// a run long enough for the ramp's front and its reflection from the zone to pass them.
fn flume(period: f64, method: &str, solver: &str) -> Flume {
    let wave = Wave::new(Paddle::Piston, HEIGHT, period, DEPTH, G);
    let l = wave.length;
    let zone = 2.5 * l;
    let end_x = zone + 1.5 * l;
    let x1 = 2.0 * DEPTH;
    let x2 = x1 + 0.15 * l;
    // Group velocity (m/s), linear theory.
    let kd = wave.k * DEPTH;
    let c = l / period;
    let cg = 0.5 * c * (1.0 + 2.0 * kd / (2.0 * kd).sinh());
    let ramp = 2.0 * period;
    let end = ramp + (2.0 * zone) / cg + 3.0 * period;
    let src = format!(
        "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (end: {end}), {solver}
           bodies: [
             (name: \"floor\", kind: Static, shape: Cuboid(half_extents: ({hf}, 0.05)), position: ({cf}, -0.05)),
             (name: \"far_wall\", kind: Static, shape: Cuboid(half_extents: (0.05, 0.4)), position: ({wall}, 0.3)),
             (name: \"paddle\", kind: Kinematic, shape: Cuboid(half_extents: (0.05, 0.4)), position: (-0.05, 0.4),
              motion: Piston(height: {HEIGHT}, period: {period}, depth: {DEPTH})),
           ],
           fluid: (spacing: {SPACING}, velocity_filter: 0, shifting: 0, stabilisation: 0, method: {method},
                   regions: [Box(min: (0, 0), max: ({end_x}, {DEPTH}))],
                   damping: [(start: ({zone}, 0), end: ({end_x}, 0))]))",
        hf = 0.5 * end_x + 0.3,
        cf = 0.5 * end_x - 0.1,
        wall = end_x + 0.05,
    );
    Flume {
        src,
        wave,
        gauges: [x1, x2],
        window: (end - 3.0 * period, end),
    }
}

/// Runs a flume: (incident height, reflected height) in m.
fn measure(f: &Flume) -> (f64, f64) {
    let mut w = world(&f.src);
    let points = f.gauges.map(|x| vcsim::math::Vec3::new(x, 0.0, 0.0));
    let fl = w.fluid.as_ref().expect("fluid");
    let rest = points.map(|p| {
        fl.surface_height(&p, &w.gravity)
            .expect("water under the gauge")
    });
    let (mut t, mut y) = (Vec::new(), [Vec::new(), Vec::new()]);
    run_until(&mut w, f.window.1, |w| {
        if w.time >= f.window.0 {
            t.push(w.time);
            let fl = w.fluid.as_ref().expect("fluid");
            for g in 0..2 {
                let h = fl.surface_height(&points[g], &w.gravity);
                y[g].push(h.map_or(f64::NAN, |h| h - rest[g]));
            }
        }
    });
    let omega = w_of(f);
    let a1 = harmonic(&t, &y[0], omega).expect("fit");
    let a2 = harmonic(&t, &y[1], omega).expect("fit");
    let (i, r) = separate(a1, a2, f.wave.k, f.gauges[0], f.gauges[1]).expect("gauges apart");
    (2.0 * modulus(i), 2.0 * modulus(r))
}

/// The wave's angular frequency (rad/s) from its number by the dispersion relation.
fn w_of(f: &Flume) -> f64 {
    (G * f.wave.k * (f.wave.k * DEPTH).tanh()).sqrt()
}

/// Checks one method at the three periods: incident height within `height_tol` (relative) of
/// the target, reflection coefficient below `max_reflection`.
fn check(method: &str, solver: &str, periods: &[f64], height_tol: f64, max_reflection: f64) {
    let mut failed = Vec::new();
    for &period in periods {
        let f = flume(period, method, solver);
        let (hi, hr) = measure(&f);
        let kd = f.wave.k * DEPTH;
        let err = hi / HEIGHT - 1.0;
        let refl = hr / hi;
        println!(
            "{method} T = {period} s (kd = {kd:.2}, L = {:.2} m): incident H {hi:.4} m ({:+.1} %), reflected {hr:.4} m (R = {refl:.3})",
            f.wave.length,
            100.0 * err
        );
        if err.abs() >= height_tol || refl >= max_reflection {
            failed.push(format!(
                "T {period} s: incident {hi:.4} m against {HEIGHT} m, R {refl:.3}"
            ));
        }
    }
    assert!(failed.is_empty(), "{method}: {failed:?}");
}

/// Issue 53's target at this resolution. Not met (`cargo test --release --test waves --
/// --ignored --nocapture`, 270 s on two cores, 2026-11-28): incident height −23.5 % (T = 0.8 s,
/// kd = 3.16), −17.1 % (1.2 s, 1.53), −20.2 % (2.0 s, 0.77); reflection 0.076, 0.087, 0.075 (the
/// reflection target holds). The flumes run without the density-error feedback
/// (`stabilisation: 0`): with the default β = 0.05 the heights were −55.4 / −23.6 / −16.8 % and
/// the reflection 0.218 / 0.111 / 0.077 (the feedback damps waves: the book's waves page).
/// At twice the resolution (spacing 0.0125 m) the 1.2 s wave is 11 % low two depths from the
/// paddle and no longer decays along the flume, with PGS to 200 multilevel sweeps, APGD or 10
/// PGS sweeps alike (the book's waves page).
#[test]
#[ignore = "issue 53's wave targets are not met at this resolution (see the doc comment)"]
fn a_piston_makes_the_wave_linear_theory_asks_for_and_the_zone_absorbs_it_constraint() {
    check(
        "Constraint()",
        "solver: Pgs(max_iterations: 10),",
        &[0.8, 1.2, 2.0],
        0.05,
        0.1,
    );
}

#[test]
fn a_wave_gauge_reads_a_raised_surface_and_refuses_dry_ground() {
    // A still tank; raising every fluid particle by δ raises the gauge's reading by δ (the
    // volume fraction's half-crossing moves with the fluid), wherever δ falls between rows.
    let src = "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (dt: 0.001, end: 1.0),
        bodies: [(name: \"floor\", kind: Static, shape: Cuboid(half_extents: (1.2, 0.05)), position: (1.0, -0.05))],
        fluid: (spacing: 0.02, regions: [Box(min: (0, 0), max: (2.0, 0.4))]),
        probes: [WaveGauge(1.0, 0.1)])";
    let mut w = world(src);
    let p = vcsim::math::Vec3::new(1.0, 0.1, 0.0);
    let g = w.gravity;
    let rest = w.fluid.as_ref().unwrap().surface_height(&p, &g).unwrap();
    // The surface of particles whose top row is at 0.39 m: within a spacing of 0.4 m.
    assert!(
        (rest + 0.1 - 0.4).abs() < 0.02,
        "surface at {} m",
        rest + 0.1
    );
    for delta in [0.003, 0.0117, -0.0071, 0.05] {
        let f = w.fluid.as_mut().unwrap();
        f.pos.iter_mut().for_each(|x| x.y += delta);
        let h = f.surface_height(&p, &g).unwrap();
        f.pos.iter_mut().for_each(|x| x.y -= delta);
        assert!(
            (h - rest - delta).abs() < 1e-3 * 0.02,
            "raised by {delta}: read {}",
            h - rest
        );
    }
    // A gauge over dry ground is refused where it is written.
    let dry = src.replace("WaveGauge(1.0, 0.1)", "WaveGauge(3.5, 0.1)");
    let m = vcsim::parse_str(std::path::Path::new("dry.ron"), &dry).expect("parses");
    let built = vcsim::build_world(&m).expect("builds");
    let Err(err) = vcsim::model::resolve_probes(&m, &built) else {
        panic!("a gauge over dry ground was accepted");
    };
    let err = err.to_string();
    assert!(err.contains("probes[0]") && err.contains("gauge"), "{err}");
}

#[test]
fn wavemakers_the_flume_cannot_carry_are_refused_at_the_field_to_change() {
    // (motion, time line, flume length, field expected in the message, words expected)
    let cases = [
        // 0.3 s in 0.5 m of water: waves 0.14 m long, 5.6 spacings.
        (
            "Piston(height: 0.01, period: 0.3, depth: 0.5)",
            "(end: 2.0)",
            4.0,
            "motion.period",
            "spacings",
        ),
        // 30 cm waves 1 m long break (Miche: 0.14 m).
        (
            "Piston(height: 0.3, period: 0.8, depth: 0.5)",
            "(end: 2.0)",
            4.0,
            "motion.height",
            "breaks",
        ),
        // A flap hinged 0.45 m up in 0.5 m of water turning ±40° for a 5 cm wave.
        (
            "Flap(height: 0.05, period: 2.0, depth: 0.5, hinge: (0, 0.45), hinge_height: 0.45)",
            "(end: 2.0)",
            8.0,
            "motion.height",
            "flap",
        ),
        // A hinge above the water.
        (
            "Flap(height: 0.02, period: 1.2, depth: 0.5, hinge: (0, 0.6), hinge_height: 0.6)",
            "(end: 2.0)",
            4.0,
            "motion.hinge_height",
            "below the still water",
        ),
        // A period of 16 steps of 0.05 s.
        (
            "Piston(height: 0.02, period: 0.8, depth: 0.5)",
            "(dt: 0.05, end: 2.0)",
            4.0,
            "motion.period",
            "time steps",
        ),
        // A long shallow wave in a short flume: a stroke of about 0.18 m in water 0.15 m long.
        (
            "Piston(height: 0.05, period: 5.0, depth: 0.5)",
            "(end: 2.0)",
            0.15,
            "motion.height",
            "half the water",
        ),
    ];
    for (motion, time, length, field, words) in cases {
        let src = format!(
            "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: {time},
               bodies: [
                 (name: \"floor\", kind: Static, shape: Cuboid(half_extents: ({h}, 0.05)), position: ({c}, -0.05)),
                 (name: \"paddle\", kind: Kinematic, shape: Cuboid(half_extents: (0.05, 0.4)), position: (-0.05, 0.4),
                  motion: {motion}),
               ],
               fluid: (spacing: 0.025, regions: [Box(min: (0, 0), max: ({length}, 0.5))]))",
            h = 0.5 * length + 0.3,
            c = 0.5 * length - 0.1,
        );
        let path = std::path::Path::new("flume.ron");
        let err = match vcsim::parse_str(path, &src) {
            Err(e) => e.to_string(),
            Ok(m) => match vcsim::build_world(&m) {
                Err(e) => e.locate(path, &src).to_string(),
                Ok(_) => panic!("accepted: {motion} with {time}"),
            },
        };
        let last = field.rsplit('.').next().unwrap();
        assert!(
            err.contains(&format!("field `{last}`")),
            "{motion}: expected field `{last}` in: {err}"
        );
        assert!(
            err.contains(words),
            "{motion}: expected `{words}` in: {err}"
        );
        assert!(err.contains("flume.ron:"), "{motion}: not located: {err}");
    }
}

#[test]
fn a_probe_point_in_inner_parentheses_is_told_its_form() {
    for probe in ["Pressure", "WaveGauge"] {
        let src = format!(
            "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (dt: 0.001, end: 1.0),
               bodies: [(name: \"floor\", kind: Static, shape: Cuboid(half_extents: (1.2, 0.05)), position: (1.0, -0.05))],
               fluid: (spacing: 0.02, regions: [Box(min: (0, 0), max: (2.0, 0.4))]),
               probes: [{probe}((1.0, 0.1))])"
        );
        let Err(err) = vcsim::parse_str(std::path::Path::new("p.ron"), &src) else {
            panic!("{probe} in inner parentheses was accepted");
        };
        let err = err.to_string();
        assert!(
            err.contains(&format!("`{probe}(0.5, 0.1)`")) && err.contains("p.ron:4:"),
            "{err}"
        );
    }
}

/// The shipped flume with a paddle 2.64 spacings thick and a box 12.4 x 8.56 spacings whose
/// faces fall anywhere on the lattice (10 PGS sweeps), on the lattice `lattice` (RON, or empty
/// for the default): the model's path and text.
fn odd_flume(lattice: &str) -> (std::path::PathBuf, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/flume_2d.ron");
    let src = std::fs::read_to_string(&path)
        .unwrap()
        .replace("spacing: 0.025,", &format!("spacing: 0.025, {lattice}"))
        .replace(
            "shape: Cuboid(half_extents: (0.15, 0.1)), position: (2.5, 0.5)",
            "shape: Cuboid(half_extents: (0.155, 0.107)), position: (2.5, 0.5035)",
        )
        .replace(
            "shape: Cuboid(half_extents: (0.05, 0.45)),\n            position: (-0.05, 0.45),",
            "shape: Cuboid(half_extents: (0.033, 0.45)),\n            position: (-0.033, 0.45),",
        )
        .replace(
            "time: (end: 5.0),",
            "time: (end: 5.0), solver: Pgs(max_iterations: 10),",
        );
    assert!(
        src.contains("0.155") && src.contains("0.033") && src.contains(lattice),
        "the flume changed"
    );
    (path, src)
}

/// The largest compression of the fluid over the first 0.1 s of a world.
fn early_compression(w: &mut vcsim::World) -> f64 {
    let mut worst: f64 = 0.0;
    run_until(w, 0.1, |w| {
        worst = worst.max(w.fluid.as_ref().unwrap().density_error_stats().0);
    });
    worst
}

#[test]
fn a_paddle_and_a_box_of_any_size_start_without_a_guard_stop_and_check_says_where_they_miss() {
    // The first steps keep the fluid within 1 % of its density (anchored at one corner only, a
    // paddle 2.5 spacings thick had a row on its face and stopped at the first step, 28 %
    // compressed), and `check` names the body that starts with a gap.
    let (path, src) = odd_flume("");
    let m = vcsim::parse_str(&path, &src).expect("parses");
    let mut w = vcsim::build_world(&m).expect("builds");
    let warned: Vec<String> = vcsim::model::warnings::warnings(&m, None, &w)
        .iter()
        .map(|e| e.to_string())
        .collect();
    // The paddle's rows are laid from its face next to the water (half a spacing inside it):
    // nothing to warn about. The box's bottom face lies 0.36 spacings above a particle row
    // that the fill leaves out: a gap it settles into, which `check` names.
    let about = |body: &str| {
        warned
            .iter()
            .any(|e| e.contains(&format!("body `{body}`")) && e.contains("lattice"))
    };
    assert!(!about("paddle"), "{warned:?}");
    assert!(about("box"), "no lattice warning for the box: {warned:?}");
    let worst = early_compression(&mut w);
    assert!(worst < 0.01, "largest compression {worst}");
}

#[test]
fn moving_bodies_on_the_hexagonal_lattice_start_without_compressing_the_fluid() {
    // The same flume on the planar hexagonal lattice, whose rows meet a fixed wall a quarter
    // spacing off: a moving body's particles lie on a lattice of their own, so the fluid keeps
    // half a spacing from its faces and the body no particle shallower than that. With the
    // quarter spacing the fluid started 13.9 % compressed; with the half spacing but particles
    // on the body's faces (every other hexagonal row begins on a face), 5.1 % (2026-12-01).
    let (path, src) = odd_flume("lattice: Hexagonal,");
    let m = vcsim::parse_str(&path, &src).expect("parses");
    let mut w = vcsim::build_world(&m).expect("builds");
    let worst = early_compression(&mut w);
    assert!(worst < 0.01, "largest compression {worst}");
}

#[test]
fn a_standing_wave_starts_with_linear_theorys_energy_and_bad_ones_are_refused() {
    // The shipped standing wave: its particles' kinetic energy is the wave's, ρ g a² L / 4 per
    // metre (0.981 J), to the lattice's quadrature (the mid-point rule over 40 × 20 cells).
    let path = "models/standing_wave_2d.ron";
    let src = std::fs::read_to_string(path).expect("model");
    let w = world(&src);
    let (ke, _) = w.fluid.as_ref().unwrap().energies(&w.gravity);
    let expected = 1000.0 * G * 0.02 * 0.02 * 1.0 / 4.0;
    assert!((ke / expected - 1.0).abs() < 0.02, "{ke} J vs {expected} J");
    // Nonsense is refused where it is written, before anything is built.
    let field = "velocity: StandingWave(amplitude: 0.02, wavelength: 2.0, depth: 0.5)";
    let cases = [
        ("amplitude: 0.02", "amplitude: NaN", "amplitude"),
        ("wavelength: 2.0", "wavelength: 1e308", "wavelength"),
        ("depth: 0.5", "depth: -0.5", "depth"),
        ("amplitude: 0.02", "amplitude: 1e300", "amplitude"),
        ("amplitude: 0.02", "amplitude: 0.6", "amplitude"),
        ("depth: 0.5", "depth: 1e308", "depth"),
        ("depth: 0.5", "depth: 0.5, origin: (1e308, 0)", "origin"),
    ];
    for (from, to, name) in cases {
        let bad = src.replace(field, &field.replace(from, to));
        assert_ne!(bad, src);
        let err = match vcsim::parse_str(std::path::Path::new(path), &bad) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted {to}"),
        };
        assert!(err.contains(&format!("field `{name}`")), "{to}: {err}");
    }
    // Without gravity a standing wave has no frequency.
    let bad = src.replace("gravity: (0, -9.81)", "gravity: (0, 0)");
    let err = vcsim::parse_str(std::path::Path::new(path), &bad)
        .map(|_| ())
        .expect_err("a standing wave without gravity was accepted")
        .to_string();
    assert!(
        err.contains("field `velocity`") && err.contains("gravity"),
        "{err}"
    );
}

/// The same flumes with ISPH (issue 53, item 1, "for each fluid method"; every other setting
/// as above). Not met either (`cargo test --release --test waves -- --ignored --nocapture
/// ..._isph`, 293 s on two cores, 2026-11-29): incident height −27.8 % (T = 0.8 s), −21.7 %
/// (1.2 s), −10.3 % (2.0 s); reflection 0.098, 0.024, 0.054 (the reflection target holds, the
/// deep-water wave at its edge). Again on 2026-12-02, after ISPH's free-surface pressure came
/// from the lattice (545 s beside another run): −27.9 / −14.5 / −11.5 %, R 0.081 / 0.043 /
/// 0.033. With `smoothing: 2.0`, which ISPH's surface holds since then (a scratch copy of this
/// test, 891 s beside it): −31.3 / −8.7 / −1.1 %, R 0.042 / 0.016 / 0.002 — the long wave
/// within the target. That evening, with one wall normal per particle where a wall's normals
/// differ (495 s, alone): −28.1 / −16.5 / −7.6 %, R 0.028 / 0.064 / 0.025.
#[test]
#[ignore = "issue 53's wave targets are not met at this resolution (see the doc comment)"]
fn a_piston_makes_the_wave_linear_theory_asks_for_and_the_zone_absorbs_it_isph() {
    check("Isph()", "", &[0.8, 1.2, 2.0], 0.05, 0.1);
}

/// The same flumes with WCSPH (issue 53, item 1; every other setting as above). Not met
/// (`cargo test --release --test waves -- --ignored --nocapture ..._wcsph`, 977 s on two cores,
/// 2026-11-29): incident height −15.4 % (T = 0.8 s), −10.7 % (1.2 s), −10.7 % (2.0 s);
/// reflection 0.041, 0.047, 0.033 — the tallest waves of the three methods here.
#[test]
#[ignore = "issue 53's wave targets are not met at this resolution (see the doc comment)"]
fn a_piston_makes_the_wave_linear_theory_asks_for_and_the_zone_absorbs_it_wcsph() {
    check("Wcsph()", "", &[0.8, 1.2, 2.0], 0.05, 0.1);
}

/// The constraint method's flumes with smooth walls (`walls: Smooth`: the floor and the far
/// wall without their boundary particles' corrugation; the paddle keeps its particles) and the
/// wider kernel (h = 2.0 l) that frees the loaded bulk (the fluid chapter). Nearer, not met
/// (`cargo test --release --test waves -- --ignored --nocapture ..._smooth_walls`, 495 s on two
/// cores, 2026-11-30): incident height −9.3 % (T = 0.8 s), −7.6 % (1.2 s), −3.9 % (2.0 s);
/// reflection 0.072, 0.036, 0.016. With smooth walls at h = 1.3 l: −18.9 / −15.9 / −13.1 %
/// (R 0.038 / 0.053 / 0.043); particle walls at 2.0 l: −20.2 / −14.0 / −15.1 %, at 1.3 l the
/// constraint test above. A smooth piston (a scratch build, `wip/smooth-movers`) took the
/// 0.8 s wave to −17.6 %: the paddle keeps its particles. The deep-water wave (T = 0.8 s) with
/// other settings: h = 2.5 l −10.1 %; 30 PGS sweeps −7.2 % (R 0.014); 100 sweeps −11.8 % — a
/// scatter of a few per cent, no trend towards 5 % at 1.6 spacings of wave height. At half the
/// spacing (0.0125 m, `SPACING` halved locally; 233 s, 665 s and 2 065 s on two cores) the
/// three waves are −5.2 / −5.1 / −3.1 % (R 0.009 / 0.006 / 0.008): what is left is resolution.
#[test]
#[ignore = "issue 53's wave targets are not met at this resolution (see the doc comment)"]
fn a_piston_makes_the_wave_linear_theory_asks_for_and_the_zone_absorbs_it_smooth_walls() {
    check(
        "Constraint(), walls: Smooth, smoothing: 2.0",
        "solver: Pgs(max_iterations: 10),",
        &[0.8, 1.2, 2.0],
        0.05,
        0.1,
    );
}

/// The first mode of the shipped standing wave (`stabilisation: 0`) to 3.5 s with `walls`:
/// (period in s from the upward crossings of the gauges' half difference, fraction of the
/// height lost per period from the log-linear fit of its crests and troughs).
fn standing_wave(walls: &str) -> (f64, f64) {
    let src = std::fs::read_to_string("models/standing_wave_2d.ron").expect("model");
    let src = src
        .replace("time: (end: 12.0)", "time: (end: 3.5)")
        .replace(
            "shifting: 0,",
            &format!("shifting: 0, stabilisation: 0, walls: {walls},"),
        );
    let mut w = world(&src);
    let gauges = [0.05, 0.95].map(|x| vcsim::math::Vec3::new(x, 0.0, 0.0));
    let mut s = Vec::new();
    run_until(&mut w, 3.5, |w| {
        let f = w.fluid.as_ref().expect("fluid");
        let h = gauges.map(|p| {
            f.surface_height(&p, &w.gravity)
                .expect("water at the gauge")
        });
        s.push((w.time, 0.5 * (h[0] - h[1])));
    });
    let (up, _) = vcsim::study::oscillation::oscillation(&s);
    assert!(up.len() >= 3, "{walls}: {} upward crossings", up.len());
    let period = (up[up.len() - 1] - up[0]) / (up.len() - 1) as f64;
    // Crests and troughs: the largest |value| between successive crossings of the mean.
    let mean = s.iter().map(|p| p.1).sum::<f64>() / s.len() as f64;
    let mut peaks = Vec::new();
    let mut cur: f64 = 0.0;
    for p in s.windows(2) {
        let (a, b) = (p[0].1 - mean, p[1].1 - mean);
        cur = cur.max(b.abs());
        if a.signum() != b.signum() && cur > 0.0 {
            peaks.push(cur);
            cur = 0.0;
        }
    }
    // Two extrema per period: the loss per half period, squared.
    let half = vcsim::study::oscillation::loss_per_period(&peaks[1..]);
    (period, 1.0 - (1.0 - half).powi(2))
}

/// Smooth walls (`walls: Smooth`) let the standing wave swing at linear theory's period
/// (1.182 s; within 1 %, where the boundary particles' corrugated walls, which hold the sliding
/// water back, make it more than 2 % fast) and keep more of its height (issue 53; the book's
/// waves page).
#[test]
fn smooth_walls_keep_the_standing_wave_on_linear_theory() {
    let (tp, lp) = standing_wave("Particles");
    let (ts, ls) = standing_wave("Smooth");
    println!("particle walls: period {tp:.4} s, loss {lp:.3} per period; smooth walls: {ts:.4} s, {ls:.3}");
    let theory = 1.182;
    assert!(
        (ts / theory - 1.0).abs() < 0.01,
        "smooth walls: period {ts} s"
    );
    // Measured 2026-11-30: particles 1.1398 s and 26.9 % per period, smooth 1.1748 s and 19.6 %.
    assert!(
        (tp / theory - 1.0).abs() > 0.02,
        "particle walls: period {tp} s"
    );
    assert!(
        ls < 0.85 * lp,
        "smooth walls lose {ls} per period, particles {lp}"
    );
}

/// `walls: Smooth` takes the static, axis-aligned cuboids' boundary particles away (a rotated
/// one and every moving body keep theirs), and is refused where it is not built: with WCSPH or
/// ISPH, and on the hexagonal lattice — at the field, before anything runs.
#[test]
fn smooth_walls_replace_the_boxes_particles_and_are_refused_where_not_built() {
    let src = std::fs::read_to_string("models/standing_wave_2d.ron").expect("model");
    let smooth = src.replace("shifting: 0,", "shifting: 0, walls: Smooth,");
    let w = world(&smooth);
    let f = w.fluid.as_ref().expect("fluid");
    assert!(
        f.boundary.is_empty(),
        "{} boundary particles",
        f.boundary.len()
    );
    assert_eq!(f.smooth.boxes().len(), 3);
    // A tilted floor keeps its particles.
    let tilted = smooth.replace(
        "position: (0.5, -0.05)),",
        "position: (0.5, -0.05), rotation: Deg(2)),",
    );
    assert_ne!(tilted, smooth);
    let w = world(&tilted);
    let f = w.fluid.as_ref().expect("fluid");
    assert!(!f.boundary.is_empty());
    assert_eq!(f.smooth.boxes().len(), 2);
    let path = std::path::Path::new("models/standing_wave_2d.ron");
    for (from, to) in [
        ("walls: Smooth,", "walls: Smooth, method: Wcsph(),"),
        ("walls: Smooth,", "walls: Smooth, method: Isph(),"),
        ("walls: Smooth,", "walls: Smooth, lattice: Hexagonal,"),
        ("walls: Smooth,", "walls: Slippery,"),
    ] {
        let bad = smooth.replace(from, to);
        let err = vcsim::parse_str(path, &bad)
            .map(|_| ())
            .expect_err(to)
            .to_string();
        assert!(err.contains("walls"), "{to}: {err}");
    }
}
