//! Files: CSV series ([`csv_out`]), VTK frames for ParaView ([`vtk`]), plots ([`plot`]),
//! pictures of runs ([`render`]) and a run on disk ([`run()`]: the library runner
//! [`crate::runner`] with an observer that writes these files). Only this module and
//! [`crate::cli`] touch the file system.

pub mod checkpoint;
pub mod csv_out;
pub mod plot;
pub mod render;
pub mod run;
pub mod session;
mod summary;
pub mod vtk;

pub use run::{run, RunOptions};
pub use summary::RunSummary;

/// Whether `dir` exists and holds anything (or cannot be read): a run never writes into such a
/// folder, so nothing a user has is overwritten.
pub fn holds_files(dir: &std::path::Path) -> bool {
    dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
}
