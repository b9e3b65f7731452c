//! Expanding flexible beams ([`crate::model::beam_defs`], 003: Capasso et al. 2022, §2) into
//! rigid elements joined by compliant hinges before the world is built.

use crate::math::{Real, Vec3};
use crate::model::beam_defs::{BeamDef, BeamFrame, HingeRule};
use crate::model::schema::{
    BodyDef, BodyKind, Dimension, JointDef, JointKindDef, Model, ShapeDef, Spring,
};
use crate::model::values::{Finite, NonNegative, Positive, PositiveV3, Rotation, V3};
use std::borrow::Cow;

/// `m` with its beams expanded into bodies and joints (module docs), borrowed when it has none.
pub fn expanded(m: Cow<'_, Model>) -> Cow<'_, Model> {
    if m.beams.is_empty() {
        return m;
    }
    let mut m = m.into_owned();
    let planar = m.scene.dimension == Dimension::Two;
    for b in std::mem::take(&mut m.beams) {
        expand_one(&mut m, &b, planar);
    }
    Cow::Owned(m)
}

fn expand_one(m: &mut Model, b: &BeamDef, planar: bool) {
    let f = BeamFrame::of(b, planar, m.scene.thickness.0);
    let (n, ds, t) = (b.elements as usize, f.ds, b.thickness.0);
    let group = format!("beam:{}", b.name);
    let half = |x: Real| {
        PositiveV3(V3(
            0.5 * x,
            0.5 * t,
            if planar { 0.0 } else { 0.5 * f.width },
        ))
    };
    let rot = f.rotation();
    let rotation = Rotation::Quat(Finite(rot.w), Finite(rot.i), Finite(rot.j), Finite(rot.k));
    let v3 = |v: Vec3| V3(v.x, v.y, if planar { 0.0 } else { v.z });
    let element = |name: String, centre: Vec3, x: Real, kind: BodyKind| BodyDef {
        name,
        kind,
        shape: ShapeDef::Cuboid {
            half_extents: half(x),
        },
        position: v3(centre),
        rotation,
        velocity: V3::default(),
        angular_velocity: V3::default(),
        material: b.material.clone(),
        mass: None,
        force: V3::default(),
        torque: V3::default(),
        motion: None,
        groups: vec![group.clone()],
        array: None,
    };
    if b.support.own_block() {
        let centre = f.point(-0.5 * t);
        let name = format!("{}.support", b.name);
        m.bodies.push(element(name, centre, t, BodyKind::Static));
    }
    let (omega, velocity) = first_mode_velocities(n, b.tip_velocity.0, b.length.0);
    for j in 0..n {
        let mut e = element(
            format!("{}.{j}", b.name),
            f.point((j as Real + 0.5) * ds),
            ds,
            BodyKind::Dynamic,
        );
        e.velocity = v3(f.across * velocity[j]);
        let w = f.axis * omega[j];
        e.angular_velocity = V3(w.x, w.y, w.z);
        m.bodies.push(e);
    }
    let spring = |k: Real, c: Real| Spring {
        stiffness: Positive(k),
        damping: NonNegative(c),
        conservative: b.hinges == HingeRule::Conservative,
    };
    for j in 0..n {
        let (body1, scale) = match j {
            0 => match b.support.body(&b.name) {
                Some(s) => (s, if b.support.clamped() { 2.0 } else { 0.0 }),
                None => continue,
            },
            _ => (format!("{}.{}", b.name, j - 1), 1.0),
        };
        m.joints.push(JointDef {
            name: format!("{}.hinge{j}", b.name),
            kind: JointKindDef::Revolute {
                axis: V3(f.axis.x, f.axis.y, f.axis.z),
                spring: (scale > 0.0).then(|| spring(scale * f.ei / ds, scale * f.eta_i / ds)),
            },
            body1,
            body2: format!("{}.{j}", b.name),
            anchor: v3(f.point(j as Real * ds)),
            compliance: None,
            collide: false,
            group: Some(group.clone()),
        });
    }
    m.no_contact.push((group.clone(), group));
}

/// The first mode of a clamped–free Euler–Bernoulli beam: `β L = 1.8751…`, the root of
/// `cos βL cosh βL = −1`.
pub const FIRST_MODE_BETA_L: Real = 1.875_104_068_711_961;

/// Angular speeds (rad/s) and centre speeds along the thickness direction (m/s) of `n`
/// elements whose hinge chain moves in the first mode's shape with tip speed `tip` (003 eqs.
/// 37–38): each element turns at the rate of the mode's slope at its midpoint, the root point
/// is at rest, and the speeds follow along the chain.
fn first_mode_velocities(n: usize, tip: Real, length: Real) -> (Vec<Real>, Vec<Real>) {
    let (bl, ds) = (FIRST_MODE_BETA_L, length / n as Real);
    let beta = bl / length;
    let (a, c) = (bl.cos() + bl.cosh(), bl.sin() - bl.sinh());
    let slope = |z: Real| {
        let x = beta * z;
        beta * (a * (x.sinh() + x.sin()) + c * (x.cosh() - x.cos()))
    };
    let omega: Vec<Real> = (0..n).map(|j| slope((j as Real + 0.5) * ds)).collect();
    let tip_unscaled: Real = omega.iter().map(|w| w * ds).sum();
    let scale = if tip == 0.0 { 0.0 } else { tip / tip_unscaled };
    let mut point = 0.0;
    let mut centre = Vec::with_capacity(n);
    for w in &omega {
        centre.push(scale * (point + 0.5 * w * ds));
        point += w * ds;
    }
    (omega.iter().map(|w| w * scale).collect(), centre)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_mode_chain_ends_at_the_tip_speed_and_starts_at_rest() {
        let (omega, v) = first_mode_velocities(10, 0.3, 0.2);
        let ds = 0.02;
        let tip: Real = omega.iter().map(|w| w * ds).sum();
        assert!((tip - 0.3).abs() < 1e-14, "tip {tip}");
        assert!((v[0] - 0.5 * omega[0] * ds).abs() < 1e-15);
        // The mode's slope grows from the root: every element turns the same way, faster out.
        assert!(omega.windows(2).all(|w| w[1] > w[0] && w[0] > 0.0));
    }
}
