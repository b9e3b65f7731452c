//! Independent groups of rows for a parallel Gauss–Seidel sweep (multicolour ordering).
//!
//! A family whose rows each touch only the degrees of freedom of points within a distance
//! `reach` of a point of its own (an SPH density row: its particle and its neighbours within
//! the kernel support) can be swept in parallel. [`Colouring::by_bands`] cuts the rows across
//! one axis into pieces of about equal row count and takes out a band of width `2 reach`
//! around each cut. Colour 0 is the pieces, colour 1 the bands. Two pieces are separated by a
//! band, two bands by more than a band, so two groups of one colour share no degree of freedom:
//! they run at the same time, each swept in row order by one thread; the colours run one after
//! the other. The order of the updates (colour, group, row) depends only on the points, never
//! on the number of threads, so the result is the same on any machine. (Multicolour and
//! domain-decomposition orderings of Gauss–Seidel: Adams & Jordan 1986, "Is SOR color-blind?",
//! SIAM J. Sci. Stat. Comput. 7(2); Saad 2003, *Iterative Methods for Sparse Linear Systems*,
//! §12.4.)
//!
//! Why pieces and bands rather than a fine colouring: with the particles in cell order, a
//! piece is a run of rows swept in the natural order, which carries information across the
//! whole piece in one sweep (the hydrostatic column below a particle, for instance). Measured on
//! the 20 000-particle dam break at 10 sweeps per step over 0.1 s, largest compression: natural
//! order 1.24 %, pieces and bands 1.21 %, squares of `2 reach` in 4 colours 1.62 %, alternating
//! horizontal slabs 2.09 %, vertical strips 2.33 %.
//!
//! Rows the colouring cannot place (a row that also touches a rigid body, whose degrees of
//! freedom are shared by many rows, or a row at a non-finite point) are listed in
//! [`Colouring::serial`] and swept one by one after the colours.
//!
//! During the parallel phase the velocities live in a [`SharedVec`]: relaxed atomic loads and
//! stores (plain moves on x86-64 and ARM), so concurrent groups need no locks and no `unsafe`;
//! the colouring guarantees that no two running groups touch one entry.

use super::ColouredRows;
use crate::math::{Real, Vec3};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Number of colours: the pieces, then the bands between them.
pub const COLOURS: usize = 2;

/// Groups of rows, by colour (see the module doc). Row indices are the family's own.
#[derive(Debug, Default, Clone)]
pub struct Colouring {
    /// Colour c has the groups `colour_start[c]..colour_start[c + 1]` (length `COLOURS + 1`).
    pub colour_start: crate::csr::RowStarts,
    /// Group g has the rows `rows[group_start[g]..group_start[g + 1]]`.
    pub group_start: crate::csr::RowStarts,
    /// Coloured rows, by colour, then group, then row index.
    pub rows: Vec<u32>,
    /// Rows swept one by one after the colours, in row order.
    pub serial: Vec<u32>,
    /// The degrees of freedom the coloured rows touch (a range of the velocity vector).
    pub dofs: Range<usize>,
    /// Coordinates of the cuts (m), ascending.
    pub cuts: Vec<Real>,
    /// Aggregates of the coloured rows for multilevel corrections ([`super::multilevel`]);
    /// empty for plain PGS.
    pub levels: super::multilevel::Hierarchy,
    keys: Vec<u32>,
    count: Vec<u32>,
    /// Each row's coordinate along the cut axis (scratch of [`Colouring::by_bands`]).
    xs: Vec<Real>,
}

/// Rows per piece: a colouring of `n` rows cuts them into about `n / ROWS_PER_PIECE` pieces.
pub const ROWS_PER_PIECE: usize = 2048;

/// Fewest rows that are cut into two pieces when they would make one
/// ([`Colouring::by_bands`]).
pub const SPLIT_ROWS: usize = 1024;

/// The axis (of the first `axes`) along which the rows' points spread furthest.
fn longest_axis(n: usize, point: impl Fn(usize) -> Option<Vec3>, axes: usize) -> usize {
    let mut lo = Vec3::repeat(Real::INFINITY);
    let mut hi = Vec3::repeat(Real::NEG_INFINITY);
    for p in (0..n).filter_map(&point) {
        if p.iter().all(|x| x.is_finite()) {
            lo = lo.inf(&p);
            hi = hi.sup(&p);
        }
    }
    let extent = hi - lo;
    (0..axes).fold(0, |a, b| if extent[b] > extent[a] { b } else { a })
}

/// Rows per parallel task of [`Colouring::by_bands`]' per-row passes (fewer rows: serial).
const PAR_ROWS: usize = 4096;

/// Most pieces (so at most this many threads share a colour).
pub const MAX_PIECES: usize = 16;

impl Colouring {
    /// Colours `n` rows by the point each sits at: `point(k)` is row k's point (m), or `None`
    /// for a row that must be swept serially. Every degree of freedom a row touches must belong
    /// to a point closer than `reach` (m) to the row's point. The cuts are across the last
    /// axis (y for `planar` problems, z otherwise): the slowest axis of the cell order, so a
    /// piece is a nearly contiguous run of rows. `dofs` is the range of the velocity vector the
    /// coloured rows touch. With fewer than `2 ROWS_PER_PIECE` rows but at least [`SPLIT_ROWS`]
    /// there are two pieces, cut across the axis along which the points spread furthest (a
    /// shallow flume of 3 441 rows, 20 deep, cannot be cut across its depth: its sweeps ran on
    /// one thread, and cut along its length it steps in 7.4 ms instead of 8.9 ms on two
    /// threads); with fewer than [`SPLIT_ROWS`] there is one piece: the rows are swept in row
    /// order, as a serial sweep does.
    pub fn by_bands(
        &mut self,
        n: usize,
        point: impl Fn(usize) -> Option<Vec3> + Sync,
        reach: Real,
        planar: bool,
        dofs: Range<usize>,
    ) {
        assert!(reach > 0.0 && reach.is_finite(), "reach must be positive");
        self.dofs = dofs;
        self.rows.clear();
        self.serial.clear();
        self.cuts.clear();
        let last = if planar { 1 } else { 2 };
        let (mut lo, mut hi, mut placed) = self.coordinates(n, &point, last);
        // Band width: twice the reach, with a margin for rounding.
        let width = 2.0 * reach * (1.0 + 1e-9);
        let mut pieces = (placed / ROWS_PER_PIECE).clamp(1, MAX_PIECES);
        if pieces == 1 && placed >= SPLIT_ROWS {
            // A small family: two pieces across its longest axis (a shallow flume is too
            // thin to cut across its depth).
            let axis = longest_axis(n, &point, if planar { 2 } else { 3 });
            if axis != last {
                (lo, hi, placed) = self.coordinates(n, &point, axis);
            }
            pieces = 2;
        }
        if pieces > 1 {
            self.place_cuts(n, (lo, hi), width, pieces, placed);
        }
        // Colour 0: the pieces between the bands (group = number of cuts below); colour 1: the
        // bands `[c − width/2, c + width/2)` around each cut.
        let m = self.cuts.len();
        let nkeys = 2 * m + 1;
        let (cuts, xs) = (&self.cuts, &self.xs);
        let at = |k: usize| Some(xs[k]).filter(|x| !x.is_nan());
        let key_of = |k: usize| match at(k) {
            Some(x) => {
                let j = cuts.partition_point(|&c| c + 0.5 * width <= x);
                if j < m && x >= cuts[j] - 0.5 * width {
                    (m + 1 + j) as u32
                } else {
                    j as u32
                }
            }
            None => u32::MAX,
        };
        self.keys.resize(n, 0);
        if n <= PAR_ROWS {
            self.keys
                .iter_mut()
                .enumerate()
                .for_each(|(k, key)| *key = key_of(k));
        } else {
            self.keys
                .par_iter_mut()
                .enumerate()
                .with_min_len(PAR_ROWS)
                .for_each(|(k, key)| *key = key_of(k));
        }
        self.sort_by_key(n, nkeys, m);
    }

    /// Cuts at the quantiles of the rows' coordinate (`xs`; `placed` rows between `lo` and
    /// `hi`), for `pieces` pieces, from a histogram of bins a quarter of the band `width` wide;
    /// cuts closer than two bands to the last one (or to the ends) are dropped, so bands and
    /// pieces are at least a band wide.
    fn place_cuts(
        &mut self,
        n: usize,
        (lo, hi): (Real, Real),
        width: Real,
        pieces: usize,
        placed: usize,
    ) {
        let xs = &self.xs;
        let at = |k: usize| Some(xs[k]).filter(|x| !x.is_nan());
        let bin = width / 4.0;
        let nbins = (((hi - lo) / bin).floor() as usize + 1).min(4 * n);
        let bin = if nbins > 1 {
            (hi - lo) / (nbins - 1) as Real
        } else {
            bin
        };
        self.count.clear();
        self.count.resize(nbins + 1, 0);
        for x in (0..n).filter_map(at) {
            self.count[(((x - lo) / bin) as usize).min(nbins - 1) + 1] += 1;
        }
        let mut below = 0usize;
        let mut next = 1;
        for b in 0..nbins {
            below += self.count[b + 1] as usize;
            if next < pieces && below * pieces >= next * placed {
                let c = lo + (b + 1) as Real * bin;
                let last = self.cuts.last().copied().unwrap_or(lo - width);
                if c - last >= 2.0 * width && hi - c >= 1.5 * width {
                    self.cuts.push(c);
                }
                while next < pieces && below * pieces >= next * placed {
                    next += 1;
                }
            }
        }
    }

    /// Groups the rows by their key (`keys`; `u32::MAX`: serial): a counting sort over the
    /// `nkeys` keys, stable (rows of one group stay in row order), each non-empty key a group;
    /// colour 0 holds keys `0..=m`, colour 1 the rest.
    fn sort_by_key(&mut self, n: usize, nkeys: usize, m: usize) {
        self.count.clear();
        self.count.resize(nkeys + 1, 0);
        for (k, &key) in self.keys.iter().enumerate() {
            if key == u32::MAX {
                self.serial.push(k as u32);
            } else {
                self.count[key as usize + 1] += 1;
            }
        }
        for c in 0..nkeys {
            self.count[c + 1] += self.count[c];
        }
        self.group_start.begin();
        self.colour_start.begin();
        for keys in [0..m + 1, m + 1..nkeys] {
            for key in keys {
                if self.count[key + 1] > self.count[key] {
                    self.group_start.close_row(self.count[key + 1] as usize);
                }
            }
            self.colour_start.close_row(self.group_start.rows());
        }
        let coloured = n - self.serial.len();
        self.rows.resize(coloured, 0);
        for (k, &key) in self.keys.iter().enumerate() {
            if key != u32::MAX {
                let slot = &mut self.count[key as usize];
                self.rows[*slot as usize] = k as u32;
                *slot += 1;
            }
        }
    }

    /// Each row's coordinate along `axis` into `xs` (NaN: no point, swept serially), in
    /// parallel above a chunk of rows; returns the placed rows' lowest and highest coordinate
    /// and their count (exact in any order).
    fn coordinates(
        &mut self,
        n: usize,
        point: impl Fn(usize) -> Option<Vec3> + Sync,
        axis: usize,
    ) -> (Real, Real, usize) {
        let xs = &mut self.xs;
        xs.resize(n, 0.0);
        let at_point = |k: usize| {
            point(k)
                .map(|p| p[axis])
                .filter(|x| x.is_finite())
                .unwrap_or(Real::NAN)
        };
        if n <= PAR_ROWS {
            xs.iter_mut()
                .enumerate()
                .for_each(|(k, x)| *x = at_point(k));
        } else {
            xs.par_iter_mut()
                .enumerate()
                .with_min_len(PAR_ROWS)
                .for_each(|(k, x)| *x = at_point(k));
        }
        let bounds = |xs: &[Real]| {
            xs.iter().filter(|x| !x.is_nan()).fold(
                (Real::INFINITY, Real::NEG_INFINITY, 0usize),
                |(lo, hi, c), &x| (lo.min(x), hi.max(x), c + 1),
            )
        };
        if n <= PAR_ROWS {
            bounds(xs)
        } else {
            xs.par_chunks(PAR_ROWS).map(bounds).reduce(
                || (Real::INFINITY, Real::NEG_INFINITY, 0),
                |a, b| (a.0.min(b.0), a.1.max(b.1), a.2 + b.2),
            )
        }
    }

    /// Number of groups.
    pub fn groups(&self) -> usize {
        self.group_start.rows()
    }

    /// The groups of colour `c` (indices into [`Colouring::group_start`]).
    pub fn colour(&self, c: usize) -> Range<usize> {
        self.colour_start.range(c)
    }
}

/// Entries per chunk of [`SharedVec`]'s parallel copies (above one chunk they run in parallel).
const COPY_CHUNK: usize = 8192;

/// A velocity vector (or part of one) that concurrent groups of a colouring read and update.
#[derive(Debug, Default)]
pub struct SharedVec {
    data: Vec<AtomicU64>,
    offset: usize,
}

impl Clone for SharedVec {
    /// Scratch: a clone starts empty.
    fn clone(&self) -> Self {
        SharedVec::default()
    }
}

impl SharedVec {
    /// Copies `v[range]`; entry `i` of the velocity vector is then read as `get(i)`.
    pub fn load(&mut self, v: &[Real], range: Range<usize>) {
        self.offset = range.start;
        let src = &v[range];
        self.data.resize_with(src.len(), || AtomicU64::new(0));
        let put = |(a, x): (&AtomicU64, &Real)| a.store(x.to_bits(), Ordering::Relaxed);
        if src.len() <= COPY_CHUNK {
            self.data.iter().zip(src).for_each(put);
        } else {
            self.data
                .par_chunks(COPY_CHUNK)
                .zip(src.par_chunks(COPY_CHUNK))
                .for_each(|(a, x)| a.iter().zip(x).for_each(put));
        }
    }

    /// Copies the entries back into `v`.
    pub fn store(&self, v: &mut [Real]) {
        let n = self.data.len();
        let dst = &mut v[self.offset..self.offset + n];
        let get = |(x, a): (&mut Real, &AtomicU64)| *x = Real::from_bits(a.load(Ordering::Relaxed));
        if n <= COPY_CHUNK {
            dst.iter_mut().zip(&self.data).for_each(get);
        } else {
            dst.par_chunks_mut(COPY_CHUNK)
                .zip(self.data.par_chunks(COPY_CHUNK))
                .for_each(|(x, a)| x.iter_mut().zip(a).for_each(get));
        }
    }

    /// Entry `i` of the velocity vector.
    #[inline]
    pub fn get(&self, i: usize) -> Real {
        Real::from_bits(self.data[i - self.offset].load(Ordering::Relaxed))
    }

    /// Adds `x` to entry `i` (a load and a store, not an atomic sum: the colouring guarantees
    /// one writer per entry at a time).
    #[inline]
    pub fn add(&self, i: usize, x: Real) {
        super::points::add_to(&self.data[i - self.offset], x);
    }

    /// The entries from `first` on as points of three (particle p's velocity at
    /// `first + 3p`; [`super::Points`]).
    #[inline]
    pub fn points(&self, first: usize) -> &[[AtomicU64; 3]] {
        self.data[first - self.offset..].as_chunks::<3>().0
    }
}

/// Rows of a colour with fewer than this many rows are swept on one thread (the same updates
/// in the same order: only the scheduling differs).
const PARALLEL_MIN_COLOUR_ROWS: u32 = 2048;

/// The coloured rows' part of one sweep: their data in colouring order (position `p` is row
/// `order[p]` of `rows`).
pub(crate) struct Sweep<'a> {
    pub(crate) rows: &'a dyn ColouredRows,
    pub(crate) order: &'a [u32],
    pub(crate) d: &'a [Real],
    pub(crate) bias: &'a [Real],
    pub(crate) eps: &'a [Real],
    pub(crate) lo: &'a [Real],
    pub(crate) omega: Real,
    pub(crate) forward: bool,
    pub(crate) v: &'a SharedVec,
}

impl Sweep<'_> {
    /// Sweeps every colour of `colouring` in order (forward or backward as the sweep goes);
    /// `lc` holds the impulses in colouring order. Returns the largest velocity-scaled change.
    pub(crate) fn colours(&self, colouring: &Colouring, lc: &mut [Real]) -> Real {
        let mut m: Real = 0.0;
        for i in 0..COLOURS {
            let colour = if self.forward { i } else { COLOURS - 1 - i };
            let g = colouring.colour(colour);
            if g.is_empty() {
                continue;
            }
            let bounds = &colouring.group_start[g.start..=g.end];
            let (a, z) = (bounds[0] as usize, bounds[bounds.len() - 1] as usize);
            m = m.max(self.groups(bounds, &mut lc[a..z]));
        }
        m
    }

    /// Sweeps the groups between the boundaries `bounds` (positions in colouring order; `lc`
    /// holds the impulses of positions `bounds[0]..bounds[last]`), splitting them between
    /// threads. Returns the largest velocity-scaled change.
    pub(crate) fn groups(&self, bounds: &[u32], lc: &mut [Real]) -> Real {
        let ng = bounds.len() - 1;
        if ng > 1 && bounds[ng] - bounds[0] >= PARALLEL_MIN_COLOUR_ROWS {
            // Split at the group boundary nearest half the rows.
            let half = bounds[0] + (bounds[ng] - bounds[0]) / 2;
            let mid = bounds.partition_point(|&b| b < half).clamp(1, ng - 1);
            let (a, b) = lc.split_at_mut((bounds[mid] - bounds[0]) as usize);
            let (x, y) = rayon::join(
                || self.groups(&bounds[..=mid], a),
                || self.groups(&bounds[mid..], b),
            );
            return x.max(y);
        }
        let mut m: Real = 0.0;
        for g in 0..ng {
            let (s, e) = (bounds[g] as usize, bounds[g + 1] as usize);
            let base = bounds[0] as usize;
            m = m.max(self.group(s..e, &mut lc[s - base..e - base]));
        }
        m
    }

    /// Sweeps one group (positions `range`, impulses `lc`) in order.
    fn group(&self, range: std::ops::Range<usize>, lc: &mut [Real]) -> Real {
        let mut m: Real = 0.0;
        let s = range.start;
        let mut one = |p: usize| {
            let k = self.order[p] as usize;
            let l = &mut lc[p - s];
            let (l0, mut new) = (*l, *l);
            let mut update = |jv: Real| {
                let w = jv + self.bias[p] + self.eps[p] * l0;
                new = (l0 - self.omega * w / self.d[p]).max(self.lo[p]);
                new - l0
            };
            self.rows.update_shared(k, self.v, &mut update);
            let dl = new - l0;
            if dl != 0.0 {
                *l = new;
            }
            m = m.max(self.d[p] * dl.abs());
        };
        if self.forward {
            range.for_each(&mut one);
        } else {
            range.rev().for_each(&mut one);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups of one colour are more than twice the reach apart along the cut axis, every row
    /// is placed once, rows without a point are serial, and few rows make one group in row
    /// order.
    #[test]
    fn same_colour_groups_are_independent() {
        let side = 100;
        let pts: Vec<Vec3> = (0..side * side)
            .map(|i| {
                let (x, y) = ((i % side) as Real, (i / side) as Real);
                Vec3::new(0.01 * x, 0.01 * y + 0.002 * (x * 0.37).sin(), 0.0)
            })
            .collect();
        let reach = 0.026;
        let mut c = Colouring::default();
        let n = pts.len();
        c.by_bands(
            n,
            |k| (k % 37 != 0).then_some(pts[k]),
            reach,
            true,
            0..3 * n,
        );
        let mut seen = vec![0; n];
        for &k in c.rows.iter().chain(&c.serial) {
            seen[k as usize] += 1;
        }
        assert!(seen.iter().all(|&s| s == 1), "every row exactly once");
        assert_eq!(c.serial.len(), (0..n).filter(|k| k % 37 == 0).count());
        assert_eq!(c.cuts.len(), n / ROWS_PER_PIECE - 1);
        for col in 0..COLOURS {
            let span: Vec<(Real, Real)> = c
                .colour(col)
                .map(|g| {
                    let rows = &c.rows[c.group_start[g] as usize..c.group_start[g + 1] as usize];
                    let ys = rows.iter().map(|&k| pts[k as usize].y);
                    let lo = ys.clone().fold(Real::INFINITY, Real::min);
                    (lo, ys.fold(Real::NEG_INFINITY, Real::max))
                })
                .collect();
            assert_eq!(span.len(), c.cuts.len() + 1 - col);
            for w in span.windows(2) {
                assert!(w[1].0 - w[0].1 > 2.0 * reach, "colour {col}: {w:?}");
            }
        }
        // Few rows: one group, in row order.
        c.by_bands(500, |k| Some(pts[k]), reach, true, 0..1500);
        assert_eq!(c.groups(), 1);
        assert!(c.rows.iter().enumerate().all(|(i, &k)| k as usize == i));
    }

    /// A small, shallow family (too few rows for two pieces of `ROWS_PER_PIECE`) is cut once
    /// across its longest axis: two pieces more than two reaches apart, one band between.
    #[test]
    fn a_small_shallow_family_is_cut_across_its_length() {
        let (long, deep) = (150, 20);
        let pts: Vec<Vec3> = (0..long * deep)
            .map(|i| Vec3::new(0.01 * (i % long) as Real, 0.01 * (i / long) as Real, 0.0))
            .collect();
        let (n, reach) = (pts.len(), 0.026);
        let mut c = Colouring::default();
        c.by_bands(n, |k| Some(pts[k]), reach, true, 0..3 * n);
        assert_eq!(c.cuts.len(), 1);
        assert_eq!((c.colour(0).len(), c.colour(1).len()), (2, 1));
        let span = |g: usize| {
            let rows = &c.rows[c.group_start[g] as usize..c.group_start[g + 1] as usize];
            let xs = rows.iter().map(|&k| pts[k as usize].x);
            let lo = xs.clone().fold(Real::INFINITY, Real::min);
            (lo, xs.fold(Real::NEG_INFINITY, Real::max))
        };
        let (a, b) = (span(0), span(1));
        assert!(b.0 - a.1 > 2.0 * reach, "{a:?} {b:?}");
        assert_eq!(c.rows.len(), n);
        // The same rows standing on end are cut across y.
        let tall: Vec<Vec3> = pts.iter().map(|p| Vec3::new(p.y, p.x, 0.0)).collect();
        c.by_bands(n, |k| Some(tall[k]), reach, true, 0..3 * n);
        assert_eq!(c.cuts.len(), 1);
        assert!((c.cuts[0] - 0.75).abs() < 0.05, "{:?}", c.cuts);
    }

    #[test]
    fn shared_vector_round_trip() {
        let mut v = vec![1.0, 2.0, 3.0, 4.0];
        let mut s = SharedVec::default();
        s.load(&v, 1..3);
        s.add(2, 0.5);
        assert_eq!(s.get(1), 2.0);
        s.store(&mut v);
        assert_eq!(v, [1.0, 2.0, 3.5, 4.0]);
    }
}
