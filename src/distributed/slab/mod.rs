//! The fluid divided into slabs along one axis, one per rank, rebalanced at every
//! redistribution so that each rank owns as many particles as the others (to within a
//! histogram bin); the [`Halo`] of [`crate::fluid::halo`] over a [`Comm`].
//!
//! **Slabs.** Rank r owns the particles whose coordinate c along the axis (the longest side of
//! the box around the fluid, its walls and the bodies' centres) lies in `[cut_{r−1}, cut_r)`
//! (the first and last slabs open). The cuts are the quantiles k/N of the owned particles'
//! coordinates, read from a histogram of 4 096 bins summed over the ranks (one collective sum),
//! so every rank computes the same cuts.
//!
//! **Ghosts.** A particle within `width` of another rank's slab is copied there as a ghost at
//! each redistribution (every neighbour search). `width` = k (1 + 2 s) × the kernel support,
//! s the fraction of a support a particle may move between two searches
//! ([`crate::fluid::FluidMethod::ghost_skin`]: WCSPH's lists' skin, 0.12; for the constraint
//! method its projection's skin of 0.05 spacings, about 0.02), k the supports a part reads
//! beyond its own particles ([`crate::fluid::FluidMethod::ghost_supports`]): two for WCSPH,
//! whose owned particles read values their neighbours computed from their own neighbours (the
//! Adami walls' extrapolated pressure, density gradients), one for the constraint method,
//! which exchanges the one such value it reads (the shifting's kernel fills); the skin twice
//! because owned particles and ghosts may each move by up to the skin between searches.
//! Between searches the ghost set is fixed and its values are
//! refreshed by one exchange of 7 numbers per ghost (position, velocity, density). Only the
//! inner ghosts, within (1 + 2 s) supports of the slab, get neighbour lists
//! ([`crate::fluid::Fluid`]'s `listless` mask): the outer ones are only read.
//!
//! **Migration.** At each redistribution the owned particles outside the rank's new slab go to
//! their new owner with their velocities and the values the method carries for them.
//!
//! **Static walls** are divided as well: a rank holds the wall particles within `reach` of its
//! slab, `width` plus (1 + 2 s) supports (what its ghosts' neighbour lists reach), a subset of
//! the model's in the model's order ([`crate::fluid::wall_part`]), and only those near the box
//! around the fluid it owns or holds as ghosts; a wall particle near no rank's fluid is parked,
//! held by one rank chosen by its index ([`walls`]). When the cuts or the boxes move, the wall
//! particles entering a rank's holding come from the rank that held them for the others. **Body
//! particles** are on every rank. Values a method carries for boundary particles (dynamic
//! walls' densities) are integrated by each rank from its own fluid, right where the rank's
//! owned particles can see them; at each redistribution every boundary particle takes the values
//! of the rank whose slab holds it (sent to the other holders of a static wall particle; summed
//! over the ranks for body particles).

mod settle;
mod walls;

use super::checkpoint::RankLayout;
use super::Comm;
use crate::fluid::halo::{Carried, Halo};
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};
use std::time::Instant;

/// Histogram bins for the cuts.
const BINS: usize = 4096;

/// Values per ghost at a refresh: position, velocity, density.
const REFRESH: usize = 7;

/// What the exchange cost, accumulated over a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct HaloStats {
    /// Ghosts held after the last redistribution.
    pub ghosts: usize,
    /// Particles owned after the last redistribution.
    pub owned: usize,
    /// Particles that changed owner.
    pub migrated: u64,
    /// Static wall particles held after the last redistribution.
    pub walls: usize,
    /// Wall time in collective operations (s), waiting for other ranks included.
    pub comm_seconds: f64,
}

/// A fluid's slab of one rank and its exchange with the others (see the module doc).
pub struct SlabHalo {
    comm: Box<dyn Comm>,
    axis: usize,
    /// The upper ends of slabs 0..N−1 (m); slab r is `[cuts[r−1], cuts[r])`.
    cuts: Vec<Real>,
    width: Real,
    owned: Vec<bool>,
    owned_scratch: Vec<bool>,
    /// Ids sent to / received from each rank as ghosts at the last redistribution, in the
    /// order sent.
    send_ids: Vec<Vec<u32>>,
    ghost_ids: Vec<Vec<u32>>,
    /// The same particles' indices now.
    send_idx: Vec<Vec<u32>>,
    recv_idx: Vec<Vec<u32>>,
    /// Local index of each particle id (ids are global: every rank built the same fluid).
    index_of: Vec<u32>,
    /// The model's index of each static wall particle this rank holds (ascending; the rule of
    /// [`walls`]).
    wall_ids: Vec<u32>,
    /// Per rank, the box around the fluid it owned or held as ghosts at the last redistribution,
    /// grown by what their lists reach until the next (m; six numbers per rank, the lower
    /// corner then the upper; [`walls`]).
    boxes: Vec<Real>,
    /// How far beyond its slab a rank holds static walls (m): the ghosts' width plus what a
    /// ghost's neighbour lists reach.
    reach: Real,
    /// A divided solve's ghost and body entries at the last meeting of the parts
    /// ([`Halo::settle`]): the bodies' DOFs, then three per ghost in `recv_idx` order.
    snap: Vec<Real>,
    /// Message buffers, one per rank, to send and received (reused).
    out: Vec<Vec<f64>>,
    inbox: Vec<Vec<f64>>,
    /// Accumulated cost.
    pub stats: HaloStats,
}

impl SlabHalo {
    /// Rank `comm.rank()`'s slab of `fluid`, which holds the whole fluid on every rank (built
    /// from the same model): keeps the particles of this rank's slab and drops the rest. The
    /// slabs cut the longest side of `scene` (m; the box around the fluid, its walls and the
    /// bodies, [`crate::pipeline::World::scene`]); ghosts reach `width_supports` kernel supports
    /// beyond a slab (the method's k (1 + 2 s), the module doc), `skin` (s) the fraction of a
    /// support a particle may move between two searches.
    pub fn claim(
        comm: Box<dyn Comm>,
        fluid: &mut Fluid,
        scene: [Vec3; 2],
        (width_supports, skin): (Real, Real),
    ) -> SlabHalo {
        let mut h = SlabHalo::new(comm, fluid, scene, (width_supports, skin));
        // (Every rank holds every particle: the summed histogram is N times one rank's, with
        // the same quantiles.)
        h.cuts = h.cuts_of(&fluid.pos);
        h.boxes = h.boxes_of(&fluid.pos);
        let me = h.comm.rank();
        let keep: Vec<bool> = fluid.pos.iter().map(|x| h.part_of(x) == me).collect();
        fluid.keep_particles(&keep, &mut Carried::default());
        h.owned = vec![true; fluid.len()];
        h.stats.owned = fluid.len();
        h.hold_own_walls(fluid);
        h
    }

    /// How the fluid stands on this rank, for its checkpoint ([`SlabHalo::resumed`]).
    pub fn layout(&self, fluid: &Fluid) -> RankLayout {
        RankLayout {
            sent: self.send_ids.clone(),
            ghosts: self.ghost_ids.clone(),
            listless: fluid.listless.clone(),
            owned: self.owned.clone(),
            cuts: self.cuts.clone(),
            walls: self.wall_ids.clone(),
            boxes: self.boxes.clone(),
        }
    }

    /// The slab of a rank resumed from its checkpoint: `fluid` (built from the whole model)
    /// keeps the static walls the rank held (`walls`, the model's indices) and is about to take
    /// the rank's particles, which it owns where `owned` holds (the others are ghosts, dropped
    /// at the next redistribution, which cuts the slabs anew from `cuts`, m). Collective
    /// operations: none.
    pub fn resumed(
        comm: Box<dyn Comm>,
        fluid: &mut Fluid,
        scene: [Vec3; 2],
        (width_supports, skin): (Real, Real),
        layout: RankLayout,
    ) -> SlabHalo {
        let mut h = SlabHalo::new(comm, fluid, scene, (width_supports, skin));
        h.hold_walls(fluid, layout.walls);
        h.cuts = layout.cuts;
        h.boxes = layout.boxes;
        h.stats.owned = layout.owned.iter().filter(|o| **o).count();
        h.stats.ghosts = layout.owned.len() - h.stats.owned;
        h.owned = layout.owned;
        if layout.sent.len() == h.comm.size() && layout.ghosts.len() == h.comm.size() {
            (h.send_ids, h.ghost_ids) = (layout.sent, layout.ghosts);
        }
        h
    }

    /// After the state of a resumed rank is restored: the ghosts' exchange lists from the
    /// checkpoint's ids, and the outer ghosts' `listless` marks, as the last redistribution left
    /// them (`listless`, from the checkpoint's layout).
    pub fn restored(&mut self, fluid: &mut Fluid, listless: Vec<bool>) {
        if listless.len() == fluid.len() {
            fluid.listless = listless;
        }
        self.index(fluid);
    }

    /// Whether `layout` can be this rank's of `fluid` (built from the whole model) on `ranks`
    /// ranks; the error says why not.
    pub fn fits(layout: &RankLayout, fluid: &Fluid, ranks: usize) -> Result<(), String> {
        let ns = fluid.static_walls() as u32;
        let w = &layout.walls;
        if layout.cuts.len() + 1 != ranks
            || layout.boxes.len() != 6 * ranks
            || w.windows(2).any(|w| w[0] >= w[1])
            || w.last().is_some_and(|&w| w >= ns)
        {
            return Err("the checkpoint's slabs or walls do not fit this model and ranks".into());
        }
        Ok(())
    }

    fn new(
        comm: Box<dyn Comm>,
        fluid: &Fluid,
        [lo, hi]: [Vec3; 2],
        (width_supports, skin): (Real, Real),
    ) -> SlabHalo {
        let axis = (0..3)
            .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
            .unwrap_or(0);
        let n = comm.size();
        let support = fluid.params.kernel.support();
        let width = width_supports * support;
        SlabHalo {
            axis,
            cuts: Vec::new(),
            width,
            wall_ids: (0..fluid.static_walls() as u32).collect(),
            // (Unbounded until the first cuts: every rank's box is the whole space.)
            boxes: [[Real::NEG_INFINITY; 3], [Real::INFINITY; 3]]
                .concat()
                .repeat(n),
            reach: width + (1.0 + 2.0 * skin) * support,
            owned: vec![true; fluid.len()],
            owned_scratch: Vec::new(),
            send_ids: vec![Vec::new(); n],
            ghost_ids: vec![Vec::new(); n],
            send_idx: vec![Vec::new(); n],
            recv_idx: vec![Vec::new(); n],
            index_of: vec![u32::MAX; fluid.id.iter().map(|&i| i as usize + 1).max().unwrap_or(0)],
            snap: Vec::new(),
            out: vec![Vec::new(); n],
            inbox: vec![Vec::new(); n],
            stats: HaloStats::default(),
            comm,
        }
    }

    /// The exchange lists' indices from their ids, for the particles in their current order.
    fn index(&mut self, f: &Fluid) {
        for (k, &id) in f.id.iter().enumerate() {
            self.index_of[id as usize] = k as u32;
        }
        let index_of = &self.index_of;
        for (idx, ids) in self
            .send_idx
            .iter_mut()
            .zip(&self.send_ids)
            .chain(self.recv_idx.iter_mut().zip(&self.ghost_ids))
        {
            idx.clear();
            idx.extend(ids.iter().map(|&id| index_of[id as usize]));
        }
    }

    /// The slab halo a divided world's fluid method was given ([`super::run::prepare`]).
    pub(super) fn of(method: &mut dyn crate::fluid::FluidMethod) -> &mut SlabHalo {
        method
            .halo()
            .and_then(|h| h.as_any_mut().downcast_mut::<SlabHalo>())
            .expect("prepare() gave the fluid method a SlabHalo")
    }

    /// The exchange's collective operations, for the run loop's reductions.
    pub fn comm(&self) -> &dyn Comm {
        &*self.comm
    }

    fn part_of(&self, x: &Vec3) -> usize {
        part_in(&self.cuts, x[self.axis])
    }

    /// Cuts at the quantiles of the owned particles at `pos` (collective).
    fn cuts_of(&mut self, pos: &[Vec3]) -> Vec<Real> {
        let n = self.comm.size();
        let a = self.axis;
        let t0 = Instant::now();
        let mut ext = [Real::NEG_INFINITY, Real::NEG_INFINITY];
        for x in pos {
            ext = [ext[0].max(-x[a]), ext[1].max(x[a])];
        }
        self.comm.max(&mut ext);
        let (lo, hi) = (-ext[0], ext[1]);
        let mut hist = vec![0.0; BINS];
        let span = (hi - lo).max(1e-300);
        let bin = |c: Real| (((c - lo) / span * BINS as Real) as usize).min(BINS - 1);
        for x in pos {
            hist[bin(x[a])] += 1.0;
        }
        self.comm.sum(&mut hist);
        self.stats.comm_seconds += t0.elapsed().as_secs_f64();
        let total: f64 = hist.iter().sum();
        let mut cuts = Vec::with_capacity(n.saturating_sub(1));
        let (mut acc, mut b) = (0.0, 0);
        for k in 1..n {
            let target = total * k as f64 / n as f64;
            while b < BINS && acc + hist[b] < target {
                acc += hist[b];
                b += 1;
            }
            // Within bin b, by linear interpolation of the count.
            let frac = if b < BINS && hist[b] > 0.0 {
                (target - acc) / hist[b]
            } else {
                0.0
            };
            cuts.push(lo + span * (b as Real + frac) / BINS as Real);
        }
        cuts
    }

    /// The slab of rank r: `(lower, upper)` (m; infinite at the ends).
    fn slab(&self, r: usize) -> (Real, Real) {
        let lo = if r == 0 {
            Real::NEG_INFINITY
        } else {
            self.cuts[r - 1]
        };
        let hi = self.cuts.get(r).copied().unwrap_or(Real::INFINITY);
        (lo, hi)
    }

    /// Sends `out` and fills `inbox` (collective); `out` is left empty.
    fn exchange(&mut self) {
        let t0 = Instant::now();
        self.comm.exchange(&self.out, &mut self.inbox);
        self.out.iter_mut().for_each(Vec::clear);
        self.stats.comm_seconds += t0.elapsed().as_secs_f64();
    }

    /// Appends the particles of `got` (packed by [`Fluid::pack_particle`]) to the fluid;
    /// returns their ids by sending rank.
    fn unpack(f: &mut Fluid, c: &mut Carried<'_>, got: &[Vec<f64>]) -> Vec<Vec<u32>> {
        let width = c.width();
        got.iter()
            .map(|m| {
                m.chunks_exact(width)
                    .map(|p| {
                        f.push_packed(p, c);
                        p[0] as u32
                    })
                    .collect()
            })
            .collect()
    }
}

/// The rank whose slab under `cuts` holds coordinate `x` (m).
fn part_in(cuts: &[Real], x: Real) -> usize {
    cuts.partition_point(|&c| c <= x)
}

/// The ranks whose slabs coordinate `x` (m) may be within `reach` (m) of under `cuts`: the
/// consecutive ranks around the one holding x, one more on each side (a superset of those
/// [`reaches`] accepts).
fn near_ranks(reach: Real, cuts: &[Real], x: Real) -> std::ops::RangeInclusive<usize> {
    let first = part_in(cuts, x - reach).saturating_sub(1);
    let last = (part_in(cuts, x + reach) + 1).min(cuts.len());
    first..=last
}

/// Whether coordinate `x` (m) is within `reach` (m) of rank r's slab under `cuts`.
fn reaches(reach: Real, cuts: &[Real], r: usize, x: Real) -> bool {
    let lo = if r == 0 {
        Real::NEG_INFINITY
    } else {
        cuts[r - 1]
    };
    let hi = cuts.get(r).copied().unwrap_or(Real::INFINITY);
    x > lo - reach && x < hi + reach
}

impl Halo for SlabHalo {
    fn max(&mut self, v: &mut [Real]) {
        let t0 = Instant::now();
        self.comm.max(v);
        self.stats.comm_seconds += t0.elapsed().as_secs_f64();
    }

    fn sum(&mut self, v: &mut [Real]) {
        let t0 = Instant::now();
        self.comm.sum(v);
        self.stats.comm_seconds += t0.elapsed().as_secs_f64();
    }

    fn redistribute(&mut self, f: &mut Fluid, c: &mut Carried<'_>) {
        let (me, n) = (self.comm.rank(), self.comm.size());
        if self.owned.len() == f.len() {
            let owned = std::mem::take(&mut self.owned);
            f.keep_particles(&owned, c);
        }
        let old = self.wall_rule();
        self.cuts = self.cuts_of(&f.pos);
        self.boxes = self.boxes_of(&f.pos);
        self.redeal_walls(f, c, &old);
        self.reconcile_walls(f, c);
        // Migration.
        let mut keep = vec![true; f.len()];
        for (i, k) in keep.iter_mut().enumerate() {
            let r = self.part_of(&f.pos[i]);
            if r != me {
                f.pack_particle(i, c, &mut self.out[r]);
                *k = false;
            }
        }
        self.exchange();
        self.stats.migrated += keep.iter().filter(|k| !**k).count() as u64;
        f.keep_particles(&keep, c);
        Self::unpack(f, c, &self.inbox);
        let owned = f.len();
        // Ghosts.
        let w = self.width;
        let slabs: Vec<(Real, Real)> = (0..n).map(|r| self.slab(r)).collect();
        self.send_ids.iter_mut().for_each(Vec::clear);
        for i in 0..owned {
            let x = f.pos[i][self.axis];
            for (r, &(lo, hi)) in slabs.iter().enumerate() {
                if r != me && x > lo - w && x < hi + w {
                    f.pack_particle(i, c, &mut self.out[r]);
                    self.send_ids[r].push(f.id[i]);
                }
            }
        }
        self.exchange();
        self.ghost_ids = Self::unpack(f, c, &self.inbox);
        self.owned.clear();
        self.owned.resize(owned, true);
        self.owned.resize(f.len(), false);
        self.stats.owned = owned;
        self.stats.ghosts = f.len() - owned;
        // The outer ghosts, beyond what an owned particle's neighbour lists reach (with the
        // skin twice, as for the width), are only read (their positions, velocities and
        // densities, refreshed): the search finds no neighbours for them.
        let (inner, axis) = (self.reach - self.width, self.axis);
        f.listless.clear();
        f.listless.resize(owned, false);
        let cuts = &self.cuts;
        f.listless.extend(
            f.pos[owned..]
                .iter()
                .map(|x| !reaches(inner, cuts, me, x[axis])),
        );
        f.trim(c);
    }

    fn reordered(&mut self, f: &Fluid) {
        f.reorder_like_last_search(&mut self.owned, &mut self.owned_scratch);
        self.index(f);
    }

    fn refresh(&mut self, pos: &mut [Vec3], vel: &mut [Vec3], rho: &mut [Real]) {
        for r in 0..self.comm.size() {
            let (out, idx) = (&mut self.out[r], &self.send_idx[r]);
            for &i in idx {
                let (x, v) = (pos[i as usize], vel[i as usize]);
                out.extend([x.x, x.y, x.z, v.x, v.y, v.z, rho[i as usize]]);
            }
        }
        self.exchange();
        for (m, idx) in self.inbox.iter().zip(&self.recv_idx) {
            assert_eq!(
                m.len(),
                idx.len() * REFRESH,
                "a rank refreshed another set of ghosts than it sent"
            );
            for (c, &i) in m.chunks_exact(REFRESH).zip(idx) {
                let i = i as usize;
                pos[i] = Vec3::new(c[0], c[1], c[2]);
                vel[i] = Vec3::new(c[3], c[4], c[5]);
                rho[i] = c[6];
            }
        }
    }

    fn refresh_scalar(&mut self, v: &mut [Real]) {
        for r in 0..self.comm.size() {
            let (out, idx) = (&mut self.out[r], &self.send_idx[r]);
            out.extend(idx.iter().map(|&i| v[i as usize]));
        }
        self.exchange();
        for (m, idx) in self.inbox.iter().zip(&self.recv_idx) {
            assert_eq!(
                m.len(),
                idx.len(),
                "a rank refreshed another set of ghosts than it sent"
            );
            for (&x, &i) in m.iter().zip(idx) {
                v[i as usize] = x;
            }
        }
    }

    fn owned(&self) -> &[bool] {
        &self.owned
    }

    fn part(&self) -> usize {
        self.comm.rank()
    }

    fn holds(&self, x: &Vec3) -> bool {
        self.part_of(x) == self.comm.rank()
    }

    fn begin_solve(&mut self, v: &[Real], dof0: usize, body_dofs: usize) {
        self.remember(v, dof0, body_dofs);
    }

    fn settle(&mut self, v: &mut [Real], dof0: usize, body_dofs: usize, change: Real) -> Real {
        self.meet(v, dof0, body_dofs, change)
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
