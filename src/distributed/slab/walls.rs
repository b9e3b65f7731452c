//! Which ranks hold each static wall particle, and the walls' exchange when the slabs move
//! (the module doc of [`super`]).
//!
//! **The rule.** Rank r *reads* a static wall particle at p when p is within `reach` (m) of
//! its slab along the axis and inside its box: the box around the fluid particles it owns or
//! holds as ghosts at a redistribution, grown by (1 + 2 s) supports, what their neighbour lists
//! reach until the next (a particle moves by at most s supports between two, and its lists
//! reach one support and s beyond). A wall particle is held by every rank that reads it, its
//! *primary* the rank whose slab holds it if that rank reads it, else the first that does. A
//! wall particle no rank reads (the dry part of a tank, the side walls above a shallow layer)
//! is *parked*: held by one rank, `model index mod N`, its primary, which spreads those walls
//! evenly over the ranks instead of on the slabs that reach them. When the cuts or the boxes
//! move, the walls a rank comes to hold come from their primary under the old rule, with their
//! values.
//!
//! A wall row (a wall particle with fluid in its support) is owned by the rank whose slab holds
//! the wall ([`crate::fluid::halo::Halo::holds`]), which reads it: the fluid near it is within
//! one support and s of that slab, so that rank owns it or holds it as a ghost, and the wall
//! is inside that rank's box.

use super::{near_ranks, part_in, reaches, SlabHalo};
use crate::fluid::halo::Carried;
use crate::fluid::wall_part::WallSource;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};
use std::time::Instant;

/// The holders of static wall particles under one set of cuts and boxes.
#[derive(Debug, Clone)]
pub(super) struct WallRule {
    /// The slabs' cuts (m).
    pub cuts: Vec<Real>,
    /// Per rank, its box (m; six numbers: the lower corner, then the upper).
    pub boxes: Vec<Real>,
    /// How far beyond its slab a rank holds walls (m).
    pub reach: Real,
    /// Ranks, and the axis the slabs cut.
    pub ranks: usize,
    pub axis: usize,
}

impl WallRule {
    /// Whether rank r reads a wall particle at `p` (m).
    fn reads(&self, r: usize, p: &Vec3) -> bool {
        let b = &self.boxes[6 * r..6 * r + 6];
        reaches(self.reach, &self.cuts, r, p[self.axis])
            && (0..3).all(|k| p[k] > b[k] && p[k] < b[3 + k])
    }

    /// The ranks that hold wall particle `id` (the model's index) at `p` (m), into `out`
    /// (ascending); returns its primary.
    pub fn holders(&self, id: u32, p: &Vec3, out: &mut Vec<usize>) -> usize {
        out.clear();
        let x = p[self.axis];
        out.extend(near_ranks(self.reach, &self.cuts, x).filter(|&r| self.reads(r, p)));
        let home = part_in(&self.cuts, x);
        if out.is_empty() {
            let park = id as usize % self.ranks;
            out.push(park);
            park
        } else if out.contains(&home) {
            home
        } else {
            out[0]
        }
    }
}

impl SlabHalo {
    /// The rule the slab's walls are held by now.
    pub(super) fn wall_rule(&self) -> WallRule {
        WallRule {
            cuts: self.cuts.clone(),
            boxes: self.boxes.clone(),
            reach: self.reach,
            ranks: self.comm.size(),
            axis: self.axis,
        }
    }

    /// Per rank, the box around the particles it owns or holds as ghosts under the current cuts
    /// (from the owned particles at `pos`, every rank's: collective), grown by what their lists
    /// reach until the next redistribution, `reach − width` (m; [`SlabHalo::boxes`]).
    pub(super) fn boxes_of(&mut self, pos: &[Vec3]) -> Vec<Real> {
        let (n, a, w, cuts) = (self.comm.size(), self.axis, self.width, &self.cuts);
        // (Lower corners negated: one largest-value collective for both.)
        let mut b = vec![Real::NEG_INFINITY; 6 * n];
        for x in pos {
            for r in near_ranks(w, cuts, x[a]).filter(|&r| reaches(w, cuts, r, x[a])) {
                for k in 0..3 {
                    b[6 * r + k] = b[6 * r + k].max(-x[k]);
                    b[6 * r + 3 + k] = b[6 * r + 3 + k].max(x[k]);
                }
            }
        }
        let t0 = Instant::now();
        self.comm.max(&mut b);
        self.stats.comm_seconds += t0.elapsed().as_secs_f64();
        let grow = self.reach - self.width;
        for r in 0..n {
            for k in 0..3 {
                b[6 * r + k] = -b[6 * r + k] - grow;
                b[6 * r + 3 + k] += grow;
            }
        }
        b
    }

    /// Keeps, of `fluid`, which holds every static wall particle of the model, those this rank
    /// holds under the current rule.
    pub(super) fn hold_own_walls(&mut self, fluid: &mut Fluid) {
        let (me, rule, mut h) = (self.comm.rank(), self.wall_rule(), Vec::new());
        let ids: Vec<u32> = (0..fluid.static_walls() as u32)
            .filter(|&i| {
                rule.holders(i, &fluid.boundary[i as usize], &mut h);
                h.contains(&me)
            })
            .collect();
        self.hold_walls(fluid, ids);
    }

    /// Keeps the static walls of the model's indices `ids` (ascending) of `fluid`, which holds
    /// them all (their densities, sums over their neighbours, computed first: a parked wall's
    /// neighbours are on other ranks).
    pub(super) fn hold_walls(&mut self, fluid: &mut Fluid, ids: Vec<u32>) {
        let mut held = vec![true; fluid.boundary.len()];
        held[..fluid.static_walls()].fill(false);
        ids.iter().for_each(|&i| held[i as usize] = true);
        fluid.keep_wall_densities(&held);
        drop(held);
        let src: Vec<WallSource> = ids.iter().map(|&i| WallSource::Kept(i)).collect();
        fluid.rebuild_walls(&src, &[], &mut Carried::default());
        self.stats.walls = ids.len();
        self.wall_ids = ids;
    }

    /// The static walls this rank holds under the current rule (they were held under `old`):
    /// those it keeps, and those new to it, sent by their primary under `old` with their values
    /// (collective).
    pub(super) fn redeal_walls(&mut self, f: &mut Fluid, c: &mut Carried<'_>, old: &WallRule) {
        let me = self.comm.rank();
        let (ns, new) = (f.static_walls(), self.wall_rule());
        let (mut was, mut is) = (Vec::new(), Vec::new());
        let mut keep = vec![false; ns];
        for (i, kept) in keep.iter_mut().enumerate() {
            let (id, p) = (self.wall_ids[i], &f.boundary[i]);
            new.holders(id, p, &mut is);
            *kept = is.contains(&me);
            if old.holders(id, p, &mut was) != me {
                continue;
            }
            for &r in is.iter().filter(|&&r| r != me && !was.contains(&r)) {
                self.out[r].push(id as Real);
                f.pack_wall(i, c, &mut self.out[r]);
            }
        }
        self.exchange();
        let mut src: Vec<(u32, WallSource)> = (0..ns)
            .filter(|&i| keep[i])
            .map(|i| (self.wall_ids[i], WallSource::Kept(i as u32)))
            .collect();
        if src.len() == ns && self.inbox.iter().all(Vec::is_empty) {
            return;
        }
        let w = Fluid::wall_width(c) + 1;
        let mut packed = Vec::new();
        // (Received records are numbered in the order they arrived.)
        for (k, p) in self
            .inbox
            .iter()
            .flat_map(|m| m.chunks_exact(w))
            .enumerate()
        {
            src.push((p[0] as u32, WallSource::Packed(k as u32)));
            packed.extend_from_slice(&p[1..]);
        }
        src.sort_unstable_by_key(|s| s.0);
        let sources: Vec<WallSource> = src.iter().map(|s| s.1).collect();
        f.rebuild_walls(&sources, &packed, c);
        self.wall_ids = src.iter().map(|s| s.0).collect();
        self.stats.walls = self.wall_ids.len();
    }

    /// The boundary particles' carried values from the rank that holds them for the others: a
    /// static wall's sent by its primary to the others that hold it, a body particle's (on every
    /// rank) summed over the ranks, each rank's own (its slab's), zero elsewhere (collective).
    pub(super) fn reconcile_walls(&mut self, f: &Fluid, c: &mut Carried<'_>) {
        let (me, nb) = (self.comm.rank(), f.boundary.len());
        let (ns, rule, mut h) = (f.static_walls(), self.wall_rule(), Vec::new());
        let used: Vec<usize> = (0..c.walls.len())
            .filter(|&j| c.walls[j].len() == nb)
            .collect();
        for i in 0..ns {
            let id = self.wall_ids[i];
            if rule.holders(id, &f.boundary[i], &mut h) != me {
                continue;
            }
            for &r in h.iter().filter(|&&r| r != me) {
                self.out[r].push(id as Real);
                self.out[r].extend(used.iter().map(|&j| c.walls[j][i]));
            }
        }
        self.exchange();
        for p in self
            .inbox
            .iter()
            .flat_map(|m| m.chunks_exact(1 + used.len()))
        {
            let Ok(i) = self.wall_ids.binary_search(&(p[0] as u32)) else {
                panic!("a rank sent the values of a wall this one does not hold");
            };
            for (k, &j) in used.iter().enumerate() {
                c.walls[j][i] = p[1 + k];
            }
        }
        let mine: Vec<bool> = f.boundary[ns..]
            .iter()
            .map(|x| self.part_of(x) == me)
            .collect();
        for &j in &used {
            let tail = &mut c.walls[j][ns..];
            tail.iter_mut()
                .zip(&mine)
                .filter(|(_, &m)| !m)
                .for_each(|(v, _)| *v = 0.0);
            let t0 = Instant::now();
            self.comm.sum(tail);
            self.stats.comm_seconds += t0.elapsed().as_secs_f64();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WallRule;
    use crate::math::Vec3;

    /// Every wall particle has holders, its primary among them; one that no rank reads (far
    /// along the axis, or above every box) has one, its index mod the ranks; the slab's rank is
    /// the primary where it reads the wall.
    #[test]
    fn a_wall_is_held_by_its_primary_and_a_parked_one_once() {
        // Four slabs cut at 0.2, 0.3, 0.35 m; each rank's box spans x over its slab ± 0.1 m,
        // z from −0.1 to 0.3 m (rank 3: to 0.6 m).
        let mut boxes = Vec::new();
        for (r, (lo, hi)) in [(-0.1, 0.2), (0.2, 0.3), (0.3, 0.35), (0.35, 0.4)]
            .into_iter()
            .enumerate()
        {
            let top = if r == 3 { 0.6 } else { 0.3 };
            boxes.extend([lo - 0.1, -1.0, -0.1, hi + 0.1, 1.0, top]);
        }
        let rule = WallRule {
            cuts: vec![0.2, 0.3, 0.35],
            boxes,
            reach: 0.05,
            ranks: 4,
            axis: 0,
        };
        let mut h = Vec::new();
        for k in 0..400 {
            for z in [0.0, 0.5, 0.9] {
                let (id, p) = (k as u32 * 7, Vec3::new(-0.5 + k as f64 * 0.004, 0.0, z));
                let primary = rule.holders(id, &p, &mut h);
                assert!(h.contains(&primary), "{p:?}");
                let home = super::part_in(&rule.cuts, p.x);
                let read = (0..4).any(|r| rule.reads(r, &p));
                if !read {
                    assert_eq!(h, vec![id as usize % 4], "{p:?}");
                } else if rule.reads(home, &p) {
                    assert_eq!(primary, home, "{p:?}");
                }
                if z > 0.6 || p.x < -0.25 || p.x > 0.55 {
                    assert!(!read, "{p:?}");
                }
            }
        }
    }
}
