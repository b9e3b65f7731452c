//! The layering rules of the book's architecture chapter, checked on the source: the core does
//! not know the file format, the files or the command line, and the solver sees only rows.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Files under `src/<module>` that mention `crate::<forbidden>` outside comments.
fn offenders(module: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let dir = root.join(module);
    if dir.is_dir() {
        sources(&dir, &mut files);
    } else {
        files.push(root.join(format!("{module}.rs")));
    }
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for m in forbidden {
                if code.contains(&format!("crate::{m}::")) || code.contains(&format!("crate::{m};"))
                {
                    bad.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    bad
}

#[test]
fn the_core_does_not_import_model_io_or_cli() {
    let mut bad = Vec::new();
    for m in [
        "geometry",
        "body",
        "solver",
        "constraints",
        "fluid",
        "pipeline",
    ] {
        bad.extend(offenders(m, &["model", "io", "cli"]));
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn the_solver_sees_only_rows() {
    let bad = offenders("solver", &["body", "fluid", "geometry", "constraints"]);
    assert!(
        bad.is_empty(),
        "the solver imports physics:\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 600).then(|| format!("{}: {n} lines", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files:\n{}", long.join("\n"));
}
