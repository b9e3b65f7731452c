//! Checkpoint files: `checkpoint.bin` in the run folder holds the evolving state of the world
//! ([`WorldState`], bit for bit), the runner's totals, how far each output file had got, and
//! the model text the run was started from, so `vcsim run --resume DIR` goes on exactly where
//! the checkpoint was taken and writes the same bytes an uninterrupted run writes.
//!
//! Format: the 8 bytes `VCSIMCKP`, a little-endian `u32` format version, then the
//! [`Checkpoint`] in postcard's encoding (f64 as 8 little-endian bytes). Written to a temporary
//! file renamed over the old one: a checkpoint is always whole.

use crate::pipeline::WorldState;
use crate::runner::Totals;
use crate::Real;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The checkpoint's file name in the run folder.
pub const FILE: &str = "checkpoint.bin";
const MAGIC: &[u8; 8] = b"VCSIMCKP";
/// 2: the totals carry the largest compression.
/// 3: WCSPH densities and the next sub-step; 4: Verlet's previous sub-step; 6: the fluid
/// method's own state (ISPH's body velocities one step back moved there from the fluid); 7:
/// WCSPH's carried state there too; 8: WCSPH's densities and the density rows' warm starts
/// in their methods' state, no longer in the fluid's; 9: the step the warm starts were found
/// over (the constraint method's sub-steps); 10: a divided fluid's boxes (its parked walls).
const VERSION: u32 = 10;

/// How far the output files had got at a checkpoint.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OutputMark {
    /// Bytes in each CSV file ([`crate::io::csv_out::CsvSeries::lengths`]).
    pub csv: Vec<u64>,
    /// The next frame number.
    pub frame: usize,
    /// Body frames written: (time in s, file).
    pub frames: Vec<(Real, String)>,
    /// Fluid frames written: (time in s, file).
    pub fluid_frames: Vec<(Real, String)>,
}

impl OutputMark {
    /// Where the files `csv` and `vtk` stand (flushed), with `frame` the next frame number.
    pub fn of(
        csv: &super::csv_out::CsvSeries,
        vtk: Option<&super::vtk::VtkWriter>,
        frame: usize,
    ) -> std::io::Result<OutputMark> {
        let (f, ff) = vtk.map(|v| v.frames()).unwrap_or((&[], &[]));
        Ok(OutputMark {
            csv: csv.lengths()?,
            frame,
            frames: f.to_vec(),
            fluid_frames: ff.to_vec(),
        })
    }
}

/// Everything a resumed run needs.
#[derive(Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The model file the run was started from (for messages).
    pub model_path: String,
    /// Its text at the start of the run.
    pub model_text: String,
    /// End time of the run (s).
    pub end: Real,
    /// Checkpoint interval (s).
    pub every: Real,
    /// Probe columns of `probes.csv`.
    pub columns: Vec<String>,
    /// The world.
    pub state: WorldState,
    /// The runner's totals.
    pub totals: Totals,
    /// The output files.
    pub output: OutputMark,
}

/// Writes `dir/checkpoint.bin` (atomically).
pub fn write(dir: &Path, c: &Checkpoint) -> std::io::Result<()> {
    write_file(&dir.join(FILE), c)
}

/// Writes `value` as a checkpoint file at `path` (the header, then postcard; atomically).
pub fn write_file<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    let body = postcard::to_stdvec(value).map_err(std::io::Error::other)?;
    bytes.extend_from_slice(&body);
    super::vtk::write_atomic(path, &bytes)
}

/// Reads `dir/checkpoint.bin`; the error says what is wrong with it.
pub fn read(dir: &Path) -> Result<Checkpoint, String> {
    let path = dir.join(FILE);
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "cannot read {}: {e} (a run writes checkpoints with --checkpoint-every)",
            path.display()
        )
    })?;
    decode(&path, &bytes)
}

/// A checkpoint file's contents (read from `path`, for messages); the error says what is
/// wrong with it.
pub fn decode<T: serde::de::DeserializeOwned>(path: &Path, bytes: &[u8]) -> Result<T, String> {
    if bytes.len() < 12 || &bytes[..8] != MAGIC {
        return Err(format!("{} is not a vcsim checkpoint", path.display()));
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(format!(
            "{} has checkpoint format {version}; this vcsim reads format {VERSION}",
            path.display()
        ));
    }
    postcard::from_bytes(&bytes[12..]).map_err(|e| format!("{} is damaged: {e}", path.display()))
}
