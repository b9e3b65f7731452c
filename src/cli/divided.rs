//! `mpirun -n N vcsim run MODEL` (feature `mpi`, N > 1): the model's fluid divided among the
//! ranks ([`crate::distributed`]); rank 0 writes `probes.csv` and the summary. Without the
//! feature, or on one rank, `vcsim run` runs as always.

use super::RunArgs;
use crate::pipeline::World;
use crate::probe::Probe;
use std::path::Path;
use std::process::ExitCode;

/// Runs the model divided among the ranks of the MPI job if there are several (`None`: one
/// rank, or built without `mpi`; the caller runs it as always).
#[cfg(feature = "mpi")]
pub(super) fn run_divided(
    a: &RunArgs,
    (path, source, model): (&Path, &str, &crate::model::Model),
    world: &mut World,
    probes: &[Probe],
    out: &Path,
    end: f64,
) -> Option<ExitCode> {
    use crate::distributed::Comm as _;
    use std::io::Write as _;
    let comm = crate::distributed::mpi_comm::MpiComm::init()?;
    if comm.size() < 2 {
        return None;
    }
    let (rank, size) = (comm.rank(), comm.size());
    let say = |text: String| {
        if rank == 0 {
            let _ = writeln!(std::io::stderr(), "{text}");
        }
    };
    // The model's warnings, printed by rank 0; with --deny-warnings every rank stops.
    let mut deny = [0.0];
    if rank == 0 && super::print_warnings(path, source, model, world, a.deny_warnings) {
        deny[0] = 1.0;
    }
    comm.max(&mut deny);
    if deny[0] > 0.0 {
        return Some(ExitCode::from(2));
    }
    if a.resume.is_some() || a.checkpoint_every.is_some() {
        say(
            "error: a run divided among MPI ranks does not write or resume checkpoints yet \
             (leave out --checkpoint-every and --resume, or run on one rank)"
                .into(),
        );
        return Some(ExitCode::from(2));
    }
    if let Err(e) = crate::distributed::run::prepare(world, probes, Box::new(comm)) {
        say(format!("error: {e}"));
        return Some(ExitCode::from(2));
    }
    say(format!(
        "running {} divided among {size} MPI ranks to t = {end} s, output in {}",
        path.display(),
        out.display()
    ));
    let _ = super::catch_signals();
    let opts = crate::distributed::run::DividedOptions {
        out: out.to_path_buf(),
        end,
        every: model.output.every.0,
        vtk: model.output.vtk,
    };
    let report = match crate::distributed::run::run(world, probes, &opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: rank {rank}: {e}");
            return Some(ExitCode::from(1));
        }
    };
    say(report.text());
    Some(if report.stopped {
        say(format!(
            "stopped at t = {:.6} s; probes.csv holds every output up to it",
            report.time
        ));
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// See the other `run_divided`: without the `mpi` feature a run is never divided.
#[cfg(not(feature = "mpi"))]
pub(super) fn run_divided(
    _: &RunArgs,
    _: (&Path, &str, &crate::model::Model),
    _: &mut World,
    _: &[Probe],
    _: &Path,
    _: f64,
) -> Option<ExitCode> {
    None
}
