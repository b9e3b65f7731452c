//! Stage 1 of the fluid: body particles placed at their bodies' poses, particles sorted into
//! cell order ([`super::grid`]), and the fluid–fluid, fluid–boundary and boundary–fluid
//! neighbour lists.

use super::{permute, Fluid, STATIC};
use crate::math::{Real, Vec3};

impl Fluid {
    /// Stage 1: moves body-fixed boundary particles to their bodies' poses, sorts particles into
    /// cell order and finds fluid–fluid and fluid–boundary neighbours within the kernel support.
    pub fn update_neighbours(&mut self, bodies: &[crate::body::RigidBody]) {
        let moved = self.place_body_particles(bodies);
        self.search_lists(0.0, moved);
    }

    /// Puts the body-fixed boundary particles at their bodies' poses; whether there are any.
    pub fn place_body_particles(&mut self, bodies: &[crate::body::RigidBody]) -> bool {
        let planar = self.params.planar;
        let mut moved = false;
        let ns = self.static_walls();
        let surfaces = self.to_surface[ns..].iter_mut().zip(&self.local_surface);
        for (((x, &o), l), (s, ls)) in self.boundary[ns..]
            .iter_mut()
            .zip(&self.owner[ns..])
            .zip(&self.local)
            .zip(surfaces)
        {
            if o != STATIC {
                let pose = &bodies[o as usize].pose;
                *x = (pose * nalgebra::Point3::from(*l)).coords;
                *s = pose.rotation * ls;
                if planar {
                    x.z = 0.0;
                    s.z = 0.0;
                }
                moved = true;
            }
        }
        moved
    }

    /// Sorts the particles into cell order and finds the neighbour lists within the kernel
    /// support plus `skin` (m), the boundary particles where they are now.
    pub fn search(&mut self, skin: Real) {
        let moved = self.has_moving_walls();
        self.search_lists(skin, moved);
    }

    fn search_lists(&mut self, skin: Real, moved: bool) {
        let support = self.params.kernel.support();
        let r = support + skin;
        let (planar, per) = (self.params.planar, self.params.periodic);
        self.wrap_positions();
        self.grid.build(&self.pos, r, planar, &per);
        // Reorder into cell order (a method's own per-particle arrays follow with
        // `reorder_like_last_search`).
        let order = &self.grid.items;
        permute(&mut self.pos, order, &mut self.spare);
        permute(&mut self.vel, order, &mut self.spare);
        permute(&mut self.id, order, &mut self.perm_id);
        // (ISPH warm-starts its pressure solve from the last pressures.)
        if self.pressure.len() == order.len() {
            permute(&mut self.pressure, order, &mut self.perm_real);
        }
        if self.density_error.len() == order.len() {
            permute(&mut self.density_error, order, &mut self.perm_real);
        }
        if self.listless.len() == order.len() {
            permute(&mut self.listless, order, &mut self.perm_bool);
        } else {
            self.listless.clear();
        }
        self.last_order.clone_from(order);
        // Same points, now in cell order: the cells are unchanged, the items become 0..n.
        self.grid.renumber_sorted();
        self.build_lists(r, moved, None);
    }

    /// The neighbour lists within the kernel support plus `skin` (m) as a search at the
    /// positions `at` would have left them, the particles keeping their order: for a state
    /// restored from a checkpoint whose lists were searched at `at` (then in cell order) and
    /// reused. Falls back to a search at the current positions if `at` is not in cell order.
    pub fn search_at(&mut self, at: &[Vec3], skin: Real) {
        let r = self.params.kernel.support() + skin;
        let (planar, per) = (self.params.planar, self.params.periodic);
        self.grid.build(at, r, planar, &per);
        let sorted = at.len() == self.pos.len()
            && self
                .grid
                .items
                .iter()
                .enumerate()
                .all(|(i, &k)| k as usize == i);
        if !sorted {
            self.search(skin);
            return;
        }
        self.last_order.clear();
        self.last_order.extend(0..self.pos.len() as u32);
        let moved = self.has_moving_walls();
        self.build_lists(r, moved, Some(at));
    }

    /// The lists of a search of radius `r` (m) at the positions `at` (default the particles'),
    /// the grid built at them.
    fn build_lists(&mut self, r: Real, moved: bool, at: Option<&[Vec3]>) {
        let (planar, per) = (self.params.planar, self.params.periodic);
        if self.bdens.len() != self.boundary.len() {
            self.bdens = self.wall_densities(r, |_| true);
        } else if moved || self.bgrid.items.len() != self.boundary.len() {
            // (Body particles moved, or the walls' grid is not built yet: a restored state.)
            self.bgrid.build(&self.boundary, r, planar, &per);
        }
        let pts: &[Vec3] = at.unwrap_or(&self.pos);
        let skip = &self.listless;
        self.ff.build(pts, &self.grid, pts, r, true, skip);
        self.fb
            .build(pts, &self.bgrid, &self.boundary, r, false, &self.listless);
        self.bf
            .build(&self.boundary, &self.grid, pts, r, false, &[]);
    }

    /// The density sum of each boundary particle over the boundary particles of its own wall
    /// or body, for those `wanted` (zero for the others), the walls' grid built with cells of
    /// `r` (m, at least the kernel support). It is fixed (rigid walls): computed once, at the
    /// first search, or before a divided fluid's rank drops the walls it does not hold (whose
    /// sums need them). (Boundary particles of different bodies do not count in each other's
    /// density.)
    fn wall_densities(&mut self, r: Real, wanted: impl Fn(usize) -> bool) -> Vec<Real> {
        let (planar, per) = (self.params.planar, self.params.periodic);
        self.bgrid.build(&self.boundary, r, planar, &per);
        // (Summed over each particle's candidates in index order, as a neighbour list would
        // hold them, without keeping the lists: for a large 3D tank they were the largest
        // allocation of the run, 975 000 wall particles × ~100 neighbours.)
        let (k, v0) = (self.params.kernel, self.volume);
        let (owner, boundary, grid) = (&self.owner, &self.boundary, &self.bgrid);
        let mut near = Vec::new();
        (0..boundary.len())
            .map(|b| {
                if !wanted(b) {
                    return 0.0;
                }
                near.clear();
                grid.for_each_near(&boundary[b], |c| {
                    let c = c as usize;
                    if owner[c] == owner[b]
                        && per.delta(&boundary[c], &boundary[b]).norm_squared() < r * r
                    {
                        near.push(c);
                    }
                });
                near.sort_unstable();
                near.iter()
                    .map(|&c| {
                        let d = per.delta(&boundary[b], &boundary[c]);
                        v0 * k.w(d.norm())
                    })
                    .sum()
            })
            .collect()
    }

    /// A divided fluid's rank about to drop the walls it does not hold (`held`, per boundary
    /// particle): the held walls' densities computed first, while every wall is there (the
    /// walls' grid then freed: the next search builds it over the held walls).
    pub fn keep_wall_densities(&mut self, held: &[bool]) {
        if self.bdens.len() != self.boundary.len() {
            let support = self.params.kernel.support();
            self.bdens = self.wall_densities(support, |b| held[b]);
            self.bgrid = Default::default();
        }
    }

    /// Puts a per-particle array that a fluid method keeps (in the particles' order before the
    /// last neighbour search) into their order now, with `scratch` as the new buffer; an array
    /// of another length is left as it is.
    pub fn reorder_like_last_search<T: Copy + Send + Sync + Default>(
        &self,
        v: &mut Vec<T>,
        scratch: &mut Vec<T>,
    ) {
        if v.len() == self.last_order.len() {
            permute(v, &self.last_order, scratch);
        }
    }

    /// Puts the particles back into the range `[lo, lo + L)` of each periodic axis (a search
    /// does it first; the lists are by index, so they hold across it).
    pub fn wrap_positions(&mut self) {
        let per = self.params.periodic;
        if per.any() {
            self.pos.iter_mut().for_each(|x| per.wrap(x));
        }
    }

    /// Whether the neighbour lists belong to the current particles (false before the first
    /// neighbour search).
    pub fn has_neighbours(&self) -> bool {
        self.ff.start.len() == self.len() + 1
    }
}
