//! One simulation divided among ranks (issue 55), ranks as threads of this process
//! ([`vcsim::distributed::ThreadComm`], the same exchange code as under MPI): the WCSPH dam
//! break on 1, 2 and 4 ranks against the run in one process, at every output: the surge front
//! within 1 % (of the tank's length: 0.6 % of the front's travel at the coarsest), the largest
//! compression within 0.1 percentage point, every particle owned once. One rank must give the
//! undivided run's numbers exactly (the exchange adds nothing when there is no other rank).
//!
//! The fronts of the divided runs differ from the undivided one only by the order of the
//! sums (each rank sorts its own particles into cell order), which a dam break amplifies
//! slowly; the 1 % of issue 55's first criterion is the tolerance.

mod common;

use common::{floating_box, Scratch, DAM_BREAK_2D_WCSPH as DAM_2D, DAM_BREAK_3D_WCSPH as DAM_3D};
use std::path::Path;
use vcsim::distributed::checkpoint as ckp;
use vcsim::distributed::run::{
    prepare, prepare_with_width, resume, run, DividedOptions, DividedReport, Resumed,
};
use vcsim::distributed::ThreadComm;
use vcsim::pipeline::World;
use vcsim::probe::Probe;

fn world(text: &str) -> (World, Vec<Probe>) {
    let m = vcsim::model::parse_str(Path::new("dam.ron"), text).unwrap();
    let w = vcsim::model::build_world(&m).unwrap();
    let p = vcsim::model::resolve_probes(&m, &w).unwrap();
    (w, p)
}

/// `rank(world, probes, comm)` for each of `n` ranks of the model, as threads each with its own
/// one-thread pool; the results by rank.
fn on_ranks<T: Send + 'static>(
    text: &str,
    n: usize,
    rank: impl Fn(World, Vec<Probe>, ThreadComm) -> T + Send + Sync + Clone + 'static,
) -> Vec<T> {
    let handles: Vec<_> = ThreadComm::group(n)
        .into_iter()
        .map(|comm| {
            let (text, rank) = (text.to_string(), rank.clone());
            std::thread::spawn(move || {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let (w, probes) = world(&text);
                    rank(w, probes, comm)
                })
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

/// The model on `n` ranks (threads, each with its own one-thread pool), ghosts reaching
/// `width` kernel supports (`None`: the default).
fn divided(text: &str, n: usize, end: f64, width: Option<f64>) -> Vec<DividedReport> {
    let out = Scratch::unmade(&format!("divided-{n}"));
    let dir = out.to_path_buf();
    on_ranks(text, n, move |mut w, probes, comm| {
        prepare_with_width(&mut w, Box::new(comm), width).unwrap();
        let opts = DividedOptions {
            out: dir.clone(),
            end,
            every: 0.01,
            vtk: false,
            checkpoint: None,
            resume: None,
        };
        run(&mut w, &probes, &opts).unwrap()
    })
}

/// The undivided run: the time and every probe column at each output.
fn whole(text: &str, end: f64) -> Vec<Vec<f64>> {
    whole_with_iterations(text, end).0
}

/// [`whole`] and the solve's iterations summed over the steps (the constraint solve's and the
/// fluid method's own, ISPH's conjugate gradients, together).
fn whole_with_iterations(text: &str, end: f64) -> (Vec<Vec<f64>>, u64) {
    let (mut w, probes) = world(text);
    let mut iterations = 0;
    let steps = (end / w.dt).round() as usize;
    let every = (0.01 / w.dt).round() as usize;
    let mut rows = Vec::new();
    let mut vals: Vec<f64> = Vec::new();
    for k in 0..=steps {
        if k > 0 {
            iterations += w.step().iterations as u64;
            iterations += w.last_substeps.solve_iterations as u64;
        }
        if k % every == 0 {
            vals.clear();
            vals.push(w.time);
            vcsim::probe::Probe::sample_all(&probes, &w, &mut vals);
            rows.push(vals.clone());
        }
    }
    (rows, iterations)
}

/// The model on 1, 2 and 4 ranks against one process: every particle owned once, slabs
/// balanced, the same reduced rows on every rank, fronts within 1 % at every output, the
/// largest compression within 0.1 percentage point; one rank gives the same numbers.
fn matches_one_process(text: &str, particles: usize, end: f64) {
    let (reference, iterations) = whole_with_iterations(text, end);
    let largest = reference.iter().map(|r| r[2]).fold(0.0, f64::max);
    let mut walls = 0;
    for n in [1, 2, 4] {
        let reports = divided(text, n, end, None);
        let r = &reports[0];
        // The static walls are divided too: on 4 ranks each holds only those within reach.
        match n {
            1 => walls = r.walls[0],
            4 => assert!(
                r.walls.iter().all(|&w| w < walls),
                "{:?} of {walls}",
                r.walls
            ),
            _ => {}
        }
        assert!(!r.stopped);
        assert_eq!(
            r.particles, particles,
            "{n} ranks: every particle owned once"
        );
        assert_eq!(r.owned.len(), n);
        if n > 1 {
            assert!(r.ghosts.iter().all(|&g| g > 0), "{n} ranks: {:?}", r.ghosts);
            let fair = particles / n;
            assert!(
                r.owned.iter().all(|&o| o.abs_diff(fair) <= fair / 10),
                "{n} ranks: slabs balanced to 10 %, {:?}",
                r.owned
            );
        }
        // Every rank reports the same reduced rows.
        for other in &reports[1..] {
            assert_eq!(other.rows, r.rows);
        }
        assert_eq!(r.rows.len(), reference.len());
        let mut worst = 0.0f64;
        for (row, want) in r.rows.iter().zip(&reference) {
            assert!((row[0] - want[0]).abs() < 1e-9);
            worst = worst.max((row[1] - want[1]).abs() / want[1]);
            if n == 1 {
                assert_eq!(
                    (row[1], row[2]),
                    (want[1], want[2]),
                    "one rank at t = {}",
                    row[0]
                );
            }
        }
        let dc = (r.largest_compression - largest).abs();
        eprintln!(
            "{n} ranks: fronts within {:.2e} %, largest compression {:.4} % against {:.4} %; \
             solve iterations {} against {iterations}; owned {:?}, ghosts {:?}, walls {:?}, \
             migrated {}",
            100.0 * worst,
            100.0 * r.largest_compression,
            100.0 * largest,
            r.iterations + r.inner_iterations,
            r.owned,
            r.ghosts,
            r.walls,
            r.migrated
        );
        assert!(worst < 0.01, "{n} ranks: a front off by {worst}");
        assert!(dc < 1e-3, "{n} ranks: largest compression off by {dc}");
        let mine = r.iterations + r.inner_iterations;
        assert!(
            mine as f64 <= 1.5 * iterations as f64,
            "{n} ranks: {mine} solve iterations against {iterations} in one process"
        );
    }
}

#[test]
fn dam_break_2d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(DAM_2D, 800, 0.25);
}

/// The constraint method (its default solver, ten PGS sweeps, and its density projection),
/// divided: the same criteria.
#[test]
fn constraint_dam_break_2d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(&DAM_2D.replace("method: Wcsph(), ", ""), 800, 0.25);
}

/// The constraint method with PGS run to a tolerance (the sweeps' count then measures the
/// convergence across the parts): iterations within 1.5× of one process.
#[test]
fn constraint_dam_break_2d_converged_on_1_2_4_ranks_matches_one_process() {
    let text = DAM_2D.replace("method: Wcsph(), ", "").replace(
        "    fluid:",
        "    solver: Pgs(max_iterations: 1000, tolerance: 3e-4),\n    fluid:",
    );
    matches_one_process(&text, 800, 0.05);
}

/// The constraint method solved by APGD (to 1e-3 m/s, the 20k APGD model's tolerance): its
/// products meet across the ranks, its sums and residual are reduced; iterations within 1.5×.
#[test]
fn constraint_apgd_dam_break_2d_on_1_2_4_ranks_matches_one_process() {
    let text = DAM_2D.replace("method: Wcsph(), ", "").replace(
        "    bodies:",
        "    solver: Apgd(tolerance: 1e-3),\n    bodies:",
    );
    matches_one_process(&text, 800, 0.06);
}

/// ISPH divided: its pressure equation's conjugate gradients run on every rank at once (the
/// ghosts' entries of each direction exchanged, the dot products summed; the two-level
/// preconditioner's aggregates per rank, its coarse matrix gathered over the ranks, its
/// smoothing with the ghost couplings), its kernel sums, pressures and pockets joined over the
/// ranks: the same criteria, CG iterations within 1.5× of one process (measured 2026-12-01:
/// 1.02× and 0.99× on 2 and 4 ranks; with each rank's own coarse solve they were 1.29× and
/// 1.58×).
#[test]
fn isph_dam_break_2d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(&DAM_2D.replace("Wcsph()", "Isph()"), 800, 0.25);
}

#[test]
fn dam_break_3d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(DAM_3D, 512, 0.2);
}

#[test]
fn constraint_dam_break_3d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(&DAM_3D.replace("method: Wcsph(), ", ""), 512, 0.2);
}

#[test]
fn isph_dam_break_3d_on_1_2_4_ranks_matches_one_process() {
    matches_one_process(&DAM_3D.replace("Wcsph()", "Isph()"), 512, 0.2);
}

/// A light box (600 kg/m³) on the floor in the surge's path, lifted and carried by it: its
/// position on 2 and 4 ranks within 1 % of the tank's length of the undivided run's at every
/// output (the bodies are on every rank; the fluid's force on them is summed over the ranks);
/// the probes that read the fluid near a point — pressure on the floor under the column, a
/// wave gauge in it, the box's submerged fraction — within 1 % of their scale.
#[test]
fn floating_box_in_the_surge_on_2_4_ranks_matches_one_process() {
    floating_box_matches_one_process(DAM_2D, true);
}

/// The same with the constraint method: the box's rows with the fluid in one solve divided
/// among the ranks (its velocities the sum of every rank's changes after each sweep).
///
/// A point pressure of the constraint method is checked for a bias: the mean of its
/// differences from one process over the outputs within three standard errors of zero. Its
/// pressures are the impulses of a Gauss–Seidel solve, and their values at one instant depend
/// on the order of the sweep, which the division changes. Measured (2026-11-30, 2 ranks): at
/// ten sweeps the pressure under the column differs by up to 237 Pa of a 1 982 Pa peak at one
/// output, as much as it jumps between two outputs of one process (972 → 1 211 Pa in 0.02 s);
/// solved to 3e-4 m/s it is within 0.2 Pa for the first 0.03 s and as far apart as ten sweeps
/// once the surge has hit the far wall.
#[test]
fn constraint_floating_box_in_the_surge_on_2_4_ranks_matches_one_process() {
    floating_box_matches_one_process(&DAM_2D.replace("method: Wcsph(), ", ""), false);
}

/// The same with ISPH: the box's added mass and the fluid's force on it from the divided
/// pressure solves, summed over the ranks. Its point pressure is checked for a bias, as the
/// constraint method's: measured (2026-12-01, 2 ranks), it is within 1 Pa of one process to
/// 0.14 s and then as far apart as one process's own pressure jumps between two outputs once
/// the surge has passed the point (1 612 → 2 682 Pa from 0.24 to 0.25 s; 1 358 Pa apart at
/// 0.25 s), while the box stays within 1.1e-4 m.
#[test]
fn isph_floating_box_in_the_surge_on_2_4_ranks_matches_one_process() {
    floating_box_matches_one_process(&DAM_2D.replace("Wcsph()", "Isph()"), false);
}

/// `instantaneous`: whether the point pressure is compared at every output (else checked for a
/// bias).
fn floating_box_matches_one_process(dam: &str, instantaneous: bool) {
    let text = floating_box(dam);
    let end = 0.25;
    let reference = whole(&text, end);
    let (x, y) = (reference[0].len() - 3, reference[0].len() - 2);
    let (pressure, gauge, submerged) = (x - 3, x - 2, x - 1);
    let moved = reference.last().unwrap()[x] - reference[0][x];
    assert!(moved > 0.02, "the surge carries the box ({moved} m)");
    for n in [2, 4] {
        let r = &divided(&text, n, end, None)[0];
        let mut worst = 0.0f64;
        let mut off = [0.0f64; 3];
        for (row, want) in r.rows.iter().zip(&reference) {
            worst = worst
                .max((row[x] - want[x]).abs())
                .max((row[y] - want[y]).abs());
            for (o, c) in off.iter_mut().zip([pressure, gauge, submerged]) {
                // (NaN where neither can be measured.)
                let d = (row[c] - want[c]).abs();
                *o = o.max(if row[c].is_nan() && want[c].is_nan() {
                    0.0
                } else if d.is_nan() {
                    f64::INFINITY
                } else {
                    d
                });
            }
        }
        // The differences of the point pressure at the outputs: their mean (a bias, such as a
        // rank's share of the force missing, would show there) against its standard error.
        let diffs: Vec<f64> = (r.rows.iter().zip(&reference))
            .map(|(row, want)| row[pressure] - want[pressure])
            .collect();
        let m = diffs.len() as f64;
        let mean_off = diffs.iter().sum::<f64>() / m;
        let sd = (diffs.iter().map(|d| (d - mean_off).powi(2)).sum::<f64>() / (m - 1.0)).sqrt();
        let standard_error = sd / m.sqrt();
        if !instantaneous {
            assert!(
                mean_off.abs() < 3.0 * standard_error,
                "{n} ranks: the pressure is biased by {mean_off} Pa (standard error \
                 {standard_error} Pa)"
            );
            off[0] = 0.0;
        }
        let peak = reference.iter().map(|r| r[pressure]).fold(0.0, f64::max);
        let wet = reference.iter().filter(|r| r[submerged] > 0.0).count();
        assert!(wet >= 5, "the surge reaches the box: {wet} outputs");
        eprintln!(
            "{n} ranks: box within {worst:.2e} m; it moved {moved:.3} m; pressure on the \
             floor within {:.2e} Pa (peak {peak:.0} Pa; the mean difference {mean_off:.1} Pa, \
             standard error {standard_error:.1} Pa), wave gauge within {:.2e} m, submerged \
             fraction within {:.2e}",
            off[0], off[1], off[2]
        );
        assert!(worst < 0.01 * 0.584, "{n} ranks: the box off by {worst} m");
        assert!(
            off[0] < 0.01 * peak,
            "{n} ranks: pressure off by {} Pa",
            off[0]
        );
        assert!(
            off[1] < 0.01 * 0.292,
            "{n} ranks: wave gauge off by {} m",
            off[1]
        );
        assert!(
            off[2] < 0.01,
            "{n} ranks: submerged fraction off by {}",
            off[2]
        );
    }
}

/// Every particle's position after `end` (s), by id: undivided, or owned by one of `n` ranks
/// with ghosts reaching `width` supports.
fn positions(text: &str, n: usize, end: f64, width: Option<f64>) -> Vec<[f64; 3]> {
    let total = world(text).0.fluid.unwrap().len();
    let parts = on_ranks(text, n, move |mut w, _, comm| {
        prepare_with_width(&mut w, Box::new(comm), width).unwrap();
        for _ in 0..(end / w.dt).round() as usize {
            w.step();
        }
        let owned = w.fluid_method.halo().unwrap().owned().to_vec();
        let f = w.fluid.as_ref().unwrap();
        (0..f.len())
            .filter(|&i| owned[i])
            .map(|i| (f.id[i], f.pos[i]))
            .collect::<Vec<_>>()
    });
    let mut all = vec![[f64::NAN; 3]; total];
    for part in parts {
        for (id, x) in part {
            assert!(all[id as usize][0].is_nan(), "particle {id} owned twice");
            all[id as usize] = [x.x, x.y, x.z];
        }
    }
    all
}

fn largest_gap(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f64::max))
        .fold(0.0, f64::max)
}

/// Over the first steps, before round-off has grown, every particle of a divided run is where
/// the undivided run puts it to 1e-12 m (the spacing is 7.3e-3 m): no ghost is missing, none
/// is stale. Ghosts reaching only one support leave the walls' extrapolated pressures short of
/// fluid neighbours, and the same check sees it.
#[test]
fn first_steps_divided_match_every_particle_to_round_off() {
    // (DualSPHysics' settings as well: Verlet stepping carries the previous velocities and
    // densities with the particles, dynamic walls their densities.)
    let dsph = DAM_2D.replace(
        "Wcsph()",
        "Wcsph(walls: Dynamic, stepping: Verlet(every: 40))",
    );
    for (text, end) in [(DAM_2D, 0.01), (DAM_3D, 0.02), (dsph.as_str(), 0.05)] {
        let reference = positions(text, 1, end, None);
        for n in [2, 4] {
            let gap = largest_gap(&positions(text, n, end, None), &reference);
            eprintln!("{n} ranks: largest position gap {gap:.2e} m");
            assert!(
                gap < 1e-12,
                "{n} ranks: a particle {gap} m from where one process puts it"
            );
        }
    }
    let reference = positions(DAM_2D, 1, 0.01, None);
    let short = largest_gap(&positions(DAM_2D, 2, 0.01, Some(1.0)), &reference);
    eprintln!("ghosts one support deep: {short:.2e} m");
    assert!(
        short > 1e-10,
        "one support of ghosts should not be enough: {short}"
    );
}

/// The constraint method's ghost layers are one support and twice its small skin deep (1.04
/// supports at the default smoothing), not WCSPH's 2.48: its owned particles read their
/// neighbours' positions, velocities and kernel fills, and the ghosts' fills are exchanged.
/// Its divided run cannot match another width to the bit (the ghosts change the cell order,
/// so the order of the sweeps), but with the solve converged (PGS to 1e-9) over the first three
/// steps the runs with ghosts 2.48 and 3 supports deep differ by 5.8e-11 m and the default by
/// as much (6.2e-11 m), where ghosts 0.6 supports deep miss a column of the lattice's
/// neighbours (1.1e-5 m; from 0.77 supports, two spacings, a lattice at rest has every
/// neighbour column). And the divided run is within 2e-9 m of one process (1.3e-9 m): the
/// velocity filter's mean and rotation are the whole fluid's (summed over each rank's own
/// particles; with its ghosts counted as well, 3.8e-9 m).
#[test]
fn constraint_ghosts_one_support_deep_are_enough() {
    let deep = 2.0 * (1.0 + 2.0 * vcsim::fluid::wcsph::SKIN);
    let text = DAM_2D.replace("method: Wcsph(), ", "").replace(
        "    fluid:",
        "    solver: Pgs(max_iterations: 20000, tolerance: 1e-9),\n    fluid:",
    );
    let run = |n: usize, w: Option<f64>| positions(&text, n, 0.0015, w);
    let wide = run(2, Some(deep));
    let floor = largest_gap(&run(2, Some(3.0)), &wide);
    let default = largest_gap(&run(2, None), &wide);
    let short = largest_gap(&run(2, Some(0.6)), &wide);
    let one = largest_gap(&run(1, None), &wide);
    eprintln!(
        "against 2.48 supports: 3 {floor:.2e} m, default {default:.2e} m, 0.6 {short:.2e} m; \
         one process {one:.2e} m"
    );
    assert!(
        default < 1.5 * floor,
        "the default ghosts: {default} m against {floor} m"
    );
    assert!(
        short > 3.0 * floor,
        "0.6 supports of ghosts should not be enough: {short}"
    );
    assert!(one < 2e-9, "the divided run {one} m from one process");
}

/// More ranks than particles: two ranks own nothing and must still take part in every
/// collective decision (a rank that skipped one, as the densities' first reference height once
/// did, left the others waiting for ever).
///
/// The constraint method too: a rank without rows still meets the others after every sweep.
#[test]
fn ranks_without_particles_keep_step() {
    for method in ["method: Wcsph(), ", ""] {
        ranks_without_particles_keep_step_with(method);
    }
}

fn ranks_without_particles_keep_step_with(method: &str) {
    let text = DAM_2D
        .replace("max: (0.146, 0.292)", "max: (0.0146, 0.0073)")
        .replace("method: Wcsph(), ", method);
    let reference = whole(&text, 0.02);
    let reports = divided(&text, 4, 0.02, None);
    let r = &reports[0];
    assert_eq!(r.particles, 2);
    assert!(r.owned.contains(&0), "{:?}", r.owned);
    assert_eq!(r.rows.len(), reference.len());
    for (row, want) in r.rows.iter().zip(&reference) {
        assert!((row[1] - want[1]).abs() < 1e-12, "t = {}", row[0]);
    }
}

/// The static walls of a tank's dry part (the 3D dam break's column fills a third of its
/// length; the constraint method) are parked, spread over the ranks by their index, not all
/// held by the last slab, which reaches them: on four ranks no rank holds more than 1.2 × a
/// quarter of the walls the ranks hold together (2 284, 2 412, 2 372, 2 260 of 9 328; parking
/// nothing, 1 908, 2 172, 1 980, 6 264 of 12 324, the last 2.0 ×), and they hold at least the
/// model's 7 776. The runs' numbers with parked walls: the tests above.
#[test]
fn walls_of_a_dry_tank_are_spread_over_the_ranks() {
    let reports = divided(&DAM_3D.replace("method: Wcsph(), ", ""), 4, 0.001, None);
    let walls = &reports[0].walls;
    let (held, most) = (walls.iter().sum::<usize>(), *walls.iter().max().unwrap());
    println!("walls per rank {walls:?}, {held} held in all");
    assert!(held >= 7776, "{walls:?}");
    assert!(most as f64 <= 1.2 * held as f64 / 4.0, "{walls:?}");
}

/// An end that the step does not divide (0.01216 s of 0.5 ms steps: 24.3 steps) ends where a
/// run in one process ends (`vcsim::runner`: the nearest step, 0.012 s), not a step later.
#[test]
fn an_end_off_the_step_grid_ends_as_in_one_process() {
    let (mut w, probes) = world(DAM_2D);
    let bounds = vcsim::runner::Bounds::default();
    let (_, one) = vcsim::runner::run(&mut w, &probes, 0.01216, 0.01, &bounds, &mut ()).unwrap();
    let r = &divided(DAM_2D, 2, 0.01216, None)[0];
    assert_eq!(r.steps, one.steps);
    assert_eq!(r.rows.last().unwrap()[0], w.time);
    assert!((r.time - 0.012).abs() < 1e-12, "{}", r.time);
}

/// The floating box in the surge on `n` ranks to `end` (s) in `out`, with VTK pieces and a
/// checkpoint every 0.03 s; from the newest checkpoint in `out` when `resumed`.
fn checkpointed(text: &str, n: usize, end: f64, out: &Path, resumed: bool) -> Vec<DividedReport> {
    let (text, out) = (text.to_string(), out.to_path_buf());
    let model = text.clone();
    on_ranks(&text, n, move |mut w, probes, comm| {
        let rank = vcsim::distributed::Comm::rank(&comm);
        let mut opts = DividedOptions {
            out: out.clone(),
            end,
            every: 0.01,
            vtk: true,
            checkpoint: Some(vcsim::io::run::CheckpointOptions {
                every: 0.03,
                model_path: "box.ron".into(),
                model_text: model.clone(),
            }),
            resume: None,
        };
        if resumed {
            let step = ckp::latest(&out, n).unwrap();
            let c = ckp::read(&out, step, rank, n).unwrap();
            resume(&mut w, Box::new(comm), c.base.state, c.layout).unwrap();
            opts.resume = Some(Resumed {
                rows: c.rows,
                output: c.base.output,
            });
        } else {
            prepare(&mut w, Box::new(comm)).unwrap();
        }
        run(&mut w, &probes, &opts).unwrap()
    })
}

/// Every file under `dir` (relative path, bytes), sorted by path.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let name = p.strip_prefix(dir).unwrap().display().to_string();
                files.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// Issue 55, item 2: a divided run stopped at 0.05 s (0.0525 s, off the output grid) and
/// resumed from its per-rank checkpoints to 0.1 s writes the same bytes as the run that went through — `probes.csv`,
/// every VTK piece, `.pvtu` and `fluid.pvd`, and the last checkpoints themselves (each rank's
/// whole state: particles, ghosts, carried densities, the box) — on 2 and 3 ranks, with a
/// floating box carried by the surge.
#[test]
fn divided_run_resumes_from_its_checkpoints_to_the_same_bytes() {
    resumes_to_the_same_bytes(DAM_2D);
}

/// The same with the constraint method (its density rows' impulses, the warm starts, carried
/// in each rank's checkpoint).
#[test]
fn constraint_divided_run_resumes_from_its_checkpoints_to_the_same_bytes() {
    resumes_to_the_same_bytes(&DAM_2D.replace("method: Wcsph(), ", ""));
}

fn resumes_to_the_same_bytes(dam: &str) {
    let text = dam.replace(
        "    ],\n    fluid",
        "        (name: \"box\", shape: Cuboid(half_extents: (0.02, 0.02)), position: (0.4, 0.021), mass: 0.96),\n    ],\n    fluid",
    );
    let base = Scratch::new("divided-ckp");
    for n in [2, 3] {
        let (through, split) = (
            base.join(format!("through{n}")),
            base.join(format!("split{n}")),
        );
        let whole = checkpointed(&text, n, 0.1, &through, false);
        // On 3 ranks the first part ends off the output grid: its last row and frame (at
        // 0.0525 s) are not in its checkpoint, and the resumed run cuts them back.
        let stop = if n == 2 { 0.05 } else { 0.0525 };
        let first = checkpointed(&text, n, stop, &split, false);
        assert_eq!(first[0].checkpoint, Some(first[0].time));
        assert!(split.join("frames/fluid_000006.pvtu").exists() == (n == 3));
        let second = checkpointed(&text, n, 0.1, &split, true);
        assert_eq!(second[0].rows.len(), whole[0].rows.len());
        assert_eq!(second[0].steps + first[0].steps, whole[0].steps);
        let (a, b) = (tree(&through), tree(&split));
        let names = |t: &[(String, Vec<u8>)]| t.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&b), "{n} ranks: the same files");
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{n} ranks: {name} differs after the resume");
        }
        // One generation of checkpoints is left: the last, a file per rank.
        assert_eq!(
            a.iter().filter(|f| f.0.starts_with("checkpoints")).count(),
            n
        );
        eprintln!("{n} ranks: {} files the same to the byte", a.len());
    }
}
