//! The constraint method on a fluid divided among processes (issue 55; [`crate::fluid::halo`]):
//! each part builds the rows of every particle it holds, updates only the rows it owns, and
//! meets the other parts after every sweep of the solve and of the density projection
//! ([`crate::solver::Parts`], through [`Halo::settle`]).
//!
//! **Who owns a row.** A fluid particle's density row: the particle's owner. A boundary
//! particle's wall row: the part whose slab holds the boundary particle ([`Halo::holds`]). A
//! contact between two fluid particles: the owner of the particle with the smaller id; between
//! a fluid and a boundary particle: the fluid particle's owner. Rows between bodies (contacts,
//! joints): part 0. Each row is thus updated by exactly one part, from complete neighbourhoods
//! (the ghosts reach two supports beyond a slab, and an owned row reads at most one).
//!
//! **The sweep across parts.** Inside a part the rows are swept as in one process; after the
//! sweep the parts meet: the changes a part made to its ghosts' velocities are added to their
//! owners' velocities, the bodies' velocities take the sum of every part's changes, and the
//! ghosts take their owners' velocities back — Gauss–Seidel inside a part, Jacobi between
//! parts: the hybrid Gauss–Seidel of parallel multigrid smoothers (Baker, Falgout, Kolev & Yang
//! 2011, SIAM J. Sci. Comput. 33:2864), here projected. As there, a row whose unknowns other
//! parts' rows also touch takes `D_k (1 + f_k)` as its diagonal, `f_k` the share of such
//! unknowns (the ℓ1 scaling, [`crate::solver::Parts::interface`]): plain Jacobi between parts
//! diverged in 3D (a 23 040-particle scene on two ranks: particles at the cut 4.8e-5, 3.4e-4,
//! 1.1e-3 m from one process after one, two, three steps; the book's "Large runs" chapter). Every part stops at the same sweep (the largest
//! change over the parts). APGD meets after each product `M⁻¹ Jᵀ λ` and reduces its sums over
//! the parts ([`crate::solver::apgd::solve_parts`]). The neighbour searches (the step's and the projection's) redistribute
//! the particles first, with the values the method carries for them.

use super::Constraint;
use crate::body::RigidBody;
use crate::constraints::DensityRows;
use crate::fluid::halo::{Carried, Halo};
use crate::fluid::Fluid;
use crate::math::Real;
use crate::solver::Parts;

/// One part of a divided solve over a velocity vector whose bodies' DOFs are `v[..body_dofs]`
/// and whose particle p is at `dof0 + 3 p`.
pub struct HaloParts<'a> {
    /// The exchange.
    pub halo: &'a mut dyn Halo,
    /// Per row: whether another part updates it.
    pub foreign: &'a [bool],
    /// Per row: the share of its unknowns that another part's rows touch.
    pub interface: &'a [Real],
    /// Offset of particle 0's DOFs.
    pub dof0: usize,
    /// The bodies' DOFs (6 per dynamic body).
    pub body_dofs: usize,
}

impl Parts for HaloParts<'_> {
    fn foreign(&self) -> &[bool] {
        self.foreign
    }

    fn interface(&self) -> &[Real] {
        self.interface
    }

    fn begin(&mut self, v: &[Real]) {
        self.halo.begin_solve(v, self.dof0, self.body_dofs);
    }

    fn settle(&mut self, v: &mut [Real], change: Real) -> Real {
        self.halo.settle(v, self.dof0, self.body_dofs, change)
    }

    fn sum(&mut self, v: &mut [Real]) {
        self.halo.sum(v);
    }

    fn max(&mut self, x: Real) -> Real {
        self.halo.largest(x)
    }
}

/// Per density row (fluid rows, then wall rows): whether another part owns it (module doc).
pub(super) fn foreign_density_rows(
    rows: &DensityRows,
    fluid: &Fluid,
    halo: &dyn Halo,
    out: &mut Vec<bool>,
) {
    let owned = halo.owned();
    out.extend((0..rows.nf).map(|i| !owned[i]));
    out.extend((rows.bactive.iter()).map(|&b| !halo.holds(&fluid.boundary[b as usize])));
}

/// Per particle: whether it is a ghost or has a ghost among its fluid neighbours (its velocity
/// is read or written by another part's rows).
pub(super) fn near_ghosts(fluid: &Fluid, halo: &dyn Halo, out: &mut Vec<bool>) {
    let owned = halo.owned();
    out.clear();
    out.extend(
        (0..fluid.len()).map(|i| !owned[i] || fluid.ff.of(i).iter().any(|&j| !owned[j as usize])),
    );
}

/// The share of `cols` (particles; `body`: one more column, a body's, which every part's rows
/// touch) that another part's rows also touch (`near`).
fn share(cols: impl Iterator<Item = usize>, near: &[bool], body: bool) -> Real {
    let (mut hit, mut all) = (body as u32, body as u32);
    for p in cols {
        all += 1;
        hit += near[p] as u32;
    }
    if all == 0 {
        0.0
    } else {
        Real::from(hit) / Real::from(all)
    }
}

/// Per density row (fluid rows, then wall rows): the share of its unknowns that another part's
/// rows touch ([`crate::solver::Parts::interface`]; `near` per particle).
pub(super) fn interface_density_rows(rows: &DensityRows, near: &[bool], out: &mut Vec<Real>) {
    let body = |k: usize| !rows.bodies.of(k).is_empty();
    out.extend((0..rows.nf).map(|i| {
        let cols = std::iter::once(i).chain(rows.ff.of(i).iter().map(|&j| j as usize));
        share(cols, near, body(i))
    }));
    out.extend((0..rows.nwall).map(|r| {
        share(
            rows.wall_nbrs(r).iter().map(|&j| j as usize),
            near,
            body(rows.nf + r),
        )
    }));
}

/// A divided fluid's neighbour search (stage 1's and the projection's): the particles go to
/// their parts with the values the method carries for them (the density rows' impulses, the
/// pressures and density errors the probes read), then `search` runs and the halo learns the
/// new order (the density rows' impulses follow it with [`DensityRows::follow_search`], as in
/// one process).
pub(super) fn redistribute(
    halo: &mut dyn Halo,
    fluid: &mut Fluid,
    rows: &mut DensityRows,
    search: impl FnOnce(&mut Fluid),
) {
    let mut pressure = std::mem::take(&mut fluid.pressure);
    let mut error = std::mem::take(&mut fluid.density_error);
    let mut bpressure = std::mem::take(&mut fluid.boundary_pressure);
    let mut carried = Carried {
        scalars: vec![&mut rows.lambda, &mut pressure, &mut error],
        vectors: Vec::new(),
        walls: vec![&mut rows.blambda, &mut bpressure],
    };
    halo.redistribute(fluid, &mut carried);
    (fluid.pressure, fluid.density_error) = (pressure, error);
    fluid.boundary_pressure = bpressure;
    search(fluid);
    halo.reordered(fluid);
}

impl Constraint {
    /// Per particle contact row: the share of its unknowns that another part's rows touch.
    pub(super) fn interface_contact_rows(&self, fluid: &Fluid, near: &[bool], out: &mut Vec<Real>) {
        out.extend(self.contacts.pairs.iter().map(|&(i, o, wall)| {
            let (i, o) = (i as usize, o as usize);
            if wall {
                share(
                    std::iter::once(i),
                    near,
                    fluid.owner[o] != crate::fluid::STATIC,
                )
            } else {
                share([i, o].into_iter(), near, false)
            }
        }));
    }

    /// Per particle contact row: whether another part owns it (module doc).
    pub(super) fn foreign_contact_rows(&self, fluid: &Fluid, halo: &dyn Halo, out: &mut Vec<bool>) {
        let (owned, id) = (halo.owned(), &fluid.id);
        out.extend(self.contacts.pairs.iter().map(|&(i, o, wall)| {
            let (i, o) = (i as usize, o as usize);
            let first = if wall || id[i] < id[o] { i } else { o };
            !owned[first]
        }));
    }

    /// A divided fluid's ghosts take their owners' positions and velocities.
    pub(super) fn refresh_ghosts(&mut self, fluid: &mut Fluid) {
        if let Some(h) = self.halo.0.as_deref_mut() {
            let mut rho = std::mem::take(&mut self.rho);
            rho.resize(fluid.len(), 0.0);
            h.refresh(&mut fluid.pos, &mut fluid.vel, &mut rho);
            self.rho = rho;
        }
    }

    /// Stage 1: the projection's lists are kept where every part can keep them
    /// ([`super::projection::Projection::find_neighbours`]; a resumed rank rebuilds them as
    /// its checkpoint's search left them, with the ghosts' exchange lists of its layout);
    /// otherwise every part redistributes and searches. Whether this part searched.
    pub(super) fn find_neighbours_divided(
        &mut self,
        fluid: &mut Fluid,
        bodies: &[RigidBody],
    ) -> bool {
        let Some(h) = self.halo.0.as_deref_mut() else {
            return self.projection.find_neighbours(fluid, bodies);
        };
        let keep = self.projection.reusable(fluid);
        if h.any(!keep) {
            self.projection.searching();
            redistribute(h, fluid, &mut self.density, |f| f.update_neighbours(bodies));
            true
        } else {
            self.projection.find_neighbours(fluid, bodies)
        }
    }

    /// The bodies' share of the fluid's force summed over the parts (each part's from the rows
    /// it owns).
    pub(super) fn sum_body_forces(&mut self, fluid: &mut Fluid) {
        if let Some(h) = self.halo.0.as_deref_mut() {
            crate::fluid::halo::sum_body_forces(fluid, h);
        }
    }
}
