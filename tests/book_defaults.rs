//! The book's tables of defaults state the code's defaults: each parameter type's `Default`
//! (serialised, so a new field shows up) against what `book/src/modelling.md` says of it. A
//! default changed in the code and not in the book (or the other way round) fails here.

use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Every field of `v`'s RON form with its value as text (`max_iterations` → `200`).
fn defaults<T: Serialize>(v: &T) -> BTreeMap<String, String> {
    let text = ron::to_string(v).unwrap();
    let value: ron::Value = ron::from_str(&text).unwrap();
    let ron::Value::Map(m) = value else {
        panic!("not a struct: {text}")
    };
    m.iter()
        .map(|(k, v)| {
            let ron::Value::String(k) = k else {
                panic!("{k:?}")
            };
            let v = match v {
                ron::Value::Number(n) => n.into_f64().to_string(),
                ron::Value::Bool(b) => b.to_string(),
                other => format!("{other:?}"),
            };
            (k.clone(), v)
        })
        .collect()
}

/// The same number or word: `1e-7` is `0.0000001`, `true` is `true`.
fn same(book: &str, code: &str) -> bool {
    let book = book.trim().trim_matches('`');
    let number = |s: &str| s.split_whitespace().next()?.parse::<f64>().ok();
    match (number(book), number(code)) {
        (Some(a), Some(b)) => a == b,
        _ => book.split_whitespace().next() == Some(code),
    }
}

fn modelling() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src/modelling.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The table row of `modelling.md` that starts with `| first |`.
fn row(page: &str, first: &str) -> String {
    let start = format!("| {first} |");
    page.lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no row `{start}` in modelling.md"))
        .to_string()
}

/// The `` `field` (value `` pairs of a solver row (the value up to a space, `)` or `:`).
fn parenthesised(row: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = row;
    while let Some(a) = rest.find('`') {
        let after = &rest[a + 1..];
        let Some(b) = after.find('`') else { break };
        let name = &after[..b];
        let tail = after[b + 1..].trim_start();
        if let Some(v) = tail.strip_prefix('(') {
            let end = v.find([')', ':', ';', ' ']).unwrap_or(v.len());
            out.insert(name.to_string(), v[..end].to_string());
        }
        rest = &after[b + 1..];
    }
    out
}

/// The `name: value` pairs inside `Name(...)` of a row (`Eti(divider: 30, max_repeats: 300)`).
fn written(row: &str, name: &str) -> BTreeMap<String, String> {
    let start = row.find(&format!("`{name}(")).expect(name) + name.len() + 2;
    let inner = &row[start..start + row[start..].find(')').unwrap()];
    inner
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = p.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

#[test]
fn the_solver_table_states_every_default_of_pgs_and_apgd() {
    let page = modelling();
    for (name, code) in [
        ("`Pgs(..)`", defaults(&vcsim::solver::PgsParams::default())),
        (
            "`Apgd(..)`",
            defaults(&vcsim::solver::ApgdParams::default()),
        ),
    ] {
        let book = parenthesised(&row(&page, name));
        for (field, value) in &code {
            let b = book
                .get(field)
                .unwrap_or_else(|| panic!("{name}: the book does not give `{field}` ({value})"));
            assert!(
                same(b, value),
                "{name}.{field}: the book says {b}, the code {value}"
            );
        }
    }
}

#[test]
fn the_contact_table_states_the_code_defaults() {
    let page = modelling();
    let code = defaults(&vcsim::constraints::contact::ContactParams::default());
    for field in ["prediction", "baumgarte", "slop", "restitution_threshold"] {
        let cells: Vec<String> = row(&page, &format!("`{field}`"))
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        let book = cells.last().unwrap();
        assert!(
            same(book, &code[field]),
            "contact.{field}: the book says {book}, the code {}",
            code[field]
        );
    }
    let resolver = row(&page, "`resolver`");
    assert!(resolver.ends_with("| `Complementarity()` |"), "{resolver}");
    assert_eq!(
        vcsim::impulse::ResolverChoice::default(),
        vcsim::impulse::ResolverChoice::Complementarity {}
    );
    // The resolvers' parameters the row writes out are their defaults.
    for (name, code) in [
        ("Eti", defaults(&vcsim::impulse::eti::EtiParams::default())),
        (
            "SequentialImpulse",
            defaults(&vcsim::impulse::sqm::SqmParams::default()),
        ),
    ] {
        let book = written(&resolver, name);
        assert!(!book.is_empty(), "{name}: no values in the row");
        for (field, value) in &book {
            let c = code
                .get(field)
                .unwrap_or_else(|| panic!("{name}: the code has no `{field}`"));
            assert!(
                same(value, c),
                "{name}.{field}: the book says {value}, the code {c}"
            );
        }
    }
}

#[test]
fn the_comparison_reads_numbers_and_words() {
    assert!(same("1e-7 m/s", "0.0000001"));
    assert!(same("`0.05`", "0.05"));
    assert!(!same("0.2", "0.25"));
    assert!(same("true", "true") && !same("false", "true"));
    assert_eq!(
        parenthesised(
            "| `Pgs(..)` | `max_iterations` (200), `tolerance` (1e-7 m/s), `warm_start` (true) |"
        ),
        BTreeMap::from([
            ("max_iterations".to_string(), "200".to_string()),
            ("tolerance".into(), "1e-7".into()),
            ("warm_start".into(), "true".into()),
        ])
    );
}
