//! SPH kernels with their 2D and 3D normalisation.
//!
//! All kernels are radial, `W(r) = σ_d f(q) / h^d` with `q = r / h`, compact support `κ h`
//! (m), and units 1/m^d. Gradients: `∇_i W_ij = W'(r) (x_i − x_j) / r` with `W' ≤ 0`.
//!
//! | kernel | f(q) | support κ | σ₂ (2D) | σ₃ (3D) |
//! |---|---|---|---|---|
//! | cubic spline (Monaghan 1992) | `1 − 1.5q² + 0.75q³` (q < 1), `0.25 (2 − q)³` (q < 2) | 2 | 10/(7π) | 1/π |
//! | Wendland C2 (Wendland 1995) | `(1 − q/2)⁴ (2q + 1)` | 2 | 7/(4π) | 21/(16π) |
//! | Wendland C6 (Wendland 1995) | `(1 − q/2)⁸ (4q³ + 25q²/4 + 4q + 1)` | 2 | 39/(14π) | 1365/(512π) |
//! | MPS weight (001 eq. 3) | `(1 − q)²` with h = r_e | 1 | 6/π | 15/(2π) |
//!
//! Wendland C6 is Dehnen & Aly's (2012, MNRAS 425:1068, Table 1) `(1 − s)⁸ (32s³ + 25s² + 8s +
//! 1)` with `s = r / 2h`, their constants 78/(7π) and 1365/(64π) over `(2h)^d`. Its lattice
//! sums hold under load where C2's do not: the 2D hexagonal lattice for every h / l from 1.0
//! to 2.2 (C2: 1.05–1.30, 1.55–1.75, 1.95–2.15), the 3D face-centred cubic one at 1.20–1.35 and
//! 1.60–1.75 (C2: only near 1.05 and 2.05), the default 1.3 among them
//! ([`super::lattice_stability`], `cargo run --release --example lattice_stability -- --3d`).
//!
//! The MPS weight is normalised here too (001 uses it unnormalised as a number density); as for
//! every kernel the rest density is then fixed by the lattice sum n0 (see [`super::Fluid`]), so
//! the constant cancels. Note 004 prints the 2D constant of the cubic spline for its 3D runs
//! (summary 004 §2); the constants above integrate to one (tested).

use crate::math::{Real, Vec3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Kernel choice, by name in RON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum KernelKind {
    /// Wendland C2 (default).
    #[default]
    Wendland,
    /// Wendland C6: smoother, the same support; lattices that hold under load at any usual
    /// smoothing (module docs).
    WendlandC6,
    /// Cubic B-spline.
    CubicSpline,
    /// The MPS weight `(1 − r/r_e)²` of 001.
    Mps,
}

/// A kernel with its smoothing length and dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernel {
    /// Which kernel.
    pub kind: KernelKind,
    /// Smoothing length h (m); for MPS, h = r_e.
    pub h: Real,
    /// Spatial dimension (2 or 3).
    pub dim: u32,
    sigma: Real,
    /// 1/h (1/m) and σ/h² (1/m^(d+2)), for [`Kernel::dw_over_r`].
    inv_h: Real,
    sigma_h2: Real,
}

impl Kernel {
    /// A kernel of smoothing length `h` (m) in `dim` (2 or 3) dimensions.
    pub fn new(kind: KernelKind, h: Real, dim: u32) -> Kernel {
        assert!(dim == 2 || dim == 3, "kernel dimension must be 2 or 3");
        assert!(h > 0.0, "smoothing length must be positive");
        let s = match (kind, dim) {
            (KernelKind::CubicSpline, 2) => 10.0 / (7.0 * PI),
            (KernelKind::CubicSpline, _) => 1.0 / PI,
            (KernelKind::Wendland, 2) => 7.0 / (4.0 * PI),
            (KernelKind::Wendland, _) => 21.0 / (16.0 * PI),
            (KernelKind::WendlandC6, 2) => 39.0 / (14.0 * PI),
            (KernelKind::WendlandC6, _) => 1365.0 / (512.0 * PI),
            (KernelKind::Mps, 2) => 6.0 / PI,
            (KernelKind::Mps, _) => 15.0 / (2.0 * PI),
        };
        let sigma = s / h.powi(dim as i32);
        Kernel {
            kind,
            h,
            dim,
            sigma,
            inv_h: 1.0 / h,
            sigma_h2: sigma / (h * h),
        }
    }

    /// Support radius κ h (m).
    pub fn support(&self) -> Real {
        match self.kind {
            KernelKind::Mps => self.h,
            _ => 2.0 * self.h,
        }
    }

    /// W(r) (1/m^d).
    #[inline]
    pub fn w(&self, r: Real) -> Real {
        self.sigma * self.shape(r / self.h).0
    }

    /// dW/dr (1/m^(d+1)), ≤ 0.
    #[inline]
    pub fn dw(&self, r: Real) -> Real {
        self.sigma / self.h * self.shape(r / self.h).1
    }

    /// `(W(r), dW/dr)` (1/m^d, 1/m^(d+1)): [`Kernel::w`] and [`Kernel::dw`] to the bit, from
    /// one `q = r/h` and one choice of the kernel (a pair loop that needs both would otherwise
    /// divide and branch on the kind twice).
    #[inline(always)]
    pub fn w_dw(&self, r: Real) -> (Real, Real) {
        let (w, dw) = self.shape(r / self.h);
        (self.sigma * w, self.sigma / self.h * dw)
    }

    /// The kernel's shape at `q = r/h` and its derivative in q (dimensionless): W and dW/dr
    /// without their factors σ and σ/h.
    #[inline(always)]
    fn shape(&self, q: Real) -> (Real, Real) {
        match self.kind {
            KernelKind::CubicSpline => {
                if q < 1.0 {
                    (
                        1.0 - 1.5 * q * q + 0.75 * q * q * q,
                        -3.0 * q + 2.25 * q * q,
                    )
                } else if q < 2.0 {
                    (0.25 * (2.0 - q).powi(3), -0.75 * (2.0 - q) * (2.0 - q))
                } else {
                    (0.0, 0.0)
                }
            }
            KernelKind::Wendland => {
                if q < 2.0 {
                    // d/dq [(1 − q/2)⁴ (2q + 1)] = −5 q (1 − q/2)³
                    (
                        (1.0 - 0.5 * q).powi(4) * (2.0 * q + 1.0),
                        -5.0 * q * (1.0 - 0.5 * q).powi(3),
                    )
                } else {
                    (0.0, 0.0)
                }
            }
            KernelKind::WendlandC6 => {
                if q < 2.0 {
                    // d/dq [(1 − q/2)⁸ (4q³ + 25q²/4 + 4q + 1)] = −5.5 q (1 − q/2)⁷ (4q² + 3.5q + 1)
                    (
                        (1.0 - 0.5 * q).powi(8) * (((4.0 * q + 6.25) * q + 4.0) * q + 1.0),
                        -5.5 * q * (1.0 - 0.5 * q).powi(7) * ((4.0 * q + 3.5) * q + 1.0),
                    )
                } else {
                    (0.0, 0.0)
                }
            }
            KernelKind::Mps => {
                if q < 1.0 {
                    ((1.0 - q) * (1.0 - q), -2.0 * (1.0 - q))
                } else {
                    (0.0, 0.0)
                }
            }
        }
    }

    /// `W'(r) / r` (1/m^(d+2), ≤ 0) for `r > 0`, so that `∇_i W_ij = (W'(r)/r) (x_i − x_j)`:
    /// the same value as `dw(r) / r` up to round-off, without a division for the Wendland
    /// kernel (`W'/r = −5 σ/h² (1 − q/2)³`) and for the cubic spline's inner part
    /// (`σ/h² (−3 + 2.25 q)`), which keeps the pair loops' dependency chains short.
    #[inline(always)]
    pub fn dw_over_r(&self, r: Real) -> Real {
        let q = r * self.inv_h;
        self.sigma_h2
            * match self.kind {
                KernelKind::Wendland => {
                    if q < 2.0 {
                        let t = 1.0 - 0.5 * q;
                        -5.0 * t * t * t
                    } else {
                        0.0
                    }
                }
                KernelKind::WendlandC6 => {
                    if q < 2.0 {
                        let t = 1.0 - 0.5 * q;
                        let t2 = t * t;
                        let t4 = t2 * t2;
                        -5.5 * t4 * t2 * t * ((4.0 * q + 3.5) * q + 1.0)
                    } else {
                        0.0
                    }
                }
                KernelKind::CubicSpline => {
                    if q < 1.0 {
                        -3.0 + 2.25 * q
                    } else if q < 2.0 {
                        -0.75 * (2.0 - q) * (2.0 - q) / q
                    } else {
                        0.0
                    }
                }
                KernelKind::Mps => {
                    if q < 1.0 {
                        -2.0 * (1.0 - q) / q
                    } else {
                        0.0
                    }
                }
            }
    }
}

/// `V ∇_i W(|x_i − x_j|)` (1/m): the coefficient `c_ij` of the density rows, with the particle
/// volume `v0` (m^d) and the separation `d = x_i − x_j` (m; nearest image on periodic axes).
#[inline]
pub fn volume_gradient(k: &Kernel, v0: Real, d: &Vec3) -> Vec3 {
    volume_gradient_at(k, v0, d, d.norm())
}

/// [`volume_gradient`] with the distance `r = |d|` (m) already at hand (a pass that also
/// needs `W(r)` takes one square root per pair).
#[inline]
pub fn volume_gradient_at(k: &Kernel, v0: Real, d: &Vec3, r: Real) -> Vec3 {
    volume_gradient_of(v0, d, r, k.dw(r))
}

/// `(W(r), V ∇_i W)` at the separation `d = x_i − x_j` (1/m^d, 1/m): [`Kernel::w`] at `|d|`
/// and [`volume_gradient`] to the bit, from one distance and one [`Kernel::w_dw`].
#[inline(always)]
pub fn w_and_volume_gradient(k: &Kernel, v0: Real, d: &Vec3) -> (Real, Vec3) {
    let r = d.norm();
    let (w, dw) = k.w_dw(r);
    (w, volume_gradient_of(v0, d, r, dw))
}

/// [`volume_gradient_at`] with `dw = W'(r)` (1/m^(d+1)) at hand too ([`Kernel::w_dw`]).
#[inline(always)]
pub fn volume_gradient_of(v0: Real, d: &Vec3, r: Real, dw: Real) -> Vec3 {
    if r > 0.0 {
        d * (v0 * dw / r)
    } else {
        Vec3::zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ∫ W dV = 1 in 2D and 3D (midpoint rule on a fine grid), and dW/dr matches a finite
    /// difference of W.
    #[test]
    fn kernels_are_normalised_and_gradients_consistent() {
        for kind in [
            KernelKind::Wendland,
            KernelKind::WendlandC6,
            KernelKind::CubicSpline,
            KernelKind::Mps,
        ] {
            for dim in [2u32, 3] {
                let k = Kernel::new(kind, 0.1, dim);
                let n = if dim == 2 { 400 } else { 120 };
                let s = k.support();
                let d = 2.0 * s / n as Real;
                let mut sum = 0.0;
                for i in 0..n {
                    for j in 0..n {
                        let (x, y) = (-s + (i as Real + 0.5) * d, -s + (j as Real + 0.5) * d);
                        if dim == 2 {
                            sum += k.w((x * x + y * y).sqrt()) * d * d;
                        } else {
                            for l in 0..n {
                                let z = -s + (l as Real + 0.5) * d;
                                sum += k.w((x * x + y * y + z * z).sqrt()) * d * d * d;
                            }
                        }
                    }
                }
                assert!(
                    (sum - 1.0).abs() < 2e-3,
                    "{kind:?} {dim}D integrates to {sum}"
                );
                for r in [0.013, 0.05, 0.09, 0.13, 0.17] {
                    let e = 1e-7;
                    let fd = (k.w(r + e) - k.w(r - e)) / (2.0 * e);
                    assert!(
                        (fd - k.dw(r)).abs() <= 1e-5 * (1.0 + fd.abs()),
                        "{kind:?} {dim}D dW({r}) = {} vs {fd}",
                        k.dw(r)
                    );
                    let (a, b) = (k.dw_over_r(r), k.dw(r) / r);
                    assert!(
                        (a - b).abs() <= 1e-12 * b.abs().max(k.sigma / (k.h * k.h)),
                        "{kind:?} {dim}D W'/r({r}) = {a} vs {b}"
                    );
                }
            }
        }
    }
}
