//! The book is checked like code: every relative link and include of `book/src` points at a
//! file that exists, every shipped model and study is mentioned, and — where mdBook is
//! installed (CI installs it; `VCSIM_REQUIRE_MDBOOK=1` makes it required) — `mdbook build`
//! succeeds.

mod common;

use common::book_pages as pages;
use std::path::Path;

/// The targets of `](target)` links and `{{#include target}}` of a page, outside code blocks.
fn targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].trim().to_string());
            rest = &after[j..];
        }
        if let Some(i) = line.find("{{#include ") {
            let after = &line[i + 11..];
            if let Some(j) = after.find("}}") {
                out.push(after[..j].trim().split(':').next().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn every_link_and_include_of_the_book_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for t in targets(&text) {
            if t.contains("://") || t.starts_with('#') || t.starts_with("mailto:") || t.is_empty() {
                continue;
            }
            let file = t.split('#').next().unwrap();
            let path = page.parent().unwrap().join(file);
            checked += 1;
            if !path.exists() {
                broken.push(format!("{}: {t}", page.display()));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the parser right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Every shipped model and study is mentioned by its file name somewhere in the book.
#[test]
fn the_book_mentions_every_model_and_study() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let book: String = pages()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut missing = Vec::new();
    for dir in ["models", "models/studies"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if p.extension().is_some_and(|x| x == "ron") && !book.contains(&name) {
                missing.push(format!("{dir}/{name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the book does not mention:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_book_builds() {
    let required = std::env::var_os("VCSIM_REQUIRE_MDBOOK").is_some();
    let found = std::process::Command::new("mdbook")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            !required,
            "VCSIM_REQUIRE_MDBOOK is set and mdbook is not installed"
        );
        eprintln!("mdbook is not installed: the book's build is not checked here (CI checks it)");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dest = std::env::temp_dir().join(format!("vcsim-book-{}", std::process::id()));
    let out = std::process::Command::new("mdbook")
        .arg("build")
        .arg(root.join("book"))
        .arg("--dest-dir")
        .arg(&dest)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "mdbook build failed:\n{log}");
    // mdBook reports a missing include or a broken SUMMARY entry as an error or a warning.
    for bad in ["ERROR", "WARN"] {
        assert!(!log.contains(bad), "mdbook build reported problems:\n{log}");
    }
    let mangled = mangled_math(&dest);
    let _ = std::fs::remove_dir_all(&dest);
    assert!(
        mangled.is_empty(),
        "formulas that Markdown changed before MathJax sees them (escape `_`, `*`, `[` and a \\ \
         before punctuation in the page's source):\n{}",
        mangled.join("\n")
    );
}

/// MathJax reads the built page's text between `\(` and `\)` (`\[` and `\]`): a formula whose
/// `_` or `*` Markdown took for emphasis, or whose braces a backslash escape ate, arrives with
/// tags or unbalanced. Returns those formulas, by page.
fn mangled_math(dest: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    let mut formulas = 0;
    let mut stack = vec![dest.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".html") || name == "print.html" {
                continue;
            }
            let html = std::fs::read_to_string(&path).unwrap();
            for (open, close) in [("\\(", "\\)"), ("\\[", "\\]")] {
                let mut rest = html.as_str();
                while let Some(i) = rest.find(open) {
                    let after = &rest[i + 2..];
                    let Some(j) = after.find(close) else {
                        bad.push(format!("{name}: unclosed {open}"));
                        break;
                    };
                    let tex = &after[..j];
                    formulas += 1;
                    let depth = tex.chars().try_fold(0i32, |d, c| match c {
                        '{' => Some(d + 1),
                        '}' if d == 0 => None,
                        '}' => Some(d - 1),
                        _ => Some(d),
                    });
                    if tex.contains('<') || depth != Some(0) {
                        bad.push(format!("{name}: {tex}"));
                    }
                    rest = &after[j + 2..];
                }
            }
        }
    }
    assert!(formulas > 100, "the book's formulas were found: {formulas}");
    bad
}

/// Equations are written as mathematics (MathJax's `\\( .. \\)` in the page's source), not
/// as code spans: a code span with a summation, a gradient, an inequality, a root, an inverse,
/// a transpose or a square is a formula. Quoted messages and RON (with `: `) are code.
#[test]
fn formulas_are_mathematics_not_code() {
    let mut found = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, code, span) in spans(&text) {
            let formula =
                code && !span.contains(": ") && span.chars().any(|c| "Σ∇≥≤⁻ᵀ√²".contains(c));
            if formula {
                found.push(format!("{}:{}: `{span}`", page.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "formulas written as code (write them as \\\\( .. \\\\)):\n{}",
        found.join("\n")
    );
}

/// A formula opened with a single backslash, `\(` in the page's source, reaches the built page
/// as a plain parenthesis (Markdown takes `\(` for an escaped `(`), so MathJax never sees it and
/// the build's check of mangled formulas cannot either: the source must say `\\(`.
#[test]
fn formulas_open_with_a_double_backslash() {
    let mut found = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (n, code, span) in spans(&text) {
            // (`\[` is also the escaped bracket inside a formula: only `\(` is checked.)
            let single = span
                .match_indices("\\(")
                .any(|(i, _)| !span[..i].ends_with('\\'));
            if !code && single {
                found.push(format!("{}:{}", page.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "formulas opened with a single backslash (write \\\\( .. \\\\)):\n{}",
        found.join("\n")
    );
}

/// A page's text outside fenced code blocks, line by line, cut at backticks: (line index,
/// whether the piece is a code span, the piece).
fn spans(text: &str) -> Vec<(usize, bool, &str)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            out.extend(line.split('`').enumerate().map(|(k, s)| (n, k % 2 == 1, s)));
        }
    }
    out
}
