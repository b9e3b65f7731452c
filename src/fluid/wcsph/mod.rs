//! Weakly compressible SPH (WCSPH): the explicit comparison backend, stepped the way
//! DualSPHysics steps it (003 §2; Domínguez et al. 2022, "DualSPHysics: from fluid dynamics to
//! multiphysics problems", Comput. Part. Mech. 9:867, eqs. 1–14), coupled to the bodies the
//! partitioned way (000 §2.5, eqs. 35–43).
//!
//! **Equations** (SI units; `m` is the particle mass per unit thickness in 2D, kg/m):
//!
//! - Tait equation of state (Monaghan 1994; 003 eq. 5): `p = B ((ρ/ρ0)^γ − 1)`, `γ = 7`,
//!   `B = c0² ρ0 / γ` (Pa), with the sound speed `c0` (m/s) ten times the largest expected
//!   speed (default `10 √(2 g H)`, H the fluid's initial height along gravity, or ten times the
//!   largest initial speed, whichever is larger), so density varies by about 1 %.
//! - Continuity with δ-SPH density diffusion (Molteni & Colagrossi 2009, Comput. Phys. Commun.
//!   180:861; the hydrostatic correction of Fourtakas et al. 2019, Comput. Fluids 190:346):
//!   `dρ_i/dt = Σ_j m v_ij·∇_iW_ij + δ h c0 · 2 Σ_j (m/ρ_j) ψ_ij (r_ij·∇_iW_ij)/(r_ij² + η²)`,
//!   `ψ_ij = (ρ_i − ρ_j) − ρ0 g·r_ij / c0²` (the second term removes the hydrostatic density
//!   difference, linearised: dp/dρ = c0²), `r_ij = x_i − x_j`, `η² = 0.01 h²`. The diffusion
//!   term is the SPH Laplacian of ρ (Brookshaw form), so a density peak diffuses; fluid pairs
//!   only.
//! - Momentum (003 eq. 2, the DualSPHysics form): `dv_i/dt = −Σ_j m (p_i + p_j)/(ρ_i ρ_j)
//!   ∇_iW_ij − Σ_j m Π_ij ∇_iW_ij + Σ_j m ν (1/ρ_i + 1/ρ_j) (r_ij·∇_iW_ij)/(r_ij² + η²) v_ij + g`,
//!   with Monaghan's (1992) artificial viscosity `Π_ij = −α c0 μ_ij / ρ̄_ij`,
//!   `μ_ij = h v_ij·r_ij / (r_ij² + η²)` for approaching pairs (else 0), and the laminar term of
//!   Morris et al. (1997; 004 eq. 9) with the fluid's kinematic viscosity ν, normalised to
//!   `ν / μ` by the lattice Laplacian moment μ ([`super::lattice_laplacian_moment`]).
//! - Symplectic position Verlet (Leimkuhler et al. 1996; 003 eqs. 7–8): predictor
//!   `ρ½ = ρⁿ + ½Δt Dⁿ`, `v½ = vⁿ + ½Δt aⁿ`, `x½ = xⁿ + ½Δt vⁿ`; corrector `vⁿ⁺¹ = vⁿ + Δt a½`,
//!   `ρⁿ⁺¹ = ρⁿ (2 − ε)/(2 + ε)`, `ε = −(D/ρ)½ Δt`, `xⁿ⁺¹ = xⁿ + ½Δt (vⁿ + vⁿ⁺¹)`.
//! - Or Verlet (Verlet 1967; 003 §2, DualSPHysics' `StepAlgorithm = 1`), one pair pass per
//!   sub-step: `xⁿ⁺¹ = xⁿ + Δt vⁿ + ½Δt² aⁿ`, `vⁿ⁺¹ = vⁿ⁻¹ + 2Δt aⁿ`, `ρⁿ⁺¹ = ρⁿ⁻¹ + 2Δt Dⁿ`,
//!   and every `every`-th sub-step (DualSPHysics' `VerletSteps`, default 40) a forward Euler
//!   step `vⁿ⁺¹ = vⁿ + Δt aⁿ`, `ρⁿ⁺¹ = ρⁿ + Δt Dⁿ` that couples the two leap-frog chains again.
//!   The first sub-step of a run is such an Euler step.
//! - Time step (004 eq. 41, with a Courant number C instead of its fixed factors):
//!   `Δt = C min(h/(c_max + |v|_max), √(h/|a|_max))` and `Δt ≤ 0.125 h²/ν`; the model's `dt` is
//!   cut into `n = ⌈dt/Δt⌉` equal sub-steps, so the run clock stays on model steps.
//!
//! **Walls** are the same boundary particles as the constraint method's ([`super::sampling`]),
//! moving with their bodies. Two treatments:
//! - [`WallTreatment::Adami`] (Adami, Hu & Adams 2012, J. Comput. Phys. 231:7057, eq. 27): a
//!   wall particle's pressure is extrapolated from its fluid neighbours,
//!   `p_w = (Σ_f p_f W_wf + (g − a_w)·Σ_f ρ_f r_wf W_wf) / Σ_f W_wf`, clamped at 0 (a wall does
//!   not pull the fluid), and its density follows from the equation of state; `a_w` is the
//!   body's acceleration over the last model step. A wall particle whose extrapolation falls
//!   to zero or below by the hydrostatic term alone (`Σ_f p_f W_wf ≥ 0`: it stands above the
//!   water it sees, a dry wall in air) exerts no pressure force: the pair term
//!   `(p_f + p_w)/(ρ_f ρ_w)` would otherwise push the fluid with the fluid particle's own
//!   pressure `p_f`, where air, at the free surface beside it, pushes with nothing. In the
//!   hydrostatic tank that push kicked the top corner particles inward at 0.028 m/s and the
//!   surface waves it launched were still 6.4e-3 m/s at t = 1 s (1.65e-3 m/s without it). Wall
//!   particles under tension (`Σ_f p_f W_wf < 0`, as in the thin sheet climbing the dam break's
//!   far wall) keep the pair term: counted as dry they let a particle into the wall.
//! - [`WallTreatment::Dynamic`] (dynamic boundary, Crespo et al. 2007, CMC 5:173; 003 §2.1):
//!   wall particles carry their own density, integrated with the continuity equation over their
//!   fluid neighbours, never below ρ0, and their pressure from the equation of state.
//!
//! **Coupling** (partitioned, 000 eqs. 35–43): within a model step the bodies keep their
//! velocities; their boundary particles move with them. The pair forces of the corrector stages
//! on each body's particles, averaged over the sub-steps, give the fluid force and torque on the
//! body ([`super::Fluid::body_force`]), which the rigid-body step then applies as an external
//! load together with gravity, contacts and joints. A body therefore answers the fluid one model
//! step late (weak coupling); the constraint method solves both in one problem.
//!
//! **Particle shifting**: the fluid's `shifting` (Lind et al. 2012 with Skillen et al. 2013's
//! velocity-scaled coefficient, [`super::lind_shifting`]; for WCSPH default A = 2,
//! [`WcsphParams::DEFAULT_SHIFTING`], 0 turns it off) moves the particles after every
//! sub-step's position update, as ISPH does. Without it the circular patch's particles spread
//! while their continuity densities stay at ρ0 (area +13.7 % at t = 1 s; +3.15 % with A = 1,
//! +1.86 % with A = 2). DualSPHysics' default is no shifting, and `dam_break_2d_20k_wcsph.ron`,
//! the side-by-side case, turns it off. The fluid's
//! `velocity_filter` belongs to the constraint method and ISPH and is not applied; a model that writes it
//! with WCSPH gets a located warning ([`crate::model::warnings`]).
//!
//! **Neighbours** are found within the support plus a skin of [`SKIN`] times the support and
//! reused until some particle may have entered the support (the largest fluid displacement plus
//! the largest fluid or boundary displacement since the search exceeds the skin); particles are
//! re-sorted into cell order at each search.

mod divided;
mod forces;
mod method;
mod params;

use super::halo::Halo;
use super::Fluid;
use crate::body::RigidBody;
use crate::math::{Real, Vec3};
use rayon::prelude::*;

pub use super::method::SubStepInfo;
pub use crate::fluid::halo::HaloSlot;
pub use method::{default_sound_speed, Wcsph};
pub use params::{Diffusion, Stepping, WallTreatment, WcsphParams};

/// Neighbour-list skin as a fraction of the kernel support.
pub const SKIN: Real = 0.12;

/// Exponent γ of the Tait equation of state.
pub const GAMMA: Real = 7.0;

/// Buffers of the sub-steps, reused (no allocation per step once sized).
#[derive(Debug, Default, Clone)]
pub struct WcsphScratch {
    x0: Vec<Vec3>,
    /// Renormalised density gradients (kg/m⁴) for Antuono's diffusion.
    grad_rho: Vec<Vec3>,
    v0: Vec<Vec3>,
    r0: Vec<Real>,
    acc: Vec<Vec3>,
    drho: Vec<Real>,
    press: Vec<Real>,
    /// Inverse densities of the fluid and boundary particles (m³/kg), for the pair terms.
    inv_rho: Vec<Real>,
    binv_rho: Vec<Real>,
    /// Wall particles: velocity (m/s), density (kg/m³), pressure (Pa), density rate, start
    /// density of the sub-step.
    bvel: Vec<Vec3>,
    bpress: Vec<Real>,
    /// Adami wall particles that stand above the water they see (dry; no pressure force).
    bdry: Vec<bool>,
    bdrho: Vec<Real>,
    br0: Vec<Real>,
    /// Fluid force on each body particle in the last corrector stage (N, per metre in 2D).
    bforce: Vec<Vec3>,
    /// Acceleration of each body over the last model step (m/s²).
    body_acc: Vec<Vec3>,
    /// Centre of mass of each body (m), moved with the body's velocity over the sub-steps as
    /// its boundary particles are (the arm of the fluid's torque on the body).
    body_com: Vec<Vec3>,
    /// What the fluid carries from one model step to the next (saved in checkpoints by the
    /// method, [`Wcsph`]); everything else here is scratch.
    pub(crate) carry: Carry,
    /// Buffers for reordering the carried per-particle arrays after a neighbour search.
    perm_vel: Vec<Vec3>,
    perm_rho: Vec<Real>,
    /// Positions at the last neighbour search.
    x_search: Vec<Vec3>,
    b_search: Vec<Vec3>,
    searched: bool,
    /// The exchange with the other parts of a fluid divided among processes
    /// ([`super::halo`]); none for a fluid in one process.
    pub(crate) halo: HaloSlot,
}

impl WcsphScratch {
    /// Moves the bodies' centres of mass by their velocities at the step's start times `dt`
    /// (s).
    fn advance_body_centres(&mut self, dt: Real) {
        for (c, v) in self.body_com.iter_mut().zip(&self.carry.body_vel) {
            *c += v * dt;
        }
    }
}

/// What a WCSPH fluid carries from one model step to the next besides its particles (saved in
/// checkpoints by [`Wcsph`], so a resumed run steps as the uninterrupted one).
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Carry {
    /// Density of each particle (kg/m³; continuity), in the particles' current order; empty
    /// before the first step (then hydrostatic).
    pub rho: Vec<Real>,
    /// Density of each boundary particle (kg/m³; dynamic walls' continuity, Adami walls'
    /// extrapolation).
    pub brho: Vec<Real>,
    /// Sub-step proposed by the last sub-step (s); 0 before the first.
    pub next_dt: Real,
    /// Linear velocity of each body at the start of the last model step (m/s), for the bodies'
    /// accelerations seen by Adami walls.
    pub body_vel: Vec<Vec3>,
    /// Verlet: velocities (m/s) and densities (kg/m³) of the fluid one sub-step back, in the
    /// particles' current order (empty for symplectic stepping).
    pub prev_vel: Vec<Vec3>,
    /// See `prev_vel`.
    pub prev_rho: Vec<Real>,
    /// Verlet: densities of dynamic wall particles one sub-step back (kg/m³).
    pub prev_brho: Vec<Real>,
    /// Verlet: sub-steps since the last Euler step.
    pub verlet_count: u32,
}

impl Fluid {
    /// Advances the fluid by `dt` (s) in WCSPH sub-steps, the bodies moving with their current
    /// velocities; leaves the fluid force and torque on each body averaged over the step in
    /// [`Fluid::body_force`] and [`Fluid::body_torque`], the pressures (Pa) and density errors
    /// of the end state.
    pub fn advance_wcsph(
        &mut self,
        p: &WcsphParams,
        bodies: &[RigidBody],
        gravity: &Vec3,
        dt: Real,
        s: &mut WcsphScratch,
    ) -> SubStepInfo {
        let n = self.len();
        let nb = self.boundary.len();
        let mut start = s.carry.rho.len() != n;
        if let Some(h) = s.halo.0.as_mut() {
            // (Every rank of a divided fluid, also one that owns no particle: the densities'
            // reference height is a collective minimum.)
            start = h.any(start);
        }
        if start {
            let g = self.params.periodic.across(gravity);
            s.carry.rho = self.hydrostatic_densities(p, &g, s.halo.0.as_mut());
        }
        if s.carry.brho.len() != nb {
            s.carry.brho = vec![self.params.rho0; nb];
        }
        // Body particles at their bodies' poses; their velocities; the bodies' accelerations.
        s.body_acc.resize(bodies.len(), Vec3::zeros());
        let c = &mut s.carry;
        if c.body_vel.len() != bodies.len() {
            c.body_vel = bodies.iter().map(|b| b.lin_vel).collect();
        }
        for (k, b) in bodies.iter().enumerate() {
            s.body_acc[k] = (b.lin_vel - c.body_vel[k]) / dt;
            c.body_vel[k] = b.lin_vel;
        }
        s.body_com.clear();
        s.body_com.extend(bodies.iter().map(|b| b.com()));
        self.place_body_particles(bodies);
        s.bvel.clear();
        s.bvel
            .extend(self.owner.iter().zip(&self.boundary).map(|(&o, x)| {
                // (Only dynamic and kinematic bodies carry boundary particles.)
                if o == super::STATIC {
                    Vec3::zeros()
                } else {
                    bodies[o as usize].point_velocity(x)
                }
            }));
        // A search at the start of every model step: the step then depends only on the state
        // (checkpoints restart bit for bit), and body particles placed at their poses are seen.
        s.searched = false;
        self.clear_body_forces(bodies.len());
        let mut info = SubStepInfo::default();
        let mut t = 0.0;
        let hk = self.params.kernel.h;
        let nu = self.params.viscosity / self.laplacian;
        let mut limit = dt;
        if nu > 0.0 {
            limit = limit.min(0.125 * hk * hk / nu);
        }
        if s.carry.next_dt <= 0.0 || !s.carry.next_dt.is_finite() {
            s.carry.next_dt = p.cfl * hk / p.c0();
        }
        while t < dt * (1.0 - 1e-12) {
            let mut stop = crate::interrupt::overdue();
            if let Some(h) = s.halo.0.as_mut() {
                stop = h.any(stop);
            }
            if info.substeps as u64 >= self.params.max_substeps || stop {
                info.cut = true;
                break;
            }
            // Equal sub-steps that end exactly at dt.
            let left = dt - t;
            let k = (left / s.carry.next_dt.min(limit)).ceil().max(1.0);
            let sub = left / k;
            self.search_if_due(s);
            match p.stepping {
                Stepping::Symplectic => self.substep(p, gravity, sub, sub / dt, s),
                Stepping::Verlet { every } => {
                    self.substep_verlet(p, gravity, sub, sub / dt, every.get(), s)
                }
            }
            info.substeps += 1;
            t += sub;
        }
        self.reduce_body_forces(s);
        let (b, rho0) = (self.tait_b(p), self.params.rho0);
        self.density_error.clear();
        self.density_error
            .extend(s.carry.rho.iter().map(|r| r / rho0 - 1.0));
        self.pressure.clear();
        self.pressure
            .extend(s.carry.rho.iter().map(|&r| forces::tait(b, rho0, r)));
        self.boundary_pressure.clone_from(&s.bpress);
        info
    }

    /// Densities of a fluid at rest under gravity: `ρ = ρ0 (1 + ρ0 g d / B)^(1/γ)`, d the depth
    /// below the highest particle plus half a spacing (m); ρ0 without gravity.
    fn hydrostatic_densities(
        &self,
        p: &WcsphParams,
        gravity: &Vec3,
        halo: Option<&mut Box<dyn Halo>>,
    ) -> Vec<Real> {
        let (rho0, g) = (self.params.rho0, gravity.norm());
        if g == 0.0 {
            return vec![rho0; self.len()];
        }
        let down = gravity / g;
        let mut top = self
            .pos
            .iter()
            .map(|x| x.dot(&down))
            .fold(Real::INFINITY, Real::min);
        if let Some(h) = halo {
            top = h.min(top);
        }
        let top = top - 0.5 * self.params.spacing;
        let b = self.tait_b(p);
        self.pos
            .iter()
            .map(|x| forces::tait_inverse(b, rho0, rho0 * g * (x.dot(&down) - top)))
            .collect()
    }

    /// Whether no particle can have entered another's support since the last search.
    fn within_skin(&self, s: &WcsphScratch) -> bool {
        if s.x_search.len() != self.len() || s.b_search.len() != self.boundary.len() {
            return false;
        }
        let max_disp = |a: &[Vec3], b: &[Vec3]| {
            a.par_iter()
                .zip(b)
                .with_min_len(4096)
                .map(|(x, y)| (x - y).norm_squared())
                .reduce(|| 0.0, Real::max)
                .sqrt()
        };
        let df = max_disp(&self.pos, &s.x_search);
        let db = max_disp(&self.boundary, &s.b_search);
        df + df.max(db) < SKIN * self.params.kernel.support()
    }

    /// One symplectic sub-step of `sub` (s); `weight` = sub / dt for the body forces.
    fn substep(
        &mut self,
        p: &WcsphParams,
        g: &Vec3,
        sub: Real,
        weight: Real,
        s: &mut WcsphScratch,
    ) {
        let half = 0.5 * sub;
        // Predictor.
        self.wall_state(p, g, s);
        self.rates(p, g, s, None);
        s.x0.clone_from(&self.pos);
        s.v0.clone_from(&self.vel);
        s.r0.clone_from(&s.carry.rho);
        s.br0.clone_from(&s.carry.brho);
        let acc = &s.acc;
        let drho = &s.drho;
        self.pos
            .par_iter_mut()
            .zip(self.vel.par_iter_mut())
            .zip(s.carry.rho.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .for_each(|(i, ((x, v), r))| {
                *x += *v * half;
                *v += acc[i] * half;
                *r += drho[i] * half;
            });
        self.refresh_ghosts(s);
        let dynamic = p.walls == WallTreatment::Dynamic;
        s.advance_body_centres(half);
        for (b, x) in self.boundary.iter_mut().enumerate() {
            *x += s.bvel[b] * half;
            if dynamic {
                s.carry.brho[b] = (s.carry.brho[b] + s.bdrho[b] * half).max(self.params.rho0);
            }
        }
        // Corrector.
        self.wall_state(p, g, s);
        self.rates(p, g, s, Some(weight));
        let (acc, drho, x0, v0, r0) = (&s.acc, &s.drho, &s.x0, &s.v0, &s.r0);
        // (A divided fluid's ghosts do not count in the sub-step: their rates are incomplete.)
        let owned = s.halo.0.as_ref().map(|h| h.owned());
        let (vmax, amax, rmax) = self
            .pos
            .par_iter_mut()
            .zip(self.vel.par_iter_mut())
            .zip(s.carry.rho.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .map(|(i, ((x, v), r))| {
                let eps = -drho[i] / *r * sub;
                *v = v0[i] + acc[i] * sub;
                *r = r0[i] * (2.0 - eps) / (2.0 + eps);
                *x = x0[i] + (v0[i] + *v) * half;
                if owned.is_some_and(|o| !o[i]) {
                    return (0.0, 0.0, 0.0);
                }
                (v.norm_squared(), acc[i].norm_squared(), *r)
            })
            .reduce(
                || (0.0, 0.0, self.params.rho0),
                |a, b| (a.0.max(b.0), a.1.max(b.1), a.2.max(b.2)),
            );
        self.refresh_ghosts(s);
        if self.params.shifting > 0.0 {
            self.shift_divided(sub, s);
            self.refresh_ghosts(s);
        }
        s.advance_body_centres(half);
        for (b, x) in self.boundary.iter_mut().enumerate() {
            *x += s.bvel[b] * half;
            if dynamic {
                let eps = -s.bdrho[b] / s.carry.brho[b] * sub;
                s.carry.brho[b] = (s.br0[b] * (2.0 - eps) / (2.0 + eps)).max(self.params.rho0);
            }
        }
        self.propose_substep(p, (vmax, amax, rmax), &mut s.carry, s.halo.0.as_mut());
    }

    /// The next sub-step (004 eq. 41) from the largest squared speed `vmax` (m²/s²), squared
    /// acceleration `amax` (m²/s⁴) and density `rmax` (kg/m³; the sound speed grows with it).
    fn propose_substep(
        &self,
        p: &WcsphParams,
        (vmax, amax, rmax): (Real, Real, Real),
        c: &mut Carry,
        halo: Option<&mut Box<dyn Halo>>,
    ) {
        let hk = self.params.kernel.h;
        let (mut vmax, mut amax, mut rmax) = (vmax, amax, rmax);
        if let Some(h) = halo {
            let mut m = [vmax, amax, rmax];
            h.max(&mut m);
            [vmax, amax, rmax] = m;
        }
        let cmax = p.c0() * (rmax / self.params.rho0).powi(3);
        let mut next = hk / (cmax + vmax.sqrt());
        if amax > 0.0 {
            next = next.min((hk / amax.sqrt()).sqrt());
        }
        c.next_dt = p.cfl * next;
    }

    /// One Verlet sub-step of `sub` (s), an Euler step every `every` sub-steps; `weight` =
    /// sub / dt for the body forces.
    fn substep_verlet(
        &mut self,
        p: &WcsphParams,
        g: &Vec3,
        sub: Real,
        weight: Real,
        every: u32,
        s: &mut WcsphScratch,
    ) {
        self.wall_state(p, g, s);
        self.rates(p, g, s, Some(weight));
        let (n, nb) = (self.len(), self.boundary.len());
        let c = &mut s.carry;
        if c.prev_vel.len() != n || c.prev_rho.len() != n || c.prev_brho.len() != nb {
            c.prev_vel.clone_from(&self.vel);
            c.prev_rho.clone_from(&c.rho);
            c.prev_brho.clone_from(&c.brho);
            c.verlet_count = 0;
        }
        let euler = c.verlet_count == 0;
        c.verlet_count = (c.verlet_count + 1) % every.max(1);
        let (acc, drho) = (&s.acc, &s.drho);
        let (two, half2) = (2.0 * sub, 0.5 * sub * sub);
        let owned = s.halo.0.as_ref().map(|h| h.owned());
        let (vmax, amax, rmax) = self
            .pos
            .par_iter_mut()
            .zip(self.vel.par_iter_mut())
            .zip(c.rho.par_iter_mut())
            .zip(c.prev_vel.par_iter_mut())
            .zip(c.prev_rho.par_iter_mut())
            .enumerate()
            .with_min_len(4096)
            .map(|(i, ((((x, v), r), pv), pr))| {
                let (vn, rn) = (*v, *r);
                *x += vn * sub + acc[i] * half2;
                if euler {
                    *v = vn + acc[i] * sub;
                    *r = rn + drho[i] * sub;
                } else {
                    *v = *pv + acc[i] * two;
                    *r = *pr + drho[i] * two;
                }
                (*pv, *pr) = (vn, rn);
                if owned.is_some_and(|o| !o[i]) {
                    return (0.0, 0.0, 0.0);
                }
                (v.norm_squared(), acc[i].norm_squared(), *r)
            })
            .reduce(
                || (0.0, 0.0, self.params.rho0),
                |a, b| (a.0.max(b.0), a.1.max(b.1), a.2.max(b.2)),
            );
        self.refresh_ghosts(s);
        if self.params.shifting > 0.0 {
            self.shift_divided(sub, s);
            self.refresh_ghosts(s);
        }
        s.advance_body_centres(sub);
        let c = &mut s.carry;
        let dynamic = p.walls == WallTreatment::Dynamic;
        let rho0 = self.params.rho0;
        for (b, x) in self.boundary.iter_mut().enumerate() {
            *x += s.bvel[b] * sub;
            if dynamic {
                let r = c.brho[b];
                let (base, step) = if euler {
                    (r, sub)
                } else {
                    (c.prev_brho[b], two)
                };
                c.brho[b] = (base + s.bdrho[b] * step).max(rho0);
                c.prev_brho[b] = r;
            }
        }
        self.propose_substep(p, (vmax, amax, rmax), &mut s.carry, s.halo.0.as_mut());
    }
}
