//! `vcsim study` and `vcsim check` of a study file.

use super::{fail, report_model_error as located};
use crate::registry::Registry;
use crate::study::{self, cluster, exec::ExecOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The arguments of `study`.
#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// The study file (RON). With --merge it may be left out (the shard folders name it).
    #[arg(required_unless_present = "merge")]
    pub study: Option<PathBuf>,
    /// Output folder. Default: runs/STUDY (STUDY: file name without extension). A folder
    /// holding this study's earlier output is resumed: finished cases whose model is unchanged
    /// are not rerun.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Cases run at once on this machine. Default: as many as there are cores (each case then
    /// gets cores / jobs threads); under mpirun, one per rank (on the node's cores divided
    /// among its ranks).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Threads per case. Default: the cores divided among the jobs.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run only shard I of N (every N-th case, starting with case I): for a scheduler's job
    /// array. Join the shards' folders with --merge.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Join the case folders of these shard outputs into --out and write the report.
    #[arg(long, num_args = 1.., value_name = "DIR")]
    pub merge: Vec<PathBuf>,
    /// Rerun cases that failed before (by default a failed case with an unchanged model is
    /// reported again, not rerun).
    #[arg(long)]
    pub rerun_failed: bool,
}

fn say(m: impl std::fmt::Display) {
    let _ = writeln!(std::io::stdout(), "{m}");
}

fn command_line() -> String {
    std::env::args().collect::<Vec<_>>().join(" ")
}

/// `vcsim check STUDY.ron`: the study reads, every level applies, every case is a valid model.
pub fn check(path: &Path, registry: &Registry) -> ExitCode {
    let s = match study::load_study_with(path, registry) {
        Ok(s) => s,
        Err(e) => return located(*e),
    };
    if let Err(e) = study::check_names(&s) {
        return located(*e);
    }
    let bad: Vec<&String> = s.cases.iter().filter_map(|c| c.error.as_ref()).collect();
    for e in &bad {
        let _ = writeln!(std::io::stderr(), "error: {}: {e}", path.display());
    }
    let axes: Vec<String> = s
        .axes
        .iter()
        .map(|a| format!("{} ×{}", a.name, a.levels.len()))
        .collect();
    if !bad.is_empty() {
        return fail(
            2,
            format!("{} of {} cases are invalid", bad.len(), s.cases.len()),
        );
    }
    say(format!("{}: ok (a study)", path.display()));
    if !s.def.description.is_empty() {
        say(format!(
            "  {}",
            s.def.description.lines().next().unwrap_or("")
        ));
    }
    say(format!("  base model  {}", s.model_path.display()));
    say(format!(
        "  axes        {} ({:?})",
        axes.join(", "),
        s.def.combine
    ));
    say(format!(
        "  cases       {}: {}",
        s.cases.len(),
        s.cases
            .iter()
            .map(|c| c.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    say(format!(
        "  metrics     {}",
        study::report::metric_defs(&s)
            .iter()
            .map(study::metrics::name)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    say(format!("  figures     {}", s.def.plots.len()));
    ExitCode::SUCCESS
}

/// `vcsim study`.
/// How the cases are shared out, in words (empty when this process runs them all).
fn share_words(shard: Option<(usize, usize)>, under_mpi: bool, here: usize) -> String {
    match shard {
        Some((_, n)) if under_mpi => format!(" across {n} MPI ranks ({here} on rank 0)"),
        Some((i, n)) => format!(" ({here} in shard {i}/{n})"),
        None => String::new(),
    }
}

/// Says how many cases ran, were skipped and failed, and why each failed one did.
fn say_outcome(s: &study::Study, outcome: &study::exec::ExecOutcome, out: &Path, under_mpi: bool) {
    say(format!(
        "  {}ran {}, skipped {} (unchanged since their result), failed {}",
        if under_mpi { "rank 0 " } else { "" },
        outcome.ran.len(),
        outcome.skipped.len(),
        outcome.failed.len()
    ));
    for &i in &outcome.failed {
        if let Some(study::result::Status::Failed(why)) =
            study::result::CaseResult::read(&study::exec::case_dir(out, &s.cases[i]))
                .map(|r| r.status)
        {
            say(format!("  failed: {}: {why}", s.cases[i].label));
        }
    }
}

pub fn run(a: StudyArgs, registry: &Registry) -> ExitCode {
    if !a.merge.is_empty() {
        return merge(&a, registry);
    }
    let Some(path) = a.study.as_deref() else {
        return fail(2, "a study file is needed");
    };
    let s = match study::load_study_with(path, registry) {
        Ok(s) => s,
        Err(e) => return located(*e),
    };
    let refs = match study::check_names(&s) {
        Ok(r) => r,
        Err(e) => return located(*e),
    };
    let mut shard = match a.shard.as_deref().map(cluster::parse_shard).transpose() {
        Ok(x) => x,
        Err(e) => return fail(2, e),
    };
    let ranks = mpi_ranks();
    if let Some((rank, size)) = ranks.as_ref().map(|r| (r.0, r.1)).filter(|r| r.1 > 1) {
        if shard.is_some() {
            return fail(
                2,
                "--shard and mpirun divide the cases each; use one of them",
            );
        }
        shard = Some((rank + 1, size));
    }
    let root = ranks.as_ref().is_none_or(|r| r.0 == 0);
    let under_mpi = ranks.as_ref().is_some_and(|r| r.1 > 1);
    let which: Vec<usize> = match shard {
        Some((i, n)) => cluster::shard(s.cases.len(), i, n),
        None => (0..s.cases.len()).collect(),
    };
    let origin = study::Origin {
        study: study::absolute(path),
        shard: if ranks.is_some() { None } else { shard },
    };
    // The output folder is chosen and claimed by rank 0 alone, then shared: ranks that each
    // looked at the folder raced (one saw the other's half-written files as foreign and left
    // without sending its cases, and the rest waited for it forever).
    let chosen = root.then(|| {
        let out = study::choose_out(&s, a.out.clone()).map_err(|e| (2, e))?;
        origin
            .write(&out)
            .map_err(|e| (1, format!("cannot write into {}: {e}", out.display())))?;
        Ok(out)
    });
    let out = match share_out(&ranks, chosen) {
        Ok(o) => o,
        Err((code, e)) => return fail(code, e),
    };
    let stop = super::catch_signals();
    let opts = exec_options(&a, out.clone(), under_mpi, root, stop.clone());
    if root {
        say(format!(
            "study {}: {} cases{} into {}",
            path.display(),
            s.cases.len(),
            share_words(shard, under_mpi, which.len()),
            out.display()
        ));
    }
    let outcome = match study::exec::run_cases(&s, &which, &opts) {
        Ok(o) => o,
        Err(e) => {
            let _ = gather(&ranks, &s, &[], &out);
            return fail(
                1,
                format!("cannot write the cases into {}: {e}", out.display()),
            );
        }
    };
    if let Err(e) = gather(&ranks, &s, &which, &out) {
        return fail(1, e);
    }
    if !root {
        return ExitCode::SUCCESS;
    }
    say_outcome(&s, &outcome, &out, under_mpi);
    report(&s, &refs, &out, outcome.interrupted)
}

/// How this process runs its cases: the arguments, or the defaults (one case per core; under
/// MPI one case per rank on the node's cores divided among its ranks, as the launcher reports
/// them).
fn exec_options(
    a: &StudyArgs,
    out: PathBuf,
    under_mpi: bool,
    root: bool,
    stop: Arc<AtomicBool>,
) -> ExecOptions {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Under MPI the ranks of one node share its cores: one case at a time per rank, on the
    // node's cores divided among its ranks (as the launcher reports them).
    let (jobs, threads) = if under_mpi {
        let local = [
            "OMPI_COMM_WORLD_LOCAL_SIZE",
            "MPI_LOCALNRANKS",
            "SLURM_NTASKS_PER_NODE",
        ]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
        (1, (cores / local).max(1))
    } else {
        (cores, 0)
    };
    ExecOptions {
        out,
        jobs: a.jobs.unwrap_or(jobs).max(1),
        threads: a.threads.unwrap_or(threads),
        progress: root,
        rerun_failed: a.rerun_failed,
        stop,
    }
}

fn report(
    s: &study::Study,
    refs: &[study::metrics::Reference],
    out: &Path,
    interrupted: bool,
) -> ExitCode {
    match study::write_report(s, refs, out, &command_line()) {
        Ok(w) => {
            say(format!(
                "  {} done, {} failed, {} not run",
                w.counts.0, w.counts.1, w.counts.2
            ));
            say(format!("  table  {}", w.table.display()));
            say(format!("  report {}", w.report.display()));
            for f in &w.figures {
                say(format!("  figure {}.png (and .svg)", f.display()));
            }
            if interrupted {
                say("  interrupted: the finished cases are kept; run the same command again to go on");
                return ExitCode::from(130);
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(
            1,
            format!("cannot write the report into {}: {e}", out.display()),
        ),
    }
}

fn merge(a: &StudyArgs, registry: &Registry) -> ExitCode {
    let Some(out) = a.out.clone() else {
        return fail(
            2,
            "--merge needs --out, the folder the merged study goes into",
        );
    };
    let (path, copied) = match cluster::merge(a.study.as_deref(), &a.merge, &out, registry) {
        Ok(x) => x,
        Err(e) => return fail(2, e),
    };
    let s = match study::load_study_with(&path, registry) {
        Ok(s) => s,
        Err(e) => return located(*e),
    };
    let refs = match study::check_names(&s) {
        Ok(r) => r,
        Err(e) => return located(*e),
    };
    say(format!(
        "merged {copied} case folders from {} shard folders into {}",
        a.merge.len(),
        out.display()
    ));
    report(&s, &refs, &out, false)
}

/// (rank, size) under MPI with the `mpi` feature; `None` without it.
#[cfg(feature = "mpi")]
type Ranks = Option<(usize, usize, cluster::ranks::Ranks)>;
#[cfg(not(feature = "mpi"))]
type Ranks = Option<(usize, usize)>;

/// The output folder: rank 0's choice (`chosen`, `None` on the other ranks), sent to every
/// rank under MPI; an error on rank 0 ends every rank.
#[cfg(feature = "mpi")]
fn share_out(
    ranks: &Ranks,
    chosen: Option<Result<PathBuf, (u8, String)>>,
) -> Result<PathBuf, (u8, String)> {
    let Some((_, size, r)) = ranks.as_ref().filter(|r| r.1 > 1) else {
        return chosen.unwrap_or_else(|| Err((1, "no output folder was chosen".into())));
    };
    match chosen {
        Some(c) => {
            let text = c.as_ref().map(|o| o.to_string_lossy().into_owned());
            let bytes = text.as_deref().unwrap_or("").as_bytes();
            for rank in 1..*size {
                r.send_to(rank, bytes);
            }
            c
        }
        None => {
            let bytes = r.receive_from_root();
            if bytes.is_empty() {
                Err((2, "rank 0 could not set up the output folder".into()))
            } else {
                Ok(PathBuf::from(String::from_utf8_lossy(&bytes).into_owned()))
            }
        }
    }
}
#[cfg(not(feature = "mpi"))]
fn share_out(
    _: &Ranks,
    chosen: Option<Result<PathBuf, (u8, String)>>,
) -> Result<PathBuf, (u8, String)> {
    chosen.unwrap_or_else(|| Err((1, "no output folder was chosen".into())))
}

#[cfg(feature = "mpi")]
fn mpi_ranks() -> Ranks {
    let r = cluster::ranks::Ranks::init()?;
    Some((r.rank(), r.size(), r))
}
#[cfg(not(feature = "mpi"))]
fn mpi_ranks() -> Ranks {
    None
}

/// Under MPI: every rank sends its finished cases to rank 0, which writes them into its output
/// folder (a no-op on a shared file system).
#[cfg(feature = "mpi")]
fn gather(ranks: &Ranks, s: &study::Study, which: &[usize], out: &Path) -> Result<(), String> {
    let Some((rank, size, r)) = ranks else {
        return Ok(());
    };
    if *size < 2 {
        return Ok(());
    }
    if *rank == 0 {
        for bytes in r.gather_at_root() {
            let files: Vec<(String, String, String)> =
                ron::from_str(&String::from_utf8_lossy(&bytes))
                    .map_err(|e| format!("a rank sent unreadable results: {e}"))?;
            cluster::unpack(&files, out).map_err(|e| e.to_string())?;
        }
    } else {
        let text = ron::to_string(&cluster::pack(s, which, out)).map_err(|e| e.to_string())?;
        r.send_to_root(text.as_bytes());
    }
    r.barrier();
    Ok(())
}
#[cfg(not(feature = "mpi"))]
fn gather(_: &Ranks, _: &study::Study, _: &[usize], _: &Path) -> Result<(), String> {
    Ok(())
}
