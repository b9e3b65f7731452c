//! A blow-up never passes silently: the Koshizuka & Oka dam break with a time step 100 times too
//! long (dt = 0.05 s instead of 5e-4 s) stops with exit code 3, a diagnostic that names the bound
//! it left, and the output written up to there (frames, `.pvd`, summary).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn dam_break_with_a_huge_time_step_stops_with_exit_3() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_apgd.ron"),
    )
    .unwrap();
    assert!(src.contains("dt: 0.0005"));
    let src = src.replace("dt: 0.0005", "dt: 0.05");
    let base = std::env::temp_dir().join(format!("vcsim-blowup-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let model = base.join("dam_break_dt005.ron");
    std::fs::write(&model, src).unwrap();
    let out_dir = base.join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet", model.to_str().unwrap(), "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{}", stderr.trim());
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains("max_compression") || stderr.contains("max_cfl"),
        "the diagnostic names the bound: {stderr}"
    );
    assert!(
        stderr.contains("fluid particle"),
        "and the worst particle: {stderr}"
    );
    // `max_cfl = 7.2547e0 exceeds`: the validation page rounds it.
    let cfl: f64 = stderr
        .split("max_cfl = ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|v| v.parse().ok())
        .expect("the value of max_cfl");
    common::quotes::assert_quotes(
        "validation.md",
        "dam break at dt = 0.05 s",
        &[format!("`max_cfl` = {cfl:.1} after step 1")],
    );
    let pvd = std::fs::read_to_string(out_dir.join("fluid.pvd")).unwrap();
    let frames = pvd.matches("<DataSet").count();
    assert!(frames >= 1, "a frame before the blow-up is kept");
    let summary = std::fs::read_to_string(out_dir.join("summary.txt")).unwrap();
    assert!(summary.contains("left its bounds"), "{summary}");
    let _ = std::fs::remove_dir_all(&base);
}
