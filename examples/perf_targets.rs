//! The performance issue's targets, each printed with its measured value, its anchor and the
//! ratio (a benchmark script, not a test: nothing here asserts).
//!
//! ```sh
//! cargo run --release --example perf_targets -- [--quick] [--peer CACHE] [--skip-3d] [--soak]
//! ```
//!
//! - `--quick`: simulate 0.05 s of the 2D dam break instead of 0.5 s (the wall time is scaled
//!   by 10; the front is then not compared), 0.5 s of sloshing and two steps of the 3D dam
//!   break.
//! - `--peer CACHE`: also run DualSPHysics 5.0 CPU on the same 2D dam break, on the same cores,
//!   through `benches/peer/dualsphysics.sh run CACHE 2 TMAX OUT` (build the peer once with
//!   `benches/peer/dualsphysics.sh build GIT_DIR CACHE`, outside the repository), and compare
//!   wall time and front with it side by side.
//! - `--skip-3d`: leave out the 3D dam break (20 steps, about 30 s each on two cores).
//! - `--soak`: also run target 3 (100 000 steps of the tank for long runs,
//!   `hydrostatic_2d_kcsph.ron`).
//! - `--only-pile`: only the rigid pile against rapier3d.
//! - `--only-soak`: only target 3.
//! - `--soak-model FILE`: soak this shipped model instead (the default-smoothing tanks
//!   `hydrostatic_2d_pgs.ron` and `hydrostatic_2d_apgd.ron` churn within seconds and then stop
//!   at the iteration cap every step: over an hour for 100 000 steps).
//! - `--soak-steps N`: the soak's length (default 100 000 steps, the target's); it prints the
//!   largest speed and the solves at the cap for each tenth of the run.
//! - `--only-wcsph`: only our WCSPH dam break and, with `--peer`, DualSPHysics.
//! - `--only-threads`: only target 6 (one thread against two).
//! - `--no-active-wait`: step as a library caller does by default, the other workers sleeping
//!   between parallel passes (`World::active_wait` off).
//! - `--only-3d`: only target 5 (the full run starts it so, in a process of its own, for
//!   its peak memory).
//!
//! Targets (the performance issue's numbering): 1 the 2D dam break of 20 000 particles over
//! 0.5 s on two threads with each shipped constraint model: largest compression of any step
//! below 1 %, front against Koshizuka & Oka at least as close as DualSPHysics', wall time at
//! most a fifth of DualSPHysics' in the same run; 2 first-step iterations of hydrostatic tanks
//! 0.25–2 m deep, to the shipped tolerance, within 1.5× of each other; 3 (`--soak`) the tank
//! over 100 000 steps with no solve at the cap and the largest speed below 1e-3 √(gH); 4 the
//! shipped sloshing model, the constraint method no slower than ISPH; 5 the 3D dam break
//! (203 609 particles) at most 2 000 s of wall time per simulated second, compression below
//! 1 %, at most 1.5 KiB of peak memory per fluid particle; 6 two threads at least 1.8× one
//! thread on both 20k models. Rows marked `-` are context (our WCSPH backend against the peer
//! in particle-steps per second). The last rows compare a settling pile of 1000 cubes with
//! rapier3d at the same iteration count, one thread each (`benches/pile_scene.rs`).

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
    let mut w = vcsim::build_world(&m).expect("shipped model builds");
    // As `vcsim run` steps it: the other workers poll for work during a step (off with
    // `--no-active-wait`, for a before/after).
    w.active_wait = !std::env::args().any(|a| a == "--no-active-wait");
    w
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
    let flag = |f: &str| args.iter().any(|a| a == f);
    let (quick, skip_3d) = (flag("--quick"), flag("--skip-3d"));
    let peer_cache = args
        .iter()
        .position(|a| a == "--peer")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    println!(
        "{:<58} {:>16} {:>16} {:>7}",
        "target", "measured", "anchor", "ratio"
    );
    if flag("--only-pile") {
        pile_vs_rapier(if quick { 20 } else { 100 });
        return;
    }
    let soak_steps = args
        .iter()
        .position(|a| a == "--soak-steps")
        .and_then(|i| args.get(i + 1))
        .map(|s| {
            s.parse::<u64>()
                .expect("--soak-steps N: a whole number of steps")
        })
        .unwrap_or(100_000);
    let soak_model = args
        .iter()
        .position(|a| a == "--soak-model")
        .and_then(|i| args.get(i + 1))
        .map_or("hydrostatic_2d_kcsph.ron", |s| s.as_str());
    if flag("--only-soak") {
        soak(soak_model, soak_steps);
        return;
    }
    if flag("--only-3d") {
        target_5(quick);
        return;
    }
    if flag("--only-threads") {
        target_6(quick);
        return;
    }
    let end = if quick { 0.05 } else { 0.5 };
    let points = common::koshizuka_oka(2.2);
    let only_wcsph = flag("--only-wcsph");
    let ours = if only_wcsph {
        Vec::new()
    } else {
        target_1(end, quick, &points)
    };
    let (front_w, particles, rate_w) = wcsph_row(end, quick, &points);
    if let Some(cache) = peer_cache {
        peer_rows(
            &cache, end, quick, &points, &ours, particles, rate_w, &front_w,
        );
    }
    if only_wcsph {
        return;
    }
    target_6(quick);
    // 2: iterations of a cold hydrostatic solve against depth, to 1e-3 m/s: multilevel PGS
    // (the shipped `hydrostatic_2d_pgs.ron`'s solver), and APGD for comparison.
    for (name, solver) in [
        (
            "multilevel PGS",
            "Pgs(max_iterations: 5000, tolerance: 1e-3, multilevel: true)",
        ),
        ("APGD", "Apgd(max_iterations: 5000, tolerance: 1e-3)"),
    ] {
        let mut first = Vec::new();
        let mut wall = Vec::new();
        for depth in [0.25, 0.5, 1.0, 2.0] {
            let mut t = common::tank_world_with(depth, solver);
            let t0 = std::time::Instant::now();
            first.push(t.step().iterations);
            wall.push(format!("{:.3}", t0.elapsed().as_secs_f64()));
        }
        let spread =
            *first.iter().max().unwrap() as f64 / (*first.iter().min().unwrap()).max(1) as f64;
        row(
            &format!("2 tank 0.25/0.5/1/2 m, {name}, first-step iterations {first:?} (wall s {wall:?}): max/min"),
            format!("{spread:.2}"),
            "1.5".into(),
            Some(spread / 1.5),
        );
    }
    if flag("--soak") {
        soak(soak_model, soak_steps);
    }
    target_4(quick);
    if !skip_3d {
        target_5_in_own_process(quick);
    }
    pile_vs_rapier(if quick { 20 } else { 100 });
}

/// Target 6: one thread against two on the same fluid steps, with each shipped 20k constraint
/// model. One thread and two alternate, twice (this machine's speed drifts by several per cent
/// over minutes): each pair's ratio is printed, the row's value is the ratio of the sums.
fn target_6(quick: bool) {
    for (name, end) in [("pgs", 0.1), ("apgd", 0.02)] {
        let model = format!("dam_break_2d_20k_{name}.ron");
        let end = if quick { end / 2.0 } else { end };
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for _ in 0..2 {
            one.push(run(&mut load(&model), end, 1).wall);
            two.push(run(&mut load(&model), end, 2).wall);
        }
        let pairs: Vec<String> = one
            .iter()
            .zip(&two)
            .map(|(a, b)| format!("{:.2}", a / b))
            .collect();
        let ratio = one.iter().sum::<f64>() / two.iter().sum::<f64>();
        row(
            &format!(
                "6 20k dam break {name}, {end} s: 1 thread / 2 threads (pairs {})",
                pairs.join(", ")
            ),
            format!("{ratio:.2}"),
            "1.8".into(),
            Some(ratio / 1.8),
        );
    }
}

/// Target 1: the 2D dam break at DualSPHysics' size on two threads, with each shipped
/// constraint model; returns (model, wall time) per model.
fn target_1(end: f64, quick: bool, points: &[(f64, f64)]) -> Vec<(String, f64)> {
    let mut ours = Vec::new();
    for model in ["dam_break_2d_20k_pgs.ron", "dam_break_2d_20k_apgd.ron"] {
        let mut w = load(model);
        let particles = w.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
        let r = run(&mut w, end, 2);
        let wall_05 = r.wall * 0.5 / end;
        let name = model.trim_end_matches(".ron");
        row(
            &format!("1 {name}, {particles} p, 0.5 s, 2 threads: wall (s)"),
            format!("{wall_05:.1}{}", if quick { " (x10)" } else { "" }),
            "peer / 5".into(),
            None,
        );
        row(
            &format!("1   mean iterations per step (dt = {} s)", w.dt),
            format!("{:.1}", r.mean_iterations),
            "-".into(),
            None,
        );
        row(
            "1   largest compression of any step (%)",
            format!("{:.2}", 100.0 * r.worst),
            "1".into(),
            Some(r.worst / 0.01),
        );
        if let Some(line) = w.fluid_method.summary_line(w.steps) {
            println!("      {line}");
        }
        let errors = (!quick)
            .then(|| common::front_errors(&r.front, points, 1.0))
            .flatten();
        if let Some((mean, max)) = errors {
            row(
                "1   front vs Koshizuka & Oka, T <= 2.2: mean / max (%)",
                format!("{:.1} / {:.1}", 100.0 * mean, 100.0 * max),
                "peer below".into(),
                None,
            );
        }
        ours.push((name.to_string(), r.wall));
    }
    ours
}

/// Our WCSPH backend on the same dam break (DualSPHysics' settings), in fluid particle-steps
/// per second (its sub-steps are the peer's time steps): its front, particle count and rate.
fn wcsph_row(end: f64, quick: bool, points: &[(f64, f64)]) -> (Vec<(f64, f64)>, usize, f64) {
    let mut wcsph = load("dam_break_2d_20k_wcsph.ron");
    let particles = wcsph.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
    let r = run(&mut wcsph, end, 2);
    let rate = r.substeps * particles as f64 / r.wall;
    row(
        &format!("- dam_break_2d_20k_wcsph, {end} s, 2 threads: fluid p-steps/s"),
        format!("{rate:.3e}"),
        "peer below".into(),
        None,
    );
    row(
        "-   sub-steps / wall (s); largest compression (%)",
        format!("{:.0} / {:.1}; {:.2}", r.substeps, r.wall, 100.0 * r.worst),
        "-".into(),
        None,
    );
    if let (Some((mean, max)), false) = (common::front_errors(&r.front, points, 1.0), quick) {
        row(
            "-   front vs Koshizuka & Oka, T <= 2.2: mean / max (%)",
            format!("{:.1} / {:.1}", 100.0 * mean, 100.0 * max),
            "peer below".into(),
            None,
        );
    }
    (r.front, particles, rate)
}

/// DualSPHysics on the same dam break and cores, beside ours.
#[allow(clippy::too_many_arguments)]
fn peer_rows(
    cache: &Path,
    end: f64,
    quick: bool,
    points: &[(f64, f64)],
    ours: &[(String, f64)],
    particles: usize,
    rate_w: f64,
    _front_w: &[(f64, f64)],
) {
    let Some(Peer {
        wall: peer_wall,
        steps: peer_steps,
        front: peer_front,
    }) = peer(cache, end)
    else {
        println!("  (the peer did not run: see benches/peer/dualsphysics.sh)");
        return;
    };
    let peer_rate = peer_steps * particles as f64 / peer_wall;
    row(
        "- DualSPHysics steps / wall (s)",
        format!("{peer_steps:.0} / {peer_wall:.1}"),
        "-".into(),
        None,
    );
    row(
        "- DualSPHysics, 2 threads: fluid p-steps/s (ratio ours/peer)",
        format!("{peer_rate:.3e}"),
        format!("ours {rate_w:.3e}"),
        Some(rate_w / peer_rate),
    );
    for (name, wall) in ours {
        row(
            &format!("1 DualSPHysics wall (s) / {name} (target >= 5)"),
            format!("{peer_wall:.1}"),
            format!("ours {wall:.1}"),
            Some(peer_wall / wall),
        );
    }
    if let (Some((pm, px)), false) = (common::front_errors(&peer_front, points, 1.0), quick) {
        row(
            "1 DualSPHysics front, T <= 2.2: mean / max (%)",
            format!("{:.1} / {:.1}", 100.0 * pm, 100.0 * px),
            "see above".into(),
            None,
        );
    }
}

/// Target 3: the hydrostatic tank (the shipped model) over `steps` steps (the target: 100 000):
/// steps at the iteration cap, and the largest particle speed at every output time against
/// 1e-3 √(gH); a row for each tenth of the run with the largest speed and the solves at the
/// cap in it, so that a growing motion shows when it starts.
fn soak(model: &str, steps: u64) {
    let mut w = load(model);
    let depth = w
        .fluid
        .as_ref()
        .map_or(0.0, |f| f.pos.iter().map(|x| x.y).fold(0.0, f64::max));
    let bound = 1e-3 * (9.81 * depth).sqrt();
    let (mut at_cap, mut worst_speed) = (0u64, 0.0f64);
    let (mut iterations, mut most) = (0u64, 0usize);
    let start = Instant::now();
    let (mut window_cap, mut window_speed) = (0u64, 0.0f64);
    for step in 1..=steps {
        let info = w.step();
        at_cap += (!info.converged) as u64;
        window_cap += (!info.converged) as u64;
        iterations += info.iterations as u64;
        most = most.max(info.iterations);
        if step % 20 == 0 {
            let f = w.fluid.as_ref().unwrap();
            let speed = f.vel.iter().map(|v| v.norm()).fold(0.0, f64::max);
            worst_speed = worst_speed.max(speed);
            window_speed = window_speed.max(speed);
        }
        if step % (steps / 10).max(1) == 0 {
            row(
                &format!(
                    "3   to t = {:.1} s: largest speed (m/s); at the cap",
                    step as f64 * w.dt
                ),
                format!("{window_speed:.2e}; {window_cap}"),
                format!("{bound:.2e}"),
                Some(window_speed / bound),
            );
            (window_cap, window_speed) = (0, 0.0);
        }
    }
    row(
        &format!(
            "3 tank soak ({model}), {steps} steps (iterations mean {:.0}, most {most}): solves at the cap",
            iterations as f64 / steps as f64
        ),
        format!("{at_cap}"),
        "0".into(),
        None,
    );
    row(
        &format!(
            "3   largest speed, every 20 steps (m/s); wall {:.0} s",
            start.elapsed().as_secs_f64()
        ),
        format!("{worst_speed:.2e}"),
        format!("{bound:.2e}"),
        Some(worst_speed / bound),
    );
}

/// Target 4: the shipped sloshing models with the constraint method (PGS, dt = 3 ms, and APGD,
/// 2 ms) and the same tank with ISPH (the APGD model's 2 ms, and the PGS model's 3 ms), on two
/// threads each: wall time and largest compression.
fn target_4(quick: bool) {
    let mut results = Vec::new();
    let cases = [
        ("constraint PGS", "sloshing_2d_pgs.ron", None, None),
        ("constraint APGD", "sloshing_2d_apgd.ron", None, None),
        ("ISPH", "sloshing_2d_apgd.ron", Some("Isph()"), None),
        (
            "ISPH, dt 3 ms",
            "sloshing_2d_apgd.ron",
            Some("Isph()"),
            Some("0.003"),
        ),
    ];
    for (name, model, method, dt) in cases {
        let path = root().join("models").join(model);
        let mut text = std::fs::read_to_string(&path).expect("shipped model");
        if let Some(m) = method {
            text = text.replacen("fluid: (", &format!("fluid: (method: {m}, "), 1);
        }
        if let Some(dt) = dt {
            assert!(text.contains("dt: 0.002"), "the APGD sloshing model's step");
            text = text.replacen("dt: 0.002", &format!("dt: {dt}"), 1);
        }
        let m = vcsim::parse_str(&path, &text).expect("shipped model");
        let mut w = vcsim::build_world(&m).expect("shipped model builds");
        let end = if quick { 0.5 } else { m.time.end.0 };
        let r = run(&mut w, end, 2);
        row(
            &format!("4 sloshing, {name}, {end} s: wall (s); largest compression (%)"),
            format!("{:.1}; {:.2}", r.wall, 100.0 * r.worst),
            "-".into(),
            None,
        );
        results.push(r.wall);
    }
    for (k, name) in ["PGS", "APGD"].iter().enumerate() {
        row(
            &format!("4   constraint {name} wall / ISPH wall"),
            format!("{:.2}", results[k] / results[2]),
            "1".into(),
            Some(results[k] / results[2]),
        );
    }
    row(
        "4   constraint PGS wall / ISPH wall at the same dt (3 ms)",
        format!("{:.2}", results[0] / results[3]),
        "-".into(),
        None,
    );
}

/// Target 5 in a process of its own (this program with `--only-3d`), so that the peak memory
/// it reports is the 3D run's and not that of the targets before it; its rows are printed here.
fn target_5_in_own_process(quick: bool) {
    let exe = std::env::current_exe().expect("the running program's path");
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--only-3d");
    if quick {
        cmd.arg("--quick");
    }
    let out = cmd.output().expect("target 5's process starts");
    let text = String::from_utf8_lossy(&out.stdout);
    // Its first line is the table's header, printed here already.
    for line in text.lines().skip(1) {
        println!("{line}");
    }
    if !out.status.success() {
        eprintln!(
            "target 5 failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Target 5: the 3D dam break (203 609 particles) with the PGS model on two threads: wall time
/// per simulated second from a few steps, largest compression, peak memory per fluid particle.
fn target_5(quick: bool) {
    // (The allocator as the `vcsim` command sets it: freed large blocks go back.)
    vcsim::cli::return_freed_blocks();
    let mut w3 = load("dam_break_3d_pgs.ron");
    let n3 = w3.fluid.as_ref().map(|f| f.len()).unwrap_or(0);
    let steps3 = if quick { 2 } else { 20 };
    let end3 = steps3 as f64 * w3.dt;
    let r = run(&mut w3, end3, 2);
    let per_second = r.wall / steps3 as f64 / w3.dt;
    row(
        &format!("5 dam break 3D {n3} p, 2 threads: wall per simulated s"),
        format!("{per_second:.0} ({steps3} steps)"),
        "2000".into(),
        Some(per_second / 2000.0),
    );
    row(
        "5   mean iterations; largest compression (%)",
        format!("{:.0}; {:.2}", r.mean_iterations, 100.0 * r.worst),
        "-; 1".into(),
        None,
    );
    let per_particle = peak_rss_bytes() / n3 as f64;
    row(
        "5   peak memory per fluid particle (process peak, 3D run)",
        format!("{:.2} KiB", per_particle / 1024.0),
        "1.5 KiB".into(),
        Some(per_particle / 1536.0),
    );
}

/// The pile (an earlier issue's target): ms per step of the 1000-cube pile after 1 s of settling, vcsim (PGS) and rapier3d
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
