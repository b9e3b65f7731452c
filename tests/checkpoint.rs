//! Checkpoint and restart: a run resumed from its checkpoint (`run --resume DIR`) writes the
//! same bytes as an uninterrupted run — CSV series, VTK frames and collections — whether it was
//! stopped at an end time or killed with SIGKILL. A resume with a smaller time step goes on from
//! the checkpoint's time (also after a blow-up); a model that does not fit is refused.

mod common;

use common::assert_same_bytes;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn vcsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vcsim"))
}

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vcsim-ckpt-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str]) -> (Option<i32>, String) {
    let out = vcsim().args(args).arg("--quiet").output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Stops at `mid` with checkpoints, resumes to `end`: the same bytes as one run to `end`. The
/// fluid model has a dynamic compound body holding water on a floor (contacts, fluid–body
/// rows); the pile has 3D contacts with a triangle mesh (parry's composite-shape workspaces);
/// the tank at rest keeps one neighbour search's lists over many steps (at rest a search at
/// the current positions gives the same lists, so this case checks that the kept lists cross
/// a checkpoint without changing a byte, not the restore of where the search was).
#[test]
fn a_resumed_run_writes_the_bytes_of_an_uninterrupted_one() {
    // (The sloshing tank also with WCSPH in Verlet steps: the Euler step's counter and the
    // previous sub-step's velocities and densities must survive the checkpoint; the tank's
    // prescribed motion is taken from the clock.)
    let verlet = "method: Wcsph(stepping: Verlet(every: 7)),\n        spacing:";
    // (ISPH with a light dynamic body: the added mass needs each body's velocity one step
    // back, and CG starts from the last pressures.)
    let isph = "method: Isph(),\n        spacing:";
    // (The constraint method splitting steps into sub-steps, `cfl` low enough that about half
    // the steps split: the warm starts' step must survive the checkpoint.)
    let split = "method: Constraint(cfl: 0.05),\n        spacing:";
    for (name, edit, end, mid, every) in [
        ("water_box_2d_apgd.ron", None, "0.2", "0.093", "0.04"),
        ("pile_3d_apgd.ron", None, "1.6", "1.13", "0.25"),
        ("dam_break_2d_wcsph.ron", None, "0.1", "0.047", "0.02"),
        ("sloshing_2d_apgd.ron", None, "0.1", "0.047", "0.02"),
        ("sloshing_2d_apgd.ron", Some(verlet), "0.1", "0.047", "0.02"),
        ("buoyancy_2d_apgd.ron", Some(isph), "0.1", "0.047", "0.02"),
        ("dam_break_2d_apgd.ron", Some(split), "0.1", "0.047", "0.02"),
        ("cube_stack_eti.ron", None, "0.1", "0.047", "0.02"),
        // (Water at rest: the projection keeps one search's lists for many steps, so the
        // resumed run must rebuild them where that search was made.)
        ("hydrostatic_2d_kcsph.ron", None, "0.2", "0.093", "0.04"),
    ] {
        let tag = format!(
            "{}{}",
            name.trim_end_matches(".ron"),
            edit.map_or("", |_| "-v")
        );
        let base = scratch(&tag);
        let mut m = model(name);
        if let Some(edit) = edit {
            let text = std::fs::read_to_string(&m)
                .unwrap()
                .replacen("spacing:", edit, 1);
            std::fs::create_dir_all(&base).unwrap();
            m = base.join(name);
            std::fs::write(&m, text).unwrap();
        }
        let m = m.to_str().unwrap();
        let (a, b) = (base.join("a"), base.join("b"));
        let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
        assert_eq!(run(&["run", m, "--out", a_s, "--end", end]).0, Some(0));
        let (code, err) = run(&[
            "run",
            m,
            "--out",
            b_s,
            "--end",
            mid,
            "--checkpoint-every",
            every,
        ]);
        assert_eq!(code, Some(0), "{err}");
        assert!(b.join("checkpoint.bin").exists());
        let (code, err) = run(&["run", "--resume", b_s, "--end", end]);
        assert_eq!(code, Some(0), "{err}");
        assert!(err.contains("resuming"), "{err}");
        assert_same_bytes(&a, &b);
        let _ = std::fs::remove_dir_all(&base);
    }
}

/// SIGKILL at some moment after the first checkpoint; the resumed run still matches.
#[test]
#[cfg(unix)]
fn a_run_killed_with_sigkill_resumes_to_the_same_bytes() {
    let base = scratch("kill");
    let m = model("water_box_2d_apgd.ron");
    let m = m.to_str().unwrap();
    let (a, b) = (base.join("a"), base.join("b"));
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    assert_eq!(run(&["run", m, "--out", a_s, "--end", "0.6"]).0, Some(0));
    let mut child = vcsim()
        .args(["run", m, "--out", b_s, "--end", "0.6", "--quiet"])
        .args(["--checkpoint-every", "0.04", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The checkpoint of t = 0 is written at once; wait for a later one (t = 0.04 s).
    let t0 = Instant::now();
    let ck = b.join("checkpoint.bin");
    let first = loop {
        if let Ok(m) = std::fs::metadata(&ck) {
            break m.modified().unwrap();
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "no checkpoint");
        std::thread::sleep(Duration::from_millis(5));
    };
    while std::fs::metadata(&ck).unwrap().modified().unwrap() == first
        && t0.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    println!("killed: {status:?} after {:?}", t0.elapsed());
    let (code, err) = run(&["run", "--resume", b_s]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("resuming"), "{err}");
    assert_same_bytes(&a, &b);
    let _ = std::fs::remove_dir_all(&base);
}

/// The dam break with dt = 0.05 s leaves its bounds at the first step; the checkpoint of the
/// start resumes it with the model's own dt (5e-4 s), and the clock goes on from there: output
/// rows every 5 ms up to the end.
#[test]
fn a_blown_up_run_resumes_with_a_smaller_time_step() {
    let base = scratch("dt");
    let src = std::fs::read_to_string(model("dam_break_2d_apgd.ron")).unwrap();
    assert!(src.contains("dt: 0.0005"));
    let coarse = base.join("coarse.ron");
    std::fs::write(&coarse, src.replace("dt: 0.0005", "dt: 0.05")).unwrap();
    let out = base.join("run");
    let out_s = out.to_str().unwrap();
    let (code, err) = run(&[
        "run",
        coarse.to_str().unwrap(),
        "--out",
        out_s,
        "--checkpoint-every",
        "0.1",
    ]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("--resume"),
        "the message says how to resume: {err}"
    );
    let fine = model("dam_break_2d_apgd.ron");
    let (code, err) = run(&[
        "run",
        fine.to_str().unwrap(),
        "--resume",
        out_s,
        "--end",
        "0.02",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let csv = std::fs::read_to_string(out.join("fluid.csv")).unwrap();
    let times: Vec<f64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(times, [0.0, 0.005, 0.01, 0.015, 0.02], "{csv}");
    let _ = std::fs::remove_dir_all(&base);
}

/// A model with other particles, or a damaged checkpoint, is refused with exit code 2 and a
/// message that says why; nothing in the folder is changed.
#[test]
fn a_model_that_does_not_fit_or_a_damaged_checkpoint_is_refused() {
    let base = scratch("refuse");
    let m = model("water_box_2d_apgd.ron");
    let out = base.join("run");
    let out_s = out.to_str().unwrap();
    let (code, err) = run(&[
        "run",
        m.to_str().unwrap(),
        "--out",
        out_s,
        "--end",
        "0.02",
        "--checkpoint-every",
        "0.01",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let before = std::fs::read(out.join("bodies.csv")).unwrap();
    let src = std::fs::read_to_string(&m).unwrap();
    assert!(src.contains("spacing: 0.02"));
    let other = base.join("finer.ron");
    std::fs::write(&other, src.replace("spacing: 0.02", "spacing: 0.01")).unwrap();
    let (code, err) = run(&[
        "run",
        other.to_str().unwrap(),
        "--resume",
        out_s,
        "--end",
        "0.04",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("does not fit the checkpoint") && err.contains("fluid particles"),
        "{err}"
    );
    let (code, err) = run(&["run", "--resume", out_s, "--end", "0.01"]);
    assert_eq!(code, Some(2), "an end before the checkpoint: {err}");
    let ck = out.join("checkpoint.bin");
    let mut bytes = std::fs::read(&ck).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&ck, &bytes).unwrap();
    let (code, err) = run(&["run", "--resume", out_s, "--end", "0.04"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("damaged"), "{err}");
    std::fs::write(&ck, b"not a checkpoint").unwrap();
    let (code, err) = run(&["run", "--resume", out_s, "--end", "0.04"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a vcsim checkpoint"), "{err}");
    let (code, err) = run(&["run", "--resume", base.join("nothing").to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(std::fs::read(out.join("bodies.csv")).unwrap(), before);
    let _ = std::fs::remove_dir_all(&base);
}
