//! The fluid rows' coefficients, diagonals, density errors and biases (the row of
//! [`super`]: `s_i`, `c_ij`, `J_i M⁻¹ J_iᵀ`, `(ρ_i − ρ0)/ρ0` and `(β/h) g_i`), built in
//! parallel blocks of rows.

use super::{target_gap, DensityRows, ROW_BLOCK};
use crate::fluid::grid::Neighbours;
use crate::fluid::kernel::{volume_gradient_of, w_and_volume_gradient};
use crate::fluid::velocity_filter::{FilterSums, NoSums, PlaneSums, SpaceSums};
use crate::fluid::{Fluid, PARALLEL_MIN_ROWS};
use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// A block of rows being built: its first row, then its slices of the outputs.
type RowBlock<'a> = (usize, RowOutputs<'a>);

/// The velocity filter's pass fused into the rows' ([`DensityRows::fluid_rows`]): the
/// velocities it reads (m/s), its fraction ε, and the filtered velocities it writes, one per
/// particle ([`crate::fluid::velocity_filter`]).
pub(crate) struct FilterPass<'a> {
    pub vel: &'a [Vec3],
    pub eps: Real,
    pub next: &'a mut [Vec3],
}

impl DensityRows {
    /// Each fluid row's coefficients, diagonal, density error and bias, in blocks of rows in
    /// parallel; with `filter`, also each particle's filtered velocity, from the same kernel
    /// values (the filter's pass would form them again at the same positions).
    pub(super) fn fluid_rows(
        &mut self,
        fluid: &Fluid,
        h: Real,
        beta: Real,
        density_error: &mut [Real],
        filter: Option<FilterPass<'_>>,
    ) {
        match filter {
            None => self.rows_pass::<NoSums>(fluid, h, beta, density_error, None),
            Some(f) if fluid.params.planar => {
                self.rows_pass::<PlaneSums>(fluid, h, beta, density_error, Some(f))
            }
            Some(f) => self.rows_pass::<SpaceSums>(fluid, h, beta, density_error, Some(f)),
        }
    }

    /// [`DensityRows::fluid_rows`] with the filter's sums `S` ([`NoSums`]: no filter).
    fn rows_pass<S: FilterSums>(
        &mut self,
        fluid: &Fluid,
        h: Real,
        beta: Real,
        density_error: &mut [Real],
        filter: Option<FilterPass<'_>>,
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
        let (vel, eps, next) = match filter {
            Some(f) => (f.vel, f.eps, f.next),
            None => (&[][..], 0.0, &mut [][..]),
        };
        // `c` receives `c_ij` of the fluid neighbours (the boundary neighbours' `c_bi` are the
        // wall rows', [`super::DensityRows::fb_coef`]).
        let row = |i: usize, c: &mut [Vec3], out: Option<&mut Vec3>| -> (Vec3, Real, Real, Real) {
            let xi = &pos[i];
            let mut s = Vec3::zeros();
            let mut rho = v0 * k.w(0.0);
            let dsum = fluid_pairs::<S>(fluid, i, (store, c), (vel, eps, out), &mut rho, &mut s);
            for &b in fb.of(i) {
                let d = per.delta(xi, &boundary[b as usize]);
                let (w, g) = w_and_volume_gradient(&k, v0, &d);
                rho += v0 * w;
                s -= g;
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
            next,
        );
        let blocks = row_blocks(outs, ff, n, store);
        let work = |(first, (c, a, d, e, bb, nx)): RowBlock| {
            let base = ff.start[first] as usize;
            for r in 0..a.len() {
                let i = first + r;
                let (lo, hi) = if store {
                    (ff.start[i] as usize - base, ff.start[i + 1] as usize - base)
                } else {
                    (0, 0)
                };
                let (s, diag, err, bias) = row(i, &mut c[lo..hi], nx.get_mut(r));
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

/// Row i's fluid neighbours: adds their kernel sum `V Σ_j W_ij` to `rho` and takes their
/// coefficients `c_ij = V ∇_i W_ij` from `s` (writing them to `c` where the rows keep them,
/// `store`); returns `Σ_j |c_ij|²`. With a filter (`S`; the velocities, ε and particle i's
/// output), its sums take each neighbour at `x_j − x_i` with the same `V W_ij` and
/// `V ∇_i W_ij` ([`crate::fluid::Fluid::filter_velocities`] forms them so) and particle i's
/// filtered velocity goes to the output.
#[inline(always)]
fn fluid_pairs<S: FilterSums>(
    fluid: &Fluid,
    i: usize,
    (store, c): (bool, &mut [Vec3]),
    (vel, eps, out): (&[Vec3], Real, Option<&mut Vec3>),
    rho: &mut Real,
    s: &mut Vec3,
) -> Real {
    let (k, v0, per) = (&fluid.params.kernel, fluid.volume, fluid.params.periodic);
    let (pos, xi) = (&fluid.pos, &fluid.pos[i]);
    let mut sums = S::default();
    let mut dsum = 0.0;
    for (e, &j) in fluid.ff.of(i).iter().enumerate() {
        let d = per.delta(xi, &pos[j as usize]);
        let r = d.norm();
        let (wr, dwr) = k.w_dw(r);
        let w = v0 * wr;
        *rho += w;
        let g = volume_gradient_of(v0, &d, r, dwr);
        if S::ACTIVE {
            let dv = vel[j as usize] - vel[i];
            sums.add(&-d, &dv, w, (r != 0.0).then_some(&g));
        }
        if store {
            c[e] = g;
        }
        *s -= g;
        dsum += g.dot(&g);
    }
    if let Some(out) = out {
        *out = sums.velocity(vel[i], eps);
    }
    dsum
}

/// The outputs of the fluid rows (or a block's slices of them): neighbour coefficients `c_ij`,
/// self coefficients `s_i`, diagonals, density errors, biases.
type RowOutputs<'a> = (
    &'a mut [Vec3],
    &'a mut [Vec3],
    &'a mut [Real],
    &'a mut [Real],
    &'a mut [Real],
    &'a mut [Vec3],
);

/// The `n` fluid rows in blocks of [`ROW_BLOCK`], each with its own slices of the outputs (so
/// the result does not depend on which thread takes a block; nothing is allocated); `c_ij`
/// only when the rows keep it (`store`).
fn row_blocks<'a>(
    (mut coef, mut sc, mut dg, mut er, mut bs, mut nx): RowOutputs<'a>,
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
        // (The filter's velocities, where it is fused: empty otherwise.)
        let at = (last - first).min(nx.len());
        let (v, rest) = std::mem::take(&mut nx).split_at_mut(at);
        nx = rest;
        let block = (first, (c, a, d, e, bb, v));
        first = last;
        Some(block)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::VelocityLayout;
    use crate::fluid::kernel::{Kernel, KernelKind};
    use crate::fluid::FluidParams;

    /// The velocity filter fused into the rows' pass gives the filter's own velocities to the
    /// bit, in 2D and 3D, on a jittered block with random velocities (and changes them).
    #[test]
    fn the_filter_fused_into_the_rows_is_the_filter() {
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as Real / (1u64 << 53) as Real - 0.5
        };
        let l = 0.01;
        for planar in [true, false] {
            let dim = if planar { 2 } else { 3 };
            let params = FluidParams {
                planar,
                kernel: Kernel::new(KernelKind::Wendland, 1.3 * l, dim),
                spacing: l,
                ..FluidParams::default()
            };
            let (nx, nz) = if planar { (14, 1) } else { (7, 6) };
            let mut pos = Vec::new();
            for k in 0..nx * 10 * nz {
                let (x, y, z) = (k % nx, k / nx % 10, k / (nx * 10));
                let jitter = Vec3::new(rnd(), rnd(), if planar { 0.0 } else { rnd() }) * 0.1;
                pos.push((Vec3::new(x as Real, y as Real, z as Real) + jitter) * l);
            }
            let vel = pos
                .iter()
                .map(|_| Vec3::new(rnd(), rnd(), if planar { 0.0 } else { rnd() }) * 0.1)
                .collect();
            let mut f = Fluid::new(params, pos, vel, Vec::new());
            f.update_neighbours(&[]);
            let mut reference = f.clone();
            reference.filter_velocities(0.3, None, None);
            let (mut rows, mut err) = (DensityRows::default(), Vec::new());
            let mut next = f.take_spare();
            let filter = FilterPass {
                vel: &f.vel,
                eps: 0.3,
                next: &mut next,
            };
            let layout = VelocityLayout::default();
            rows.build_filtering(&f, &layout, 1e-3, &[], &mut err, Some(filter));
            let before = f.vel.clone();
            f.finish_filter(next, None);
            assert_eq!(f.vel, reference.vel, "planar: {planar}");
            assert!(f.vel != before, "the filter changes the velocities");
        }
    }
}
