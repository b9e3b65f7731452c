//! A fluid divided among processes: each part holds the particles it owns and, as *ghosts*,
//! copies of the particles of other parts within reach of its own (issue 55; the halo of
//! PySPH's parallel manager and of domain-decomposed SPH codes generally).
//!
//! A fluid method that supports it ([`crate::fluid::FluidMethod::set_halo`]; WCSPH, ISPH and the
//! constraint method)
//! calls the [`Halo`] at fixed points of its sub-step: before a neighbour search
//! ([`Halo::redistribute`]: owned particles that left the part go to their new owner, ghosts are
//! copied afresh), after it ([`Halo::reordered`]: the particles' new order), after every
//! position/velocity/density update ([`Halo::refresh`]: the ghosts take their owners' values),
//! and wherever a decision must be the same on every part ([`Halo::max`]: the sub-step, whether
//! to search, whether to stop). Ghosts take part in every pair pass as ordinary particles; what
//! they compute for themselves is overwritten by the next refresh. With ghosts up to two kernel
//! supports plus the neighbour lists' skin from a part, every quantity an owned particle reads
//! within a sub-step (its neighbours' positions, velocities and densities, the wall pressures
//! extrapolated from their fluid neighbours) is computed from complete neighbourhoods, so the
//! owned particles step as they would in one process, up to the order of the sums.
//!
//! The implementation over processes is [`crate::distributed::SlabHalo`].

use super::Fluid;
use crate::math::{Real, Vec3};

/// The exchange between the parts of a divided fluid (see the module doc).
pub trait Halo: Send + Sync {
    /// Replaces each entry of `v` by its largest value over all parts (every part calls it
    /// with the same length at the same point).
    fn max(&mut self, v: &mut [Real]);

    /// Replaces each entry of `v` by its sum over all parts (the same bits on every part).
    fn sum(&mut self, v: &mut [Real]);

    /// Whether `flag` holds on any part.
    fn any(&mut self, flag: bool) -> bool {
        let mut v = [if flag { 1.0 } else { 0.0 }];
        self.max(&mut v);
        v[0] > 0.0
    }

    /// The largest value of `x` over all parts.
    fn largest(&mut self, x: Real) -> Real {
        let mut v = [x];
        self.max(&mut v);
        v[0]
    }

    /// The smallest value of `x` over all parts.
    fn min(&mut self, x: Real) -> Real {
        let mut v = [-x];
        self.max(&mut v);
        -v[0]
    }

    /// Before a neighbour search: drops the ghosts, hands the owned particles that left this
    /// part to their owners (with the values the method carries for them, `carried`), and
    /// appends the other parts' particles within reach as ghosts; the boundary particles'
    /// carried values are made the same on every part (each from the part whose slab holds
    /// the particle).
    fn redistribute(&mut self, fluid: &mut Fluid, carried: &mut Carried<'_>);

    /// After the neighbour search that followed [`Halo::redistribute`]: the particles' new
    /// order ([`Fluid::reorder_like_last_search`]).
    fn reordered(&mut self, fluid: &Fluid);

    /// Ghosts' positions (m), velocities (m/s) and densities (kg/m³) from their owners.
    fn refresh(&mut self, pos: &mut [Vec3], vel: &mut [Vec3], rho: &mut [Real]);

    /// Ghosts' entries of `v` (one number per particle, in the current order) from their
    /// owners: one number per ghost, where [`Halo::refresh`] sends seven (a value the method
    /// derived per particle, e.g. ISPH's kernel sums, pressures or a CG direction).
    fn refresh_scalar(&mut self, v: &mut [Real]);

    /// Whether each particle (in the current order) is owned by this part (not a ghost).
    fn owned(&self) -> &[bool];

    /// This part's number (0-based; part 0 also owns what belongs to no particle: the rows
    /// between bodies).
    fn part(&self) -> usize;

    /// Whether this part owns what sits at `x` (m): the point lies in its slab (a boundary
    /// particle's wall row).
    fn holds(&self, x: &Vec3) -> bool;

    /// Starts a divided solve over the velocity vector `v` (bodies' six DOFs each in
    /// `v[..body_dofs]`, particle p's three at `dof0 + 3 p`): remembers the ghosts' and the
    /// bodies' entries ([`crate::solver::Parts::begin`]).
    fn begin_solve(&mut self, v: &[Real], dof0: usize, body_dofs: usize);

    /// The meeting of the parts in a divided solve ([`crate::solver::Parts::settle`],
    /// collective): each part's changes to its ghosts' entries since the last meeting go to
    /// their owners and are added there, the bodies' entries take the sum of every part's
    /// changes, the ghosts take their owners' entries; returns the largest `change` over
    /// the parts.
    fn settle(&mut self, v: &mut [Real], dof0: usize, body_dofs: usize, change: Real) -> Real;

    /// The implementation, for its own figures (the run loop reads
    /// [`crate::distributed::SlabHalo`]'s).
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

/// What a fluid method carries per particle besides [`Fluid`]'s own arrays, handed to
/// [`Halo::redistribute`]: per fluid particle (`scalars`, `vectors`: moved with their
/// particles; an array of another length than the particles is not in use and is left alone),
/// and per boundary particle (`walls`: made the same on every part).
#[derive(Default)]
pub struct Carried<'a> {
    /// Per fluid particle, one number each (e.g. WCSPH's density, kg/m³).
    pub scalars: Vec<&'a mut Vec<Real>>,
    /// Per fluid particle, one vector each (e.g. Verlet's previous velocity, m/s).
    pub vectors: Vec<&'a mut Vec<Vec3>>,
    /// Per boundary particle (e.g. dynamic walls' densities, kg/m³).
    pub walls: Vec<&'a mut Vec<Real>>,
}

/// A fluid method's [`Halo`], if it has one. A clone has none (the exchange belongs to one
/// process's fluid).
#[derive(Default)]
pub struct HaloSlot(pub Option<Box<dyn Halo>>);

impl Clone for HaloSlot {
    fn clone(&self) -> Self {
        HaloSlot(None)
    }
}

impl std::fmt::Debug for HaloSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "HaloSlot({})",
            if self.0.is_some() { "divided" } else { "none" }
        )
    }
}

impl Carried<'_> {
    /// Numbers per particle that a move or a ghost copy sends: id, position, velocity, then
    /// the scalars and vectors.
    pub fn width(&self) -> usize {
        7 + self.scalars.len() + 3 * self.vectors.len()
    }
}

impl Fluid {
    /// Keeps the particles `i` with `keep[i]` (in order), with their carried values.
    pub fn keep_particles(&mut self, keep: &[bool], carried: &mut Carried<'_>) {
        fn retain<T: Copy>(v: &mut Vec<T>, keep: &[bool]) {
            if v.len() == keep.len() {
                let mut k = keep.iter();
                v.retain(|_| *k.next().unwrap_or(&false));
            }
        }
        retain(&mut self.pos, keep);
        retain(&mut self.vel, keep);
        retain(&mut self.id, keep);
        retain(&mut self.pressure, keep);
        retain(&mut self.density_error, keep);
        carried.scalars.iter_mut().for_each(|a| retain(a, keep));
        carried.vectors.iter_mut().for_each(|a| retain(a, keep));
    }

    /// Appends a particle packed as [`Carried::width`] numbers (`p`: id, position (m),
    /// velocity (m/s), then the carried values in order; those of arrays not in use ignored).
    pub fn push_packed(&mut self, p: &[Real], carried: &mut Carried<'_>) {
        let n = self.pos.len();
        for a in [&mut self.pressure, &mut self.density_error] {
            if a.len() == n {
                a.push(0.0);
            }
        }
        let mut k = 7;
        for a in carried.scalars.iter_mut() {
            if a.len() == n {
                a.push(p[k]);
            }
            k += 1;
        }
        for a in carried.vectors.iter_mut() {
            if a.len() == n {
                a.push(Vec3::new(p[k], p[k + 1], p[k + 2]));
            }
            k += 3;
        }
        self.id.push(p[0] as u32);
        self.pos.push(Vec3::new(p[1], p[2], p[3]));
        self.vel.push(Vec3::new(p[4], p[5], p[6]));
    }

    /// Packs particle `i` for [`Fluid::push_packed`] onto `out` (an array not in use sends 0).
    pub fn pack_particle(&self, i: usize, carried: &Carried<'_>, out: &mut Vec<Real>) {
        let (x, v, n) = (self.pos[i], self.vel[i], self.len());
        out.extend([self.id[i] as Real, x.x, x.y, x.z, v.x, v.y, v.z]);
        for a in &carried.scalars {
            out.push(if a.len() == n { a[i] } else { 0.0 });
        }
        for a in &carried.vectors {
            let w = if a.len() == n { a[i] } else { Vec3::zeros() };
            out.extend([w.x, w.y, w.z]);
        }
    }
}

/// The entries of `v` whose particle is owned (`owned`, a part's [`Halo::owned`]; all of them
/// for `None`, a fluid in one process).
pub fn owned_of<'a, T>(v: &'a [T], owned: Option<&'a [bool]>) -> impl Iterator<Item = &'a T> + 'a {
    v.iter()
        .enumerate()
        .filter(move |(i, _)| owned.is_none_or(|o| o[*i]))
        .map(|(_, x)| x)
}

/// A divided fluid's force and torque on each body (N, N·m): the sum of the parts' shares (each
/// from what it owns), the same bits on every part.
pub fn sum_body_forces(fluid: &mut Fluid, halo: &mut dyn Halo) {
    sum_vectors(
        halo,
        fluid.body_force.iter_mut().chain(&mut fluid.body_torque),
    );
}

/// Each of `vectors` replaced by its sum over all parts (every part passes as many, in the same
/// order; the same bits on every part).
pub fn sum_vectors<'a>(halo: &mut dyn Halo, vectors: impl IntoIterator<Item = &'a mut Vec3>) {
    let mut vectors: Vec<&mut Vec3> = vectors.into_iter().collect();
    let mut flat: Vec<Real> = vectors.iter().flat_map(|f| [f.x, f.y, f.z]).collect();
    halo.sum(&mut flat);
    for (f, c) in vectors.iter_mut().zip(flat.chunks_exact(3)) {
        **f = Vec3::new(c[0], c[1], c[2]);
    }
}

/// Gives back the spare capacity of `v` when it holds more than twice what it needs (a part's
/// arrays start at the whole model's size: its first redistribution keeps a quarter of them on
/// four ranks), keeping an eighth over its length for the particles that migrate in.
fn trim<T>(v: &mut Vec<T>) {
    if v.capacity() > 2 * v.len() + 1024 {
        v.shrink_to(v.len() + v.len() / 8);
    }
}

impl Fluid {
    /// Gives back the spare capacity of the per-particle and per-wall arrays and of the carried
    /// ones after a redistribution (an array holding more than twice its length keeps an eighth
    /// over it): a part's memory follows its own particles, not the whole model's it was
    /// built from.
    pub fn trim(&mut self, carried: &mut Carried<'_>) {
        carried.scalars.iter_mut().for_each(|a| trim(a));
        carried.vectors.iter_mut().for_each(|a| trim(a));
        carried.walls.iter_mut().for_each(|a| trim(a));
        for v in [&mut self.pos, &mut self.vel, &mut self.spare] {
            trim(v);
        }
        for v in [
            &mut self.pressure,
            &mut self.density_error,
            &mut self.perm_real,
        ] {
            trim(v);
        }
        for v in [&mut self.fill, &mut self.bdens, &mut self.boundary_pressure] {
            trim(v);
        }
        for v in [&mut self.id, &mut self.perm_id, &mut self.last_order] {
            trim(v);
        }
        for v in [&mut self.owner, &mut self.wall_body] {
            trim(v);
        }
        for v in [&mut self.listless, &mut self.perm_bool] {
            trim(v);
        }
        for v in [&mut self.boundary, &mut self.local, &mut self.to_surface] {
            trim(v);
        }
        for v in [&mut self.local_surface, &mut self.wall_vel] {
            trim(v);
        }
    }
}
