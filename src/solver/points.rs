//! A velocity vector's particle block read and added to a particle at a time ([`Points`]).

use crate::math::Real;
use std::sync::atomic::{AtomicU64, Ordering};

/// `a += x` by a relaxed load and store ([`super::SharedVec::add`]).
#[inline(always)]
pub(super) fn add_to(a: &AtomicU64, x: Real) {
    a.store(
        (Real::from_bits(a.load(Ordering::Relaxed)) + x).to_bits(),
        Ordering::Relaxed,
    );
}

/// A particle block of a velocity vector, read and added to a particle at a time: particle p's
/// first `N` velocity entries (N ≤ 3), with one bounds check for the particle instead of one
/// per entry (a slice of points of three, or a [`super::SharedVec`]'s in the coloured sweeps). The
/// density rows' gathers and scatters go through it: with a check and an offset per entry,
/// the flume's one-thread run executed 7 % more instructions, its sweeps 20 % more
/// (`models/flume_2d.ron`, cachegrind, 2026-12-01; the performance log).
pub trait Points {
    /// Particle p's first `N` entries.
    fn read<const N: usize>(&self, p: usize) -> [Real; N];
    /// Adds `x[a]` to particle p's entry a, in order.
    fn add<const N: usize>(&mut self, p: usize, x: [Real; N]);
}

impl Points for [[Real; 3]] {
    #[inline(always)]
    fn read<const N: usize>(&self, p: usize) -> [Real; N] {
        let e = &self[p];
        std::array::from_fn(|a| e[a])
    }
    #[inline(always)]
    fn add<const N: usize>(&mut self, p: usize, x: [Real; N]) {
        let e = &mut self[p];
        for a in 0..N {
            e[a] += x[a];
        }
    }
}

impl Points for &[[AtomicU64; 3]] {
    #[inline(always)]
    fn read<const N: usize>(&self, p: usize) -> [Real; N] {
        let e = &self[p];
        std::array::from_fn(|a| Real::from_bits(e[a].load(Ordering::Relaxed)))
    }
    #[inline(always)]
    fn add<const N: usize>(&mut self, p: usize, x: [Real; N]) {
        // Nothing to add, nothing written: a row's entry beyond the kernel's support (the
        // neighbour lists' skin) has a zero coefficient, and its particle may be another band's
        // (the colouring keeps rows apart by the support, [`super::colouring`]); an unguarded
        // load and store of zero there could overwrite that band's concurrent update.
        let e = &self[p];
        for a in 0..N {
            if x[a] != 0.0 {
                add_to(&e[a], x[a]);
            }
        }
    }
}
