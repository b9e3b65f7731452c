//! Particle contact rows: fluid particles as spheres, against each other and against boundary
//! particles (of walls and bodies).
//!
//! **Contact rows (fluid particles as spheres, after 001 §4.2).** Density rows are inactive
//! where the density is deficient — at free surfaces and thin fronts — so nothing there keeps two
//! particles apart, nor a particle out of a wall. A pair of fluid particles closer than
//! `d_ff + margin` gets the unilateral row `n · (v_i − v_j) + b ≥ 0` with `n` the unit vector from
//! j to i and the gap `g = r − d_ff`; a fluid particle closer than `d_fb + margin` to a boundary
//! particle gets the same row against it (and, for a body, `(−n, −r_b × n)` on the body). The bias
//! is speculative, `b = g/h`, for `g ≥ 0` (the pair may close the gap in one step, no more) and
//! Baumgarte, `b = 0.2 g/h`, for `g < 0`. Rows are built for pairs closer than the contact
//! distance plus `0.15 l`.
//!
//! - Fluid–wall: `d_fb = l` ([`WALL_CONTACT`]), 001's value: the particles are spheres of
//!   diameter l, so a fluid centre stays l/2 outside a wall whose boundary particles sit l/2
//!   inside it. Without it, surface particles — whose density rows are inactive — creep into
//!   the half-spacing gap along walls: in the 3D floating-cylinder tank (5 layers deep) the
//!   fluid spread by l/2 across its depth and the free surface dropped by a spacing; with
//!   `d_fb = 0.75 l` the buoyancy test's submerged fractions were 0.012 low, with `l` within
//!   0.009. At rest these rows sit at zero gap next to the walls and share load with the wall
//!   rows there (hydrostatic centre-line pressure error 2.2 % against 1.5 %).
//!
//!   Where the fluid particle lies over a boundary particle of the first layer (depth below
//!   `0.75 l`, [`Fluid::to_surface`] known) — laterally within `l/2` of it in 2D, `l/√2` in 3D,
//!   the tile it stands for — the row is against the wall's plane instead: normal `n_b` (the
//!   wall's, from [`Fluid::to_surface`]), gap `n_b · (x_i − x_b) − d_b − c` (`d_b` the
//!   particle's depth, `c` the lattice's clearance: l/2, or l/4 from a fixed wall on the planar
//!   hexagonal lattice, whose rows meet a side wall l/4 off; l/2 from a moving body, whose
//!   particles lie on a lattice of their own): as far outside the surface as the lattice puts
//!   the fluid, without the bumps of spheres.
//!   Against spheres a particle sliding along a flat wall climbed one bump per spacing and each
//!   inelastic row took some of its tangential momentum: a 2D column collapsing along a floor
//!   (the scene of `tests/momentum.rs`, 0.6 s) gave the floor 18.1 N s/m of drag where WCSPH
//!   gives 5.1, and the wall downstream 63.7 N s/m against WCSPH's 76.2; against planes the
//!   floor takes 2.8 and the wall 76.2. Elsewhere (corners, edges, body particles of unknown
//!   depth) the sphere row stays.
//! - Against moving bodies the fluid–wall rows are optional (`body_contacts: false` in a
//!   model's fluid line, [`crate::fluid::FluidParams::body_contacts`]): they make the fluid
//!   heavy on a body in motion. A disc of radius 0.2 m driven up and down 2 cm at 0.87 Hz, 1 m
//!   under water at l = 0.04 m (`models/added_mass_disc_2d.ron`: the constraint method,
//!   h = 2.0 l, β = 0.05) carried 215 kg/m of added mass with them and 149 without (a noisy
//!   force: about ±10 %), against ρπR² = 126; the heave-decay section driven at its natural
//!   frequency 81.6 against 64.8 kg/m (potential flow: 58.7). Without them only the density
//!   rows (the fluid's and the body's wall rows, [`super::wall`]) keep the fluid out of the
//!   body. Plane rows alone (the spheres dropped) left the added mass at 133 and 65.4 kg/m but
//!   the force on the body rattled: its step-to-step noise twice its first harmonic.
//! - Fluid–fluid: `d_ff = 0.3 l` ([`FLUID_CONTACT`]): it bounds clumping at thin fronts
//!   (no two particles closer than 0.3 l) without touching ordinary flow; 0.5 l already carries
//!   load in a disordered tank, load missing from the pressure read from the density rows
//!   (hydrostatic test 3.8 %). 001 has no fluid–fluid contacts.
//!
//! The rows' coefficients are the unit normals (dimensionless), so the bias is a velocity. Until
//! 2026-11-28 they were the normals times `M⁻¹` of a particle (1/kg), which divided the bias by
//! `M⁻¹`: a pair could close only `g / (M⁻¹ h)` of its gap in a step (a tenth in the 2D column
//! at l = 1 cm, 1/125 in 3D at 2 cm) and a penetration was pushed out that much more slowly,
//! a cushion in front of every wall and between close particles.
//!
//! Products: `J v` row by row; `M⁻¹ Jᵀ λ` is scattered serially in row order (the rows are
//! few), so the result does not depend on the thread count.

use super::{BodyEntries, BodyMass, RowFamily, VelocityLayout};
use crate::fluid::sampling::face_offset;
use crate::fluid::{Fluid, PARALLEL_MIN_ROWS, STATIC};
use crate::math::{Real, Vec3};
use crate::solver::{Block, BlockKind, RowSet};
use rayon::prelude::*;

/// Contact distance of two fluid particles, in spacings.
pub const FLUID_CONTACT: Real = 0.3;
/// Contact distance of a fluid particle and a boundary particle, in spacings (001 §4.2).
pub const WALL_CONTACT: Real = 1.0;
/// Contact rows are built for pairs closer than the contact distance plus this, in spacings.
pub const CONTACT_MARGIN: Real = 0.15;
/// Baumgarte factor of a penetrated particle contact (fraction of the overlap removed per step).
pub const BAUMGARTE: Real = 0.2;

/// The contact test of a pair: closer than the contact distance plus the margin (m), with
/// the row's unit normal (masked), `J M⁻¹ Jᵀ` of one side and the bias (m/s) over the step `h`.
struct Near<'a> {
    fluid: &'a Fluid,
    /// The axes a particle moves along: 1, or 0 for z in planar models.
    axes: Vec3,
    /// `M⁻¹` of a particle per axis (1/kg).
    minv: Vec3,
    /// Squared lateral reach of a boundary particle's tile (m²).
    tile2: Real,
    margin: Real,
    dff: Real,
    dfb: Real,
    /// A plane row's contact distance from the wall particle's depth (m): `d_fb` less the depth
    /// of the wall's first layer where the walls continue the fluid's lattice,
    /// `l − c` with `c` the lattice's clearance from a surface (module docs); for a fixed
    /// wall's particles and for a moving body's (`c = l/2` on every lattice).
    plane: [Real; 2],
    h: Real,
}

impl Near<'_> {
    /// Particle i against the point `xo` at contact distance `d` (m). Most neighbour pairs are
    /// beyond contact range: rejected on r² (with a margin so that no pair the exact test
    /// accepts is lost), then on r itself.
    fn row(&self, i: usize, xo: &Vec3, d: Real) -> Option<(Vec3, Real, Real)> {
        let dx = self.fluid.params.periodic.delta(&self.fluid.pos[i], xo);
        let (r2, reach) = (dx.norm_squared(), d + self.margin);
        if r2 >= reach * reach * (1.0 + 1e-12) || r2 == 0.0 {
            return None;
        }
        let r = r2.sqrt();
        if r >= reach {
            return None;
        }
        Some(self.contact((dx / r).component_mul(&self.axes), r - d))
    }

    /// The row of unit normal `n` (masked) at gap `g` (m): `n`, `J M⁻¹ Jᵀ` of one side and the
    /// bias (m/s), speculative for `g ≥ 0` and Baumgarte-corrected below.
    fn contact(&self, n: Vec3, g: Real) -> (Vec3, Real, Real) {
        let bias = if g >= 0.0 { g } else { BAUMGARTE * g } / self.h;
        (n, n.component_mul(&self.minv).dot(&n), bias)
    }

    /// Fluid particles i and j.
    fn ff(&self, i: usize, j: usize) -> Option<(Vec3, Real, Real)> {
        self.row(i, &self.fluid.pos[j], self.dff)
    }

    /// Fluid particle i and boundary particle b.
    fn fb(&self, i: usize, b: usize) -> Option<(Vec3, Real, Real)> {
        let f = self.fluid;
        if !f.params.body_contacts && f.owner[b] != STATIC {
            return None;
        }
        let s = f.to_surface[b];
        let depth = s.norm();
        let l = f.params.spacing;
        if depth > 0.0 && depth < 0.75 * l {
            let n = (s / depth).component_mul(&self.axes);
            let dx = f.params.periodic.delta(&f.pos[i], &f.boundary[b]);
            let along = dx.dot(&n);
            let lateral2 = dx.norm_squared() - along * along;
            if along > 0.0 && lateral2 <= self.tile2 {
                let moving = f.owner[b] != STATIC;
                let gap = along - depth - self.plane[moving as usize];
                return (gap < self.margin).then(|| self.contact(n, gap));
            }
        }
        self.row(i, &f.boundary[b], self.dfb)
    }
}

/// Particles per block when the rows are written in parallel.
const PARTICLE_BLOCK: usize = 512;

/// The rows a block of particles writes: its slices of the rows' particles, coefficients
/// (`per_row` entries per row), diagonals, biases and pairs.
struct Out<'a> {
    nbr: &'a mut [u32],
    coef: &'a mut [Vec3],
    diag: &'a mut [Real],
    bias: &'a mut [Real],
    pairs: &'a mut [(u32, u32, bool)],
}

impl<'a> Out<'a> {
    /// Splits off the first `rows` rows of `per_row` entries each.
    fn take(&mut self, rows: usize, per_row: usize) -> Out<'a> {
        let (nbr, rest) = std::mem::take(&mut self.nbr).split_at_mut(rows * per_row);
        self.nbr = rest;
        let (coef, rest) = std::mem::take(&mut self.coef).split_at_mut(rows * per_row);
        self.coef = rest;
        let (diag, rest) = std::mem::take(&mut self.diag).split_at_mut(rows);
        self.diag = rest;
        let (bias, rest) = std::mem::take(&mut self.bias).split_at_mut(rows);
        self.bias = rest;
        let (pairs, rest) = std::mem::take(&mut self.pairs).split_at_mut(rows);
        self.pairs = rest;
        Out {
            nbr,
            coef,
            diag,
            bias,
            pairs,
        }
    }
}

/// The particle contact rows of one step.
#[derive(Debug, Default, Clone)]
pub struct ParticleContactRows {
    /// Offset of particle 0's DOFs in the velocity vector.
    pub dof0: usize,
    /// `M⁻¹` of a particle per axis (1/kg), z masked in planar models.
    pub minv: Vec3,
    /// `start[r]..start[r + 1]` index `nbr` / `coef`: the row's particles (one or two) and their
    /// coefficients `±n` (dimensionless).
    pub start: crate::csr::RowStarts,
    /// Particles of the rows.
    pub nbr: Vec<u32>,
    /// Coefficients aligned with `nbr`.
    pub coef: Vec<Vec3>,
    /// `J M⁻¹ Jᵀ` (1/kg).
    pub diag: Vec<Real>,
    /// Bias (m/s).
    pub bias: Vec<Real>,
    /// The pairs: fluid particle, other particle, whether the other is a boundary particle.
    pub pairs: Vec<(u32, u32, bool)>,
    /// One unilateral block per row.
    pub blocks: Vec<Block>,
    /// The rows' Jacobians on bodies (the body of a boundary particle).
    pub bodies: BodyEntries,
    /// Rows before each particle's (fluid pairs, wall pairs): scratch of [`Self::build`].
    offsets: Vec<(u32, u32)>,
}

impl ParticleContactRows {
    /// Stage 4: rows for close fluid pairs, then for fluid particles close to boundary
    /// particles. `h` is the step (s).
    pub fn build(&mut self, fluid: &Fluid, layout: &VelocityLayout, h: Real, masses: &[BodyMass]) {
        self.dof0 = layout.particle_dof0();
        let minv = 1.0 / fluid.mass;
        self.minv = if fluid.params.planar {
            Vec3::new(minv, minv, 0.0)
        } else {
            Vec3::repeat(minv)
        };
        let l = fluid.params.spacing;
        let near = Near {
            fluid,
            axes: self.minv.map(|m| if m > 0.0 { 1.0 } else { 0.0 }),
            minv: self.minv,
            tile2: if fluid.params.planar { 0.25 } else { 0.5 } * l * l,
            margin: CONTACT_MARGIN * l,
            dff: FLUID_CONTACT * l,
            dfb: WALL_CONTACT * l,
            // The lattice's own offset from a face ([`face_offset`]), a fixed wall's and a moving
            // body's: with half a spacing on the planar hexagonal lattice, whose rows meet a side
            // wall l/4 off, every other row started 0.25 l deep and was pushed out at
            // `0.2 × 0.25 l / h` (1 m/s at l = 2 cm, dt = 1 ms; 2026-12-01).
            plane: [false, true].map(|moving| {
                let p = &fluid.params;
                WALL_CONTACT * l - (l - face_offset(p.lattice, p.planar, l, moving))
            }),
            h,
        };
        // Rows per particle (fluid pairs j > i, then wall pairs), counted in parallel; then
        // each block of particles writes its rows at their offsets: the rows come in particle
        // order whatever the threads.
        let (nff, nfb) = self.count_rows(&near);
        let rows = nff + nfb;
        self.start.begin();
        for r in 0..rows {
            self.start
                .close_row(if r < nff { 2 * (r + 1) } else { nff + r + 1 });
        }
        self.nbr.resize(2 * nff + nfb, 0);
        self.coef.resize(2 * nff + nfb, Vec3::zeros());
        self.diag.resize(rows, 0.0);
        self.bias.resize(rows, 0.0);
        self.pairs.resize(rows, (0, 0, false));
        self.write_rows(&near, nff);
        self.body_entries(fluid, masses);
        self.blocks.clear();
        self.blocks.extend((0..self.diag.len()).map(|start| Block {
            start,
            kind: BlockKind::Unilateral,
        }));
    }

    /// Each particle's rows before it (fluid pairs, wall pairs) into `offsets`; the totals.
    fn count_rows(&mut self, near: &Near) -> (usize, usize) {
        let f = near.fluid;
        let n = f.len();
        let counts = |i: usize| -> (u32, u32) {
            let nf = (f.ff.of(i).iter())
                .filter(|&&j| j as usize > i && near.ff(i, j as usize).is_some());
            let nb = (f.fb.of(i).iter()).filter(|&&b| near.fb(i, b as usize).is_some());
            (nf.count() as u32, nb.count() as u32)
        };
        let offsets = &mut self.offsets;
        offsets.clear();
        offsets.resize(n + 1, (0, 0));
        if n >= PARALLEL_MIN_ROWS {
            offsets[1..]
                .par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(|(i, o)| *o = counts(i));
        } else {
            offsets[1..]
                .iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = counts(i));
        }
        for i in 0..n {
            offsets[i + 1].0 += offsets[i].0;
            offsets[i + 1].1 += offsets[i].1;
        }
        (offsets[n].0 as usize, offsets[n].1 as usize)
    }

    /// Writes the rows (sized, `nff` fluid pairs first) by blocks of particles at the offsets
    /// of [`Self::count_rows`].
    fn write_rows(&mut self, near: &Near, nff: usize) {
        let (f, n, offsets) = (near.fluid, near.fluid.len(), &self.offsets);
        let work = |(first, last, o, b): (usize, usize, Out, Out)| {
            let (mut rf, mut rb) = (0, 0);
            for i in first..last {
                // (Most particles have no contact row: the count said so, so their pairs are
                // not tested again.)
                if offsets[i + 1] == offsets[i] {
                    continue;
                }
                for &j in f.ff.of(i).iter().filter(|&&j| j as usize > i) {
                    if let Some((nrm, d1, bias)) = near.ff(i, j as usize) {
                        o.nbr[2 * rf..2 * rf + 2].copy_from_slice(&[i as u32, j]);
                        o.coef[2 * rf..2 * rf + 2].copy_from_slice(&[nrm, -nrm]);
                        (o.diag[rf], o.bias[rf]) = (2.0 * d1, bias);
                        o.pairs[rf] = (i as u32, j, false);
                        rf += 1;
                    }
                }
                for &k in f.fb.of(i) {
                    if let Some((nrm, d1, bias)) = near.fb(i, k as usize) {
                        (b.nbr[rb], b.coef[rb]) = (i as u32, nrm);
                        (b.diag[rb], b.bias[rb]) = (d1, bias);
                        b.pairs[rb] = (i as u32, k, true);
                        rb += 1;
                    }
                }
            }
        };
        let (nbr_f, nbr_b) = self.nbr.split_at_mut(2 * nff);
        let (coef_f, coef_b) = self.coef.split_at_mut(2 * nff);
        let (diag_f, diag_b) = self.diag.split_at_mut(nff);
        let (bias_f, bias_b) = self.bias.split_at_mut(nff);
        let (pairs_f, pairs_b) = self.pairs.split_at_mut(nff);
        let (mut of, mut ob) = (
            Out {
                nbr: nbr_f,
                coef: coef_f,
                diag: diag_f,
                bias: bias_f,
                pairs: pairs_f,
            },
            Out {
                nbr: nbr_b,
                coef: coef_b,
                diag: diag_b,
                bias: bias_b,
                pairs: pairs_b,
            },
        );
        let mut first = 0;
        let blocks = std::iter::from_fn(move || {
            if first >= n {
                return None;
            }
            let last = (first + PARTICLE_BLOCK).min(n);
            let (o, p) = (offsets[first], offsets[last]);
            let block = (
                first,
                last,
                of.take((p.0 - o.0) as usize, 2),
                ob.take((p.1 - o.1) as usize, 1),
            );
            first = last;
            Some(block)
        });
        if n >= PARALLEL_MIN_ROWS {
            blocks.par_bridge().for_each(work);
        } else {
            blocks.for_each(work);
        }
    }

    /// `(−n, −r_b × n)` on the body of the boundary particle of each fluid–body pair.
    fn body_entries(&mut self, fluid: &Fluid, masses: &[BodyMass]) {
        self.bodies.clear();
        if !fluid.has_wall_forces() {
            return;
        }
        let (boundary, owner) = (&fluid.boundary, &fluid.wall_body);
        let e = &mut self.bodies;
        e.begin();
        for (p, &(_, b, boundary_pair)) in self.pairs.iter().enumerate() {
            let o = if boundary_pair {
                owner[b as usize]
            } else {
                STATIC
            };
            if o != STATIC {
                let nrm = self.coef[self.start[p] as usize];
                let rb = boundary[b as usize] - masses[o as usize].com;
                e.add(o, -nrm, rb.cross(&-nrm));
            }
            e.finish_row(masses, &mut self.diag[p], &mut self.bias[p]);
        }
    }

    /// Adds the rows' forces on bodies to `fluid.body_force` / `body_torque` (N, N·m), static
    /// bodies a probe reads included ([`Fluid::wall_body`]; without them a wall's reported force
    /// missed the contact rows' share: a 2D column collapsing against a wall lost 4.9 of
    /// 67 N s/m of momentum that no wall received by 0.2 s, `tests/momentum.rs`).
    pub fn read_back(&self, lambda: &[Real], h: Real, fluid: &mut Fluid) {
        self.bodies
            .add_forces(lambda, h, &mut fluid.body_force, &mut fluid.body_torque);
    }

    #[inline]
    fn entries(&self, k: usize) -> (&[u32], &[Vec3]) {
        let (a, b) = (self.start[k] as usize, self.start[k + 1] as usize);
        (&self.nbr[a..b], &self.coef[a..b])
    }
}

impl RowFamily for ParticleContactRows {
    fn name(&self) -> &'static str {
        "particle contacts"
    }
    fn groups(&self, out: &mut dyn FnMut(&'static str, usize)) {
        out("particle contact", self.len());
    }
    /// Contacts start from zero (pairs change every step).
    fn warm_start(&self, out: &mut Vec<Real>) {
        out.extend(std::iter::repeat_n(0.0, self.diag.len()));
    }
}

impl RowSet for ParticleContactRows {
    fn len(&self) -> usize {
        self.diag.len()
    }
    fn blocks(&self) -> &[Block] {
        &self.blocks
    }
    #[inline]
    fn jv(&self, k: usize, v: &[Real]) -> Real {
        let mut s = 0.0;
        let (nbr, coef) = self.entries(k);
        for (j, c) in nbr.iter().zip(coef) {
            let o = self.dof0 + 3 * *j as usize;
            s += c.dot(&Vec3::new(v[o], v[o + 1], v[o + 2]));
        }
        for e in self.bodies.of(k) {
            s += e.jac.jv(v);
        }
        s
    }
    fn apply(&self, k: usize, dl: Real, v: &mut [Real]) {
        let (nbr, coef) = self.entries(k);
        for (j, c) in nbr.iter().zip(coef) {
            let o = self.dof0 + 3 * *j as usize;
            for a in 0..3 {
                v[o + a] += dl * self.minv[a] * c[a];
            }
        }
        for e in self.bodies.of(k) {
            e.jac.apply(dl, v);
        }
    }
    fn diag(&self, k: usize) -> Real {
        self.diag[k]
    }
    fn coupling(&self, k: usize, l: usize) -> Real {
        assert_eq!(k, l, "particle contact rows are blocks of one row");
        self.diag[k]
    }
    fn bias(&self, k: usize) -> Real {
        self.bias[k]
    }
    fn compliance(&self, _k: usize) -> Real {
        0.0
    }
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        if out.len() < PARALLEL_MIN_ROWS {
            out.iter_mut()
                .enumerate()
                .for_each(|(k, o)| *o = self.jv(k, v));
        } else {
            out.par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(|(k, o)| *o = self.jv(k, v));
        }
    }
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        for (k, &l) in lambda.iter().enumerate() {
            let (nbr, coef) = self.entries(k);
            for (j, c) in nbr.iter().zip(coef) {
                let o = self.dof0 + 3 * *j as usize;
                for a in 0..3 {
                    v[o + a] += l * self.minv[a] * c[a];
                }
            }
        }
        self.bodies.add_minv_jt(self.diag.len(), lambda, v);
    }
}
