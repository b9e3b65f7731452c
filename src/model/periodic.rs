//! The RON side of periodic axes (`scene: (periodic: [X(0.0, 0.1)])`; the core type is
//! [`crate::fluid::periodic::Periodic`]); [`super::validate`] checks them.

use super::values::Finite;
use crate::fluid::periodic::Periodic;
use serde::{Deserialize, Serialize};

/// A periodic axis of the fluid and the interval `[lo, hi)` (m) it wraps over.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum PeriodicAxis {
    /// x wraps over `[lo, hi)`.
    X(Finite, Finite),
    /// y wraps over `[lo, hi)`.
    Y(Finite, Finite),
    /// z wraps over `[lo, hi)` (3D models only).
    Z(Finite, Finite),
}

impl PeriodicAxis {
    /// Axis index (0 = x) and interval (m).
    pub fn axis(&self) -> (usize, f64, f64) {
        match *self {
            PeriodicAxis::X(a, b) => (0, a.0, b.0),
            PeriodicAxis::Y(a, b) => (1, a.0, b.0),
            PeriodicAxis::Z(a, b) => (2, a.0, b.0),
        }
    }
}

/// The core description of the model's periodic axes.
pub fn periodic(axes: &[PeriodicAxis]) -> Periodic {
    axes.iter().fold(Periodic::NONE, |p, a| {
        let (ax, lo, hi) = a.axis();
        p.with_axis(ax, lo, hi)
    })
}
