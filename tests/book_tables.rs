//! The study tables the book includes (`book/src/generated/NAME.md`, written by
//! `book/generate.sh`) match a fresh run of the fast, deterministic studies: every cell but the
//! wall times, and the figures' notes (fitted orders). The slow studies' tables are checked by
//! rerunning `book/generate.sh` (their case results do not change between runs of one build;
//! wall times do).

use std::path::Path;
use std::process::Command;

/// The table without its comment line and without the columns whose header starts with
/// `wall` (machine-dependent): one string per line, cells trimmed.
fn comparable(text: &str) -> Vec<String> {
    let mut drop = Vec::new();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with("<!--")) {
        if !line.starts_with('|') {
            out.push(line.trim().to_string());
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        // The first table line is the header: it says which columns are wall times.
        if drop.is_empty() {
            drop = cells.iter().map(|c| c.starts_with("wall")).collect();
        }
        let kept: Vec<&str> = cells
            .iter()
            .zip(drop.iter().chain(std::iter::repeat(&false)))
            .filter(|(_, d)| !**d)
            .map(|(c, _)| *c)
            .collect();
        out.push(kept.join(" | "));
    }
    out.retain(|l| !l.is_empty());
    out
}

#[test]
fn the_fast_study_tables_in_the_book_match_fresh_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in ["beam_elements", "beam_period", "convergence_circular_patch"] {
        let out =
            std::env::temp_dir().join(format!("vcsim-book-table-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        let run = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .arg("study")
            .arg(root.join("models/studies").join(format!("{name}.ron")))
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let fresh = std::fs::read_to_string(out.join("table.md")).unwrap();
        let page = root.join("book/src/generated").join(format!("{name}.md"));
        let book = std::fs::read_to_string(&page).unwrap();
        assert_eq!(
            comparable(&book),
            comparable(&fresh),
            "{} differs from a fresh run of the study: run `book/generate.sh {name}`",
            page.display()
        );
        let _ = std::fs::remove_dir_all(&out);
    }
}
