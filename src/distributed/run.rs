//! The run loop of a divided simulation: every rank steps its part of the fluid
//! ([`crate::pipeline::World::step`] with the fluid method's halo set, [`prepare`]); at each
//! output time the probes are measured over each rank's owned particles and reduced (largest
//! coordinate, largest compression: maximum; energies, the mean density error, a point
//! pressure's Shepard sums: sums; a wave gauge's column of particles and the free surface a
//! submerged fraction reads: gathered from every rank), and rank 0 writes them to `probes.csv`
//! (column names as a run in one process writes them). The bodies' probes are read on each
//! rank (the bodies are the same everywhere).
//!
//! Every decision to stop is global: a signal on any rank, a step that ends early on any rank,
//! the end time (the same clock everywhere).

use super::checkpoint::{self as ckp, RankCheckpoint, RankLayout};
use super::{agree, Comm, SlabHalo};
use crate::fluid::halo::Halo;
use crate::io::checkpoint::{Checkpoint, OutputMark};
use crate::io::run::CheckpointOptions;
use crate::io::vtk::VtkWriter;
use crate::math::Real;
use crate::pipeline::{World, WorldState};
use crate::probe::Probe;
use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::PathBuf;
use std::time::Instant;

/// What a divided run does.
pub struct DividedOptions {
    /// Output folder (rank 0 writes `probes.csv` there).
    pub out: PathBuf,
    /// End time (s).
    pub end: Real,
    /// Output interval (s).
    pub every: Real,
    /// Whether each rank writes its particles at each output as a piece of one VTK frame
    /// (`frames/fluid_FRAME_RANK.vtu`, joined by rank 0's `frames/fluid_FRAME.pvtu` and
    /// `fluid.pvd`).
    pub vtk: bool,
    /// Per-rank checkpoints ([`super::checkpoint`]) at the first output at least `every`
    /// after the last, at the start, at the end and when stopped by a signal; `None`: none.
    pub checkpoint: Option<CheckpointOptions>,
    /// The outputs of the run this one resumes (the world was restored by [`resume`]);
    /// `None`: a new run.
    pub resume: Option<Resumed>,
}

/// Where a resumed divided run takes up its outputs: from its checkpoint.
#[derive(Debug, Clone, Default)]
pub struct Resumed {
    /// The probes' rows written up to the checkpoint.
    pub rows: Vec<Vec<Real>>,
    /// The output files then (`csv[0]`: the bytes in `probes.csv`).
    pub output: OutputMark,
}

/// What a divided run did (the same on every rank, apart from `ghosts` and `comm_seconds`,
/// which are this rank's).
#[derive(Debug, Clone, Default)]
pub struct DividedReport {
    /// Model steps taken.
    pub steps: u64,
    /// Time reached (s).
    pub time: Real,
    /// Whether the run stopped before its end (a signal, or a step cut short on some rank).
    pub stopped: bool,
    /// Wall time (s).
    pub wall: f64,
    /// Fluid particles over all ranks at the end.
    pub particles: usize,
    /// Owned particles of each rank at the end.
    pub owned: Vec<usize>,
    /// Ghosts of each rank at the end.
    pub ghosts: Vec<usize>,
    /// Static wall particles each rank holds at the end (those within reach of its slab).
    pub walls: Vec<usize>,
    /// Each rank's wall time in collective operations (s).
    pub comm_seconds: Vec<f64>,
    /// Particles that changed rank, all ranks.
    pub migrated: u64,
    /// Each rank's peak resident memory (bytes; Linux's `VmHWM`, 0 where it cannot be read).
    pub peak_memory: Vec<u64>,
    /// The probe columns and one row per output (`t`, the time, first).
    pub columns: Vec<String>,
    /// See `columns`.
    pub rows: Vec<Vec<Real>>,
    /// Largest compression over the outputs (dimensionless).
    pub largest_compression: Real,
    /// Time of the last checkpoint written (s), if any.
    pub checkpoint: Option<Real>,
    /// Iterations of the constraint solves summed over the steps (the same on every rank: the
    /// parts stop together; 0 for a partitioned fluid method).
    pub iterations: u64,
    /// Iterations of the fluid method's own solves summed over the steps (ISPH's conjugate
    /// gradients; the same on every rank; 0 for a method without one).
    pub inner_iterations: u64,
    /// This rank's wall time in each stage of the step (name, s; collectives inside a stage
    /// count in it).
    pub stages: Vec<(&'static str, f64)>,
}

impl DividedReport {
    /// The stages' wall times (this rank's: rank 0's in the printed summary).
    fn stage_lines(&self) -> String {
        let mut t = String::from("\n  wall time per stage on this rank (total, per step):");
        for (name, d) in &self.stages {
            t += &format!(
                "\n    {name:<16} {d:>9.4} s  {:>9.2} µs",
                1e6 * d / self.steps.max(1) as f64
            );
        }
        t
    }

    /// The summary, as `vcsim run` prints it under `mpirun`.
    pub fn text(&self) -> String {
        let comm = self.comm_seconds.iter().copied().fold(0.0, f64::max);
        format!(
            "  ranks            {}\n  steps            {} to t = {:.6} s\n  wall time        \
             {:.2} s\n  particles        {} (owned per rank {:?})\n  ghosts per rank  {:?}\n  \
             walls per rank   {:?}\n  migrated         {}\n  collectives      {:.2} s on the busiest rank ({:.1} % of \
             the wall time, waiting for other ranks included)\n  peak memory      {:?} MB \
             per rank\n  largest compression {:.3} %\n  solve iterations {} ({:.1} per step)\n  \
             fluid's own solve iterations {} ({:.1} per step)",
            self.owned.len(),
            self.steps,
            self.time,
            self.wall,
            self.particles,
            self.owned,
            self.ghosts,
            self.walls,
            self.migrated,
            comm,
            100.0 * comm / self.wall.max(1e-9),
            self.peak_memory
                .iter()
                .map(|&b| (b as f64 / 1e6).round() as u64)
                .collect::<Vec<_>>(),
            100.0 * self.largest_compression,
            self.iterations,
            self.iterations as f64 / self.steps.max(1) as f64,
            self.inner_iterations,
            self.inner_iterations as f64 / self.steps.max(1) as f64
        ) + &self.stage_lines()
    }
}

/// Divides `world`'s fluid among the ranks of `comm` (the world holds the whole model on
/// every rank, built from the same file): an error, before anything runs, for what does not
/// run divided yet.
pub fn prepare(world: &mut World, comm: Box<dyn Comm>) -> Result<(), String> {
    prepare_with_width(world, comm, None)
}

/// [`prepare`] with ghosts reaching `width_supports` kernel supports beyond each slab
/// ([`SlabHalo::claim`]; `None`: the default).
pub fn prepare_with_width(
    world: &mut World,
    comm: Box<dyn Comm>,
    width_supports: Option<Real>,
) -> Result<(), String> {
    let scene = check(world)?;
    let fluid = world.fluid.as_mut().ok_or("no fluid")?;
    let (width, skin) = ghost_width(world.fluid_method.as_ref(), fluid, width_supports);
    let halo = SlabHalo::claim(comm, fluid, scene, (width, skin));
    world.fluid_method.set_halo(Box::new(halo))
}

/// The ghost layers' depth in kernel supports (`width_supports`, or the method's
/// [`crate::fluid::FluidMethod::ghost_supports`] × (1 + 2 s)) and its skin s
/// ([`crate::fluid::FluidMethod::ghost_skin`]).
fn ghost_width(
    method: &dyn crate::fluid::FluidMethod,
    fluid: &crate::fluid::Fluid,
    width_supports: Option<Real>,
) -> (Real, Real) {
    let skin = method.ghost_skin(fluid);
    let width = width_supports.unwrap_or(method.ghost_supports() * (1.0 + 2.0 * skin));
    (width, skin)
}

/// Puts rank `comm.rank()`'s checkpointed state (`state`, its fluid divided as `layout`
/// says) into `world`, built from the whole model, and divides it as [`prepare`] does
/// (collective: an error on any rank is an error on every rank).
pub fn resume(
    world: &mut World,
    comm: Box<dyn Comm>,
    state: WorldState,
    layout: RankLayout,
) -> Result<(), String> {
    let scene = check(world)?;
    let fluid = world.fluid.as_mut().ok_or("no fluid")?;
    agree(&*comm, SlabHalo::fits(&layout, fluid, comm.size()))?;
    let listless = layout.listless.clone();
    let (width, skin) = ghost_width(world.fluid_method.as_ref(), fluid, None);
    let halo = SlabHalo::resumed(comm, fluid, scene, (width, skin), layout);
    world.fluid_method.set_halo(Box::new(halo))?;
    let restored = world.restore_part(state);
    let restored = agree(slab(world).comm(), restored);
    if restored.is_ok() {
        let mut fluid = world.fluid.take().expect("a divided world has a fluid");
        slab(world).restored(&mut fluid, listless);
        world.fluid = Some(fluid);
    }
    restored
}

/// What does not run divided yet, before anything runs; the scene box to cut.
fn check(world: &World) -> Result<[crate::math::Vec3; 2], String> {
    let Some(fluid) = world.fluid.as_ref() else {
        return Err("only a fluid can be divided among processes: the model has none".into());
    };
    if fluid.params.periodic.any() {
        return Err("a periodic fluid does not run divided among processes yet".into());
    }
    if world.fluid_method.in_solve() {
        use crate::solver::SolverChoice;
        if matches!(&world.solver, SolverChoice::Pgs(p) if p.multilevel) {
            return Err(
                "the multilevel correction does not run divided among processes yet: \
                 `solver: Pgs(multilevel: false)`"
                    .into(),
            );
        }
    }
    world
        .scene
        .ok_or_else(|| "a fluid model has a scene box; this one has none".into())
}

fn slab(world: &mut World) -> &mut SlabHalo {
    SlabHalo::of(&mut *world.fluid_method)
}

/// The output files of a divided run: rank 0's `probes.csv`, each rank's VTK pieces.
struct Outputs {
    csv: Option<BufWriter<File>>,
    vtk: Option<VtkWriter>,
    frame: usize,
    rank: usize,
    size: usize,
}

impl Outputs {
    /// New files, or (`resume`) those of the run resumed, cut back to its checkpoint.
    fn open(
        world: &World,
        opts: &DividedOptions,
        (rank, size): (usize, usize),
        columns: &[String],
    ) -> Result<Outputs, String> {
        let dir = &opts.out;
        let mark = opts.resume.as_ref().map(|r| &r.output);
        let mut csv = None;
        if rank == 0 {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let path = dir.join("probes.csv");
            let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
            let f = match mark {
                None => {
                    let mut f = BufWriter::new(File::create(&path).map_err(cannot)?);
                    writeln!(f, "{}", columns.join(",")).map_err(cannot)?;
                    f
                }
                Some(m) => {
                    let len = m.csv.first().copied().unwrap_or(0);
                    let mut f = std::fs::OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .map_err(cannot)?;
                    if f.metadata().map_err(cannot)?.len() < len {
                        return Err(format!(
                            "{} is shorter than at the checkpoint ({len} bytes)",
                            path.display()
                        ));
                    }
                    f.set_len(len).map_err(cannot)?;
                    f.seek(std::io::SeekFrom::End(0)).map_err(cannot)?;
                    BufWriter::new(f)
                }
            };
            csv = Some(f);
        }
        let vtk = match (opts.vtk, mark) {
            (false, _) => None,
            (true, None) => Some(VtkWriter::new(dir, world)),
            (true, Some(m)) => Some(VtkWriter::resume_pieces(
                dir,
                world,
                m.fluid_frames.clone(),
                m.frame,
                rank == 0,
            )),
        };
        let vtk = vtk
            .transpose()
            .map_err(|e| format!("cannot write frames in {}: {e}", dir.display()))?;
        Ok(Outputs {
            csv,
            vtk,
            frame: mark.map_or(0, |m| m.frame),
            rank,
            size,
        })
    }

    /// Writes the output of the state now: `row` (rank 0) and the VTK pieces.
    fn write(&mut self, world: &mut World, row: &[Real]) -> Result<(), String> {
        if let Some(v) = self.vtk.as_mut() {
            let owned = slab(world).owned().to_vec();
            v.write_fluid_piece(world, self.frame, (self.rank, self.size), &owned)
                .map_err(|e| format!("cannot write frame {}: {e}", self.frame))?;
        }
        self.frame += 1;
        if let Some(f) = self.csv.as_mut() {
            // (As a run in one process writes `probes.csv`.)
            let mut text = vec![format!("{:.9}", row[0])];
            text.extend(row[1..].iter().map(|v| format!("{v:.12e}")));
            writeln!(f, "{}", text.join(",")).map_err(|e| e.to_string())?;
            f.flush().map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Where the files stand.
    fn mark(&self) -> Result<OutputMark, String> {
        let csv = match &self.csv {
            Some(f) => vec![f.get_ref().metadata().map_err(|e| e.to_string())?.len()],
            None => Vec::new(),
        };
        Ok(OutputMark {
            csv,
            frame: self.frame,
            frames: Vec::new(),
            fluid_frames: self
                .vtk
                .as_ref()
                .map(|v| v.frames().1.to_vec())
                .unwrap_or_default(),
        })
    }
}

/// Runs a prepared world ([`prepare`], or [`resume`] with `opts.resume`) to `opts.end`; rank
/// 0 writes `probes.csv`. Outputs every `opts.every` on the grid of the model's steps counted
/// from the start of the run (a resumed run's too), and at the end.
pub fn run(
    world: &mut World,
    probes: &[Probe],
    opts: &DividedOptions,
) -> Result<DividedReport, String> {
    let (rank, size) = (slab(world).comm().rank(), slab(world).comm().size());
    let mut columns = vec!["t".to_string()];
    for p in probes {
        columns.extend(p.columns(world));
    }
    let files = Outputs::open(world, opts, (rank, size), &columns);
    let mut files = agree(slab(world).comm(), files)?;
    let mut report = DividedReport {
        columns,
        rows: opts
            .resume
            .as_ref()
            .map(|r| r.rows.clone())
            .unwrap_or_default(),
        ..Default::default()
    };
    let t0 = Instant::now();
    let (dt, first) = (world.dt, world.steps);
    // (The steps of a run in one process, `crate::runner`: the end rounded to the nearest
    // step, so that a step that does not divide the end gives the same rows.)
    let steps = ((opts.end - world.time_origin) / dt).round().max(1.0) as u64;
    let last = (world.steps_origin + steps).max(first);
    let every = ((opts.every / dt).round() as u64).max(1);
    let due = |k: u64| k.is_multiple_of(every) || k == last;
    let mut saved = world.time;
    // A new run: the start's output, then a checkpoint of it. (A resumed run's start was
    // written before its checkpoint.)
    if opts.resume.is_none() {
        output(world, probes, &mut files, &mut report)?;
        let mark = files.mark().map(|m| (m, 1));
        checkpoint(world, opts, &files, mark, &mut report)?;
    }
    while world.steps < last {
        let info = world.step();
        report.iterations += info.iterations as u64;
        report.inner_iterations += world.last_substeps.solve_iterations as u64;
        let mut stop = [
            world.abort.is_some() as u8 as Real,
            crate::interrupt::requested() as u8 as Real,
        ];
        slab(world).max(&mut stop);
        if stop[0] > 0.0 {
            // A step cut short on some rank: its state is not a model step's; no checkpoint.
            report.stopped = true;
            break;
        }
        let k = world.steps;
        // The outputs of the state's checkpoint: up to this step's, but without a row off the
        // output grid (the end's), which a resumed run with a later end does not write.
        let mark = |f: &Outputs, r: &DividedReport| f.mark().map(|m| (m, r.rows.len()));
        let before = (k == last && !k.is_multiple_of(every)).then(|| mark(&files, &report));
        if due(k) {
            output(world, probes, &mut files, &mut report)?;
        }
        let plan = opts.checkpoint.as_ref();
        let on_time = plan.is_some_and(|p| world.time - saved >= p.every - 0.5 * dt);
        if stop[1] > 0.0 || (due(k) && (on_time || k == last)) {
            let mark = before.unwrap_or_else(|| mark(&files, &report));
            checkpoint(world, opts, &files, mark, &mut report)?;
            saved = world.time;
        }
        if stop[1] > 0.0 {
            report.stopped = true;
            break;
        }
    }
    report.steps = world.steps - first;
    report.time = world.time;
    report.wall = t0.elapsed().as_secs_f64();
    finish(world, report)
}

/// The output of the state now: the probes reduced over the ranks, rank 0's row of
/// `probes.csv`, each rank's VTK piece (collective; an error on any rank is an error on all).
fn output(
    world: &mut World,
    probes: &[Probe],
    files: &mut Outputs,
    report: &mut DividedReport,
) -> Result<(), String> {
    let mut row = vec![world.time];
    row.extend(super::sample::sample(world, probes));
    let done = files.write(world, &row);
    agree(slab(world).comm(), done)?;
    report.rows.push(row);
    Ok(())
}

/// Every rank's checkpoint of the state now, the outputs as `mark` says (the files, the
/// number of rows; collective: the
/// ranks write theirs, meet, then each removes its older ones). Nothing without a plan.
fn checkpoint(
    world: &mut World,
    opts: &DividedOptions,
    files: &Outputs,
    mark: Result<(OutputMark, usize), String>,
    report: &mut DividedReport,
) -> Result<(), String> {
    let Some(plan) = opts.checkpoint.as_ref() else {
        return Ok(());
    };
    let (rank, size) = (files.rank, files.size);
    let written = mark.and_then(|(output, rows)| {
        let c = RankCheckpoint {
            ranks: size as u32,
            rank: rank as u32,
            base: Checkpoint {
                model_path: plan.model_path.clone(),
                model_text: plan.model_text.clone(),
                end: opts.end,
                every: plan.every,
                columns: report.columns[1..].to_vec(),
                state: world.state(),
                totals: Default::default(),
                output,
            },
            layout: {
                let fluid = world.fluid.take().expect("a divided world has a fluid");
                let layout = slab(world).layout(&fluid);
                world.fluid = Some(fluid);
                layout
            },
            rows: report.rows[..rows].to_vec(),
        };
        ckp::write(&opts.out, &c).map_err(|e| {
            format!(
                "cannot write the checkpoint in {}: {e}",
                ckp::dir(&opts.out).display()
            )
        })
    });
    let step = agree(slab(world).comm(), written)?;
    let pruned = ckp::prune(&opts.out, rank, size, step).map_err(|e| e.to_string());
    agree(slab(world).comm(), pruned)?;
    report.checkpoint = Some(world.time);
    Ok(())
}

/// The run's totals over the ranks.
fn finish(world: &mut World, mut report: DividedReport) -> Result<DividedReport, String> {
    report.stages = crate::pipeline::Stage::ALL
        .iter()
        .map(|&st| (st.name(), world.timings.get(st).as_secs_f64()))
        .collect();
    let h = slab(world);
    let (n, r) = (h.comm().size(), h.comm().rank());
    let st = h.stats;
    let mut per = vec![0.0; 5 * n + 1];
    per[r] = st.owned as f64;
    per[n + r] = st.ghosts as f64;
    per[2 * n + r] = st.comm_seconds;
    per[3 * n + r] = peak_memory() as f64;
    per[4 * n + r] = st.walls as f64;
    per[5 * n] = st.migrated as f64;
    h.comm().sum(&mut per);
    report.owned = per[..n].iter().map(|&v| v as usize).collect();
    report.ghosts = per[n..2 * n].iter().map(|&v| v as usize).collect();
    report.comm_seconds = per[2 * n..3 * n].to_vec();
    report.peak_memory = per[3 * n..4 * n].iter().map(|&v| v as u64).collect();
    report.walls = per[4 * n..5 * n].iter().map(|&v| v as usize).collect();
    report.migrated = per[5 * n] as u64;
    report.particles = report.owned.iter().sum();
    let col = report.columns.iter().position(|c| c == "max_compression");
    report.largest_compression = col
        .map(|c| report.rows.iter().map(|r| r[c]).fold(0.0, Real::max))
        .unwrap_or(0.0);
    Ok(report)
}

/// This process's peak resident memory (bytes): `VmHWM` of `/proc/self/status` (Linux); 0
/// where it cannot be read.
pub fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(0)
}
