//! Joints: anchors within limits (no z in 2D), names defined once, two different known
//! bodies, non-zero axes; compliance and spring values.

use super::{at, item, magnitude, value, FieldError, MAX_LENGTH};
use crate::model::schema::{Dimension, JointKindDef, Model};
use std::collections::HashSet;

/// Checks the joints against the bodies' `names`; returns the joints' names.
pub(super) fn validate<'a>(
    m: &'a Model,
    names: &HashSet<String>,
) -> Result<HashSet<&'a str>, Box<FieldError>> {
    let planar = m.scene.dimension == Dimension::Two;
    let mut joints = HashSet::new();
    for (i, j) in m.joints.iter().enumerate() {
        let here = item("joints", i);
        values(&here, j)?;
        if planar && j.anchor.2 != 0.0 {
            return Err(FieldError::new(
                at(&here, "anchor"),
                format!("a 2D model has no z component; got {}", j.anchor.2),
            ));
        }
        let d = magnitude(&j.anchor.vec());
        if d.is_nan() || d > MAX_LENGTH {
            return Err(FieldError::new(
                at(&here, "anchor"),
                format!("expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
            ));
        }
        if !joints.insert(j.name.as_str()) {
            return Err(FieldError::new(
                at(&here, "name"),
                format!("joint `{}` is defined twice", j.name),
            ));
        }
        for (field, body) in [("body1", &j.body1), ("body2", &j.body2)] {
            if !names.contains(body.as_str()) {
                return Err(FieldError::new(
                    at(&here, field),
                    format!(
                        "joint `{}` names unknown body `{}`; expected the name of a body",
                        j.name, body
                    ),
                ));
            }
        }
        if j.body1 == j.body2 {
            return Err(FieldError::new(
                at(&here, "body2"),
                format!("joint `{}` joins body `{}` to itself", j.name, j.body1),
            ));
        }
        if let Some(a) = j.kind.axis() {
            let n = magnitude(&a.vec());
            if !(n >= 1e-12 && n.is_finite()) {
                return Err(FieldError::new(
                    at(&at(&here, "kind"), "axis"),
                    "expected a non-zero finite axis",
                ));
            }
        }
    }
    Ok(joints)
}

/// The value types' rules of a joint (for models built in code).
fn values(here: &str, j: &crate::model::schema::JointDef) -> super::Checked {
    value(|| at(here, "anchor"), j.anchor.check())?;
    if let Some(c) = &j.compliance {
        let comp = at(here, "compliance");
        value(|| at(&comp, "linear_stiffness"), c.linear_stiffness.check())?;
        value(
            || at(&comp, "angular_stiffness"),
            c.angular_stiffness.check(),
        )?;
        value(|| at(&comp, "linear_damping"), c.linear_damping.check())?;
        value(|| at(&comp, "angular_damping"), c.angular_damping.check())?;
    }
    if let JointKindDef::Revolute {
        spring: Some(s), ..
    } = &j.kind
    {
        let spring = at(&at(here, "kind"), "spring");
        value(|| at(&spring, "stiffness"), s.stiffness.check())?;
        value(|| at(&spring, "damping"), s.damping.check())?;
    }
    Ok(())
}
