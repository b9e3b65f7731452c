//! SPH fluid particles as 3-DOF entities in the same solve as the rigid bodies.
//!
//! Each fluid particle carries a velocity (three DOFs, appended after the bodies' DOFs in the
//! velocity vector) and one density row ([`crate::constraints::density`]). Walls are static bodies filled with
//! boundary particles ([`sampling`]) that count in the fluid density.
//!
//! **Rest density and volumes.** The particle volume is `V = 1 / n0` (m^d) with
//! `n0 = Σ_k W(|k| l)` the kernel sum over the ideal lattice of spacing l (self included), so a
//! particle inside the initial lattice has exactly `ρ = ρ0` whatever the kernel's discrete
//! normalisation error. Mass `m = ρ0 V t` (kg), `t` the planar thickness (1 in 3D).
//!
//! **Step** (the fluid part of [`crate::pipeline::World::step`]): sort particles into cell
//! order and find neighbours ([`Fluid::update_neighbours`]), add gravity and the explicit forces
//! ([`Fluid::external`]: [`morris_viscosity`], optional [`monaghan_viscosity`], then the
//! [`velocity_filter`]); the density, wall and particle contact rows
//! ([`crate::constraints`]) are solved together with the body rows; move `x += h v⁺` and shift
//! ([`Fluid::integrate`], [`lind_shifting`]).
//!
//! This module holds the particle state only: particles, boundary particles (of walls and
//! bodies), neighbour lists, and the per-particle results of the last solve (impulse, pressure,
//! density error, fluid force on each body). Rows live in [`crate::constraints`], measurements
//! in [`crate::probe`].
//!
//! Pressure from the impulse: `p_i = κ λ_i / (h V t)` (Pa), κ the lattice gradient moment
//! ([`lattice_gradient_moment`]); smoothed pressure (001 eq. 42) in [`crate::probe`].
//!
//! **Bodies.** Static bodies are walls of boundary particles; dynamic and kinematic bodies carry
//! boundary particles fixed in their frame ([`Fluid::attach_body`]) that move with them, count
//! in the density and take part in the rows with their body's velocity `V + ω × r`: the fluid
//! force on a body is the sum of its rows' impulses ([`crate::constraints::density`], "Moving
//! walls"), solved in the same problem as the body's contacts and joints. Contact rows keep fluid
//! particles a spacing from boundary particles and 0.3 l from each other (001 §4.2;
//! [`crate::constraints::particle_contact`]).
//!
//! **Stabilisation** (both on by default; the book's fluid chapter has the measurements): the
//! velocity filter ([`velocity_filter`]) removes, before the solve, part of the
//! kernel-scale velocity noise that no local linear field explains, keeping the fluid's momenta —
//! without it the surface layers of a fluid at rest sink into the hollows of the lattice below
//! and the tank churns; particle shifting ([`lind_shifting`]; Fickian shifting of Lind
//! et al. 2012, J. Comput. Phys. 231:1499, with the velocity-scaled coefficient of Skillen et
//! al. 2013, Comput. Methods Appl. Mech. Eng. 265:163; 004 §3.5 uses Xu et al.'s form) moves the
//! particles down the kernel-density gradient after the step, so that the filtered particles
//! can still re-arrange where the flow stretches the lattice.
//!
//! **Validation models** (`models/`, tests in `tests/fluid.rs` and `tests/fluid_bodies.rs`):
//!
//! - *Hydrostatic tank* (`hydrostatic_2d_apgd`): at rest `∇p = ρ g`, so `p = ρ g (H − y)` below
//!   the surface at height H; compression `(ρ_i − ρ0)/ρ0 < 1 %` (001 §5.2's criterion).
//! - *Dam break* (`dam_break_2d_apgd`, `dam_break_2d_20k_apgd`, `dam_break_3d_apgd`): a column of
//!   width L and height 2L collapses; the surge front z(t) scales as `Z = z/L` against
//!   `T = t √(2g/L)` (Koshizuka & Oka 1996, Martin & Moyce 1952), which removes g and L for an
//!   inviscid flow; 004 §4.2 for the 3D column.
//! - *Circular patch* (`circular_patch_2d_apgd`): with `u = (A x, −A y)` and an elliptic pressure
//!   `p = p0 (1 − x²/b² − y²/a²)` the Euler equations reduce to `ȧ = −a A`, `ḃ = b A`,
//!   `Ä = (4/A) Ȧ² − 2 A³` (Colagrossi 2005; 001 eqs. 74–76), `a b = R²` (incompressibility).
//! - *Buoyancy* (`buoyancy_2d_apgd`, 001 §5.5): at rest the pressure on the box carries its
//!   weight, `ρ_f g V_sub = ρ_s g V`, so the submerged fraction is `ρ_s / ρ_f`.
//! - *Seesaw* (`seesaw_2d_apgd`, 001 §5.6): strong coupling — the top fluid's impulse reaches the
//!   bottom fluid through the pinned plate within one solve; the angular momentum about the pin
//!   is conserved by that solve (pair forces are central, the pin's impulse has no moment).
//! - *Floating cylinder* (`floating_cylinder_3d_apgd`, 004 §4.3): the settled vertical fluid
//!   force equals the weight `ρ_s g π r² L` (62.1 N).

pub mod choice;
pub mod constraint;
pub mod damping;
mod explicit;
pub mod face_fit;
pub mod grid;
pub mod halo;
pub mod isph;
pub mod kernel;
pub mod lattice_stability;
pub mod lind_shifting;
pub mod method;
pub mod monaghan_viscosity;
pub mod morris_viscosity;
mod params;
pub mod periodic;
pub mod sampling;
mod search;
pub mod smooth_walls;
pub mod velocity_filter;
pub mod wall_part;
pub mod wcsph;

pub use choice::FluidMethodChoice;
pub use lind_shifting::{SHIFT_CAP, SURFACE_FILL};
pub use method::{FluidMethod, InnerSolve, RowContext, SubStepInfo};
pub use params::{DensityMethod, FluidParams};
pub use sampling::{lattice_gradient_moment, lattice_laplacian_moment, lattice_sum};

use crate::math::{Real, Vec3};
use grid::{CellGrid, Neighbours};
use rayon::prelude::*;

/// Below this many particles (or rows) per-particle passes and row products run on one thread:
/// waking the pool for a few hundred particles costs more than the work (the 625-particle tank
/// test: 80 s with 66 s of system time before, 55 s with 2 s after). 1024 since 2026-11-28
/// (4096 before): the 3 148-particle flume (`models/flume_2d.ron`, 10 PGS sweeps, two threads)
/// steps in 9.4 ms instead of 11.2 ms (medians of five alternating runs; the pool is kept
/// warm during a step, [`crate::pipeline::World::step`]).
pub const PARALLEL_MIN_ROWS: usize = 1024;

/// Sets `out[i] = f(i)` for every particle: in parallel for large fluids, serially below
/// [`PARALLEL_MIN_ROWS`]; each entry is computed alone, so the result does not depend on the
/// thread count.
pub(crate) fn per_particle<T: Send>(out: &mut [T], f: impl Fn(usize) -> T + Sync) {
    if out.len() < PARALLEL_MIN_ROWS {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = f(i));
    } else {
        out.par_iter_mut()
            .enumerate()
            .with_min_len(256)
            .for_each(|(i, o)| *o = f(i));
    }
}

/// Sets `out[i] = f(i, &out[i])` for every particle, as [`per_particle`] does (each entry is
/// read and written by its own call only).
pub(crate) fn per_particle_update<T: Send + Sync>(
    out: &mut [T],
    f: impl Fn(usize, &T) -> T + Sync,
) {
    if out.len() < PARALLEL_MIN_ROWS {
        out.iter_mut().enumerate().for_each(|(i, o)| *o = f(i, o));
    } else {
        out.par_iter_mut()
            .enumerate()
            .with_min_len(256)
            .for_each(|(i, o)| *o = f(i, o));
    }
}

/// Sets `(a[i], b[i]) = f(i)` for every particle, as [`per_particle`] does for one output.
pub(crate) fn per_particle_pair<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    f: impl Fn(usize) -> (A, B) + Sync,
) {
    if a.len() < PARALLEL_MIN_ROWS {
        for (i, (x, y)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            (*x, *y) = f(i);
        }
    } else {
        a.par_iter_mut()
            .zip(b.par_iter_mut())
            .enumerate()
            .with_min_len(256)
            .for_each(|(i, (x, y))| (*x, *y) = f(i));
    }
}

/// Owner of a boundary particle of a fixed wall.
pub const STATIC: u32 = u32::MAX;

/// The fluid: particles in cell order, boundary particles, neighbour lists, and the
/// per-particle results of the last solve.
#[derive(Debug, Clone)]
pub struct Fluid {
    /// Parameters.
    pub params: FluidParams,
    /// Particle volume V = 1/n0 (m^d).
    pub volume: Real,
    /// Lattice gradient moment κ (see [`lattice_gradient_moment`]).
    pub kappa: Real,
    /// Lattice Laplacian moment μ (see [`lattice_laplacian_moment`]): viscous terms use `ν / μ`.
    pub laplacian: Real,
    /// Particle mass (kg).
    pub mass: Real,
    /// Positions (m).
    pub pos: Vec<Vec3>,
    /// Velocities (m/s).
    pub vel: Vec<Vec3>,
    /// Original particle ids (positions are re-sorted into cell order every step).
    pub id: Vec<u32>,
    /// Pressure from the last solve (Pa).
    pub pressure: Vec<Real>,
    /// Density error (ρ − ρ0)/ρ0 at the start of the last step.
    pub density_error: Vec<Real>,
    /// Boundary particles (m): walls, then body particles.
    pub boundary: Vec<Vec3>,
    /// Wall pressure of the last solve per boundary particle (Pa; 0 away from the fluid).
    pub boundary_pressure: Vec<Real>,
    /// Body of each boundary particle ([`STATIC`] for fixed walls).
    pub owner: Vec<u32>,
    /// The body whose fluid force each boundary particle's share goes to: its [`Fluid::owner`]
    /// for body-fixed particles, the static body a wall particle was sampled from (where two
    /// walls share a particle, the one whose surface is nearer) if a `FluidForce` probe reads
    /// that body, [`STATIC`] otherwise. With it [`Fluid::body_force`] of a static body (an
    /// obstacle, a tank's wall) is the force of the fluid on it, as for moving bodies.
    pub wall_body: Vec<u32>,
    /// Position of each body-fixed boundary particle relative to its body's centre of mass, in
    /// the body frame (m): one per body particle, in order, for the boundary particles after the
    /// static walls ([`Fluid::static_walls`]; the fixed walls, the bulk of a tank's particles,
    /// keep no body-frame copy).
    pub local: Vec<Vec3>,
    /// Vector from each boundary particle to the nearest point of its wall's or body's surface
    /// (m, world frame): its length is the particle's depth, its direction the wall normal into
    /// the fluid (zero where unknown). For the no-slip viscous term.
    pub to_surface: Vec<Vec3>,
    /// [`Fluid::to_surface`] of body-fixed boundary particles in the body frame (one per body
    /// particle, as [`Fluid::local`]).
    local_surface: Vec<Vec3>,
    /// Fluid force on each body in the last solve (N; world frame), indexed like the bodies.
    pub body_force: Vec<Vec3>,
    /// Fluid torque on each body about its centre of mass in the last solve (N·m).
    pub body_torque: Vec<Vec3>,
    /// Fluid neighbours of each fluid particle (within the kernel support).
    pub ff: Neighbours,
    /// Boundary neighbours of each fluid particle.
    pub fb: Neighbours,
    /// Fluid neighbours of each boundary particle.
    pub bf: Neighbours,
    /// Σ V W over the boundary particles of the same wall or body around each boundary particle
    /// (fixed: computed once).
    pub bdens: Vec<Real>,
    /// Damping zones where waves are absorbed ([`damping`]); from the model, not state.
    pub damping: Vec<damping::DampingZone>,
    /// Smooth walls ([`smooth_walls`]): static walls as a kernel field instead of boundary
    /// particles; from the model, not state.
    pub smooth: smooth_walls::SmoothWalls,
    grid: CellGrid,
    bgrid: CellGrid,
    /// One particle-sized vector scratch for the passes that build a new array from the old
    /// and swap it in (the search's reordering of positions and velocities, the explicit
    /// forces, the velocity filter) or fill one in a stage (the shifts): its contents are dead
    /// between them, so one buffer serves all (three fewer, 72 bytes per particle).
    spare: Vec<Vec3>,
    perm_id: Vec<u32>,
    perm_real: Vec<Real>,
    /// The order of the last neighbour search: position `k` now holds the particle that was at
    /// `last_order[k]` before it.
    last_order: Vec<u32>,
    /// Velocity of the wall or body at each boundary particle (m/s; scratch of the explicit
    /// forces).
    wall_vel: Vec<Vec3>,
    fill: Vec<Real>,
    /// Particles the next neighbour search finds no neighbours for (a divided fluid's outer
    /// ghosts, whose values are all overwritten by their owners': [`halo`]); empty: none. In
    /// the particles' order before the search, which puts it into theirs after.
    pub(crate) listless: Vec<bool>,
    perm_bool: Vec<bool>,
}

/// Reorders `v` as `v[order[0]], v[order[1]], …`, using `scratch` as the new buffer.
/// A gather, in parallel above [`PARALLEL_MIN_ROWS`] entries.
pub(crate) fn permute<T: Copy + Send + Sync + Default>(
    v: &mut Vec<T>,
    order: &[u32],
    scratch: &mut Vec<T>,
) {
    if scratch.len() != order.len() {
        scratch.clear();
        scratch.resize(order.len(), T::default());
    }
    let src = &*v;
    per_particle(scratch, |k| src[order[k] as usize]);
    std::mem::swap(v, scratch);
}

impl Fluid {
    /// A fluid of particles at `pos` with velocities `vel`, walls given as boundary particles.
    pub fn new(params: FluidParams, pos: Vec<Vec3>, vel: Vec<Vec3>, boundary: Vec<Vec3>) -> Fluid {
        assert_eq!(pos.len(), vel.len(), "one velocity per particle");
        let volume = 1.0 / lattice_sum(&params.kernel, params.spacing, params.lattice);
        let n = pos.len();
        Fluid {
            kappa: lattice_gradient_moment(&params.kernel, params.spacing, params.lattice, volume),
            laplacian: lattice_laplacian_moment(
                &params.kernel,
                params.spacing,
                params.lattice,
                volume,
            ),
            volume,
            mass: params.rho0 * volume * params.thickness,
            params,
            pos,
            vel,
            id: (0..n as u32).collect(),
            pressure: vec![0.0; n],
            density_error: vec![0.0; n],
            boundary_pressure: vec![0.0; boundary.len()],
            owner: vec![STATIC; boundary.len()],
            wall_body: vec![STATIC; boundary.len()],
            local: Vec::new(),
            to_surface: vec![Vec3::zeros(); boundary.len()],
            local_surface: Vec::new(),
            body_force: Vec::new(),
            body_torque: Vec::new(),
            boundary,
            grid: CellGrid::default(),
            bgrid: CellGrid::default(),
            ff: Neighbours::default(),
            fb: Neighbours::default(),
            bf: Neighbours::default(),
            bdens: Vec::new(),
            damping: Vec::new(),
            smooth: smooth_walls::SmoothWalls::default(),
            spare: Vec::new(),
            perm_id: Vec::new(),
            perm_real: Vec::new(),
            last_order: Vec::new(),
            wall_vel: Vec::new(),
            fill: Vec::new(),
            listless: Vec::new(),
            perm_bool: Vec::new(),
        }
    }

    /// The most compressed particle by the density errors the last rows were built with: its
    /// index and `(ρ − ρ0)/ρ0` (dimensionless, positive when compressed). `None` without
    /// particles. The blow-up guard and the run's totals both read it.
    pub fn largest_compression(&self) -> Option<(usize, Real)> {
        self.density_error
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The particle fastest relative to the fluid's mean velocity: its index and `|v_i − v̄|`
    /// (m/s). `None` without particles. The blow-up guard's `max_cfl` and the constraint
    /// method's sub-steps both read it.
    pub fn fastest_relative(&self) -> Option<(usize, Real)> {
        let n = self.vel.len().max(1) as Real;
        let mean = self.vel.iter().sum::<Vec3>() / n;
        self.vel
            .iter()
            .map(|v| (v - mean).norm())
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// Number of fluid particles.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether there are no particles.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }

    /// Fixes boundary particles at `points` (m, in the centre-of-mass frame of body `body`,
    /// whose pose is `pose` now) to the body: they move with it, count in the fluid density, and
    /// carry the fluid's pressure onto the body in the same solve.
    /// Each point comes with its offset to the body's surface (m, body frame; see
    /// [`Fluid::to_surface`]).
    pub fn attach_body(&mut self, body: usize, pose: &crate::math::Iso, points: &[(Vec3, Vec3)]) {
        for (local, surface) in points {
            let mut p = (pose * nalgebra::Point3::from(*local)).coords;
            if self.params.planar {
                p.z = 0.0;
            }
            self.boundary.push(p);
            self.owner.push(body as u32);
            self.wall_body.push(body as u32);
            self.local.push(*local);
            self.local_surface.push(*surface);
            self.to_surface.push(pose.rotation * surface);
            self.boundary_pressure.push(0.0);
        }
        self.bdens.clear();
    }

    /// Sets [`Fluid::to_surface`] of the fixed walls' boundary particles (one per boundary
    /// particle given to [`Fluid::new`], same order).
    pub fn set_wall_surfaces(&mut self, to_surface: Vec<Vec3>) {
        assert_eq!(
            to_surface.len(),
            self.boundary.len(),
            "one offset per wall particle"
        );
        self.to_surface = to_surface;
        if self.params.planar {
            self.to_surface.iter_mut().for_each(|s| s.z = 0.0);
        }
    }

    /// Sets [`Fluid::wall_body`] of the fixed walls' boundary particles (one per boundary
    /// particle given to [`Fluid::new`], same order: a body index, or [`STATIC`]).
    pub fn set_wall_bodies(&mut self, bodies: Vec<u32>) {
        assert_eq!(
            bodies.len(),
            self.boundary.len(),
            "one body per wall particle"
        );
        self.wall_body = bodies;
    }

    /// Whether a row family must report forces on bodies through their boundary particles:
    /// some move with bodies, or a probe reads a static body ([`Fluid::wall_body`]).
    pub fn has_wall_forces(&self) -> bool {
        self.wall_body.iter().any(|&o| o != STATIC)
    }

    /// Whether some boundary particles move with bodies.
    pub fn has_moving_walls(&self) -> bool {
        self.owner.iter().any(|&o| o != STATIC)
    }

    /// Sets the fluid force and torque on each of `bodies` bodies to zero, before the row
    /// families add theirs.
    pub fn clear_body_forces(&mut self, bodies: usize) {
        for f in [&mut self.body_force, &mut self.body_torque] {
            f.clear();
            f.resize(bodies, Vec3::zeros());
        }
    }

    /// Moves the particles with their new velocities, then shifts them
    /// ([`Fluid::shift_particles`]) if the model asks for it, with the shifting's speed scale
    /// over the whole fluid when it is divided (`halo`, [`halo`]).
    pub fn integrate(&mut self, h: Real, halo: Option<&mut (dyn halo::Halo + '_)>) {
        for (x, v) in self.pos.iter_mut().zip(&self.vel) {
            *x += v * h;
        }
        if self.params.shifting > 0.0 {
            let mut halo = halo;
            let umax = self.relative_speed_max(halo.as_deref_mut());
            self.shift_particles_at(h, umax, halo);
        }
    }
}

/// The evolving state of a fluid, for checkpoints: everything a later step or output reads
/// (units as in [`Fluid`]). Neighbour lists and cell grids are rebuilt from it at the next step.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FluidState {
    pos: Vec<Vec3>,
    vel: Vec<Vec3>,
    id: Vec<u32>,
    pressure: Vec<Real>,
    density_error: Vec<Real>,
    boundary: Vec<Vec3>,
    boundary_pressure: Vec<Real>,
    body_force: Vec<Vec3>,
    body_torque: Vec<Vec3>,
    /// Computed once, at the first step, from the boundary particles where they were then:
    /// recomputing it from moved body particles would differ in the last bits.
    bdens: Vec<Real>,
}

impl FluidState {
    /// The number of fluid particles in the state.
    pub fn len(&self) -> usize {
        self.pos.len()
    }

    /// Whether the state has no fluid particles.
    pub fn is_empty(&self) -> bool {
        self.pos.is_empty()
    }
}

impl Fluid {
    /// A copy of the evolving state.
    pub fn state(&self) -> FluidState {
        FluidState {
            pos: self.pos.clone(),
            vel: self.vel.clone(),
            id: self.id.clone(),
            pressure: self.pressure.clone(),
            density_error: self.density_error.clone(),
            boundary: self.boundary.clone(),
            boundary_pressure: self.boundary_pressure.clone(),
            body_force: self.body_force.clone(),
            body_torque: self.body_torque.clone(),
            bdens: self.bdens.clone(),
        }
    }

    /// Puts a saved state back. The fluid must have been built from a model with as many
    /// particles, boundary particles and bodies as the one the state was saved from.
    pub fn restore(&mut self, s: FluidState) -> Result<(), String> {
        self.restore_with(s, false)
    }

    /// [`Fluid::restore`] of one rank's part of a fluid divided among processes
    /// ([`crate::fluid::halo`]): this fluid, built from the whole model, takes the part's
    /// particles (at most the model's, each id once).
    pub fn restore_part(&mut self, s: FluidState) -> Result<(), String> {
        self.restore_with(s, true)
    }

    fn restore_with(&mut self, s: FluidState, part: bool) -> Result<(), String> {
        let model = self.len();
        let n = if part { s.pos.len().min(model) } else { model };
        let same = |what: &str, saved: usize, here: usize| {
            if saved == here {
                Ok(())
            } else {
                Err(format!(
                    "the checkpoint has {saved} {what}; the model makes {here}"
                ))
            }
        };
        same("fluid particles", s.pos.len(), n)?;
        // Every per-particle array has one value per particle.
        for len in [s.vel.len(), s.id.len(), s.pressure.len()] {
            same("fluid particle values", len, n)?;
        }
        same("boundary particles", s.boundary.len(), self.boundary.len())?;
        same(
            "boundary particle values",
            s.boundary_pressure.len(),
            self.boundary.len(),
        )?;
        same("density errors", s.density_error.len(), n)?;
        if !s.bdens.is_empty() {
            same("boundary densities", s.bdens.len(), self.boundary.len())?;
        }
        // (body_force and body_torque are rewritten at every step, sized by the bodies.)
        let mut seen = vec![false; model];
        for &i in &s.id {
            match seen.get_mut(i as usize) {
                Some(s) if !*s => *s = true,
                _ => {
                    return Err("the checkpoint's particle ids are out of range or repeated".into())
                }
            }
        }
        self.pos = s.pos;
        self.vel = s.vel;
        self.id = s.id;
        self.pressure = s.pressure;
        self.density_error = s.density_error;
        self.boundary = s.boundary;
        self.boundary_pressure = s.boundary_pressure;
        self.body_force = s.body_force;
        self.body_torque = s.body_torque;
        self.bdens = s.bdens;
        Ok(())
    }
}
