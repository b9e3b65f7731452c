//! Periodic axes of the fluid domain.
//!
//! An axis may be periodic over `[lo, lo + L)` (m): a particle leaving at one end comes back at
//! the other, and particles near the two ends are neighbours across the seam. Every pair term
//! reads the separation through [`Periodic::delta`], the minimum image
//! `d_a − L_a round(d_a / L_a)` on each periodic axis (exact while the kernel support is below
//! `L_a / 2`, which the model check enforces with a margin: `L_a ≥ 3` cells). The cell grid
//! wraps its cell indices on these axes ([`super::grid::CellGrid`]); fluid positions are folded
//! into `[lo, lo + L)` at each neighbour search. Body-fixed boundary particles are not folded
//! (their lever arms about the body's centre must stay whole); the grid and the pair terms see
//! them at their images.
//!
//! Only the fluid wraps: rigid bodies' contacts do not see across the seam.

use crate::math::{Real, Vec3};

/// Which axes are periodic, and over which interval (m).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Periodic {
    /// Lower end of each periodic axis (m).
    pub lo: Vec3,
    /// Period `L` of each periodic axis (m); 0 on the other axes.
    pub len: Vec3,
}

impl Periodic {
    /// No periodic axis.
    pub const NONE: Periodic = Periodic {
        lo: Vec3::new(0.0, 0.0, 0.0),
        len: Vec3::new(0.0, 0.0, 0.0),
    };

    /// Makes axis `a` (0 = x, 1 = y, 2 = z) periodic over `[lo, hi)` (m, `hi > lo`).
    pub fn with_axis(mut self, a: usize, lo: Real, hi: Real) -> Periodic {
        self.lo[a] = lo;
        self.len[a] = hi - lo;
        self
    }

    /// Whether axis `a` is periodic.
    #[inline(always)]
    pub fn on(&self, a: usize) -> bool {
        self.len[a] > 0.0
    }

    /// Whether some axis is periodic.
    #[inline(always)]
    pub fn any(&self) -> bool {
        self.on(0) || self.on(1) || self.on(2)
    }

    /// The separation `a − b` (m), taken to the nearest image on periodic axes.
    #[inline(always)]
    pub fn delta(&self, a: &Vec3, b: &Vec3) -> Vec3 {
        let mut d = a - b;
        if self.any() {
            for ax in 0..3 {
                let l = self.len[ax];
                if l > 0.0 {
                    d[ax] -= l * (d[ax] / l).round();
                }
            }
        }
        d
    }

    /// `v` without its components along the periodic axes.
    pub fn across(&self, v: &Vec3) -> Vec3 {
        Vec3::from_fn(|a, _| if self.on(a) { 0.0 } else { v[a] })
    }

    /// Folds `p` into `[lo, lo + L)` on the periodic axes.
    #[inline]
    pub fn wrap(&self, p: &mut Vec3) {
        for ax in 0..3 {
            let l = self.len[ax];
            if l > 0.0 && p[ax].is_finite() {
                let mut x = (p[ax] - self.lo[ax]).rem_euclid(l);
                // rem_euclid can round up to l itself for tiny negative inputs.
                if x >= l {
                    x = 0.0;
                }
                p[ax] = self.lo[ax] + x;
            }
        }
    }

    /// Whether `p` lies in `[lo, lo + L)` on every periodic axis (with a tolerance `tol` (m)
    /// below the upper end, so that a lattice point at `lo + L` − rounding is left out too: it
    /// is the image of the point at `lo`).
    pub fn contains(&self, p: &Vec3, tol: Real) -> bool {
        (0..3).all(|a| {
            !self.on(a) || (p[a] >= self.lo[a] - tol && p[a] < self.lo[a] + self.len[a] - tol)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_image_and_folding() {
        let p = Periodic::NONE.with_axis(0, -0.5, 1.5);
        let d = p.delta(&Vec3::new(1.45, 0.3, 0.0), &Vec3::new(-0.45, 0.1, 0.0));
        assert!((d - Vec3::new(-0.1, 0.2, 0.0)).norm() < 1e-12, "{d}");
        let mut x = Vec3::new(1.6, 7.0, -3.0);
        p.wrap(&mut x);
        assert!((x - Vec3::new(-0.4, 7.0, -3.0)).norm() < 1e-12, "{x}");
        let mut y = Vec3::new(-0.5 - 1e-18, 0.0, 0.0);
        p.wrap(&mut y);
        assert!(y.x >= -0.5 && y.x < 1.5);
        assert!(!Periodic::NONE.any());
        assert_eq!(
            Periodic::NONE.delta(&Vec3::new(5.0, 0.0, 0.0), &Vec3::zeros()),
            Vec3::new(5.0, 0.0, 0.0)
        );
        assert!(p.contains(&Vec3::new(-0.5, 9.0, 9.0), 1e-9));
        assert!(!p.contains(&Vec3::new(1.5, 0.0, 0.0), 1e-9));
    }
}
