//! Stacking row families into one problem: the monolithic solve.

use super::{Block, RowSet};
use crate::math::Real;

/// Two row sets solved together: rows `0..a.len()` are `a`'s, the rest `b`'s. This is how
/// different row families (body rows, fluid density rows, ...) meet in one monolithic solve.
pub struct Stacked<'a, A: RowSet, B: RowSet> {
    a: &'a A,
    b: &'a B,
    na: usize,
    blocks: &'a [Block],
}

impl<'a, A: RowSet, B: RowSet> Stacked<'a, A, B> {
    /// Stacks `a` and `b`; `blocks` is a scratch buffer that receives the joint block list.
    pub fn new(a: &'a A, b: &'a B, blocks: &'a mut Vec<Block>) -> Self {
        let na = a.len();
        blocks.clear();
        blocks.extend_from_slice(a.blocks());
        blocks.extend(b.blocks().iter().map(|bl| Block {
            start: bl.start + na,
            kind: bl.kind,
        }));
        Stacked { a, b, na, blocks }
    }
}

impl<A: RowSet, B: RowSet> RowSet for Stacked<'_, A, B> {
    fn len(&self) -> usize {
        self.na + self.b.len()
    }
    fn blocks(&self) -> &[Block] {
        self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        if k < self.na {
            self.a.jv(k, v)
        } else {
            self.b.jv(k - self.na, v)
        }
    }
    #[inline]
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        if k < self.na {
            self.a.apply(k, dl, v)
        } else {
            self.b.apply(k - self.na, dl, v)
        }
    }
    fn diag(&self, k: usize) -> Real {
        if k < self.na {
            self.a.diag(k)
        } else {
            self.b.diag(k - self.na)
        }
    }
    fn coupling(&self, k: usize, l: usize) -> Real {
        match (k < self.na, l < self.na) {
            (true, true) => self.a.coupling(k, l),
            (false, false) => self.b.coupling(k - self.na, l - self.na),
            // Blocks never span two families.
            _ => panic!("a block spans two row families"),
        }
    }
    fn bias(&self, k: usize) -> Real {
        if k < self.na {
            self.a.bias(k)
        } else {
            self.b.bias(k - self.na)
        }
    }
    fn compliance(&self, k: usize) -> Real {
        if k < self.na {
            self.a.compliance(k)
        } else {
            self.b.compliance(k - self.na)
        }
    }
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        let (oa, ob) = out.split_at_mut(self.na);
        self.a.mul_j(v, oa);
        self.b.mul_j(v, ob);
    }
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        let (la, lb) = lambda.split_at(self.na);
        self.a.add_minv_jt(la, v);
        self.b.add_minv_jt(lb, v);
    }
}
