//! Checkpoints of a run divided among ranks: each rank writes its own part of the state to
//! `checkpoints/STEP-RANK-of-N.bin` in the run folder (the format of
//! [`crate::io::checkpoint`]: its world state with its part of the fluid, ghosts included, the
//! mask of the particles it owns, and the outputs written so far), so that the same number of
//! ranks resumes to the same bytes an uninterrupted run writes.
//!
//! **Generations.** The files of one step are one generation. Each rank writes its file (a
//! temporary file renamed: each file is whole), then all ranks meet (a collective), then each
//! removes its files of older steps. Whatever moment a run is killed at, the newest generation
//! with a file from every rank is whole, and the one before it is still there until the newer
//! one is: a resumed run takes the newest whole generation ([`latest`]).

use crate::io::checkpoint::{self as ckp, Checkpoint};
use crate::math::Real;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The folder of the ranks' checkpoints in the run folder.
pub const DIR: &str = "checkpoints";

/// One rank's checkpoint.
#[derive(Clone, Serialize, Deserialize)]
pub struct RankCheckpoint {
    /// The ranks of the run.
    pub ranks: u32,
    /// This rank.
    pub rank: u32,
    /// The model, times, probe columns and this rank's world state; `output` is rank 0's
    /// (`csv[0]`: the bytes in `probes.csv`; the next frame; the fluid frames written).
    pub base: Checkpoint,
    /// How the fluid is divided: this rank's particles and walls, the slabs.
    pub layout: RankLayout,
    /// The probes' rows written so far (time first), for the run's totals.
    pub rows: Vec<Vec<Real>>,
}

/// How a divided fluid stands on one rank between steps ([`super::SlabHalo::layout`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RankLayout {
    /// Which of the rank's fluid particles it owns (the others are ghosts).
    pub owned: Vec<bool>,
    /// The slabs' cuts along the axis (m).
    pub cuts: Vec<Real>,
    /// The model's indices of the static wall particles the rank holds (ascending).
    pub walls: Vec<u32>,
    /// The ids of the particles the rank sends to each rank as ghosts, and of those it holds
    /// as ghosts from each, in the order of the last redistribution (a method that keeps its
    /// neighbour lists across model steps, the constraint method, goes on with them).
    #[serde(default)]
    pub sent: Vec<Vec<u32>>,
    /// See [`RankLayout::sent`].
    #[serde(default)]
    pub ghosts: Vec<Vec<u32>>,
    /// Which particles have no neighbour lists of their own (the outer ghosts).
    #[serde(default)]
    pub listless: Vec<bool>,
    /// Per rank, the box around its fluid whose nearby static walls it holds (m; six numbers
    /// per rank: the lower corner, then the upper).
    pub boxes: Vec<Real>,
}

fn name(step: u64, rank: usize, ranks: usize) -> String {
    format!("{step:012}-{rank}-of-{ranks}.bin")
}

/// `(step, rank, ranks)` of a checkpoint file's name.
fn parse(name: &str) -> Option<(u64, usize, usize)> {
    let stem = name.strip_suffix(".bin")?;
    let (step, rest) = stem.split_once('-')?;
    let (rank, ranks) = rest.split_once("-of-")?;
    Some((step.parse().ok()?, rank.parse().ok()?, ranks.parse().ok()?))
}

/// The checkpoint files in run folder `run`: `(step, rank, ranks)` each.
fn files(run: &Path) -> Vec<(u64, usize, usize)> {
    std::fs::read_dir(run.join(DIR))
        .map(|d| {
            d.filter_map(|e| parse(&e.ok()?.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default()
}

/// Writes rank `c.rank`'s checkpoint into run folder `run` (atomically); returns its step.
pub fn write(run: &Path, c: &RankCheckpoint) -> std::io::Result<u64> {
    let dir = run.join(DIR);
    std::fs::create_dir_all(&dir)?;
    let step = c.base.state.steps;
    ckp::write_file(&dir.join(name(step, c.rank as usize, c.ranks as usize)), c)?;
    Ok(step)
}

/// Removes rank `rank`'s checkpoint files of `ranks` ranks other than step `keep`'s (call
/// once every rank has written `keep`'s).
pub fn prune(run: &Path, rank: usize, ranks: usize, keep: u64) -> std::io::Result<()> {
    for (s, r, n) in files(run) {
        if r == rank && n == ranks && s != keep {
            std::fs::remove_file(run.join(DIR).join(name(s, r, n)))?;
        }
    }
    Ok(())
}

/// The newest step with a checkpoint file from each of `ranks` ranks in run folder `run`; the
/// error says what is there instead.
pub fn latest(run: &Path, ranks: usize) -> Result<u64, String> {
    let all = files(run);
    let mut steps: Vec<u64> = all.iter().map(|f| f.0).collect();
    steps.sort_unstable();
    steps.dedup();
    let whole = |s: u64| (0..ranks).all(|r| all.contains(&(s, r, ranks)));
    if let Some(&s) = steps.iter().rev().find(|&&s| whole(s)) {
        return Ok(s);
    }
    let dir = run.join(DIR);
    let mut others: Vec<usize> = all.iter().map(|f| f.2).collect();
    others.sort_unstable();
    others.dedup();
    Err(match others.as_slice() {
        [] if run.join(ckp::FILE).exists() => format!(
            "{} holds the checkpoint of a run in one process: resume it without mpirun \
             (vcsim run --resume {})",
            run.display(),
            run.display()
        ),
        [] => format!(
            "{} has no checkpoints (a run writes them with --checkpoint-every)",
            dir.display()
        ),
        n if !n.contains(&ranks) => format!(
            "the checkpoints in {} were written by {} ranks; resume them with as many \
             (mpirun -n {} ...), not {ranks}",
            dir.display(),
            n.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" or "),
            n[0]
        ),
        _ => format!(
            "{} has no step with a checkpoint from each of the {ranks} ranks",
            dir.display()
        ),
    })
}

/// Rank `rank`'s checkpoint of step `step` in run folder `run`, checked against the ranks.
pub fn read(run: &Path, step: u64, rank: usize, ranks: usize) -> Result<RankCheckpoint, String> {
    let path = run.join(DIR).join(name(step, rank, ranks));
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let c: RankCheckpoint = ckp::decode(&path, &bytes)?;
    if (c.rank as usize, c.ranks as usize) != (rank, ranks) || c.base.state.steps != step {
        return Err(format!(
            "{} holds rank {} of {} at step {}, not what its name says",
            path.display(),
            c.rank,
            c.ranks,
            c.base.state.steps
        ));
    }
    if c.layout.owned.len() != c.base.state.fluid_len() {
        return Err(format!(
            "{} is damaged: its owned mask does not cover its particles",
            path.display()
        ));
    }
    Ok(c)
}

/// The run folder's checkpoint folder.
pub fn dir(run: &Path) -> PathBuf {
    run.join(DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run folder holding empty checkpoint files of these `(step, rank, ranks)`.
    fn folder(test: &str, files: &[(u64, usize, usize)]) -> PathBuf {
        let d = std::env::temp_dir().join(format!("vcsim-ckp-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join(DIR)).unwrap();
        for &(s, r, n) in files {
            std::fs::write(d.join(DIR).join(name(s, r, n)), b"").unwrap();
        }
        d
    }

    #[test]
    fn names_round_trip() {
        assert_eq!(parse(&name(120, 3, 4)), Some((120, 3, 4)));
        assert_eq!(parse("000000000120-3-of-4.bin.tmp"), None);
        assert_eq!(parse("notes.txt"), None);
    }

    /// A rank killed while the ranks wrote step 20 left it without rank 1's file: step 10,
    /// whole, is the one to resume (the ranks remove theirs only once every rank has written
    /// the next).
    #[test]
    fn the_newest_whole_generation_is_taken() {
        let d = folder("whole", &[(10, 0, 2), (10, 1, 2), (20, 0, 2)]);
        assert_eq!(latest(&d, 2), Ok(10));
        std::fs::write(d.join(DIR).join(name(20, 1, 2)), b"").unwrap();
        assert_eq!(latest(&d, 2), Ok(20));
        prune(&d, 0, 2, 20).unwrap();
        assert_eq!(files(&d).len(), 3);
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A damaged, truncated or foreign file is an error that names it, not a panic.
    #[test]
    fn damaged_files_are_named() {
        let d = folder("damaged", &[(10, 0, 2)]);
        let path = d.join(DIR).join(name(10, 0, 2));
        for bytes in [
            &b""[..],
            b"not a checkpoint",
            b"VCSIMCKP\x09\x00\x00\x00\xff\xff",
        ] {
            std::fs::write(&path, bytes).unwrap();
            let e = read(&d, 10, 0, 2).err().expect("an error");
            assert!(e.contains(&path.display().to_string()), "{e}");
        }
        let e = read(&d, 10, 1, 2).err().expect("an error");
        assert!(e.contains("cannot read"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn other_rank_counts_and_no_checkpoints_are_named() {
        let d = folder("count", &[(10, 0, 2), (10, 1, 2)]);
        let e = latest(&d, 4).unwrap_err();
        assert!(
            e.contains("written by 2 ranks") && e.contains("not 4"),
            "{e}"
        );
        let e = latest(&folder("none", &[]), 2).unwrap_err();
        assert!(e.contains("has no checkpoints"), "{e}");
        let d = folder("part", &[(10, 0, 2)]);
        let e = latest(&d, 2).unwrap_err();
        assert!(e.contains("no step with a checkpoint from each"), "{e}");
        for t in ["count", "none", "part"] {
            let _ = std::fs::remove_dir_all(
                std::env::temp_dir().join(format!("vcsim-ckp-{t}-{}", std::process::id())),
            );
        }
    }
}
