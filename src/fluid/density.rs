//! Density rows: one velocity-level row per fluid particle (001 §3, 004 eqs. 35–38).
//!
//! With particle volumes `V_j` (m^d, all equal to `1/n0`, see [`super::Fluid`]) the normalised
//! density is `ρ_i / ρ0 = Σ_j V_j W_ij` (self included, boundary particles included) and the gap
//! `g_i = 1 − ρ_i / ρ0` (dimensionless; negative when compressed). Its rate is
//!
//! `ġ_i = −Σ_j V_j ∇_i W_ij · (v_i − v_j)`,
//!
//! so the row has `s_i = −Σ_j V_j ∇_i W_ij` on particle i and `c_ij = V_j ∇_i W_ij` on each
//! fluid neighbour j (1/m); static boundary neighbours carry no degrees of freedom and, being at
//! rest, add nothing to the bias. The row value is `w_i = J_i v⁺ + (β / h) g_i + ε λ_i`:
//!
//! - unilateral (001): `w_i ≥ 0`, `λ_i ≥ 0`, complementary — the density may not grow faster
//!   than the target rate `(β/h)(−g_i)`; free-surface particles (`g_i > 0`) need no detection;
//! - bilateral (KCSPH, 004 eq. 36): `w_i = 0`, λ free. At the free surface `g_i > 0` would pull
//!   particles together, so the position term uses `min(g_i, 0)` there.
//!
//! The impulse λ_i (kg·m^(2−d)... see below) gives the force `J_iᵀ λ_i / h`; matching the
//! symmetric SPH pressure force `−Σ_j m V (p_i + p_j)/ρ0 ... ` gives the pressure
//! `p_i = λ_i / (h V_i t)` (Pa), with `t` the planar thickness (1 in 3D) — 004: pressure =
//! multiplier / volume.
//!
//! Products: `(J v)_i` is a gather over i's neighbours; `(Jᵀ λ)_k = s_k λ_k − Σ_j c_kj λ_j`
//! (because `c_jk = −c_kj` for equal volumes) is a gather too: both run in parallel without
//! atomics and give the same result for any thread count.

use crate::math::{Real, Vec3};
use crate::solver::{Block, BlockKind, RowSet};
use rayon::prelude::*;

/// The density rows of one step.
#[derive(Debug, Default, Clone)]
pub struct DensityRows {
    /// Offset of particle 0's DOFs in the velocity vector.
    pub dof0: usize,
    /// `M⁻¹` of a particle per axis (1/kg), z masked in planar models.
    pub minv: Vec3,
    /// `s_i` per row (1/m).
    pub self_coef: Vec<Vec3>,
    /// `start[i]..start[i + 1]`: fluid neighbours of row i in `nbr` / `coef`.
    pub start: Vec<u32>,
    /// Fluid neighbour indices.
    pub nbr: Vec<u32>,
    /// `c_ij` aligned with `nbr` (1/m).
    pub coef: Vec<Vec3>,
    /// `J_i M⁻¹ J_iᵀ`.
    pub diag: Vec<Real>,
    /// Bias `(β/h) g_i` (1/s).
    pub bias: Vec<Real>,
    /// Compliance ε (s/kg-like units of the row).
    pub compliance: Real,
    /// One block per row.
    pub blocks: Vec<Block>,
}

impl DensityRows {
    /// Sets the block kinds (one per row) for `n` rows.
    pub fn set_blocks(&mut self, n: usize, unilateral: bool) {
        self.blocks.clear();
        let kind = if unilateral { BlockKind::Unilateral } else { BlockKind::Bilateral { len: 1 } };
        self.blocks.extend((0..n).map(|start| Block { start, kind }));
    }

    #[inline]
    fn vel(&self, v: &[Real], p: usize) -> Vec3 {
        let o = self.dof0 + 3 * p;
        Vec3::new(v[o], v[o + 1], v[o + 2])
    }
}

impl RowSet for DensityRows {
    fn len(&self) -> usize {
        self.self_coef.len()
    }
    fn blocks(&self) -> &[Block] {
        &self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        let mut s = self.self_coef[k].dot(&self.vel(v, k));
        for e in self.start[k] as usize..self.start[k + 1] as usize {
            s += self.coef[e].dot(&self.vel(v, self.nbr[e] as usize));
        }
        s
    }
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        let mut add = |p: usize, c: &Vec3| {
            let o = self.dof0 + 3 * p;
            for a in 0..3 {
                v[o + a] += dl * self.minv[a] * c[a];
            }
        };
        add(k, &self.self_coef[k]);
        for e in self.start[k] as usize..self.start[k + 1] as usize {
            add(self.nbr[e] as usize, &self.coef[e]);
        }
    }
    fn diag(&self, k: usize) -> Real {
        self.diag[k]
    }
    fn coupling(&self, k: usize, l: usize) -> Real {
        assert_eq!(k, l, "density rows are blocks of one row");
        self.diag[k]
    }
    fn bias(&self, k: usize) -> Real {
        self.bias[k]
    }
    fn compliance(&self, _k: usize) -> Real {
        self.compliance
    }
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        out.par_iter_mut().enumerate().for_each(|(k, o)| *o = self.jv(k, v));
    }
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        let n = self.len();
        let part = &mut v[self.dof0..self.dof0 + 3 * n];
        part.par_chunks_mut(3).enumerate().for_each(|(k, vk)| {
            let mut f = self.self_coef[k] * lambda[k];
            for e in self.start[k] as usize..self.start[k + 1] as usize {
                f -= self.coef[e] * lambda[self.nbr[e] as usize];
            }
            for a in 0..3 {
                vk[a] += self.minv[a] * f[a];
            }
        });
    }
}
