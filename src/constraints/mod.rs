//! Constraint row families. Each family turns the current state into velocity-level rows
//! `w = J v⁺ + b + ε λ` (see [`crate::solver`]) and reads its impulses back after the solve.
//!
//! Rigid rows touch at most two bodies: the Jacobian of a row on a body is a 6-vector
//! `(c, r × c)` for a direction `c` at lever arm `r`, because `c · (V + ω × r) = c·V + (r × c)·ω`.
//! Static and kinematic bodies carry no degrees of freedom; a kinematic body's known velocity is
//! moved into the bias.
//!
//! Families: [`contact`] (normal with restitution and Baumgarte bias, Coulomb friction) and
//! [`joint`] (fixed, spherical, revolute, prismatic; optionally compliant).

pub mod contact;
pub mod joint;

use crate::body::{linear_mask, Dofs, RigidBody};
use crate::math::{Mat3, Real, Vec3};
use crate::solver::{Block, BlockKind, RowSet};

/// "No degrees of freedom" marker for a row side.
pub const NO_DOF: u32 = u32::MAX;

/// Inverse-mass data of a body as the rows see it.
#[derive(Debug, Clone, Copy)]
pub struct BodyMass {
    /// Offset of the body's 6 DOFs in the velocity vector, or [`NO_DOF`].
    pub dof: u32,
    /// 1/m per linear direction (masked for planar bodies), 1/kg.
    pub inv_mass: Vec3,
    /// World inverse inertia (masked), 1/(kg·m²).
    pub inv_inertia: Mat3,
    /// Current centre of mass (m).
    pub com: Vec3,
    /// Velocity used for bodies without DOFs (kinematic), m/s and rad/s.
    pub lin_vel: Vec3,
    /// Angular velocity (world) for bodies without DOFs.
    pub ang_vel: Vec3,
}

impl BodyMass {
    /// Builds the mass data of all bodies and assigns DOF offsets to dynamic ones.
    pub fn of(bodies: &[RigidBody], dofs: Dofs, out: &mut Vec<BodyMass>) -> usize {
        out.clear();
        let mut n = 0u32;
        for b in bodies {
            let dynamic = b.is_dynamic();
            out.push(BodyMass {
                dof: if dynamic { n } else { NO_DOF },
                inv_mass: linear_mask(dofs) * b.inv_mass,
                inv_inertia: b.inv_inertia_world(dofs),
                com: b.com(),
                lin_vel: b.lin_vel,
                ang_vel: b.ang_vel,
            });
            if dynamic {
                n += 6;
            }
        }
        n as usize
    }
}

/// One side of a row: DOF offset, Jacobian `(lin, ang)` and `M⁻¹ Jᵀ`.
#[derive(Debug, Clone, Copy)]
pub struct Side {
    /// DOF offset or [`NO_DOF`].
    pub dof: u32,
    /// Jacobian, linear part.
    pub lin: Vec3,
    /// Jacobian, angular part.
    pub ang: Vec3,
    /// `M⁻¹ Jᵀ`, linear part.
    pub mlin: Vec3,
    /// `M⁻¹ Jᵀ`, angular part.
    pub mang: Vec3,
}

/// A row on at most two bodies.
#[derive(Debug, Clone, Copy)]
pub struct BodyRow {
    /// The two sides.
    pub sides: [Side; 2],
    /// `J M⁻¹ Jᵀ`.
    pub diag: Real,
    /// Bias b (m/s or rad/s).
    pub bias: Real,
    /// Compliance ε.
    pub compliance: Real,
}

/// All two-body rows of a step, in blocks.
#[derive(Debug, Default, Clone)]
pub struct BodyRows {
    /// The rows.
    pub rows: Vec<BodyRow>,
    /// The blocks.
    pub blocks: Vec<Block>,
    /// Warm-start impulses, one per row.
    pub warm: Vec<Real>,
}

impl BodyRows {
    /// Removes all rows.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.blocks.clear();
        self.warm.clear();
    }

    /// Starts a block of the given kind at the next row.
    pub fn begin_block(&mut self, kind: BlockKind) {
        self.blocks.push(Block {
            start: self.rows.len(),
            kind,
        });
    }

    /// Adds a row between `a` and `b` with direction Jacobians `(lin_a, ang_a)`, `(lin_b, ang_b)`.
    /// The known velocity of a side without DOFs goes into the bias.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        a: &BodyMass,
        ja: (Vec3, Vec3),
        b: &BodyMass,
        jb: (Vec3, Vec3),
        bias: Real,
        compliance: Real,
        warm: Real,
    ) {
        let mut bias = bias;
        let mut side = |m: &BodyMass, (lin, ang): (Vec3, Vec3)| {
            if m.dof == NO_DOF {
                bias += lin.dot(&m.lin_vel) + ang.dot(&m.ang_vel);
            }
            Side {
                dof: m.dof,
                lin,
                ang,
                mlin: m.inv_mass.component_mul(&lin),
                mang: m.inv_inertia * ang,
            }
        };
        let sides = [side(a, ja), side(b, jb)];
        let diag: Real = sides
            .iter()
            .filter(|s| s.dof != NO_DOF)
            .map(|s| s.lin.dot(&s.mlin) + s.ang.dot(&s.mang))
            .sum();
        self.rows.push(BodyRow {
            sides,
            diag,
            bias,
            compliance,
        });
        self.warm.push(warm);
    }
}

impl RowSet for BodyRows {
    fn len(&self) -> usize {
        self.rows.len()
    }
    fn blocks(&self) -> &[Block] {
        &self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        let mut s = 0.0;
        for side in &self.rows[k].sides {
            if side.dof != NO_DOF {
                let o = side.dof as usize;
                let d = &v[o..o + 6];
                s += side.lin.x * d[0] + side.lin.y * d[1] + side.lin.z * d[2];
                s += side.ang.x * d[3] + side.ang.y * d[4] + side.ang.z * d[5];
            }
        }
        s
    }
    #[inline]
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        for side in &self.rows[k].sides {
            if side.dof != NO_DOF {
                let o = side.dof as usize;
                let d = &mut v[o..o + 6];
                for i in 0..3 {
                    d[i] += dl * side.mlin[i];
                    d[3 + i] += dl * side.mang[i];
                }
            }
        }
    }
    fn diag(&self, k: usize) -> Real {
        self.rows[k].diag
    }
    fn coupling(&self, k: usize, l: usize) -> Real {
        let mut s = 0.0;
        for a in &self.rows[k].sides {
            for b in &self.rows[l].sides {
                if a.dof != NO_DOF && a.dof == b.dof {
                    s += a.lin.dot(&b.mlin) + a.ang.dot(&b.mang);
                }
            }
        }
        s
    }
    fn bias(&self, k: usize) -> Real {
        self.rows[k].bias
    }
    fn compliance(&self, k: usize) -> Real {
        self.rows[k].compliance
    }
}

/// Turns a spring-damper (stiffness `k`, damping `c`) acting on a constraint error `C` into
/// the row compliance and bias of an implicit (backward Euler) step of length `h`:
/// the impulse `λ = −h (k C⁺ + c Ċ⁺)` with `C⁺ = C + h J v⁺` gives
/// `J v⁺ + k C / (h k + c) + λ / (h (h k + c)) = 0`, i.e. `ε = 1 / (h (h k + c))`,
/// `b = k C / (h k + c)`. As `k → ∞` this tends to the rigid row with full position correction.
pub fn spring_row(k: Real, c: Real, h: Real, err: Real) -> (Real, Real) {
    let denom = h * k + c;
    (1.0 / (h * denom), k * err / denom)
}
