//! Which ranks hold each static wall particle, and the walls' exchange when the slabs move
//! (the module doc of [`super`]).
//!
//! **The rule.** A wall particle within `reach` (m) of the fluid's extent along the axis (the
//! smallest and largest coordinate of any fluid particle at the last redistribution) is held by
//! every rank whose slab it is within `reach` of, its *primary* the rank whose slab holds it.
//! Any other wall particle is far from every fluid particle until the next redistribution (a
//! particle moves less than a support between two, and `reach` is more than two supports):
//! no rank's rows or lists read it, so it is *parked*, held by one rank only, rank
//! `model index mod N` (its primary), which spreads the walls of the empty parts of a scene
//! (a dam break's dry tank) evenly over the ranks instead of on the slab that reaches them.
//! When the extent grows, the walls it reaches go from their parking rank to their slabs'
//! ranks, with their values.

use super::{part_in, reaches, SlabHalo};
use crate::fluid::halo::Carried;
use crate::fluid::wall_part::WallSource;
use crate::fluid::Fluid;
use crate::math::Real;
use std::time::Instant;

/// The holders of static wall particles under one set of cuts and one fluid extent.
#[derive(Debug, Clone)]
pub(super) struct WallRule {
    /// The slabs' cuts (m).
    pub cuts: Vec<Real>,
    /// The fluid's smallest and largest coordinate along the axis (m).
    pub extent: [Real; 2],
    /// How far beyond its slab a rank holds walls (m).
    pub reach: Real,
    /// Ranks.
    pub ranks: usize,
}

impl WallRule {
    /// Whether a wall particle at coordinate `x` (m) is parked (far from all fluid).
    fn parked(&self, x: Real) -> bool {
        let [lo, hi] = self.extent;
        !(x > lo - self.reach && x < hi + self.reach)
    }

    /// The rank that holds the values of wall particle `id` (the model's index) at `x` (m).
    pub fn primary(&self, id: u32, x: Real) -> usize {
        if self.parked(x) {
            id as usize % self.ranks
        } else {
            part_in(&self.cuts, x)
        }
    }

    /// Whether rank r holds wall particle `id` at `x` (m).
    pub fn holds(&self, r: usize, id: u32, x: Real) -> bool {
        if self.parked(x) {
            r == id as usize % self.ranks
        } else {
            reaches(self.reach, &self.cuts, r, x)
        }
    }
}

impl SlabHalo {
    /// The rule the slab's walls are held by now.
    pub(super) fn wall_rule(&self) -> WallRule {
        WallRule {
            cuts: self.cuts.clone(),
            extent: self.extent,
            reach: self.reach,
            ranks: self.comm.size(),
        }
    }

    /// Keeps, of `fluid`, which holds every static wall particle of the model, those this rank
    /// holds under the current rule.
    pub(super) fn hold_own_walls(&mut self, fluid: &mut Fluid) {
        let (me, rule, a) = (self.comm.rank(), self.wall_rule(), self.axis);
        let ids: Vec<u32> = (0..fluid.static_walls() as u32)
            .filter(|&i| rule.holds(me, i, fluid.boundary[i as usize][a]))
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
        let (me, n, a) = (self.comm.rank(), self.comm.size(), self.axis);
        let (ns, new) = (f.static_walls(), self.wall_rule());
        for i in 0..ns {
            let (id, x) = (self.wall_ids[i], f.boundary[i][a]);
            if old.primary(id, x) != me {
                continue;
            }
            for r in (0..n).filter(|&r| r != me) {
                if new.holds(r, id, x) && !old.holds(r, id, x) {
                    self.out[r].push(id as Real);
                    f.pack_wall(i, c, &mut self.out[r]);
                }
            }
        }
        self.exchange();
        let mut src: Vec<(u32, WallSource)> = (0..ns)
            .filter(|&i| new.holds(me, self.wall_ids[i], f.boundary[i][a]))
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
        let (me, n, nb, a) = (
            self.comm.rank(),
            self.comm.size(),
            f.boundary.len(),
            self.axis,
        );
        let (ns, rule) = (f.static_walls(), self.wall_rule());
        let used: Vec<usize> = (0..c.walls.len())
            .filter(|&j| c.walls[j].len() == nb)
            .collect();
        for i in 0..ns {
            let (id, x) = (self.wall_ids[i], f.boundary[i][a]);
            if rule.primary(id, x) != me {
                continue;
            }
            for r in (0..n).filter(|&r| r != me && rule.holds(r, id, x)) {
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

    /// Every wall particle has holders and its primary among them; a parked one has one.
    #[test]
    fn a_wall_is_held_by_its_primary_and_a_parked_one_once() {
        let rule = WallRule {
            cuts: vec![0.2, 0.3, 0.35],
            extent: [0.0, 0.4],
            reach: 0.05,
            ranks: 4,
        };
        for k in 0..400 {
            let (id, x) = (k as u32 * 7, -0.5 + k as f64 * 0.004);
            let holders: Vec<usize> = (0..4).filter(|&r| rule.holds(r, id, x)).collect();
            assert!(holders.contains(&rule.primary(id, x)), "x = {x}");
            let parked = !(-0.05..0.45).contains(&x) || x == -0.05;
            if parked {
                assert_eq!(holders, vec![id as usize % 4], "x = {x}");
            } else {
                assert!(!holders.is_empty(), "x = {x}");
            }
        }
    }
}
