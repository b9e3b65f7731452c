//! Joint rows: fixed, spherical, revolute and prismatic joints as bilateral rows, optionally
//! compliant.
//!
//! With anchors `p_1 = x_1 + r_1`, `p_2 = x_2 + r_2` (m) and the relative-rotation error
//! `e = q_2 (q_1 q_rel0)⁻¹` (world frame, `C_ang = 2 vec(e)` rad for small errors):
//!
//! | joint | rows |
//! |---|---|
//! | spherical | `C = p_2 − p_1` along x, y, z: `(−c, −r_1 × c)`, `(c, r_2 × c)` |
//! | fixed | spherical rows + `C_ang` along x, y, z: `(0, −c)`, `(0, c)` |
//! | revolute | spherical rows + `a · b_2`, `a · c_2` (a: hinge axis on body 1; b_2, c_2 ⟂ axis on body 2): `(0, −(b_2 × a))`, `(0, b_2 × a)`; optional torsional spring on the hinge angle `θ = 2 atan2(vec(e)·a, e_w)` |
//! | prismatic | `t · (p_2 − p_1)` for two t ⟂ axis on body 1: `(−t, −(p_2 − x_1) × t)`, `(t, r_2 × t)` + the 3 angular rows of the fixed joint |
//!
//! | line (mooring) | one unilateral row along `n = (p_2 − p_1)/|p_2 − p_1|`: `(n, r_1 × n)`, `(−n, −r_2 × n)` (the rate of shortening), `C = L₀ − |p_2 − p_1|`, `λ ≥ 0` the tension impulse |
//!
//! A rigid row has `ε = 0` and bias `b = β C / h` (Baumgarte). A compliant row
//! (stiffness k, damping c) uses [`super::spring_row`]: an implicit spring-damper solved in the
//! same solve — the mechanism by which a chain of rigid segments with compliant hinges becomes a
//! flexible beam (003). A hinge spring may instead use [`super::conservative_spring_row`],
//! which keeps the implicit row's unconditional stability without its numerical damping. Rows whose effective mass vanishes (directions locked by the planar
//! mode, or joints between two bodies without DOFs) are left out. The rows of one joint form one
//! bilateral block, which PGS solves exactly (they are strongly coupled through the bodies'
//! rotations: a small bob far from its hinge makes its two point rows nearly dependent).
//! Consecutive joints of one `group` (a beam's hinges) form one block together.

use super::{conservative_spring_row, spring_row, BodyMass, BodyRows};
use crate::body::RigidBody;
use crate::math::{orthonormal_basis, Quat, Real, Vec3};
use crate::solver::{Block, BlockKind};

/// Joint type with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    /// No relative motion.
    Fixed,
    /// Point coincidence.
    Spherical,
    /// Hinge; optional torsional spring.
    Revolute {
        /// Spring on the hinge angle.
        spring: Option<HingeSpring>,
    },
    /// Slider.
    Prismatic,
    /// A mooring line between the two anchors that carries tension only.
    Line(LineLaw),
}

/// The law of a mooring line (tension only). With `C = L₀ − L` (m; `L` the anchors' distance,
/// positive while slack) and `λ ≥ 0` the tension impulse (N·s), the row is the complementarity
/// `w = J v⁺ + b + ε λ ≥ 0 ⊥ λ ≥ 0` with
///
/// - taut (`C ≤ 0`), with stiffness k and damping c: [`super::spring_row`]`(k, c, h, C)`, the
///   implicit spring-damper, so that at rest the tension is `T = k (L − L₀)` (N) and while
///   stretching it adds `c L̇`;
/// - taut without stiffness (a rope): `ε = 0`, `b = β C/h` (Baumgarte);
/// - slack (`C > 0`): `ε` of the spring without damping (0 for a rope), `b = C/h`: the line
///   stays slack unless the step would stretch it past `L₀`, and then pulls only by what
///   that overshoot needs — a slack line carries no force, a line never pushes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineLaw {
    /// Unstretched length L₀ (m).
    pub rest_length: Real,
    /// Axial stiffness k (N/m); `None`: inextensible.
    pub stiffness: Option<Real>,
    /// Axial damping c while taut (N·s/m).
    pub damping: Real,
}

impl LineLaw {
    /// The row's compliance and bias for the gap `c = L₀ − L` (m), step `h` (s), Baumgarte
    /// factor `beta` (module docs).
    pub fn row(&self, c: Real, h: Real, beta: Real) -> (Real, Real) {
        match (self.stiffness, c <= 0.0) {
            (Some(k), true) => spring_row(k, self.damping, h, c),
            (None, true) => (0.0, beta * c / h),
            (Some(k), false) => (1.0 / (h * h * k), c / h),
            (None, false) => (0.0, c / h),
        }
    }
}

/// A torsional spring-damper on a revolute joint's hinge angle (rest angle: the initial one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HingeSpring {
    /// Stiffness k (N·m/rad).
    pub stiffness: Real,
    /// Damping c (N·m·s/rad).
    pub damping: Real,
    /// The row of [`super::conservative_spring_row`] (no numerical damping) instead of the
    /// backward-Euler [`super::spring_row`] (numerical damping ratio ζ ≈ ωh/2).
    pub conservative: bool,
}

/// Stiffness (N/m, N·m/rad) and damping (N·s/m, N·m·s/rad) of a compliant joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointCompliance {
    /// Translational stiffness.
    pub linear_stiffness: Real,
    /// Rotational stiffness.
    pub angular_stiffness: Real,
    /// Translational damping.
    pub linear_damping: Real,
    /// Rotational damping.
    pub angular_damping: Real,
}

/// A joint between two bodies.
#[derive(Debug, Clone)]
pub struct Joint {
    /// Name from the model.
    pub name: String,
    /// Type.
    pub kind: JointKind,
    /// First body.
    pub body1: usize,
    /// Second body.
    pub body2: usize,
    /// Anchor in body 1's centre-of-mass frame (m).
    pub anchor1: Vec3,
    /// Anchor in body 2's centre-of-mass frame (m).
    pub anchor2: Vec3,
    /// Axis in body 1's frame (unit).
    pub axis1: Vec3,
    /// Two unit vectors ⟂ axis, in body 1's frame.
    pub perp1: [Vec3; 2],
    /// Two unit vectors ⟂ axis, in body 2's frame.
    pub perp2: [Vec3; 2],
    /// Initial relative rotation `q_1⁻¹ q_2`.
    pub rel0: Quat,
    /// Optional compliance.
    pub compliance: Option<JointCompliance>,
    /// Impulses of the last solve per row slot (N·s or N·m·s), the warm start.
    pub lambda: [Real; 6],
    /// Constraint force on body 2 of the last step (N).
    pub force: Vec3,
    /// Constraint torque on body 2 about its anchor, last step (N·m).
    pub torque: Vec3,
    /// Joints of one group written one after another are one bilateral block, solved
    /// exactly within each PGS sweep (a beam's hinges: a chain whose rows are strongly
    /// coupled), up to [`MAX_GROUP_JOINTS`] joints per block.
    pub group: Option<u32>,
}

/// The most joints of one group in one block (its dense factor has (6 · this)² entries).
pub const MAX_GROUP_JOINTS: usize = 64;

impl Joint {
    /// Creates a joint at a world anchor with a world axis, from the bodies' current poses.
    /// The axis (any length; normalised) is used by revolute and prismatic joints; fixed and
    /// spherical joints ignore its direction. Err when the axis has no direction.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        kind: JointKind,
        bodies: &[RigidBody],
        body1: usize,
        body2: usize,
        anchor: Vec3,
        axis: Vec3,
        compliance: Option<JointCompliance>,
    ) -> Result<Joint, String> {
        let (p1, p2) = (&bodies[body1].pose, &bodies[body2].pose);
        let a = axis
            .try_normalize(1e-12)
            .filter(|a| a.iter().all(|x| x.is_finite()))
            .ok_or_else(|| format!("joint `{name}`: the axis {axis:?} has no direction"))?;
        let (u, w) = orthonormal_basis(&a);
        let to1 = |v: Vec3| p1.rotation.inverse() * v;
        let to2 = |v: Vec3| p2.rotation.inverse() * v;
        Ok(Joint {
            name,
            kind,
            body1,
            body2,
            anchor1: p1.inverse_transform_point(&anchor.into()).coords,
            anchor2: p2.inverse_transform_point(&anchor.into()).coords,
            axis1: to1(a),
            perp1: [to1(u), to1(w)],
            perp2: [to2(u), to2(w)],
            rel0: p1.rotation.inverse() * p2.rotation,
            compliance,
            lambda: [0.0; 6],
            force: Vec3::zeros(),
            torque: Vec3::zeros(),
            group: None,
        })
    }

    /// World positions of the two anchors (m).
    pub fn anchors(&self, bodies: &[RigidBody]) -> (Vec3, Vec3) {
        let a = bodies[self.body1].pose * nalgebra::Point3::from(self.anchor1);
        let b = bodies[self.body2].pose * nalgebra::Point3::from(self.anchor2);
        (a.coords, b.coords)
    }

    /// Relative-rotation error quaternion (world frame), with non-negative scalar part.
    fn rotation_error(&self, bodies: &[RigidBody]) -> Quat {
        let q1 = bodies[self.body1].pose.rotation;
        let q2 = bodies[self.body2].pose.rotation;
        let e = q2 * (q1 * self.rel0).inverse();
        if e.w < 0.0 {
            Quat::new_unchecked(-e.into_inner())
        } else {
            e
        }
    }

    /// The moment of a revolute joint's spring-damper on body 2 about the hinge axis,
    /// `−(k θ + c θ̇)` (N·m), and the spring's energy `k θ²/2` (J); `None` without a spring.
    pub fn spring_state(&self, bodies: &[RigidBody]) -> Option<(Real, Real)> {
        let JointKind::Revolute { spring: Some(sp) } = self.kind else {
            return None;
        };
        let theta = self.hinge_angle(bodies);
        let a = bodies[self.body1].pose.rotation * self.axis1;
        let rate = a.dot(&(bodies[self.body2].ang_vel - bodies[self.body1].ang_vel));
        Some((
            -(sp.stiffness * theta + sp.damping * rate),
            0.5 * sp.stiffness * theta * theta,
        ))
    }

    /// Hinge angle (rad) of a revolute joint relative to its initial configuration.
    pub fn hinge_angle(&self, bodies: &[RigidBody]) -> Real {
        let e = self.rotation_error(bodies);
        let a = bodies[self.body1].pose.rotation * self.axis1;
        2.0 * e.imag().dot(&a).atan2(e.w)
    }
}

/// Where one joint row is: (joint, slot, row).
#[derive(Debug, Clone, Copy)]
pub struct JointRow {
    /// Joint index.
    pub joint: usize,
    /// Row slot within the joint (index into `Joint::lambda`).
    pub slot: usize,
    /// Row index in the row set.
    pub row: usize,
}

/// A joint's row candidates `(slot, lin1, ang1, lin2, ang2, error, linear?)` by its kind, and
/// its hinge axis in the world frame (body 1's `axis1`).
fn candidate_rows(
    j: &Joint,
    bodies: &[RigidBody],
    a: &BodyMass,
    b: &BodyMass,
) -> (Vec<Candidate>, Vec3) {
    let (p1, p2) = j.anchors(bodies);
    let r1 = p1 - a.com;
    let r2 = p2 - b.com;
    let d = p2 - p1;
    let q1 = bodies[j.body1].pose.rotation;
    let q2 = bodies[j.body2].pose.rotation;
    let e = j.rotation_error(bodies);
    let ang_err = 2.0 * e.imag();
    let axis = q1 * j.axis1;
    let mut candidates: Vec<Candidate> = Vec::with_capacity(6);
    let point_rows = |c: &mut Vec<_>| {
        for (s, dir) in [Vec3::x(), Vec3::y(), Vec3::z()].into_iter().enumerate() {
            c.push((
                s,
                -dir,
                -r1.cross(&dir),
                dir,
                r2.cross(&dir),
                d.dot(&dir),
                true,
            ));
        }
    };
    let rotation_rows = |c: &mut Vec<_>| {
        for (s, dir) in [Vec3::x(), Vec3::y(), Vec3::z()].into_iter().enumerate() {
            c.push((
                3 + s,
                Vec3::zeros(),
                -dir,
                Vec3::zeros(),
                dir,
                ang_err.dot(&dir),
                false,
            ));
        }
    };
    match &j.kind {
        JointKind::Spherical => point_rows(&mut candidates),
        JointKind::Fixed => {
            point_rows(&mut candidates);
            rotation_rows(&mut candidates);
        }
        JointKind::Revolute { .. } => {
            point_rows(&mut candidates);
            for (s, perp) in j.perp2.iter().enumerate() {
                let b2 = q2 * perp;
                let g = b2.cross(&axis);
                candidates.push((
                    3 + s,
                    Vec3::zeros(),
                    -g,
                    Vec3::zeros(),
                    g,
                    axis.dot(&b2),
                    false,
                ));
            }
        }
        JointKind::Line(law) => {
            let len = d.norm();
            // A line of zero length has no direction: take body 2's side along +x.
            let n = if len > 1e-12 { d / len } else { Vec3::x() };
            candidates.push((
                0,
                n,
                r1.cross(&n),
                -n,
                -r2.cross(&n),
                law.rest_length - len,
                true,
            ));
        }
        JointKind::Prismatic => {
            let lever1 = p2 - a.com;
            for (s, perp) in j.perp1.iter().enumerate() {
                let t = q1 * perp;
                candidates.push((s, -t, -lever1.cross(&t), t, r2.cross(&t), t.dot(&d), true));
            }
            rotation_rows(&mut candidates);
        }
    }
    (candidates, axis)
}

/// A joint row before it is pushed: `(slot, lin1, ang1, lin2, ang2, error, linear?)`.
type Candidate = (usize, Vec3, Vec3, Vec3, Vec3, Real, bool);

/// Adds the rows of all joints. `beta`: Baumgarte factor; `h`: time step (s).
pub fn build_rows(
    joints: &[Joint],
    bodies: &[RigidBody],
    masses: &[BodyMass],
    h: Real,
    beta: Real,
    rows: &mut BodyRows,
    info: &mut Vec<JointRow>,
) {
    info.clear();
    let mut in_block = 0;
    for (ji, j) in joints.iter().enumerate() {
        let first = rows.rows.len();
        let (a, b) = (&masses[j.body1], &masses[j.body2]);
        let (candidates, axis) = candidate_rows(j, bodies, a, b);
        if let JointKind::Line(law) = &j.kind {
            for (slot, l1, a1, l2, a2, err, _) in candidates {
                let (eps, bias) = law.row(err, h, beta);
                push_row(rows, info, a, b, (l1, a1), (l2, a2), bias, eps, j, ji, slot);
            }
            if rows.rows.len() > first {
                rows.blocks.push(Block {
                    start: first,
                    kind: BlockKind::Unilateral,
                });
            }
            in_block = 0;
            continue;
        }
        for (slot, l1, a1, l2, a2, err, linear) in candidates {
            let (eps, bias) = match (&j.compliance, linear) {
                (Some(c), true) => spring_row(c.linear_stiffness, c.linear_damping, h, err),
                (Some(c), false) => spring_row(c.angular_stiffness, c.angular_damping, h, err),
                (None, _) => (0.0, beta * err / h),
            };
            push_row(rows, info, a, b, (l1, a1), (l2, a2), bias, eps, j, ji, slot);
        }
        if let JointKind::Revolute { spring: Some(sp) } = j.kind {
            let (eps, bias) = hinge_spring_row(j, &sp, bodies, (a, b), axis, h);
            let z = Vec3::zeros();
            push_row(rows, info, a, b, (z, -axis), (z, axis), bias, eps, j, ji, 5);
        }
        // All rows of the joint form one block, solved exactly within each PGS sweep; a
        // joint of the previous joint's group joins its block.
        let len = rows.rows.len() - first;
        if len > 0 {
            let same = ji > 0 && j.group.is_some() && joints[ji - 1].group == j.group;
            in_block = push_block(rows, first, len, same, in_block);
        }
    }
}

/// Adds the block of rows `first..first + len`, or extends the last block with them when
/// `same` (the joint is of the previous joint's group) and that block holds fewer than
/// [`MAX_GROUP_JOINTS`] joints (`in_block` of them, counted from 0). Returns the new count.
fn push_block(rows: &mut BodyRows, first: usize, len: usize, same: bool, in_block: usize) -> usize {
    if same && in_block + 1 < MAX_GROUP_JOINTS {
        if let Some(Block {
            start,
            kind: BlockKind::Bilateral { len: l },
        }) = rows.blocks.last_mut()
        {
            if *start + *l == first {
                *l += len;
                return in_block + 1;
            }
        }
    }
    rows.blocks.push(Block {
        start: first,
        kind: BlockKind::Bilateral { len },
    });
    0
}

/// The compliance and bias of the spring row of hinge `j` (axis `axis`, world) between the
/// bodies of masses `(a, b)`, step `h` (s).
fn hinge_spring_row(
    j: &Joint,
    sp: &HingeSpring,
    bodies: &[RigidBody],
    (a, b): (&BodyMass, &BodyMass),
    axis: Vec3,
    h: Real,
) -> (Real, Real) {
    let theta = j.hinge_angle(bodies);
    let (k, c) = (sp.stiffness, sp.damping);
    if sp.conservative {
        // The hinge rate at the start of the step (rad/s).
        let u = axis.dot(&(b.ang_vel - a.ang_vel));
        conservative_spring_row(k, c, h, theta, u)
    } else {
        spring_row(k, c, h, theta)
    }
}

#[allow(clippy::too_many_arguments)]
fn push_row(
    rows: &mut BodyRows,
    info: &mut Vec<JointRow>,
    a: &BodyMass,
    b: &BodyMass,
    ja: (Vec3, Vec3),
    jb: (Vec3, Vec3),
    bias: Real,
    eps: Real,
    j: &Joint,
    ji: usize,
    slot: usize,
) {
    let row = rows.rows.len();
    rows.push(a, ja, b, jb, bias, eps, j.lambda[slot]);
    if rows.rows[row].diag <= 1e-14 * (1.0 + eps) && eps == 0.0 {
        // Direction without effective mass (planar lock or no DOFs): drop the row.
        rows.rows.pop();
        rows.warm.pop();
        return;
    }
    info.push(JointRow {
        joint: ji,
        slot,
        row,
    });
}

/// Stores the impulses and the force/torque on body 2 after the solve (`h` in s).
pub fn read_impulses(
    joints: &mut [Joint],
    rows: &BodyRows,
    info: &[JointRow],
    lambda: &[Real],
    h: Real,
) {
    for j in joints.iter_mut() {
        j.lambda = [0.0; 6];
        j.force = Vec3::zeros();
        j.torque = Vec3::zeros();
    }
    for r in info {
        let l = lambda[r.row];
        let j = &mut joints[r.joint];
        j.lambda[r.slot] = l;
        let s = &rows.rows[r.row].sides[1];
        j.force += s.lin * (l / h);
        j.torque += s.ang * (l / h);
    }
}
