//! A study across machines. `--shard I/N` runs every N-th case (those with index ≡ I−1 mod N)
//! into its own folder, for a scheduler's job array; `--merge DIR...` joins the shards' case
//! folders into one and writes the report. With the `mpi` feature, the same command under
//! `mpirun` divides the cases among the ranks the same way, each rank sends its finished cases
//! to rank 0, and rank 0 writes the report. Cases run alone in every arrangement, so the table
//! is the same as on one machine (apart from wall times).

use super::expand::Study;
use super::{absolute, Origin};
use std::path::{Path, PathBuf};

/// The cases of shard `i` of `n` (1-based `i`).
pub fn shard(cases: usize, i: usize, n: usize) -> Vec<usize> {
    (0..cases)
        .filter(|k| k % n.max(1) == (i.max(1) - 1) % n.max(1))
        .collect()
}

/// Parses `I/N` (1 ≤ I ≤ N).
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {s}: expected I/N with 1 ≤ I ≤ N, e.g. 2/8");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The files of a case folder that a merge or a gather carries.
pub const CASE_FILES: [&str; 3] = ["case.ron", "result.ron", "probes.csv"];

/// Copies the finished cases of `dirs` (shard folders) into `out`; returns the study file
/// they were run from. A case found in several folders is taken from the first that has a
/// current result.
pub fn merge(
    study_file: Option<&Path>,
    dirs: &[PathBuf],
    out: &Path,
    registry: &crate::registry::Registry,
) -> Result<(PathBuf, usize), String> {
    let mut origin: Option<PathBuf> = study_file.map(absolute);
    for d in dirs {
        let o = Origin::read(d)
            .ok_or_else(|| format!("{} holds no study output (no origin.ron)", d.display()))?;
        match &origin {
            Some(p) if *p != o.study => {
                return Err(format!(
                    "{} holds cases of {}, not of {}",
                    d.display(),
                    o.study.display(),
                    p.display()
                ))
            }
            _ => origin = Some(o.study),
        }
    }
    let study_path = origin.ok_or("--merge needs at least one folder")?;
    let study = super::load_study_with(&study_path, registry).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out.join("cases")).map_err(|e| e.to_string())?;
    let mut copied = 0;
    for c in &study.cases {
        let target = super::exec::case_dir(out, c);
        if super::exec::is_current(out, c, false) {
            continue;
        }
        let Some(src) = dirs
            .iter()
            .find(|d| super::exec::is_current(d, c, false))
            .map(|d| super::exec::case_dir(d, c))
        else {
            continue;
        };
        std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
        for f in CASE_FILES {
            if src.join(f).exists() {
                std::fs::copy(src.join(f), target.join(f))
                    .map_err(|e| format!("cannot copy {}: {e}", src.join(f).display()))?;
            }
        }
        copied += 1;
    }
    Origin {
        study: absolute(&study_path),
        shard: None,
    }
    .write(out)
    .map_err(|e| e.to_string())?;
    Ok((study_path, copied))
}

/// The finished case folders of `which` in `out`, as (folder name, file name, text) triples.
pub fn pack(study: &Study, which: &[usize], out: &Path) -> Vec<(String, String, String)> {
    let mut v = Vec::new();
    for &i in which {
        let c = &study.cases[i];
        let dir = super::exec::case_dir(out, c);
        for f in CASE_FILES {
            if let Ok(t) = std::fs::read_to_string(dir.join(f)) {
                v.push((c.dir.clone(), f.to_string(), t));
            }
        }
    }
    v
}

/// Writes packed case files into `out` (files already there with the same text are left).
pub fn unpack(files: &[(String, String, String)], out: &Path) -> std::io::Result<()> {
    for (dir, f, text) in files {
        if dir.contains(['/', '\\']) || dir.starts_with('.') || !CASE_FILES.contains(&f.as_str()) {
            continue;
        }
        let d = out.join("cases").join(dir);
        std::fs::create_dir_all(&d)?;
        if std::fs::read_to_string(d.join(f)).ok().as_deref() != Some(text.as_str()) {
            super::result::write_atomic(&d.join(f), text)?;
        }
    }
    Ok(())
}

/// MPI: this process's rank and the number of ranks, and the exchange of finished cases.
#[cfg(feature = "mpi")]
pub mod ranks {
    use mpi::traits::*;

    /// The MPI environment of a study run (initialised once per process).
    pub struct Ranks {
        _universe: mpi::environment::Universe,
        world: mpi::topology::SimpleCommunicator,
    }

    impl Ranks {
        /// Initialises MPI (a single rank when not started by `mpirun`).
        pub fn init() -> Option<Ranks> {
            let universe = mpi::initialize()?;
            let world = universe.world();
            Some(Ranks {
                _universe: universe,
                world,
            })
        }
        /// This rank (0-based).
        pub fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        /// The number of ranks.
        pub fn size(&self) -> usize {
            self.world.size() as usize
        }
        /// Sends `bytes` to rank 0 (from another rank).
        pub fn send_to_root(&self, bytes: &[u8]) {
            self.world.process_at_rank(0).send(bytes);
        }
        /// Sends `bytes` from rank 0 to `rank`.
        pub fn send_to(&self, rank: usize, bytes: &[u8]) {
            self.world.process_at_rank(rank as i32).send(bytes);
        }
        /// Receives one message from rank 0.
        pub fn receive_from_root(&self) -> Vec<u8> {
            self.world.process_at_rank(0).receive_vec::<u8>().0
        }
        /// Rank 0: receives one message from each other rank, in rank order.
        pub fn gather_at_root(&self) -> Vec<Vec<u8>> {
            (1..self.world.size())
                .map(|r| self.world.process_at_rank(r).receive_vec::<u8>().0)
                .collect()
        }
        /// Waits for every rank.
        pub fn barrier(&self) {
            self.world.barrier();
        }
    }
}
