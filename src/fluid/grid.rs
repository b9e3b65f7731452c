//! Neighbour search on a uniform cell grid.
//!
//! The grid covers the bounding box of the points with cells of edge ≥ the search radius;
//! a counting sort puts point indices in cell order (x fastest), so a point's neighbours are in
//! the 3^d cells around it. The number of cells is capped at 8 per point (cells grow when the
//! cloud is spread out), so memory stays proportional to the particle count. Neighbour lists are compressed rows (CSR) built in two parallel
//! passes (count, then fill disjoint slices): the result is independent of the thread count.
//! The cell order is also what the fluid arrays are sorted by, for cache locality.
//!
//! On a periodic axis ([`Periodic`]) the grid spans the period exactly, with a whole number of
//! cells (each ≥ the search radius), points are binned at their folded coordinate, and the
//! cells around a point wrap; distances are nearest-image.

use super::periodic::Periodic;
use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// Points sorted into cells.
#[derive(Debug, Default, Clone)]
pub struct CellGrid {
    /// Cell edge per axis (m).
    cell: Vec3,
    min: Vec3,
    dims: [usize; 3],
    periodic: Periodic,
    /// `start[c]..start[c + 1]` indexes `items` for cell c.
    start: crate::csr::RowStarts,
    /// Point indices in cell order.
    pub items: Vec<u32>,
    keys: Vec<u32>,
    fill: Vec<u32>,
    /// Whether item i is point i ([`CellGrid::renumber_sorted`]): a cell's points are then
    /// the index range `start[c]..start[c + 1]`.
    identity: bool,
}

impl CellGrid {
    /// Sorts `pts` into cells of edge ≥ `cell` (m). `planar` collapses z to one layer; the
    /// periodic axes of `periodic` wrap.
    pub fn build(&mut self, pts: &[Vec3], cell: Real, planar: bool, periodic: &Periodic) {
        assert!(cell > 0.0, "cell size must be positive");
        let (mut lo, mut hi) = (
            Vec3::repeat(Real::INFINITY),
            Vec3::repeat(Real::NEG_INFINITY),
        );
        // Bounds over the finite points only: a non-finite point (a diverged run, which the
        // runner's guard reports) is put in cell 0 and must not make the grid unbounded.
        for p in pts.iter().filter(|p| p.iter().all(|x| x.is_finite())) {
            lo = lo.inf(p);
            hi = hi.sup(p);
        }
        if lo.x > hi.x {
            lo = Vec3::zeros();
            hi = Vec3::zeros();
        }
        for a in 0..3 {
            if periodic.on(a) {
                lo[a] = periodic.lo[a];
                hi[a] = periodic.lo[a] + periodic.len[a];
            }
        }
        self.min = lo;
        self.periodic = *periodic;
        // A cloud spread far beyond its spacing (a diverging run) would need an unbounded number
        // of cells: cap them at 8 per point by enlarging the cells (still ≥ the search radius,
        // so the search stays exact, only slower).
        let axes = if planar { 2 } else { 3 };
        let max_cells = (8 * pts.len()).max(4096) as Real;
        // Cells along axis a for a requested edge c: a whole number spanning the period on a
        // periodic axis (so each cell is ≥ c), the bounding box plus one otherwise.
        let along = |a: usize, c: Real| {
            if periodic.on(a) {
                (periodic.len[a] / c).floor().max(1.0)
            } else {
                ((hi[a] - lo[a]) / c).floor() + 1.0
            }
        };
        let count = |c: Real| (0..axes).map(|a| along(a, c)).product::<Real>();
        let mut cell = cell;
        if count(cell) > max_cells {
            cell *= (count(cell) / max_cells).powf(1.0 / axes as Real);
            while count(cell) > max_cells {
                cell *= 1.1;
            }
        }
        for a in 0..3 {
            self.dims[a] = if planar && a == 2 {
                1
            } else {
                (along(a, cell) as usize).max(1)
            };
            self.cell[a] = if periodic.on(a) {
                periodic.len[a] / self.dims[a] as Real
            } else {
                cell
            };
        }
        let ncell = self.dims[0] * self.dims[1] * self.dims[2];
        self.keys.clear();
        self.keys.resize(pts.len(), 0);
        let (min, dims, cell) = (self.min, self.dims, self.cell);
        self.keys
            .par_iter_mut()
            .zip(pts.par_iter())
            .for_each(|(k, p)| {
                let mut q = *p;
                periodic.wrap(&mut q);
                *k = cell_key(&q, &min, &cell, &dims);
            });
        self.start.reset(ncell);
        for &k in &self.keys {
            self.start[k as usize + 1] += 1;
        }
        self.start.prefix_sum();
        self.identity = false;
        self.items.clear();
        self.items.resize(pts.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.start[..ncell]);
        for (i, &k) in self.keys.iter().enumerate() {
            let slot = &mut self.fill[k as usize];
            self.items[*slot as usize] = i as u32;
            *slot += 1;
        }
    }

    /// The periodic axes the grid was built with.
    pub fn periodic(&self) -> &Periodic {
        &self.periodic
    }

    /// After the points were reordered by [`CellGrid::items`] (same points, cell order), makes
    /// the grid describe the reordered points without a rebuild: the cells are unchanged and
    /// point i of the new order is item i.
    pub fn renumber_sorted(&mut self) {
        for (i, it) in self.items.iter_mut().enumerate() {
            *it = i as u32;
        }
        self.identity = true;
    }

    /// Cell index of `p` along axis `a` (unclamped; folded on a periodic axis).
    #[inline(always)]
    fn cell_of(&self, p: &Vec3, a: usize) -> i64 {
        let c = crate::math::floor_i64((p[a] - self.min[a]) / self.cell[a]);
        if self.periodic.on(a) {
            c.rem_euclid(self.dims[a] as i64)
        } else {
            c
        }
    }

    /// The distinct cells around cell `c` along axis `a`, as up to two inclusive runs of
    /// consecutive cells (two where a periodic axis wraps); `n` runs are valid.
    #[inline(always)]
    fn runs(&self, a: usize, c: i64) -> ([(i64, i64); 2], usize) {
        let d = self.dims[a] as i64;
        if !self.periodic.on(a) {
            let lo = c.saturating_sub(1).max(0);
            let hi = c.saturating_add(1).min(d - 1);
            return ([(lo, hi), (0, -1)], usize::from(lo <= hi));
        }
        if d < 3 {
            return ([(0, d - 1), (0, -1)], 1);
        }
        match c {
            0 => ([(0, 1), (d - 1, d - 1)], 2),
            c if c == d - 1 => ([(0, 0), (d - 2, d - 1)], 2),
            c => ([(c - 1, c + 1), (0, -1)], 1),
        }
    }

    /// Distance (m) from `p` to the nearest of the points `pts` the grid was built from that lie
    /// in the cells around `p` and pass `keep` (given their offset from `p`, nearest periodic
    /// image); infinite when none does. A build-time query (moving bodies' sampling, `check`'s
    /// warnings), not a neighbour search.
    pub fn nearest(&self, pts: &[Vec3], p: &Vec3, keep: impl Fn(&Vec3) -> bool) -> Real {
        let mut d = Real::INFINITY;
        self.for_each_near(p, |i| {
            let r = self.periodic.delta(&pts[i as usize], p);
            if keep(&r) {
                d = d.min(r.norm());
            }
        });
        d
    }

    /// Calls `f` with every point index in the cells around `p` (3^d cells).
    #[inline]
    pub fn for_each_near(&self, p: &Vec3, mut f: impl FnMut(u32)) {
        self.for_each_run(p, |s, e| self.items[s..e].iter().for_each(|&i| f(i)));
    }

    /// The cells around `p` as runs of [`CellGrid::items`]: `f(s, e)` for the items `s..e` of
    /// each run of consecutive cells, in the order [`CellGrid::for_each_near`] visits them.
    #[inline(always)]
    fn for_each_run(&self, p: &Vec3, mut f: impl FnMut(usize, usize)) {
        let c = [0, 1, 2].map(|a| self.cell_of(p, a));
        let (rz, nz) = self.runs(2, c[2]);
        let (ry, ny) = self.runs(1, c[1]);
        let (rx, nx) = self.runs(0, c[0]);
        for &(z0, z1) in &rz[..nz] {
            for z in z0..=z1 {
                for &(y0, y1) in &ry[..ny] {
                    for y in y0..=y1 {
                        let row = (z as usize * self.dims[1] + y as usize) * self.dims[0];
                        for &(x0, x1) in &rx[..nx] {
                            let (a, b) = (row + x0 as usize, row + x1 as usize);
                            f(self.start[a] as usize, self.start[b + 1] as usize);
                        }
                    }
                }
            }
        }
    }
}

#[inline]
fn cell_key(p: &Vec3, min: &Vec3, cell: &Vec3, dims: &[usize; 3]) -> u32 {
    let c = |a: usize| {
        (crate::math::floor_i64((p[a] - min[a]) / cell[a]).max(0) as usize).min(dims[a] - 1)
    };
    ((c(2) * dims[1] + c(1)) * dims[0] + c(0)) as u32
}

/// Neighbour lists in compressed-row form: the neighbours of query i, sorted by index, are
/// entries `start[i]..start[i + 1]` of the lists of all queries in query order. The entries
/// are kept in the search's buffers, one per chunk of 1024 queries, not joined into one
/// array: that copy doubled the lists' memory (about 400 bytes per particle in 3D). A clone
/// shares the entries (the density rows hold one during the solve instead of a copy, 300 bytes
/// per particle in 3D); a search while a clone is alive fills new buffers.
#[derive(Debug, Default)]
pub struct Neighbours {
    /// Row starts (length: queries + 1).
    pub start: crate::csr::RowStarts,
    /// Per chunk of queries: its neighbours and their counts (the counts only while searching).
    chunks: std::sync::Arc<Vec<(Vec<u32>, Vec<u32>)>>,
    /// Chunks in use (buffers past them are kept for a larger search).
    used: usize,
}

impl Clone for Neighbours {
    fn clone(&self) -> Self {
        Neighbours {
            start: self.start.clone(),
            chunks: self.chunks.clone(),
            used: self.used,
        }
    }

    /// Shares `source`'s entries, copying only its row starts (into this one's buffer).
    fn clone_from(&mut self, source: &Self) {
        self.start.copy_from(&source.start);
        self.chunks = source.chunks.clone();
        self.used = source.used;
    }
}

impl Neighbours {
    /// Neighbours of query `i`.
    #[inline(always)]
    pub fn of(&self, i: usize) -> &[u32] {
        let c = i / CHUNK;
        let base = self.start[c * CHUNK] as usize;
        let r = self.start.range(i);
        &self.chunks[c].0[r.start - base..r.end - base]
    }

    /// All entries, query by query (`start` indexes them).
    pub fn entries(&self) -> impl Iterator<Item = &u32> + '_ {
        self.chunks[..self.used].iter().flat_map(|c| c.0.iter())
    }

    /// Appends all entries, query by query, to `out`.
    pub fn extend_into(&self, out: &mut Vec<u32>) {
        out.reserve(self.start.entries());
        for c in &self.chunks[..self.used] {
            out.extend_from_slice(&c.0);
        }
    }

    /// Finds, for each query point, the points of `grid` (positions `pts`) closer than
    /// `radius` (m); with `skip_self`, query i skips point i (queries and points the same set);
    /// query i is left without neighbours where `skip[i]` holds (`skip` empty: none is).
    ///
    /// One pass over the candidates: chunks of 1024 queries each fill a buffer of their
    /// own (in parallel for large sets; kept between calls, so nothing is allocated once the
    /// sizes settle), and the buffers stay the lists: the result does not depend on the thread
    /// count.
    pub fn build(
        &mut self,
        queries: &[Vec3],
        grid: &CellGrid,
        pts: &[Vec3],
        radius: Real,
        skip_self: bool,
        skip: &[bool],
    ) {
        let r2 = radius * radius;
        let per = *grid.periodic();
        let periodic = per.any();
        let chunks = queries.len().div_ceil(CHUNK);
        if std::sync::Arc::get_mut(&mut self.chunks).is_none() {
            self.chunks = Default::default(); // shared with a clone: new buffers
        }
        let all = std::sync::Arc::make_mut(&mut self.chunks); // not shared: never copies
        if all.len() < chunks {
            all.resize_with(chunks, Default::default);
        }
        let fill = |(c, (list, counts)): (usize, &mut (Vec<u32>, Vec<u32>))| {
            list.clear();
            counts.clear();
            let q0 = c * CHUNK;
            for (i, q) in queries.iter().enumerate().take(q0 + CHUNK).skip(q0) {
                if skip.get(i).copied().unwrap_or(false) {
                    counts.push(0);
                    continue;
                }
                let first = list.len();
                if grid.identity {
                    // (Grid item j is point j: each run of cells is a range of points, read in
                    // place; the same pairs in the same order as the general path.)
                    grid.for_each_run(q, |s, e| {
                        for (j, p) in (s..e).zip(&pts[s..e]) {
                            // (`per.delta` checks `any()` itself; hoisted here, the flume
                            // stepped 2 % faster over five pairs of runs, within the noise.)
                            let d = if periodic { per.delta(p, q) } else { p - q };
                            if d.norm_squared() < r2 && !(skip_self && j == i) {
                                list.push(j as u32);
                            }
                        }
                    });
                } else {
                    let mut keep = |j: u32| {
                        if !(skip_self && j as usize == i)
                            && per.delta(&pts[j as usize], q).norm_squared() < r2
                        {
                            list.push(j);
                        }
                    };
                    grid.for_each_near(q, &mut keep);
                    list[first..].sort_unstable();
                }
                // (The runs come in ascending cell order, so in place they are sorted already.)
                debug_assert!(list[first..].is_sorted());
                counts.push((list.len() - first) as u32);
            }
        };
        let bufs = &mut all[..chunks];
        if queries.len() < super::PARALLEL_MIN_ROWS {
            bufs.iter_mut().enumerate().for_each(fill);
        } else {
            bufs.par_iter_mut().enumerate().for_each(fill);
        }
        self.start.begin();
        let mut end = 0;
        for (_, counts) in bufs.iter() {
            for &n in counts {
                end += n as usize;
                self.start.close_row(end);
            }
        }
        self.used = chunks;
    }
}

/// Queries per chunk of a neighbour search (and of the lists' storage).
const CHUNK: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    /// The grid finds exactly the pairs a brute-force search finds.
    #[test]
    fn grid_matches_brute_force() {
        let mut pts = Vec::new();
        let mut s: u64 = 12345;
        let mut rnd = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as Real / (1u64 << 53) as Real
        };
        for _ in 0..2000 {
            pts.push(Vec3::new(rnd(), 0.5 * rnd(), 0.3 * rnd()));
        }
        let r = 0.07;
        let mut g = CellGrid::default();
        g.build(&pts, r, false, &Periodic::NONE);
        let mut nb = Neighbours::default();
        nb.build(&pts, &g, &pts, r, true, &[]);
        for i in 0..pts.len() {
            let brute: Vec<u32> = (0..pts.len() as u32)
                .filter(|&j| j as usize != i && (pts[j as usize] - pts[i]).norm() < r)
                .collect();
            assert_eq!(nb.of(i), &brute[..], "point {i}");
        }
        // Skipped queries have no neighbours; the others keep theirs.
        let skip: Vec<bool> = (0..pts.len()).map(|i| i % 3 == 0).collect();
        let mut part = Neighbours::default();
        part.build(&pts, &g, &pts, r, true, &skip);
        for (i, &skipped) in skip.iter().enumerate() {
            let want: &[u32] = if skipped { &[] } else { nb.of(i) };
            assert_eq!(part.of(i), want, "point {i}");
        }
        // Reordering the points into cell order and renumbering gives the same pairs.
        let sorted: Vec<Vec3> = g.items.iter().map(|&i| pts[i as usize]).collect();
        let old_index: Vec<u32> = g.items.clone();
        g.renumber_sorted();
        let mut nb2 = Neighbours::default();
        nb2.build(&sorted, &g, &sorted, r, true, &[]);
        for (i, &oi) in old_index.iter().enumerate() {
            // (Read in place, the lists come sorted without a sort.)
            assert!(nb2.of(i).is_sorted(), "point {i}");
            let mut mapped: Vec<u32> = nb2.of(i).iter().map(|&j| old_index[j as usize]).collect();
            mapped.sort_unstable();
            assert_eq!(mapped, nb.of(oi as usize));
        }
        // The same in cell order with both axes of the plane periodic (runs that wrap): sorted
        // lists of the nearest-image pairs.
        let per = Periodic::NONE.with_axis(0, 0.0, 1.0).with_axis(1, 0.0, 0.5);
        let flat: Vec<Vec3> = pts.iter().map(|p| Vec3::new(p.x, p.y, 0.0)).collect();
        let mut g = CellGrid::default();
        g.build(&flat, r, true, &per);
        let flat: Vec<Vec3> = g.items.iter().map(|&i| flat[i as usize]).collect();
        g.renumber_sorted();
        nb2.build(&flat, &g, &flat, r, true, &[]);
        for (i, p) in flat.iter().enumerate() {
            let brute: Vec<u32> = (0..flat.len() as u32)
                .filter(|&j| j as usize != i && per.delta(&flat[j as usize], p).norm() < r)
                .collect();
            assert_eq!(nb2.of(i), &brute[..], "periodic point {i}");
        }
    }
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    /// A far-away outlier enlarges the cells instead of allocating billions of them, and the
    /// neighbour lists stay exact.
    #[test]
    fn an_outlier_does_not_blow_up_the_grid() {
        let mut pts: Vec<Vec3> = (0..100)
            .map(|i| Vec3::new(0.01 * i as Real, 0.0, 0.0))
            .collect();
        pts.push(Vec3::new(1e9, 1e9, 1e9));
        let mut g = CellGrid::default();
        g.build(&pts, 0.025, false, &Periodic::NONE);
        // At most max(8 n, 4096) cells (instead of ~1e31 at the requested cell size).
        assert!(g.start.len() <= (8 * pts.len()).max(4096) + 1);
        let mut nb = Neighbours::default();
        nb.build(&pts, &g, &pts, 0.025, true, &[]);
        assert_eq!(nb.of(50), &[48, 49, 51, 52]);
        assert!(nb.of(100).is_empty());
    }

    /// Non-finite points (a diverged state) neither panic nor disturb the finite ones: the grid
    /// stays bounded and the finite points keep their exact neighbours.
    #[test]
    fn non_finite_points_are_harmless() {
        for bad in [Real::NAN, Real::INFINITY, Real::NEG_INFINITY, 1e300] {
            let mut pts: Vec<Vec3> = (0..50)
                .map(|i| Vec3::new(0.01 * i as Real, 0.0, 0.0))
                .collect();
            pts.push(Vec3::new(bad, -bad, 0.0));
            pts.push(Vec3::new(0.0, bad, bad));
            for planar in [false, true] {
                let mut g = CellGrid::default();
                g.build(&pts, 0.015, planar, &Periodic::NONE);
                assert!(g.start.len() <= (8 * pts.len()).max(4096) + 1);
                let mut nb = Neighbours::default();
                nb.build(&pts, &g, &pts, 0.015, true, &[]);
                for i in 1..49 {
                    assert_eq!(nb.of(i), &[i as u32 - 1, i as u32 + 1], "{bad} point {i}");
                }
            }
        }
    }
}

#[cfg(test)]
mod periodic_tests {
    use super::*;

    /// With periodic axes the grid finds exactly the pairs a brute-force nearest-image search
    /// finds, for periods of 1, 2, 3 and many cells, points outside the period included.
    #[test]
    fn periodic_grid_matches_brute_force() {
        let mut s: u64 = 99;
        let mut rnd = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as Real / (1u64 << 53) as Real
        };
        let pts: Vec<Vec3> = (0..1500)
            .map(|_| Vec3::new(1.2 * rnd() - 0.1, 0.6 * rnd(), 0.3 * rnd()))
            .collect();
        for (lx, r) in [(1.0, 0.07), (0.2, 0.07), (0.15, 0.07), (0.1, 0.07)] {
            for planar in [false, true] {
                let per = Periodic::NONE.with_axis(0, 0.0, lx).with_axis(1, 0.0, 0.6);
                let pts: Vec<Vec3> = pts
                    .iter()
                    .map(|p| if planar { Vec3::new(p.x, p.y, 0.0) } else { *p })
                    .collect();
                let mut g = CellGrid::default();
                g.build(&pts, r, planar, &per);
                let mut nb = Neighbours::default();
                nb.build(&pts, &g, &pts, r, true, &[]);
                for i in (0..pts.len()).step_by(7) {
                    let brute: Vec<u32> = (0..pts.len() as u32)
                        .filter(|&j| {
                            j as usize != i && per.delta(&pts[j as usize], &pts[i]).norm() < r
                        })
                        .collect();
                    assert_eq!(
                        nb.of(i),
                        &brute[..],
                        "period {lx}, planar {planar}, point {i}"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod share_tests {
    use super::*;

    /// A clone shares the lists; a search while it is alive leaves the clone's lists as they
    /// were (the density rows hold one through the solve), and once the clone is gone a search
    /// refills the same buffers.
    #[test]
    fn a_clone_keeps_its_lists_through_a_search() {
        let line = |dx: Real| -> Vec<Vec3> {
            (0..3000)
                .map(|i| Vec3::new(i as Real * dx, 0.0, 0.0))
                .collect()
        };
        let (a, b) = (line(0.01), line(0.02));
        let mut g = CellGrid::default();
        g.build(&a, 0.025, true, &Periodic::NONE);
        let mut nb = Neighbours::default();
        nb.build(&a, &g, &a, 0.025, true, &[]);
        let mut held = Neighbours::default();
        held.clone_from(&nb);
        assert!(std::sync::Arc::ptr_eq(&held.chunks, &nb.chunks));
        g.build(&b, 0.025, true, &Periodic::NONE);
        nb.build(&b, &g, &b, 0.025, true, &[]);
        assert!(!std::sync::Arc::ptr_eq(&held.chunks, &nb.chunks));
        // Spacing 0.01 within 0.025: two on each side; 0.02: one on each side.
        assert_eq!(held.of(1500), &[1498, 1499, 1501, 1502]);
        assert_eq!(nb.of(1500), &[1499, 1501]);
        drop(held);
        let before = std::sync::Arc::as_ptr(&nb.chunks);
        nb.build(
            &a,
            &{
                let mut g = CellGrid::default();
                g.build(&a, 0.025, true, &Periodic::NONE);
                g
            },
            &a,
            0.025,
            true,
            &[],
        );
        assert_eq!(
            std::sync::Arc::as_ptr(&nb.chunks),
            before,
            "buffers not reused"
        );
        assert_eq!(nb.of(1500), &[1498, 1499, 1501, 1502]);
    }
}
