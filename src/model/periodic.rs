//! The RON side of periodic axes (`scene: (periodic: [X(0.0, 0.1)])`; the core type is
//! [`crate::fluid::periodic::Periodic`]) and their checks before the run.

use super::fluid_limits::list_item;
use super::load::{find_key, MAX_LENGTH};
use super::schema::{Dimension, Model};
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

/// Checks the periodic axes: each axis once, `lo < hi` within the model's size limit, no z in
/// 2D, a fluid to wrap, and a period of at least three kernel supports (the nearest image is
/// then the only neighbour across the seam). An error is (offset, field, message).
pub(super) fn validate(source: &str, m: &Model) -> Result<(), (usize, &'static str, String)> {
    let axes = &m.scene.periodic;
    if axes.is_empty() {
        return Ok(());
    }
    let scene = find_key(source, "scene", 0).unwrap_or(0);
    let at = |k: usize| list_item(source, "periodic", scene, k);
    let Some(f) = &m.fluid else {
        return Err((
            at(0),
            "periodic",
            "periodic axes wrap the fluid, and the model has no `fluid` (rigid-body contacts do not wrap)"
                .into(),
        ));
    };
    let planar = m.scene.dimension == Dimension::Two;
    let support = super::build::fluid_kernel(f, planar).support();
    let mut seen = [false; 3];
    for (k, a) in axes.iter().enumerate() {
        let (ax, lo, hi) = a.axis();
        let (name, variant) = (["x", "y", "z"][ax], ["X", "Y", "Z"][ax]);
        if seen[ax] {
            return Err((at(k), "periodic", format!("axis {name} is periodic twice")));
        }
        seen[ax] = true;
        if planar && ax == 2 {
            return Err((at(k), "periodic", "a 2D model has no z axis to wrap".into()));
        }
        if lo.abs().max(hi.abs()) > MAX_LENGTH {
            return Err((
                at(k),
                "periodic",
                format!("expected ends within {MAX_LENGTH:e} m, got [{lo:e}, {hi:e})"),
            ));
        }
        if hi <= lo {
            return Err((
                at(k),
                "periodic",
                format!("expected `{variant}(lo, hi)` with lo < hi, got [{lo}, {hi})"),
            ));
        }
        if hi - lo < 3.0 * support {
            return Err((
                at(k),
                "periodic",
                format!(
                    "the period of axis {name} ({:.4} m) must be at least three kernel supports ({:.4} m at this spacing and smoothing)",
                    hi - lo,
                    3.0 * support
                ),
            ));
        }
    }
    Ok(())
}
