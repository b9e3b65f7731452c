//! The density rows' products a particle at a time ([`crate::solver::Points`]): `J_k v` and
//! `M⁻¹ J_kᵀ dλ` of one row, and the coloured sweeps' update of a row (its entries looked up
//! once for the product and the scatter where the rows keep their coefficients, formed once
//! where they form them, [`super::PairCoefficients`]).

use super::DensityRows;
use crate::math::{Real, Vec3};
use crate::solver::{ColouredRows, PointColumns, Points, SharedVec};
use std::sync::atomic::AtomicU64;

/// `c · x` over the first `N` axes, summed from the first (1/m times m/s).
#[inline(always)]
fn point_dot<const N: usize>(c: &Vec3, x: [Real; N]) -> Real {
    let mut s = c[0] * x[0];
    for a in 1..N {
        s += c[a] * x[a];
    }
    s
}

impl DensityRows {
    /// The particle part of `J_k v` (the particles' velocities `v`, read a particle at a time).
    #[inline]
    pub(super) fn gather<V: Points + ?Sized>(&self, k: usize, v: &V) -> Real {
        if self.planar {
            self.gather_axes::<2, V>(k, v)
        } else {
            self.gather_axes::<3, V>(k, v)
        }
    }

    /// [`DensityRows::gather`] over the first `N` axes.
    #[inline(always)]
    fn gather_axes<const N: usize, V: Points + ?Sized>(&self, k: usize, v: &V) -> Real {
        let dot = |p: usize, c: &Vec3| point_dot(c, v.read::<N>(p));
        let mut s = if k < self.nf {
            dot(k, &self.self_coef[k])
        } else {
            0.0
        };
        self.for_each_entry(k, |j, c| s += dot(j, &c));
        s
    }

    /// The particle part of `M⁻¹ J_kᵀ dλ`, added to the particles' velocities `v`.
    #[inline]
    pub(super) fn scatter<V: Points + ?Sized>(&self, k: usize, dl: Real, v: &mut V) {
        if self.planar {
            self.scatter_axes::<2, V>(k, dl, v);
        } else {
            self.scatter_axes::<3, V>(k, dl, v);
        }
    }

    /// [`DensityRows::scatter`] over the first `N` axes.
    #[inline(always)]
    fn scatter_axes<const N: usize, V: Points + ?Sized>(&self, k: usize, dl: Real, v: &mut V) {
        let mut point = |p: usize, c: &Vec3| v.add::<N>(p, self.push(dl, c));
        if k < self.nf {
            point(k, &self.self_coef[k]);
        }
        self.for_each_entry(k, |j, c| point(j, &c));
    }

    /// Particle p's part of `M⁻¹ J_kᵀ dλ`, its coefficient `c` (1/m), added to the particles'
    /// velocities `v`.
    #[inline(always)]
    fn scatter_point(&self, p: usize, dl: Real, c: &Vec3, mut v: &[[AtomicU64; 3]]) {
        Points::add::<3>(&mut v, p, self.push(dl, c));
    }

    /// A particle's velocity change from impulse `dl` of a row whose coefficient on it is `c`
    /// (1/m): `M⁻¹ c dλ`, its first `N` axes (m/s).
    #[inline(always)]
    fn push<const N: usize>(&self, dl: Real, c: &Vec3) -> [Real; N] {
        std::array::from_fn(|a| dl * self.minv[a] * c[a])
    }

    /// Row k's stored entries (the rows keep their coefficients): its own coefficient (a
    /// fluid row's `s_k`), its fluid neighbours and their coefficients.
    #[inline(always)]
    pub(in crate::constraints) fn stored_row(&self, k: usize) -> (Option<Vec3>, &[u32], &[Vec3]) {
        if k < self.nf {
            let r = self.ff.start.range(k);
            (Some(self.self_coef[k]), self.ff.of(k), &self.coef[r])
        } else {
            let r = k - self.nf;
            let (nbr, a) = (self.wall_nbrs(r), self.bstart[r] as usize);
            (None, nbr, &self.bcoef[a..a + nbr.len()])
        }
    }

    /// One coloured Gauss–Seidel update of stored row `k` over the first `N` axes: its entries
    /// looked up once for the product and the scatter ([`DensityRows::gather_axes`] then
    /// [`DensityRows::scatter_axes`], the same sums in the same order).
    #[inline(always)]
    fn update_stored<const N: usize>(
        &self,
        k: usize,
        mut v: &[[AtomicU64; 3]],
        update: &mut dyn FnMut(Real) -> Real,
    ) {
        let (own, nbr, coef) = self.stored_row(k);
        let dot = |p: usize, c: &Vec3| point_dot(c, v.read::<N>(p));
        let mut s = own.map_or(0.0, |c| dot(k, &c));
        for (&j, c) in nbr.iter().zip(coef) {
            s += dot(j as usize, c);
        }
        let dl = update(s);
        if dl != 0.0 {
            if let Some(c) = own {
                v.add::<N>(k, self.push(dl, &c));
            }
            for (&j, c) in nbr.iter().zip(coef) {
                v.add::<N>(j as usize, self.push(dl, c));
            }
        }
    }
}

impl ColouredRows for DensityRows {
    /// Coloured rows touch no body (those rows are serial), so only the particle part.
    #[inline]
    fn jv_shared(&self, k: usize, v: &SharedVec) -> Real {
        self.gather(k, &v.points(self.dof0))
    }
    #[inline]
    fn apply_shared(&self, k: usize, dl: Real, v: &SharedVec) {
        self.scatter(k, dl, &mut v.points(self.dof0));
    }
    fn update_shared(&self, k: usize, v: &SharedVec, update: &mut dyn FnMut(Real) -> Real) {
        let v = v.points(self.dof0);
        if !self.former.active() {
            return if self.planar {
                self.update_stored::<2>(k, v, update)
            } else {
                self.update_stored::<3>(k, v, update)
            };
        }
        let vel = |p| Vec3::from(v.read::<3>(p));
        let particle = |p, dl, c: &Vec3| self.scatter_point(p, dl, c, v);
        if k < self.nf {
            let (nbr, s) = (self.ff.of(k), self.self_coef[k]);
            self.former.update_row(k, nbr, s, vel, update, particle);
        } else {
            let r = k - self.nf;
            self.former
                .update_wall_row(r, self.wall_nbrs(r), vel, update, particle);
        }
    }
    fn point_columns(&self) -> Option<&dyn PointColumns> {
        Some(self)
    }
}
