//! Density rows: one velocity-level row per fluid particle (001 §3, 004 eqs. 35–38), and —
//! in the same storage — the wall rows of boundary particles ([`super::wall`]).
//!
//! With particle volumes `V_j` (m^d, all equal to `1/n0`, see [`crate::fluid::Fluid`]) the normalised
//! density is `ρ_i / ρ0 = Σ_j V_j W_ij` (self included, boundary particles included) and the gap
//! `g_i = 1 − ρ_i / ρ0` (dimensionless; negative when compressed). Its rate is
//!
//! `ġ_i = −Σ_j V_j ∇_i W_ij · (v_i − v_j)`,
//!
//! so the row has `s_i = −Σ_j V_j ∇_i W_ij` on particle i and `c_ij = V_j ∇_i W_ij` on each
//! fluid neighbour j (1/m); static boundary neighbours carry no degrees of freedom and, being at
//! rest, add nothing to the bias. The row value is `w_i = J_i v⁺ + (β / h) g_i + ε λ_i`.
//!
//! - unilateral (001): `w_i ≥ 0`, `λ_i ≥ 0`, complementary — the density may not grow faster
//!   than the target rate `(β/h)(−g_i)`; free-surface particles (`g_i > 0`) need no detection;
//! - bilateral (KCSPH, 004 eq. 36): `w_i = 0`, λ free. At the free surface `g_i > 0` would pull
//!   particles together, so the position term uses `min(g_i, 0)` there.
//!
//! **Warm start.** Each row starts from its impulse of the last step, capped so that it alone
//! moves its particles by at most a spacing in the step: `|λ| ≤ (l / h) √(m / J M⁻¹ Jᵀ)`
//! (`‖M⁻¹ Jᵀ λ‖ = |λ| √(J M⁻¹ Jᵀ / m)`, m a particle's mass). A row that barely touches its
//! particles (a neighbour at the edge of the kernel's support) needs a large impulse for a small
//! push, and when that neighbour then moves in, the same impulse is a blow: a wall row with
//! `J M⁻¹ Jᵀ` 9e-7 against about 1e5 in a full neighbourhood carried 5.6e8 N·s·m into the next
//! step and threw its neighbours out at 7 m/s (the small KCSPH dam break of `tests/fluid.rs`,
//! 2026-11-28: the APGD solve's residual went from 0.04 to 66 in one step, the largest
//! compression to 1.2 %). In ordinary flow the cap is far above the impulses (water 0.5 m deep
//! at l = 2 cm: 0.13 m/s of 20).
//!
//! **Pressure.** Row i's impulse λ_i (N·s·m) gives the force `J_iᵀ λ_i / h` on the particles it
//! touches; summed over rows, particle i feels `−(1/h) Σ_j (λ_i + λ_j) V ∇_i W_ij`, the symmetric
//! SPH pressure force `−V t Σ_j V (p_i + p_j) ∇_i W_ij` with `p = λ / (h V t)` (`t` the planar
//! thickness, 1 in 3D) — 004's "pressure = multiplier / volume". [`DensityRows::read_back`] reports
//! `κ λ / (h V t)` with the lattice gradient moment κ.
//!
//! **Moving walls (bodies).** A boundary particle b fixed to a body B moves with
//! `v_b = V_B + ω_B × r_b` (`r_b` from B's centre of mass). The term `c_ib · v_b` of fluid row i
//! then puts the 6-vector `(c_ib, r_b × c_ib)` on B's DOFs, and b's own wall row puts
//! `(−Σ_j c_bj, r_b × (−Σ_j c_bj))` there ([`super::BodyEntry`], summed per body and row). Bodies
//! without DOFs (kinematic) move their known velocity into the bias instead. The fluid force on
//! B is `(1/h) Σ_k λ_k (lin_k, ang_k)` over these entries: the symmetric pressure force
//! `−Σ_j V (p_b + p_j) ∇_b W_bj` summed over B's boundary particles, torque about B's centre of
//! mass. This is what makes the coupling strong: body and fluid rows share one solve.
//!
//! Products: `(J v)_i` is a gather over i's neighbours; `(Jᵀ λ)_k = s_k λ_k − Σ_j c_kj λ_j`
//! (because `c_jk = −c_kj` for equal volumes) is a gather too: both run in parallel without
//! atomics and give the same result for any thread count.

use super::density_pairs::{Former, PairCoefficients};
use super::{BodyEntries, BodyMass, RowFamily, VelocityLayout};
use crate::fluid::grid::Neighbours;
use crate::fluid::{DensityMethod, Fluid, PARALLEL_MIN_ROWS};
use crate::math::{Real, Vec3};
use crate::solver::{Block, BlockKind, Coloured, Colouring, PointColumns, RowSet};
use rayon::prelude::*;

mod fluid_rows;
mod products;
pub(crate) use fluid_rows::FilterPass;

/// Rows per block when the density rows are built in parallel.
pub(super) const ROW_BLOCK: usize = 512;

/// The density rows of one step: fluid rows `0..nf`, then wall rows ([`super::wall`]).
#[derive(Debug, Default, Clone)]
pub struct DensityRows {
    /// Number of fluid rows (one per fluid particle).
    pub nf: usize,
    /// Number of wall rows (after the fluid rows).
    pub nwall: usize,
    /// Wall rows: `bstart[r]..bstart[r + 1]` index `bcoef` (`c_bj` of the fluid neighbours
    /// [`DensityRows::wall_nbrs`]); they are the entries of `bf` of the row's boundary particle.
    pub bstart: crate::csr::RowStarts,
    /// The boundary particles' fluid neighbour lists the wall rows were built from (the
    /// fluid's, shared as `ff` is; released with it).
    pub bf: Neighbours,
    /// `c_bj` aligned with `bf`'s entries (1/m), when the rows store their coefficients.
    pub bcoef: Vec<Vec3>,
    /// For each fluid particle's boundary neighbour (aligned with the fluid's boundary
    /// neighbour list): the wall row index (or `u32::MAX`) and where `c_bk` is in `bcoef`.
    pub fb_start: crate::csr::RowStarts,
    /// Wall row of each boundary neighbour.
    pub fb_row: Vec<u32>,
    /// Index into `bcoef` of each boundary neighbour's `c_bk` (1/m; its wall row's entry for
    /// this fluid particle: the same number, the gradient being odd in `x_b − x_k`). One index
    /// instead of a copy of the coefficient: 4 bytes per fluid–wall pair instead of 24. Empty
    /// when the rows form their coefficients ([`DensityRows::fb_coef`] forms it).
    pub fb_at: Vec<u32>,
    /// Per fluid particle: how many of its boundary neighbours [`DensityRows::link_walls`] has
    /// placed (scratch).
    pub(super) fb_cursor: Vec<u32>,
    /// Wall row of each boundary particle this step (`u32::MAX`: none).
    pub brow: Vec<u32>,
    /// Boundary particle of each wall row.
    pub bactive: Vec<u32>,
    /// Offset of particle 0's DOFs in the velocity vector.
    pub dof0: usize,
    /// `M⁻¹` of a particle per axis (1/kg), z masked in planar models.
    pub minv: Vec3,
    /// Whether the model is planar: the products skip z, where the coefficients and the
    /// inverse mass are zero (the same sums without the zero terms).
    planar: bool,
    /// `s_i` per row (1/m).
    pub self_coef: Vec<Vec3>,
    /// The fluid neighbour lists the rows were built from (the fluid's, shared, not copied:
    /// [`Neighbours`] clones share their entries): row i's entries are `ff.start[i]..ff.start[i +
    /// 1]` of `coef`. Released after the solve ([`DensityRows::release`]) so that the next
    /// search reuses the lists' buffers.
    pub ff: Neighbours,
    /// `c_ij` aligned with `ff`'s entries (1/m), when the rows store them; empty when they form
    /// them ([`PairCoefficients`]).
    pub coef: Vec<Vec3>,
    /// Whether the coefficients are stored or formed (set by the method from its parameters).
    pub pairs: PairCoefficients,
    /// What forming them needs (inactive when they are stored).
    pub(super) former: Former,
    /// Whether the step's solve sweeps these rows (PGS; [`DensityRows::build`] takes it from
    /// `colour`, which a position projection sets for its own sweeps).
    swept: bool,
    /// `J_i M⁻¹ J_iᵀ`.
    pub diag: Vec<Real>,
    /// Bias `(β/h) g_i` (1/s).
    pub bias: Vec<Real>,
    /// Compliance ε (s/kg-like units of the row).
    pub compliance: Real,
    /// One block per row.
    pub blocks: Vec<Block>,
    /// The rows' Jacobians on bodies that carry boundary particles.
    pub bodies: BodyEntries,
    /// Whether the rows are unilateral (001) or bilateral (KCSPH).
    pub unilateral: bool,
    /// Warm-start impulses, one per row, from [`DensityRows::lambda`] and
    /// [`DensityRows::blambda`].
    pub warm: Vec<Real>,
    /// Impulse of each fluid particle's row in the last solve (N·s·m; the next warm start),
    /// kept per particle in the particles' current order: it follows them through the cell
    /// sort ([`DensityRows::follow_search`]). Carried from step to step (checkpoints).
    pub lambda: Vec<Real>,
    /// Impulse of each boundary particle's wall row in the last solve (0 where it had none).
    pub blambda: Vec<Real>,
    /// The buffer [`DensityRows::follow_search`] reorders into.
    perm: Vec<Real>,
    /// Whether [`DensityRows::build`] colours the rows for parallel Gauss–Seidel sweeps (set by
    /// the pipeline when the solver is PGS).
    pub colour: bool,
    /// Whether the colouring also carries multilevel aggregates
    /// ([`crate::solver::multilevel`]; set by the pipeline from the PGS parameters).
    pub multilevel: bool,
    /// The rows' colouring ([`crate::solver::colouring`]): pieces and bands of twice the kernel
    /// support across the slowest cell axis; rows that touch a body are serial.
    pub colouring: Colouring,
}

/// The gap's target in the bias: the gap itself for unilateral rows, only its compressed part
/// for bilateral (KCSPH) rows.
#[inline]
pub(crate) fn target_gap(unilateral: bool, gap: Real) -> Real {
    if unilateral {
        gap
    } else {
        gap.min(0.0)
    }
}

impl DensityRows {
    /// Calls `f(j, c_ij)` for fluid row `i`'s fluid neighbours j (`c_ij` in 1/m, stored or
    /// formed).
    #[inline(always)]
    fn fluid_entries(&self, i: usize, mut f: impl FnMut(usize, Vec3)) {
        if self.former.active() {
            self.former.each(i, self.ff.of(i), f);
        } else {
            let (_, nbr, coef) = self.stored_row(i);
            for (&j, &c) in nbr.iter().zip(coef) {
                f(j as usize, c);
            }
        }
    }

    /// Lets go of the fluid's neighbour lists (after the solve), so that the next search
    /// refills their buffers instead of allocating new ones.
    pub fn release(&mut self) {
        self.ff = Neighbours::default();
        self.bf = Neighbours::default();
    }

    /// Calls `f(j, c_kj)` for each fluid neighbour j of row `k` (fluid or wall row).
    #[inline(always)]
    fn for_each_entry(&self, k: usize, f: impl FnMut(usize, Vec3)) {
        if k < self.nf {
            self.fluid_entries(k, f);
        } else {
            self.wall_entries(k - self.nf, f);
        }
    }

    /// Stage 4: the density rows of `fluid` (neighbour lists current), then its wall rows.
    /// Writes each particle's density error `(ρ − ρ0)/ρ0` into `density_error`. `h` is the step
    /// (s); `masses` and `layout` give the bodies' DOFs.
    pub fn build(
        &mut self,
        fluid: &Fluid,
        layout: &VelocityLayout,
        h: Real,
        masses: &[BodyMass],
        density_error: &mut Vec<Real>,
    ) {
        self.build_filtering(fluid, layout, h, masses, density_error, None);
    }

    /// [`DensityRows::build`], with the velocity filter's pass fused into the fluid rows'
    /// (`filter`: the velocities, ε and where the filtered velocities go).
    pub(crate) fn build_filtering(
        &mut self,
        fluid: &Fluid,
        layout: &VelocityLayout,
        h: Real,
        masses: &[BodyMass],
        density_error: &mut Vec<Real>,
        filter: Option<FilterPass<'_>>,
    ) {
        assert_eq!(
            fluid.ff.start.len(),
            fluid.len() + 1,
            "build_rows needs update_neighbours first"
        );
        self.swept = self.colour;
        self.reset(fluid, layout, density_error);
        self.fluid_rows(fluid, h, fluid.params.beta, density_error, filter);
        self.nf = fluid.len();
        self.build_wall_rows(fluid, h, fluid.params.beta);
        self.body_entries(fluid, masses);
        self.finish(fluid);
        // No row's warm start moves its particles by more than a spacing in the step (module
        // docs): |λ| ≤ (l / h) √(m / (J M⁻¹ Jᵀ)).
        let cap = fluid.params.spacing / h * fluid.mass.sqrt();
        for (w, d) in self.warm.iter_mut().zip(&self.diag) {
            let most = cap / d.sqrt();
            *w = w.clamp(-most, most);
        }
    }

    /// The rows of a position projection ([`crate::fluid::constraint`]): the same rows with the
    /// full gap in the bias (β = 1) over `h` (s), every boundary particle held where it is (no
    /// body entries), the fluid's DOFs from 0 and no warm start. Always unilateral: the
    /// projection only pushes compressed particles apart (bilateral KCSPH rows would also hold
    /// every uncompressed particle's density, and their projection diverged in the small dam
    /// break at t = 0.096 s).
    pub fn build_projection(&mut self, fluid: &Fluid, h: Real, density_error: &mut Vec<Real>) {
        let layout = VelocityLayout::default();
        self.reset(fluid, &layout, density_error);
        self.unilateral = true;
        self.fluid_rows(fluid, h, 1.0, density_error, None);
        self.nf = fluid.len();
        self.build_wall_rows(fluid, h, 1.0);
        self.bodies.clear();
        self.finish(fluid);
        self.warm.iter_mut().for_each(|w| *w = 0.0);
    }

    /// Sizes the rows' storage for `fluid` (the fluid rows' structure is the neighbour lists').
    fn reset(&mut self, fluid: &Fluid, layout: &VelocityLayout, density_error: &mut Vec<Real>) {
        let ff = &fluid.ff;
        let p = &fluid.params;
        let n = fluid.len();
        self.dof0 = layout.particle_dof0();
        let minv = 1.0 / fluid.mass;
        self.planar = p.planar;
        self.minv = if p.planar {
            Vec3::new(minv, minv, 0.0)
        } else {
            Vec3::repeat(minv)
        };
        self.compliance = p.compliance;
        self.unilateral = p.method == DensityMethod::Unilateral;
        self.ff.clone_from(ff);
        // Sized, not cleared: the fluid rows write every entry (a serial fill of the
        // coefficients would cost the 20 000-particle dam break about 1 ms per build).
        if self.pairs.store(ff.start.entries(), self.swept) {
            self.former.clear();
            self.coef.resize(ff.start.entries(), Vec3::zeros());
        } else {
            self.coef = Vec::new();
            self.former
                .set(&fluid.pos, p.kernel, fluid.volume, p.periodic);
        }
        self.self_coef.resize(n, Vec3::zeros());
        self.diag.resize(n, 0.0);
        self.bias.resize(n, 0.0);
        density_error.resize(n, 0.0);
    }

    /// Warm starts, blocks and (for PGS) the colouring of all rows.
    fn finish(&mut self, fluid: &Fluid) {
        let (p, n, unilateral) = (&fluid.params, fluid.len(), self.unilateral);
        // (None before the first solve, or from a checkpoint of another fluid: zeros.)
        self.lambda.resize(n, 0.0);
        self.blambda.resize(fluid.boundary.len(), 0.0);
        self.warm.clear();
        self.warm.extend_from_slice(&self.lambda);
        let blambda = &self.blambda;
        self.warm
            .extend(self.bactive.iter().map(|&b| blambda[b as usize]));
        self.blocks.clear();
        let kind = if unilateral {
            BlockKind::Unilateral
        } else {
            BlockKind::Bilateral { len: 1 }
        };
        self.blocks
            .extend((0..self.diag.len()).map(|start| Block { start, kind }));
        if self.colour {
            let (pos, boundary, bodies) = (&fluid.pos, &fluid.boundary, &self.bodies);
            let (nf, bactive) = (n, &self.bactive);
            let point = |k: usize| {
                if !bodies.of(k).is_empty() {
                    None
                } else if k < nf {
                    Some(pos[k])
                } else {
                    Some(boundary[bactive[k - nf] as usize])
                }
            };
            let c = &mut self.colouring;
            // Rows touch points within the support with nonzero coefficients; the lists'
            // entries beyond it (their skin) have zero ones, which the shared velocities do not
            // write ([`crate::solver::points`]) and the corrections' operators pass over.
            let reach = p.kernel.support();
            c.by_bands(
                self.diag.len(),
                point,
                reach,
                p.planar,
                self.dof0..self.dof0 + 3 * n,
            );
            if self.multilevel {
                c.levels
                    .build(self.diag.len(), &c.rows, point, reach, p.planar);
            } else {
                c.levels.clear();
            }
        }
    }

    /// Puts the carried impulses ([`DensityRows::lambda`]) into the particles' order after a
    /// neighbour search of `fluid` (call once after each search that sorted them).
    pub fn follow_search(&mut self, fluid: &Fluid) {
        fluid.reorder_like_last_search(&mut self.lambda, &mut self.perm);
    }

    /// Reads the solution of these rows back: per-particle impulses (the next warm start,
    /// kept here), pressure `κ λ / (h V t)` (Pa) of particles and boundary particles into
    /// `fluid`, and adds the rows' forces on bodies to `fluid.body_force` / `body_torque`.
    pub fn read_back(&mut self, lambda: &[Real], h: Real, fluid: &mut Fluid) {
        let n = self.nf;
        self.lambda.clear();
        self.lambda.extend_from_slice(&lambda[..n]);
        let scale = fluid.kappa / (h * fluid.volume * fluid.params.thickness);
        fluid.pressure.clear();
        fluid.pressure.extend(lambda[..n].iter().map(|l| l * scale));
        self.blambda.resize(fluid.boundary.len(), 0.0);
        self.blambda.iter_mut().for_each(|l| *l = 0.0);
        fluid.boundary_pressure.iter_mut().for_each(|p| *p = 0.0);
        for (r, &b) in self.bactive.iter().enumerate() {
            self.blambda[b as usize] = lambda[n + r];
            fluid.boundary_pressure[b as usize] = lambda[n + r] * scale;
        }
        self.bodies
            .add_forces(lambda, h, &mut fluid.body_force, &mut fluid.body_torque);
    }
}

impl RowFamily for DensityRows {
    fn name(&self) -> &'static str {
        "fluid density"
    }
    fn warm_start(&self, out: &mut Vec<Real>) {
        out.extend_from_slice(&self.warm);
    }
    fn groups(&self, out: &mut dyn FnMut(&'static str, usize)) {
        out("fluid density", self.nf);
        out("wall", self.nwall);
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
        let mut s = self.gather(k, v[self.dof0..].as_chunks::<3>().0);
        for e in self.bodies.of(k) {
            s += e.jac.jv(v);
        }
        s
    }
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        self.scatter(k, dl, v[self.dof0..].as_chunks_mut::<3>().0);
        for e in self.bodies.of(k) {
            e.jac.apply(dl, v);
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
    fn coloured(&self) -> Option<Coloured<'_>> {
        (self.colour && !self.is_empty()).then_some(Coloured {
            offset: 0,
            len: self.len(),
            colouring: &self.colouring,
            rows: self,
        })
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
            self.fluid_entries(k, |j, c| f -= c * lambda[j]);
            for e in self.fb_start[k] as usize..self.fb_start[k + 1] as usize {
                let r = self.fb_row[e];
                if r != u32::MAX {
                    f += self.fb_coef(e, k) * lambda[self.nf + r as usize];
                }
            }
            for a in 0..if self.planar { 2 } else { 3 } {
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
        // Bodies receive from many rows: a serial sum in row order (thread-count independent).
        self.bodies.add_minv_jt(self.diag.len(), lambda, v);
    }
}

impl PointColumns for DensityRows {
    fn point_blocks(&self) -> (usize, Vec3) {
        (self.nf, self.minv)
    }
    fn column(&self, p: usize, f: &mut dyn FnMut(usize, Vec3)) {
        f(p, self.self_coef[p]);
        self.fluid_entries(p, |j, c| f(j, -c));
        for e in self.fb_start[p] as usize..self.fb_start[p + 1] as usize {
            let r = self.fb_row[e];
            if r != u32::MAX {
                f(self.nf + r as usize, self.fb_coef(e, p));
            }
        }
    }
}
