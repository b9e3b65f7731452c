//! Projected Gauss–Seidel (PGS) with warm start and over-relaxation.
//!
//! Each sweep visits the blocks in order and updates one row at a time:
//! `λ_k ← Π(λ_k − ω w_k / D_k)`, `v ← v + M⁻¹ J_kᵀ Δλ_k`, with
//! `w_k = J_k v + b_k + ε_k λ_k` and `D_k = J_k M⁻¹ J_kᵀ + ε_k` (Miyamoto & Koshizuka, 001
//! eqs. 36–41 and 65–72, generalised to compliance). Friction rows are bounded component-wise by
//! `μ λ_n` of the current normal impulse (box friction); the solver stops when the largest
//! velocity-scaled update `D_k |Δλ_k|` of a sweep falls below the tolerance.
//!
//! **Parallel sweeps.** A row family that offers a colouring ([`RowSet::coloured`], the fluid
//! density rows) is swept colour by colour, the groups of a colour on all threads at once
//! ([`super::colouring`]); the other rows are swept one by one in block order before and after
//! it (forward sweep: the blocks before the family, its colours, its serial rows, the blocks
//! after; the backward sweep reverses all of it). The update order depends only on the rows, so
//! the result does not depend on the thread count. 20 000-particle dam break, 10 sweeps, two
//! threads, three alternating runs of 0.5 s: 37.9–46.5 ms per step serial, 24.9–33.6 ms
//! coloured (about 1.5×); on one thread the coloured sweep is about 20 % slower than the serial
//! one (48.3 against 40.5 ms, not explained).

use super::colouring::Sweep;
use super::dense_block::{block_update, factor_blocks};
use super::multilevel::{Coarse, Cycle};
use super::{
    block_scales, residual_scaled, BlockKind, Coloured, Parts, RowSet, SharedVec, SolveInfo,
    Workspace,
};
use crate::math::Real;
use crate::params::{iteration_limit, positive, ParamError};
use serde::{Deserialize, Serialize};

/// PGS parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PgsParams {
    /// Maximum sweeps, 1 to 100 000 ([`crate::params::MAX_ITERATIONS`]). Default 200.
    pub max_iterations: usize,
    /// Stop when the largest velocity-scaled update of a sweep is below this (m/s). Default 1e-7.
    pub tolerance: Real,
    /// Relaxation factor ω in (0, 2). Default 1 (plain Gauss–Seidel).
    pub relaxation: Real,
    /// Start from the previous step's impulses where rows persist. Default true.
    pub warm_start: bool,
    /// After each sweep, shift the impulses of the fluid density rows by aggregates of cells,
    /// from one cell to the whole fluid ([`super::multilevel`]): iterations that do not grow
    /// with the depth of the water, at about one sweep's cost per level. Default false.
    pub multilevel: bool,
}

impl PgsParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        iteration_limit("max_iterations", self.max_iterations)?;
        positive("tolerance", self.tolerance)?;
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(ParamError::new(
                "relaxation",
                "a relaxation factor in (0, 2)",
                self.relaxation,
            ));
        }
        Ok(())
    }
}

impl Default for PgsParams {
    fn default() -> Self {
        PgsParams {
            max_iterations: 200,
            tolerance: 1e-7,
            relaxation: 1.0,
            warm_start: true,
            multilevel: false,
        }
    }
}

/// Runs PGS. `lambda`: warm start in, impulses out; `v`: `v*` in, `v⁺` out.
pub fn solve<R: RowSet>(
    p: &PgsParams,
    rows: &R,
    lambda: &mut [Real],
    v: &mut [Real],
    ws: &mut Workspace,
) -> SolveInfo {
    solve_parts(p, rows, lambda, v, ws, None)
}

/// [`solve`] on one part of a divided problem ([`Parts`]; `None`: the whole problem). A part's
/// foreign rows are set aside (impulse zero, diagonal infinite: never updated), the parts
/// settle after the warm start and after every sweep, and every part stops at the same sweep
/// (the largest change over all parts; no part leaves early on an interruption, which the
/// run loop reads between steps). With no rows here the part still settles with the others.
pub fn solve_parts<R: RowSet>(
    p: &PgsParams,
    rows: &R,
    lambda: &mut [Real],
    v: &mut [Real],
    ws: &mut Workspace,
    mut parts: Option<&mut dyn Parts>,
) -> SolveInfo {
    let n = rows.len();
    if n == 0 && parts.is_none() {
        return SolveInfo {
            converged: true,
            ..Default::default()
        };
    }
    if !p.warm_start {
        lambda.iter_mut().for_each(|l| *l = 0.0);
    }
    let Workspace {
        bufs,
        offsets,
        factors,
        shared,
        cycle,
        ..
    } = ws;
    // (The coloured rows' values in colouring order, `dc` and `bc`, are dead after the sweeps:
    // the residual's row values and scales take their place. Factors: `factor_blocks`.)
    let [d, lc, dc, bc, ec, lo] = super::take(bufs, 6, n) else {
        unreachable!()
    };
    super::vecops::fill(d, |k| (rows.diag(k) + rows.compliance(k)).max(1e-300));
    set_aside_negligible_rows(rows, d, lambda);
    warm_start(p.warm_start, rows, d, lambda, v, parts.as_deref_mut());
    let d = &*d;
    let omega = p.relaxation;
    let mut iterations = 0;
    let mut converged = false;
    let blocks = rows.blocks();
    factor_blocks(rows, blocks, offsets, factors);
    let factors = &*factors;
    // The coloured family (one block per row, blocks `fam.start..fam.end`) and its rows' data
    // in colouring order.
    let col = rows.coloured().filter(|c| !c.colouring.rows.is_empty());
    let fam = gather_coloured(rows, col.as_ref(), lambda, d, [lc, dc, bc, ec, lo]);
    let (dcs, bcs, ecs, los) = (&*dc, &*bc, &*ec, &*lo);
    let coarse = Coarse::new(col.as_ref(), [bcs, ecs, los], cycle);
    let up = Updater {
        rows,
        blocks,
        d,
        factors,
        offsets,
        omega,
    };
    let family = col.as_ref().map(|c| Family {
        c,
        up: &up,
        start: fam.start,
        data: [dcs, bcs, ecs, los],
        coarse: coarse.as_ref(),
        tolerance: p.tolerance,
    });
    let divided = parts.is_some();
    for it in (0..p.max_iterations).take_while(|_| divided || !crate::interrupt::overdue()) {
        iterations += 1;
        let mut max_change: Real = 0.0;
        // Symmetric Gauss–Seidel: sweep forward, then backward. Forward order: the blocks before
        // the coloured family, its colours, its serial rows, the blocks after it.
        let forward = it % 2 == 0;
        let (first, last) = if forward {
            (0..fam.start, fam.end..blocks.len())
        } else {
            (fam.end..blocks.len(), 0..fam.start)
        };
        max_change = max_change.max(up.serial(first, forward, lambda, v));
        if let Some(family) = &family {
            max_change = max_change.max(family.sweep(it, lambda, v, lc, shared, cycle));
        }
        max_change = max_change.max(up.serial(last, forward, lambda, v));
        if let Some(parts) = parts.as_deref_mut() {
            max_change = parts.settle(v, max_change);
        }
        if max_change < p.tolerance {
            converged = true;
            break;
        }
    }
    if let Some(c) = &col {
        for (p, &k) in c.colouring.rows.iter().enumerate() {
            lambda[c.offset + k as usize] = lc[p];
        }
    }
    // Report the same residual measure as APGD (on the box projection PGS solves).
    SolveInfo {
        iterations,
        residual: residual(rows, lambda, v, dc, bc),
        converged,
    }
}

/// The coloured family in one solve: its colouring, the block updater, its first block, its
/// rows' data in colouring order (`[d, bias, compliance, lower bound]`) and the multilevel
/// corrections, if any.
struct Family<'a, 'c, R> {
    c: &'a Coloured<'c>,
    up: &'a Updater<'a, R>,
    start: usize,
    data: [&'a [Real]; 4],
    coarse: Option<&'a Coarse<'c>>,
    /// The solve's tolerance (m/s).
    tolerance: Real,
}

impl<R: RowSet> Family<'_, '_, R> {
    /// The family's share of one symmetric sweep: its serial rows (before the colours
    /// backward, after them forward), its colours in parallel on the shared velocities `shared`
    /// (impulses `lc` in colouring order), then the multilevel correction (not in the solve's
    /// first sweep if its change is below the tolerance). Sweep `it` of the solve: forward when
    /// even. Returns the largest change.
    fn sweep(
        &self,
        it: usize,
        lambda: &mut [Real],
        v: &mut [Real],
        lc: &mut [Real],
        shared: &mut SharedVec,
        cycle: &mut Cycle,
    ) -> Real {
        let forward = it.is_multiple_of(2);
        let (c, up, [dc, bc, ec, lo]) = (self.c, self.up, self.data);
        let fam_start = self.start;
        let mut max_change: Real = 0.0;
        let family_serial = |lambda: &mut [Real], v: &mut [Real]| {
            let mut m: Real = 0.0;
            let mut one = |k: &u32| m = m.max(up.update(fam_start + *k as usize, lambda, v));
            if forward {
                c.colouring.serial.iter().for_each(&mut one);
            } else {
                c.colouring.serial.iter().rev().for_each(&mut one);
            }
            m
        };
        if !forward {
            max_change = max_change.max(family_serial(lambda, v));
        }
        shared.load(v, c.colouring.dofs.clone());
        let sweep = Sweep {
            rows: c.rows,
            order: &c.colouring.rows,
            d: dc,
            bias: bc,
            eps: ec,
            lo,
            omega: up.omega,
            forward,
            v: shared,
        };
        max_change = max_change.max(sweep.colours(c.colouring, lc));
        shared.store(v);
        // A solve's first sweep that changes no row by the tolerance needs no
        // correction: water at rest converges without the operators ever being built.
        if let Some(cs) = self
            .coarse
            .filter(|_| it > 0 || max_change >= self.tolerance)
        {
            cs.correct(cycle, v, lc);
        }
        if forward {
            max_change = max_change.max(family_serial(lambda, v));
        }
        max_change
    }
}

/// What a block update reads: the rows, their blocks, the diagonals `d`, the factors of
/// multi-row bilateral blocks, the relaxation ω.
struct Updater<'a, R> {
    rows: &'a R,
    blocks: &'a [super::Block],
    d: &'a [Real],
    factors: &'a [Real],
    offsets: &'a [usize],
    omega: Real,
}

impl<R: RowSet> Updater<'_, R> {
    /// Projected update of block `bi`; returns the largest velocity-scaled change.
    #[inline]
    fn update(&self, bi: usize, lambda: &mut [Real], v: &mut [Real]) -> Real {
        let (rows, d, omega) = (self.rows, self.d, self.omega);
        let b = &self.blocks[bi];
        let k = b.start;
        if d[k] == Real::INFINITY {
            // Set aside (a negligible row, another part's row): never updated.
            return 0.0;
        }
        let row = |k: usize, lo: Real, hi: Real, lambda: &mut [Real], v: &mut [Real]| {
            row_update(rows, d, lambda, v, omega, k, lo, hi)
        };
        match b.kind {
            BlockKind::Bilateral { len: 1 } => {
                row(k, Real::NEG_INFINITY, Real::INFINITY, lambda, v)
            }
            BlockKind::Bilateral { len } => {
                let f = &self.factors[self.offsets[bi]..self.offsets[bi] + len * len];
                block_update(rows, f, lambda, v, omega, k, len)
            }
            BlockKind::Unilateral => row(k, 0.0, Real::INFINITY, lambda, v),
            BlockKind::Friction { mu } => {
                let normal = row(k, 0.0, Real::INFINITY, lambda, v);
                let lim = mu * lambda[k];
                let t1 = row(k + 1, -lim, lim, lambda, v);
                normal.max(t1).max(row(k + 2, -lim, lim, lambda, v))
            }
        }
    }

    /// Updates the blocks of `range` in order (`forward`) or in reverse.
    fn serial(
        &self,
        range: std::ops::Range<usize>,
        forward: bool,
        lambda: &mut [Real],
        v: &mut [Real],
    ) -> Real {
        let mut m: Real = 0.0;
        if forward {
            range.for_each(|bi| m = m.max(self.update(bi, lambda, v)));
        } else {
            range
                .rev()
                .for_each(|bi| m = m.max(self.update(bi, lambda, v)));
        }
        m
    }
}

/// The coloured family's blocks (one per row; empty without a coloured family) and its rows'
/// data in colouring order: impulse, diagonal, bias, compliance and lower bound.
/// Rows of the coloured family (particle rows) whose diagonal is below [`NEGLIGIBLE`] times the
/// family's largest: a row whose only neighbours sit at the edge of its support (a boundary
/// particle reached by a fluid particle by a hair, coefficients ~1e-20 1/m). Such a row moves
/// nothing, but a Gauss–Seidel update divides its residual's rounding by its diagonal: its
/// impulse grew to ~1e20 N·s within a step and, warm-started into the next step's Jacobian,
/// threw particles out at 1e17 m/s (the tank at `smoothing: 1.0` with multilevel PGS). These
/// rows are set aside: no warm start, no update (diagonal infinite).
const NEGLIGIBLE: Real = 1e-12;

/// Sets aside the negligible rows of the coloured family ([`NEGLIGIBLE`]): impulse zero,
/// diagonal infinite.
fn set_aside_negligible_rows<R: RowSet>(rows: &R, d: &mut [Real], lambda: &mut [Real]) {
    let Some(c) = rows.coloured() else {
        return;
    };
    let range = c.offset..c.offset + c.len;
    let largest = d[range.clone()].iter().fold(0.0, |m: Real, &x| m.max(x));
    for k in range {
        if d[k] < NEGLIGIBLE * largest {
            d[k] = Real::INFINITY;
            lambda[k] = 0.0;
        }
    }
}

/// `v += M⁻¹ Jᵀ λ` for the warm start (`warm`), a divided solve's foreign rows set aside first
/// and the parts met after.
fn warm_start<R: RowSet>(
    warm: bool,
    rows: &R,
    d: &mut [Real],
    lambda: &mut [Real],
    v: &mut [Real],
    mut parts: Option<&mut (dyn Parts + '_)>,
) {
    if let Some(parts) = parts.as_deref_mut() {
        set_aside_foreign_rows(parts.foreign(), d, lambda);
        for (d, f) in d.iter_mut().zip(parts.interface()) {
            *d *= 1.0 + f;
        }
        parts.begin(v);
    }
    if warm {
        rows.add_minv_jt(lambda, v);
    }
    if let Some(parts) = parts {
        parts.settle(v, 0.0);
    }
}

/// Sets aside the rows another part of a divided solve updates (`foreign`, per row): impulse
/// zero, diagonal infinite.
fn set_aside_foreign_rows(foreign: &[bool], d: &mut [Real], lambda: &mut [Real]) {
    for ((d, l), _) in d
        .iter_mut()
        .zip(lambda.iter_mut())
        .zip(foreign)
        .filter(|(_, f)| **f)
    {
        *d = Real::INFINITY;
        *l = 0.0;
    }
}

fn gather_coloured<R: RowSet>(
    rows: &R,
    col: Option<&super::Coloured>,
    lambda: &[Real],
    d: &[Real],
    [lc, dc, bc, ec, lo]: [&mut [Real]; 5],
) -> std::ops::Range<usize> {
    let blocks = rows.blocks();
    let Some(c) = col else {
        return blocks.len()..blocks.len();
    };
    let b0 = blocks.partition_point(|b| b.start < c.offset);
    let fam_blocks = &blocks[b0..];
    let order = &c.colouring.rows;
    let n = order.len();
    let row = |p: usize| c.offset + order[p] as usize;
    // (Parallel passes above a chunk of rows: the same values as a serial loop.)
    use super::vecops::fill;
    fill(&mut lc[..n], |p| lambda[row(p)]);
    fill(&mut dc[..n], |p| d[row(p)]);
    fill(&mut bc[..n], |p| rows.bias(row(p)));
    fill(&mut ec[..n], |p| rows.compliance(row(p)));
    fill(&mut lo[..n], |p| match fam_blocks[row(p) - c.offset].kind {
        BlockKind::Unilateral => 0.0,
        BlockKind::Bilateral { len: 1 } => Real::NEG_INFINITY,
        kind => unreachable!("a coloured row must be a block of one row, not {kind:?}"),
    });
    b0..b0 + c.len
}

/// The residual of the solution (the same measure as APGD's, on the box projection PGS
/// solves): `w = J v + b + ε λ` into `w`, block scales into `scale`.
fn residual<R: RowSet>(
    rows: &R,
    lambda: &[Real],
    v: &[Real],
    w: &mut [Real],
    scale: &mut [Real],
) -> Real {
    rows.mul_j(v, w);
    super::vecops::update(w, |k, wk| {
        *wk += rows.bias(k) + rows.compliance(k) * lambda[k];
    });
    block_scales(rows, scale);
    residual_scaled(rows.blocks(), scale, lambda, w, false)
}

/// One projected row update; returns the velocity-scaled change `D_k |Δλ_k|`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn row_update<R: RowSet>(
    rows: &R,
    d: &[Real],
    lambda: &mut [Real],
    v: &mut [Real],
    omega: Real,
    k: usize,
    lo: Real,
    hi: Real,
) -> Real {
    let w = rows.jv(k, v) + rows.bias(k) + rows.compliance(k) * lambda[k];
    let new = (lambda[k] - omega * w / d[k]).max(lo).min(hi);
    let dl = new - lambda[k];
    if dl != 0.0 {
        rows.apply(k, dl, v);
        lambda[k] = new;
    }
    d[k] * dl.abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::solver::{Block, Coloured, Colouring, SharedVec};

    /// A chain of unit-mass points on the y axis, `dx` apart; row i has `J_i v = 2 v_i − v_{i−1}
    /// − v_{i+1}` (a discrete Laplacian: touches points within 1.5 dx), unilateral, with bias
    /// `b_i` and compliance 0.5 (an LCP with a well-conditioned SPD matrix: one solution).
    struct Chain {
        bias: Vec<Real>,
        blocks: Vec<Block>,
        colouring: Option<Colouring>,
    }

    impl Chain {
        fn new(n: usize, coloured: bool) -> Chain {
            let bias = (0..n).map(|i| ((i as Real) * 0.731).sin()).collect();
            let blocks = (0..n)
                .map(|start| Block {
                    start,
                    kind: BlockKind::Unilateral,
                })
                .collect();
            let colouring = coloured.then(|| {
                let mut c = Colouring::default();
                c.by_bands(n, |i| Some(Vec3::new(0.0, i as Real, 0.0)), 1.5, true, 0..n);
                c
            });
            Chain {
                bias,
                blocks,
                colouring,
            }
        }
        fn entries(&self, k: usize) -> impl Iterator<Item = (usize, Real)> {
            let n = self.bias.len();
            [(k.wrapping_sub(1), -1.0), (k, 2.0), (k + 1, -1.0)]
                .into_iter()
                .filter(move |(j, _)| *j < n)
        }
    }

    impl RowSet for Chain {
        fn len(&self) -> usize {
            self.bias.len()
        }
        fn blocks(&self) -> &[Block] {
            &self.blocks
        }
        fn jv(&self, k: usize, v: &[Real]) -> Real {
            self.entries(k).map(|(j, c)| c * v[j]).sum()
        }
        fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
            self.entries(k).for_each(|(j, c)| v[j] += c * dl);
        }
        fn diag(&self, k: usize) -> Real {
            self.entries(k).map(|(_, c)| c * c).sum()
        }
        fn coupling(&self, k: usize, _l: usize) -> Real {
            self.diag(k)
        }
        fn bias(&self, k: usize) -> Real {
            self.bias[k]
        }
        fn compliance(&self, _k: usize) -> Real {
            0.5
        }
        fn coloured(&self) -> Option<Coloured<'_>> {
            self.colouring.as_ref().map(|colouring| Coloured {
                offset: 0,
                len: self.len(),
                colouring,
                rows: self,
            })
        }
    }

    impl crate::solver::ColouredRows for Chain {
        fn jv_shared(&self, k: usize, v: &SharedVec) -> Real {
            self.entries(k).map(|(j, c)| c * v.get(j)).sum()
        }
        fn apply_shared(&self, k: usize, dl: Real, v: &SharedVec) {
            self.entries(k).for_each(|(j, c)| v.add(j, c * dl));
        }
    }

    /// The coloured sweep converges to the serial sweep's solution (the LCP has one), and its
    /// iterates do not depend on the thread count.
    #[test]
    fn coloured_sweeps_match_serial_sweeps() {
        let n = 5 * crate::solver::colouring::ROWS_PER_PIECE;
        let solve = |coloured: bool, threads: usize, sweeps: usize, tol: Real| {
            let rows = Chain::new(n, coloured);
            if coloured {
                assert_eq!(rows.colouring.as_ref().unwrap().cuts.len(), 4);
            }
            let p = PgsParams {
                max_iterations: sweeps,
                tolerance: tol,
                ..Default::default()
            };
            let (mut lambda, mut v) = (vec![0.0; n], vec![0.0; n]);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let info =
                pool.install(|| solve(&p, &rows, &mut lambda, &mut v, &mut Workspace::default()));
            (lambda, info)
        };
        // Twenty sweeps: bit-identical on one and two threads.
        let (one, _) = solve(true, 1, 20, 0.0);
        let (two, _) = solve(true, 2, 20, 0.0);
        assert_eq!(one, two);
        let (serial20, _) = solve(false, 1, 20, 0.0);
        assert!(
            one != serial20,
            "the coloured order must differ from the serial one"
        );
        // Converged: the same impulses.
        let (serial, a) = solve(false, 1, 10_000, 1e-13);
        let (coloured, b) = solve(true, 2, 10_000, 1e-13);
        assert!(a.converged && b.converged, "{a:?} {b:?}");
        let scale = serial.iter().fold(0.0, |m: Real, x| m.max(x.abs()));
        let worst = serial
            .iter()
            .zip(&coloured)
            .fold(0.0, |m: Real, (x, y)| m.max((x - y).abs()));
        assert!(worst < 1e-8 * scale, "{worst} vs scale {scale}");
    }
}
