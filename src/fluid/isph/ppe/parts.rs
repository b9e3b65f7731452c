//! The pressure equation of a fluid divided among processes (issue 55; [`crate::fluid::halo`]):
//! each part numbers the unknowns it owns first and its ghosts' after them, assembles the rows
//! it owns, and the conjugate gradients ([`super::cg`]) run on every part at once — the
//! products read the ghosts' entries of the direction, exchanged from their owners before each
//! product; the dot products are each part's sum over its own unknowns, summed over the parts
//! (the same bits on every part, so every part takes the same steps and stops at the same
//! iteration). The preconditioner is each part's own: Jacobi, or the two-level cycle
//! ([`super::coarse`]) on the block of the rows and columns the part owns (block Jacobi
//! between the parts, symmetric positive definite as each block's cycle is). The pockets
//! (groups of unknowns no free-surface particle holds down, [`super::super::pockets`]) are found
//! on each part and joined over the parts ([`Parts::join_pockets`]).

use crate::fluid::halo::Halo;
use crate::math::Real;

/// A part's view of the divided pressure equation for one solve: the exchange, how many
/// unknowns the part owns (the first `owned`), the particle of each unknown and a buffer of one
/// number per particle.
pub(in crate::fluid::isph) struct Parts<'a> {
    pub(super) halo: &'a mut dyn Halo,
    pub(super) owned: usize,
    /// Particle of each unknown.
    pub(super) particle: &'a [u32],
    /// One number per particle (the exchange's buffer).
    pub(super) buf: &'a mut Vec<Real>,
}

impl Parts<'_> {
    /// `x` summed over the parts.
    pub(super) fn sum(&mut self, x: Real) -> Real {
        let mut v = [x];
        self.halo.sum(&mut v);
        v[0]
    }

    /// Whether `flag` holds on any part.
    pub(super) fn any(&mut self, flag: bool) -> bool {
        self.halo.any(flag)
    }

    /// The ghosts' entries of `v` (one per unknown) from their owners.
    pub(super) fn exchange(&mut self, v: &mut [Real]) {
        let buf = &mut *self.buf;
        buf.iter_mut().for_each(|b| *b = 0.0);
        for (x, &p) in v.iter().zip(self.particle).take(self.owned) {
            buf[p as usize] = *x;
        }
        self.halo.refresh_scalar(buf);
        for (x, &p) in v.iter_mut().zip(self.particle).skip(self.owned) {
            *x = buf[p as usize];
        }
    }
}

/// `Σ a_i c_i` over the first `owned` entries, summed over the parts when divided.
pub(super) fn dot(parts: &mut Option<&mut Parts<'_>>, a: &[Real], c: &[Real]) -> Real {
    let owned = parts.as_ref().map_or(a.len(), |p| p.owned);
    let s = a[..owned]
        .iter()
        .zip(&c[..owned])
        .map(|(p, q)| p * q)
        .sum::<Real>();
    match parts {
        Some(p) => p.sum(s),
        None => s,
    }
}

/// The pockets of a divided pressure equation joined over the parts. `pocket` holds each
/// unknown's pocket on this part ([`super::super::pockets::label_pockets`] over the part's own
/// and ghost particles; `count` of them) or `anchored`; `ids` each particle's id. A pocket seen
/// here may be held down on another part, or continue there: each unknown carries a label, −1
/// where it is held down, else the smallest particle id of its pocket, and each part replaces
/// its owned unknowns' labels by the smallest over the pocket it sees them in, the ghosts taking
/// their owners' labels, until no label changes on any part (one round per part a pocket
/// crosses, and one more). Writes each local pocket's label over the parts into `of_pocket`:
/// −1 (then its unknowns are made `anchored`) or the pocket's smallest particle id; `label` is
/// scratch (one per unknown).
pub(super) fn join_pockets(
    parts: &mut Parts<'_>,
    (pocket, count, anchored): (&mut [u32], usize, u32),
    ids: &[u32],
    label: &mut Vec<Real>,
    of_pocket: &mut Vec<Real>,
) {
    label.clear();
    label.extend(pocket.iter().zip(parts.particle).map(|(&c, &p)| {
        if c == anchored {
            -1.0
        } else {
            ids[p as usize] as Real
        }
    }));
    of_pocket.clear();
    of_pocket.resize(count, Real::INFINITY);
    loop {
        of_pocket.iter_mut().for_each(|x| *x = Real::INFINITY);
        for (&c, &l) in pocket.iter().zip(label.iter()) {
            if c != anchored {
                let x = &mut of_pocket[c as usize];
                *x = x.min(l);
            }
        }
        let mut changed = false;
        for (k, (&c, l)) in pocket.iter().zip(label.iter_mut()).enumerate() {
            if c != anchored && *l != of_pocket[c as usize] {
                *l = of_pocket[c as usize];
                changed |= k < parts.owned;
            }
        }
        if !parts.any(changed) {
            break;
        }
        parts.exchange(label);
    }
    for c in pocket.iter_mut() {
        if *c != anchored && of_pocket[*c as usize] < 0.0 {
            *c = anchored;
        }
    }
}

/// Per local pocket, a value reduced over the parts by the pockets' labels (`labels`, from
/// [`join_pockets`]; −1: held down, skipped): `values` holds each local pocket's share (`width`
/// numbers), replaced by the sum (`max` false) or the largest (`max` true) over every pocket of
/// any part with the same label.
pub(super) fn reduce_by_label(
    parts: &mut Parts<'_>,
    labels: &[Real],
    values: &mut [Real],
    width: usize,
    max: bool,
) {
    // Every part's labels: each writes its own into its row of a table that the parts' largest
    // entries fill.
    let mut mine: Vec<Real> = labels.iter().copied().filter(|&l| l >= 0.0).collect();
    mine.sort_by(Real::total_cmp);
    mine.dedup();
    let rows = parts.halo.largest(mine.len() as Real) as usize;
    let ranks = parts.sum(1.0) as usize;
    if rows == 0 {
        return;
    }
    let mut table = vec![-1.0; rows * ranks];
    let me = parts.halo.part();
    table[me * rows..me * rows + mine.len()].copy_from_slice(&mine);
    parts.halo.max(&mut table);
    let mut all: Vec<Real> = table.into_iter().filter(|&l| l >= 0.0).collect();
    all.sort_by(Real::total_cmp);
    all.dedup();
    let slot = |l: Real| all.binary_search_by(|x| x.total_cmp(&l)).ok();
    let fill = if max { Real::NEG_INFINITY } else { 0.0 };
    let mut acc = vec![fill; all.len() * width];
    for (c, &l) in labels.iter().enumerate() {
        if let Some(s) = slot(l) {
            for w in 0..width {
                let (a, v) = (&mut acc[s * width + w], values[c * width + w]);
                *a = if max { a.max(v) } else { *a + v };
            }
        }
    }
    if max {
        parts.halo.max(&mut acc);
    } else {
        parts.halo.sum(&mut acc);
    }
    for (c, &l) in labels.iter().enumerate() {
        if let Some(s) = slot(l) {
            values[c * width..(c + 1) * width].copy_from_slice(&acc[s * width..(s + 1) * width]);
        }
    }
}
