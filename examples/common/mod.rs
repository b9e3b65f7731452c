//! Shared by the examples (and `tests/multilevel.rs`): the hydrostatic tank at any depth, the
//! dam-break front against Koshizuka & Oka's points, and the command-line pieces of the small
//! measuring examples (a numeric option, the thread count, a model loaded or a clear exit).
#![allow(dead_code)]

use std::path::Path;

/// The shipped hydrostatic tank (`models/hydrostatic_2d_apgd.ron`: 0.5 m wide, spacing 0.02 m,
/// walls 0.4 m above the water) with water `depth` m deep, solved by APGD with the given
/// iteration limit and tolerance (m/s), as RON text.
pub fn tank(depth: f64, max_iterations: usize, tolerance: f64) -> String {
    tank_solver(
        depth,
        &format!("Apgd(max_iterations: {max_iterations}, tolerance: {tolerance:e})"),
    )
}

/// [`tank`] with any solver (RON).
pub fn tank_solver(depth: f64, solver: &str) -> String {
    tank_fluid(depth, solver, "")
}

/// [`tank_solver`] with more fluid fields (RON, starting with a comma).
pub fn tank_fluid(depth: f64, solver: &str, fluid: &str) -> String {
    let wall = depth + 0.4;
    format!(
        "Model(scene: (dimension: Two, gravity: (0, -9.81)), time: (dt: 0.001, end: 1.0),
           solver: {solver},
           bodies: [
             (name: \"floor\", kind: Static, shape: Cuboid(half_extents: (0.25, 0.05)), position: (0.25, -0.05)),
             (name: \"left\", kind: Static, shape: Cuboid(half_extents: (0.05, {h})), position: (-0.05, {c})),
             (name: \"right\", kind: Static, shape: Cuboid(half_extents: (0.05, {h})), position: (0.55, {c})),
           ],
           fluid: (spacing: 0.02, regions: [Box(min: (0, 0), max: (0.5, {depth}))]{fluid}))",
        h = 0.5 * wall,
        c = 0.5 * wall - 0.1,
    )
}

/// Builds the tank of [`tank_solver`].
pub fn tank_world_with(depth: f64, solver: &str) -> vcsim::World {
    let m = vcsim::parse_str(Path::new("tank.ron"), &tank_solver(depth, solver))
        .expect("the tank model is valid");
    vcsim::build_world(&m).expect("the tank builds")
}

/// Builds the tank of [`tank`].
pub fn tank_world(depth: f64, max_iterations: usize, tolerance: f64) -> vcsim::World {
    let m = vcsim::parse_str(
        Path::new("tank.ron"),
        &tank(depth, max_iterations, tolerance),
    )
    .expect("the tank model is valid");
    vcsim::build_world(&m).expect("the tank builds")
}

/// Koshizuka & Oka's front points (T, Z) with 0 < T ≤ `t_max`, from `data/dam_break_front.csv`.
pub fn koshizuka_oka(t_max: f64) -> Vec<(f64, f64)> {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/dam_break_front.csv"))
        .expect("reference data")
        .lines()
        .filter(|l| l.starts_with("koshizuka_oka,"))
        .filter_map(|l| {
            let c: Vec<f64> = l
                .split(',')
                .skip(1)
                .filter_map(|v| v.parse().ok())
                .collect();
            (c.len() == 2 && c[0] > 0.0 && c[0] <= t_max).then_some((c[0], c[1]))
        })
        .collect()
}

/// Mean and largest relative error of a front series (t in s, x in m) against the points, with
/// the column width `big_l` (m): Z = x/L, T = t √(2g/L), g = 9.81 m/s². `None` when no point
/// falls inside the series.
pub fn front_errors(
    series: &[(f64, f64)],
    points: &[(f64, f64)],
    big_l: f64,
) -> Option<(f64, f64)> {
    let scale = (2.0 * 9.81 / big_l).sqrt();
    let mut errors = Vec::new();
    for &(t_ref, z_ref) in points {
        let t = t_ref / scale;
        if let Some(k) = series.iter().position(|s| s.0 >= t).filter(|&k| k > 0) {
            let (a, b) = (series[k - 1], series[k]);
            let z = (a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0)) / big_l;
            errors.push((z - z_ref).abs() / z_ref);
        }
    }
    (!errors.is_empty()).then(|| {
        (
            errors.iter().sum::<f64>() / errors.len() as f64,
            errors.iter().copied().fold(0.0, f64::max),
        )
    })
}

/// The number after option `name` on the command line (`--end 4`), if given and a number.
pub fn arg(args: &[String], name: &str) -> Option<f64> {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
}

/// Sets rayon's global pool to `--threads N` (default `default`).
pub fn threads(args: &[String], default: usize) {
    let n = arg(args, "--threads").map_or(default, |n| n as usize);
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global();
}

/// Prints `message` and exits with status 2 (a usage or model error).
pub fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("{message}");
    std::process::exit(2)
}

/// The model at `path` and its world, or an exit with the located error.
pub fn load_world(path: &str) -> (vcsim::Model, vcsim::World) {
    let (m, _) = vcsim::load_file(Path::new(path)).unwrap_or_else(|e| fail(e));
    let w = vcsim::build_world(&m).unwrap_or_else(|e| fail(e));
    (m, w)
}
