//! A real SIGINT to a running fluid run: the run finishes its step, writes everything and exits
//! 130; every CSV ends on a complete row under its header, the summary says where it stopped,
//! the `.pvd` files list every frame written, and `render` draws them.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn frames(dir: &Path, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("frames"))
        .map(|r| {
            r.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(prefix) && n.ends_with(".vtu"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn sigint_stops_a_fluid_run_with_everything_written() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_apgd.ron");
    let dir: PathBuf = std::env::temp_dir().join(format!("vcsim-sigint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet", model.to_str().unwrap(), "--out"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a few frames are out (the run takes tens of seconds in all).
    let t0 = Instant::now();
    while frames(&dir, "fluid_").len() < 4 {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no frames appeared"
        );
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "exit code; stderr: {stderr}");
    assert!(stderr.contains("interrupted at step"), "{stderr}");

    for name in [
        "series.csv",
        "bodies.csv",
        "probes.csv",
        "fluid.csv",
        "contacts.csv",
        "joints.csv",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(text.ends_with('\n'), "{name} ends mid-row");
        let mut lines = text.lines();
        let header = lines
            .next()
            .unwrap_or_else(|| panic!("{name} has no header"));
        let n = header.split(',').count();
        for l in lines {
            assert_eq!(l.split(',').count(), n, "{name}: incomplete row {l:?}");
        }
    }
    let series = std::fs::read_to_string(dir.join("series.csv")).unwrap();
    let summary = std::fs::read_to_string(dir.join("summary.txt")).unwrap();
    assert!(summary.contains("interrupted at step"), "{summary}");
    let last_t: f64 = series
        .lines()
        .last()
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        summary.contains(&format!("t = {last_t:.6} s")),
        "summary {summary:?} vs last row at t = {last_t}"
    );
    for (pvd, prefix) in [("fluid.pvd", "fluid_"), ("bodies.pvd", "bodies_")] {
        let listed = std::fs::read_to_string(dir.join(pvd)).unwrap();
        let written = frames(&dir, prefix);
        assert_eq!(
            listed.matches("<DataSet").count(),
            written.len(),
            "{pvd} lists every frame"
        );
        for f in &written {
            assert!(listed.contains(f.as_str()), "{pvd} misses {f}");
        }
        assert_eq!(
            written.len(),
            series.lines().count() - 1,
            "one frame per output row"
        );
    }
    let s = vcsim::io::render::render(&dir, &Default::default()).expect("render draws the frames");
    assert_eq!(s.pngs.len(), frames(&dir, "fluid_").len());
    println!(
        "SIGINT after {} frames: exit 130, {} rows, summary: {}",
        s.pngs.len(),
        series.lines().count() - 1,
        summary.lines().nth(1).unwrap_or("").trim()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
