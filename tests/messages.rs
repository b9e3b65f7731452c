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

/// `check` of a model text written to a temporary file: exit code and standard error.
fn check_text(name: &str, text: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("vcsim-msg-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join(format!("{name}.ron"));
    std::fs::write(&model, text).unwrap();
    let out = vcsim(&["check", model.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The mistakes a new user makes get messages in the model's words, at file:line:col: a wrong
/// name lists the valid ones, a method without parentheses gets them suggested, a field in the
/// wrong section names its section, and no parser type name shows.
#[test]
fn mistakes_get_messages_that_teach() {
    let cases = [
        (
            "dimension",
            "Model(\n    scene: (dimension: 2, gravity: (0, -9.81)),\n    time: (dt: 0.001, end: 1),\n)",
            "dimension.ron:2:24:",
            "`dimension` takes `Two` or `Three`; got `2`",
        ),
        (
            "method",
            "Model(\n    time: (dt: 0.001, end: 1),\n    fluid: (method: Wcsph, spacing: 0.1, regions: []),\n)",
            "method.ron:3:26:",
            "`Wcsph` is written with parentheses: `Wcsph()`",
        ),
        (
            "resolver",
            "Model(\n    time: (dt: 0.001, end: 1),\n    resolver: Eti(),\n)",
            "resolver.ron:3:5:",
            "`resolver` is not a field at the model's top level; it belongs in `contact: (resolver: ..)`",
        ),
        (
            "kind",
            "Model(\n    time: (dt: 0.1, end: 1),\n    bodies: [(name: \"a\", kind: Dynmic, shape: Ball(radius: 1))],\n)",
            "kind.ron:3:32:",
            "`kind` takes one of `Static`, `Kinematic` or `Dynamic`; got `Dynmic`",
        ),
        (
            "dt_in_scene",
            "Model(\n    scene: (dt: 0.1),\n    time: (dt: 0.1, end: 1),\n)",
            "dt_in_scene.ron:2:13:",
            "`dt` is not a field in `scene`; it belongs in `time: (dt: ..)`",
        ),
        (
            "material_field",
            "Model(\n    time: (dt: 0.1, end: 1),\n    materials: [(name: \"a\", density: 1, frction: 0.2)],\n)",
            "material_field.ron:3:41:",
            "Unexpected field named `frction` in a material",
        ),
    ];
    for (name, text, at, says) in cases {
        let (code, err) = check_text(name, text);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains(at), "{name}: expected {at} in:\n{err}");
        assert!(err.contains(says), "{name}: expected `{says}` in:\n{err}");
        for internal in [
            "MaterialDef",
            "BodyDef",
            "FluidMethodDef",
            "`Model`",
            "raw identifier",
        ] {
            assert!(!err.contains(internal), "{name}: `{internal}` in:\n{err}");
        }
    }
}

/// A fluid too coarse to mean anything (2 particles across a 0.4 m deep tank, a 0.2 m box at
/// spacing 0.2 m) is warned about before the run, at the spacing and at the body; so is a time
/// step too long for the constraint method.
#[test]
fn a_fluid_too_coarse_to_mean_anything_is_warned_about() {
    let text = "Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.01, end: 1),
    bodies: [
        (name: \"floor\", kind: Static, shape: Cuboid(half_extents: (1, 0.1)), position: (0, -0.1)),
        (name: \"box\", shape: Cuboid(half_extents: (0.1, 0.1)), position: (0, 0.8)),
    ],
    fluid: (spacing: 0.2, regions: [Box(min: (-0.5, 0), max: (0.5, 0.4))]),
)";
    let (code, err) = check_text("coarse", text);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("coarse.ron:8:22: field `spacing`: the fluid is 2 particles across"),
        "{err}"
    );
    assert!(
        err.contains(
            "coarse.ron:6:30: field `shape`: body `box` is 2.000e-1 m across, 1.0 fluid spacings"
        ),
        "{err}"
    );
    // The same tank at a spacing that resolves it: no warning.
    let fine = text.replace("spacing: 0.2", "spacing: 0.02").replace(
        "(0.1, 0.1)), position: (0, 0.8)",
        "(0.1, 0.1)), position: (0, 0.6)",
    );
    // ... but a step of 10 ms moves water falling from 0.38 m by 1.4 of its 0.02 m spacings.
    let (code, err) = check_text("fine", &fine);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("fine.ron:3:16: field `dt`: water falling from the fluid's height (0.380 m) reaches 2.730 m/s and would move 1.4 spacings"), "{err}");
    let (code, err) = check_text("finer", &fine.replace("dt: 0.01", "dt: 0.002"));
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning"), "{err}");
}
