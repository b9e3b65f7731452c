//! The same tiny study on one machine, as two shards merged, and under `mpirun -n 2` (the
//! `mpi` feature) gives the same `table.csv`, apart from its wall-time columns.
//!
//! The MPI run needs OpenMPI (`mpirun`) and builds vcsim with `--features mpi` as
//! `vcsim-mpi` beside the test binaries; without `mpirun` that part is skipped with a message, unless
//! `VCSIM_REQUIRE_MPI` is set (CI sets it, so there it cannot be skipped).

mod common;

use common::mpi::{mpi_build, ok};
use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const COLUMN: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 0.05),
    solver: Apgd(max_iterations: 100, tolerance: 1e-3),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.3, 0.03)), position: (0.2, -0.03)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.03, 0.15)), position: (-0.03, 0.15)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.03, 0.15)), position: (0.43, 0.15)),
        (name: "box", shape: Cuboid(half_extents: (0.03, 0.03)), position: (0.3, 0.1), mass: 1.8),
    ],
    fluid: (spacing: 0.01, regions: [Box(min: (0, 0), max: (0.1, 0.2))]),
    output: (every: 0.01, vtk: false, plot: false),
    probes: [Front(1, 0, 0), DensityError, Position("box")],
)
"#;

const STUDY: &str = r#"Study(
    model: "column.ron",
    axes: [
        Cases(name: "method", levels: [
            (label: "apgd"),
            (label: "pgs", set: [("solver", Pgs(max_iterations: 10, tolerance: 1e-9))]),
            (label: "wcsph", set: [("fluid.method", Wcsph())]),
        ]),
        Field(name: "dt", field: "time.dt", values: [1e-3, 2e-3]),
    ],
    metrics: [
        Final(column: "front(1 0 0)"), Mean(column: "max_compression"), Final(column: "box.pos.y"),
        Run(WallTime), Run(TimePerStep), Run(MeanIterations), Run(LargestCompression),
    ],
    plots: [Series(column: "front(1 0 0)")],
)
"#;

fn vcsim(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin).args(args).output().unwrap()
}

/// The table without its wall-time columns.
fn table(dir: &Path) -> String {
    let t = std::fs::read_to_string(dir.join("table.csv")).unwrap();
    let head: Vec<&str> = t.lines().next().unwrap().split(',').collect();
    let keep: Vec<usize> = (0..head.len())
        .filter(|&i| !matches!(head[i], "wall_s" | "ms_per_step" | "wall_per_sim_s"))
        .collect();
    assert_eq!(keep.len(), head.len() - 2);
    t.lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            keep.iter().map(|&i| cells[i]).collect::<Vec<_>>().join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn scratch() -> Scratch {
    let d = Scratch::new("study-cluster");
    std::fs::write(d.join("column.ron"), COLUMN).unwrap();
    std::fs::write(d.join("s.ron"), STUDY).unwrap();
    d
}

#[test]
fn one_machine_shards_and_mpi_give_the_same_table() {
    let d = scratch();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_vcsim"));
    let s = d.join("s.ron");
    let s = s.to_str().unwrap();
    let path = |n: &str| d.join(n).to_str().unwrap().to_string();
    ok(vcsim(
        &bin,
        &["study", s, "--out", &path("one"), "--jobs", "2"],
    ));
    let one = table(&d.join("one"));
    assert_eq!(one.lines().count(), 7, "{one}");
    assert_eq!(one.matches(",done,").count(), 6, "{one}");
    // Two shards (as two array jobs would run them), then merged.
    ok(vcsim(
        &bin,
        &[
            "study",
            s,
            "--out",
            &path("a"),
            "--shard",
            "1/2",
            "--threads",
            "1",
        ],
    ));
    let o = ok(vcsim(
        &bin,
        &[
            "study",
            s,
            "--out",
            &path("b"),
            "--shard",
            "2/2",
            "--threads",
            "2",
        ],
    ));
    assert!(String::from_utf8_lossy(&o.stdout).contains("3 in shard 2/2"));
    let half = std::fs::read_to_string(d.join("b/table.csv")).unwrap();
    assert_eq!(half.matches(",not run,").count(), 3, "{half}");
    ok(vcsim(
        &bin,
        &[
            "study",
            "--merge",
            &path("a"),
            &path("b"),
            "--out",
            &path("merged"),
        ],
    ));
    assert_eq!(table(&d.join("merged")), one);
    assert!(d.join("merged/series-0.png").exists());
    // Under MPI.
    if let Some(mpi) = mpi_build() {
        let o = Command::new("mpirun")
            .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
            .arg(&mpi)
            .args(["study", s, "--out", &path("mpi"), "--jobs", "1"])
            .output()
            .unwrap();
        ok(o);
        assert_eq!(table(&d.join("mpi")), one);
    }
}
