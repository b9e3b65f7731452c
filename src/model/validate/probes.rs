//! Probes: the bodies and joints they name exist, fluid probes have a fluid, a `Repose` pile
//! is 3D, a `Resolver` probe has an impulse resolver, points and directions are finite and
//! within the model's size limit.

use super::{item, magnitude, Checked, FieldError, MAX_LENGTH};
use crate::model::probe_defs::ProbeDef;
use crate::model::schema::{Dimension, Model};
use std::collections::HashSet;

/// Checks the probes against the bodies' and joints' names.
pub(super) fn validate(
    m: &Model,
    bodies: &HashSet<String>,
    joints: &HashSet<&str>,
    beams: &HashSet<String>,
) -> Checked {
    let planar = m.scene.dimension == Dimension::Two;
    for (k, p) in m.probes.iter().enumerate() {
        let fail = |msg: String| Err(FieldError::named(item("probes", k), "probes", msg));
        let no_fluid = "this probe measures the fluid, and the model has no `fluid`";
        let (name, is_joint) = match p {
            ProbeDef::Position(n)
            | ProbeDef::Velocity(n)
            | ProbeDef::AngularVelocity(n)
            | ProbeDef::Orientation(n) => (n, false),
            ProbeDef::JointForce(n) => (n, true),
            ProbeDef::Repose(n) => {
                if planar {
                    return fail(
                        "`Repose` measures a 3D pile (gravity along −z); this model is 2D".into(),
                    );
                }
                (n, false)
            }
            ProbeDef::FluidForce(n) | ProbeDef::Submerged(n) => {
                if m.fluid.is_none() {
                    return fail(no_fluid.into());
                }
                (n, false)
            }
            ProbeDef::Front(d) => {
                let n = magnitude(&d.vec());
                if m.fluid.is_none() || !(n > 0.0 && n.is_finite()) {
                    return fail("`Front` needs a fluid and a non-zero direction".into());
                }
                continue;
            }
            ProbeDef::Pressure(_)
            | ProbeDef::WaveGauge(_)
            | ProbeDef::DensityError
            | ProbeDef::FluidEnergy => {
                if let ProbeDef::Pressure(x) | ProbeDef::WaveGauge(x) = p {
                    let d = magnitude(&x.vec());
                    if d.is_nan() || d > MAX_LENGTH {
                        return fail(format!("a `Pressure` or `WaveGauge` point needs a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"));
                    }
                }
                if m.fluid.is_none() {
                    return fail(no_fluid.into());
                }
                continue;
            }
            ProbeDef::Energy => continue,
            ProbeDef::BeamTip(n)
            | ProbeDef::BeamPoint(n, _)
            | ProbeDef::BeamMoment(n)
            | ProbeDef::BeamEnergy(n) => {
                if !beams.contains(n) {
                    return fail(format!("probe names unknown beam `{n}`"));
                }
                if let ProbeDef::BeamPoint(_, at) = p {
                    if !(0.0..=1.0).contains(at) {
                        return fail(format!(
                            "`BeamPoint` takes a fraction of the beam's length in [0, 1], got {at}"
                        ));
                    }
                }
                continue;
            }
            ProbeDef::Resolver => {
                if m.contact.resolver.is_complementarity() {
                    return fail(
                        "`Resolver` reports an impulse contact resolver; this model's \
                         `contact.resolver` is `Complementarity()`"
                            .into(),
                    );
                }
                continue;
            }
        };
        let known = if is_joint {
            joints.contains(name.as_str())
        } else {
            bodies.contains(name)
        };
        if !known {
            let what = if is_joint { "joint" } else { "body" };
            return fail(format!("probe names unknown {what} `{name}`"));
        }
    }
    Ok(())
}
