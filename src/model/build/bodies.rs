//! Bodies, colliders and joints from the model.

use super::BuildError;
use crate::body::{Dofs, Kind, RigidBody};
use crate::constraints::joint::{HingeSpring, Joint, JointCompliance, JointKind, LineLaw};
use crate::geometry::{Collider, Geometry};
use crate::math::{from_pv, Iso, Quat, Vec3};
use crate::model::schema::{BodyDef, BodyKind, JointKindDef, Model};
use crate::model::shapes::build_shape;

/// Body `i` of the model (`b`) and its collider: mass properties from the shape and the
/// material (or the body's `mass`), the state in the centre-of-mass principal frame, planar
/// components dropped in 2D.
pub(super) fn body(
    i: usize,
    b: &BodyDef,
    m: &Model,
    dofs: Dofs,
    groups: &[&str],
) -> Result<(RigidBody, Collider), BuildError> {
    let planar = dofs == Dofs::Planar;
    let flat = |v: Vec3| if planar { Vec3::new(v.x, v.y, 0.0) } else { v };
    let body_err = |e: String| BuildError::Body(i, format!("body `{}`: {e}", b.name));
    let (shape, offset) =
        build_shape(&b.shape, dofs, m.scene.thickness.0).map_err(|e| body_err(e.to_string()))?;
    let name = b.material.as_str();
    let (density, friction, restitution) = match m.materials.iter().find(|mat| mat.name == name) {
        Some(mat) => (mat.density.0, mat.friction.0, mat.restitution.0),
        None if name == "default" => (1000.0, 0.5, 0.0),
        None => return Err(body_err(format!("unknown material `{name}`"))),
    };
    let rot = b
        .rotation
        .quat()
        .ok_or_else(|| body_err("invalid rotation".into()))?;
    let rot = if planar {
        // Only rotations about z are planar.
        let (_, _, yaw) = rot.euler_angles();
        Quat::from_axis_angle(&Vec3::z_axis(), yaw)
    } else {
        rot
    };
    let frame = Iso::from_parts(flat(b.position.vec()).into(), rot);
    let kind = match b.kind {
        BodyKind::Static => Kind::Static,
        BodyKind::Kinematic => Kind::Kinematic,
        BodyKind::Dynamic => Kind::Dynamic,
    };
    let (pose, com_to_frame, local, mass, inertia) = if kind == Kind::Dynamic {
        let mp = shape.mass_properties(density);
        let m0 = mp.mass();
        if !(m0 > 0.0 && m0.is_finite()) {
            return Err(body_err("its shape has no volume, so no mass".into()));
        }
        let scale = b.mass.map(|mm| mm.0 / m0).unwrap_or(1.0);
        let principal = Iso::from_parts(
            from_pv(mp.local_com).into(),
            Quat::from(mp.principal_inertia_local_frame),
        );
        let com_in_body = offset * principal;
        (
            frame * com_in_body,
            com_in_body.inverse(),
            principal.inverse(),
            m0 * scale,
            from_pv(mp.principal_inertia()) * scale,
        )
    } else {
        (frame, Iso::identity(), offset, 0.0, Vec3::zeros())
    };
    let mut ang_vel = b.angular_velocity.vec();
    if planar {
        ang_vel = Vec3::new(0.0, 0.0, ang_vel.z);
    }
    let body = RigidBody {
        name: b.name.clone(),
        kind,
        pose,
        lin_vel: flat(b.velocity.vec()),
        ang_vel: if kind == Kind::Static {
            Vec3::zeros()
        } else {
            ang_vel
        },
        mass,
        inv_mass: if mass > 0.0 { 1.0 / mass } else { 0.0 },
        inertia,
        com_to_frame,
        force: flat(b.force.vec()),
        torque: if planar {
            Vec3::new(0.0, 0.0, b.torque.2)
        } else {
            b.torque.vec()
        },
        collider: i,
        motion: b
            .motion
            .as_ref()
            .map(|mo| mo.prescribed(frame, m.scene.gravity.vec().norm())),
    };
    let collider = Collider {
        shape,
        body: i,
        local,
        friction,
        restitution,
        groups: group_bits(groups, &b.groups),
    };
    Ok((body, collider))
}

/// The model's joints between the built `bodies`; pairs of joined bodies that do not collide
/// are added to `geometry.excluded`.
pub(super) fn joints(
    m: &Model,
    bodies: &[RigidBody],
    flat: impl Fn(Vec3) -> Vec3,
    geometry: &mut Geometry,
) -> Result<Vec<Joint>, BuildError> {
    let mut joints = Vec::new();
    let mut groups: Vec<&str> = Vec::new();
    for (k, j) in m.joints.iter().enumerate() {
        let index = |name: &str| {
            bodies
                .iter()
                .position(|b: &RigidBody| b.name == name)
                .ok_or_else(|| BuildError::Joint(k, format!("unknown body `{name}`")))
        };
        let (b1, b2) = (index(&j.body1)?, index(&j.body2)?);
        let (kind, axis) = match &j.kind {
            JointKindDef::Fixed => (JointKind::Fixed, Vec3::z()),
            JointKindDef::Spherical => (JointKind::Spherical, Vec3::z()),
            JointKindDef::Revolute { axis, spring } => (
                JointKind::Revolute {
                    spring: spring.as_ref().map(|s| HingeSpring {
                        stiffness: s.stiffness.0,
                        damping: s.damping.0,
                        conservative: s.conservative,
                    }),
                },
                axis.vec(),
            ),
            JointKindDef::Prismatic { axis } => (JointKind::Prismatic, axis.vec()),
            JointKindDef::Line {
                anchor2,
                rest_length,
                stiffness,
                damping,
            } => {
                let length = (flat(anchor2.vec()) - flat(j.anchor.vec())).norm();
                (
                    JointKind::Line(LineLaw {
                        rest_length: rest_length.map_or(length, |r| r.0),
                        stiffness: stiffness.map(|k| k.0),
                        damping: damping.0,
                    }),
                    Vec3::z(),
                )
            }
        };
        let compliance = j.compliance.as_ref().map(|c| JointCompliance {
            linear_stiffness: c.linear_stiffness.0,
            // Validation asks for it where the joint has angular rows.
            angular_stiffness: c.angular_stiffness.map_or(0.0, |a| a.0),
            linear_damping: c.linear_damping.0,
            angular_damping: c.angular_damping.0,
        });
        joints.push(
            Joint::new(
                j.name.clone(),
                kind,
                bodies,
                b1,
                b2,
                flat(j.anchor.vec()),
                axis,
                compliance,
            )
            .map_err(|e| BuildError::Joint(k, e))?,
        );
        let line = if let JointKindDef::Line { anchor2, .. } = &j.kind {
            let last = joints.last_mut().expect("pushed");
            last.anchor2 = bodies[b2]
                .pose
                .inverse_transform_point(&flat(anchor2.vec()).into())
                .coords;
            true
        } else {
            false
        };
        if let Some(g) = &j.group {
            let id = match groups.iter().position(|n| n == g) {
                Some(id) => id,
                None => {
                    groups.push(g.as_str());
                    groups.len() - 1
                }
            };
            joints.last_mut().expect("pushed").group = Some(id as u32);
        }
        if !j.collide && !line {
            geometry.excluded.push((b1.min(b2), b1.max(b2)));
        }
    }
    Ok(joints)
}

/// One bit per group of `names` found in `groups` (the first 32 groups only).
pub(super) fn group_bits<'a>(groups: &[&str], names: impl IntoIterator<Item = &'a String>) -> u32 {
    names
        .into_iter()
        .filter_map(|n| groups.iter().position(|g| g == n))
        .filter(|&k| k < 32)
        .fold(0, |bits, k| bits | 1 << k)
}

/// Every pair of colliders that may touch (one of them dynamic, not joined) must be a pair of
/// shapes parry computes contacts for; the error names the bodies.
pub(super) fn check_contact_pairs(
    geometry: &Geometry,
    bodies: &[RigidBody],
) -> Result<(), BuildError> {
    let mut seen = std::collections::HashSet::new();
    let cs = &geometry.colliders;
    for i in 0..cs.len() {
        for j in i + 1..cs.len() {
            let (bi, bj) = (cs[i].body, cs[j].body);
            if !(bodies[bi].is_dynamic() || bodies[bj].is_dynamic()) || !geometry.may_collide(i, j)
            {
                continue;
            }
            let (ti, tj) = (cs[i].shape.shape_type(), cs[j].shape.shape_type());
            let simple = |t| {
                !matches!(
                    t,
                    parry3d_f64::shape::ShapeType::Compound
                        | parry3d_f64::shape::ShapeType::TriMesh
                )
            };
            if simple(ti) && simple(tj) && !seen.insert((ti, tj)) {
                continue;
            }
            geometry.check_pair(i, j).map_err(|e| {
                BuildError::Body(
                    bi,
                    format!(
                        "body `{}`: {e} (with body `{}`)",
                        bodies[bi].name, bodies[bj].name
                    ),
                )
            })?;
        }
    }
    Ok(())
}
