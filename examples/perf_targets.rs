//! The performance issue's targets, each printed with its measured value, its anchor and the
//! ratio (a benchmark script, not a test: nothing here asserts).
//!
//! ```sh
//! cargo run --release --example perf_targets -- [--quick] [--peer CACHE] [--skip-3d]
//! ```
//!
//! - `--quick`: simulate 0.05 s of the 2D dam break instead of 0.5 s (the wall time is scaled
//!   by 10; the front is then not compared) and one step of the 3D dam break.
//! - `--peer CACHE`: also run DualSPHysics 5.0 CPU on the same 2D dam break, on the same cores,
//!   through `benches/peer/dualsphysics.sh run CACHE 2 TMAX OUT` (build the peer once with
//!   `benches/peer/dualsphysics.sh build GIT_DIR CACHE`, outside the repository), and compare
//!   wall time and front with it side by side.
//! - `--skip-3d`: leave out the 3D dam break (about 40 s per step on two cores today).
//! - `--only-6`: only the rigid pile against rapier3d.
//! - `--only-wcsph`: only row 12.6 (the WCSPH dam break and, with `--peer`, DualSPHysics).
//!
//! Issue 12's target 6 (row "12.6"): the WCSPH backend's fluid particle-steps per second on the
//! same dam break against DualSPHysics' (its time steps against our sub-steps).
//!
//! Targets (the performance issue's numbering): 1 the 2D dam break of 20 000 particles over 0.5 s on two
//! threads, with APGD to tolerance and with PGS at 10 sweeps (the two shipped 20k models; wall ≤ 7 s, largest compression of any step ≤ 1 %, front against Koshizuka & Oka
//! at least as close as DualSPHysics'); 2 first-step iterations of hydrostatic tanks 0.25–2 m
//! deep within 1.5× of each other; 3 the 3D dam break (203 609 particles) ≤ 500 s of wall time
//! per simulated second with compression ≤ 1 %; 4 cost per particle-step from 20 000 to 200 000
//! particles within 1.3×, peak memory ≤ 1 KiB per particle; 5 two threads ≥ 1.8× one thread on
//! fluid steps of both 20k models; 6 a settling pile of 1000 cubes against rapier3d on the same scene at the same
//! iteration count, one thread each (`benches/pile_scene.rs`).

mod common;
#[path = "../benches/pile_scene.rs"]
mod pile_scene;

use std::path::{Path, PathBuf};
use std::time::Instant;
use vcsim::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(model: &str) -> World {
    let (m, _) = vcsim::load_file(&root().join("models").join(model)).expect("shipped model");
    vcsim::build_world(&m).expect("shipped model builds")
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool")
}

fn row(target: &str, measured: String, anchor: String, ratio: Option<f64>) {
    let ratio = ratio
        .map(|r| format!("{r:.2}"))
        .unwrap_or_else(|| "-".into());
    println!("{target:<58} {measured:>16} {anchor:>16} {ratio:>7}");
}

/// Largest compression of the density error the last step's rows were built with.
fn compression(w: &World) -> f64 {
    w.fluid
        .as_ref()
        .and_then(|f| f.largest_compression())
        .map_or(0.0, |(_, c)| c.max(0.0))
}

/// What [`run`] measured.
struct Run {
    /// Wall time (s).
    wall: f64,
    /// Largest compression of any step.
    worst: f64,
    /// Front series (t, x) of each step (m).
    front: Vec<(f64, f64)>,
    /// Mean solver iterations per step.
    mean_iterations: f64,
    /// Explicit-fluid sub-steps taken in all.
    substeps: f64,
}

/// Steps `w` to `end` (s) on `threads` threads.
fn run(w: &mut World, end: f64, threads: usize) -> Run {
    let x = nalgebra::Vector3::x();
    let mut front = vec![(0.0, w.fluid.as_ref().map(|f| f.front(&x)).unwrap_or(0.0))];
    let (mut worst, mut iterations, mut steps, mut substeps) = (0.0f64, 0usize, 0usize, 0usize);
    let start = Instant::now();
    pool(threads).install(|| {
        while w.time < end - 1e-9 {
            let info = w.step();
            iterations += info.iterations;
            substeps += w.last_substeps.substeps;
            steps += 1;
            worst = worst.max(compression(w));
            front.push((w.time, w.fluid.as_ref().map(|f| f.front(&x)).unwrap_or(0.0)));
        }
    });
    Run {
        wall: start.elapsed().as_secs_f64(),
        worst,
        front,
        mean_iterations: iterations as f64 / steps.max(1) as f64,
        substeps: substeps as f64,
    }
}

fn peak_rss_bytes() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct we own.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    u.ru_maxrss as f64 * 1024.0
}

/// What the peer's run gave.
struct Peer {
    /// Wall time (s).
    wall: f64,
    /// Time steps taken.
    steps: f64,
    /// Front series (t, x).
    front: Vec<(f64, f64)>,
}

/// Runs the peer (DualSPHysics) on the 2D dam break; returns its wall time (s), steps and front
/// series.
fn peer(cache: &Path, tmax: f64) -> Option<Peer> {
    let out = std::env::temp_dir().join(format!("vcsim-peer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = std::process::Command::new("bash")
        .arg(root().join("benches/peer/dualsphysics.sh"))
        .args([
            "run",
            cache.to_str()?,
            "2",
            &tmax.to_string(),
            out.to_str()?,
        ])
        .output()
        .ok()?;
    let line = String::from_utf8_lossy(&o.stdout).to_string();
    let field = |key: &str| -> Option<f64> {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key))?
            .parse()
            .ok()
    };
    let (wall, steps) = (field("wall_s=")?, field("steps=")?);
    let front = std::fs::read_to_string(out.join("front.csv"))
        .ok()?
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (t, x) = l.split_once(',')?;
            Some((t.trim().parse().ok()?, x.trim().parse().ok()?))
        })
        .collect();
    Some(Peer { wall, steps, front })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let skip_3d = args.iter().any(|a| a == "--skip-3d");
    let peer_cache = args
        .iter()
        .position(|a| a == "--peer")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    println!(
        "{:<58} {:>16} {:>16} {:>7}",
        "target", "measured", "anchor", "ratio"
    );
    if args.iter().any(|a| a == "--only-6") {
        pile_vs_rapier(if quick { 20 } else { 100 });
        return;
    }

    // 1: the 2D dam break at DualSPHysics' size on two threads, with each solver's model; the
    // peer once.
    let end = if quick { 0.05 } else { 0.5 };
    let points = common::koshizuka_oka(2.2);
    let mut ours = Vec::new();
    let mut per_step_2d = 0.0;
    let only_wcsph = args.iter().any(|a| a == "--only-wcsph");
    let constraint_models: &[&str] = if only_wcsph {
        &[]
    } else {
        &["dam_break_2d_20k_apgd.ron", "dam_break_2d_20k_pgs.ron"]
    };
    for model in constraint_models {
        let mut w = load(model);
        let particles = w.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
        let Run {
            wall,
            worst,
            front,
            mean_iterations: mean_it,
            ..
        } = run(&mut w, end, 2);
        if ours.is_empty() {
            // Target 4 compares the APGD model's cost per particle-step with the 3D run's.
            per_step_2d = wall / (end / w.dt).round();
        }
        let wall_05 = wall * 0.5 / end;
        let name = model.trim_end_matches(".ron");
        row(
            &format!("1 {name}, {particles} p, 0.5 s, 2 threads: wall (s)"),
            format!("{wall_05:.1}{}", if quick { " (x10)" } else { "" }),
            "7".into(),
            Some(wall_05 / 7.0),
        );
        row(
            &format!("1   mean iterations per step (dt = {} s)", w.dt),
            format!("{mean_it:.1}"),
            "-".into(),
            None,
        );
        row(
            "1   largest compression of any step (%)",
            format!("{:.2}", 100.0 * worst),
            "1".into(),
            Some(worst / 0.01),
        );
        let errors = (!quick)
            .then(|| common::front_errors(&front, &points, 1.0))
            .flatten();
        if let Some((mean, max)) = errors {
            row(
                "1   front vs Koshizuka & Oka, T <= 2.2: mean / max (%)",
                format!("{:.1} / {:.1}", 100.0 * mean, 100.0 * max),
                "peer below".into(),
                None,
            );
        }
        ours.push((name, wall));
    }
    // 12.6: the WCSPH backend on the same dam break (DualSPHysics' settings), in fluid
    // particle-steps per second (its sub-steps are the peer's time steps).
    let mut wcsph = load("dam_break_2d_20k_wcsph.ron");
    let particles = wcsph.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
    let Run {
        wall: wall_w,
        substeps: substeps_w,
        front: front_w,
        ..
    } = run(&mut wcsph, end, 2);
    let rate_w = substeps_w * particles as f64 / wall_w;
    row(
        &format!("12.6 dam_break_2d_20k_wcsph, {end} s, 2 threads: fluid p-steps/s"),
        format!("{:.3e}", rate_w),
        "peer below".into(),
        None,
    );
    row(
        "12.6   sub-steps / wall (s)",
        format!("{substeps_w:.0} / {wall_w:.1}"),
        "-".into(),
        None,
    );
    if let (Some((mean, max)), false) = (common::front_errors(&front_w, &points, 1.0), quick) {
        row(
            "12.6   front vs Koshizuka & Oka, T <= 2.2: mean / max (%)",
            format!("{:.1} / {:.1}", 100.0 * mean, 100.0 * max),
            "peer below".into(),
            None,
        );
    }
    if let Some(cache) = peer_cache {
        match peer(&cache, end) {
            Some(Peer {
                wall: peer_wall,
                steps: peer_steps,
                front: peer_front,
            }) => {
                let peer_rate = peer_steps * particles as f64 / peer_wall;
                row(
                    "12.6 DualSPHysics steps / wall (s)",
                    format!("{peer_steps:.0} / {peer_wall:.1}"),
                    "-".into(),
                    None,
                );
                row(
                    "12.6 DualSPHysics, 2 threads: fluid p-steps/s (ratio ours/peer)",
                    format!("{peer_rate:.3e}"),
                    format!("ours {rate_w:.3e}"),
                    Some(rate_w / peer_rate),
                );
                for (name, wall) in &ours {
                    row(
                        &format!("1   DualSPHysics 5.0 CPU, 2 threads: wall (s) / {name}"),
                        format!("{peer_wall:.1}"),
                        format!("ours {wall:.1}"),
                        Some(peer_wall / wall),
                    );
                }
                if let (Some((pm, px)), false) =
                    (common::front_errors(&peer_front, &points, 1.0), quick)
                {
                    row(
                        "1   DualSPHysics front, T <= 2.2: mean / max (%)",
                        format!("{:.1} / {:.1}", 100.0 * pm, 100.0 * px),
                        "see above".into(),
                        None,
                    );
                }
            }
            None => println!("  (the peer did not run: see benches/peer/dualsphysics.sh)"),
        }
    }

    if only_wcsph {
        return;
    }

    // 5: one thread against two on the same fluid steps, with each solver's model.
    for (name, end) in [("apgd", 0.02), ("pgs", 0.1)] {
        let model = format!("dam_break_2d_20k_{name}.ron");
        let (mut one, mut two) = (load(&model), load(&model));
        let end = if quick { end / 2.0 } else { end };
        let t1 = run(&mut one, end, 1).wall;
        let t2 = run(&mut two, end, 2).wall;
        row(
            &format!("5 20k dam break {name}, {end} s: 1 thread / 2 threads"),
            format!("{:.2}", t1 / t2),
            "1.8".into(),
            Some((t1 / t2) / 1.8),
        );
    }

    // 2: iterations of a cold hydrostatic solve against depth.
    let mut first = Vec::new();
    for depth in [0.25, 0.5, 1.0, 2.0] {
        let mut t = common::tank_world(depth, 5000, 1e-3);
        first.push(t.step().iterations);
    }
    let spread = *first.iter().max().unwrap() as f64 / (*first.iter().min().unwrap()).max(1) as f64;
    row(
        &format!("2 tank 0.25/0.5/1/2 m, first-step iterations {first:?}: max/min"),
        format!("{spread:.2}"),
        "1.5".into(),
        Some(spread / 1.5),
    );

    // 3 and 4: the 3D dam break.
    if !skip_3d {
        let mut w3 = load("dam_break_3d_apgd.ron");
        let n3 = w3.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
        let steps3 = if quick { 1 } else { 3 };
        let end3 = steps3 as f64 * w3.dt;
        let Run {
            wall: wall3,
            worst: worst3,
            mean_iterations: it3,
            ..
        } = run(&mut w3, end3, 2);
        let per_step_3d = wall3 / steps3 as f64;
        let per_second = per_step_3d / w3.dt;
        row(
            &format!("3 dam break 3D {n3} p, 2 threads: wall per simulated s"),
            format!("{per_second:.0} ({steps3} steps)"),
            "500".into(),
            Some(per_second / 500.0),
        );
        row(
            "3   mean APGD iterations; largest compression (%)",
            format!("{it3:.0}; {:.2}", 100.0 * worst3),
            "-; 1".into(),
            None,
        );
        let c2 = per_step_2d / particles as f64;
        let c3 = per_step_3d / n3 as f64;
        row(
            "4 cost per particle-step, 3D 200k / 2D 20k",
            format!("{:.2} / {:.2} us", 1e6 * c3, 1e6 * c2),
            "1.3".into(),
            Some((c3 / c2) / 1.3),
        );
        let per_particle = peak_rss_bytes() / n3 as f64;
        row(
            "4 peak memory per fluid particle (process peak, 3D run)",
            format!("{:.2} KiB", per_particle / 1024.0),
            "1 KiB".into(),
            Some(per_particle / 1024.0),
        );
    }
    pile_vs_rapier(if quick { 20 } else { 100 });
}

/// Target 6: ms per step of the 1000-cube pile after 1 s of settling, vcsim (PGS) and rapier3d
/// at 10 iterations, one thread each; the cubes' mean height shows both piles came down.
fn pile_vs_rapier(steps: usize) {
    use pile_scene::{settle_then_time, ITERATIONS, SETTLE};
    let (ours, our_height) = pool(1).install(|| {
        let mut w = pile_scene::vcsim_world("Pgs", ITERATIONS);
        let t = settle_then_time(SETTLE, steps, || {
            w.step();
        });
        (t, pile_scene::vcsim_mean_height(&w))
    });
    let mut r = pile_scene::rapier_world(ITERATIONS);
    let theirs = settle_then_time(SETTLE, steps, || r.step());
    row(
        "6 pile of 1000 cubes, 10 PGS iterations, 1 thread: ms/step",
        format!("{:.2}", 1e3 * ours),
        format!("rapier {:.2}", 1e3 * theirs),
        Some(ours / theirs),
    );
    row(
        "6   cubes' mean height after the timed steps (m)",
        format!("{our_height:.3}"),
        format!("rapier {:.3}", pile_scene::rapier_mean_height(&r)),
        None,
    );
}
