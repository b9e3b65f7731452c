//! Compressed rows: the one storage of every sparse structure of the crate — the neighbour
//! grid's cells ([`crate::fluid::grid::CellGrid`]), neighbour lists
//! ([`crate::fluid::grid::Neighbours`]), the density, wall and particle-contact row families
//! and their body entries ([`crate::constraints`]) and ISPH's pressure matrix. Row `i`'s
//! entries are `start[i]..start[i + 1]` of the arrays the owner keeps beside it (one array, or
//! several in parallel: indices, coefficients); [`RowStarts`] is that `start`, with the two
//! ways such structures are built:
//!
//! - row by row: [`RowStarts::begin`], then [`RowStarts::close_row`] with the entries' count
//!   so far after each row;
//! - by counts: [`RowStarts::reset`] to `rows` zero counts, count row `i` into `start[i + 1]`
//!   (in parallel if wanted), then [`RowStarts::prefix_sum`].
//!
//! Offsets are `u32` (at most 4·10⁹ entries; the model limits allow 2·10⁷ particles).

use std::ops::{Deref, DerefMut, Range};

/// The row starts of a compressed-row structure (module docs); indexes like a `[u32]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowStarts(Vec<u32>);

impl RowStarts {
    /// No rows, ready for [`RowStarts::close_row`].
    pub fn begin(&mut self) {
        self.0.clear();
        self.0.push(0);
    }

    /// Ends a row whose entries end at `end` (the owner's entry count so far).
    #[inline]
    pub fn close_row(&mut self, end: usize) {
        self.0.push(end as u32);
    }

    /// `rows` rows of zero entries: count row `i` into `self[i + 1]`, then
    /// [`RowStarts::prefix_sum`].
    pub fn reset(&mut self, rows: usize) {
        self.0.clear();
        self.0.resize(rows + 1, 0);
    }

    /// Turns counts (row `i`'s in `self[i + 1]`, `self[0] = 0`) into starts.
    pub fn prefix_sum(&mut self) {
        for i in 1..self.0.len() {
            self.0[i] += self.0[i - 1];
        }
    }

    /// After a fill by moving cursors (each entry of row `i` placed at `self[i]`, which is then
    /// advanced, so that `self[i]` ends at row `i`'s end), puts the starts back.
    pub fn restore_after_fill(&mut self) {
        for i in (1..self.0.len()).rev() {
            self.0[i] = self.0[i - 1];
        }
        if let Some(first) = self.0.first_mut() {
            *first = 0;
        }
    }

    /// The same starts as `other` (no allocation once sized).
    pub fn copy_from(&mut self, other: &RowStarts) {
        self.0.clone_from(&other.0);
    }

    /// No rows at all (not even the leading 0): the state before [`RowStarts::begin`].
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Row `i`'s entries.
    #[inline(always)]
    pub fn range(&self, i: usize) -> Range<usize> {
        self.0[i] as usize..self.0[i + 1] as usize
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.0.len().saturating_sub(1)
    }

    /// Number of entries.
    pub fn entries(&self) -> usize {
        self.0.last().copied().unwrap_or(0) as usize
    }
}

impl Deref for RowStarts {
    type Target = [u32];
    #[inline]
    fn deref(&self) -> &[u32] {
        &self.0
    }
}

impl DerefMut for RowStarts {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u32] {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::RowStarts;

    #[test]
    fn both_ways_of_building_give_the_same_starts() {
        let rows = [vec![3u32, 1], vec![], vec![7, 8, 9]];
        let mut a = RowStarts::default();
        a.begin();
        let mut entries = Vec::new();
        for r in &rows {
            entries.extend_from_slice(r);
            a.close_row(entries.len());
        }
        let mut b = RowStarts::default();
        b.reset(rows.len());
        for (i, r) in rows.iter().enumerate() {
            b[i + 1] = r.len() as u32;
        }
        b.prefix_sum();
        assert_eq!(a, b);
        assert_eq!(&a[..], &[0, 2, 2, 5]);
        assert_eq!((a.rows(), a.entries()), (3, 5));
        assert_eq!(&entries[a.range(2)], &[7, 8, 9]);
        assert!(a.range(1).is_empty());
        // A fill by moving cursors, then the starts put back.
        let mut c = b.clone();
        let mut filled = vec![0u32; c.entries()];
        for (i, r) in rows.iter().enumerate() {
            for &e in r {
                filled[c[i] as usize] = e;
                c[i] += 1;
            }
        }
        c.restore_after_fill();
        assert_eq!(c, b);
        assert_eq!(filled, entries);
    }
}
