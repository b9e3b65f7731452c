//! Storage of the rows that touch at most two bodies: rigid contacts with friction
//! ([`super::contact`]) and joints ([`super::joint`]) write into one [`BodyRows`], in that order.

use super::body_jacobian::BodyJacobian;
use super::BodyMass;
use crate::math::{Real, Vec3};
use crate::solver::{Block, BlockKind, RowSet};

/// A row on at most two bodies.
#[derive(Debug, Clone, Copy)]
pub struct BodyRow {
    /// The Jacobians on the two bodies.
    pub sides: [BodyJacobian; 2],
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
            let jac = BodyJacobian::new(m, lin, ang);
            if !jac.has_dofs() {
                bias += jac.known_velocity(m);
            }
            jac
        };
        let sides = [side(a, ja), side(b, jb)];
        let diag: Real = sides
            .iter()
            .filter(|s| s.has_dofs())
            .map(|s| s.diag())
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
            if side.has_dofs() {
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
            if side.has_dofs() {
                side.apply(dl, v);
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
                if a.has_dofs() && a.dof == b.dof {
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
