//! Messages and conventions of the command line (issue 10): a byte-order mark is not an error,
//! `--end` shorter than the time step is refused like `dt > end` in the file.

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
