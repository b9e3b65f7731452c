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
//! rest, add nothing to the bias. The row value is `w_i = J_i v⁺ + (β / h) g_i + ε λ_i`.
//!
//! **Wall rows.** Each boundary particle b with fluid neighbours has a row of its own: its
//! density `ρ_b/ρ0 = Σ_{walls} V W + Σ_{fluid} V W_bj`, `ġ_b = Σ_j V ∇_b W_bj · v_j` (the wall does
//! not move), i.e. `c_bj = V ∇_b W_bj` on each fluid neighbour. Its multiplier is the wall
//! pressure: the fluid–wall force takes the symmetric form `(p_i + p_b)` of the fluid–fluid one,
//! so the wall pushes along its normal (without these rows a wall acts only through the fluid
//! particle's own row, along `s_i`: diagonally in corners, and with twice the pressure next to
//! the wall). Row kinds:
//!
//! - unilateral (001): `w_i ≥ 0`, `λ_i ≥ 0`, complementary — the density may not grow faster
//!   than the target rate `(β/h)(−g_i)`; free-surface particles (`g_i > 0`) need no detection;
//! - bilateral (KCSPH, 004 eq. 36): `w_i = 0`, λ free. At the free surface `g_i > 0` would pull
//!   particles together, so the position term uses `min(g_i, 0)` there.
//!
//! **Pressure.** Row i's impulse λ_i (N·s·m) gives the force `J_iᵀ λ_i / h` on the particles it
//! touches; summed over rows, particle i feels `−(1/h) Σ_j (λ_i + λ_j) V ∇_i W_ij`, the symmetric
//! SPH pressure force `−V t Σ_j V (p_i + p_j) ∇_i W_ij` with `p = λ / (h V t)` (`t` the planar
//! thickness, 1 in 3D) — 004's "pressure = multiplier / volume". [`super::Fluid`] reports
//! `κ λ / (h V t)` with the lattice gradient moment κ.
//!
//! **Moving walls (bodies).** A boundary particle b fixed to a body B moves with
//! `v_b = V_B + ω_B × r_b` (`r_b` from B's centre of mass). The term `c_ib · v_b` of fluid row i
//! then puts the 6-vector `(c_ib, r_b × c_ib)` on B's DOFs, and b's own wall row puts
//! `(−Σ_j c_bj, r_b × (−Σ_j c_bj))` there ([`BodyEntry`], summed per body and row). Bodies
//! without DOFs (kinematic) move their known velocity into the bias instead. The fluid force on
//! B is `(1/h) Σ_k λ_k (lin_k, ang_k)` over these entries: the symmetric pressure force
//! `−Σ_j V (p_b + p_j) ∇_b W_bj` summed over B's boundary particles, torque about B's centre of
//! mass. This is what makes the coupling strong: body and fluid rows share one solve.
//!
//! **Contact rows (fluid particles as spheres, after 001 §4.2).** Density rows are inactive
//! where the density is deficient — at free surfaces and thin fronts — so nothing there keeps two
//! particles apart, nor a particle out of a wall. A pair of fluid particles closer than
//! `d_ff + margin` gets the unilateral row `n · (v_i − v_j) + b ≥ 0` with `n` the unit vector from
//! j to i and the gap `g = r − d_ff`; a fluid particle closer than `d_fb + margin` to a boundary
//! particle gets the same row against it (and, for a body, `(−n, −r_b × n)` on the body). The bias
//! is speculative, `b = g/h`, for `g ≥ 0` (the pair may close the gap in one step, no more) and
//! Baumgarte, `b = 0.2 g/h`, for `g < 0`. Rows are built for pairs closer than the contact
//! distance plus `0.15 l`.
//!
//! - Fluid–wall: `d_fb = l` ([`super::WALL_CONTACT`]), 001's value: the particles are spheres of
//!   diameter l, so a fluid centre stays l/2 outside a wall whose boundary particles sit l/2
//!   inside it. Without it, surface particles — whose density rows are inactive — creep into
//!   the half-spacing gap along walls: in the 3D floating-cylinder tank (5 layers deep) the
//!   fluid spread by l/2 across its depth and the free surface dropped by a spacing; with
//!   `d_fb = 0.75 l` the buoyancy test's submerged fractions were 0.012 low, with `l` within
//!   0.009. At rest these rows sit at zero gap next to the walls and share load with the wall
//!   rows there (hydrostatic centre-line pressure error 2.2 % against 1.5 %).
//! - Fluid–fluid: `d_ff = 0.3 l` ([`super::FLUID_CONTACT`]): it bounds clumping at thin fronts
//!   (no two particles closer than 0.3 l) without touching ordinary flow; 0.5 l already carries
//!   load in a disordered tank, load missing from the pressure read from the density rows
//!   (hydrostatic test 3.8 %). 001 has no fluid–fluid contacts.
//!
//! Products: `(J v)_i` is a gather over i's neighbours; `(Jᵀ λ)_k = s_k λ_k − Σ_j c_kj λ_j`
//! (because `c_jk = −c_kj` for equal volumes) is a gather too: both run in parallel without
//! atomics and give the same result for any thread count.

use crate::math::{Real, Vec3};
use crate::solver::{Block, BlockKind, RowSet};
use rayon::prelude::*;

/// Below this many rows the products run on one thread: waking the pool for a few hundred
/// rows costs more than the work (the 625-particle tank test: 80 s with 66 s of system time
/// before, 55 s with 2 s after).
pub const PARALLEL_MIN_ROWS: usize = 4096;

/// A row's Jacobian on one body with DOFs: `(lin, ang)` and `M⁻¹ Jᵀ`.
#[derive(Debug, Clone, Copy)]
pub struct BodyEntry {
    /// Body index in the world.
    pub body: u32,
    /// Offset of the body's 6 DOFs in the velocity vector.
    pub dof: u32,
    /// Jacobian, linear part (1/m).
    pub lin: Vec3,
    /// Jacobian, angular part (dimensionless).
    pub ang: Vec3,
    /// `M⁻¹ lin`.
    pub mlin: Vec3,
    /// `I⁻¹ ang`.
    pub mang: Vec3,
}

/// The density rows of one step: fluid rows `0..nf`, then wall rows.
#[derive(Debug, Default, Clone)]
pub struct DensityRows {
    /// Number of fluid rows (one per fluid particle).
    pub nf: usize,
    /// Number of wall rows (after the fluid rows); contact rows follow them and share the
    /// wall rows' storage (`bstart`, `bnbr`, `bcoef`).
    pub nwall: usize,
    /// Wall rows: `bstart[r]..bstart[r + 1]` index `bnbr` / `bcoef` (fluid neighbours, `c_bj`).
    pub bstart: Vec<u32>,
    /// Fluid neighbours of the wall rows.
    pub bnbr: Vec<u32>,
    /// `c_bj` aligned with `bnbr` (1/m).
    pub bcoef: Vec<Vec3>,
    /// For each fluid particle's boundary neighbour (aligned with the fluid's boundary
    /// neighbour list): the wall row index (or `u32::MAX`) and `c_bk` (1/m).
    pub fb_start: Vec<u32>,
    /// Wall row of each boundary neighbour.
    pub fb_row: Vec<u32>,
    /// `c_bk` of each boundary neighbour.
    pub fb_coef: Vec<Vec3>,
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
    /// Body entries of row k: `body_start[k]..body_start[k + 1]` in `body_entries` (empty
    /// when no body with DOFs is near).
    pub body_start: Vec<u32>,
    /// Rows' Jacobians on bodies.
    pub body_entries: Vec<BodyEntry>,
}

impl DensityRows {
    /// Row `k`'s fluid neighbours and coefficients (fluid or wall row).
    #[inline]
    fn entries(&self, k: usize) -> (&[u32], &[Vec3]) {
        if k < self.nf {
            let (a, b) = (self.start[k] as usize, self.start[k + 1] as usize);
            (&self.nbr[a..b], &self.coef[a..b])
        } else {
            let r = k - self.nf;
            let (a, b) = (self.bstart[r] as usize, self.bstart[r + 1] as usize);
            (&self.bnbr[a..b], &self.bcoef[a..b])
        }
    }

    /// Sets the block kinds (one per row) for `n` rows: density and wall rows unilateral or
    /// bilateral, contact rows unilateral.
    pub fn set_blocks(&mut self, n: usize, unilateral: bool) {
        self.blocks.clear();
        let kind = if unilateral {
            BlockKind::Unilateral
        } else {
            BlockKind::Bilateral { len: 1 }
        };
        let ndens = self.nf + self.nwall;
        self.blocks.extend((0..n).map(|start| Block {
            start,
            kind: if start < ndens {
                kind
            } else {
                BlockKind::Unilateral
            },
        }));
    }

    /// Row `k`'s body entries.
    #[inline]
    pub fn on_bodies(&self, k: usize) -> &[BodyEntry] {
        if self.body_entries.is_empty() {
            return &[];
        }
        &self.body_entries[self.body_start[k] as usize..self.body_start[k + 1] as usize]
    }

    #[inline]
    fn vel(&self, v: &[Real], p: usize) -> Vec3 {
        let o = self.dof0 + 3 * p;
        Vec3::new(v[o], v[o + 1], v[o + 2])
    }
}

impl RowSet for DensityRows {
    fn len(&self) -> usize {
        self.diag.len()
    }
    fn blocks(&self) -> &[Block] {
        &self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        let mut s = if k < self.nf {
            self.self_coef[k].dot(&self.vel(v, k))
        } else {
            0.0
        };
        let (nbr, coef) = self.entries(k);
        for (j, c) in nbr.iter().zip(coef) {
            s += c.dot(&self.vel(v, *j as usize));
        }
        for e in self.on_bodies(k) {
            let o = e.dof as usize;
            s += e.lin.dot(&Vec3::new(v[o], v[o + 1], v[o + 2]))
                + e.ang.dot(&Vec3::new(v[o + 3], v[o + 4], v[o + 5]));
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
        if k < self.nf {
            add(k, &self.self_coef[k]);
        }
        let (nbr, coef) = self.entries(k);
        for (j, c) in nbr.iter().zip(coef) {
            add(*j as usize, c);
        }
        for e in self.on_bodies(k) {
            let o = e.dof as usize;
            for a in 0..3 {
                v[o + a] += dl * e.mlin[a];
                v[o + 3 + a] += dl * e.mang[a];
            }
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
    fn compliance(&self, k: usize) -> Real {
        if k < self.nf + self.nwall {
            self.compliance
        } else {
            0.0
        }
    }
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        if out.len() < PARALLEL_MIN_ROWS {
            out.iter_mut()
                .enumerate()
                .for_each(|(k, o)| *o = self.jv(k, v));
        } else {
            out.par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(|(k, o)| *o = self.jv(k, v));
        }
    }
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        let n = self.nf;
        let part = &mut v[self.dof0..self.dof0 + 3 * n];
        let gather = |(k, vk): (usize, &mut [Real])| {
            let mut f = self.self_coef[k] * lambda[k];
            for e in self.start[k] as usize..self.start[k + 1] as usize {
                f -= self.coef[e] * lambda[self.nbr[e] as usize];
            }
            for e in self.fb_start[k] as usize..self.fb_start[k + 1] as usize {
                let r = self.fb_row[e];
                if r != u32::MAX {
                    f += self.fb_coef[e] * lambda[self.nf + r as usize];
                }
            }
            for a in 0..3 {
                vk[a] += self.minv[a] * f[a];
            }
        };
        if n < PARALLEL_MIN_ROWS {
            part.chunks_mut(3).enumerate().for_each(gather);
        } else {
            part.par_chunks_mut(3)
                .enumerate()
                .with_min_len(256)
                .for_each(gather);
        }
        // Contact rows: few, scattered serially in row order.
        let first = self.nf + self.nwall;
        for (k, &l) in lambda.iter().enumerate().take(self.diag.len()).skip(first) {
            let (nbr, coef) = self.entries(k);
            for (j, c) in nbr.iter().zip(coef) {
                let o = self.dof0 + 3 * *j as usize;
                for a in 0..3 {
                    v[o + a] += l * self.minv[a] * c[a];
                }
            }
        }
        // Bodies receive from many rows: a serial sum in row order (thread-count independent).
        if !self.body_entries.is_empty() {
            for (k, &l) in lambda.iter().enumerate().take(self.diag.len()) {
                for e in self.on_bodies(k) {
                    let o = e.dof as usize;
                    for a in 0..3 {
                        v[o + a] += l * e.mlin[a];
                        v[o + 3 + a] += l * e.mang[a];
                    }
                }
            }
        }
    }
}
