//! Tabulated kernel integrals for smooth walls ([`super`]): over a half-line at a distance from
//! the particle (2D walls, and the edges of 3D ones) and over a quadrant of a plane (3D walls),
//! with their derivatives, on regular grids, interpolated linearly.
//!
//! - Line: `L(u, v) = ∫_u^∞ W(√(t² + v²)) dt` (1/m^(d−1)) and `L_v = ∂L/∂v`, for
//!   `u ∈ [−S, S]`, `v ∈ [0, S]` (`S` the support; `L` is even in `v`, `L_v` odd; `∂L/∂u =
//!   −W(√(u² + v²))` needs no table).
//! - Plate (3D): `A(u, w, v) = ∫_u^∞ ∫_w^∞ W(√(t² + s² + v²)) ds dt` (1/m) and `A_v = ∂A/∂v`,
//!   for `u, w ∈ [−S, S]`, `v ∈ [0, S]`; `∂A/∂u = −L(w, √(u² + v²))` from the line table.
//!
//! Each integral is summed along `t` from the support inwards, four Gauss–Legendre points per
//! grid interval (the kernels are at least C¹ and vanish with their first derivative at the
//! support).

use crate::fluid::kernel::Kernel;
use crate::math::Real;

/// Grid intervals per support along each axis of the line table.
const LINE_CELLS: usize = 96;
/// Grid intervals per support along each axis of the plate table.
const PLATE_CELLS: usize = 24;

/// Four-point Gauss–Legendre nodes and weights on [0, 1] (nodes `(1 ± x)/2` with
/// `x = √(3/7 ∓ (2/7)√(6/5))`, weights `(18 ± √30)/72`).
fn gauss() -> [(Real, Real); 4] {
    let (a, b) = ((3.0 / 7.0) as Real, 2.0 / 7.0 * (6.0 / 5.0 as Real).sqrt());
    let (inner, outer) = ((a - b).sqrt(), (a + b).sqrt());
    let (wi, wo) = ((18.0 + 30f64.sqrt()) / 72.0, (18.0 - 30f64.sqrt()) / 72.0);
    [
        (0.5 * (1.0 - outer), wo),
        (0.5 * (1.0 - inner), wi),
        (0.5 * (1.0 + inner), wi),
        (0.5 * (1.0 + outer), wo),
    ]
}

/// A regular grid over `u ∈ [−S, S]` (and `w` for the plate), `v ∈ [0, S]`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Grid {
    /// Intervals per support `S`.
    cells: usize,
    /// Grid step (m).
    step: Real,
}

impl Grid {
    /// The grid coordinate of `u` (m) clamped to [−S, S], as (cell, fraction).
    fn along(&self, u: Real) -> (usize, Real) {
        let x = ((u / self.step) + self.cells as Real).clamp(0.0, (2 * self.cells) as Real);
        let c = (x as usize).min(2 * self.cells - 1);
        (c, x - c as Real)
    }
    /// The grid coordinate of `v ≥ 0` (m), `None` at or beyond the support.
    fn across(&self, v: Real) -> Option<(usize, Real)> {
        let x = v / self.step;
        if x >= self.cells as Real {
            return None;
        }
        let c = (x as usize).min(self.cells - 1);
        Some((c, x - c as Real))
    }
}

/// The line table `L`, `L_v` of a kernel: bicubic Hermite interpolation of `L` from its
/// values and the derivatives `L_u = −W(r)`, `L_v` and `L_uv = −W'(r) v / r` at the grid points
/// (`r = √(u² + v²)`), so the interpolated field is C¹ and its gradient is its own derivative.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    grid: Grid,
    /// Per grid point (`u` fastest, then `v`): `[L, s L_u, s L_v, s² L_uv]`, `s` the step.
    nodes: Vec<[Real; 4]>,
}

/// Cubic Hermite basis on [0, 1]: values `(h00, h10, h01, h11)` and their derivatives.
#[inline]
fn hermite(t: Real) -> ([Real; 4], [Real; 4]) {
    let (t2, t3) = (t * t, t * t * t);
    (
        [
            2.0 * t3 - 3.0 * t2 + 1.0,
            t3 - 2.0 * t2 + t,
            -2.0 * t3 + 3.0 * t2,
            t3 - t2,
        ],
        [
            6.0 * t2 - 6.0 * t,
            3.0 * t2 - 4.0 * t + 1.0,
            -6.0 * t2 + 6.0 * t,
            3.0 * t2 - 2.0 * t,
        ],
    )
}

impl Line {
    /// Tabulates `L` and its derivatives for `k`.
    pub fn new(k: &Kernel) -> Line {
        let gauss = gauss();
        let s = k.support();
        let cells = LINE_CELLS;
        let step = s / cells as Real;
        let nu = 2 * cells + 1;
        let mut nodes = vec![[0.0; 4]; nu * (cells + 1)];
        for j in 0..=cells {
            let v = j as Real * step;
            let (mut acc, mut accv) = (0.0, 0.0);
            for i in (0..nu).rev() {
                let u = (i as Real - cells as Real) * step;
                if i + 1 < nu {
                    for &(x, wt) in &gauss {
                        let t = u + x * step;
                        let r = (t * t + v * v).sqrt();
                        acc += wt * step * k.w(r);
                        if r > 0.0 {
                            accv += wt * step * k.dw(r) * v / r;
                        }
                    }
                }
                let r = u.hypot(v);
                let luv = if r > 0.0 { -k.dw(r) * v / r } else { 0.0 };
                nodes[j * nu + i] = [acc, -k.w(r) * step, accv * step, luv * step * step];
            }
        }
        Line {
            grid: Grid { cells, step },
            nodes,
        }
    }

    /// `(L(u, v), L_v(u, v))` (1/m^(d−1), 1/m^d); zero at or beyond the support.
    #[inline]
    pub fn at(&self, u: Real, v: Real) -> (Real, Real) {
        let (l, _, lv) = self.with_du(u, v);
        (l, lv)
    }

    /// `(L, L_u, L_v)` at `(u, v)`, the derivatives those of the interpolated field; constant
    /// along `u` beyond the table.
    #[inline]
    pub fn with_du(&self, u: Real, v: Real) -> (Real, Real, Real) {
        if self.nodes.is_empty() {
            return (0.0, 0.0, 0.0);
        }
        let grid = self.grid;
        let Some((j, fy)) = grid.across(v.abs()) else {
            return (0.0, 0.0, 0.0);
        };
        let (i, fx) = grid.along(u);
        let nu = 2 * grid.cells + 1;
        let (hx, dhx) = hermite(fx);
        let (hy, dhy) = hermite(fy);
        let (mut f, mut fu, mut fv) = (0.0, 0.0, 0.0);
        for cy in 0..2 {
            for cx in 0..2 {
                let n = &self.nodes[(j + cy) * nu + i + cx];
                let (bx, tx, dbx, dtx) = (hx[2 * cx], hx[2 * cx + 1], dhx[2 * cx], dhx[2 * cx + 1]);
                let (by, ty, dby, dty) = (hy[2 * cy], hy[2 * cy + 1], dhy[2 * cy], dhy[2 * cy + 1]);
                f += n[0] * bx * by + n[1] * tx * by + n[2] * bx * ty + n[3] * tx * ty;
                fu += n[0] * dbx * by + n[1] * dtx * by + n[2] * dbx * ty + n[3] * dtx * ty;
                fv += n[0] * bx * dby + n[1] * tx * dby + n[2] * bx * dty + n[3] * tx * dty;
            }
        }
        let lim = grid.cells as Real * grid.step;
        let fu = if u > -lim && u < lim {
            fu / grid.step
        } else {
            0.0
        };
        (f, fu, fv / grid.step * v.signum())
    }
}

/// The plate table of a 3D kernel: tricubic Hermite interpolation of `A` from its value and
/// derivatives at the grid points, `[A, A_u, A_w, A_uw, A_v, A_uv, A_wv, A_uwv]`, with
/// `A_u = −L(w, √(u² + v²))`, `A_w = −L(u, √(w² + v²))`, `A_uw = W(r)`,
/// `A_uv = −L_v(w, ρ_u) v / ρ_u`, `A_wv = −L_v(u, ρ_w) v / ρ_w`, `A_uwv = W'(r) v / r`
/// (`r = √(u² + w² + v²)`), so the field is C¹ and its gradient its own derivative.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plate {
    grid: Grid,
    /// Per grid point (`u` fastest, then `w`, then `v`), each derivative times the step to the
    /// power of its order: `[A, s A_u, s A_w, s² A_uw, s A_v, s² A_uv, s² A_wv, s³ A_uwv]`.
    nodes: Vec<[Real; 8]>,
}

impl Plate {
    /// Tabulates `A` and its derivatives for `k` from its line table.
    pub fn new(k: &Kernel, line: &Line) -> Plate {
        let gauss = gauss();
        let s = k.support();
        let cells = PLATE_CELLS;
        let step = s / cells as Real;
        let nu = 2 * cells + 1;
        let mut nodes = vec![[0.0; 8]; nu * nu * (cells + 1)];
        let at = |i: usize| (i as Real - cells as Real) * step;
        for j in 0..=cells {
            let v = j as Real * step;
            for m in 0..nu {
                let w = at(m);
                let (mut acc, mut accv) = (0.0, 0.0);
                for i in (0..nu).rev() {
                    let u = at(i);
                    if i + 1 < nu {
                        for &(x, wt) in &gauss {
                            let t = u + x * step;
                            let rho = t.hypot(v);
                            let (l, lr) = line.at(w, rho);
                            acc += wt * step * l;
                            if rho > 0.0 {
                                accv += wt * step * lr * v / rho;
                            }
                        }
                    }
                    let (ru, rw) = (u.hypot(v), w.hypot(v));
                    let r = ru.hypot(w);
                    let (lu, luv) = line.at(w, ru);
                    let (lw, lwv) = line.at(u, rw);
                    let ratio = |a: Real| if a > 0.0 { v / a } else { 0.0 };
                    let (s1, s2, s3) = (step, step * step, step * step * step);
                    nodes[(j * nu + m) * nu + i] = [
                        acc,
                        -lu * s1,
                        -lw * s1,
                        k.w(r) * s2,
                        accv * s1,
                        -luv * ratio(ru) * s2,
                        -lwv * ratio(rw) * s2,
                        k.dw(r) * ratio(r) * s3,
                    ];
                }
            }
        }
        Plate {
            grid: Grid { cells, step },
            nodes,
        }
    }

    /// `(A, A_u, A_w, A_v)` at `(u, w, v)` (1/m and 1/m²); zero at or beyond the support,
    /// constant (zero derivative) along `u` and `w` beyond it.
    #[inline]
    pub fn at(&self, u: Real, w: Real, v: Real) -> [Real; 4] {
        if self.nodes.is_empty() {
            return [0.0; 4];
        }
        let grid = self.grid;
        let (s, c) = (grid.step, grid.cells);
        let Some((j, fz)) = grid.across(v.abs()) else {
            return [0.0; 4];
        };
        let (i, fx) = grid.along(u);
        let (m, fy) = grid.along(w);
        let nu = 2 * c + 1;
        let (hx, dhx) = hermite(fx);
        let (hy, dhy) = hermite(fy);
        let (hz, dhz) = hermite(fz);
        let mut out = [0.0; 4];
        for cz in 0..2 {
            for cy in 0..2 {
                for cx in 0..2 {
                    let node = &self.nodes[((j + cz) * nu + m + cy) * nu + i + cx];
                    for (d, &a) in node.iter().enumerate() {
                        let (ex, ey, ez) =
                            (2 * cx + (d & 1), 2 * cy + ((d >> 1) & 1), 2 * cz + (d >> 2));
                        out[0] += a * hx[ex] * hy[ey] * hz[ez];
                        out[1] += a * dhx[ex] * hy[ey] * hz[ez];
                        out[2] += a * hx[ex] * dhy[ey] * hz[ez];
                        out[3] += a * hx[ex] * hy[ey] * dhz[ez];
                    }
                }
            }
        }
        let lim = c as Real * s;
        let inside = |x: Real| x > -lim && x < lim;
        [
            out[0],
            if inside(u) { out[1] / s } else { 0.0 },
            if inside(w) { out[2] / s } else { 0.0 },
            out[3] / s * v.signum(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fluid::kernel::KernelKind;

    /// The whole line and the whole plane of the kernel at distance 0 against a direct sum:
    /// the 2D kernel over a line integrates, across the line, to 1; the 3D kernel over a plane
    /// likewise.
    #[test]
    fn tables_integrate_the_kernel() {
        let k2 = Kernel::new(KernelKind::Wendland, 1.3, 2);
        let line = Line::new(&k2);
        // ∫ L(−∞, v) dv over v ∈ ℝ = ∫∫ W = 1.
        let n = 2000;
        let s = k2.support();
        let dv = s / n as Real;
        let total: Real = (0..n)
            .map(|i| 2.0 * line.at(-s, (i as Real + 0.5) * dv).0 * dv)
            .sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        // L(0, v) is half the whole line.
        let (a, _) = line.at(0.0, 0.7);
        let (b, _) = line.at(-s, 0.7);
        assert!((a - 0.5 * b).abs() < 1e-6 * b, "{a} {b}");
        // L_v against a difference of L.
        let e = 1e-4;
        let (l1, lv) = line.at(0.3, 1.0);
        let (l2, _) = line.at(0.3, 1.0 + e);
        assert!(
            ((l2 - l1) / e - lv).abs() < 2e-3 * lv.abs(),
            "{} {lv}",
            (l2 - l1) / e
        );
        let k3 = Kernel::new(KernelKind::Wendland, 1.3, 3);
        let line3 = Line::new(&k3);
        let plate = Plate::new(&k3, &line3);
        let total: Real = (0..n)
            .map(|i| 2.0 * plate.at(-s, -s, (i as Real + 0.5) * dv)[0] * dv)
            .sum();
        assert!((total - 1.0).abs() < 2e-3, "{total}");
        let q = plate.at(0.0, 0.0, 0.5)[0];
        let f = plate.at(-s, -s, 0.5)[0];
        assert!((q - 0.25 * f).abs() < 2e-3 * f, "{q} {f}");
    }
}
