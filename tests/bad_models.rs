//! Malformed and nonsensical models: each file in `tests/bad_models/` states on its first line
//! where the error must be reported (`// expect: line L, field F`, `-` for no field). The CLI
//! must exit with code 2, name the file, line and field, and never panic.

mod common;

use std::path::Path;
use std::process::Command;

fn vcsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vcsim"))
}

fn expectation(text: &str) -> (usize, String) {
    let first = text.lines().next().unwrap_or_default();
    let rest = first
        .strip_prefix("// expect: line ")
        .expect("first line states the expectation");
    let (line, field) = rest
        .split_once(", field ")
        .expect("expectation has a field");
    (
        line.trim().parse().expect("line number"),
        field.trim().to_string(),
    )
}

#[test]
fn every_bad_model_gives_a_located_error_and_exit_code_2() {
    let files = common::files_in("tests/bad_models");
    assert!(
        files.len() >= 20,
        "expected the whole set of bad models, found {}",
        files.len()
    );
    common::quotes::assert_quotes(
        "validation.md",
        "malformed models (`bad_models.rs`)",
        &[format!("| {} malformed models", files.len())],
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let (line, field) = expectation(&text);
        let out = vcsim().arg("check").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let name = path.display().to_string();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name}: exit code {:?}, stderr:\n{stderr}",
            out.status.code()
        );
        assert!(!stderr.contains("panicked"), "{name} panicked:\n{stderr}");
        let loc = format!("{name}:{line}:");
        assert!(
            stderr.contains(&loc),
            "{name}: expected location {loc} in:\n{stderr}"
        );
        if field != "-" {
            let f = format!("field `{field}`");
            assert!(stderr.contains(&f), "{name}: expected {f} in:\n{stderr}");
        }
    }
}

#[test]
fn run_rejects_a_bad_model_before_writing_anything() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_models");
    let out_dir = std::env::temp_dir().join(format!("vcsim-bad-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out_dir);
    let out = vcsim()
        .arg("run")
        .arg(dir.join("negative_density.ron"))
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !out_dir.exists(),
        "no run folder may be created for an invalid model"
    );
}

#[test]
fn missing_file_and_bad_arguments_exit_with_2() {
    let out = vcsim()
        .args(["check", "/no/such/model.ron"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = vcsim().args(["run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = vcsim().args(["frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_existing_run_folder_is_never_overwritten() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/ball_bounce_pgs.ron");
    let out_dir = std::env::temp_dir().join(format!("vcsim-keep-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let keep = out_dir.join("precious.csv");
    std::fs::write(&keep, "do not lose me").unwrap();
    let out = vcsim()
        .arg("run")
        .arg(&model)
        .arg("--out")
        .arg(&out_dir)
        .arg("--quiet")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&keep).unwrap(), "do not lose me");
    let _ = std::fs::remove_dir_all(&out_dir);
}
