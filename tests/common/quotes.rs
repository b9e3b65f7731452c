//! The book's figures against a fresh run: a test that measures a number the book quotes
//! formats it as the book does and asserts the book says it, so a change in the code that moves
//! a figure fails the test until the page is updated (issue 34: no number in the worked
//! examples, validation or performance chapters typed by hand without a check).

use std::path::Path;

/// The passage of `page` (a path under `book/src`) that `anchor` marks: the table row holding
/// it if it is in a table, else its paragraph (lines trimmed and joined by spaces). The anchor must occur
/// exactly once on the page.
pub fn passage(page: &str, anchor: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("book/src")
        .join(page);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(anchor))
        .collect();
    assert!(
        hits.len() == 1,
        "book/src/{page}: `{anchor}` should mark exactly one line, found {}",
        hits.len()
    );
    let at = hits[0];
    if lines[at].trim_start().starts_with('|') {
        return lines[at].to_string();
    }
    let blank = |i: usize| lines[i].trim().is_empty();
    let start = (0..=at).rev().find(|&i| blank(i)).map_or(0, |i| i + 1);
    let end = (at..lines.len()).find(|&i| blank(i)).unwrap_or(lines.len());
    let joined: Vec<&str> = lines[start..end].iter().map(|l| l.trim()).collect();
    joined.join(" ")
}

/// Asserts that the passage of `page` marked by `anchor` contains every string of `quoted`
/// (the figures of a fresh run, formatted as the page writes them).
pub fn assert_quotes(page: &str, anchor: &str, quoted: &[String]) {
    let p = passage(page, anchor);
    let missing: Vec<&String> = quoted.iter().filter(|q| !p.contains(q.as_str())).collect();
    assert!(
        missing.is_empty(),
        "book/src/{page} at `{anchor}` should quote the fresh run's {missing:?}; it says:\n{p}"
    );
}

/// `x` as a percentage with `decimals` decimals and a sign: `+1.04 %`.
pub fn signed_pct(x: f64, decimals: usize) -> String {
    format!("{:+.*} %", decimals, 100.0 * x)
}

/// `x` as a percentage with `decimals` decimals: `4.2 %`.
pub fn pct(x: f64, decimals: usize) -> String {
    format!("{:.*} %", decimals, 100.0 * x)
}

/// `x` in scientific notation with `digits` significant digits: `4.4e-7`.
pub fn sci(x: f64, digits: usize) -> String {
    format!("{:.*e}", digits.saturating_sub(1), x)
}

/// `x` with `decimals` decimals: `0.198`.
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{:.*}", decimals, x)
}
