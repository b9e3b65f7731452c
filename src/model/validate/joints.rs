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
        kind(&here, j, planar)?;
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
        if let Some(a) = &c.angular_stiffness {
            value(|| at(&comp, "angular_stiffness"), a.check())?;
        }
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
    if let JointKindDef::Line {
        anchor2,
        rest_length,
        stiffness,
        damping,
    } = &j.kind
    {
        let kind = at(here, "kind");
        value(|| at(&kind, "anchor2"), anchor2.check())?;
        if let Some(r) = rest_length {
            value(|| at(&kind, "rest_length"), r.check())?;
        }
        if let Some(k) = stiffness {
            value(|| at(&kind, "stiffness"), k.check())?;
        }
        value(|| at(&kind, "damping"), damping.check())?;
    }
    Ok(())
}

/// A joint kind's own rules: a line's second anchor and length, compliance where it applies.
fn kind(here: &str, j: &crate::model::schema::JointDef, planar: bool) -> super::Checked {
    let angular = matches!(
        j.kind,
        JointKindDef::Fixed | JointKindDef::Revolute { .. } | JointKindDef::Prismatic { .. }
    );
    if let Some(c) = &j.compliance {
        if matches!(j.kind, JointKindDef::Line { .. }) {
            return Err(FieldError::new(
                at(here, "compliance"),
                "a `Line` has its own `stiffness` and `damping`; remove `compliance`",
            ));
        }
        if angular && c.angular_stiffness.is_none() {
            return Err(FieldError::new(
                at(here, "compliance"),
                format!(
                    "joint `{}` constrains rotation: its compliance needs `angular_stiffness` (N·m/rad)",
                    j.name
                ),
            ));
        }
    }
    let JointKindDef::Line {
        anchor2,
        rest_length,
        stiffness,
        damping,
    } = &j.kind
    else {
        return Ok(());
    };
    let kind = at(here, "kind");
    if planar && anchor2.2 != 0.0 {
        return Err(FieldError::new(
            at(&kind, "anchor2"),
            format!("a 2D model has no z component; got {}", anchor2.2),
        ));
    }
    let d = magnitude(&anchor2.vec());
    if d.is_nan() || d > MAX_LENGTH {
        return Err(FieldError::new(
            at(&kind, "anchor2"),
            format!("expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
        ));
    }
    let length = magnitude(&(anchor2.vec() - j.anchor.vec()));
    let rest = rest_length.map_or(length, |r| r.0);
    if rest.is_nan() || rest <= 1e-9 || rest > MAX_LENGTH {
        return Err(FieldError::new(
            at(&kind, if rest_length.is_some() { "rest_length" } else { "anchor2" }),
            format!(
                "a line needs a length between 1e-9 and {MAX_LENGTH:e} m: its anchors are {length:e} m apart and its rest length is {rest:e} m"
            ),
        ));
    }
    for (field, v) in [
        ("stiffness", stiffness.map_or(0.0, |k| k.0)),
        ("damping", damping.0),
    ] {
        if v > 1e15 {
            return Err(FieldError::new(
                at(&kind, field),
                format!("expected at most 1e15, got {v:e}"),
            ));
        }
    }
    Ok(())
}
