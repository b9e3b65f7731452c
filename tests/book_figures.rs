//! The deterministic figures the book quotes from a run match a fresh run of that model: the
//! pile's summary in "Getting started" (mean and largest iteration count, largest residual,
//! steps at the iteration limit) and the same figures in the pile example's text; the stack's
//! iteration counts. Wall times are not quoted from runs.

mod common;

use std::path::Path;
use std::process::Command;

fn line_after<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no line starting with `{key}` in:\n{text}"))
}

/// The number that follows the first `marker` in `line` (up to a space or a comma).
fn first_number<T: std::str::FromStr>(line: &str, marker: &str) -> T {
    let (_, rest) = line
        .split_once(marker)
        .unwrap_or_else(|| panic!("no `{marker}` in `{line}`"));
    let word = rest.split([' ', ',']).next().unwrap_or_default();
    word.parse()
        .unwrap_or_else(|_| panic!("`{word}` after `{marker}` in `{line}` is not a number"))
}

#[test]
fn the_pile_figures_in_the_book_match_a_fresh_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let summary = summary_of("pile_3d_apgd.ron");
    let book = std::fs::read_to_string(root.join("book/src/getting-started.md")).unwrap();
    for key in ["iterations ", "residual ", "steps ", "bodies ", "unknowns "] {
        assert_eq!(
            line_after(&book, key),
            line_after(&summary, key),
            "getting-started.md quotes another `{key}` line than a fresh run prints"
        );
    }
    // The example page rounds: mean to one decimal, residual to two digits.
    // `iterations       mean 33.43, max 300`
    let it = line_after(&summary, "iterations ");
    let mean: f64 = first_number(it, "mean ");
    // `residual         max 4.844e-4 m/s; 18 steps stopped at the iteration limit`
    let res = line_after(&summary, "residual ");
    let max_res: f64 = first_number(res, "max ");
    let capped: u64 = first_number(res, "; ");
    let example = std::fs::read_to_string(root.join("book/src/examples/pile.md"))
        .unwrap()
        .replace('\n', " ");
    for quoted in [
        format!("mean {mean:.1} iterations"),
        format!("{capped} steps reach the cap"),
        format!("largest residual {max_res:.1e} m/s"),
    ] {
        assert!(
            example.contains(&quoted),
            "examples/pile.md should say `{quoted}`"
        );
    }
}

/// A fresh `vcsim run --quiet` of a shipped model, its text changed by `edit` first: the run
/// summary it printed and its `probes.csv` (output in a temporary folder, removed).
fn fresh_run(model: &str, edit: impl Fn(String) -> String) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "vcsim-book-{}-{}-{run}",
        model.trim_end_matches(".ron"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(root.join("models").join(model)).unwrap();
    let path = dir.join(model);
    std::fs::write(&path, edit(text)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet"])
        .arg(&path)
        .arg("--out")
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{model}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let probes = std::fs::read_to_string(dir.join("run/probes.csv")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    (String::from_utf8_lossy(&out.stdout).into_owned(), probes)
}

/// The run summary of a fresh run of a shipped model.
fn summary_of(model: &str) -> String {
    fresh_run(model, |t| t).0
}

#[test]
fn the_stack_iteration_counts_in_the_book_match_fresh_runs() {
    for (model, anchor) in [
        ("stack_pgs.ron", "| PGS (500 sweeps max"),
        ("stack_apgd.ron", "| APGD (1000 max"),
    ] {
        let summary = summary_of(model);
        let mean: f64 = first_number(line_after(&summary, "iterations "), "mean ");
        let res = line_after(&summary, "residual ");
        let capped: u64 = first_number(res, "; ");
        let steps = line_after(&summary, "steps ")
            .split_whitespace()
            .nth(1)
            .unwrap();
        common::quotes::assert_quotes(
            "examples/stack.md",
            anchor,
            &[format!("| {mean:.1} | {capped} of {steps} |")],
        );
    }
}

#[test]
fn the_unscaled_stack_iteration_count_in_the_book_matches_a_fresh_run() {
    let (summary, _) = fresh_run("stack_apgd.ron", |t| {
        t.replace(
            "tolerance: 1e-10)",
            "tolerance: 1e-10, diagonal_scaling: false)",
        )
    });
    let mean: f64 = first_number(line_after(&summary, "iterations "), "mean ");
    common::quotes::assert_quotes(
        "examples/stack.md",
        "diagonal_scaling: false)` needs",
        &[format!("needs a mean of {mean:.1} iterations")],
    );
}

/// The probe series of a fresh run of a shipped model: the column named `name` as (t, value)
/// pairs, for each name in `names`.
fn probes_of(model: &str, names: &[&str]) -> Vec<Vec<(f64, f64)>> {
    let (_, text) = fresh_run(model, |t| t);
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    names
        .iter()
        .map(|n| {
            let k = head
                .iter()
                .position(|h| h == n)
                .unwrap_or_else(|| panic!("{model}: no probe column {n} in {head:?}"));
            rows.iter().map(|r| (r[0], r[k])).collect()
        })
        .collect()
}

/// The value of a series at time `t` (a sample there).
fn at(series: &[(f64, f64)], t: f64) -> f64 {
    series
        .iter()
        .find(|s| (s.0 - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no sample at t = {t}"))
        .1
}

#[test]
fn the_incline_speeds_in_the_book_match_a_fresh_run() {
    let p = probes_of(
        "incline_pgs.ron",
        &[
            "slider.vel.x",
            "slider.vel.y",
            "sticker.vel.x",
            "sticker.vel.y",
        ],
    );
    let slider = at(&p[0], 1.0).hypot(at(&p[1], 1.0));
    let sticker = at(&p[2], 1.0).hypot(at(&p[3], 1.0));
    let th = 30f64.to_radians();
    let a = 9.81 * (th.sin() - 0.3 * th.cos());
    common::quotes::assert_quotes(
        "examples/incline.md",
        "At t = 1 s the slider's speed",
        &[format!(
            "the slider's speed is {slider:.4} m/s, the sticker's {} m/s",
            common::quotes::sci(sticker, 1)
        )],
    );
    common::quotes::assert_quotes(
        "examples/incline.md",
        "acceleration \\\\(g (\\sin 30^\\circ − 0.3",
        &[format!("= {a:.4}\\ \\mathrm{{m/s^2}}")],
    );
}

#[test]
fn the_slider_and_spring_figures_in_the_book_match_fresh_runs() {
    let p = probes_of(
        "slider_prismatic_apgd.ron",
        &["slider.vel.x", "slider.vel.y", "slider.vel.z"],
    );
    let v = p.iter().map(|s| at(s, 0.5).powi(2)).sum::<f64>().sqrt();
    common::quotes::assert_quotes(
        "examples/joints-misc.md",
        "**Prismatic joint and kinematic body**",
        &[format!("(measured: speed {v:.4} m/s at 0.5 s)")],
    );
    // The ball's height: mean time between successive maxima.
    let y = &probes_of("spring_mass_compliant_pgs.ron", &["ball.pos.z"])[0];
    let peaks: Vec<f64> = (1..y.len() - 1)
        .filter(|&i| y[i].1 > y[i - 1].1 && y[i].1 >= y[i + 1].1)
        .map(|i| y[i].0)
        .collect();
    assert!(peaks.len() >= 3, "the ball oscillates: maxima at {peaks:?}");
    let period = (peaks[peaks.len() - 1] - peaks[0]) / (peaks.len() - 1) as f64;
    common::quotes::assert_quotes(
        "examples/joints-misc.md",
        "**Compliant fixed joint**",
        &[format!("(measured: {period:.2} s between maxima")],
    );
}
