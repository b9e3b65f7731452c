//! Located warnings: printed by `check` (and `run`) with their place in the file, never fatal.

use std::path::Path;
use std::process::Command;

#[test]
fn overlapping_bodies_get_a_located_warning() {
    let dir = std::env::temp_dir().join(format!("vcsim-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("overlap.ron");
    std::fs::write(
        &model,
        r#"Model(
    time: (dt: 0.001, end: 0.01),
    bodies: [
        (name: "ground", kind: Static, shape: Cuboid(half_extents: (5, 5, 0.5)), position: (0, 0, -0.5)),
        (name: "ball", shape: Ball(radius: 0.1), position: (0, 0, 0.05)),
    ],
)
"#,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["check", model.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning is not fatal: {stderr}"
    );
    assert!(
        stderr.contains("warning:")
            && stderr.contains("overlap.ron:5:16")
            && stderr.contains("5.000e-2 m"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_shipped_model_warns() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .args(["check", path.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", path.display());
        assert!(!stderr.contains("warning"), "{}: {stderr}", path.display());
    }
}
