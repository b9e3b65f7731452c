//! Interruption inside a step, and the caps on the loops inside a step.
//!
//! The command line registers SIGINT and SIGTERM on the process's [`flag`]. Between steps the
//! runner asks it and stops where it is, writing the state there. A step that is still running
//! [`GRACE`] after the signal was first seen ends early instead: its inner loops (WCSPH and
//! ISPH sub-steps, the pressure CG, PGS and APGD iterations, impulse increments) ask
//! [`overdue`] and stop, the world marks the step [`Abort::Interrupted`], and the runner
//! discards it: the outputs end at the last step that finished, and the last good checkpoint
//! is written. So a run ends within about a second of a signal whatever its steps cost, and a
//! step that finishes in time keeps every guarantee of an interruption between steps.
//!
//! A loop that reaches its cap ([`crate::runner::Bounds::max_substeps`] for sub-steps,
//! [`crate::impulse::MAX_IMPULSES`] for impulse increments) marks the step
//! [`Abort::Cap`]: the run stops as at a guard bound (exit 3) with the message naming the cap.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How long a running step may go on after a signal before its loops stop.
pub const GRACE: Duration = Duration::from_millis(500);

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
static SEEN: OnceLock<Instant> = OnceLock::new();

/// The process's interruption flag (created on first use): a signal handler sets it.
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}

/// Whether an interruption was asked for.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}

/// Whether an interruption was asked for at least [`GRACE`] ago (counted from the first call
/// that saw it): the loops inside a step stop when this holds.
pub fn overdue() -> bool {
    requested() && SEEN.get_or_init(Instant::now).elapsed() >= GRACE
}

/// Why a step ended before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Abort {
    /// A signal arrived and the step ran on for [`GRACE`].
    Interrupted,
    /// A loop reached its cap.
    Cap {
        /// What was capped, with the count (for the message).
        what: String,
        /// The model field that sets or explains the cap, as in RON.
        field: &'static str,
    },
}
