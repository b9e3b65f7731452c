//! Incompressible SPH (ISPH): the second comparison backend, a Chorin projection with the
//! stabilised pressure Poisson equation (PPE) of Asai et al. 2012 (000 §2.2–2.4, eqs. 5–8 and
//! 14–17; 004 §5, eqs. 42–51), coupled to the bodies the partitioned way like WCSPH
//! ([`super::wcsph`], 000 eqs. 35–43).
//!
//! **Sub-step** of length Δt (s), `n = ⌈dt/Δt⌉` equal sub-steps per model step with
//! `Δt = min(C h/|v|_max, 0.125 h²/ν, 0.25 √(h/|g|))` (000 eq. 41, Courant number C):
//!
//! 1. Predictor (000 eq. 5): `v* = vⁿ + Δt (g + ν ∇²vⁿ)`, the laminar term and no-slip walls of
//!    [`super::morris_viscosity`] (explicit; 004 uses Crank–Nicolson).
//! 2. Free surface (000 §2.6, Liu & Liu 2003's density criterion): a particle whose kernel sum
//!    `n_i = V Σ_j W_ij` over fluid and boundary particles (self included; 1 inside the
//!    initial lattice) is below [`IsphParams::surface`] is not an unknown: it holds the
//!    pressure `p_s = ρ0 |g| d_s` (gravity's part across periodic axes; Dirichlet condition),
//!    with `d_s` the depth under which the top row of the initial lattice is at rest when the
//!    rows below carry the hydrostatic pressure
//!    ([`super::sampling::lattice_surface_depth`]: 0.538 l at the default h = 1.3 l on the
//!    square lattice, 0.733 l at 2.0 l; half a spacing, the depth of the row's centres, with
//!    the renormalised gradient, which is exact for the hydrostatic field). With `p_s = 0` the
//!    top layer of the hydrostatic tank, one layer short of support, fell and bounced back
//!    (the second layer's pressure 392 Pa against its hydrostatic 274 Pa); with `p_s` it stays
//!    (6e-4 m/s at t = 0.3 s). Until 2026-12-02 `d_s` was l/2 for every kernel width: at
//!    h = 2.0 l, 32 % short of the top row's support, the top row sank into the second in the
//!    first 0.2 s (its kernel sums from 0.69 to 0.89), crossed the threshold 0.9 together, and
//!    with 8 free-surface particles left of 140 the pressure solve threw the water up (the
//!    heave decay at 0.04 m, 540 J gained in one step at t = 0.198 s).
//! 3. PPE (000 eq. 14 with eqs. 15–17; 004 eq. 48 with the velocity and density sources
//!    blended): `⟨∇²p⟩_i = (ρ0/Δt) ⟨∇·v*⟩_i + α_i ρ0 (1 − n_i)/Δt²` with `α_i = α` for a
//!    compressed particle (`n_i > 1`; default 0.3, [`IsphParams::alpha`]; 000 uses 0.01) and
//!    `α_i = α_e` for an expanded one in the interior (no free-surface and no wall neighbour;
//!    default 0.05, [`IsphParams::expansion`]), else 0: a particle short of neighbours next to
//!    the surface or a wall is not pulled in. Without `α_e` nothing closed the interior's
//!    expansion: the circular patch lost 2.2 % of its mean density by t = 1 s even from a
//!    perturbed lattice; 0.2 and more pull particles into clumps and open voids. With
//!    `⟨∇²p⟩_i = Σ_j w_ij (p_j − p_i)`, `w_ij = 2 V (−r W'(r)) / ((r² + η²) μ)` (000 eq. 15,
//!    normalised by the lattice Laplacian moment μ, [`super::lattice_laplacian_moment`]) and
//!    `⟨∇·v⟩_i = tr(A_i L_i⁻¹)`, `A_i = Σ_j V (v_j − v_i) ⊗ ∇_iW_ij` over the fluid neighbours
//!    (000 eq. 16 in difference form) renormalised by `L_i = Σ_j V (x_j − x_i) ⊗ ∇_iW_ij` over
//!    fluid and boundary neighbours (Bonet & Lok 1999), exact for linear fields on any particle
//!    arrangement; next to the free surface `tr(A_i)/κ`, normalised by the lattice gradient
//!    moment κ (exact on the lattice; [`Divergence`]). Negative pressures are set to zero where
//!    there is a free surface.
//!    Free-surface neighbours enter with their known `p_s`.
//! 4. Corrector (000 eq. 6): `vⁿ⁺¹ = v* − (Δt/ρ0) ⟨∇p⟩_i` with the gradient of
//!    [`PressureGradient`]: by default the symmetric `⟨∇p⟩_i = (1/κ) Σ_j V (p_i + p_j) ∇_iW_ij`
//!    over fluid and boundary neighbours (000 eq. 12 at uniform density), the negative adjoint
//!    of the divergence above; or the renormalised difference form, which is also used in a
//!    closed domain (no free surface: the pressure is defined up to a constant, to which the
//!    symmetric form is not invariant).
//! 5. Velocity filter (the constraint method's, [`super::velocity_filter`], at the fluid's
//!    `velocity_filter` rate, default 100 1/s; 0 turns it off) on `vⁿ⁺¹`, with the boundary
//!    particles as no-slip neighbours at their walls' velocities. Then `xⁿ⁺¹ = xⁿ + Δt vⁿ⁺¹`
//!    (000 eq. 8), and particle shifting as the constraint method's ([`super::lind_shifting`],
//!    Lind et al. 2012, who introduced it for ISPH; the fluid's `shifting`, default 1, 0 turns
//!    it off).
//!
//! 6. Position correction ([`IsphParams::position_alpha`], default 1): the density term of
//!    step 3 moves velocities, so it answers a lattice's random compression (zero mean) with a
//!    kick that stays in the flow, and since only compression is corrected the kicks have a
//!    positive mean. With `α_p > 0` the density source's compressed part moves to a second solve
//!    after the move, `A p_ρ = α_p ρ0 (n_i − 1)/Δt²` (the same matrix, the kernel sums `n_i` at
//!    the moved positions, zero at free-surface particles, `p_ρ ≥ 0`), whose pressure displaces
//!    the particles, `Δx_i = −(Δt²/ρ0) ⟨∇p_ρ⟩_i` (the symmetric gradient), without changing
//!    their velocities: the position-level density correction of the constraint method's
//!    projection, here in ISPH's Poisson form. Skipped in a closed domain.
//!
//! **Why the filter.** With the symmetric gradient a square lattice under pressure is unstable
//! to shear: the repulsion `2 p_i Σ_j V ∇_iW_ij` that keeps particles from clustering gives a
//! column sliding past its neighbours a push further along (with the renormalised gradient,
//! which has no such term, water at rest stays nearly still, 1.7e-3 m/s at 1 s, but the dam
//! break compresses at its corner). The constraint method has the same pair
//! form and damps the mode with its velocity filter. In the hydrostatic tank, with `p_s` in
//! place, the second column from each side wall slid down with an e-folding time of 0.07 s;
//! the filter over fluid neighbours only turned it into the first column rising along the wall
//! (a shear against the wall, which a fit over the fluid alone sees as linear; 2.4e-2 m/s at
//! t = 1 s); with the walls as no-slip neighbours the water stays at rest (3.0e-4 m/s at 1 s).
//!
//! **Lattices under strain.** A square lattice in a pure straining flow (the circular patch,
//! `u = (x, −y)`) deforms into columns that move apart while their particles crowd along them;
//! every particle sees the same neighbourhood, so the projection, the filter and the shifting
//! (whose `∇C` vanishes by symmetry) all keep the columns. Columns are the exact flow of the
//! particles (the motion is affine), but on them the lattice form of the divergence is not
//! exact (`L_i` is no longer `κ I`) and reads a divergence of order the strain rate, and the
//! kernel sums read compression (1.03 at a stretch of 1.6, 1.15 at 2): with that divergence the
//! patch's area grew 18.6 % by t = 1 s without any density term, 6.4 % with this module's other
//! defaults. The renormalised divergence of step 3 is exact on the columns, and the position
//! correction (step 6) answers their kernel sums without leaving velocities behind: area
//! +0.90 % from the exact lattice and +0.81–0.87 % from lattices offset at random by 0.005 to
//! 0.02 l (before 2026-11-27 only a lucky offset worked: +16 % exact, +85 % at 0.02 l). The
//! interior expansion term `α_e` (step 3) closes the voids a rearrangement leaves. The book's
//! ISPH page.
//!
//! **Walls** (Neumann condition, `∂p/∂n = ρ0 (v* − v_w)·n / Δt`, which makes the corrected
//! velocity's normal component the wall's): a boundary particle b takes, seen from fluid particle
//! i, the pressure `p_b = p_i + ρ0 ((v*_i − v_w)·n_b / Δt) n_b·(x_b − x_i)`, with `n_b` the wall's
//! outward normal at b (from [`super::Fluid::to_surface`]) and `v_w` the wall's or body's velocity
//! there. At rest (`v* = g Δt`) this is the hydrostatic `p_b = p_i + ρ0 g·(x_b − x_i)`. The wall
//! terms of the Laplacian are then known and move to the right-hand side: the matrix couples fluid
//! particles only, is symmetric and positive definite once a free-surface particle holds it down.
//! In a closed domain (no free surface) the pressure is defined up to a constant: the right-hand
//! side's mean is removed and a relative 1e-12 added to the diagonal, which gives the zero-mean
//! solution (004's choice) with every particle keeping its row. (Pinning one particle at p = 0
//! instead took that particle's row away: in the Poiseuille channel with α = 1 it compressed
//! unchecked next to a plate until the guard stopped the run at t = 0.70 s.) A pocket of water
//! beside a free surface (module `pockets`) is solved the same way, its lowest pressure then taken as
//! zero. 000 uses Asai et al. 2013's mirror treatment instead. With the symmetric gradient the wall
//! pressure also rises hydrostatically along the wall, `p_b = p_i + ρ0 [((v*_i − v_w)·n_b/Δt) n_b +
//! g_t]·(x_b − x_i)` with `g_t` gravity's tangential part (as Adami et al. 2012's extrapolation;
//! left out along periodic axes, where the pressure cannot rise on average): without it the column
//! of water next to a side wall lacked the wall's share of the vertical gradient and sank (0.30 m/s
//! in the hydrostatic tank after 1 s, 0.084 m/s with it).
//!
//! **Curved walls.** Where the boundary neighbours of i on one wall or body do not share one normal
//! (a curved face or a corner within the support), every pair of i with that wall takes instead the
//! wall's normal as i sees it, `n = Σ_b ∇_iW_ib / |Σ_b ∇_iW_ib|` over those neighbours: one
//! pressure gradient per particle and wall. With each particle's own normal the water at the
//! rounded bilges of the heave-decay hull churned at rest (up to 1.5 m/s by 1.25 s at 0.02 m, the
//! hull held static alike; a box hull with square corners stayed still; the book's waves page), and
//! a hull driven in heave there felt half the radiation damping of the constraint method's, under
//! force noise three times the signal; with the wall's normal its damping and added mass are
//! within 7 % and 3 % of the constraint method's. (The pair's
//! own direction as its normal also held the water, but its jumps then resist flow along the wall:
//! the driven hull's added mass rose by half.)
//!
//! **Solve** ([`PpeSolver`]): conjugate gradients warm-started from the last sub-step's
//! pressures, preconditioned by a two-level cycle (default; Jacobi smoothing and a coarse
//! solve on aggregates of particles) or by Jacobi, or faer's sparse Cholesky
//! (`sp_cholesky`); the run
//! summary reports the largest relative residual `|A p − b| / |b|` and the CG iterations. A
//! solve that ends above [`ppe::FAILED_RESIDUAL`] stops the run (exit 3).
//!
//! **Coupling** as WCSPH: the corrector's pressure and viscous forces on a body's particles,
//! averaged over the sub-steps, drive its rigid-body step, one model step late (weak coupling);
//! the pressure force in the pair form `m V (p_i + p_b)/(ρ0 κ) ∇_iW_ib`.
//!
//! **Divided among processes** (issue 55; module `divided` and the pressure equation's `parts`):
//! the sub-steps run on every rank of an MPI job at once, the pressure solves by conjugate
//! gradients across the ranks; the book's large-runs chapter.
//!
//! **Added mass** ([`added_mass`]): the rigid-body step takes the fluid's added mass implicitly.
//! (000 keeps the particles evenly spaced with the density term alone; here, without shifting and
//! filter, voids opened inside the circular patch and its area grew by 18 % by t = 1 s, 4.8 %
//! with shifting.)

pub mod added_mass;
mod divided;
mod gradient;
mod method;
mod pockets;
pub mod ppe;
mod report;
use super::Fluid;
use crate::body::RigidBody;
use crate::interrupt::overdue;
use crate::math::{Real, Vec3};
pub use added_mass::take_added_mass;
pub use method::Isph;
pub use ppe::Divergence;

/// ISPH parameters (SI units; RON: `fluid: (method: Isph(alpha: 0.5, ..))`, every field may
/// be left out).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IsphParams {
    /// Relaxation α of the density-invariance source (000 eq. 14; dimensionless, ≥ 0). Default
    /// 0.3 (000: 0.01; with 0.01 the 2D dam break compresses by 20 % at t = 0.22 s; with 1,
    /// the default until 2026-11-27, the circular patch from a lattice offset by 0.02 spacings
    /// grew 85 % in area: the book's ISPH page).
    pub alpha: Real,
    /// Relaxation α_p of the density source whose pressure moves positions instead of
    /// velocities (module docs, step 6; dimensionless, ≥ 0): after the move, a second solve
    /// with the same matrix and the compression at the new positions as its only source
    /// displaces the particles by `−(Δt²/ρ0) ⟨∇p_ρ⟩` and leaves their velocities. Default 1;
    /// 0 turns it off (about half the wall time; the 800-particle dam break then compresses
    /// 6.1 % instead of 4.1 %, the book's ISPH page).
    pub position_alpha: Real,
    /// Relaxation α_e of the density source where the interior has expanded (n < 1 with no
    /// free-surface or wall neighbour; module docs, step 3), in [0, 1]. Default 0.05 (0.2 and
    /// more open voids in the circular patch; the book's ISPH page); 0 turns it off.
    pub expansion: Real,
    /// Free-surface threshold on the normalised kernel sum `n_i` (dimensionless, in (0, 1]).
    /// Default 0.9.
    pub surface: Real,
    /// Courant number C of the sub-step, in (0, 1]. Default 0.25 (000 eq. 41).
    pub cfl: Real,
    /// Linear solver of the pressure equation: `Cg` (default; Jacobi-preconditioned conjugate
    /// gradients, warm-started) or `Direct` (sparse Cholesky).
    pub solver: PpeSolver,
    /// Pressure gradient of the corrector: `Symmetric` (default; 000 eq. 12) or
    /// `Renormalised` (difference form with the renormalisation matrix).
    pub gradient: PressureGradient,
    /// Velocity divergence of the pressure equation's source: `Renormalised` (default; exact
    /// for linear velocity fields on any particle arrangement, away from the free surface) or
    /// `Lattice` (exact on the initial lattice only; [`Divergence`]).
    pub divergence: Divergence,
}

/// The discrete pressure gradient `⟨∇p⟩_i` of the corrector (Pa/m; module docs, step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum PressureGradient {
    /// `(1/κ) Σ_j V (p_i + p_j) ∇_iW_ij` (000 eq. 12; with a free surface; a closed domain uses
    /// `Renormalised`, see the module docs): the negative adjoint of the difference
    /// divergence of the PPE and a pair force (momentum-conserving), with a repulsion
    /// `2 p_i Σ_j V ∇_iW_ij` between particles that cluster. The 2D dam break, circular patch
    /// and buoyancy run to their ends with it; the book's ISPH page.
    #[default]
    Symmetric,
    /// `L_i⁻ᵀ Σ_j V (p_j − p_i) ∇_iW_ij` with the renormalisation `L_i` (exact for linear
    /// pressure fields, also at a truncated kernel): holds water at rest still, but the 2D dam
    /// break compresses at its corner until the guard stops it (t = 0.27 s).
    Renormalised,
}

/// How the pressure Poisson equation is solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum PpeSolver {
    /// Conjugate gradients preconditioned by a two-level cycle (Jacobi smoothing and an exact
    /// solve on aggregates of particles; [`ppe`]'s `coarse` module), started from the last
    /// sub-step's pressures, to a relative residual of [`ppe::CG_TOLERANCE`]. The circular
    /// patch (7 860 unknowns): 17.7 iterations per sub-step against `Cg`'s 210, 36 against 70
    /// ms per step on one thread.
    #[default]
    TwoLevel,
    /// Conjugate gradients with a Jacobi preconditioner (the default before 2026-11-29), as
    /// `TwoLevel` otherwise (the book's performance chapter compares it with the direct
    /// solve).
    Cg,
    /// faer's sparse Cholesky factorisation, symbolic and numeric, every sub-step.
    Direct,
}

impl IsphParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        use crate::params::{non_negative, unit_interval, ParamError};
        non_negative("alpha", self.alpha)?;
        non_negative("position_alpha", self.position_alpha)?;
        unit_interval("expansion", self.expansion)?;
        for (field, v) in [("surface", self.surface), ("cfl", self.cfl)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(ParamError::new(field, "a number in (0, 1]", v));
            }
        }
        Ok(())
    }

    /// Default α.
    pub const DEFAULT_ALPHA: Real = 0.3;
    /// Default α_p.
    pub const DEFAULT_POSITION_ALPHA: Real = 1.0;
    /// Default α_e.
    pub const DEFAULT_EXPANSION: Real = 0.05;
    /// Default free-surface threshold.
    pub const DEFAULT_SURFACE: Real = 0.9;
    /// Default Courant number.
    pub const DEFAULT_CFL: Real = 0.25;
}

impl Default for IsphParams {
    fn default() -> Self {
        IsphParams {
            alpha: Self::DEFAULT_ALPHA,
            position_alpha: Self::DEFAULT_POSITION_ALPHA,
            expansion: Self::DEFAULT_EXPANSION,
            surface: Self::DEFAULT_SURFACE,
            cfl: Self::DEFAULT_CFL,
            solver: PpeSolver::default(),
            gradient: PressureGradient::default(),
            divergence: Divergence::default(),
        }
    }
}

/// What the last model step's ISPH sub-steps did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IsphInfo {
    /// Sub-steps (one pressure solve each).
    pub substeps: usize,
    /// Largest relative residual `|A p − b| / |b|` of the pressure solves.
    pub residual: Real,
    /// Conjugate-gradient iterations summed over the sub-steps (0 with the direct solve).
    pub iterations: usize,
    /// Free-surface particles at the last sub-step.
    pub surface: usize,
    /// The sub-steps stopped before the end of the step (cap, or interruption).
    pub cut: bool,
}

/// Scratch buffers of the ISPH step (reused; never saved).
#[derive(Default)]
pub struct IsphScratch {
    pub(crate) ppe: ppe::Ppe,
    /// Velocity of the wall or body at each boundary particle (m/s).
    bvel: Vec<Vec3>,
    /// Normalised kernel sum of each particle.
    n: Vec<Real>,
    /// Pressure gradient per particle (Pa/m).
    grad: Vec<Vec3>,
    /// Body centres of mass (m), moved with their bodies over the sub-steps.
    body_com: Vec<Vec3>,
    /// Added mass of each body at the step's first sub-step ([`ppe::Ppe::added_mass`]; zero for
    /// bodies that are not dynamic), for the rigid-body step.
    pub added_mass: Vec<nalgebra::Matrix6<Real>>,
    /// The exchange of a fluid divided among processes ([`super::halo`]); none in one process.
    pub(crate) halo: super::halo::HaloSlot,
    /// The third array a refresh of the ghosts' positions and velocities carries (ISPH has no
    /// density per particle to send).
    unused: Vec<Real>,
    /// The free surface's depth (m) for the symmetric gradient and the gravity it was found
    /// for ([`IsphScratch::surface_depth`]).
    depth: Option<(Vec3, Real)>,
}

impl IsphScratch {
    /// The depth (m) whose hydrostatic pressure the free-surface particles hold under gravity
    /// `g` (m/s²) with the pressure gradient `form` (module docs, step 2): the lattice's
    /// ([`crate::fluid::sampling::lattice_surface_depth`]; found once per gravity) with the
    /// symmetric form, half a spacing with the renormalised one (exact for the linear
    /// hydrostatic field at any offset, so the top row rests under the pressure of its own
    /// depth).
    fn surface_depth(&mut self, f: &Fluid, g: &Vec3, form: PressureGradient) -> Real {
        let l = f.params.spacing;
        let Some(up) = (-g).try_normalize(0.0) else {
            return 0.0;
        };
        if form != PressureGradient::Symmetric {
            return 0.5 * l;
        }
        match self.depth {
            Some((at, d)) if at == *g => d,
            _ => {
                let k = &f.params.kernel;
                let d = super::sampling::lattice_surface_depth(k, l, f.params.lattice, &up);
                self.depth = Some((*g, d));
                d
            }
        }
    }
}

impl Fluid {
    /// Advances the fluid over the model step `dt` (s) by ISPH sub-steps, the bodies moving as
    /// they do now; leaves the fluid's mean force and torque on each body in
    /// [`Fluid::body_force`] / [`Fluid::body_torque`].
    pub fn advance_isph(
        &mut self,
        p: &IsphParams,
        bodies: &[RigidBody],
        gravity: &Vec3,
        dt: Real,
        s: &mut IsphScratch,
    ) -> IsphInfo {
        self.place_body_particles(bodies);
        s.bvel.clear();
        s.bvel
            .extend(self.owner.iter().zip(&self.boundary).map(|(&o, x)| {
                if o == super::STATIC {
                    Vec3::zeros()
                } else {
                    bodies[o as usize].point_velocity(x)
                }
            }));
        s.body_com.clear();
        s.body_com.extend(bodies.iter().map(|b| b.com()));
        self.clear_body_forces(bodies.len());
        let hk = self.params.kernel.h;
        let nu = self.params.viscosity / self.laplacian;
        let mut limit = dt;
        if nu > 0.0 {
            limit = limit.min(0.125 * hk * hk / nu);
        }
        let g = gravity.norm();
        if g > 0.0 {
            limit = limit.min(0.25 * (hk / g).sqrt());
        }
        let mut info = IsphInfo::default();
        let mut t = 0.0;
        while t < dt * (1.0 - 1e-12) {
            let mut stop = overdue();
            if let Some(h) = s.halo.0.as_deref_mut() {
                stop = h.any(stop);
            }
            info.cut = info.substeps as u64 >= self.params.max_substeps || stop;
            if info.cut {
                break;
            }
            let mut vmax = self.vel.iter().map(|v| v.norm()).fold(0.0, Real::max);
            if let Some(h) = s.halo.0.as_deref_mut() {
                vmax = h.largest(vmax);
            }
            let cfl = if vmax > 0.0 {
                p.cfl * hk / vmax
            } else {
                Real::INFINITY
            };
            let left = dt - t;
            let k = (left / cfl.min(limit)).ceil().max(1.0);
            let sub = left / k;
            self.isph_substep(p, gravity, bodies, sub, sub / dt, s, &mut info);
            info.substeps += 1;
            t += sub;
            if ppe::failed(info.residual) {
                break; // The run stops at this step (`FluidMethod::stop`).
            }
        }
        if let Some(h) = s.halo.0.as_deref_mut() {
            super::halo::sum_body_forces(self, h);
        }
        info
    }

    #[allow(clippy::too_many_arguments)]
    fn isph_substep(
        &mut self,
        p: &IsphParams,
        gravity: &Vec3,
        bodies: &[RigidBody],
        h: Real,
        weight: Real,
        s: &mut IsphScratch,
        info: &mut IsphInfo,
    ) {
        self.search_divided(s);
        // Predictor (gravity, laminar viscosity with no-slip walls, optional artificial
        // viscosity): v*.
        self.explicit_forces(gravity, h, bodies);
        self.refresh_isph_ghosts(s);
        self.shared_kernel_sums(s);
        info.surface = self.surface_count(p, s);
        // The symmetric form is not invariant to a constant added to p, and negative pressures
        // attract (the tensile instability): with a free surface p ≥ 0, but a closed domain's
        // pressure is defined up to a constant, and with the symmetric form the Poiseuille
        // channel's particles were pulled into its plates (t = 0.74 s; 5.2 s taking p from its
        // minimum). There the renormalised form, which is invariant, is used.
        let form = if info.surface == 0 {
            PressureGradient::Renormalised
        } else {
            p.gradient
        };
        // With the symmetric form the wall pressure rises along the wall with gravity (module
        // docs, **Walls**); along a periodic axis the pressure is periodic and cannot rise on
        // average, so gravity's component there (a channel flow's driving force) is left out.
        s.ppe.wall_gravity = Vec3::zeros();
        if form == PressureGradient::Symmetric {
            for a in 0..3 {
                if self.params.periodic.len[a] == 0.0 {
                    s.ppe.wall_gravity[a] = gravity[a];
                }
            }
        }
        // Free-surface particles hold the pressure that keeps the lattice's top row at rest
        // (module docs, step 2; along periodic axes gravity only drives the flow round the
        // period).
        let g = self.params.periodic.across(gravity);
        s.ppe.surface_pressure = self.params.rho0 * g.norm() * s.surface_depth(self, &g, form);
        let halo = s.halo.0.as_deref_mut();
        let (res, its) = s.ppe.solve(self, p, &s.n, &s.bvel, h, halo);
        info.residual = if res.is_nan() {
            res
        } else {
            info.residual.max(res)
        };
        info.iterations += its;
        if info.substeps == 0 {
            let planar = self.params.planar;
            let active = [true, true, !planar, !planar, !planar, true];
            s.added_mass.clear();
            for (k, b) in bodies.iter().enumerate() {
                s.added_mass.push(if b.is_dynamic() {
                    let halo = s.halo.0.as_deref_mut();
                    s.ppe.added_mass(self, (k, &s.body_com[k]), h, active, halo)
                } else {
                    nalgebra::Matrix6::zeros()
                });
            }
        }
        self.correct(form, h, weight, s);
        // The velocity filter with the walls as no-slip neighbours (module docs, step 5).
        if self.params.velocity_filter > 0.0 {
            let eps = -(-self.params.velocity_filter * h).exp_m1();
            self.filter_velocities(eps, Some(&s.bvel), s.halo.0.as_deref_mut());
            self.refresh_isph_ghosts(s);
        }
        for (x, v) in self.pos.iter_mut().zip(&self.vel) {
            *x += v * h;
        }
        if p.position_alpha > 0.0 && info.surface > 0 {
            self.shared_kernel_sums(s);
            let halo = s.halo.0.as_deref_mut();
            s.ppe.correct_positions(self, p, &s.n, h, halo);
            self.refresh_isph_ghosts(s);
        }
        if self.params.shifting > 0.0 {
            self.shift_isph(h, s);
        }
        for (x, v) in self.boundary.iter_mut().zip(&s.bvel) {
            *x += v * h;
        }
        for (c, b) in s.body_com.iter_mut().zip(bodies) {
            *c += b.lin_vel * h;
        }
    }

    /// Normalised kernel sums `n_i = V (W(0) + Σ_j W_ij + Σ_b W_ib)` (1 inside the lattice).
    pub(super) fn kernel_sums(&self, out: &mut Vec<Real>) {
        let (k, v0, per) = (&self.params.kernel, self.volume, self.params.periodic);
        let (pos, bx, ff, fb) = (&self.pos, &self.boundary, &self.ff, &self.fb);
        out.resize(self.len(), 0.0);
        super::per_particle(out, |i| {
            let mut n = k.w(0.0);
            for &j in ff.of(i) {
                n += k.w(per.delta(&pos[i], &pos[j as usize]).norm());
            }
            for &b in fb.of(i) {
                n += k.w(per.delta(&pos[i], &bx[b as usize]).norm());
            }
            n * v0
        });
    }

    /// Corrector: `v −= (Δt/ρ0) ⟨∇p⟩` with the pressures of the solve; adds `weight` times the
    /// pressure force of each body's particles on the fluid, reversed, to the body's force.
    fn correct(&mut self, form: PressureGradient, h: Real, weight: Real, s: &mut IsphScratch) {
        let (k, v0, per) = (&self.params.kernel, self.volume, self.params.periodic);
        let kappa = self.kappa;
        let planar = self.params.planar;
        let ppe = &s.ppe;
        s.grad.resize(self.len(), Vec3::zeros());
        if form == PressureGradient::Symmetric {
            self.symmetric_gradient(&self.pressure, |i, e| ppe.wall_jump(i, e), &mut s.grad);
        } else {
            self.renormalised_gradient(ppe, &mut s.grad);
        }
        let (rho0, m) = (self.params.rho0, self.mass);
        for (v, g) in self.vel.iter_mut().zip(&s.grad) {
            *v -= g * (h / rho0);
        }
        // Pressure force of each fluid particle on the body particles near it, in the symmetric
        // pair form `m V (p_i + p_b)/(ρ0 κ) ∇_iW_ib` with `p_b = p_i + jump` the wall pressure
        // seen from i (the difference form that moves the fluid is not a pair force: summed
        // over a wall it gives the jumps only, not the pressure the wall carries).
        let owned = s.halo.0.as_deref().map(|h| h.owned());
        for i in (0..self.len()).filter(|&i| owned.is_none_or(|o| o[i])) {
            for (e, &b) in self.fb.of(i).iter().enumerate() {
                let o = self.wall_body[b as usize];
                if o == super::STATIC {
                    continue;
                }
                let d = per.delta(&self.pos[i], &self.boundary[b as usize]);
                let pb = self.pressure[i] + s.ppe.wall_jump(i, e);
                let c = super::kernel::volume_gradient(k, v0, &d);
                let mut f = c * ((self.pressure[i] + pb) / kappa / rho0 * m);
                if planar {
                    f.z = 0.0;
                }
                let o = o as usize;
                let arm =
                    self.boundary[b as usize] - s.body_com.get(o).copied().unwrap_or_default();
                self.body_force[o] += f * weight;
                self.body_torque[o] += arm.cross(&f) * weight;
            }
        }
    }
}
