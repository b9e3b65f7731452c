//! Steps that never end: a WCSPH tank shaken by 100 m (its sub-steps shrink without bound) and
//! an ETI stack with the largest divider (five million impulses per step). A real SIGTERM or
//! SIGINT ends each within a few seconds with exit 130 and the outputs whole; the sub-step cap
//! stops the tank on its own with exit 3, naming `guard.max_substeps`; a second signal ends a
//! run at once.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The shipped sloshing tank run by WCSPH and shaken by 100 m at 0.75 Hz, with `guard`.
fn shaken_tank(guard: &str) -> String {
    format!(
        r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.002, end: 8.0),
    guard: ({guard}),
    bodies: [(
        name: "tank", kind: Kinematic,
        shape: Compound(parts: [
            (shape: Cuboid(half_extents: (0.4, 0.05)), position: (0.3, -0.05)),
            (shape: Cuboid(half_extents: (0.05, 0.35)), position: (-0.05, 0.35)),
            (shape: Cuboid(half_extents: (0.05, 0.35)), position: (0.65, 0.35)),
        ]),
        motion: Sine(displacement: (0, 100), frequency: 0.75),
    )],
    fluid: (method: Wcsph(), spacing: 0.02, regions: [Box(min: (0, 0), max: (0.6, 0.3))]),
    output: (every: 0.02),
    probes: [Position("tank"), FluidForce("tank"), DensityError],
)"#
    )
}

/// The shipped six-cube stack under ETI with the divider at its largest (λ = 1e5): about two
/// seconds per step.
fn slow_stack() -> String {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("models/cube_stack_eti.ron"),
    )
    .unwrap();
    assert!(text.contains("Eti(divider: 100)"));
    text.replace("Eti(divider: 100)", "Eti(divider: 100000)")
}

/// Starts `vcsim run` on `text` (written into a fresh folder); returns the child and the run
/// folder.
fn start(name: &str, text: &str) -> (Child, PathBuf) {
    let dir = std::env::temp_dir().join(format!("vcsim-instep-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join(format!("{name}.ron"));
    std::fs::write(&model, text).unwrap();
    let out = dir.join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet", model.to_str().unwrap(), "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    (child, dir)
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Waits for `child` to end: (exit code, stderr, seconds waited).
fn finish(child: Child) -> (Option<i32>, String, f64) {
    let t0 = Instant::now();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        t0.elapsed().as_secs_f64(),
    )
}

/// Every CSV of the run ends on a complete row under its header; the summary says `says`.
fn outputs_whole(out: &Path, says: &str) {
    for name in ["series.csv", "bodies.csv", "probes.csv", "fluid.csv"] {
        let Ok(text) = std::fs::read_to_string(out.join(name)) else {
            continue;
        };
        assert!(text.ends_with('\n'), "{name} ends mid-row");
        let mut lines = text.lines();
        let n = lines.next().expect("a header").split(',').count();
        assert!(lines.clone().count() >= 1, "{name} has the initial row");
        for l in lines {
            assert_eq!(l.split(',').count(), n, "{name}: incomplete row {l:?}");
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains(says), "{summary}");
}

#[test]
fn sigterm_ends_a_step_of_endless_substeps() {
    let (mut child, dir) = start("tank", &shaken_tank("max_substeps: 1000000000"));
    std::thread::sleep(Duration::from_secs(2));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    signal(&child, "-TERM");
    let (code, stderr, waited) = finish(child);
    eprintln!("SIGTERM: exit {code:?} after {waited:.2} s: {stderr}");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(waited < 5.0, "the run took {waited} s to end");
    assert!(stderr.contains("interrupted during step 1"), "{stderr}");
    outputs_whole(&dir.join("out"), "interrupted during step 1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_substep_cap_stops_the_run_with_exit_3() {
    let (child, dir) = start("capped", &shaken_tank("max_substeps: 300"));
    let (code, stderr, waited) = finish(child);
    eprintln!("cap: exit {code:?} after {waited:.2} s: {stderr}");
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("300 sub-steps") && stderr.contains("`guard.max_substeps`"),
        "{stderr}"
    );
    outputs_whole(&dir.join("out"), "stopped");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigint_ends_a_step_of_millions_of_impulses() {
    let (mut child, dir) = start("stack", &slow_stack());
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    signal(&child, "-INT");
    let (code, stderr, waited) = finish(child);
    eprintln!("SIGINT: exit {code:?} after {waited:.2} s: {stderr}");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(waited < 5.0, "the run took {waited} s to end");
    assert!(stderr.contains("interrupted"), "{stderr}");
    outputs_whole(&dir.join("out"), "interrupted");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_sigint_ends_the_run_at_once() {
    let (mut child, dir) = start("twice", &slow_stack());
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    signal(&child, "-INT");
    signal(&child, "-INT");
    let (code, stderr, waited) = finish(child);
    eprintln!("two SIGINTs: exit {code:?} after {waited:.2} s");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(waited < 0.4, "the second signal took {waited} s");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped stack with its top cube replaced by a plate 1000 km wide (4.8e13 kg on cubes of
/// 0.12 kg, on a ground as wide): ETI's increments no longer reduce the approach; the
/// resolution stops as stagnated after a few hundred thousand impulses (it ran to its cap of
/// 1e7, about 5 s, before) and the run ends with exit 3 naming `contact.resolver`, after
/// `check`'s warning about the masses.
#[test]
fn a_stagnating_resolver_stops_the_run_with_exit_3() {
    let text = slow_stack()
        .replace("Eti(divider: 100000)", "Eti(divider: 100)")
        .replace(
            "(name: \"top\", shape: Cuboid(half_extents: (0.025, 0.025, 0.025))",
            "(name: \"top\", shape: Cuboid(half_extents: (5e5, 5e5, 0.025))",
        )
        .replace(
            "half_extents: (0.5, 0.5, 0.05)), position: (0, 0, -0.05)",
            "half_extents: (5e5, 5e5, 0.05)), position: (0, 0, -0.05)",
        );
    assert!(text.contains("5e5, 5e5, 0.025") && text.contains("5e5, 5e5, 0.05"));
    let (child, dir) = start("wide", &text);
    let (code, stderr, waited) = finish(child);
    eprintln!("stagnation: exit {code:?} after {waited:.2} s: {stderr}");
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("times heavier")
            && stderr.contains("stagnated")
            && stderr.contains("`contact.resolver`"),
        "{stderr}"
    );
    assert!(waited < 3.0, "took {waited} s");
    let _ = std::fs::remove_dir_all(&dir);
}
