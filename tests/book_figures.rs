//! The deterministic figures the book quotes from a run match a fresh run of that model: the
//! pile's summary in "Getting started" (mean and largest iteration count, largest residual,
//! steps at the iteration limit) and the same figures in the pile example's text. Wall times
//! are quoted as measured and are not checked.

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
    let dir = std::env::temp_dir().join(format!("vcsim-book-pile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet"])
        .arg(root.join("models/pile_3d_apgd.ron"))
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let summary = String::from_utf8_lossy(&out.stdout);
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
    let _ = std::fs::remove_dir_all(&dir);
}
