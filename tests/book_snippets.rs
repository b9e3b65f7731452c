//! Every RON snippet of the book (` ```ron ` blocks) is loaded, so the guide cannot drift from
//! the schema: a whole `Model(..)` through the loader (validation included; `[ ... ]` stands
//! for a list written elsewhere and is filled with the context below), a `Study(..)` through
//! `vcsim check` beside copies of the model and data it names, and a fragment inside a model
//! that supplies what it leaves out: a body or a joint in a model's list, `method: ..` lines in
//! a fluid, other top-level fields in a model (each tried in 3D, then in 2D). A block that
//! `{{#include}}`s a file is checked as that file.

mod common;

use std::path::Path;

/// Names snippets may refer to: materials, bodies (`ball`, `base`, `arm`, `floor`) and a joint.
const MATERIALS: &str = r#"materials: [(name: "steel", density: 7800), (name: "grain", density: 2500), (name: "rubber", density: 1100)]"#;
fn bodies(planar: bool) -> String {
    let (he, z) = if planar {
        ("(0.1, 0.1)", "")
    } else {
        ("(0.1, 0.1, 0.1)", ", 0")
    };
    format!(
        r#"bodies: [(name: "ball", shape: Ball(radius: 0.1), position: (0, 1{z})), (name: "base", kind: Static, shape: Cuboid(half_extents: {he}), position: (3, 0{z})), (name: "arm", shape: Cuboid(half_extents: {he}), position: (3, 1{z})), (name: "floor", kind: Static, shape: Cuboid(half_extents: {he}), position: (-3, 0{z}))]"#
    )
}
const JOINTS: &str = r#"joints: [(name: "hinge", kind: Revolute(axis: (0, 0, 1)), body1: "base", body2: "arm", anchor: (3, 0.5, 0))]"#;
const TIME: &str = "time: (dt: 0.001, end: 0.01)";

fn scene(planar: bool) -> &'static str {
    if planar {
        "scene: (dimension: Two, gravity: (0, -9.81))"
    } else {
        "scene: (dimension: Three)"
    }
}

fn parses(text: &str) -> Result<(), String> {
    vcsim::parse_str(Path::new("snippet.ron"), text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Tries `make(planar)` in 3D, then in 2D; the errors of both when neither parses.
fn either(make: impl Fn(bool) -> String) -> Result<(), String> {
    parses(&make(false))
        .or_else(|e3| parses(&make(true)).map_err(|e2| format!("3D: {e3}\n2D: {e2}")))
}

/// The top-level keys a fragment writes (`name:` at the start of a line, outside brackets).
fn top_keys(text: &str) -> Vec<String> {
    let mut depth = 0i32;
    let mut keys = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        if depth == 0 {
            if let Some((k, _)) = code.trim_start().split_once(':') {
                if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !k.is_empty() {
                    keys.push(k.to_string());
                }
            }
        }
        for c in code.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
    }
    keys
}

fn check_snippet(text: &str) -> Result<(), String> {
    let t = text.trim().trim_end_matches(',');
    // What the block is, read past its leading comment lines (a whole model file has them).
    let code = t
        .lines()
        .skip_while(|l| l.trim_start().starts_with("//") || l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    if code.starts_with("Model(") {
        return either(|planar| {
            t.replace("bodies: [ ... ]", &bodies(planar))
                .replace("joints: [ ... ]", JOINTS)
        });
    }
    if code.starts_with("Study(") {
        return study(t);
    }
    if t.starts_with('(') && t[1..].trim_start().starts_with("name:") {
        let mats = MATERIALS;
        return either(|planar| {
            if t.contains("body1:") {
                format!(
                    "Model({TIME}, {}, {mats}, {}, joints: [{t}])",
                    scene(planar),
                    bodies(planar)
                )
            } else {
                format!("Model({TIME}, {}, {mats}, bodies: [{t}])", scene(planar))
            }
        });
    }
    let keys = top_keys(t);
    if !keys.is_empty() && keys.iter().all(|k| k == "method") {
        // One or more alternative `method: ..` lines or blocks: each inside a fluid.
        for m in t
            .split("\nmethod:")
            .map(|m| m.trim_start_matches("method:"))
        {
            let m = m.trim().trim_end_matches(',');
            let m = m
                .split("//")
                .next()
                .filter(|_| !m.contains('\n'))
                .unwrap_or(m)
                .trim()
                .trim_end_matches(',');
            either(|planar| {
                let region = if planar {
                    "Box(min: (0, 0), max: (0.2, 0.2))"
                } else {
                    "Box(min: (0, 0, 0), max: (0.2, 0.2, 0.2))"
                };
                format!(
                    "Model({TIME}, {}, fluid: (method: {m}, spacing: 0.05, regions: [{region}]))",
                    scene(planar)
                )
            })?;
        }
        return Ok(());
    }
    either(|planar| {
        let mut parts = vec![t.to_string()];
        let has = |k: &str| keys.iter().any(|x| x == k);
        if !has("time") {
            parts.push(TIME.into());
        }
        if !has("scene") {
            parts.push(scene(planar).into());
        }
        if !has("materials") {
            parts.push(MATERIALS.into());
        }
        if !has("bodies") {
            parts.push(bodies(planar));
        }
        format!("Model({})", parts.join(",\n"))
    })
}

/// A study snippet, checked by `vcsim check` in a folder laid out like the repository's
/// (`models/studies/`, `models/`, `data/`), with copies of what it names.
fn study(text: &str) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vcsim-snippet-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("models/studies")).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    for m in std::fs::read_dir(root.join("models")).unwrap() {
        let p = m.unwrap().path();
        if p.extension().is_some_and(|x| x == "ron") {
            std::fs::copy(&p, dir.join("models").join(p.file_name().unwrap())).unwrap();
        }
    }
    for d in std::fs::read_dir(root.join("data")).unwrap() {
        let p = d.unwrap().path();
        std::fs::copy(&p, dir.join("data").join(p.file_name().unwrap())).unwrap();
    }
    let file = dir.join("models/studies/snippet.ron");
    std::fs::write(&file, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn every_ron_snippet_of_the_book_loads() {
    let pages = common::book_pages();
    let (mut count, mut bad) = (0, Vec::new());
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let mut rest = text.as_str();
        while let Some(i) = rest.find("```ron\n") {
            let after = &rest[i + 7..];
            let end = after.find("```").expect("a closed block");
            count += 1;
            // A block that includes a file (mdBook's `{{#include path}}`, relative to the page)
            // is checked as that file's text.
            let block = match after[..end].trim().strip_prefix("{{#include ") {
                Some(r) => {
                    let path = page.parent().unwrap().join(r.trim_end_matches("}}").trim());
                    std::fs::read_to_string(&path)
                        .unwrap_or_else(|e| panic!("{}: {}: {e}", page.display(), path.display()))
                }
                None => after[..end].to_string(),
            };
            if let Err(e) = check_snippet(&block) {
                bad.push(format!("{}:\n{}\n{e}", page.display(), &after[..end]));
            }
            rest = &after[end + 3..];
        }
    }
    assert!(count >= 10, "only {count} snippets found");
    assert!(
        bad.is_empty(),
        "snippets that do not load:\n\n{}",
        bad.join("\n\n")
    );
}
