//! The library's stepper ([`vcsim::io::session::Session`], what the Python bindings drive):
//! stepped one step at a time it writes the bytes `vcsim run` writes; its checkpoints resume
//! as a session and with `vcsim run --resume`, and a CLI checkpoint resumes as a session, to
//! the same bytes; a folder that holds files is refused; a run that leaves its bounds stops
//! stepping and writes no checkpoint of its state.

mod common;

use common::assert_same_bytes;
use std::path::{Path, PathBuf};
use std::process::Command;
use vcsim::io::session::{Session, SessionError};
use vcsim::registry::Registry;

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(name)
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vcsim-session-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn cli(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(args)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn session(name: &str, out: Option<&Path>) -> Session {
    let p = model(name);
    let (m, text) = vcsim::model::load_file(&p).unwrap();
    Session::new(&m, (&p, &text), out, &Registry::new()).unwrap()
}

#[test]
fn a_session_writes_the_cli_bytes_and_its_checkpoints_resume_both_ways() {
    // A dynamic container of water (contacts, fluid-body rows), and impulse-resolved cubes.
    for (name, end, mid) in [
        ("water_box_2d_apgd.ron", 0.1, 0.047),
        ("cube_stack_eti.ron", 0.1, 0.047),
    ] {
        let d = scratch(name.trim_end_matches(".ron"));
        let reference = d.join("cli");
        let end_text = end.to_string();
        cli(&[
            "run",
            model(name).to_str().unwrap(),
            "--out",
            reference.to_str().unwrap(),
            "--end",
            &end_text,
        ]);
        // Stepped to the end in one go.
        let straight = d.join("straight");
        let mut s = session(name, Some(&straight));
        assert!(!s.run_until(end, || false).unwrap());
        assert_same_bytes(&reference, &straight);
        let samples_to_mid = s.series.time.iter().filter(|&&t| t <= mid).count();
        let samples = s.series.time.len();
        assert_eq!(
            s.totals().samples,
            samples,
            "the start is counted as the runner counts it"
        );
        // Stopped between output times, checkpointed, stepped on (to be cut back), resumed.
        let resumed = d.join("resumed");
        let mut s = session(name, Some(&resumed));
        s.run_until(mid, || false).unwrap();
        s.write_checkpoint(None, Some(end)).unwrap();
        s.run_until(mid + 0.02, || false).unwrap();
        drop(s);
        let mut s = Session::resume(&resumed, &Registry::new()).unwrap();
        // The samples before the checkpoint are read back from its probes.csv.
        assert_eq!(s.series.time.len(), samples_to_mid);
        s.run_until(end, || false).unwrap();
        assert_eq!(s.series.time.len(), samples);
        assert_eq!(s.totals().samples, samples);
        assert_same_bytes(&reference, &resumed);
        // A session's checkpoint resumed by the CLI.
        let by_cli = d.join("by_cli");
        let mut s = session(name, Some(&by_cli));
        s.run_until(mid, || false).unwrap();
        s.write_checkpoint(None, Some(end)).unwrap();
        drop(s);
        cli(&["run", "--resume", by_cli.to_str().unwrap()]);
        assert_same_bytes(&reference, &by_cli);
        // A CLI checkpoint resumed as a session.
        let from_cli = d.join("from_cli");
        let mid_text = "0.04".to_string();
        cli(&[
            "run",
            model(name).to_str().unwrap(),
            "--out",
            from_cli.to_str().unwrap(),
            "--end",
            &mid_text,
            "--checkpoint-every",
            &mid_text,
        ]);
        let mut s = Session::resume(&from_cli, &Registry::new()).unwrap();
        s.run_until(end, || false).unwrap();
        assert_same_bytes(&reference, &from_cli);
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn a_folder_with_files_is_refused_and_a_blow_up_stops_the_session() {
    let d = scratch("refused");
    std::fs::write(d.join("mine.txt"), "keep").unwrap();
    let p = model("water_box_2d_apgd.ron");
    let (m, text) = vcsim::model::load_file(&p).unwrap();
    let e = Session::new(&m, (&p, &text), Some(&d), &Registry::new())
        .err()
        .expect("refused");
    assert!(e.to_string().contains("already holds files"), "{e}");
    assert_eq!(std::fs::read_to_string(d.join("mine.txt")).unwrap(), "keep");
    // A guard far below the compression the run reaches.
    let text = text.replace("output:", "guard: (max_compression: 1e-6),\n    output:");
    let m = vcsim::model::parse_str(&p, &text).unwrap();
    let mut s = Session::new(&m, (&p, &text), None, &Registry::new()).unwrap();
    let e = s.run_until(0.5, || false).unwrap_err();
    assert!(matches!(e, SessionError::Step(_)), "{e}");
    assert!(e.to_string().contains("max_compression"), "{e}");
    let again = s.step().unwrap_err().to_string();
    assert!(again.contains("stopped stepping"), "{again}");
    let ck = s.write_checkpoint(Some(&d), None).unwrap_err().to_string();
    assert!(ck.contains("outside the run's bounds"), "{ck}");
    assert!(!d.join("checkpoint.bin").exists());
    // An end before now, or beyond reach.
    assert!(s.steps_to(-1.0).is_err());
    assert!(s.steps_to(f64::NAN).is_err());
    assert!(s.steps_to(1e300).is_err());
    let _ = std::fs::remove_dir_all(&d);
}
