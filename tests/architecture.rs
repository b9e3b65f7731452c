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
fn a_methods_variants_are_named_outside_its_folder_in_at_most_two_files() {
    // Fluid methods, contact resolvers and solvers are chosen by an enum of the model (the
    // RON form); the pipeline calls trait objects and never asks which one it has. Each
    // enum's variants are named in its own folder and in at most two files outside it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (form, home) in [
        ("FluidMethodChoice::", "fluid/choice.rs"),
        ("ResolverChoice::", "impulse/choice.rs"),
        ("SolverChoice::", "solver/mod.rs"),
    ] {
        assert!(
            root.join(home).is_file(),
            "src/{home}, where `{form}` is defined, is missing: update this test"
        );
        let all = mentions(form);
        assert!(
            all.iter().any(|(f, _)| f == home),
            "`{form}` is not matched in src/{home}: update this test"
        );
        let folder = &home[..home.find('/').unwrap() + 1];
        let mut away: Vec<String> = all
            .into_iter()
            .filter(|(f, _)| !f.starts_with(folder))
            .map(|(f, _)| f)
            .collect();
        away.dedup();
        assert!(
            away.len() <= 2,
            "`{form}` named in {} files outside src/{folder}: a decision made in many places\n{}",
            away.len(),
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
fn no_function_in_src_is_over_100_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut long = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        for (n, name) in long_functions(&std::fs::read_to_string(&f).unwrap(), 100) {
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

/// The stage of each module of `src/model/` in the chain schema → validate → expand → build
/// → warnings, with `load` (which reads a file and runs the chain) last. Utilities that every
/// stage may use (errors, the span map, making parry shapes) count as the schema's stage.
fn model_stage(module: &str) -> Option<usize> {
    Some(match module {
        "schema" | "values" | "shape_defs" | "fluid_defs" | "motion" | "periodic"
        | "array_defs" | "beam_defs" | "probe_defs" | "error" | "spans" | "shapes" | "hints" => 0,
        "validate" => 1,
        "expand" => 2,
        "build" => 3,
        "warnings" | "resolution" => 4,
        "load" => 5,
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
        "a stage imports a later one (schema → validate → expand → build → warnings → load):\n{}",
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

/// The module path of each file under `src/` (`fluid::isph::ppe` for `fluid/isph/ppe.rs`,
/// `fluid` for `fluid/mod.rs`, `` for `lib.rs`), the binary's `main.rs` left out.
fn module_files() -> std::collections::BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut out = std::collections::BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        if rel == "main.rs" {
            continue;
        }
        let mut parts: Vec<&str> = rel.trim_end_matches(".rs").split('/').collect();
        if matches!(parts.last(), Some(&"mod") | Some(&"lib")) {
            parts.pop();
        }
        out.insert(parts.join("::"), rel);
    }
    out
}

/// A file's code without comments and without its `#[cfg(test)]` module (tests may reach
/// anywhere; the rule is about the library's own structure).
fn library_code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The paths a `use` tree names: `a::{b, c::{d, e as f}}` gives `a::b`, `a::c::d`, `a::c::e`.
fn use_paths(tree: &str) -> Vec<Vec<String>> {
    fn walk(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if tree.is_empty() {
            return;
        }
        let Some(open) = tree.find('{') else {
            let mut p = prefix.to_vec();
            let head = tree.split(" as ").next().unwrap_or(tree);
            p.extend(head.split("::").map(|s| s.trim().to_string()));
            out.push(p);
            return;
        };
        let mut p = prefix.to_vec();
        p.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
        let inner = &tree[open + 1..close];
        let (mut depth, mut start) = (0, 0);
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    walk(&p, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        walk(&p, &inner[start..], out);
    }
    let mut out = Vec::new();
    walk(&[], tree, &mut out);
    out
}

/// Each `use` statement's tree in `code` (the text between `use` and `;`).
fn use_trees(code: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(k) = rest.find("use ") {
        let line_start = rest[..k].rfind('\n').map_or(0, |n| n + 1);
        let lead = rest[line_start..k].trim();
        let public = lead.starts_with("pub");
        let tail = &rest[k + 4..];
        // A statement: `use` first on its line, or after a visibility.
        if !(lead.is_empty() || public && lead.ends_with([')', 'b'])) {
            rest = tail;
            continue;
        }
        let Some(end) = tail.find(';') else { break };
        out.push((public, &tail[..end]));
        rest = &tail[end..];
    }
    out
}

/// Every path of the form `a::b::c` in `code` (identifiers joined by `::`).
fn code_paths(code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        if !ident(bytes[k]) || (k > 0 && (ident(bytes[k - 1]) || bytes[k - 1] == b':')) {
            k += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = k;
        loop {
            let s = j;
            while j < bytes.len() && ident(bytes[j]) {
                j += 1;
            }
            segs.push(code[s..j].to_string());
            if code[j..].starts_with("::")
                && code[j + 2..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                j += 2;
            } else {
                break;
            }
        }
        if segs.len() > 1 {
            out.push(segs);
        }
        k = j.max(k + 1);
    }
    out
}

/// The module tree of `src/` with its re-exports (module -> name -> the path re-exported).
struct Tree<'a> {
    files: &'a std::collections::BTreeMap<String, String>,
    reexports:
        &'a std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>,
}

impl Tree<'_> {
    /// The absolute module path of `p` as written in module `m` (`crate::`, `self::`,
    /// `super::`, or a child module's name); `None` for another crate's path.
    fn absolute(&self, m: &str, p: &[String]) -> Option<Vec<String>> {
        let base: Vec<String> = if m.is_empty() {
            Vec::new()
        } else {
            m.split("::").map(String::from).collect()
        };
        match p.first().map(String::as_str) {
            Some("crate") => Some(p[1..].to_vec()),
            Some("self") => Some([base, p[1..].to_vec()].concat()),
            Some("super") => {
                let ups = p.iter().take_while(|s| *s == "super").count();
                let keep = base.len().checked_sub(ups)?;
                Some([base[..keep].to_vec(), p[ups..].to_vec()].concat())
            }
            Some(first) => {
                let mut child = base.clone();
                child.push(first.to_string());
                self.files
                    .contains_key(&child.join("::"))
                    .then(|| [base, p.to_vec()].concat())
            }
            None => None,
        }
    }

    /// The file (module) that defines what `p`, written in module `m`, names: the longest
    /// module prefix of the path, following a re-export of the next name.
    fn resolve(&self, m: &str, p: &[String], depth: usize) -> Option<String> {
        let a = self.absolute(m, p)?;
        for k in (0..=a.len()).rev() {
            let module = a[..k].join("::");
            if !self.files.contains_key(&module) {
                continue;
            }
            if let (Some(name), true) = (a.get(k), depth < 8) {
                if let Some(target) = self.reexports.get(&module).and_then(|r| r.get(name)) {
                    if let Some(r) = self.resolve(&module, target, depth + 1) {
                        return Some(r);
                    }
                }
            }
            return Some(module);
        }
        None
    }
}

/// The file-level import graph of `src/`: an edge from a file to every other file whose
/// items it names (through `use`, paths in code and `pub use` re-exports, which are followed
/// to the file that defines the item). A module's own `mod.rs` naming its descendants is the
/// module tree, not an import, and is left out.
fn import_graph() -> (
    std::collections::BTreeMap<String, String>,
    std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) {
    use std::collections::{BTreeMap, BTreeSet};
    let files = module_files();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let code: BTreeMap<String, String> = files
        .iter()
        .map(|(m, rel)| {
            let text = std::fs::read_to_string(root.join(rel))
                .unwrap_or_else(|e| panic!("src/{rel} cannot be read: {e}"));
            (m.clone(), library_code(&text))
        })
        .collect();
    // Re-exports: module -> name -> the path it re-exports.
    let mut reexports: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (m, c) in &code {
        for (public, tree) in use_trees(c) {
            if !public {
                continue;
            }
            for p in use_paths(tree) {
                let name = p.last().cloned().unwrap_or_default();
                if name != "self" && name != "*" {
                    reexports.entry(m.clone()).or_default().insert(name, p);
                }
            }
        }
    }
    let tree = Tree {
        files: &files,
        reexports: &reexports,
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, c) in &code {
        let mut paths: Vec<Vec<String>> = use_trees(c)
            .into_iter()
            .flat_map(|(_, t)| use_paths(t))
            .collect();
        paths.extend(code_paths(c));
        let set = edges.entry(m.clone()).or_default();
        for p in paths {
            let Some(target) = tree.resolve(m, &p, 0) else {
                continue;
            };
            let own_subtree = m.is_empty() || target.starts_with(&format!("{m}::"));
            if target != *m && !own_subtree {
                set.insert(target);
            }
        }
    }
    (files, edges)
}

/// The import circles of a graph: its strongly connected components of more than one node.
fn circles(
    edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iterative.
    use std::collections::BTreeMap;
    let nodes: Vec<&String> = edges.keys().collect();
    let id: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges[*n]
                .iter()
                .filter_map(|t| id.get(t).copied())
                .collect()
        })
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut out) = (Vec::new(), 0, Vec::new());
    for s in 0..n {
        if index[s] != usize::MAX {
            continue;
        }
        let mut work = vec![(s, 0usize)];
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if *e == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = adj[v].get(*e) {
                *e += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(nodes[w].clone());
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    out.push(comp);
                }
            }
        }
    }
    out
}

#[test]
fn no_import_circle_between_files_of_src() {
    let (files, edges) = import_graph();
    assert!(files.len() > 100, "only {} source files found", files.len());
    // The graph sees real imports: the pipeline names the solver, the model's build names
    // the fluid's sampling, and a child names its parent's items.
    for (from, to) in [
        ("pipeline", "solver"),
        ("model::build::fluid", "fluid::sampling"),
        ("fluid::isph::ppe", "fluid::isph::pockets"),
    ] {
        assert!(
            edges.get(from).is_some_and(|e| e.contains(to)),
            "the import graph misses {from} -> {to}: {:?}",
            edges.get(from)
        );
    }
    let found: Vec<String> = circles(&edges)
        .into_iter()
        .map(|c| {
            c.iter()
                .map(|m| format!("src/{}", files[m]))
                .collect::<Vec<_>>()
                .join(" <-> ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "import circles between files (move what both need into one of them, or a third):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_rule_finds_a_circle_and_reads_use_trees() {
    use std::collections::{BTreeMap, BTreeSet};
    let g = |pairs: &[(&str, &str)]| {
        let mut e: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            e.entry(a.to_string()).or_default().insert(b.to_string());
            e.entry(b.to_string()).or_default();
        }
        e
    };
    assert_eq!(
        circles(&g(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    assert!(circles(&g(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(
        use_paths("super::{ppe::{self, DIRICHLET}, Fluid as F}"),
        vec![
            vec!["super".to_string(), "ppe".into(), "self".into()],
            vec!["super".into(), "ppe".into(), "DIRICHLET".into()],
            vec!["super".into(), "Fluid".into()],
        ]
    );
    assert_eq!(
        code_paths("let x = crate::fluid::Fluid::new(a::b);"),
        vec![
            vec![
                "crate".to_string(),
                "fluid".into(),
                "Fluid".into(),
                "new".into()
            ],
            vec!["a".into(), "b".into()],
        ]
    );
}
