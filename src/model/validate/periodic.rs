//! Periodic axes: each axis once, `lo < hi` within the model's size limit, no z in 2D, a
//! fluid to wrap, and a period of at least three kernel supports (the nearest image is then
//! the only neighbour across the seam).

use super::{item, Checked, FieldError, MAX_LENGTH};
use crate::model::schema::{Dimension, Model};

/// Checks `scene.periodic`.
pub(super) fn validate(m: &Model) -> Checked {
    let axes = &m.scene.periodic;
    if axes.is_empty() {
        return Ok(());
    }
    let at = |k: usize| item("scene.periodic", k);
    let fail = |k: usize, msg: String| Err(FieldError::named(at(k), "periodic", msg));
    let Some(f) = &m.fluid else {
        return fail(
            0,
            "periodic axes wrap the fluid, and the model has no `fluid` (rigid-body contacts do not wrap)"
                .into(),
        );
    };
    let planar = m.scene.dimension == Dimension::Two;
    let support = f.kernel(planar).support();
    let mut seen = [false; 3];
    for (k, a) in axes.iter().enumerate() {
        let (ax, lo, hi) = a.axis();
        let (name, variant) = (["x", "y", "z"][ax], ["X", "Y", "Z"][ax]);
        if seen[ax] {
            return fail(k, format!("axis {name} is periodic twice"));
        }
        seen[ax] = true;
        if planar && ax == 2 {
            return fail(k, "a 2D model has no z axis to wrap".into());
        }
        if !lo.is_finite() || !hi.is_finite() || lo.abs().max(hi.abs()) > MAX_LENGTH {
            return fail(
                k,
                format!("expected ends within {MAX_LENGTH:e} m, got [{lo:e}, {hi:e})"),
            );
        }
        if hi <= lo {
            return fail(
                k,
                format!("expected `{variant}(lo, hi)` with lo < hi, got [{lo}, {hi})"),
            );
        }
        if hi - lo < 3.0 * support {
            return fail(
                k,
                format!(
                    "the period of axis {name} ({:.4} m) must be at least three kernel supports ({:.4} m at this spacing and smoothing)",
                    hi - lo,
                    3.0 * support
                ),
            );
        }
    }
    Ok(())
}
