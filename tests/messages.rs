//! Messages and conventions of the command line (issue 10): a byte-order mark is not an error,
//! `--end` shorter than the time step is refused like `dt > end` in the file; `render` exits
//! with 2 for a bad run folder and 1 when it cannot write.

use std::path::Path;
use std::process::Command;

fn vcsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_byte_order_mark_is_not_a_syntax_error() {
    let dir = std::env::temp_dir().join(format!("vcsim-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("bom.ron");
    std::fs::write(&model, "\u{feff}Model(time: (dt: 0.001, end: 0.01))\n").unwrap();
    let out = vcsim(&["check", model.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn end_shorter_than_dt_is_refused() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/stack_pgs.ron");
    let out = vcsim(&["run", "--quiet", model.to_str().unwrap(), "--end", "0.001"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("shorter than the model's time step"),
        "{stderr}"
    );
}

/// `render` follows the exit-code table: a folder that is not a run is invalid input (2); an
/// output folder that cannot be created is an I/O failure (1), as for `run`.
#[test]
fn render_exit_codes_follow_the_table() {
    let dir = std::env::temp_dir().join(format!("vcsim-render-codes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/pendulum_2d_pgs.ron");
    let run_dir = dir.join("run");
    let out = vcsim(&[
        "run",
        "--quiet",
        model.to_str().unwrap(),
        "--end",
        "0.05",
        "--out",
        run_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let not_a_run = vcsim(&["render", dir.join("nothing").to_str().unwrap()]);
    assert_eq!(not_a_run.status.code(), Some(2));
    // A regular file where the output folder should go: even root cannot create it.
    let blocker = dir.join("file");
    std::fs::write(&blocker, "x").unwrap();
    let unwritable = vcsim(&[
        "render",
        run_dir.to_str().unwrap(),
        "--out",
        blocker.join("pictures").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&unwritable.stderr);
    assert_eq!(unwritable.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("pictures"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
