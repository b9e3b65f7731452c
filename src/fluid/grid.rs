//! Neighbour search on a uniform cell grid.
//!
//! The grid covers the bounding box of the points with cubic cells of edge ≥ the search radius;
//! a counting sort puts point indices in cell order (x fastest), so a point's neighbours are in
//! the 3^d cells around it. The number of cells is capped at 8 per point (cells grow when the
//! cloud is spread out), so memory stays proportional to the particle count. Neighbour lists are compressed rows (CSR) built in two parallel
//! passes (count, then fill disjoint slices): the result is independent of the thread count.
//! The cell order is also what the fluid arrays are sorted by, for cache locality.

use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// Points sorted into cells.
#[derive(Debug, Default, Clone)]
pub struct CellGrid {
    cell: Real,
    min: Vec3,
    dims: [usize; 3],
    /// `start[c]..start[c + 1]` indexes `items` for cell c.
    start: Vec<u32>,
    /// Point indices in cell order.
    pub items: Vec<u32>,
    keys: Vec<u32>,
    fill: Vec<u32>,
}

impl CellGrid {
    /// Sorts `pts` into cells of edge `cell` (m). `planar` collapses z to one layer.
    pub fn build(&mut self, pts: &[Vec3], cell: Real, planar: bool) {
        assert!(cell > 0.0, "cell size must be positive");
        self.cell = cell;
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
        self.min = lo;
        // A cloud spread far beyond its spacing (a diverging run) would need an unbounded number
        // of cells: cap them at 8 per point by enlarging the cells (still ≥ the search radius,
        // so the search stays exact, only slower).
        let axes = if planar { 2 } else { 3 };
        let max_cells = (8 * pts.len()).max(4096) as Real;
        let count = |c: Real| {
            (0..axes)
                .map(|a| ((hi[a] - lo[a]) / c).floor() + 1.0)
                .product::<Real>()
        };
        let mut cell = cell;
        if count(cell) > max_cells {
            cell *= (count(cell) / max_cells).powf(1.0 / axes as Real);
            while count(cell) > max_cells {
                cell *= 1.1;
            }
        }
        self.cell = cell;
        for a in 0..3 {
            self.dims[a] = if planar && a == 2 {
                1
            } else {
                (((hi[a] - lo[a]) / cell).floor() as usize).saturating_add(1)
            };
        }
        let ncell = self.dims[0] * self.dims[1] * self.dims[2];
        self.keys.clear();
        self.keys.resize(pts.len(), 0);
        let (min, dims) = (self.min, self.dims);
        let cell = self.cell;
        self.keys
            .par_iter_mut()
            .zip(pts.par_iter())
            .for_each(|(k, p)| {
                *k = cell_key(p, &min, cell, &dims);
            });
        self.start.clear();
        self.start.resize(ncell + 1, 0);
        for &k in &self.keys {
            self.start[k as usize + 1] += 1;
        }
        for c in 0..ncell {
            self.start[c + 1] += self.start[c];
        }
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

    /// After the points were reordered by [`CellGrid::items`] (same points, cell order), makes
    /// the grid describe the reordered points without a rebuild: the cells are unchanged and
    /// point i of the new order is item i.
    pub fn renumber_sorted(&mut self) {
        for (i, it) in self.items.iter_mut().enumerate() {
            *it = i as u32;
        }
    }

    /// Calls `f` with every point index in the cells around `p` (3^d cells).
    #[inline]
    pub fn for_each_near(&self, p: &Vec3, mut f: impl FnMut(u32)) {
        let c = [0, 1, 2].map(|a| ((p[a] - self.min[a]) / self.cell).floor() as i64);
        let range = |a: usize| {
            let lo = c[a].saturating_sub(1).max(0);
            let hi = c[a].saturating_add(1).min(self.dims[a] as i64 - 1);
            lo..=hi
        };
        for z in range(2) {
            for y in range(1) {
                let row = (z as usize * self.dims[1] + y as usize) * self.dims[0];
                let xs = range(0);
                if xs.is_empty() {
                    continue;
                }
                let (a, b) = (row + *xs.start() as usize, row + *xs.end() as usize);
                for &i in &self.items[self.start[a] as usize..self.start[b + 1] as usize] {
                    f(i);
                }
            }
        }
    }
}

#[inline]
fn cell_key(p: &Vec3, min: &Vec3, cell: Real, dims: &[usize; 3]) -> u32 {
    let c = |a: usize| (((p[a] - min[a]) / cell).floor().max(0.0) as usize).min(dims[a] - 1);
    ((c(2) * dims[1] + c(1)) * dims[0] + c(0)) as u32
}

/// Neighbour lists in compressed-row form: the neighbours of query i are
/// `list[start[i]..start[i + 1]]`, sorted by index.
#[derive(Debug, Default, Clone)]
pub struct Neighbours {
    /// Row starts (length: queries + 1).
    pub start: Vec<u32>,
    /// Neighbour indices.
    pub list: Vec<u32>,
}

impl Neighbours {
    /// Neighbours of query `i`.
    #[inline]
    pub fn of(&self, i: usize) -> &[u32] {
        &self.list[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Finds, for each query point, the points of `grid` (positions `pts`) closer than
    /// `radius` (m); with `skip_self`, query i skips point i (queries and points the same set).
    pub fn build(
        &mut self,
        queries: &[Vec3],
        grid: &CellGrid,
        pts: &[Vec3],
        radius: Real,
        skip_self: bool,
    ) {
        let r2 = radius * radius;
        let count = |i: usize| {
            let mut n = 0u32;
            grid.for_each_near(&queries[i], |j| {
                if !(skip_self && j as usize == i)
                    && (pts[j as usize] - queries[i]).norm_squared() < r2
                {
                    n += 1;
                }
            });
            n
        };
        self.start.clear();
        self.start.resize(queries.len() + 1, 0);
        self.start[1..]
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, s)| *s = count(i));
        for i in 0..queries.len() {
            self.start[i + 1] += self.start[i];
        }
        self.list.clear();
        self.list
            .resize(*self.start.last().unwrap_or(&0) as usize, 0);
        // Fill disjoint slices in parallel, in chunks of queries (each chunk writes its own
        // slice: the result does not depend on which thread takes it).
        const CHUNK: usize = 1024;
        let start = &self.start;
        let slices = {
            let mut rest: &mut [u32] = &mut self.list;
            let mut q0 = 0;
            std::iter::from_fn(move || {
                if q0 >= queries.len() {
                    return None;
                }
                let q1 = (q0 + CHUNK).min(queries.len());
                let len = (start[q1] - start[q0]) as usize;
                let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
                rest = tail;
                let chunk = (q0, q1, head);
                q0 = q1;
                Some(chunk)
            })
        };
        slices.par_bridge().for_each(|(q0, q1, out)| {
            let mut at = 0;
            for (i, q) in queries.iter().enumerate().take(q1).skip(q0) {
                let first = at;
                grid.for_each_near(q, |j| {
                    if !(skip_self && j as usize == i) && (pts[j as usize] - q).norm_squared() < r2
                    {
                        out[at] = j;
                        at += 1;
                    }
                });
                out[first..at].sort_unstable();
            }
        });
    }
}

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
        g.build(&pts, r, false);
        let mut nb = Neighbours::default();
        nb.build(&pts, &g, &pts, r, true);
        for i in 0..pts.len() {
            let brute: Vec<u32> = (0..pts.len() as u32)
                .filter(|&j| j as usize != i && (pts[j as usize] - pts[i]).norm() < r)
                .collect();
            assert_eq!(nb.of(i), &brute[..], "point {i}");
        }
        // Reordering the points into cell order and renumbering gives the same pairs.
        let sorted: Vec<Vec3> = g.items.iter().map(|&i| pts[i as usize]).collect();
        let old_index: Vec<u32> = g.items.clone();
        g.renumber_sorted();
        let mut nb2 = Neighbours::default();
        nb2.build(&sorted, &g, &sorted, r, true);
        for (i, &oi) in old_index.iter().enumerate() {
            let mut mapped: Vec<u32> = nb2.of(i).iter().map(|&j| old_index[j as usize]).collect();
            mapped.sort_unstable();
            assert_eq!(mapped, nb.of(oi as usize));
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
        g.build(&pts, 0.025, false);
        // At most max(8 n, 4096) cells (instead of ~1e31 at the requested cell size).
        assert!(g.start.len() <= (8 * pts.len()).max(4096) + 1);
        let mut nb = Neighbours::default();
        nb.build(&pts, &g, &pts, 0.025, true);
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
                g.build(&pts, 0.015, planar);
                assert!(g.start.len() <= (8 * pts.len()).max(4096) + 1);
                let mut nb = Neighbours::default();
                nb.build(&pts, &g, &pts, 0.015, true);
                for i in 1..49 {
                    assert_eq!(nb.of(i), &[i as u32 - 1, i as u32 + 1], "{bad} point {i}");
                }
            }
        }
    }
}
