//! 003's fluid case (§4.3, after Liao et al. 2015): a water column released by a gate breaks
//! against a rubber plate clamped to the floor (`models/elastic_plate_2d_*.ron`). At twice the
//! shipped spacing (4 mm, 2 500 particles, one particle across the plate), with the constraint
//! method and with WCSPH: the water reaches the plate and bends its tip downstream within
//! 0.32 ± 0.05 s (003's first impact, with its gate), and the plate stays whole (its hinges
//! hold the elements together, the tip's displacement stays below the plate's length).

mod common;

use common::{quotes, run_until, world};
use vcsim::math::Vec3;

/// The first time (s) the tip of the plate moves more than 1 mm, its largest downstream
/// displacement (m) up to `end`, and the largest gap (m) at any hinge.
fn impact(model: &str, end: f64) -> (f64, f64, f64) {
    let path = format!("{}/models/{model}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(path)
        .unwrap()
        .replace("spacing: 0.002", "spacing: 0.004");
    let mut w = world(&src);
    let (n, ds) = (10, 0.009);
    let tip = w.body(&format!("plate.{}", n - 1)).unwrap();
    let start = Vec3::new(0.6, 0.09, 0.0);
    let (mut first, mut most, mut gap) = (f64::NAN, 0.0f64, 0.0f64);
    run_until(&mut w, end, |w| {
        let p = (w.bodies[tip].frame_pose() * nalgebra::Point3::new(0.5 * ds, 0.0, 0.0)).coords;
        let d = p - start;
        if first.is_nan() && d.norm() > 1e-3 {
            first = w.time;
        }
        most = most.max(d.x);
        for j in &w.joints {
            let (a, b) = j.anchors(&w.bodies);
            gap = gap.max((a - b).norm());
        }
    });
    (first, most, gap)
}

#[test]
fn a_breaking_water_column_bends_the_plate_at_the_first_impact_time() {
    let (mut firsts, mut worst_gap) = (Vec::new(), 0.0f64);
    for model in ["elastic_plate_2d_pgs.ron", "elastic_plate_2d_wcsph.ron"] {
        let (first, most, gap) = impact(model, 0.42);
        firsts.push(format!("{first:.3} s"));
        worst_gap = worst_gap.max(gap);
        eprintln!("{model}: first impact at {first:.3} s, tip {most:.4} m downstream, largest hinge gap {gap:.1e} m");
        assert!((first - 0.32).abs() <= 0.05, "first impact at {first} s");
        assert!(most > 0.01 && most < 0.09, "tip displaced {most} m");
        assert!(gap < 1e-3, "a hinge opened by {gap} m");
    }
    quotes::assert_quotes(
        "examples/beams.md",
        "`tests/beam_in_water.rs` checks it",
        &[format!(
            "comes at {} with the constraint method and {} with WCSPH",
            firsts[0], firsts[1]
        )],
    );
    quotes::assert_quotes(
        "validation.md",
        "water column against an elastic plate",
        &[format!(
            "| {}; gap ≤ {} m |",
            firsts.join(" / "),
            quotes::sci(worst_gap, 2)
        )],
    );
}
