//! Multilevel corrections for projected Gauss–Seidel on the coloured rows (the fluid density
//! rows): aggregates of rows by the cells they sit in, each moved as one.
//!
//! A Gauss–Seidel sweep reduces the error of a row's impulse against its neighbours' in one
//! pass, but a smooth error (the hydrostatic pressure of a deep tank, which the first step must
//! build from nothing) travels about one kernel support per sweep: the sweeps needed grow with
//! the depth. Here, after each sweep, the impulses of whole groups of rows are shifted by
//! common amounts: the group of all rows first, then groups of 2^ℓ × 2^ℓ (× 2^ℓ) cells down
//! to single cells (cells as wide as the kernel support). This is a multiplicative subspace
//! correction with piecewise-constant directions (Xu 1992, "Iterative methods by space
//! decomposition and subspace correction", SIAM Review 34(4)), on the background cells of the
//! neighbour search as in Osaki, Morikawa & Asai's geometric multigrid for ISPH (2023).
//!
//! **One aggregate step.** For the rows A of an aggregate and `e_A` the indicator of A, the
//! problem's energy `f(λ) = ½ λᵀ N λ + rᵀ λ` (`N = J M⁻¹ Jᵀ + E`, see [`super::apgd`]) along
//! `λ + δ e_A` is a parabola with slope `Σ_{k∈A} w_k` (w the rows' values, m/s) and curvature
//! `N_AA = e_Aᵀ N e_A`, so the exact line minimiser is `δ = −Σ w_k / N_AA`. Unilateral rows
//! keep `λ_k ≥ 0`: δ is clipped at `−min_{k∈A} λ_k` (the monotone restriction of Kornhuber's
//! monotone multigrid for obstacle problems; Gräser & Kornhuber 2009, J. Comput. Math. 27(1)).
//! Every step lowers f or keeps it, as each PGS row update does, so the solve converges
//! wherever PGS does, to the same solution (the LCP's, unique for positive-definite N).
//!
//! **Galerkin operators.** The steps need the slopes of all aggregates as the corrections go.
//! They are kept on the cells: `N_ab = e_aᵀ N e_b` for cells a, b within two cells of each
//! other (a 5 × 5 stencil in 2D, 5 × 5 × 5 in 3D), built once per solve from the rows' Jacobians by point,
//! `N_ab = Σ_p Σ_axis M⁻¹_p g_a(p) g_b(p)` with `g_a(p) = Σ_{k∈a} J_k[p]`
//! ([`super::PointColumns::column`]), plus `Σ_{k∈a} ε_k` on the diagonal; a coarser level sums its
//! children's entries. One correction pass then costs one `J v` (the slopes of the cells), work
//! on the cells only (restrict, Gauss–Seidel over each level's aggregates from the coarsest,
//! prolong), and one `M⁻¹ Jᵀ Δλ`: about one sweep's worth of products, whatever the number of
//! levels.

use super::ColouredRows;
use crate::math::{Real, Vec3};

/// Stencil half-width in cells: rows of cells further apart share no point.
const REACH: i64 = 2;
/// Stencil width.
const WIDTH: usize = 2 * REACH as usize + 1;
/// Most levels.
const MAX_LEVELS: usize = 24;

/// One level's cells (only those holding rows), numbered compactly.
#[derive(Debug, Default, Clone)]
pub struct Level {
    /// Cells per axis.
    dims: [usize; 3],
    /// Grid cell → compact cell (`u32::MAX`: no rows).
    map: Vec<u32>,
    /// Coordinates of each compact cell.
    coords: Vec<[u32; 3]>,
    /// Compact cell of the next level holding each cell.
    parent: Vec<u32>,
}

/// The cells of a colouring's rows at every level (module docs); empty when not wanted.
#[derive(Debug, Default, Clone)]
pub struct Hierarchy {
    /// Level 0: cells as wide as the reach; each next level doubles the side.
    pub levels: Vec<Level>,
    /// Level-0 compact cell of each row of the family (`u32::MAX`: not coloured).
    pub cell_of_row: Vec<u32>,
    /// 2 or 3.
    dims: usize,
    /// Buffers of levels not in use.
    pool: Vec<Level>,
}

impl Hierarchy {
    /// No levels (plain PGS); the buffers are kept for the next build.
    pub fn clear(&mut self) {
        // Finest first, so the next build takes each level's old buffer back.
        let mut pool = std::mem::take(&mut self.levels);
        pool.append(&mut self.pool);
        self.pool = pool;
        self.cell_of_row.clear();
    }

    /// Whether there are corrections to make.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Builds the levels for the family's `n` rows of which `order` are coloured, row k at
    /// `point(k)` (m; every coloured row has a finite point); rows touch points closer than
    /// `reach` (m) to their own. `planar`: the z coordinate is ignored.
    pub fn build(
        &mut self,
        n: usize,
        order: &[u32],
        point: impl Fn(usize) -> Option<Vec3>,
        reach: Real,
        planar: bool,
    ) {
        assert!(reach > 0.0 && reach.is_finite(), "reach must be positive");
        self.dims = if planar { 2 } else { 3 };
        let dims = self.dims;
        let at = |k: u32| point(k as usize).unwrap_or_else(Vec3::zeros);
        let (mut lo, mut hi) = (
            Vec3::repeat(Real::INFINITY),
            Vec3::repeat(Real::NEG_INFINITY),
        );
        for &k in order {
            let x = at(k);
            lo = lo.inf(&x);
            hi = hi.sup(&x);
        }
        self.clear();
        if order.len() < 2 || !(hi - lo).iter().all(|e| e.is_finite()) {
            return;
        }
        // Cells at least the reach wide (a margin for rounding), at most about 4 per row.
        let mut cell = reach * (1.0 + 1e-9);
        let extent = |cell: Real| -> [usize; 3] {
            std::array::from_fn(|a| {
                if a < dims {
                    ((hi[a] - lo[a]) / cell).floor() as usize + 1
                } else {
                    1
                }
            })
        };
        while extent(cell).iter().map(|&e| e as f64).product::<f64>()
            > (4 * order.len() + 64) as f64
        {
            cell *= 2.0;
        }
        let base = extent(cell);
        // The levels' buffers are reused from build to build (nothing allocated per step once
        // the sizes have been seen).
        let mut spare = std::mem::take(&mut self.pool);
        spare.reverse();
        let mut level = spare.pop().unwrap_or_default();
        level.reset(base);
        self.cell_of_row.resize(n, u32::MAX);
        for &k in order {
            let x = at(k);
            let c: [u32; 3] = std::array::from_fn(|a| {
                if a < dims {
                    (((x[a] - lo[a]) / cell) as usize).min(base[a] - 1) as u32
                } else {
                    0
                }
            });
            self.cell_of_row[k as usize] = level.add(c);
        }
        for _ in 0..MAX_LEVELS {
            if level.coords.len() <= 1 {
                break;
            }
            let mut up = spare.pop().unwrap_or_default();
            up.reset(level.dims.map(|d| d.div_ceil(2)));
            level.parent.clear();
            for i in 0..level.coords.len() {
                let c = level.coords[i].map(|x| x / 2);
                level.parent.push(up.add(c));
            }
            self.levels.push(std::mem::replace(&mut level, up));
        }
        self.levels.push(level);
        // The rest keep their buffers for a deeper hierarchy later (finest first).
        spare.reverse();
        self.pool = spare;
    }
}

impl Level {
    /// The compact cell at `c`, added if new.
    fn add(&mut self, c: [u32; 3]) -> u32 {
        let g = self.grid(c);
        if self.map[g] == u32::MAX {
            self.map[g] = self.coords.len() as u32;
            self.coords.push(c);
        }
        self.map[g]
    }

    /// Grid index of coordinates `c`.
    #[inline]
    fn grid(&self, c: [u32; 3]) -> usize {
        c[0] as usize + self.dims[0] * (c[1] as usize + self.dims[1] * c[2] as usize)
    }

    /// Empties the level for a grid of `dims` cells.
    fn reset(&mut self, dims: [usize; 3]) {
        self.dims = dims;
        self.map.clear();
        self.map.resize(dims[0] * dims[1] * dims[2], u32::MAX);
        self.coords.clear();
        self.parent.clear();
    }

    /// The compact cell at `c + o`, if it holds rows.
    #[inline]
    fn neighbour(&self, c: [u32; 3], o: [i64; 3]) -> Option<usize> {
        let mut q = [0u32; 3];
        for a in 0..3 {
            let x = c[a] as i64 + o[a];
            if x < 0 || x >= self.dims[a] as i64 {
                return None;
            }
            q[a] = x as u32;
        }
        let m = self.map[self.grid(q)];
        (m != u32::MAX).then_some(m as usize)
    }
}

/// The stencil slot of offset `o` (each component in `−REACH..=REACH`; z ignored in 2D).
#[inline]
fn slot(o: [i64; 3], dims: usize) -> usize {
    let s = |x: i64| (x + REACH) as usize;
    let z = if dims == 3 { s(o[2]) } else { 0 };
    s(o[0]) + WIDTH * (s(o[1]) + WIDTH * z)
}

/// Stencil entries per cell: `WIDTH^dims`.
#[inline]
fn stencil(dims: usize) -> usize {
    WIDTH.pow(dims as u32)
}

/// The level-0 cell of row `k`, if it has one.
#[inline]
fn cell(cell_of_row: &[u32], k: u32) -> Option<usize> {
    let c = cell_of_row[k as usize];
    (c != u32::MAX).then_some(c as usize)
}

/// The 3D stencil's offsets, x fastest, then y, then z.
const OFFSETS: [[i64; 3]; WIDTH * WIDTH * WIDTH] = {
    let mut a = [[0; 3]; WIDTH * WIDTH * WIDTH];
    let mut i = 0;
    while i < a.len() {
        let w = WIDTH as i64;
        let k = i as i64;
        a[i] = [k % w - REACH, (k / w) % w - REACH, k / (w * w) - REACH];
        i += 1;
    }
    a
};

/// The offsets of the stencil (z fixed at 0 for planar problems), x fastest.
fn offsets(dims: usize) -> &'static [[i64; 3]] {
    if dims == 3 {
        &OFFSETS
    } else {
        // The z = 0 layer.
        let layer = WIDTH * WIDTH;
        &OFFSETS[REACH as usize * layer..(REACH as usize + 1) * layer]
    }
}

/// Per-solve state of the corrections: the Galerkin operators and the cells' slopes, lower
/// bounds and steps at every level. Scratch kept in the solver's workspace.
#[derive(Debug, Default, Clone)]
pub struct Cycle {
    /// Whether `op` holds this solve's operators.
    built: bool,
    /// Per level: `WIDTH^dims` stencil entries per cell.
    op: Vec<Vec<Real>>,
    /// Per level: the cells' slopes (m/s).
    slope: Vec<Vec<Real>>,
    /// Per level: the lowest admissible common step of each cell's rows.
    floor: Vec<Vec<Real>>,
    /// Per level: the step of each cell, its own and its coarser levels'.
    step: Vec<Vec<Real>>,
    /// The family's row values, then the impulse changes (family order).
    w: Vec<Real>,
    /// Accumulation of one point's column by cell.
    local: Vec<(u32, Vec3)>,
}

/// What the corrections read: the coloured family and its rows' data in colouring order
/// (position `p` is row `order[p]`).
pub(crate) struct Coarse<'a> {
    pub(crate) rows: &'a dyn ColouredRows,
    pub(crate) h: &'a Hierarchy,
    pub(crate) order: &'a [u32],
    pub(crate) bias: &'a [Real],
    pub(crate) eps: &'a [Real],
    pub(crate) lo: &'a [Real],
}

impl<'a> Coarse<'a> {
    /// The corrections of the coloured rows, if their colouring carries cells; their operators
    /// are built into `cycle` by the first correction (a solve that converges in its first
    /// sweep never builds them); `[bias, compliance, lower bound]` in colouring order.
    pub(crate) fn new(
        col: Option<&super::Coloured<'a>>,
        [bias, eps, lo]: [&'a [Real]; 3],
        cycle: &mut Cycle,
    ) -> Option<Self> {
        let c = col.filter(|c| !c.colouring.levels.is_empty())?;
        let cs = Coarse {
            rows: c.rows,
            h: &c.colouring.levels,
            order: &c.colouring.rows,
            bias,
            eps,
            lo,
        };
        cycle.built = false;
        Some(cs)
    }

    /// Builds the Galerkin operators of every level into `cy` (module docs).
    fn operators(&self, cy: &mut Cycle) {
        let (h, nl, dims) = (self.h, self.h.levels.len(), self.h.dims);
        let st = stencil(dims);
        for v in [&mut cy.op, &mut cy.slope, &mut cy.floor, &mut cy.step] {
            v.resize(nl, Vec::new());
        }
        for (l, level) in h.levels.iter().enumerate() {
            let op = &mut cy.op[l];
            op.clear();
            op.resize(level.coords.len() * st, 0.0);
        }
        let Some(columns) = self.rows.point_columns() else {
            return;
        };
        let (points, minv) = columns.point_blocks();
        let (cell_of_row, l0, local) = (&h.cell_of_row, &h.levels[0], &mut cy.local);
        let op = &mut cy.op[0];
        for p in 0..points {
            local.clear();
            columns.column(p, &mut |k, j| {
                let c = cell_of_row[k];
                // (A zero entry adds nothing: the neighbour lists' entries beyond the support,
                // whose rows may lie further from the point's other rows than the stencil.)
                if c == u32::MAX || j == Vec3::zeros() {
                    return;
                }
                match local.iter_mut().find(|e| e.0 == c) {
                    Some(e) => e.1 += j,
                    None => local.push((c, j)),
                }
            });
            for &(a, ga) in local.iter() {
                let ca = l0.coords[a as usize];
                for &(b, gb) in local.iter() {
                    let cb = l0.coords[b as usize];
                    let o = std::array::from_fn(|i| cb[i] as i64 - ca[i] as i64);
                    op[a as usize * st + slot(o, dims)] += ga.component_mul(&minv).dot(&gb);
                }
            }
        }
        for (p, &k) in self.order.iter().enumerate() {
            if let Some(c) = cell(cell_of_row, k) {
                op[c * st + slot([0; 3], dims)] += self.eps[p];
            }
        }
        for l in 1..nl {
            let (fine, coarse) = cy.op.split_at_mut(l);
            let (fine, coarse, level, up) =
                (&fine[l - 1], &mut coarse[0], &h.levels[l - 1], &h.levels[l]);
            for (a, ca) in level.coords.iter().enumerate() {
                let pa = up.coords[level.parent[a] as usize];
                for &o in offsets(dims) {
                    let e = fine[a * st + slot(o, dims)];
                    if e == 0.0 {
                        continue;
                    }
                    if let Some(b) = level.neighbour(*ca, o) {
                        let pb = up.coords[level.parent[b] as usize];
                        let po = std::array::from_fn(|i| pb[i] as i64 - pa[i] as i64);
                        coarse[level.parent[a] as usize * st + slot(po, dims)] += e;
                    }
                }
            }
        }
    }

    /// One correction pass (module docs): the impulses `lc` (colouring order) and velocities
    /// `v` move by the steps of every level, coarsest first.
    pub(crate) fn correct(&self, cy: &mut Cycle, v: &mut [Real], lc: &mut [Real]) {
        if !cy.built {
            self.operators(cy);
            cy.built = true;
        }
        let (h, nl, dims) = (self.h, self.h.levels.len(), self.h.dims);
        let (n, st) = (self.rows.len(), stencil(dims));
        cy.w.resize(n, 0.0);
        self.rows.mul_j(v, &mut cy.w);

        // Slopes and floors of the level-0 cells, then of every coarser level.
        let cells0 = h.levels[0].coords.len();
        let (s0, f0) = (&mut cy.slope[0], &mut cy.floor[0]);
        s0.clear();
        s0.resize(cells0, 0.0);
        f0.clear();
        f0.resize(cells0, Real::NEG_INFINITY);
        for (p, &k) in self.order.iter().enumerate() {
            if let Some(c) = cell(&h.cell_of_row, k) {
                s0[c] += cy.w[k as usize] + self.bias[p] + self.eps[p] * lc[p];
                f0[c] = f0[c].max(self.lo[p] - lc[p]);
            }
        }
        for l in 1..nl {
            let m = h.levels[l].coords.len();
            let (fine, coarse) = cy.slope.split_at_mut(l);
            let (ff, fc) = cy.floor.split_at_mut(l);
            let (sc, flc) = (&mut coarse[0], &mut fc[0]);
            sc.clear();
            sc.resize(m, 0.0);
            flc.clear();
            flc.resize(m, Real::NEG_INFINITY);
            for (a, &pa) in h.levels[l - 1].parent.iter().enumerate() {
                sc[pa as usize] += fine[l - 1][a];
                flc[pa as usize] = flc[pa as usize].max(ff[l - 1][a]);
            }
        }
        // From the coarsest level down: take the coarser steps into the slopes and floors,
        // then Gauss–Seidel over the level's cells.
        for l in (0..nl).rev() {
            let level = &h.levels[l];
            let m = level.coords.len();
            let step = &mut cy.step[l];
            step.clear();
            step.resize(m, 0.0);
            let op = &cy.op[l];
            let (slope, floor) = (&mut cy.slope[l], &mut cy.floor[l]);
            if l + 1 < nl {
                let (lower, upper) = cy.step.split_at_mut(l + 1);
                let (step, up) = (&mut lower[l], &upper[0]);
                for (a, &pa) in level.parent.iter().enumerate() {
                    step[a] = up[pa as usize];
                }
                for (a, ca) in level.coords.iter().enumerate() {
                    let mut s = 0.0;
                    for &o in offsets(dims) {
                        if let Some(b) = level.neighbour(*ca, o) {
                            s += op[a * st + slot(o, dims)] * step[b];
                        }
                    }
                    slope[a] += s;
                    floor[a] -= step[a];
                }
            }
            let step = &mut cy.step[l];
            for (a, ca) in level.coords.iter().enumerate() {
                let d = op[a * st + slot([0; 3], dims)];
                if d <= 0.0 {
                    continue;
                }
                let s = (-slope[a] / d).max(floor[a]);
                if !s.is_finite() || s == 0.0 {
                    continue;
                }
                for &o in offsets(dims) {
                    if let Some(b) = level.neighbour(*ca, o) {
                        // N is symmetric: N_ba = N_ab.
                        slope[b] += op[a * st + slot(o, dims)] * s;
                    }
                }
                floor[a] -= s;
                step[a] += s;
            }
        }
        // Every row of a level-0 cell moves by the cell's step.
        let dl = &mut cy.w;
        dl.iter_mut().for_each(|x| *x = 0.0);
        let step = &cy.step[0];
        for (p, &k) in self.order.iter().enumerate() {
            if let Some(c) = cell(&h.cell_of_row, k) {
                lc[p] += step[c];
                dl[k as usize] = step[c];
            }
        }
        self.rows.add_minv_jt(dl, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stencil's offsets: every offset within the reach once, x fastest, z = 0 in 2D.
    #[test]
    fn offsets_cover_the_stencil_in_order() {
        for dims in [2, 3] {
            let o = offsets(dims);
            assert_eq!(o.len(), stencil(dims));
            let z = if dims == 3 { -REACH..=REACH } else { 0..=0 };
            let expected: Vec<[i64; 3]> = z
                .flat_map(|z| {
                    (-REACH..=REACH).flat_map(move |y| (-REACH..=REACH).map(move |x| [x, y, z]))
                })
                .collect();
            assert_eq!(o, &expected[..]);
            for (k, &q) in o.iter().enumerate() {
                assert_eq!(slot(q, dims), k, "slot of {q:?}");
            }
        }
    }
}
