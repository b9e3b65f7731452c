//! `mpirun -n N vcsim run MODEL` (issue 55): the 2D dam break (WCSPH, the constraint method
//! and ISPH), the 3D dam break and a floating box (the constraint method) divided among 2 and 4 MPI ranks (oversubscribed on a small machine) against the same model in one process: the same
//! `probes.csv` columns and times, fronts within 1 % at every output, the largest compression
//! within 0.1 percentage point; each output's VTK pieces join into one frame holding every
//! particle once; a model that cannot run divided is refused before anything is written; SIGINT
//! to `mpirun`, or a rank killed, leaves `probes.csv` with whole rows up to the last output, and
//! the run resumes from its per-rank checkpoints to the bytes of a run never interrupted.
//!
//! Needs OpenMPI: without `mpirun` the test is skipped with a message, unless
//! `VCSIM_REQUIRE_MPI` is set (CI sets it).

mod common;

use common::mpi::{mpi_build, ok};
use common::{floating_box, Scratch, DAM_BREAK_2D_WCSPH as DAM, DAM_BREAK_3D_WCSPH as DAM_3D};
use std::path::Path;
use std::process::Command;

/// A folder of this test's own (the tests run at the same time).
fn scratch(test: &str) -> Scratch {
    let d = Scratch::new(&format!("divided-mpi-{test}"));
    std::fs::write(d.join("dam.ron"), DAM).unwrap();
    std::fs::write(d.join("rows.ron"), DAM.replace("method: Wcsph(), ", "")).unwrap();
    std::fs::write(d.join("isph.ron"), DAM.replace("Wcsph()", "Isph()")).unwrap();
    // The 3D dam break and the floating box with the constraint method (the default).
    // (With its VTK frames, which the test joins.)
    let dam3d = DAM_3D
        .replace("method: Wcsph(), ", "")
        .replace("vtk: false, ", "");
    std::fs::write(d.join("rows3d.ron"), dam3d).unwrap();
    std::fs::write(
        d.join("box.ron"),
        floating_box(&DAM.replace("method: Wcsph(), ", "")),
    )
    .unwrap();
    std::fs::write(
        d.join("direct.ron"),
        DAM.replace("Wcsph()", "Isph(solver: Direct)"),
    )
    .unwrap();
    d
}

fn mpirun(bin: &Path, n: usize, args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &n.to_string(),
    ])
    .arg(bin)
    .args(args);
    c
}

/// `probes.csv`: the header and the rows.
fn probes(dir: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(dir.join("probes.csv")).unwrap();
    let mut lines = text.lines();
    let head = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    (head, rows)
}

/// Each output's frame: `fluid.pvd` lists one `.pvtu` per output, each joining `n` pieces
/// that hold every particle once.
fn frames_join(out: &Path, n: usize, particles: usize, outputs: usize) {
    let pvd = std::fs::read_to_string(out.join("fluid.pvd")).unwrap();
    let listed: Vec<&str> = pvd
        .lines()
        .filter_map(|l| l.split("file=\"").nth(1)?.split('"').next())
        .collect();
    assert_eq!(listed.len(), outputs);
    for f in listed {
        let pvtu = std::fs::read_to_string(out.join(f)).unwrap();
        let pieces: Vec<&str> = pvtu
            .lines()
            .filter_map(|l| l.split("Source=\"").nth(1)?.split('"').next())
            .collect();
        assert_eq!(pieces.len(), n, "{pvtu}");
        let mut ids = Vec::new();
        for p in pieces {
            let text = std::fs::read_to_string(out.join("frames").join(p)).unwrap();
            let (_, tail) = text.split_once("Name=\"id\" format=\"ascii\">").unwrap();
            let body = tail.split("</DataArray>").next().unwrap();
            ids.extend(body.split_whitespace().map(|w| w.parse::<usize>().unwrap()));
        }
        ids.sort_unstable();
        assert_eq!(
            ids,
            (0..particles).collect::<Vec<_>>(),
            "{f}: every particle once"
        );
    }
}

/// The inner solve's iterations per model step of a run in one process, from its summary
/// (`mean X … iterations per sub-step` times `sub-steps mean Y per step`); `None` for a method
/// without one.
fn inner_per_step(out: &str) -> Option<f64> {
    let summary = std::fs::read_to_string(Path::new(out).join("summary.txt")).ok()?;
    let number_after = |key: &str| -> Option<f64> {
        let line = summary.lines().find(|l| l.trim_start().starts_with(key))?;
        line.split("mean ").nth(1)?.split(' ').next()?.parse().ok()
    };
    Some(number_after("pressure solve")? * number_after("sub-steps")?)
}

/// `NAME.ron` in `d` under `mpirun -n 2` and `-n 4` against one process (`particles` of
/// them): fronts within 1 % at every output, the largest compression within 0.1 percentage
/// point; a model whose last two columns are a body's position (`body`), that position within
/// 1 % of the tank's length (0.584 m) at every output.
fn matches_under_mpirun(bin: &Path, d: &Path, name: &str, particles: usize, body: bool) {
    let model = d.join(format!("{name}.ron"));
    let model = model.to_str().unwrap();
    let path = |n: &str| d.join(format!("{name}-{n}")).to_str().unwrap().to_string();
    ok(Command::new(bin)
        .args([
            "run",
            model,
            "--out",
            &path("one"),
            "--quiet",
            "--threads",
            "1",
        ])
        .output()
        .unwrap());
    let (head, one) = probes(Path::new(&path("one")));
    let largest = one.iter().map(|r| r[2]).fold(0.0, f64::max);
    for n in [2, 4] {
        let out = path(&format!("n{n}"));
        let o = ok(mpirun(
            bin,
            n,
            &["run", model, "--out", &out, "--quiet", "--threads", "1"],
        )
        .output()
        .unwrap());
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(
            text.contains(&format!("divided among {n} MPI ranks")),
            "{text}"
        );
        // A method with a solve of its own (ISPH's pressure CG): its iterations per step within
        // 1.5× of one process's.
        if let Some(one) = inner_per_step(&path("one")) {
            let per_step = text
                .split("fluid's own solve iterations ")
                .nth(1)
                .and_then(|t| t.split(" (").nth(1)?.split(' ').next()?.parse::<f64>().ok())
                .expect("the divided run reports its solve's iterations");
            eprintln!("{name}, {n} ranks: {per_step} solve iterations per step against {one}");
            assert!(per_step <= 1.5 * one, "{n} ranks: {per_step} against {one}");
        }
        let (h, rows) = probes(Path::new(&out));
        assert_eq!(h, head);
        frames_join(Path::new(&out), n, particles, rows.len());
        assert_eq!(rows.len(), one.len());
        let (mut worst, mut moved) = (0.0f64, 0.0f64);
        for (r, w) in rows.iter().zip(&one) {
            assert_eq!(r[0], w[0]);
            worst = worst.max((r[1] - w[1]).abs() / w[1]);
            if body {
                let k = r.len() - 2;
                moved = moved
                    .max((r[k] - w[k]).abs())
                    .max((r[k + 1] - w[k + 1]).abs());
            }
        }
        if body {
            eprintln!("{name}, {n} ranks: the body within {moved:.2e} m");
            assert!(moved < 0.01 * 0.584, "{n} ranks: the body off by {moved} m");
        }
        let c = rows.iter().map(|r| r[2]).fold(0.0, f64::max);
        eprintln!(
            "{name}, {n} ranks: fronts within {:.2e} %, largest compression {c} against \
             {largest}",
            100.0 * worst
        );
        assert!(worst < 0.01, "{n} ranks: a front off by {worst}");
        assert!((c - largest).abs() < 1e-3);
    }
}

#[test]
fn dam_break_under_mpirun_matches_one_process() {
    let Some(bin) = mpi_build() else {
        return;
    };
    let d = scratch("dam");
    let path = |n: &str| d.join(n).to_str().unwrap().to_string();
    // WCSPH, the constraint method (its solve divided among the ranks) and ISPH (its pressure
    // solves divided).
    for name in ["dam", "rows", "isph"] {
        matches_under_mpirun(&bin, &d, name, 800, false);
    }
    // ISPH's direct pressure solve (not divided) is refused before anything is written.
    let bad = path("direct.ron");
    let o = mpirun(&bin, 2, &["run", &bad, "--out", &path("bad"), "--quiet"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains("direct pressure solve (`solver: Direct`) does not run divided"),
        "{text}"
    );
    assert!(!d.join("bad").join("probes.csv").exists());
}

/// The 3D dam break (512 particles) and a light box carried by the 2D surge, with the
/// constraint method, under `mpirun -n 2` and `-n 4`: the same criteria as the 2D dam break,
/// and the box's position within 1 % of the tank's length of one process's.
#[test]
fn dam_break_3d_and_floating_box_under_mpirun_match_one_process() {
    let Some(bin) = mpi_build() else {
        return;
    };
    let d = scratch("3d-box");
    matches_under_mpirun(&bin, &d, "rows3d", 512, false);
    matches_under_mpirun(&bin, &d, "box", 800, true);
}

#[test]
fn sigint_to_mpirun_keeps_whole_rows_and_resumes() {
    interrupted("sigint", None);
}

/// A rank killed outright (SIGKILL to the second rank's process): `mpirun` ends the job,
/// `probes.csv` (rank 0's) still holds whole rows only, and the newest step every rank saved
/// resumes.
#[test]
fn a_killed_rank_leaves_whole_rows_and_resumes() {
    interrupted("killed", Some("-KILL"));
}

/// Runs the dam break for long under `mpirun -n 2` with a checkpoint every 0.02 s, waits for
/// five outputs, then sends SIGINT to `mpirun` (`kill_rank` None) or the given signal to the
/// rank that is not the first; then resumes the run from its per-rank checkpoints to a little
/// after its last output and checks that `probes.csv`, the VTK frames and `fluid.pvd` are,
/// byte for byte, those of a run to that end that was never interrupted.
fn interrupted(name: &str, kill_rank: Option<&str>) {
    let Some(bin) = mpi_build() else {
        return;
    };
    let d = scratch(name);
    let model = d.join("dam.ron");
    std::fs::write(&model, DAM.replace("end: 0.25", "end: 30.0")).unwrap();
    let model = model.to_str().unwrap();
    let out = d.join("out");
    let run = |out: &Path, more: &[&str]| {
        let mut args = vec!["run", model, "--out", out.to_str().unwrap(), "--quiet"];
        args.extend(["--threads", "1"]);
        args.extend(more);
        mpirun(&bin, 2, &args)
    };
    let child = run(&out, &["--checkpoint-every", "0.02"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let csv = out.join("probes.csv");
    let t0 = std::time::Instant::now();
    while std::fs::read_to_string(&csv).map_or(0, |t| t.lines().count()) < 6 {
        assert!(t0.elapsed().as_secs() < 120, "no output after 120 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let kill = match kill_rank {
        None => Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap(),
        Some(signal) => {
            // The ranks are mpirun's children (via its daemon, or directly): the vcsim
            // processes whose output folder is this test's, the newest of them.
            let pgrep = Command::new("pgrep")
                .args(["-n", "-f", &format!("vcsim-mpi run .*{}", out.display())])
                .output()
                .unwrap();
            let pid = String::from_utf8_lossy(&pgrep.stdout).trim().to_string();
            assert!(!pid.is_empty(), "no rank found");
            Command::new("kill").args([signal, &pid]).status().unwrap()
        }
    };
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "the run was stopped, not finished");
    let (head, rows) = probes(&out);
    assert!(rows.len() >= 5, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r.len() == head.len()), "a row was cut");
    assert!(rows.windows(2).all(|w| w[1][0] > w[0][0]));
    let stopped = rows.last().unwrap()[0];
    assert!(stopped < 30.0);
    if kill_rank.is_none() {
        let text = String::from_utf8_lossy(&o.stderr);
        assert!(text.contains("mpirun -n 2 vcsim run --resume"), "{text}");
        // One process, or another number of ranks, is told how to resume instead.
        let dir = out.to_str().unwrap();
        let o = Command::new(&bin)
            .args(["run", "--resume", dir])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(text.contains("divided among MPI ranks"), "{text}");
        let o = mpirun(&bin, 3, &["run", "--resume", dir]).output().unwrap();
        let text = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}");
        assert!(text.contains("written by 2 ranks"), "{text}");
    }
    // Resumed to three outputs past the last row, against a run to that end.
    let end = format!("{:.2}", stopped + 0.03);
    let o = ok(mpirun(
        &bin,
        2,
        &[
            "run",
            "--resume",
            out.to_str().unwrap(),
            "--end",
            &end,
            "--quiet",
        ],
    )
    .output()
    .unwrap());
    let text = String::from_utf8_lossy(&o.stderr);
    assert!(text.contains("resuming"), "{text}");
    let through = d.join("through");
    ok(run(&through, &["--end", &end]).output().unwrap());
    let mut files = vec!["probes.csv".to_string(), "fluid.pvd".to_string()];
    for e in std::fs::read_dir(through.join("frames")).unwrap() {
        files.push(format!(
            "frames/{}",
            e.unwrap().file_name().to_string_lossy()
        ));
    }
    assert!(files.len() > 3 * 8, "{} files", files.len());
    for f in &files {
        let (a, b) = (std::fs::read(through.join(f)), std::fs::read(out.join(f)));
        assert!(
            a.unwrap() == b.unwrap(),
            "{name}: {f} differs after the resume"
        );
    }
    assert_eq!(
        std::fs::read_dir(out.join("frames")).unwrap().count(),
        files.len() - 2,
        "{name}: frames of the interrupted run past its checkpoint are left"
    );
    eprintln!(
        "{name}: stopped at t = {stopped} s, resumed to {end} s: {} files the same to the byte",
        files.len()
    );
}
