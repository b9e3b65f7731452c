//! The field reference is tested against the schema: for every section of a model (the top
//! level, `scene`, `time`, `contact`, a material, a body, a joint, a joint's spring and
//! compliance, `fluid`, `output`, `guard`, a beam, each solver, each fluid method and the ETI
//! resolver), a field the schema does not have is written into a valid model, and the error's
//! list of the fields it expected — the schema's own list — must each be documented on the
//! section's page (written as code there: `modelling.md`, the beams page for a beam), so a
//! field added to the code without a line in the book fails here.

use std::path::Path;

const BASE: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81) /*scene*/),
    time: (dt: 0.001, end: 0.01 /*time*/),
    solver: Apgd(max_iterations: 10 /*apgd*/),
    contact: (resolver: Complementarity() /*contact*/),
    materials: [(name: "m", density: 1000 /*material*/)],
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (1, 0.1)), material: "m"),
        (name: "box", shape: Cuboid(half_extents: (0.1, 0.1)), position: (0, 1), material: "m" /*body*/),
    ],
    joints: [
        (name: "j", kind: Revolute(axis: (0, 0, 1), spring: (stiffness: 1 /*spring*/)),
         body1: "floor", body2: "box", anchor: (0, 1),
         compliance: (linear_stiffness: 1e6, angular_stiffness: 1e4 /*compliance*/) /*joint*/),
    ],
    beams: [(name: "b", root: (0.5, 0.1), direction: (0, 1), length: 0.2, thickness: 0.02,
             youngs_modulus: 1e6, material: "m", elements: 4 /*beam*/)],
    fluid: (spacing: 0.05, regions: [Box(min: (-0.9, 0.1), max: (-0.5, 0.4))],
            method: Constraint(/*method0*/) /*fluid*/),
    output: (every: 0.01 /*output*/),
    guard: (max_cfl: 1 /*guard*/),
    /*model*/
)"#;

/// The fields the schema expects where `marker` stands (the error's list when an unknown
/// field is written there), from a model where `base` is first changed by `edit`.
fn expected_fields(marker: &str, edit: impl Fn(&str) -> String) -> Vec<String> {
    // The top level's marker stands after a trailing comma, a marker ending in 0 first in its
    // parentheses; the others after a value.
    let first = marker == "model" || marker.ends_with('0');
    let bogus = if first {
        "bogus_field: 1"
    } else {
        ", bogus_field: 1"
    };
    let text = edit(BASE).replace(&format!("/*{marker}*/"), bogus);
    let text = without_markers(&text);
    let err = match vcsim::parse_str(Path::new("reference.ron"), &text) {
        Ok(_) => panic!("{marker}: a bogus field was accepted"),
        Err(e) => e.to_string(),
    };
    let list = err
        .split(", expected ")
        .nth(1)
        .unwrap_or_else(|| panic!("{marker}: no list of expected fields in: {err}"));
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The words written as code on a page: in fenced code blocks and in code spans.
fn code_words(page: &str) -> std::collections::HashSet<&str> {
    let mut words = std::collections::HashSet::new();
    let mut in_block = false;
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let code: Vec<&str> = if in_block {
            vec![line]
        } else {
            // Code spans: the odd parts between backticks.
            line.split('`').skip(1).step_by(2).collect()
        };
        for c in code {
            words.extend(
                c.split(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                    .filter(|w| !w.is_empty()),
            );
        }
    }
    words
}

/// `text` without its `/*marker*/` comments.
fn without_markers(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find("*/").unwrap() + 2..];
    }
    out + rest
}

#[test]
fn every_field_of_the_schema_is_documented() {
    let clean = without_markers(BASE);
    if let Err(e) = vcsim::parse_str(Path::new("reference.ron"), &clean) {
        panic!("the base model is invalid: {e}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("book/src");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let modelling = read("modelling.md");
    let beams = read("examples/beams.md");
    let same = |t: &str| t.to_string();
    let sections: Vec<(&str, Vec<String>, &String)> = vec![
        ("model", expected_fields("model", same), &modelling),
        ("scene", expected_fields("scene", same), &modelling),
        ("time", expected_fields("time", same), &modelling),
        ("contact", expected_fields("contact", same), &modelling),
        ("material", expected_fields("material", same), &modelling),
        ("body", expected_fields("body", same), &modelling),
        ("joint", expected_fields("joint", same), &modelling),
        ("spring", expected_fields("spring", same), &modelling),
        (
            "compliance",
            expected_fields("compliance", same),
            &modelling,
        ),
        ("fluid", expected_fields("fluid", same), &modelling),
        ("output", expected_fields("output", same), &modelling),
        ("guard", expected_fields("guard", same), &modelling),
        ("beam", expected_fields("beam", same), &beams),
        ("Apgd", expected_fields("apgd", same), &modelling),
        (
            "Pgs",
            expected_fields("apgd", |t| t.replace("Apgd(", "Pgs(")),
            &modelling,
        ),
        ("Constraint", expected_fields("method0", same), &modelling),
        (
            "Wcsph",
            expected_fields("method0", |t| t.replace("Constraint(", "Wcsph(")),
            &modelling,
        ),
        (
            "Isph",
            expected_fields("method0", |t| t.replace("Constraint(", "Isph(")),
            &modelling,
        ),
        (
            "Eti",
            expected_fields("eti0", |t| t.replace("Complementarity()", "Eti(/*eti0*/)")),
            &modelling,
        ),
    ];
    let mut missing = Vec::new();
    for (section, fields, page) in &sections {
        assert!(!fields.is_empty(), "{section}: no fields listed");
        let named = code_words(page);
        for f in fields {
            if !named.contains(f.as_str()) {
                missing.push(format!("{section}.{f}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "fields of the schema the book's reference does not name: {missing:?}"
    );
}
