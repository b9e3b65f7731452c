//! Extreme but syntactically valid values never crash a run: every model in `tests/extreme/`
//! is run by the CLI and must end with exit code 0 (ran), 1 (non-finite state), 2 (refused) or
//! 3 (left its bounds) — never 101 (a panic) or a signal.

mod common;

use std::process::Command;

#[test]
fn extreme_values_never_panic() {
    let files = common::files_in("tests/extreme");
    assert!(files.len() >= 3);
    for model in files {
        let out_dir = std::env::temp_dir().join(format!(
            "vcsim-extreme-{}-{}",
            model.file_stem().unwrap().to_string_lossy(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&out_dir);
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .args(["run", "--quiet", model.to_str().unwrap(), "--out"])
            .arg(&out_dir)
            .output()
            .unwrap();
        let code = out.status.code();
        println!("{}: exit {code:?}", model.display());
        assert!(
            matches!(code, Some(0..=3)),
            "{}: exit {code:?}\n{}",
            model.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::remove_dir_all(&out_dir);
    }
}
