//! A model edited in code gets the checks a model file gets: `build_world` validates it and
//! refuses nonsense with the field's path; the same values written in a file are refused by the
//! CLI at the file's line and column (the span map turns the path into the place).

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;
use vcsim::impulse::eti::EtiParams;
use vcsim::impulse::ResolverChoice;
use vcsim::model::values::{NonNegative, Positive, UnitInterval};
use vcsim::Model;

fn shipped(name: &str) -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name);
    vcsim::load_file(&path).expect("a shipped model loads").0
}

/// The path of the error `build_world` gives for `m`.
fn refused(m: &Model) -> String {
    match vcsim::build_world(m) {
        Ok(_) => panic!("the model was built"),
        Err(e) => {
            eprintln!("{e}");
            e.path.clone()
        }
    }
}

#[test]
fn nonsense_edited_in_code_is_refused_with_the_fields_path() {
    let base = shipped("buoyancy_2d_apgd.ron");
    assert!(
        vcsim::build_world(&base).is_ok(),
        "the model as shipped builds"
    );

    let mut m = base.clone();
    m.fluid.as_mut().unwrap().spacing = Positive(1e-6);
    assert_eq!(refused(&m), "fluid.spacing");

    let mut m = base.clone();
    m.materials[0].friction = NonNegative(f64::NAN);
    assert_eq!(refused(&m), "materials[0].friction");

    let mut m = base.clone();
    m.contact.resolver = ResolverChoice::Eti(EtiParams {
        divider: 1_000_000_000,
        ..Default::default()
    });
    assert_eq!(refused(&m), "contact.resolver.divider");

    // Values the parser's types would have refused, and cross-checks, all by path.
    let mut m = base.clone();
    m.time.dt = Some(Positive(-1.0));
    assert_eq!(refused(&m), "time.dt");
    let mut m = base.clone();
    m.bodies[3].material = "steel".into();
    assert_eq!(refused(&m), "bodies[3].material");
    let mut m = base.clone();
    m.joints[0].body2 = "nothing".into();
    assert_eq!(refused(&m), "joints[0].body2");
    let mut m = base.clone();
    m.fluid.as_mut().unwrap().stabilisation = UnitInterval(2.0);
    assert_eq!(refused(&m), "fluid.stabilisation");
    let mut m = base;
    m.bodies[3].velocity.2 = 1.0;
    assert_eq!(refused(&m), "bodies[3].velocity");
}

/// `vcsim check` on `text` written to a file: (exit code, stderr, the file's path).
fn check(name: &str, text: &str) -> (Option<i32>, String, PathBuf) {
    let dir = Scratch::new("in-code");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .arg("check")
        .arg(&path)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        path,
    )
}

#[test]
fn the_same_values_in_a_file_are_refused_at_their_line_and_column() {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/buoyancy_2d_apgd.ron"),
    )
    .unwrap();
    let cases = [
        // (replace, with, expected line:column of the value, field)
        ("spacing: 0.02,", "spacing: 1e-6,", "1e-6", "fluid"),
        (
            r#"(name: "box", density: 500)"#,
            r#"(name: "box", density: 500, friction: NaN)"#,
            "NaN",
            "friction",
        ),
        (
            "    materials:",
            "    contact: (resolver: Eti(divider: 1000000000)),\n    materials:",
            "1000000000",
            "divider",
        ),
    ];
    for (k, (from, to, value, field)) in cases.iter().enumerate() {
        assert!(source.contains(from), "the shipped model has `{from}`");
        let text = source.replacen(from, to, 1);
        // 1-based line and column of the edited value.
        let at = text.find(to).unwrap() + to.find(value).unwrap();
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        let (code, stderr, path) = check(&format!("case{k}.ron"), &text);
        assert_eq!(code, Some(2), "{stderr}");
        let place = format!("{}:{line}:{column}", path.display());
        assert!(
            stderr.contains(&place) && stderr.contains(&format!("field `{field}`")),
            "expected {place} and field `{field}` in:\n{stderr}"
        );
    }
}
