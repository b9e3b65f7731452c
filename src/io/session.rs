//! A run stepped by its caller, one step at a time: what the Python bindings (`python/`) and a
//! controller written against the library drive. The same checks as `vcsim run` after every
//! step (a finite state, the model's `guard`, contacts that could be computed), probes sampled
//! at the model's output times (`output.every`, the start included), and, given a folder, the
//! CLI's output files written as it goes (`probes.csv` and the other CSV series, VTK frames)
//! and its checkpoints: a folder a session wrote resumes with `vcsim run --resume DIR` and a
//! CLI run's checkpoint resumes as a session, to the same bytes.
//!
//! Unlike [`super::run::run`], a session never samples off the output grid (a run that stops
//! between output times has its last sample at the last output time; [`Session::sample`] reads
//! the probes at any step without recording them), and a session that left its bounds refuses
//! to step on (its state is the first one outside them; resume a checkpoint instead).

use super::checkpoint::{self, Checkpoint, OutputMark};
use super::csv_out::CsvSeries;
use super::vtk::VtkWriter;
use crate::model::Model;
use crate::pipeline::{Stage, World};
use crate::probe::Probe;
use crate::registry::Registry;
use crate::runner::{self, Bounds, RunError, Series, Totals};
use crate::Real;
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a session could not be made or could not step.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The model (or the model saved in a checkpoint) is invalid: file, line, column, field.
    #[error("{0}")]
    Model(Box<crate::model::ModelError>),
    /// An argument or a file that is not what it must be (a checkpoint, an output folder that
    /// holds files, an end time before now).
    #[error("{0}")]
    Input(String),
    /// Writing an output file failed.
    #[error("cannot write the run output in {dir}: {source}")]
    Io {
        /// The output folder.
        dir: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A step left the bounds, diverged, met a cap or contacts that cannot be computed.
    #[error("{0}")]
    Step(RunError<Infallible>),
}

/// Output files of a session: the CLI's CSV series and VTK frames in one folder.
struct Outputs {
    dir: PathBuf,
    csv: CsvSeries,
    vtk: Option<VtkWriter>,
    frame: usize,
}

impl Outputs {
    fn mark(&self) -> std::io::Result<OutputMark> {
        OutputMark::of(&self.csv, self.vtk.as_ref(), self.frame)
    }

    fn write(&mut self, world: &World, values: &[Real]) -> std::io::Result<()> {
        self.csv.write(world, values)?;
        self.csv.flush()?;
        if let Some(v) = self.vtk.as_mut() {
            v.write_frame(world, self.frame)?;
            v.write_collection()?;
        }
        self.frame += 1;
        Ok(())
    }
}

/// A world with its probes, stepped by the caller.
pub struct Session {
    /// The world (bodies, fluid); change forces and velocities between steps.
    pub world: World,
    /// The model's probes, in the order of their columns.
    pub probes: Vec<Probe>,
    /// The probes sampled at the output times so far (the start included).
    pub series: Series,
    bounds: Bounds,
    /// Steps between samples (`round(output.every / dt)`, at least 1).
    every: u64,
    totals: Totals,
    model_path: String,
    model_text: String,
    end: Real,
    files: Option<Outputs>,
    /// Why the session stopped stepping (the step that left the bounds), once it did.
    failed: Option<String>,
    row: Vec<Real>,
}

impl Session {
    /// Builds the world of `model` (read from `path`, whose text is `text`: for messages and
    /// checkpoints) with the methods of `registry`, and samples its probes at the start. With
    /// `out`, the CLI's output files are written there (the folder must be new or empty:
    /// nothing a user has is overwritten).
    pub fn new(
        model: &Model,
        (path, text): (&Path, &str),
        out: Option<&Path>,
        registry: &Registry,
    ) -> Result<Session, SessionError> {
        let locate =
            |e: Box<crate::model::FieldError>| SessionError::Model(Box::new(e.locate(path, text)));
        let mut world = crate::model::build_world_with(model, registry).map_err(locate)?;
        // As `vcsim run`: the pool's workers poll during a step (not between steps).
        world.active_wait = crate::pipeline::active_wait_wanted();
        let probes = crate::model::resolve_probes(model, &world).map_err(locate)?;
        let columns: Vec<String> = probes.iter().flat_map(|p| p.columns(&world)).collect();
        let files = match out {
            None => None,
            Some(dir) => {
                fresh_folder(dir)?;
                Some(open(dir, &world, &columns, model.output.vtk, None)?)
            }
        };
        let every = (model.output.every.0 / world.dt).round().max(1.0) as u64;
        let mut s = Session {
            series: Series {
                values: vec![Vec::new(); columns.len()],
                columns,
                time: Vec::new(),
            },
            world,
            probes,
            bounds: model.guard,
            every,
            totals: Totals::default(),
            model_path: path.display().to_string(),
            model_text: text.to_string(),
            end: model.time.end.0,
            files,
            failed: None,
            row: Vec::new(),
        };
        s.record()?;
        // The start is a sample, as the runner counts it (checkpoints carry the count).
        s.totals.samples = 1;
        Ok(s)
    }

    /// Goes on from the checkpoint in run folder `dir` (written by a session or by `vcsim run
    /// --checkpoint-every`): the model saved in it is built with the methods of `registry`, its
    /// state restored, and its output files (when it has some) cut back to the checkpoint and
    /// appended to; the probes sampled before it are read back from `probes.csv`.
    pub fn resume(dir: &Path, registry: &Registry) -> Result<Session, SessionError> {
        let c = checkpoint::read(dir).map_err(SessionError::Input)?;
        let path = PathBuf::from(&c.model_path);
        let model = crate::model::parse_str_with(&path, &c.model_text, registry)
            .map_err(SessionError::Model)?;
        let mut s = Session::new(&model, (&path, &c.model_text), None, registry)?;
        if s.series.columns != c.columns {
            return Err(SessionError::Input(format!(
                "{} has other probes than the checkpoint in {} ([{}] against [{}])",
                c.model_path,
                dir.display(),
                s.series.columns.join(", "),
                c.columns.join(", ")
            )));
        }
        s.world.restore(c.state).map_err(|e| {
            SessionError::Input(format!(
                "{} does not fit the checkpoint in {}: {e}",
                c.model_path,
                dir.display()
            ))
        })?;
        s.totals = c.totals;
        s.end = c.end;
        s.series.time.clear();
        s.series.values.iter_mut().for_each(Vec::clear);
        if !c.output.csv.is_empty() {
            let columns = s.series.columns.clone();
            let files = open(dir, &s.world, &columns, model.output.vtk, Some(&c.output))?;
            if let Some(read) = crate::study::result::read_series(&dir.join("probes.csv")) {
                s.series = Series { columns, ..read };
            }
            s.files = Some(files);
        }
        Ok(s)
    }

    /// Takes one step, checks it, and samples the probes (and writes the output files) when
    /// the step ends on an output time.
    pub fn step(&mut self) -> Result<(), SessionError> {
        if let Some(why) = &self.failed {
            return Err(SessionError::Input(format!(
                "the session stopped stepping: {why}; resume a checkpoint or build the model \
                 again"
            )));
        }
        let step = self.world.steps + 1;
        let info = self.world.step();
        if let Some(abort) = self.world.abort.take() {
            let e = RunError::of_abort(abort, self.world.time, step);
            return Err(self.fail(e));
        }
        self.totals.add_step(&self.world, &info);
        if let Err(e) = runner::check_step(&self.world, step, &self.bounds) {
            return Err(self.fail(e));
        }
        if (step - self.world.steps_origin).is_multiple_of(self.every) {
            let t0 = Instant::now();
            self.record()?;
            self.totals.samples += 1;
            self.world.timings.add(Stage::Output, t0);
        }
        Ok(())
    }

    fn fail(&mut self, e: RunError<Infallible>) -> SessionError {
        self.failed = Some(e.to_string());
        SessionError::Step(e)
    }

    /// Steps until the step that ends at `until` (s; counted as `round(until / dt)` steps from
    /// the time origin, as `vcsim run` counts them) or until `stop` returns `true` (asked after
    /// every step). Returns whether it stopped early.
    pub fn run_until(
        &mut self,
        until: Real,
        mut stop: impl FnMut() -> bool,
    ) -> Result<bool, SessionError> {
        let total = self.steps_to(until)?;
        while self.world.steps < total {
            self.step()?;
            if self.world.steps < total && stop() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The step number that ends at `until` (s), or why there is none.
    pub fn steps_to(&self, until: Real) -> Result<u64, SessionError> {
        let w = &self.world;
        let n = (until - w.time_origin) / w.dt;
        if !n.is_finite() || n > crate::model::validate::MAX_STEPS {
            return Err(SessionError::Input(format!(
                "until = {until} s is not a time this run can reach (dt = {} s)",
                w.dt
            )));
        }
        let total = w.steps_origin as Real + n.round();
        if total < w.steps as Real {
            return Err(SessionError::Input(format!(
                "until = {until} s is before the current time t = {} s",
                w.time
            )));
        }
        Ok(total as u64)
    }

    /// The probes' values now (one per column), without recording them.
    pub fn sample(&self) -> Vec<Real> {
        let mut row = Vec::with_capacity(self.series.columns.len());
        Probe::sample_all(&self.probes, &self.world, &mut row);
        row
    }

    /// Samples the probes into the series and the output files.
    fn record(&mut self) -> Result<(), SessionError> {
        self.row.clear();
        Probe::sample_all(&self.probes, &self.world, &mut self.row);
        self.series.push(self.world.time, &self.row);
        if let Some(f) = self.files.as_mut() {
            f.write(&self.world, &self.row)
                .map_err(|source| SessionError::Io {
                    dir: f.dir.display().to_string(),
                    source,
                })?;
        }
        Ok(())
    }

    /// The output folder, when the session writes one.
    pub fn out_dir(&self) -> Option<&Path> {
        self.files.as_ref().map(|f| f.dir.as_path())
    }

    /// The runner's totals so far (iterations, largest compression, samples).
    pub fn totals(&self) -> &Totals {
        &self.totals
    }

    /// The checkpoint of the state now, resumable by [`Session::resume`] and `vcsim run
    /// --resume` (to the run's end `end`, s, with checkpoints every `every` s there).
    pub fn checkpoint(&self, end: Real, every: Real) -> Result<Checkpoint, SessionError> {
        let output = match &self.files {
            Some(f) => f.mark().map_err(|source| SessionError::Io {
                dir: f.dir.display().to_string(),
                source,
            })?,
            None => OutputMark::default(),
        };
        Ok(Checkpoint {
            model_path: self.model_path.clone(),
            model_text: self.model_text.clone(),
            end: end.max(self.world.time + self.world.dt),
            every,
            columns: self.series.columns.clone(),
            state: self.world.state(),
            totals: self.totals,
            output,
        })
    }

    /// Writes the checkpoint of the state now as `checkpoint.bin` in `dir` (default: the output
    /// folder), for a run to `end` (default: the model's `time.end`, or the end of the run the
    /// session resumed); returns the file's path.
    pub fn write_checkpoint(
        &self,
        dir: Option<&Path>,
        end: Option<Real>,
    ) -> Result<PathBuf, SessionError> {
        if let Some(why) = &self.failed {
            return Err(SessionError::Input(format!(
                "the state is outside the run's bounds ({why}); a checkpoint of it would \
                 resume a blow-up"
            )));
        }
        let dir = match (dir, self.out_dir()) {
            (Some(d), _) => d.to_path_buf(),
            (None, Some(d)) => d.to_path_buf(),
            (None, None) => {
                return Err(SessionError::Input(
                    "this session writes no output folder: name the folder for the checkpoint"
                        .into(),
                ))
            }
        };
        if self.files.is_some() && self.out_dir() != Some(dir.as_path()) {
            return Err(SessionError::Input(format!(
                "a session with an output folder writes its checkpoint there ({}), where it \
                 resumes its files; {} is another folder",
                self.out_dir().unwrap_or(Path::new("")).display(),
                dir.display()
            )));
        }
        let end = end.unwrap_or(self.end);
        let c = self.checkpoint(end, end)?;
        let io = |source| SessionError::Io {
            dir: dir.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(io)?;
        checkpoint::write(&dir, &c).map_err(io)?;
        Ok(dir.join(checkpoint::FILE))
    }
}

/// The CLI's output files in `dir`: new, or (`resume`) cut back to a checkpoint's marks.
fn open(
    dir: &Path,
    world: &World,
    columns: &[String],
    vtk: bool,
    resume: Option<&OutputMark>,
) -> Result<Outputs, SessionError> {
    let opened = (|| -> std::io::Result<Outputs> {
        std::fs::create_dir_all(dir)?;
        let fluid = world.fluid.is_some();
        let (csv, vtk, frame) = match resume {
            None => (
                CsvSeries::create(dir, columns, fluid)?,
                vtk.then(|| VtkWriter::new(dir, world)).transpose()?,
                0,
            ),
            Some(o) => (
                CsvSeries::resume(dir, columns, fluid, &o.csv)?,
                vtk.then(|| {
                    VtkWriter::resume(dir, world, o.frames.clone(), o.fluid_frames.clone())
                })
                .transpose()?,
                o.frame,
            ),
        };
        Ok(Outputs {
            dir: dir.to_path_buf(),
            csv,
            vtk,
            frame,
        })
    })();
    opened.map_err(|source| SessionError::Io {
        dir: dir.display().to_string(),
        source,
    })
}

/// `dir` is new or an empty folder: a session never writes over a user's files.
fn fresh_folder(dir: &Path) -> Result<(), SessionError> {
    if dir.exists() && !dir.is_dir() {
        return Err(SessionError::Input(format!(
            "out = {} is a file, not a folder; choose another (nothing is overwritten)",
            dir.display()
        )));
    }
    if super::holds_files(dir) {
        return Err(SessionError::Input(format!(
            "the output folder {} already holds files; choose another (nothing is overwritten)",
            dir.display()
        )));
    }
    Ok(())
}
