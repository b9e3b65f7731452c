//! Command-line interface (clap): `run`, `check`. Thin: parses, calls the library, owns the exit
//! codes — 0 success, 1 run failure (I/O, divergence), 2 bad input (usage or model file).

pub mod study;

use crate::io::{run, RunOptions};
use std::io::Write as _;

/// `println!` that ignores a closed pipe (`vcsim check m.ron | head -1` must not panic).
macro_rules! outln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// `eprintln!` that ignores a closed pipe.
macro_rules! errln {
    ($($t:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}
mod divided;
mod resume;
use crate::model::{build_world_with, load_file_with};
use crate::registry::Registry;
use clap::{Parser, Subcommand};
use resume::{resume_into, run_model, run_times};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Constraint-based multibody (and particle-fluid) simulation: every contact, friction and
/// joint is a velocity-level constraint row, solved together by PGS or APGD.
#[derive(Debug, Parser)]
#[command(
    name = "vcsim",
    version,
    about,
    long_about = None,
    after_help = "Exit codes: 0 ok; 1 run or I/O failure (a non-finite state, contacts that cannot be computed, a file that cannot be written); 2 invalid input (a model file that is missing, unreadable or invalid; bad arguments); 3 the run left its bounds (the model's `guard`: a blow-up) or a loop inside a step reached its cap; 130 interrupted (SIGINT or SIGTERM: the step finishes and everything up to it is written; a step still running 0.5 s later is left unfinished; a second signal exits at once)."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a model and write CSV series, VTK frames, a plot and a summary into a run folder.
    Run(RunArgs),
    /// Validate a model and summarise it (bodies, degrees of freedom, constraint rows); or
    /// check a study file (every case a valid model).
    Check {
        /// The model file (RON).
        model: PathBuf,
        /// Treat the model's warnings (overlapping bodies, fluid outside any container) as
        /// errors: exit 2.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Run a comparative study: a base model, axes that change its fields, metrics and
    /// figures (a study file in RON); writes table.csv, table.md, report.md and the figures.
    /// Resumable; runs its cases in parallel, as shards (--shard, --merge) or under mpirun
    /// (feature `mpi`).
    Study(study::StudyArgs),
    /// Draw PNG frames (and optionally a GIF) of a finished run: particles coloured by a field
    /// with a colour bar and the time, bodies in their pose, walls grey.
    Render {
        /// The run folder (holding fluid.pvd / bodies.pvd and frames/).
        run_dir: PathBuf,
        /// What to draw and where.
        #[command(flatten)]
        opts: crate::io::render::RenderOptions,
    },
}

/// Picks the run folder: the given one if empty or new, else an error; by default
/// `runs/<stem>`, then `runs/<stem>-2`, `-3`, ...
pub fn choose_out_dir(model: &Path, out: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(o) = out {
        if o.exists() && !o.is_dir() {
            return Err(format!(
                "--out {} is a file, not a folder; choose another --out (nothing is overwritten)",
                o.display()
            ));
        }
        if crate::io::holds_files(&o) {
            return Err(format!(
                "the output folder {} already holds files; choose another --out (nothing is overwritten)",
                o.display()
            ));
        }
        return Ok(o);
    }
    let stem = model.file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    let base = PathBuf::from("runs").join(stem);
    if !crate::io::holds_files(&base) {
        return Ok(base);
    }
    (2..10_000)
        .map(|n| PathBuf::from("runs").join(format!("{stem}-{n}")))
        .find(|p| !crate::io::holds_files(p))
        .ok_or_else(|| "too many earlier runs in runs/; pass --out".to_string())
}

/// Runs the CLI on the process's arguments, with the built-in methods, and returns the exit
/// code.
pub fn main() -> ExitCode {
    run_with(std::env::args_os(), &Registry::new())
}

/// Makes the allocator give every freed block over 128 KiB back to the system (glibc's
/// `M_MMAP_THRESHOLD`; elsewhere nothing). By default glibc raises that threshold to the
/// largest block freed so far, up to 32 MiB, and then serves large blocks from its heap, where
/// freed pages stay resident: a per-step array that outgrows its buffer is copied into a new
/// block while the old one stays in memory. Measured on the 3D dam break
/// (`dam_break_3d_pgs.ron`, 20 steps, `/usr/bin/time -f %M`): 238 272 KB peak resident without,
/// 218 932 KB with; under MPI, where every rank builds the whole model and keeps its part, 30–60
/// MB of a rank's 390–450 MB (the million-particle tank of the book's "Large runs"). Steps run
/// as fast (the 2D flume and dam break within 1.5 %: they allocate nothing large per step). The
/// `vcsim` command calls it first ([`run_with`]); it sets a parameter of the whole process, so a
/// program of its own that embeds the library calls it if it wants the same.
pub fn return_freed_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a parameter of the allocator, with a value glibc documents
    // (M_MMAP_THRESHOLD, at most 32 MiB); blocks already allocated keep working as before.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

/// Runs the CLI on `args` (the program's name first) with the methods of `registry` besides
/// the built-in ones ([`crate::registry`]): a program of a user's own that registers its
/// methods and calls this is `vcsim` with those methods, for `run`, `check`, `study` and
/// `--resume` alike.
pub fn run_with<I, T>(args: I, registry: &Registry) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    return_freed_blocks();
    // Wide reports: the first line `file:line:column: field ...: message` stays whole, so editors
    // and scripts can parse it.
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(miette::MietteHandlerOpts::new().width(400).build())
    }));
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Command::Check {
            model,
            deny_warnings,
        } => check(&model, deny_warnings, registry),
        Command::Run(args) => run_cmd(args, registry),
        Command::Study(args) => study::run(args, registry),
        Command::Render { run_dir, opts } => {
            let start = std::time::Instant::now();
            match crate::io::render::render(&run_dir, &opts) {
                Ok(s) => {
                    let range = s
                        .range
                        .map(|(a, b)| format!(" (colour range {a:.4} to {b:.4})"))
                        .unwrap_or_default();
                    let n = s.pngs.len();
                    outln!(
                        "rendered {n} frame{} into {} in {:.2} s{range}",
                        if n == 1 { "" } else { "s" },
                        s.out.display(),
                        start.elapsed().as_secs_f64(),
                    );
                    if let Some(g) = s.gif {
                        outln!("animation: {}", g.display());
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    errln!("error: {e}");
                    match e {
                        crate::io::render::RenderError::Input(_) => ExitCode::from(2),
                        crate::io::render::RenderError::Output(_) => ExitCode::from(1),
                    }
                }
            }
        }
    }
}

/// Prints a located model (or study) error with its source line; exit code 2.
pub(crate) fn report_model_error(e: crate::model::ModelError) -> ExitCode {
    errln!("{:?}", miette::Report::new(e));
    let _ = std::io::stderr().flush();
    ExitCode::from(2)
}

/// Prints the located warnings of a freshly built model; returns `true` when they are to stop
/// the command (`--deny-warnings` and at least one warning).
fn print_warnings(
    path: &Path,
    source: &str,
    model: &crate::model::Model,
    world: &crate::pipeline::World,
    deny: bool,
) -> bool {
    let spans = crate::model::spans::Spans::of(source);
    let warnings: Vec<crate::model::ModelError> =
        crate::model::warnings::warnings(model, Some(&spans), world)
            .iter()
            .map(|w| w.locate(path, source))
            .collect();
    let label = if deny { "error" } else { "warning" };
    for w in &warnings {
        errln!("{label}: {w}");
    }
    if deny && !warnings.is_empty() {
        errln!(
            "error: {} warning(s) and --deny-warnings: stopping",
            warnings.len()
        );
        return true;
    }
    false
}

fn check(path: &Path, deny_warnings: bool, registry: &Registry) -> ExitCode {
    if std::fs::read_to_string(path).is_ok_and(|t| crate::study::is_study(&t)) {
        return study::check(path, registry);
    }
    let (model, source) = match load_file_with(path, registry) {
        Ok(m) => m,
        Err(e) => return report_model_error(*e),
    };
    let mut world = match build_world_with(&model, registry) {
        Ok(w) => w,
        Err(e) => return report_model_error(e.locate(path, &source)),
    };
    // The probes as `run` resolves them (a wave gauge with no water under it is refused here).
    if let Err(e) = crate::model::resolve_probes(&model, &world) {
        return report_model_error(e.locate(path, &source));
    }
    if print_warnings(path, &source, &model, &world, deny_warnings) {
        return ExitCode::from(2);
    }
    let (contacts, rows) = world.initial_rows();
    let count = |k: crate::body::Kind| world.bodies.iter().filter(|b| b.kind == k).count();
    outln!("{}: ok", path.display());
    if !model.description.is_empty() {
        outln!("  {}", model.description);
    }
    outln!("  dimension   {:?}", model.scene.dimension);
    outln!(
        "  bodies      {} ({} dynamic, {} kinematic, {} static)",
        world.bodies.len(),
        count(crate::body::Kind::Dynamic),
        count(crate::body::Kind::Kinematic),
        count(crate::body::Kind::Static)
    );
    outln!("  DOFs        {}", world.dof_count());
    outln!("  joints      {}", world.joints.len());
    if let Some(f) = world.fluid.as_ref() {
        outln!(
            "  fluid       {} particles, {} boundary particles, spacing {} m",
            f.len(),
            f.boundary.len(),
            f.params.spacing
        );
        if let Some(line) = smooth_walls_line(&world) {
            outln!("{line}");
        }
        outln!("  method      {}", world.fluid_method.describe());
        let gamma = f.params.velocity_filter;
        if world
            .fluid_method
            .unused_fields()
            .contains(&"velocity_filter")
        {
            outln!(
                "  stabilise   shifting {} ({} applies no velocity filter)",
                f.params.shifting,
                world.fluid_method.name()
            );
        } else {
            outln!(
                "  stabilise   velocity filter {} /s ({:.3} per step), shifting {}",
                gamma,
                -(-gamma * world.dt).exp_m1(),
                f.params.shifting
            );
        }
        outln!("{}", lattice_line(f));
    }
    outln!("  rows at t=0 {rows} ({contacts} contact points)");
    let default = if model.solver.is_none() {
        " (the default)"
    } else {
        ""
    };
    outln!("  solver      {}{default}", world.solver.describe());
    outln!("  contacts    {}", world.contact_resolver.name());
    let how = match (model.time.dt, &world.fluid) {
        (Some(_), _) => String::new(),
        (None, Some(f)) => {
            let (u, height) =
                crate::model::build::time_step::reachable_speed(f, &world.bodies, &world.gravity);
            format!(
                " (the default: {} spacing per step at {u:.3} m/s, the speed of a fall from \
                 {height:.3} m plus the fastest initial and prescribed motions)",
                crate::model::build::time_step::SPACINGS_PER_STEP
            )
        }
        (None, None) => String::new(),
    };
    let dt = model
        .time
        .dt
        .map_or(format!("{:.4e}", world.dt), |d| d.0.to_string());
    outln!(
        "  time        dt = {dt} s{how}, end = {} s ({} steps)",
        model.time.end.0,
        (model.time.end.0 / world.dt).round()
    );
    ExitCode::SUCCESS
}

/// The arguments of `run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The model file (RON). With --resume it may be left out (the checkpoint holds the
    /// model the run started with), or given to go on with an edited model (e.g. a
    /// smaller dt) that has the same bodies, joints, particles and probes.
    #[arg(required_unless_present = "resume")]
    pub model: Option<PathBuf>,
    /// Run folder. Default: runs/MODEL, or runs/MODEL-N if that one is taken (MODEL: file name
    /// without extension).
    /// An existing non-empty folder is never overwritten.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// End time in seconds, overriding the model's `time.end` (with --resume: the end of
    /// the run being resumed).
    #[arg(long)]
    pub end: Option<f64>,
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Do not show the progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Save the state in the run folder (checkpoint.bin; under mpirun, each rank's part in
    /// checkpoints/) at the first output time at least T seconds after the last checkpoint,
    /// when interrupted, and at the end; --resume goes on from it (on as many ranks).
    #[arg(long, value_name = "T")]
    pub checkpoint_every: Option<f64>,
    /// Go on with the run in folder DIR from its checkpoint, in the same folder: outputs
    /// after the checkpoint are replaced, and the files come out byte for byte as an
    /// uninterrupted run writes them (with the same model).
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub resume: Option<PathBuf>,
    /// Treat the model's warnings (overlapping bodies, fluid outside any container) as
    /// errors: exit 2 before anything is written.
    #[arg(long)]
    pub deny_warnings: bool,
}

/// `error: MESSAGE` on stderr and exit code `code` (2: bad input, 1: a failure).
/// Prints `error: message` to stderr and returns `code`.
pub(crate) fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    errln!("error: {message}");
    ExitCode::from(code)
}

fn run_cmd(a: RunArgs, registry: &Registry) -> ExitCode {
    match run_checked(a, registry) {
        Ok(code) | Err(code) => code,
    }
}

/// `run`: every check before the run returns its exit code as the error.
fn run_checked(a: RunArgs, registry: &Registry) -> Result<ExitCode, ExitCode> {
    // Under mpirun with several ranks, the fluid is divided among them (feature `mpi`).
    let comm = divided::ranks();
    let (checkpoint, part) =
        divided::read_checkpoint(a.resume.as_deref(), comm.as_deref()).map_err(|e| fail(2, e))?;
    let (path, model, source) = run_model(&a, checkpoint.as_ref(), registry)?;
    let path = path.as_path();
    if let Some(n) = a.threads {
        if n == 0 {
            return Err(fail(2, "--threads must be at least 1"));
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            return Err(fail(1, format!("cannot set up {n} threads: {e}")));
        }
    }
    let out = match &a.resume {
        Some(dir) => dir.clone(),
        None => choose_out_dir(path, a.out.clone()).map_err(|e| fail(2, e))?,
    };
    let mut world = build_world_with(&model, registry)
        .map_err(|e| report_model_error(e.locate(path, &source)))?;
    let (end, every) = run_times(&a, &model, world.dt, checkpoint.as_ref())?;
    // The run owns its cores: the other workers poll for work during a step (same results).
    world.active_wait = crate::pipeline::active_wait_wanted();
    let probes = crate::model::resolve_probes(&model, &world)
        .map_err(|e| report_model_error(e.locate(path, &source)))?;
    let m = (path, source.as_str(), &model);
    if let Some(comm) = comm {
        let (o, resume) = ((out.as_path(), end, every), checkpoint.zip(part));
        return Ok(divided::run_divided(
            &a, m, &mut world, &probes, o, comm, resume,
        ));
    }
    let resume = match checkpoint {
        None => {
            if print_warnings(path, &source, &model, &world, a.deny_warnings) {
                return Err(ExitCode::from(2));
            }
            errln!(
                "running {} to t = {end} s, output in {}",
                path.display(),
                out.display()
            );
            None
        }
        Some(c) => Some(resume_into(c, (path, &out, end), &probes, &mut world)?),
    };
    // SIGINT / SIGTERM: finish the current step (or leave it unfinished if it runs on for
    // half a second more), write everything, exit 130; a second signal exits at once.
    let stop = catch_signals();
    let opts = RunOptions {
        progress: !a.quiet,
        stop: Some(stop),
        checkpoint: every.map(|every| crate::io::run::CheckpointOptions {
            every,
            model_path: path.display().to_string(),
            model_text: source.clone(),
        }),
        resume,
        ..RunOptions::for_model(&model, out.clone(), end)
    };
    Ok(match run(&mut world, &probes, &opts) {
        Ok(s) => {
            for w in &s.warnings {
                errln!("warning: {w}");
            }
            outln!("{}", s.text.trim_end());
            outln!("  output           {}", out.display());
            if model.output.animation {
                animate(&out, world.fluid.is_some());
            }
            ExitCode::SUCCESS
        }
        Err(e @ crate::io::run::RunError::OutOfBounds { .. }) => fail(3, e),
        Err(e @ crate::io::run::RunError::Interrupted { .. }) => {
            errln!("{e}");
            ExitCode::from(130)
        }
        Err(e) => fail(1, e),
    })
}

/// `output.animation`: the run's frames as PNGs and a GIF in `out/render` (particles coloured
/// by speed when there is a fluid). A failure to draw is a warning: the run's output stands.
fn animate(out: &Path, fluid: bool) {
    let opts = crate::io::render::RenderOptions {
        field: if fluid {
            crate::io::render::Field::Velocity
        } else {
            crate::io::render::Field::Pressure
        },
        gif: true,
        ..Default::default()
    };
    match crate::io::render::render(out, &opts) {
        Ok(s) => {
            let gif = s.gif.map(|g| g.display().to_string()).unwrap_or_default();
            outln!("  animation        {gif} ({} frames)", s.pngs.len());
        }
        Err(e) => errln!("warning: the animation was not drawn: {e}"),
    }
}

/// Registers SIGINT and SIGTERM on the process's interruption flag ([`crate::interrupt`]): the
/// first sets it, a second one (the flag already set) exits at once with code 130.
pub(crate) fn catch_signals() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let stop = crate::interrupt::flag();
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let caught = signal_hook::flag::register_conditional_shutdown(sig, 130, stop.clone())
            .and_then(|_| signal_hook::flag::register(sig, stop.clone()));
        if let Err(e) = caught {
            errln!("warning: cannot catch signal {sig}: {e}");
        }
    }
    stop
}

/// `check`'s line on the fluid's initial lattice under load: the least geometric stiffness of
/// its density sums for the model's kernel and smoothing ([`crate::fluid::lattice_stability`]);
/// negative, water at rest on it starts to move (the book's fluid chapter). Positive covers the
/// bulk only: a free surface under unilateral rows slid on the hexagonal lattice at h = 1.3 l,
/// where the bulk is stable (`models/studies/rest_surface.ron`), so the line says so.
fn lattice_line(f: &crate::fluid::Fluid) -> String {
    use crate::fluid::sampling::LatticeKind;
    let p = &f.params;
    let planar = p.kernel.dim == 2;
    let (name, n) = match (p.lattice, planar) {
        (LatticeKind::Square, true) => ("square", 41),
        (LatticeKind::Hexagonal, true) => ("hexagonal", 41),
        (LatticeKind::Square, false) => ("cubic", 13),
        (LatticeKind::Hexagonal, false) => ("face-centred cubic", 13),
    };
    let s = crate::fluid::lattice_stability::least_stiffness(&p.kernel, p.spacing, p.lattice, n);
    let verdict = if s.least >= 0.0 {
        "stable under load in the bulk (a free surface and walls may still move: the book's fluid chapter)"
    } else {
        "unstable under load: water at rest on it starts to move (the book's fluid chapter)"
    };
    format!(
        "  lattice     {name}, h = {:.2} l, {:?}: least stiffness {:+.1e}, {verdict}",
        p.kernel.h / p.spacing,
        p.kernel.kind,
        s.least
    )
}

/// `check`'s line naming the bodies that are smooth walls, if any.
fn smooth_walls_line(world: &crate::World) -> Option<String> {
    let f = world.fluid.as_ref()?;
    if f.smooth.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = (f.smooth.boxes().iter())
        .map(|b| world.bodies[b.body as usize].name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    Some(format!(
        "  walls       smooth: {} (no boundary particles; free-slip)",
        names.join(", ")
    ))
}
