//! Outputs and the run loop: CSV series ([`csv_out`]), VTK frames for ParaView ([`vtk`]), plots
//! ([`plot`]), probes ([`probe`]) and the run itself ([`run()`]).

pub mod csv_out;
pub mod plot;
pub mod probe;
pub mod render;
pub mod run;
pub mod vtk;

pub use run::{run, RunOptions, RunSummary};
