//! The fluid rows' coefficients, diagonals, density errors and biases (the row of
//! [`super`]: `s_i`, `c_ij`, `J_i M⁻¹ J_iᵀ`, `(ρ_i − ρ0)/ρ0` and `(β/h) g_i`), built in
//! parallel blocks of rows.

use super::{target_gap, DensityRows, ROW_BLOCK};
use crate::fluid::grid::Neighbours;
use crate::fluid::kernel::volume_gradient;
use crate::fluid::{Fluid, PARALLEL_MIN_ROWS};
use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// A block of rows being built: its first row, then its slices of the outputs.
type RowBlock<'a> = (usize, RowOutputs<'a>);

impl DensityRows {
    /// Each fluid row's coefficients, diagonal, density error and bias, in blocks of rows in
    /// parallel.
    pub(super) fn fluid_rows(
        &mut self,
        fluid: &Fluid,
        h: Real,
        beta: Real,
        density_error: &mut [Real],
    ) {
        let (ff, fb) = (&fluid.ff, &fluid.fb);
        let p = &fluid.params;
        let k = p.kernel;
        let v0 = fluid.volume;
        let n = fluid.len();
        let (pos, boundary) = (&fluid.pos, &fluid.boundary);
        let smooth = &fluid.smooth;
        let minv = 1.0 / fluid.mass;
        let per = p.periodic;
        // Per-row coefficients, in blocks of rows (each block writes its own slices of the
        // outputs, so the result does not depend on which thread takes it; nothing is
        // allocated).
        let unilateral = self.unilateral;
        let mask = self.minv;
        // Whether the rows keep `c_ij` ([`super::PairCoefficients`]); if not, `c` is empty.
        let store = !self.former.active();
        // `c` receives `c_ij` of the fluid neighbours (the boundary neighbours' `c_bi` are the
        // wall rows', [`super::DensityRows::fb_coef`]).
        let row = |i: usize, c: &mut [Vec3]| -> (Vec3, Real, Real, Real) {
            let xi = &pos[i];
            let mut s = Vec3::zeros();
            let mut rho = v0 * k.w(0.0);
            let mut dsum = 0.0;
            for (e, &j) in ff.of(i).iter().enumerate() {
                let d = per.delta(xi, &pos[j as usize]);
                rho += v0 * k.w(d.norm());
                let g = volume_gradient(&k, v0, &d);
                if store {
                    c[e] = g;
                }
                s -= g;
                dsum += g.dot(&g);
            }
            for &b in fb.of(i) {
                let d = per.delta(xi, &boundary[b as usize]);
                rho += v0 * k.w(d.norm());
                s -= volume_gradient(&k, v0, &d);
            }
            // Smooth walls: their kernel sum and its gradient (fixed walls: no column).
            if !smooth.is_empty() {
                let (f, g) = smooth.fill(xi);
                rho += f;
                s -= g;
            }
            let gap = 1.0 - rho;
            (
                s,
                s.component_mul(&mask).dot(&s) + dsum * minv,
                rho - 1.0,
                beta / h * target_gap(unilateral, gap),
            )
        };
        let outs = (
            &mut self.coef[..],
            &mut self.self_coef[..],
            &mut self.diag[..],
            &mut density_error[..],
            &mut self.bias[..],
        );
        let blocks = row_blocks(outs, ff, n, store);
        let work = |(first, (c, a, d, e, bb)): RowBlock| {
            let base = ff.start[first] as usize;
            for r in 0..a.len() {
                let i = first + r;
                let (lo, hi) = if store {
                    (ff.start[i] as usize - base, ff.start[i + 1] as usize - base)
                } else {
                    (0, 0)
                };
                let (s, diag, err, bias) = row(i, &mut c[lo..hi]);
                a[r] = s;
                d[r] = diag;
                e[r] = err;
                bb[r] = bias;
            }
        };
        if n < PARALLEL_MIN_ROWS {
            blocks.for_each(work);
        } else {
            blocks.par_bridge().for_each(work);
        }
    }
}

/// The outputs of the fluid rows (or a block's slices of them): neighbour coefficients `c_ij`,
/// self coefficients `s_i`, diagonals, density errors, biases.
type RowOutputs<'a> = (
    &'a mut [Vec3],
    &'a mut [Vec3],
    &'a mut [Real],
    &'a mut [Real],
    &'a mut [Real],
);

/// The `n` fluid rows in blocks of [`ROW_BLOCK`], each with its own slices of the outputs (so
/// the result does not depend on which thread takes a block; nothing is allocated); `c_ij`
/// only when the rows keep it (`store`).
fn row_blocks<'a>(
    (mut coef, mut sc, mut dg, mut er, mut bs): RowOutputs<'a>,
    ff: &'a Neighbours,
    n: usize,
    store: bool,
) -> impl Iterator<Item = RowBlock<'a>> + Send + 'a {
    let mut first = 0;
    std::iter::from_fn(move || {
        if first >= n {
            return None;
        }
        let last = (first + ROW_BLOCK).min(n);
        let len = if store {
            (ff.start[last] - ff.start[first]) as usize
        } else {
            0
        };
        let (c, rest) = std::mem::take(&mut coef).split_at_mut(len);
        coef = rest;
        let (a, rest) = std::mem::take(&mut sc).split_at_mut(last - first);
        sc = rest;
        let (d, rest) = std::mem::take(&mut dg).split_at_mut(last - first);
        dg = rest;
        let (e, rest) = std::mem::take(&mut er).split_at_mut(last - first);
        er = rest;
        let (bb, rest) = std::mem::take(&mut bs).split_at_mut(last - first);
        bs = rest;
        let block = (first, (c, a, d, e, bb));
        first = last;
        Some(block)
    })
}
