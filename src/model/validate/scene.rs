//! Time, scene, solver, guard, contact settings and output.

use super::{magnitude, value, Checked, FieldError, MAX_GRAVITY, MAX_STEPS};
use crate::model::schema::{Dimension, Model};

/// The top-level sections that are not lists.
pub(super) fn validate(m: &Model) -> Checked {
    let (t, s, c) = (&m.time, &m.scene, &m.contact);
    if let Some(dt) = t.dt {
        value(|| "time.dt".into(), dt.check())?;
    } else if m.fluid.is_none() {
        return Err(FieldError::new(
            "time",
            "expected `dt`, the time step (s): only a model with a fluid gets one by default",
        )
        .at_key());
    }
    value(|| "time.end".into(), t.end.check())?;
    value(|| "scene.thickness".into(), s.thickness.check())?;
    value(|| "scene.gravity".into(), s.gravity.check())?;
    value(|| "output.every".into(), m.output.every.check())?;
    if m.output.animation && !m.output.vtk {
        return Err(FieldError::new(
            "output.animation",
            "the animation is drawn from the VTK frames; set `vtk: true` or leave `animation` out",
        ));
    }
    let dt = t.dt.map(|d| d.0);
    if let Some(dt) = dt.filter(|&dt| dt > t.end.0) {
        return Err(FieldError::new(
            "time.dt",
            format!(
                "the time step ({dt} s) is longer than the run (end = {} s)",
                t.end.0
            ),
        ));
    }
    if s.dimension == Dimension::Two && s.gravity.2 != 0.0 {
        return Err(FieldError::new(
            "scene.gravity",
            format!("a 2D model has no z component; got {}", s.gravity.2),
        ));
    }
    let g = magnitude(&s.gravity.vec());
    if g.is_nan() || g > MAX_GRAVITY {
        return Err(FieldError::new(
            "scene.gravity",
            format!("expected a magnitude up to {MAX_GRAVITY:e} m/s² (1000 g), got {g:e}"),
        ));
    }
    let steps = dt.map_or(0.0, |dt| t.end.0 / dt);
    if steps > MAX_STEPS {
        return Err(FieldError::new("time.dt", format!("end / dt = {steps:.3e} steps; more than {MAX_STEPS:e} steps is not a run that finishes — raise dt or lower end")));
    }
    // (A fluid model's default solver depends on the time step only through its tolerance,
    // positive for any positive step.)
    if let Err(e) = m.solver_choice(dt.unwrap_or(1.0)).validate() {
        let msg = if e.field == "tolerance" {
            format!(
                "expected a positive tolerance (m/s), got {}",
                crate::params::shown(e.value)
            )
        } else {
            e.message()
        };
        return Err(FieldError::new(format!("solver.{}", e.field), msg));
    }
    if let Err(e) = m.guard.validate() {
        return Err(FieldError::new(format!("guard.{}", e.field), e.message()));
    }
    if let Err(e) = c.validate() {
        // The resolver's own fields are under `contact.resolver`.
        let own = ["prediction", "baumgarte", "slop", "restitution_threshold"];
        let path = if own.contains(&e.field) {
            format!("contact.{}", e.field)
        } else {
            format!("contact.resolver.{}", e.field)
        };
        return Err(FieldError::new(path, e.message()));
    }
    Ok(())
}
