//! `vcsim study` on tiny studies: axes expand into the right cases (cross product and list),
//! a metric against reference data on a series with a known error, a rerun skips finished cases
//! and reruns a changed one, a failing case is reported with its reason while the others run,
//! and a study naming a field that does not exist (or a value the field cannot take) is a
//! located error in the study file. Every shipped study in `models/studies/` passes `check`.

mod common;

use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BALL: &str = r#"// A ball dropped on the ground.
Model(
    time: (dt: 0.002, end: 0.2),
    solver: Pgs(max_iterations: 30, tolerance: 1e-9),
    materials: [(name: "rubber", density: 1100, friction: 0.5, restitution: 0.5)],
    bodies: [
        (name: "ground", kind: Static, shape: Cuboid(half_extents: (2, 2, 0.1)), position: (0, 0, -0.1), material: "rubber"),
        (name: "ball", shape: Ball(radius: 0.1), position: (0, 0, 0.3), material: "rubber"),
    ],
    output: (every: 0.01, vtk: false, plot: false),
    probes: [Position("ball"), Velocity("ball")],
)
"#;

/// A water column collapsing in a tank (2D, 200 particles).
pub const COLUMN: &str = r#"Model(
    scene: (dimension: Two, gravity: (0, -9.81)),
    time: (dt: 0.001, end: 0.1),
    solver: Apgd(max_iterations: 100, tolerance: 1e-3),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (0.3, 0.03)), position: (0.2, -0.03)),
        (name: "left", kind: Static, shape: Cuboid(half_extents: (0.03, 0.15)), position: (-0.03, 0.15)),
        (name: "right", kind: Static, shape: Cuboid(half_extents: (0.03, 0.15)), position: (0.43, 0.15)),
    ],
    fluid: (spacing: 0.01, regions: [Box(min: (0, 0), max: (0.1, 0.2))]),
    output: (every: 0.01, vtk: false, plot: false),
    probes: [Front(1, 0, 0), DensityError],
)
"#;

fn scratch(name: &str) -> Scratch {
    let d = Scratch::new(&format!("study-{name}"));
    std::fs::write(d.join("ball.ron"), BALL).unwrap();
    std::fs::write(d.join("column.ron"), COLUMN).unwrap();
    d
}

fn vcsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn study(dir: &Path, body: &str) -> PathBuf {
    let p = dir.join("s.ron");
    std::fs::write(&p, format!("Study(\n    model: \"ball.ron\",\n{body}\n)\n")).unwrap();
    p
}

#[test]
fn axes_expand_into_cross_products_and_lists() {
    let d = scratch("expand");
    let p = study(
        &d,
        r#"    axes: [
        Field(name: "dt", field: "time.dt", values: [1e-3, 2e-3, 4e-3]),
        Field(name: "e", field: "materials[rubber].restitution", values: [0.2, 0.9], labels: ["soft", "hard"]),
    ],"#,
    );
    let s = vcsim::study::load_study(&p).unwrap();
    let labels: Vec<&str> = s.cases.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "1e-3/soft",
            "1e-3/hard",
            "2e-3/soft",
            "2e-3/hard",
            "4e-3/soft",
            "4e-3/hard"
        ]
    );
    let c = &s.cases[3];
    assert!(
        c.text.contains("time: (dt: 2e-3, end: 0.2)") && c.text.contains("restitution: 0.9)"),
        "{}",
        c.text
    );
    assert!(
        c.text.starts_with("// A ball dropped"),
        "the case keeps the model's text"
    );
    assert!(s.cases.iter().all(|c| c.error.is_none()));
    // A list: level k of every axis; a Cases axis sets several fields, one added to the text.
    let p = study(
        &d,
        r#"    combine: Zip,
    axes: [
        Field(name: "dt", field: "time.dt", values: [1e-3, 2e-3]),
        Cases(name: "ball", levels: [
            (label: "light", value: 1, set: [("bodies[ball].mass", 0.5), ("bodies[ball].velocity", (0, 0, 1))]),
            (label: "heavy", value: 2, set: [("bodies[ball].mass", 5)]),
        ]),
    ],"#,
    );
    let s = vcsim::study::load_study(&p).unwrap();
    let labels: Vec<&str> = s.cases.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["1e-3/light", "2e-3/heavy"]);
    assert!(
        s.cases[0]
            .text
            .contains("(velocity: (0, 0, 1), mass: 0.5, name: \"ball\""),
        "{}",
        s.cases[0].text
    );
    let m = vcsim::model::load::parse_str(&p, &s.cases[1].text).unwrap();
    assert_eq!(m.bodies[1].mass.map(|x| x.0), Some(5.0));
    assert_eq!(m.time.dt.unwrap().0, 2e-3);
    assert_eq!(s.axes[1].levels[1].value, Some(2.0));
    // Zip needs axes of one length.
    let p = study(
        &d,
        r#"    combine: Zip,
    axes: [Field(name: "dt", field: "time.dt", values: [1e-3, 2e-3]), Field(name: "e", field: "materials[0].restitution", values: [0.5])],"#,
    );
    let e = vcsim::study::load_study(&p).unwrap_err();
    assert!(
        e.to_string()
            .contains("axis `e` has 1 levels and axis `dt` has 2"),
        "{e}"
    );
}

#[test]
fn a_metric_against_reference_data_has_the_known_error() {
    // y = 2t sampled every 0.1 s against reference points 10 % above it, in reference units
    // X = 10 t, Y = y / 2.
    let t: Vec<f64> = (0..=10).map(|k| k as f64 * 0.1).collect();
    let v: Vec<f64> = t.iter().map(|t| 2.0 * t).collect();
    let d = scratch("metric");
    std::fs::write(
        d.join("ref.csv"),
        "# synthetic\nseries,X,Y\na,1.5,0.165\na,3,0.33\nb,3,99\na,7.25,0.7975\n",
    )
    .unwrap();
    let defs = vec![ron::from_str::<vcsim::study::schema::ReferenceDef>(
        r#"(name: "r", source: Data(file: "ref.csv", series: Some("a"), x: "X", y: "Y"), x_scale: Some(10), y_scale: Some("1/2"))"#,
    ).unwrap()];
    let refs = vcsim::study::metrics::load_references(&d.join("s.ron"), &defs).unwrap();
    assert_eq!(refs[0].points.len(), 3, "the rows of series b are left out");
    use vcsim::study::schema::Norm;
    let e = vcsim::study::metrics::point_error(&t, &v, &refs[0], Norm::MeanRelative, (None, None))
        .unwrap();
    assert!((e - 0.1 / 1.1).abs() < 1e-12, "{e}");
    let e =
        vcsim::study::metrics::point_error(&t, &v, &refs[0], Norm::MaxAbs, (None, None)).unwrap();
    assert!((e - 0.0725).abs() < 1e-12, "{e}");
}

#[test]
fn a_rerun_skips_finished_cases_and_reruns_changed_ones() {
    let d = scratch("rerun");
    let axes = |v: &str| {
        format!(
            r#"    axes: [Field(name: "dt", field: "time.dt", values: [{v}])],
    metrics: [Final(column: "ball.pos.z"), Min(column: "ball.pos.z", name: "lowest"), Run(Steps)],"#
        )
    };
    let p = study(&d, &axes("1e-3, 2e-3"));
    let out = d.join("out");
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("ran 2, skipped 0"), "{}", text(&o));
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    assert!(
        table.starts_with("case,dt,status,reason,ball.pos.z,lowest,steps\n"),
        "{table}"
    );
    assert!(
        table.contains("1e-3,1e-3,done,,")
            && table.contains(",200.0\n")
            && table.contains(",100.0\n"),
        "{table}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("| 2e-3 | 2e-3 | done |"), "{report}");
    // `table.md`: the report's table alone, for a document to include.
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(
        md.starts_with("| case | dt | status |") && md.contains("| 2e-3 | 2e-3 | done |"),
        "{md}"
    );
    assert!(
        report.contains(&md),
        "report.md holds the same table:\n{md}"
    );
    let kept = std::fs::metadata(out.join("cases/1e-3/result.ron"))
        .unwrap()
        .modified()
        .unwrap();
    // Change one level: only that case runs again.
    let p = study(&d, &axes("1e-3, 4e-3"));
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o).contains("ran 1, skipped 1"), "{}", text(&o));
    assert_eq!(
        std::fs::metadata(out.join("cases/1e-3/result.ron"))
            .unwrap()
            .modified()
            .unwrap(),
        kept
    );
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    assert!(
        table.contains("4e-3,4e-3,done,,") && table.contains(",50.0\n") && !table.contains("2e-3"),
        "{table}"
    );
    // The same command again runs nothing.
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o).contains("ran 0, skipped 2"), "{}", text(&o));
    // New comments and layout in the model run nothing again; the cases' `case.ron` take the
    // model as it now reads. A changed value runs every case again.
    let model = d.join("ball.ron");
    let edited = format!(
        "// a new header\n{}",
        BALL.replacen('(', "( /* a note */\n", 1)
    );
    std::fs::write(&model, &edited).unwrap();
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o).contains("ran 0, skipped 2"), "{}", text(&o));
    let case = std::fs::read_to_string(out.join("cases/4e-3/case.ron")).unwrap();
    assert!(
        case.starts_with("// a new header\n") && case.contains("/* a note */"),
        "{case}"
    );
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    assert!(
        table.contains("4e-3,4e-3,done,,"),
        "the reused cases are reported: {table}"
    );
    std::fs::write(
        &model,
        edited.replacen("restitution: 0.5", "restitution: 0.6", 1),
    )
    .unwrap();
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o).contains("ran 2, skipped 0"), "{}", text(&o));
    std::fs::write(&model, BALL).unwrap();
    // A folder holding something else is never written into.
    let other = d.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let o = vcsim(&[
        "study",
        p.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
}

#[test]
fn a_failing_case_is_reported_and_the_others_run() {
    let d = scratch("fail");
    // dt = 0.05 s with end = 0.01 s is invalid only in combination; dt = 0.05 s moves the
    // column's particles more than a spacing in its first step, from rest: the run leaves its
    // bounds. (At 0.02 s the constraint method's sub-steps carry it through: a step is split
    // by the speeds at its start, and the first is taken whole.)
    let p = d.join("s.ron");
    std::fs::write(
        &p,
        r#"Study(
    model: "column.ron",
    axes: [
        Field(name: "dt", field: "time.dt", values: [0.001, 0.05]),
        Field(name: "end", field: "time.end", values: [0.1, 0.01]),
    ],
    metrics: [Final(column: "front(1 0 0)"), Run(Steps)],
)"#,
    )
    .unwrap();
    let o = vcsim(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "case `0.05/0.01`: field `dt`: the time step (0.05 s) is longer than the run"
        ),
        "{}",
        text(&o)
    );
    let out = d.join("out");
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    let row = |label: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("{label},")))
            .unwrap_or_else(|| panic!("{table}"))
            .to_string()
    };
    assert!(
        row("0.001/0.1").contains(",done,,") && row("0.001/0.1").ends_with(",100.0"),
        "{table}"
    );
    assert!(
        row("0.001/0.01").contains(",done,,") && row("0.001/0.01").ends_with(",10.0"),
        "{table}"
    );
    assert!(
        row("0.05/0.01").contains(",failed,invalid: case `0.05/0.01`: field `dt`: the time step"),
        "{table}"
    );
    let blown = row("0.05/0.1");
    assert!(
        blown.contains(",failed,\"the run left its bounds after step 1")
            && blown.contains("max_cfl"),
        "{blown}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        report.contains("- `0.05/0.1` failed: the run left its bounds"),
        "{report}"
    );
    let md = std::fs::read_to_string(out.join("table.md")).unwrap();
    assert!(
        md.contains("\n- `0.05/0.1` failed: the run left its bounds"),
        "table.md lists the failures below the table:\n{md}"
    );
}

#[test]
fn a_bad_field_or_value_is_located_in_the_study_file() {
    let d = scratch("located");
    let cases = [
        (
            r#"Field(name: "dt", field: "time.dtt", values: [1e-3])"#,
            "s.ron:4:30",
            "field `time.dtt`: level `1e-3` of axis `dt`: Unexpected field named `dtt` in `time`",
        ),
        (
            r#"Field(name: "dt", field: "time.dt", values: [1e-3, -1])"#,
            "s.ron:4:56",
            "field `time.dt`: level `-1` of axis `dt`: expected a positive number (> 0), got -1",
        ),
        (
            r#"Field(name: "m", field: "bodies[rock].density", values: [1])"#,
            "s.ron:4:29",
            "no item of `bodies` is named `rock` (names: ground, ball)",
        ),
        (
            r#"Field(name: "r", field: "contact.resolver", values: [Eti(divider: "x")])"#,
            "s.ron:4:70",
            "level `Eti(divider: \"x\")` of axis `r`",
        ),
    ];
    for (axis, at, what) in cases {
        let p = study(&d, &format!("    axes: [\n    {axis}],"));
        let o = vcsim(&["check", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{axis}: {}", text(&o));
        let t = text(&o);
        assert!(
            t.contains(at) && t.contains(what),
            "{axis}: expected {at} and `{what}`:\n{t}"
        );
    }
    // A probe column no case gives (checked before anything runs).
    let p = study(&d, "    axes: [Field(name: \"dt\", field: \"time.dt\", values: [1e-3])],\n    metrics: [Final(column: \"ball.pos.w\")],");
    let t = text(&vcsim(&["check", p.to_str().unwrap()]));
    assert!(t.contains("s.ron:4:29") && t.contains("no case's probes give a column `ball.pos.w` (columns: ball.pos.x, ball.pos.y, ball.pos.z, ball.vel.x"), "{t}");
    // A study file's own typo.
    let p = study(&d, "    axes: [],\n    metrix: [],");
    let t = text(&vcsim(&["check", p.to_str().unwrap()]));
    assert!(t.contains("s.ron:4:5") && t.contains("metrix"), "{t}");
}

#[test]
fn every_shipped_study_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/studies");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let o = vcsim(&["check", p.to_str().unwrap()]);
        assert!(o.status.success(), "{}: {}", p.display(), text(&o));
        n += 1;
    }
    assert!(n >= 7, "{n} shipped studies");
}

#[test]
fn a_study_too_large_to_hold_is_refused_before_it_starts() {
    let d = scratch("huge");
    let values = (1..=100)
        .map(|k| format!("{}e-5", k))
        .collect::<Vec<_>>()
        .join(", ");
    let axes = (0..5)
        .map(|a| format!("Field(name: \"a{a}\", field: \"time.dt\", values: [{values}])"))
        .collect::<Vec<_>>()
        .join(",\n        ");
    let p = study(&d, &format!("    axes: [\n        {axes}\n    ],"));
    let o = vcsim(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("the axes make 10000000000 cases; a study may have at most 10000"),
        "{}",
        text(&o)
    );
}

#[test]
fn sigint_keeps_the_finished_cases_and_the_same_command_goes_on() {
    let d = scratch("sigint");
    let p = d.join("s.ron");
    std::fs::write(&p, r#"Study(model: "column.ron", axes: [Field(name: "end", field: "time.end", values: [0.01, 30])], metrics: [Run(Steps)])"#).unwrap();
    let out = d.join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args([
            "study",
            p.to_str().unwrap(),
            "--jobs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the short case's result, then interrupt the long one.
    let t0 = std::time::Instant::now();
    while !out.join("cases/0.01/result.ron").exists() {
        assert!(t0.elapsed().as_secs() < 60, "the first case never finished");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let t1 = std::time::Instant::now();
    let o = child.wait_with_output().unwrap();
    assert!(
        t1.elapsed().as_secs() < 10,
        "the study did not stop promptly"
    );
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    assert!(
        table.contains("0.01,0.01,done,,10.0") && table.contains("30,30,not run,,"),
        "{table}"
    );
    assert!(!out.join("cases/30/result.ron").exists());
    // The same command skips the finished case (the long one is shortened so the test ends).
    std::fs::write(&p, r#"Study(model: "column.ron", axes: [Field(name: "end", field: "time.end", values: [0.01, 0.02])], metrics: [Run(Steps)])"#).unwrap();
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(text(&o).contains("ran 1, skipped 1"), "{}", text(&o));
}

#[test]
fn mutated_study_files_never_panic() {
    // Byte- and token-level mutations of a study file (the shared model fuzzer's mutator), each
    // checked: `check` exits 0 or 2, never panics, on every one.
    #[path = "common/fuzz.rs"]
    #[allow(dead_code)]
    mod fuzz;
    let d = scratch("fuzz");
    let base = r#"Study(
    model: "ball.ron",
    set: [("time.end", 0.1)],
    axes: [
        Field(name: "dt", field: "time.dt", values: [1e-3, 2e-3], labels: ["a", "b"]),
        Cases(name: "ball", levels: [(label: "x", value: 1, set: [("bodies[ball].mass", 2)]), (label: "y")]),
    ],
    metrics: [Final(column: "ball.pos.z"), Error(column: "ball.pos.z", reference: "r", norm: Rms, from: 0, until: 1), Run(Steps)],
    references: [(name: "r", source: Line(slope: 0, intercept: "0.1*2"), x_scale: "sqrt(4)")],
    plots: [Series(column: "ball.pos.z", references: ["r"]), Response(metric: "steps", x: "dt", group: "ball")],
)"#;
    let mut rng = fuzz::Rng(0x57d1);
    let p = d.join("f.ron");
    let start = std::time::Instant::now();
    let mut n = 0;
    while start.elapsed().as_secs() < 8 {
        let text = fuzz::mutate(base, &mut rng);
        std::fs::write(&p, &text).unwrap();
        let t = std::time::Instant::now();
        let o = vcsim(&["check", p.to_str().unwrap()]);
        let keep = d.join(format!("failed-{n}.ron"));
        if !matches!(o.status.code(), Some(0) | Some(2)) || t.elapsed().as_secs() > 5 {
            std::fs::write(&keep, &text).unwrap();
        }
        assert!(
            matches!(o.status.code(), Some(0) | Some(2)),
            "check panicked or failed on {}:\n{}",
            keep.display(),
            self::text(&o)
        );
        assert!(
            t.elapsed().as_secs() <= 5,
            "check took {:?} on {}",
            t.elapsed(),
            keep.display()
        );
        n += 1;
    }
    assert!(n > 50, "{n} inputs");
}

/// `Over` divides a case's metric by its calibration case's (same levels but the named one's),
/// and `Deviation` reads a data reference at a model field's value, interpolated between its
/// points and averaging repeated ones; names that do not exist are located errors.
#[test]
fn a_ratio_to_a_calibration_case_and_a_deviation_from_data() {
    let d = scratch("over");
    // Reference: at e = 0.2 two runs (0.9 and 1.1: 1.0), at 0.5 one point; 0.9 interpolates
    // nothing (outside), so that case's deviation is an error.
    std::fs::write(
        d.join("ref.csv"),
        "# synthetic\ne,r\n0.2,0.9\n0.5,3\n0.2,1.1\n",
    )
    .unwrap();
    let body = |over: &str, dev_x: &str| {
        format!(
            r#"    axes: [
        Field(name: "e", field: "materials[rubber].restitution", values: [0.2, 0.35, 0.9]),
        Cases(name: "drop", levels: [(label: "high"), (label: "low", set: [("bodies[ball].position", (0, 0, 0.2))])]),
    ],
    metrics: [
        Mean(column: "ball.pos.z", name: "mean_z"),
        {over}
        Deviation(metric: "ratio", reference: "r", {dev_x}name: "dev"),
    ],
    references: [(name: "r", source: Data(file: "ref.csv", x: "e", y: "r"))],"#
        )
    };
    let good = r#"Over(metric: "mean_z", by: "mean_z", case: [("drop", "low")], name: "ratio"),"#;
    let p = study(&d, &body(good, r#"x: "materials[rubber].restitution", "#));
    let out = d.join("out");
    let o = vcsim(&["study", p.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    let table = std::fs::read_to_string(out.join("table.csv")).unwrap();
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let get = |e: &str, drop: &str, m: &str| -> String {
        let r = (rows.iter())
            .find(|r| r[col("e")] == e && r[col("drop")] == drop)
            .unwrap();
        r[col(m)].clone()
    };
    let num = |s: String| s.parse::<f64>().unwrap_or_else(|_| panic!("{s}: {table}"));
    for e in ["0.2", "0.35", "0.9"] {
        let (high, low) = (num(get(e, "high", "mean_z")), num(get(e, "low", "mean_z")));
        let ratio = num(get(e, "high", "ratio"));
        assert!((ratio - high / low).abs() < 1e-9 * ratio, "{e}: {table}");
        assert!((num(get(e, "low", "ratio")) - 1.0).abs() < 1e-12, "{table}");
        assert!(
            high > low * 1.05,
            "the high drop sits higher on mean: {table}"
        );
    }
    let ratio = num(get("0.2", "high", "ratio"));
    let dev = num(get("0.2", "high", "dev"));
    assert!(
        (dev - (ratio - 1.0)).abs() < 1e-9,
        "two points at 0.2 average to 1: {table}"
    );
    let ratio = num(get("0.35", "high", "ratio"));
    let dev = num(get("0.35", "high", "dev"));
    assert!(
        (dev - (ratio - 2.0) / 2.0).abs() < 1e-9,
        "halfway from 1 to 3: {table}"
    );
    assert!(
        get("0.9", "high", "dev").is_empty(),
        "outside the data: no value ({table})"
    );
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("outside its data points"), "{report}");
    assert!(
        report.contains("over metric `mean_z` of the calibration case (drop = low"),
        "{report}"
    );
    // Located errors before anything runs.
    for (over, x, want) in [
        (
            r#"Over(metric: "mean_z", by: "mean_z", case: [("height", "low")], name: "ratio"),"#,
            r#"x: "materials[rubber].restitution", "#,
            "no axis named `height` (axes: e, drop)",
        ),
        (
            r#"Over(metric: "mean_z", by: "mean_z", case: [("drop", "middle")], name: "ratio"),"#,
            r#"x: "materials[rubber].restitution", "#,
            "axis `drop` has no level `middle` (levels: high, low)",
        ),
        (
            r#"Over(metric: "mean_z", by: "top", case: [("drop", "low")], name: "ratio"),"#,
            r#"x: "materials[rubber].restitution", "#,
            "no earlier metric named `top` (metrics before it: mean_z)",
        ),
        (good, "", "`Deviation` from a data reference needs `x`"),
    ] {
        let p = study(&d, &body(over, x));
        let o = vcsim(&["check", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(
            text(&o).contains(want) && text(&o).contains("s.ron:"),
            "{}",
            text(&o)
        );
    }
}
