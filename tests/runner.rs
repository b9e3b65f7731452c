//! The library runner ([`vcsim::runner::run`]) returns in memory the same probe series the CLI
//! writes to `probes.csv` for the same run: same columns, same sample times, same values (compared
//! as the CSV prints them).

use std::path::{Path, PathBuf};
use std::process::Command;

fn check(model: &str, end: f64) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(model);
    let (m, _) = vcsim::load_file(&path).expect("model loads");
    let mut world = vcsim::build_world(&m).expect("model builds");
    let probes = vcsim::model::resolve_probes(&m, &world).expect("probes resolve");
    let (series, report) = vcsim::runner::run(
        &mut world,
        &probes,
        end,
        m.output.every.0,
        &m.guard,
        &mut (),
    )
    .expect("run succeeds");

    let dir = std::env::temp_dir().join(format!(
        "vcsim-runner-{}-{}",
        model.trim_end_matches(".ron"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", path.to_str().unwrap(), "--quiet", "--end"])
        .arg(end.to_string())
        .arg("--out")
        .arg(&dir)
        .output()
        .expect("vcsim runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(Path::new(&dir).join("probes.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "t");
    assert_eq!(
        header[1..],
        series
            .columns
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()[..]
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), series.time.len(), "number of samples");
    assert_eq!(report.samples, series.time.len());
    for (r, row) in rows.iter().enumerate() {
        assert_eq!(
            row[0],
            format!("{:.9}", series.time[r]),
            "time of sample {r}"
        );
        for (c, values) in series.values.iter().enumerate() {
            assert_eq!(
                row[c + 1],
                format!("{:.12e}", values[r]),
                "{} at sample {r}",
                series.columns[c]
            );
        }
    }
    println!(
        "{model}: {} samples × {} columns identical between the library runner and the CLI's probes.csv",
        rows.len(),
        series.columns.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn library_runner_series_equal_the_cli_csv() {
    check("pendulum_2d_pgs.ron", 1.0);
    check("seesaw_2d_apgd.ron", 0.05);
}

/// The report's largest compression is the largest density error of any step (checked every
/// step, not only at the output times), with the time of that step's start.
#[test]
fn largest_compression_is_tracked_every_step() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_apgd.ron");
    let (m, _) = vcsim::load_file(&path).expect("model loads");
    let mut a = vcsim::build_world(&m).expect("model builds");
    let mut b = vcsim::build_world(&m).expect("model builds");
    let (_, report) = vcsim::runner::run(&mut a, &[], 0.02, 1.0, &m.guard, &mut ()).unwrap();
    let mut worst = (0.0f64, 0.0);
    for _ in 0..report.steps {
        let start = b.time;
        b.step();
        let c = b
            .fluid
            .as_ref()
            .unwrap()
            .density_error
            .iter()
            .fold(0.0f64, |x, &e| x.max(e));
        if c > worst.0 {
            worst = (c, start);
        }
    }
    assert!(worst.0 > 0.0, "the dam break compresses its fluid");
    assert_eq!(report.max_compression.0, worst.0);
    assert!((report.max_compression.1 - worst.1).abs() < 1e-12);
}
