//! `mpirun -n N vcsim run MODEL` (feature `mpi`, N > 1): the model's fluid divided among the
//! ranks ([`crate::distributed`]); rank 0 writes `probes.csv` and the summary. With
//! `--checkpoint-every` each rank writes its checkpoints, and `mpirun -n N vcsim run --resume
//! DIR` goes on from the newest step every rank saved ([`crate::distributed::checkpoint`]).
//! Without the feature, or on one rank, `vcsim run` runs as always.

use super::RunArgs;
use crate::distributed::checkpoint as ckp;
use crate::distributed::{agree, Comm};
use crate::io::checkpoint::Checkpoint;
use crate::math::Real;
use crate::pipeline::World;
use crate::probe::Probe;
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// What a rank's checkpoint holds besides a run's [`Checkpoint`]: how its fluid is divided,
/// the probes' rows so far.
pub(super) type Part = (ckp::RankLayout, Vec<Vec<Real>>);

/// The ranks of the MPI job when there are several (feature `mpi`); `None` otherwise.
pub(super) fn ranks() -> Option<Box<dyn Comm>> {
    #[cfg(feature = "mpi")]
    {
        let comm = crate::distributed::mpi_comm::MpiComm::init()?;
        if comm.size() > 1 {
            // (Every rank builds the whole model and then keeps its part of it: `run_with`
            // has made the allocator give the freed arrays back, `return_freed_blocks`.)
            return Some(Box::new(comm));
        }
    }
    None
}

/// The checkpoint `--resume DIR` names: `DIR/checkpoint.bin` in one process; under `mpirun`
/// (`comm`) this rank's file of the newest step every rank saved, with its [`Part`]
/// (collective: every rank fails if one does).
pub(super) fn read_checkpoint(
    dir: Option<&Path>,
    comm: Option<&dyn Comm>,
) -> Result<(Option<Checkpoint>, Option<Part>), String> {
    let (Some(dir), Some(comm)) = (dir, comm) else {
        let Some(dir) = dir else {
            return Ok((None, None));
        };
        let (one, divided) = (dir.join(crate::io::checkpoint::FILE), ckp::dir(dir));
        if !one.exists() && divided.is_dir() {
            return Err(format!(
                "{} holds the checkpoints of a run divided among MPI ranks (in {}): resume \
                 it under mpirun with as many ranks (mpirun -n N vcsim run --resume {})",
                dir.display(),
                divided.display(),
                dir.display()
            ));
        }
        return Ok((Some(crate::io::checkpoint::read(dir)?), None));
    };
    let (rank, size) = (comm.rank(), comm.size());
    let step = agree(comm, ckp::latest(dir, size))?;
    let mut same = [step as f64, -(step as f64)];
    comm.max(&mut same);
    if same[0] != -same[1] {
        return Err(format!(
            "the ranks see other checkpoints in {} (is the folder on a file system all \
             of them share?)",
            ckp::dir(dir).display()
        ));
    }
    let c = agree(comm, ckp::read(dir, step, rank, size))?;
    Ok((Some(c.base), Some((c.layout, c.rows))))
}

/// Runs the model divided among the ranks of `comm` (from `resume`, this rank's checkpoint,
/// when there is one); `every`: the checkpoint interval (s).
pub(super) fn run_divided(
    a: &RunArgs,
    (path, source, model): (&Path, &str, &crate::model::Model),
    world: &mut World,
    probes: &[Probe],
    (out, end, every): (&Path, f64, Option<f64>),
    comm: Box<dyn Comm>,
    resume: Option<(Checkpoint, Part)>,
) -> ExitCode {
    let (rank, size) = (comm.rank(), comm.size());
    let say = |text: String| {
        if rank == 0 {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    };
    // The model's warnings, printed by rank 0; with --deny-warnings every rank stops.
    let mut deny = [0.0];
    if resume.is_none()
        && rank == 0
        && super::print_warnings(path, source, model, world, a.deny_warnings)
    {
        deny[0] = 1.0;
    }
    comm.max(&mut deny);
    if deny[0] > 0.0 {
        return refused(rank);
    }
    let prepared = prepare(world, probes, comm, resume, (path, out));
    let resume = match prepared {
        Ok(r) => r,
        Err(e) => {
            say(format!("error: {e}"));
            return refused(rank);
        }
    };
    match &resume {
        Some((_, t, k)) => say(format!(
            "resuming {} from its checkpoint at t = {t} s (step {k}) on {size} MPI ranks, to \
             t = {end} s",
            out.display()
        )),
        None => say(format!(
            "running {} divided among {size} MPI ranks to t = {end} s, output in {}",
            path.display(),
            out.display()
        )),
    }
    let _ = super::catch_signals();
    let opts = crate::distributed::run::DividedOptions {
        out: out.to_path_buf(),
        end,
        every: model.output.every.0,
        vtk: model.output.vtk,
        checkpoint: every.map(|every| crate::io::run::CheckpointOptions {
            every,
            model_path: path.display().to_string(),
            model_text: source.to_string(),
        }),
        resume: resume.map(|r| r.0),
    };
    let report = match crate::distributed::run::run(world, probes, &opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: rank {rank}: {e}");
            return ExitCode::from(1);
        }
    };
    say(report.text());
    if !report.stopped {
        return ExitCode::SUCCESS;
    }
    let hint = match report.checkpoint {
        Some(t) => format!(
            "; the checkpoint at t = {t:.6} s resumes it: mpirun -n {size} vcsim run --resume {}",
            out.display()
        ),
        None => String::new(),
    };
    say(format!(
        "stopped at t = {:.6} s; probes.csv holds every output up to it{hint}",
        report.time
    ));
    ExitCode::from(130)
}

/// The exit code of a refusal every rank reaches together, before anything runs, which rank 0
/// has printed: 2 on rank 0, 0 on the others. `mpirun` ends the job when the first process
/// fails; had the other ranks exited 2 as well, one of them could end first and the job be
/// killed before rank 0's message was out (seen once in CI: `mpirun` reported rank 1's exit 2
/// and printed nothing else). So the others end quietly, and `mpirun` exits with rank 0's 2
/// after its message.
fn refused(rank: usize) -> ExitCode {
    ExitCode::from(if rank == 0 { 2 } else { 0 })
}

/// Divides the world among the ranks of `comm` ([`crate::distributed::run::prepare`]), or puts
/// this rank's checkpoint `resume` into it ([`crate::distributed::run::resume`]): the
/// resumed run's outputs, time (s) and step.
fn prepare(
    world: &mut World,
    probes: &[Probe],
    comm: Box<dyn Comm>,
    resume: Option<(Checkpoint, Part)>,
    (path, out): (&Path, &Path),
) -> Result<Option<(crate::distributed::run::Resumed, Real, u64)>, String> {
    let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(world)).collect();
    match resume {
        None => crate::distributed::run::prepare(world, comm).map(|_| None),
        Some((c, _)) if c.columns != columns[..] => Err(format!(
            "{} has other probes than the checkpoint in {} ([{}] against [{}])",
            path.display(),
            out.display(),
            columns.join(", "),
            c.columns.join(", ")
        )),
        Some((c, (layout, rows))) => {
            let (t, k) = (c.state.time, c.state.steps);
            crate::distributed::run::resume(world, comm, c.state, layout)?;
            let output = c.output;
            Ok(Some((
                crate::distributed::run::Resumed { rows, output },
                t,
                k,
            )))
        }
    }
}
