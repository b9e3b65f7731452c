//! Stacking row families into one problem: the monolithic solve.

use super::{Block, Coloured, RowSet};
use crate::math::Real;

/// The most row families one stack holds.
pub const MAX_FAMILIES: usize = 8;

/// Row families solved together: family `f` has rows `start[f]..start[f + 1]` of the stack, in
/// the order given. Blocks never span two families. This is how body rows, fluid density rows
/// and contact rows meet in one monolithic solve; the solver sees one [`RowSet`].
pub struct RowStack<'a> {
    families: &'a [&'a dyn RowSet],
    start: [usize; MAX_FAMILIES + 1],
    blocks: &'a [Block],
}

impl<'a> RowStack<'a> {
    /// Stacks `families` (at most [`MAX_FAMILIES`]); `blocks` is a scratch buffer that receives
    /// the joint block list.
    pub fn new(families: &'a [&'a dyn RowSet], blocks: &'a mut Vec<Block>) -> Self {
        assert!(families.len() <= MAX_FAMILIES, "too many row families");
        let mut start = [0; MAX_FAMILIES + 1];
        blocks.clear();
        for (f, fam) in families.iter().enumerate() {
            let s = start[f];
            blocks.extend(fam.blocks().iter().map(|bl| Block {
                start: bl.start + s,
                kind: bl.kind,
            }));
            start[f + 1] = s + fam.len();
        }
        for f in families.len() + 1..=MAX_FAMILIES {
            start[f] = start[families.len()];
        }
        RowStack {
            families,
            start,
            blocks,
        }
    }

    /// The family holding row `k`, and `k`'s index within it.
    #[inline]
    fn locate(&self, k: usize) -> (&'a dyn RowSet, usize) {
        let mut f = 0;
        while k >= self.start[f + 1] {
            f += 1;
        }
        (self.families[f], k - self.start[f])
    }

    /// Rows `start[f]..start[f + 1]` of family `f`.
    fn range(&self, f: usize) -> std::ops::Range<usize> {
        self.start[f]..self.start[f + 1]
    }
}

impl RowSet for RowStack<'_> {
    fn len(&self) -> usize {
        self.start[self.families.len()]
    }
    fn blocks(&self) -> &[Block] {
        self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        let (f, k) = self.locate(k);
        f.jv(k, v)
    }
    #[inline]
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        let (f, k) = self.locate(k);
        f.apply(k, dl, v)
    }
    fn diag(&self, k: usize) -> Real {
        let (f, k) = self.locate(k);
        f.diag(k)
    }
    fn coupling(&self, k: usize, l: usize) -> Real {
        let (f, k) = self.locate(k);
        let (g, l) = self.locate(l);
        assert!(
            std::ptr::addr_eq(f as *const dyn RowSet, g as *const dyn RowSet),
            "a block spans two row families"
        );
        f.coupling(k, l)
    }
    fn bias(&self, k: usize) -> Real {
        let (f, k) = self.locate(k);
        f.bias(k)
    }
    fn compliance(&self, k: usize) -> Real {
        let (f, k) = self.locate(k);
        f.compliance(k)
    }
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        for (f, fam) in self.families.iter().enumerate() {
            fam.mul_j(v, &mut out[self.range(f)]);
        }
    }
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        for (f, fam) in self.families.iter().enumerate() {
            fam.add_minv_jt(&lambda[self.range(f)], v);
        }
    }
    /// The first family's colouring, placed at that family's rows (PGS calls the shared
    /// products on the family itself, [`Coloured::rows`]).
    fn coloured(&self) -> Option<Coloured<'_>> {
        self.families.iter().enumerate().find_map(|(f, fam)| {
            fam.coloured().map(|c| Coloured {
                offset: self.start[f] + c.offset,
                ..c
            })
        })
    }
}
