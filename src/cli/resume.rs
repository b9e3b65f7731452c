//! `vcsim run`'s model, end time and checkpoint interval, and the checkpoint it resumes.

use super::{fail, report_model_error, RunArgs};
use crate::model::load_file_with;
use crate::registry::Registry;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The model of a run: the file given, or the one saved in the checkpoint; (path, model, text).
pub(super) fn run_model(
    a: &RunArgs,
    checkpoint: Option<&crate::io::checkpoint::Checkpoint>,
    registry: &Registry,
) -> Result<(PathBuf, crate::model::Model, String), ExitCode> {
    match (&a.model, checkpoint) {
        (Some(p), _) => match load_file_with(p, registry) {
            Ok((m, s)) => Ok((p.clone(), m, s)),
            Err(e) => Err(report_model_error(*e)),
        },
        (None, Some(c)) => {
            let p = PathBuf::from(&c.model_path);
            match crate::model::parse_str_with(&p, &c.model_text, registry) {
                Ok(m) => Ok((p, m, c.model_text.clone())),
                Err(e) => Err(report_model_error(*e)),
            }
        }
        (None, None) => Err(fail(2, "give a model file, or --resume DIR")),
    }
}

/// The run's end (s) and checkpoint interval (s), checked against the model, its time step
/// `dt` (s; the world's) and the checkpoint. A resumed run ends where the run it resumes was to
/// end, unless --end says otherwise.
pub(super) fn run_times(
    a: &RunArgs,
    model: &crate::model::Model,
    dt: f64,
    checkpoint: Option<&crate::io::checkpoint::Checkpoint>,
) -> Result<(f64, Option<f64>), ExitCode> {
    let end = a
        .end
        .or(checkpoint.map(|c| c.end))
        .unwrap_or(model.time.end.0);
    if !(end.is_finite() && end > 0.0) {
        return Err(fail(
            2,
            format!("--end must be a positive number of seconds, got {end}"),
        ));
    }
    if end < dt {
        return Err(fail(
            2,
            format!("--end {end} s is shorter than the model's time step dt = {dt} s"),
        ));
    }
    let max = crate::model::validate::MAX_STEPS;
    if end / dt > max {
        return Err(fail(
            2,
            format!("--end {end} s with dt = {dt} s is more than {max:e} steps"),
        ));
    }
    if let Some(c) = checkpoint {
        if end < c.state.time + dt {
            return Err(fail(
                2,
                format!(
                    "the checkpoint is at t = {} s; the run's end ({end} s) must be at least \
                     one step later (pass --end)",
                    c.state.time
                ),
            ));
        }
    }
    let every = a.checkpoint_every.or(checkpoint.map(|c| c.every));
    if let Some(t) = every {
        if !(t.is_finite() && t > 0.0) {
            return Err(fail(
                2,
                format!("--checkpoint-every must be a positive number of seconds, got {t}"),
            ));
        }
    }
    Ok((end, every))
}

/// Puts the checkpoint `c` of the run in `out` into `world` (built from the model at `path`,
/// whose probes must be the checkpoint's), to go on to `end` (s).
pub(super) fn resume_into(
    c: crate::io::checkpoint::Checkpoint,
    (path, out, end): (&Path, &Path, f64),
    probes: &[crate::probe::Probe],
    world: &mut crate::pipeline::World,
) -> Result<crate::io::run::Resume, ExitCode> {
    let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(world)).collect();
    if columns != c.columns {
        return Err(fail(
            2,
            format!(
                "{} has other probes than the checkpoint in {} (probes.csv columns [{}], the \
                 checkpoint's [{}])",
                path.display(),
                out.display(),
                columns.join(", "),
                c.columns.join(", ")
            ),
        ));
    }
    let (t, step) = (c.state.time, c.state.steps);
    if let Err(e) = world.restore(c.state) {
        return Err(fail(
            2,
            format!(
                "{} does not fit the checkpoint in {}: {e}",
                path.display(),
                out.display()
            ),
        ));
    }
    errln!(
        "resuming {} from its checkpoint at t = {t} s (step {step}) with {}, to t = {end} s",
        out.display(),
        path.display()
    );
    Ok(crate::io::run::Resume {
        totals: c.totals,
        output: c.output,
    })
}
