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

/// Files tracked by git (paths relative to the repository), or `None` outside a checkout.
fn tracked_files() -> Option<Vec<String>> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(
        text.split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn no_tracked_file_is_over_1_mib_outside_the_books_images_and_data() {
    let Some(files) = tracked_files() else {
        eprintln!("not a git checkout: nothing to check");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let heavy: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with("book/src/images/") && !f.starts_with("data/"))
        .filter_map(|f| {
            let len = std::fs::metadata(root.join(f)).ok()?.len();
            (len > 1 << 20).then(|| format!("{f}: {len} bytes"))
        })
        .collect();
    assert!(
        heavy.is_empty(),
        "downloaded packages, binaries and run output do not belong in the repository:\n{}",
        heavy.join("\n")
    );
}

/// `(file, line)` of every mention of `needle` in code (not comments) under `src/`.
fn mentions(needle: &str) -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            if line.split("//").next().unwrap_or("").contains(needle) {
                out.push((rel.clone(), n + 1));
            }
        }
    }
    out
}

#[test]
fn a_methods_model_form_is_matched_only_in_its_own_file() {
    // The core's fluid methods and contact resolvers are trait objects (never matched); their
    // model forms (the RON enums) are matched where they are defined and nowhere else.
    // Its own file, plus at most the two places named here.
    for (form, home, also) in [
        (
            "FluidMethodDef::",
            "model/methods.rs",
            ["model/validate/fluid.rs"],
        ),
        ("ContactResolverDef::", "model/methods.rs", [""]),
    ] {
        let away: Vec<String> = mentions(form)
            .into_iter()
            .filter(|(f, _)| f != home && !also.contains(&f.as_str()))
            .map(|(f, n)| format!("src/{f}:{n}"))
            .collect();
        assert!(
            away.is_empty(),
            "`{form}` matched outside {home}: a decision made in two places\n{}",
            away.join("\n")
        );
    }
    for variant in ["FluidMethod::", "ContactResolver::"] {
        let uses: Vec<String> = mentions(variant)
            .into_iter()
            .filter(|(f, _)| !f.starts_with("fluid/") && !f.starts_with("impulse/"))
            .map(|(f, n)| format!("src/{f}:{n}"))
            .collect();
        assert!(
            uses.is_empty(),
            "the pipeline asks which method it has:\n{}",
            uses.join("\n")
        );
    }
}

/// `(lines, name)` of every function in `text` whose body spans more than `limit` lines: a
/// line that opens `fn NAME` and the first line after it with the same indentation and `}`.
fn long_functions(text: &str, limit: usize) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let code = code
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ")
            .trim_start_matches("unsafe ");
        let Some(rest) = code.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with('}') {
            continue; // a one-line function
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // A declaration without a body (trait method) ends with `;` before any `{`.
        let Some(open) = (i..lines.len()).find(|&k| {
            let l = lines[k].trim_end();
            l.ends_with('{') || l.ends_with(';')
        }) else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open + 1..lines.len()).find(|&k| lines[k] == close) {
            if end - i + 1 > limit {
                out.push((end - i + 1, name));
            }
        }
    }
    out
}

#[test]
fn no_function_in_src_is_over_120_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut long = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        for (n, name) in long_functions(&std::fs::read_to_string(&f).unwrap(), 120) {
            long.push(format!("src/{rel}: `{name}` is {n} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "functions a reader cannot hold (split them):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_function_length_rule_finds_a_long_function() {
    let body = "    let x = 1;\n".repeat(130);
    let text = format!(
        "/// doc\npub fn big(\n    a: u32,\n) -> u32 {{\n{body}    x\n}}\n\nfn small() {{}}\n"
    );
    assert_eq!(long_functions(&text, 120), vec![(135, "big".to_string())]);
    assert!(long_functions(&text, 200).is_empty());
}

/// The stage of each module of `src/model/` in the chain schema → validate → build →
/// warnings, with `load` (which reads a file and runs the chain) last. Utilities that every
/// stage may use (errors, the span map, making parry shapes) count as the schema's stage.
fn model_stage(module: &str) -> Option<usize> {
    Some(match module {
        "schema" | "values" | "shape_defs" | "fluid_defs" | "motion" | "periodic" | "arrays"
        | "beams" | "probes" | "error" | "spans" | "shapes" | "hints" => 0,
        "validate" => 1,
        "build" => 2,
        "warnings" | "resolution" => 3,
        "load" => 4,
        _ => return None,
    })
}

/// The modules of `src/model/` that a line of code names: `crate::model::NAME`, and, from a
/// file whose `super` is `model`, `super::NAME` and `super::{NAME, ..}`.
fn model_modules_named(code: &str, super_is_model: bool) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (k, _) in code.match_indices("crate::model::") {
        out.push(ident(&code[k + "crate::model::".len()..]));
    }
    if super_is_model {
        for (k, _) in code.match_indices("super::") {
            let rest = &code[k + "super::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                out.extend(group.split(',').map(|s| ident(s.trim())));
            } else {
                out.push(ident(rest));
            }
        }
    }
    out
}

#[test]
fn no_model_file_imports_a_later_stage_of_the_chain() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        let (own, super_is_model) = match rel.components().count() {
            1 => (rel.file_stem().unwrap().to_str().unwrap().to_string(), true),
            // A file in a stage's folder: its `super` is the folder (for `mod.rs`, `model`).
            _ => (
                rel.components()
                    .next()
                    .unwrap()
                    .as_os_str()
                    .to_str()
                    .unwrap()
                    .to_string(),
                rel.file_name().unwrap() == "mod.rs",
            ),
        };
        let Some(stage) = model_stage(&own) else {
            continue; // mod.rs: the re-exports
        };
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for m in model_modules_named(code, super_is_model) {
                if model_stage(&m).is_some_and(|s| s > stage) {
                    bad.push(format!(
                        "src/model/{}:{}: {}",
                        rel.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "a stage imports a later one (schema → validate → build → warnings → load):\n{}",
        bad.join("\n")
    );
    // Every module of the folder has a stage (a new file must be placed in the chain).
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap();
        if rel.components().count() == 1 && rel.file_name().unwrap() != "mod.rs" {
            let m = rel.file_stem().unwrap().to_str().unwrap();
            assert!(
                model_stage(m).is_some(),
                "src/model/{m}.rs has no stage in the chain"
            );
        }
    }
}

#[test]
fn the_chain_rule_sees_an_import_of_a_later_stage() {
    assert_eq!(
        model_modules_named("use super::{build::build_world, schema::Model};", true),
        vec!["build", "schema"]
    );
    assert_eq!(
        model_modules_named("let x = crate::model::load::parse_str(p, s);", false),
        vec!["load"]
    );
    assert!(model_modules_named("use super::{at, item};", false).is_empty());
}
