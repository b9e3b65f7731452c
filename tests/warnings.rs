//! Located warnings: printed by `check` (and `run`) with their place in the file, never fatal.

use std::path::Path;
use std::process::Command;

/// Writes `text` as `name` in a fresh folder and runs `vcsim check` on it: (exit code, stderr).
fn check_text(name: &str, text: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("vcsim-warn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join(name);
    std::fs::write(&model, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["check", model.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn overlapping_bodies_get_a_located_warning() {
    let (code, stderr) = check_text(
        "overlap.ron",
        r#"Model(
    time: (dt: 0.001, end: 0.01),
    bodies: [
        (name: "ground", kind: Static, shape: Cuboid(half_extents: (5, 5, 0.5)), position: (0, 0, -0.5)),
        (name: "ball", shape: Ball(radius: 0.1), position: (0, 0, 0.05)),
    ],
)
"#,
    );
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    assert!(
        stderr.contains("warning:")
            && stderr.contains("overlap.ron:5:16")
            && stderr.contains("5.000e-2 m"),
        "{stderr}"
    );
}

#[test]
fn no_shipped_model_warns() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("ron") {
            continue;
        }
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .args(["check", path.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", path.display());
        assert!(!stderr.contains("warning"), "{}: {stderr}", path.display());
    }
}

/// Water beside the floor, not on it: the particles with nothing below them are counted and the
/// warning points at `fluid`; `--deny-warnings` makes it an error before anything is written.
#[test]
fn fluid_outside_any_container_gets_a_located_warning() {
    let dir = std::env::temp_dir().join(format!("vcsim-loose-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("loose.ron");
    std::fs::write(
        &model,
        r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 0.01),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.25, 0.05)), position: (0.25, -0.05)),
    ],
    fluid: (
        spacing: 0.02,
        regions: [Box(min: (0, 0), max: (0.2, 0.2)), Box(min: (1, 0), max: (1.2, 0.1))],
    ),
)
"#,
    )
    .unwrap();
    let vcsim = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let m = model.to_str().unwrap();
    let (code, stdout, stderr) = vcsim(&["check", m]);
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    // The 10 × 5 particles of the second region (x from 1 to 1.2 m) have nothing below them.
    assert!(
        stderr.contains("warning:")
            && stderr.contains("loose.ron:7:5")
            && stderr.contains("50 of the 150 fluid particles")
            && stderr.contains("(1.0100, 0.0100)"),
        "{stderr}"
    );
    // 2D: 2 DOFs per particle.
    assert!(stdout.contains("DOFs        300"), "{stdout}");
    let (code, _, stderr) = vcsim(&["check", "--deny-warnings", m]);
    assert_eq!(code, Some(2), "{stderr}");
    let out = dir.join("run");
    let (code, _, stderr) = vcsim(&["run", "--deny-warnings", m, "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!out.exists(), "nothing is written when warnings are denied");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A WCSPH fluid that sets the constraint method's `velocity_filter`: a located warning that
/// WCSPH does not apply it (not an error: the model runs).
#[test]
fn a_field_the_fluid_method_does_not_use_gets_a_located_warning() {
    let (code, stderr) = check_text(
        "unused.ron",
        r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 0.01),
    bodies: [(name: "floor", kind: Static, shape: Cuboid(half_extents: (0.5, 0.05)), position: (0.25, -0.05))],
    fluid: (
        method: Wcsph(),
        // velocity_filter: 1 (a comment does not count)
        spacing: 0.05,
        velocity_filter: 50,
        regions: [Box(min: (0, 0), max: (0.2, 0.2))],
    ),
)
"#,
    );
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    assert!(
        stderr.contains("warning:")
            && stderr.contains("unused.ron:9:9")
            && stderr.contains("`velocity_filter` belongs to the constraint method"),
        "{stderr}"
    );
    assert!(!stderr.contains("`shifting`"), "{stderr}");
}

/// ISPH and WCSPH apply `shifting` (Lind et al. 2012); ISPH also applies `velocity_filter`,
/// WCSPH does not: only WCSPH warns, and only of `velocity_filter`.
#[test]
fn wcsph_warns_of_the_velocity_filter_only() {
    for method in ["Isph()", "Wcsph()"] {
        let (code, stderr) = check_text(
            "partitioned.ron",
            &format!(
                r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 0.01),
    bodies: [(name: "floor", kind: Static, shape: Cuboid(half_extents: (0.5, 0.05)), position: (0.25, -0.05))],
    fluid: (
        method: {method},
        spacing: 0.05,
        shifting: 0.5,
        velocity_filter: 50,
        regions: [Box(min: (0, 0), max: (0.2, 0.2))],
    ),
)
"#
            ),
        );
        assert_eq!(code, Some(0), "{method}: a warning is not fatal: {stderr}");
        // ISPH applies the velocity filter (after its corrector, walls as no-slip neighbours).
        let warned = stderr.contains("partitioned.ron:9:9")
            && stderr.contains("`velocity_filter` belongs to the constraint method and ISPH");
        assert_eq!(warned, method == "Wcsph()", "{method}: {stderr}");
        assert!(!stderr.contains("`shifting`"), "{method}: {stderr}");
    }
}

/// The simultaneous impulse resolver is frictionless (002 §7.2): a model that gives its bodies
/// friction hears so at `contact.resolver`; with `friction: 0` nothing is said.
#[test]
fn friction_under_the_simultaneous_resolver_gets_a_located_warning() {
    let model = |mu: f64| {
        format!(
            r#"Model(
    time: (dt: 0.001, end: 0.01),
    contact: (resolver: SimultaneousImpulse()),
    materials: [(name: "m", density: 1000, friction: {mu})],
    bodies: [
        (name: "ground", kind: Static, shape: Cuboid(half_extents: (5, 5, 0.5)), position: (0, 0, -0.5), material: "m"),
        (name: "ball", shape: Ball(radius: 0.1), position: (0, 0, 0.1), material: "m"),
    ],
)
"#
        )
    };
    let (code, stderr) = check_text("smm.ron", &model(0.4));
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    assert!(
        stderr.contains("warning:")
            && stderr.contains("smm.ron:3:25")
            && stderr.contains("frictionless")
            && stderr.contains("`ball` has friction 0.4"),
        "{stderr}"
    );
    let (code, stderr) = check_text("smm0.ron", &model(0.0));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// Touching dynamic bodies (face to face) whose masses differ by more than 1e6 get a warning
/// at the lighter one (2e8 here); a ratio of 2e3 does not.
#[test]
fn touching_bodies_of_very_different_mass_get_a_located_warning() {
    let model = |thin: &str| {
        format!(
            r#"Model(
    time: (dt: 0.001, end: 0.01),
    bodies: [
        (name: "ground", kind: Static, shape: Cuboid(half_extents: (5, 5, 0.5)), position: (0, 0, -0.5)),
        (name: "block", shape: Cuboid(half_extents: (0.1, 0.1, 0.1)), position: (0, 0, 0.1)),
        (name: "sheet", shape: Cuboid(half_extents: (0.1, 0.1, {thin})), position: (0, 0, {})),
    ],
)
"#,
            0.2 + thin.parse::<f64>().unwrap()
        )
    };
    let (code, stderr) = check_text("mass.ron", &model("0.5e-9"));
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    assert!(
        stderr.contains("warning:")
            && stderr.contains("mass.ron:6:16")
            && stderr.contains("body `sheet`")
            && stderr.contains("2.0e8 times heavier"),
        "{stderr}"
    );
    let (code, stderr) = check_text("mass3.ron", &model("0.5e-4"));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("heavier"), "{stderr}");
}

/// A static wall thinner than the kernel's support (2h) gets a located warning, and the
/// warning is right: the shipped standing wave (walls 0.1 m thick, l = 0.025 m) with smooth
/// walls at h = 3.0 l (support 0.15 m) loses its corner particle through the floor's corner
/// (the guard stops the run at 0.39 s, measured 2026-12-02), while the same tank with walls
/// 0.3 m thick holds it to 0.5 s and `check` is silent.
#[test]
fn a_wall_thinner_than_the_kernels_support_gets_a_located_warning() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/standing_wave_2d.ron"),
    )
    .unwrap()
    .replace("time: (end: 12.0)", "time: (end: 0.5)")
    .replace(
        "shifting: 0,",
        "shifting: 0, stabilisation: 0, walls: Smooth, smoothing: 3.0,",
    )
    .replace(
        "output: (every: 0.02)",
        "output: (every: 0.1, vtk: false, plot: false)",
    );
    let thick = src
        .replace(
            "Cuboid(half_extents: (0.6, 0.05)), position: (0.5, -0.05)",
            "Cuboid(half_extents: (0.7, 0.15)), position: (0.5, -0.15)",
        )
        .replace(
            "Cuboid(half_extents: (0.05, 0.4)), position: (-0.05, 0.4)",
            "Cuboid(half_extents: (0.15, 0.4)), position: (-0.15, 0.4)",
        )
        .replace(
            "Cuboid(half_extents: (0.05, 0.4)), position: (1.05, 0.4)",
            "Cuboid(half_extents: (0.15, 0.4)), position: (1.15, 0.4)",
        );
    assert_ne!(thick, src, "the model's walls as the test expects them");
    let (code, stderr) = check_text("thin.ron", &src);
    assert_eq!(code, Some(0), "a warning is not fatal: {stderr}");
    for name in ["floor", "left", "right"] {
        assert!(
            stderr.contains(&format!(
                "static body `{name}` beside the fluid is 1.000e-1 m thick, less than the \
                 kernel's support of 1.500e-1 m"
            )),
            "{name}: {stderr}"
        );
    }
    assert!(stderr.contains("thin.ron:"), "located: {stderr}");
    let (code, stderr) = check_text("thick.ron", &thick);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    // What the warning is about.
    let run = |name: &str, text: &str| {
        let dir =
            std::env::temp_dir().join(format!("vcsim-warn-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("m.ron"), text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
            .args(["run", "m.ron", "--out", "out", "--quiet", "--threads", "1"])
            .current_dir(&dir)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run("thin", &src);
    assert_eq!(code, Some(3), "the thin walls let a particle out: {stderr}");
    assert!(stderr.contains("scene_margin"), "{stderr}");
    let (code, stderr) = run("thick", &thick);
    assert_eq!(code, Some(0), "the thick walls hold: {stderr}");
}

/// A tank of water 1 m deep at spacing 0.04 m (rows at (i + 1/2) 0.04 m) with one moving body
/// written as `body`, checked: the lattice warnings in stderr.
fn lattice_warnings(body: &str) -> String {
    let text = format!(
        r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (end: 1.0),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (1.2, 0.2)), position: (1.0, -0.2)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.2, 0.8)), position: (-0.2, 0.8)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.2, 0.8)), position: (2.2, 0.8)),
        {body},
    ],
    fluid: (spacing: 0.04, regions: [Box(min: (0, 0), max: (2.0, 1.0))]),
)
"#
    );
    let (code, stderr) = check_text("fit.ron", &text);
    assert_eq!(code, Some(0), "{stderr}");
    stderr
        .lines()
        .filter(|l| l.contains("lattice"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn check_names_the_face_of_a_body_that_misses_the_lattice() {
    // A box 0.4 x 0.32 m (10 x 8 spacings: its particles half a spacing inside every face)
    // floating with its bottom face at y = 0.8 m, midway between the rows at 0.78 and 0.82 m:
    // no gap. Lowered by a fifth of a spacing, the row at 0.78 m is closer than half a
    // spacing to its face and left out: the bottom face sees the fluid 1.8 spacings away, a
    // gap it falls into, and the warning names that face. Its dry top and its sides above the
    // water are not counted (with them, the median over the whole body hid which face missed).
    let boxed = |y: f64| {
        format!(
            "(name: \"box\", shape: Cuboid(half_extents: (0.2, 0.16)), position: (1.0, {y}), mass: 64)"
        )
    };
    let fits = lattice_warnings(&boxed(0.96));
    // A box 7.5 spacings tall at its lattice height: its particles can lie half a spacing
    // inside its bottom or its top, not both, and are laid from the bottom, next to the water
    // (from the top they left a gap of half a spacing under it, which this warning named).
    let tall = lattice_warnings(
        "(name: \"box\", shape: Cuboid(half_extents: (0.2, 0.15)), position: (1.0, 0.95), mass: 60)",
    );
    assert!(tall.is_empty(), "{tall}");
    assert!(fits.is_empty(), "{fits}");
    let low = lattice_warnings(&boxed(0.952));
    assert!(
        low.contains("body `box`'s faces miss") && low.contains("face towards -y"),
        "{low}"
    );
    // A disc whose sides lie on a column of the fluid's lattice (x = 1.02 +- 0.2 m: 20.5 and
    // 30.5 spacings, on the columns at (i + 1/2) spacings) has a half-spacing gap at its
    // equator, which is named; centred at x = 1.0 (its sides, top and bottom midway between
    // columns and rows), none. Its curved rest is not judged (no lattice fits a circle).
    let disc = |x: f64| {
        format!(
            "(name: \"disc\", kind: Kinematic, shape: Ball(radius: 0.2), position: ({x}, 0.52))"
        )
    };
    let on = lattice_warnings(&disc(1.02));
    assert!(on.contains("body `disc`") && on.contains("x have"), "{on}");
    let off = lattice_warnings(&disc(1.0));
    assert!(off.is_empty(), "{off}");
}
