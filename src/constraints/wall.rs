//! Wall rows: the density rows of boundary particles, stored with the fluid density rows in
//! [`DensityRows`] (rows `nf..nf + nwall`).
//!
//! **Wall rows.** Each boundary particle b with fluid neighbours has a row of its own: its
//! density `ρ_b/ρ0 = Σ_{walls} V W + Σ_{fluid} V W_bj`, `ġ_b = Σ_j V ∇_b W_bj · v_j` (the wall does
//! not move), i.e. `c_bj = V ∇_b W_bj` on each fluid neighbour. Its multiplier is the wall
//! pressure: the fluid–wall force takes the symmetric form `(p_i + p_b)` of the fluid–fluid one,
//! so the wall pushes along its normal (without these rows a wall acts only through the fluid
//! particle's own row, along `s_i`: diagonally in corners, and with twice the pressure next to
//! the wall). Row kinds are those of the fluid rows ([`super::density`]), with the gap limited
//! to the fluid's share `Σ_{fluid} V W_bj`: a row never asks for more than that its fluid
//! neighbours leave. Fluid particle i sees the wall row of each boundary neighbour k through
//! `c_ki` in its transposed product (`fb_row`, `fb_at`: where `c_ki` is in `bcoef`; rows that
//! form their coefficients from the positions, [`super::density_pairs`], form these too).
//!
//! **Bias of a wall row that is not full** (`wall_bias`). With `dry_walls: Speculative`
//! ([`crate::fluid::FluidParams::speculative_walls`]) a unilateral wall row whose boundary
//! particle has less than the rest density (g_b > 0: at the waterline, on a dry wall) lets its
//! fluid neighbours approach until it reaches the rest density within the step, `g_b / h` — the
//! linearised position-level condition `ρ_b(t + h) ≤ ρ0`, as a speculative contact closes its
//! whole gap — rather than the fluid rows' `β g / h` (the default, `Feedback`). A boundary
//! particle's deficit is fluid that is missing (its wall neighbours are all there), so the wall
//! has no pressure to give until that fluid has come. With `β g_b / h` (at β = 0: no approach at all) a body's boundary
//! particles above the waterline held the fluid beside them at its distance: a hull sinking
//! into water pushed the surface beside it down with it instead of raising it (5 cm from the
//! side of the heave-decay section, 1.5 cm down where WCSPH's rises 0.9 cm), which doubled the
//! section's heave damping (the book's waves page). It is not the default because it frees the
//! surface particles by the walls of a tank at rest as well: the rest tests' largest speed at
//! 1 s rises by 4-10 % (the water box's to 1.79e-3 m/s, over its bound of 1.72e-3), feeding the
//! lattice instability the fluid chapter describes.

use super::density::{target_gap, DensityRows, ROW_BLOCK};
use super::BodyMass;
use crate::fluid::kernel::{volume_gradient, w_and_volume_gradient};
use crate::fluid::PARALLEL_MIN_ROWS;
use crate::fluid::{Fluid, STATIC};
use crate::math::{Real, Vec3};
use rayon::prelude::*;

/// A wall row's bias (1/s) for its gap g (dimensionless, negative when the boundary particle is
/// compressed), step h (s) and feedback β (module docs): with `speculative`, `g / h` for a
/// unilateral row that is not full (g > 0); else the fluid rows' `β g / h` (bilateral rows:
/// `β min(g, 0) / h`).
#[inline]
pub(crate) fn wall_bias(
    unilateral: bool,
    speculative: bool,
    gap: Real,
    beta: Real,
    h: Real,
) -> Real {
    if unilateral && speculative && gap > 0.0 {
        gap / h
    } else {
        beta / h * target_gap(unilateral, gap)
    }
}

impl DensityRows {
    /// Appends the wall rows of `fluid`'s boundary particles that have fluid neighbours, and
    /// for each fluid particle the wall rows of its boundary neighbours. Needs the fluid rows
    /// built (`nf`, `minv`); `h` is the step (s), `beta` the gap's feedback per step.
    pub(crate) fn build_wall_rows(&mut self, fluid: &Fluid, h: Real, beta: Real) {
        let p = &fluid.params;
        let (k, v0) = (p.kernel, fluid.volume);
        let (pos, boundary, bf, fb, bdens) = (
            &fluid.pos,
            &fluid.boundary,
            &fluid.bf,
            &fluid.fb,
            &fluid.bdens,
        );
        let per = p.periodic;
        let mask = self.minv;
        let unilateral = self.unilateral;
        let speculative = p.speculative_walls;
        self.select_wall_rows(bf, boundary.len());
        let nwall = self.bactive.len();
        self.bf.clone_from(bf);
        // Rows that form their fluid pairs' coefficients form the wall rows' too (from the
        // boundary particles' positions, 24 bytes per wall row instead of 28 per pair: the
        // coefficient and its index `fb_at`).
        let store = !self.former.active();
        if store {
            self.bcoef.resize(bf.start.entries(), Vec3::zeros());
        } else {
            self.bcoef = Vec::new();
            self.former.set_walls(boundary, &self.bactive);
        }
        let nf = self.diag.len();
        self.diag.resize(nf + nwall, 0.0);
        self.bias.resize(nf + nwall, 0.0);
        // Each row's coefficients, diagonal and bias, in blocks of rows (each block writes its
        // own slices, so the result does not depend on the threads).
        let bactive = &self.bactive;
        let row = |b: usize, c: &mut [Vec3]| -> (Real, Real) {
            let xb = &boundary[b];
            let mut rho = bdens[b];
            let mut dsum = 0.0;
            for (e, &j) in bf.of(b).iter().enumerate() {
                let d = per.delta(xb, &pos[j as usize]);
                let (w, g) = w_and_volume_gradient(&k, v0, &d);
                rho += v0 * w;
                dsum += g.component_mul(&mask).dot(&g);
                if let Some(c) = c.get_mut(e) {
                    *c = g;
                }
            }
            // At most the fluid's share of the density can be pushed out: a boundary particle
            // whose walls alone sum to the rest density or above (deep in a corner, where the
            // walls fill its support) asks its fluid neighbours to leave its support, not for
            // more. Without the limit a fluid particle entering such a row's support by a hair
            // (coefficient ~1e-20 1/m) met the whole excess in the bias and was thrown out at
            // 1e6 m/s.
            let gap = (1.0 - rho).max(bdens[b] - rho);
            (dsum, wall_bias(unilateral, speculative, gap, beta, h))
        };
        let work = |(first, c, d, bs): (usize, &mut [Vec3], &mut [Real], &mut [Real])| {
            let base = bf.start[bactive[first] as usize] as usize;
            for r in 0..d.len() {
                let b = bactive[first + r] as usize;
                let (lo, hi) = (bf.start[b] as usize - base, bf.start[b + 1] as usize - base);
                let cr: &mut [Vec3] = if store { &mut c[lo..hi] } else { &mut [] };
                (d[r], bs[r]) = row(b, cr);
            }
        };
        let blocks = {
            let (mut coef, mut dg, mut bs) = (
                &mut self.bcoef[..],
                &mut self.diag[nf..],
                &mut self.bias[nf..],
            );
            let mut first = 0;
            std::iter::from_fn(move || {
                if first >= nwall {
                    return None;
                }
                let last = (first + ROW_BLOCK).min(nwall);
                let len = (bf.start[bactive[last - 1] as usize + 1]
                    - bf.start[bactive[first] as usize]) as usize;
                // (Formed coefficients: nothing to write.)
                let len = if store { len } else { 0 };
                let (c, rest) = std::mem::take(&mut coef).split_at_mut(len);
                coef = rest;
                let (d, rest) = std::mem::take(&mut dg).split_at_mut(last - first);
                dg = rest;
                let (b, rest) = std::mem::take(&mut bs).split_at_mut(last - first);
                bs = rest;
                let block = (first, c, d, b);
                first = last;
                Some(block)
            })
        };
        if nwall < PARALLEL_MIN_ROWS {
            blocks.for_each(work);
        } else {
            blocks.par_bridge().for_each(work);
        }
        self.nwall = self.bactive.len();
        self.walls_of_fluid(fb, store);
    }

    /// For each fluid particle, the wall rows of its boundary neighbours (`fb_row`) and, for
    /// stored coefficients, where each pair's `c_bk` is (`fb_at`).
    fn walls_of_fluid(&mut self, fb: &crate::fluid::grid::Neighbours, store: bool) {
        self.fb_start.copy_from(&fb.start);
        self.fb_row.clear();
        self.fb_row
            .extend(fb.entries().map(|&b| self.brow[b as usize]));
        if store {
            self.link_walls(fb);
        } else {
            // (Formed from the wall row and the particle: [`DensityRows::fb_coef`].)
            self.fb_at = Vec::new();
            self.fb_cursor = Vec::new();
        }
    }

    /// `fb_at`: for each fluid particle's boundary neighbour, the entry of its wall row that
    /// lists the particle. Every pair of `fb` is in `bf` (one radius, one distance test), the
    /// wall rows are in boundary order and each fluid particle's boundary neighbours are
    /// sorted, so one pass over the wall rows meets each particle's entries in order: a cursor
    /// per particle. (`bf` also lists a divided fluid's outer ghosts, which have no lists of
    /// their own: their entries are passed over.)
    fn link_walls(&mut self, fb: &crate::fluid::grid::Neighbours) {
        self.fb_at.clear();
        self.fb_at.resize(fb.start.entries(), u32::MAX);
        self.fb_cursor.clear();
        self.fb_cursor.resize(self.nf, 0);
        for (r, &b) in self.bactive.iter().enumerate() {
            let a = self.bstart[r] as usize;
            for (q, &j) in (a..).zip(self.bf.of(b as usize)) {
                let j = j as usize;
                let c = self.fb_cursor[j];
                if fb.of(j).get(c as usize) == Some(&b) {
                    self.fb_at[(fb.start[j] + c) as usize] = q as u32;
                    self.fb_cursor[j] = c + 1;
                }
            }
        }
    }
}

impl DensityRows {
    /// The fluid neighbours of wall row `r`.
    #[inline]
    pub fn wall_nbrs(&self, r: usize) -> &[u32] {
        self.bf.of(self.bactive[r] as usize)
    }

    /// `c_bk` of entry `e` of the fluid particles' boundary neighbours (1/m), from its wall
    /// row; `k` is the fluid particle whose entry it is, and the entry has a wall row
    /// (`fb_row[e]` set). Stored coefficients are read from the wall row's entry, formed ones
    /// formed (the same number).
    #[inline]
    pub fn fb_coef(&self, e: usize, k: usize) -> Vec3 {
        if self.former.active() {
            self.former.wall_coef(self.fb_row[e] as usize, k)
        } else {
            self.bcoef[self.fb_at[e] as usize]
        }
    }

    /// Calls `f(j, c_bj)` for each fluid neighbour j of wall row `r` (1/m; stored or formed).
    #[inline(always)]
    pub fn wall_entries(&self, r: usize, mut f: impl FnMut(usize, Vec3)) {
        if self.former.active() {
            for &j in self.wall_nbrs(r) {
                f(j as usize, self.former.wall_coef(r, j as usize));
            }
        } else {
            let (_, nbr, coef) = self.stored_row(self.nf + r);
            for (j, c) in nbr.iter().zip(coef) {
                f(*j as usize, *c);
            }
        }
    }

    /// `Σ_j c_bj` over wall row `r`'s fluid neighbours (1/m), summed in entry order.
    pub fn wall_sum(&self, r: usize) -> Vec3 {
        let mut s = Vec3::zeros();
        self.wall_entries(r, |_, c| s += c);
        s
    }

    /// The rows are the boundary particles with fluid neighbours, in boundary order: their
    /// neighbours are `bf`'s lists as they stand (an empty list adds no entry).
    fn select_wall_rows(&mut self, bf: &crate::fluid::grid::Neighbours, boundary: usize) {
        self.brow.clear();
        self.brow.resize(boundary, u32::MAX);
        self.bactive.clear();
        self.bstart.begin();
        for b in 0..boundary {
            if bf.start[b + 1] > bf.start[b] {
                self.brow[b] = self.bactive.len() as u32;
                self.bactive.push(b as u32);
                self.bstart.close_row(bf.start[b + 1] as usize);
            }
        }
    }

    /// The rows' Jacobians on the bodies that carry boundary particles (see [`super::density`]'s module doc, **Moving walls**):
    /// `(c_ib, r_b × c_ib)` in fluid row i for each body particle b near it, and
    /// `(−Σ_j c_bj, r_b × …)` in body particle b's wall row. Static bodies a probe reads
    /// ([`Fluid::wall_body`]) get them too, as bodies without DOFs: their known velocity (zero)
    /// goes into the bias and the entries report the fluid's force on them.
    pub(super) fn body_entries(&mut self, fluid: &Fluid, masses: &[BodyMass]) {
        self.bodies.clear();
        if !fluid.has_wall_forces() {
            return;
        }
        let (k, v0) = (fluid.params.kernel, fluid.volume);
        let (pos, boundary, owner, fb) = (&fluid.pos, &fluid.boundary, &fluid.wall_body, &fluid.fb);
        let e = &mut self.bodies;
        e.begin();
        for (i, xi) in pos.iter().enumerate() {
            for &b in fb.of(i) {
                let o = owner[b as usize];
                if o != STATIC {
                    let xb = &boundary[b as usize];
                    let c = volume_gradient(&k, v0, &fluid.params.periodic.delta(xi, xb));
                    let rb = xb - masses[o as usize].com;
                    e.add(o, c, rb.cross(&c));
                }
            }
            e.finish_row(masses, &mut self.diag[i], &mut self.bias[i]);
        }
        for r in 0..self.bactive.len() {
            let b = self.bactive[r] as usize;
            let o = owner[b];
            if o != STATIC {
                let lin: Vec3 = -self.wall_sum(r);
                let rb = boundary[b] - masses[o as usize].com;
                self.bodies.add(o, lin, rb.cross(&lin));
            }
            let row = self.nf + r;
            self.bodies
                .finish_row(masses, &mut self.diag[row], &mut self.bias[row]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraints::VelocityLayout;
    use crate::fluid::FluidParams;

    /// A fluid particle's wall neighbour reads `c_bk` from the wall row's entry (`fb_at`): the
    /// same number, to the bit, as the gradient formed from the pair, for every fluid–wall pair
    /// of a block of water in the corner of a floor and a side wall (the particles given in
    /// reverse order: the search sorts them).
    #[test]
    fn a_wall_neighbours_coefficient_is_its_wall_rows_entry() {
        let l = 0.01;
        let at = |a: i32| (a as Real + 0.5) * l;
        let mut pos = Vec::new();
        for i in 0..6 {
            for j in 0..6 {
                for k in 0..6 {
                    pos.push(Vec3::new(at(i), at(j), at(k)));
                }
            }
        }
        pos.reverse();
        // Three layers each: a floor below z = 0 and a side wall behind x = 0.
        let mut boundary = Vec::new();
        for a in -3..9 {
            for b in -3..9 {
                for c in 1..=3 {
                    boundary.push(Vec3::new(at(a), at(b), -at(c - 1)));
                    if a >= 0 {
                        boundary.push(Vec3::new(-at(c - 1), at(b), at(a)));
                    }
                }
            }
        }
        let vel = vec![Vec3::zeros(); pos.len()];
        let mut f = Fluid::new(FluidParams::default(), pos, vel, boundary);
        f.update_neighbours(&[]);
        let mut rows = DensityRows::default();
        let mut err = Vec::new();
        rows.build(&f, &VelocityLayout::default(), 1e-3, &[], &mut err);
        let (k, v0, per) = (f.params.kernel, f.volume, f.params.periodic);
        let mut pairs = 0;
        for i in 0..f.len() {
            for (e, &b) in f.fb.of(i).iter().enumerate() {
                let c = rows.fb_coef(f.fb.start[i] as usize + e, i);
                let d = per.delta(&f.boundary[b as usize], &f.pos[i]);
                assert_eq!(c, volume_gradient(&k, v0, &d), "particle {i}, wall {b}");
                pairs += 1;
            }
        }
        assert!(pairs > 2000, "{pairs} fluid–wall pairs");
    }
}
