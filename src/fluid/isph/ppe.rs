//! The pressure Poisson equation of an ISPH sub-step: wall pressure jumps, assembly of the
//! symmetric positive definite system over the fluid particles that are not on the free
//! surface, its sparse Cholesky solve with faer, and the residual. Equations in the parent
//! module.

use super::IsphParams;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};
use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::Side;

/// Not an unknown (a free-surface particle, `p = 0`).
const DIRICHLET: u32 = u32::MAX;

/// The PPE's buffers, reused from sub-step to sub-step.
#[derive(Default)]
pub struct Ppe {
    /// `p_b − p_i` for each fluid–boundary pair, in the order of `Fluid::fb` (Pa).
    jump: Vec<Real>,
    /// Outward wall normal for each fluid–boundary pair (as `jump`).
    normal: Vec<Vec3>,
    /// Row starts of `jump` (a copy of `Fluid::fb.start`).
    start: Vec<u32>,
    /// Unknown index of each particle, or [`DIRICHLET`].
    index: Vec<u32>,
    /// Lower triangle of the matrix (row ≥ column).
    triplets: Vec<Triplet<usize, usize, Real>>,
    rhs: Vec<Real>,
}

impl Ppe {
    /// `p_b − p_i` (Pa) for the `e`-th boundary neighbour of particle `i` in the last solve.
    #[inline]
    pub fn wall_jump(&self, i: usize, e: usize) -> Real {
        self.jump[self.start[i] as usize + e]
    }

    /// Outward wall normal of the `e`-th boundary neighbour of particle `i`.
    #[inline]
    pub fn wall_normal(&self, i: usize, e: usize) -> Vec3 {
        self.normal[self.start[i] as usize + e]
    }

    /// Solves the PPE for the predicted velocities `f.vel` (v*, m/s) over a sub-step `h` (s),
    /// with the normalised kernel sums `n` and the wall velocities `bvel` (m/s); writes
    /// `f.pressure` (Pa) and `f.density_error` (`n_i − 1`). Returns the relative residual
    /// `|A p − b| / |b|` (0 without unknowns).
    pub fn solve(
        &mut self,
        f: &mut Fluid,
        p: &IsphParams,
        n: &[Real],
        bvel: &[Vec3],
        h: Real,
    ) -> Real {
        let count = f.len();
        let (k, v0, per) = (f.params.kernel, f.volume, f.params.periodic);
        let (rho0, kappa, mu) = (f.params.rho0, f.kappa, f.laplacian);
        let eta2 = 0.01 * k.h * k.h;
        // Laplacian weight w_ij ≥ 0 of a pair at separation d.
        let weight = |d: &Vec3| {
            let r = d.norm();
            if r > 0.0 {
                2.0 * v0 * (-r * k.dw(r)) / ((r * r + eta2) * mu)
            } else {
                0.0
            }
        };
        // Wall pressure jumps (Neumann condition).
        self.start.clone_from(&f.fb.start);
        self.jump.clear();
        self.normal.clear();
        for i in 0..count {
            for &b in f.fb.of(i) {
                let b = b as usize;
                let d = per.delta(&f.boundary[b], &f.pos[i]);
                let s = f.to_surface[b];
                let nrm = if s.norm() > 0.0 {
                    -s / s.norm()
                } else if d.norm() > 0.0 {
                    d / d.norm()
                } else {
                    Vec3::zeros()
                };
                let an = (f.vel[i] - bvel[b]).dot(&nrm) / h;
                self.jump.push(rho0 * an * nrm.dot(&d));
                self.normal.push(nrm);
            }
        }
        // Unknowns: every particle off the free surface; in a closed domain (no surface) the
        // first particle is pinned at 0 and the mean is removed afterwards.
        self.index.clear();
        let mut unknowns = 0u32;
        for &ni in n {
            if ni < p.surface {
                self.index.push(DIRICHLET);
            } else {
                self.index.push(unknowns);
                unknowns += 1;
            }
        }
        let closed = unknowns as usize == count && count > 0;
        if closed {
            self.index[0] = DIRICHLET;
            for x in self.index.iter_mut().skip(1) {
                *x -= 1;
            }
            unknowns -= 1;
        }
        let m = unknowns as usize;
        self.triplets.clear();
        self.rhs.clear();
        self.rhs.resize(m, 0.0);
        for (i, &n_i) in n.iter().enumerate().take(count) {
            let row = self.index[i];
            if row == DIRICHLET {
                continue;
            }
            let row = row as usize;
            // Velocity gradient Σ V (v_j − v_i) ⊗ ∇_iW_ij and its renormalisation
            // L_i⁻¹ = Σ V (x_j − x_i) ⊗ ∇_iW_ij over the fluid neighbours: the divergence
            // tr(G L_i) is exact for linear velocity fields also where the support is truncated
            // (free surface, walls); κ where L is singular.
            let mut diag = 0.0;
            let (mut gv, mut lm) = (crate::math::Mat3::zeros(), crate::math::Mat3::zeros());
            for &j in f.ff.of(i) {
                let j = j as usize;
                let d = per.delta(&f.pos[i], &f.pos[j]);
                let w = weight(&d);
                diag += w;
                let c = crate::fluid::kernel::volume_gradient(&k, v0, &d);
                gv += (f.vel[j] - f.vel[i]) * c.transpose();
                lm -= d * c.transpose();
                let col = self.index[j];
                if col != DIRICHLET && (col as usize) < row {
                    self.triplets.push(Triplet::new(row, col as usize, -w));
                }
            }
            if f.params.planar {
                lm[(2, 2)] = 1.0;
            }
            let div = match lm.try_inverse() {
                Some(li) => (gv * li).trace(),
                None => gv.trace() / kappa,
            };
            let mut b = -rho0 * div / h;
            // Density invariance (compression only: a particle short of neighbours near the
            // surface is not pulled in).
            b -= p.alpha * rho0 * (1.0 - n_i).min(0.0) / (h * h);
            for (e, &bb) in f.fb.of(i).iter().enumerate() {
                let d = per.delta(&f.pos[i], &f.boundary[bb as usize]);
                b += weight(&d) * self.jump[self.start[i] as usize + e];
            }
            self.triplets.push(Triplet::new(row, row, diag));
            self.rhs[row] = b;
        }
        let mut sol = vec![0.0; m];
        let mut residual = 0.0;
        if m > 0 {
            let solved = SparseColMat::<usize, Real>::try_new_from_triplets(m, m, &self.triplets)
                .ok()
                .and_then(|a| a.sp_cholesky(Side::Lower).ok());
            if let Some(llt) = solved {
                let rhs = faer::Col::<Real>::from_fn(m, |i| self.rhs[i]);
                let x = llt.solve(&rhs);
                for (s, i) in sol.iter_mut().zip(0..m) {
                    *s = x[i];
                }
                residual = self.residual(&sol);
            } else {
                // Not positive definite (a particle with no unknown neighbour and no diagonal):
                // leave the pressures at zero and report the whole right-hand side as residual.
                residual = 1.0;
            }
        }
        f.pressure.resize(count, 0.0);
        for (pi, &ix) in f.pressure.iter_mut().zip(&self.index) {
            *pi = if ix == DIRICHLET {
                0.0
            } else {
                sol[ix as usize]
            };
        }
        if closed {
            let mean = f.pressure.iter().sum::<Real>() / count as Real;
            f.pressure.iter_mut().for_each(|x| *x -= mean);
        }
        f.density_error.clear();
        f.density_error.extend(n.iter().map(|x| x - 1.0));
        residual
    }

    /// `|A p − b| / |b|` from the stored lower triangle.
    fn residual(&self, x: &[Real]) -> Real {
        let mut r = self.rhs.clone();
        for t in &self.triplets {
            r[t.row] -= t.val * x[t.col];
            if t.row != t.col {
                r[t.col] -= t.val * x[t.row];
            }
        }
        let norm = |v: &[Real]| v.iter().map(|a| a * a).sum::<Real>().sqrt();
        let b = norm(&self.rhs);
        if b > 0.0 {
            norm(&r) / b
        } else {
            norm(&r)
        }
    }
}
