//! Wall-time counters per pipeline stage.

use std::time::{Duration, Instant};

/// Pipeline stages that are timed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// External forces and the gyroscopic step.
    External,
    /// Fluid neighbour search (cell sort and lists).
    Neighbours,
    /// An explicit fluid method's sub-steps (its own searches included).
    Fluid,
    /// Broad and narrow phase.
    Geometry,
    /// An impulse contact resolver (ETI, SQM, SMM).
    Impulses,
    /// Building the rows.
    Rows,
    /// The constraint solve and reading impulses back.
    Solve,
    /// Position integration.
    Integrate,
    /// Probes and output files.
    Output,
}

impl Stage {
    /// All stages in order.
    pub const ALL: [Stage; 9] = [
        Stage::External,
        Stage::Neighbours,
        Stage::Fluid,
        Stage::Geometry,
        Stage::Impulses,
        Stage::Rows,
        Stage::Solve,
        Stage::Integrate,
        Stage::Output,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Stage::External => "external forces",
            Stage::Neighbours => "neighbours",
            Stage::Fluid => "explicit fluid",
            Stage::Geometry => "geometry",
            Stage::Impulses => "impulses",
            Stage::Rows => "rows",
            Stage::Solve => "solve",
            Stage::Integrate => "integrate",
            Stage::Output => "probes + output",
        }
    }
}

/// Accumulated wall time per stage.
#[derive(Debug, Clone, Default)]
pub struct StageTimes {
    totals: [Duration; 9],
}

impl StageTimes {
    /// Adds the time since `start` to a stage.
    pub fn add(&mut self, stage: Stage, start: Instant) {
        self.totals[stage as usize] += start.elapsed();
    }

    /// Total time of a stage.
    pub fn get(&self, stage: Stage) -> Duration {
        self.totals[stage as usize]
    }

    /// Sum over all stages.
    pub fn total(&self) -> Duration {
        self.totals.iter().sum()
    }
}
