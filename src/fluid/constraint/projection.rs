//! Density projection: the position-level half of the constraint method's incompressibility.
//!
//! The density rows ([`crate::constraints::density`], 001 §3) act on velocities, linearised at
//! the positions where the step starts, and feed back only the fraction β of the density
//! error. Over a step the particles then move a sizeable part of their spacing (0.5 l at
//! 5 m/s with l = 1 cm and Δt = 1 ms), the kernel sum is far from linear over that distance,
//! shifting moves them further, and a solve stopped early leaves its part. Measured on the
//! 20 000-particle dam break (PGS, 10 sweeps): 4.4 % largest compression over 0.3 s, 2.2 %
//! without shifting, 2.7 % at half the step.
//!
//! The projection measures the density where the particles are at the end of the step and,
//! if a particle is compressed by more than the tolerance, solves the same rows with the whole
//! gap as bias and no other velocity (`g_i` the gap of [`crate::constraints::density`],
//! dimensionless; `J` its rows at the new positions, 1/m; `h` the step, s):
//!
//! `w = J u + g / h ≥ 0`, `λ ≥ 0`, `λ·w = 0`
//!
//! (unilateral also when the method's rows are bilateral KCSPH rows: the projection only pushes
//! compressed particles apart),
//!
//! with `u = M⁻¹ Jᵀ λ` (m/s) by projected Gauss–Seidel from λ = 0, then moves the particles by
//! `h u` and adds `u` to their velocities. `u` is the velocity change of a pressure impulse
//! `λ`, so this is a pressure impulse applied at the end of the step, where the constant-density
//! solve of divergence-free SPH (Bender & Koschier 2017, §4) applies one before the move and
//! position-based fluids (Macklin & Müller 2013, eq. 7–12) take the velocity from the corrected
//! positions. The velocity rows of the next step still keep the density from growing; the
//! projection removes what the linearisation left. Bodies are held where they are: their
//! boundary particles are walls for the projection (the next step's solve couples them).
//!
//! **Neighbours.** The projection needs the lists at the new positions; it searches with a
//! skin of [`SKIN`] spacings, and the next step reuses those lists when no particle has moved
//! by more than half the skin since (the projection moves them by `h u`, a few hundredths of
//! a spacing): one search per step, as without the projection. Where no particle has moved by
//! half the skin since the last search (slow water; no moving body particles), the projection
//! keeps that search's lists too: water at rest searches once in many steps.

use super::super::Fluid;
use crate::body::{linear_mask, Dofs, RigidBody};
use crate::constraints::DensityRows;
use crate::fluid::halo::Halo;
use crate::fluid::STATIC;
use crate::math::{Real, Vec3};
use crate::params::{non_negative, ParamError, MAX_ITERATIONS};
use crate::solver::{pgs, PgsParams, RowSet, SolveScratch};
use serde::{Deserialize, Serialize};

/// The neighbour search's skin in spacings when the projection searches (lists reused by the
/// next step).
pub const SKIN: Real = 0.05;

/// The projection's parameters (RON: `Constraint(projection: (tolerance: .., max_sweeps: ..))`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProjectionParams {
    /// Largest compression left after a step (dimensionless, (ρ − ρ0)/ρ0): particles are
    /// projected when one is compressed by more, and the sweeps stop when the largest change of
    /// the linearised compression in a sweep falls below a tenth of it. Default 0.002.
    pub tolerance: Real,
    /// Most projected Gauss–Seidel sweeps per step, 0 to 100 000; 0 turns the projection off.
    /// Default 10.
    pub max_sweeps: usize,
}

impl ProjectionParams {
    /// Default tolerance.
    pub const DEFAULT_TOLERANCE: Real = 0.002;
    /// Default sweep cap.
    pub const DEFAULT_MAX_SWEEPS: usize = 10;

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        non_negative("tolerance", self.tolerance)?;
        if self.max_sweeps > MAX_ITERATIONS {
            return Err(ParamError::new(
                "max_sweeps",
                "from 0 (off) to 100000 sweeps",
                self.max_sweeps as Real,
            ));
        }
        Ok(())
    }
}

impl Default for ProjectionParams {
    fn default() -> Self {
        ProjectionParams {
            tolerance: Self::DEFAULT_TOLERANCE,
            max_sweeps: Self::DEFAULT_MAX_SWEEPS,
        }
    }
}

/// What the projections of a run did (for the run summary).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProjectionInfo {
    /// Steps that projected (a particle was compressed beyond the tolerance).
    pub projected: u64,
    /// Sweeps summed over the steps.
    pub sweeps: u64,
    /// Steps whose projection stopped at the sweep cap.
    pub at_cap: u64,
    /// Steps that reused the projection's neighbour lists.
    pub reused: u64,
    /// Projections that kept the last search's lists (no particle had moved by half the skin).
    pub kept: u64,
    /// Steps and sub-steps the projection was asked to check (more than the run's steps where
    /// steps were split, [`super::ConstraintParams::cfl`]).
    pub passes: u64,
}

/// The projection with its scratch.
#[derive(Default)]
pub struct Projection {
    /// Parameters.
    pub params: ProjectionParams,
    /// Counters since the run started.
    pub info: ProjectionInfo,
    err: Vec<Real>,
    /// Largest displacement of a particle since the last search (m), when that search was the
    /// projection's (skin `SKIN l`); `None` when the lists must be searched again.
    moved: Option<Real>,
    /// The positions of the projection's last search (m, in the particles' order): a state
    /// restored from a checkpoint rebuilds the reused lists from them, exactly.
    at: Vec<Vec3>,
    /// Whether the lists must be rebuilt from `at` (a restored state).
    restored: bool,
    /// Per body: the projection's linear and angular impulse on it (scratch of [`react`]).
    reaction: Vec<(Vec3, Vec3)>,
    /// Per row of a divided projection: whether another part owns it, the share of its
    /// unknowns that another part's rows touch; per particle, whether it is or neighbours a
    /// ghost.
    foreign: Vec<bool>,
    interface: Vec<Real>,
    near: Vec<bool>,
}

/// The state a checkpoint keeps: the displacement since the projection's search, and where
/// it searched.
#[derive(Serialize, Deserialize)]
struct Saved {
    moved: Real,
    at: Vec<Vec3>,
}

impl Projection {
    /// The projection with these parameters.
    pub fn new(params: ProjectionParams) -> Self {
        Projection {
            params,
            ..Default::default()
        }
    }

    /// The run summary's line: how many of `steps` projected, their sweeps and the lists
    /// reused (None when the projection is off).
    pub fn summary_line(&self, steps: u64) -> Option<String> {
        let (p, i) = (self.params, self.info);
        if p.max_sweeps == 0 {
            return None;
        }
        let mean = i.sweeps as Real / i.projected.max(1) as Real;
        let of = if i.passes > steps {
            format!("{} sub-steps", i.passes)
        } else {
            format!("{steps} steps")
        };
        Some(format!(
            "projection       {} of {of} projected (a particle compressed by more than {}), mean {mean:.1} sweeps, {} at the cap of {}; neighbour lists reused in {} (sub-)steps, searched in {} of {} passes",
            i.projected, p.tolerance, i.at_cap, p.max_sweeps, i.reused, i.passes - i.kept, i.passes
        ))
    }

    /// Stage 1 for the constraint method: the neighbour lists, reused from the projection's
    /// search when no particle has moved by half its skin since. Whether it searched (then the
    /// method's per-particle arrays follow the particles' new order).
    pub fn find_neighbours(&mut self, fluid: &mut Fluid, bodies: &[RigidBody]) -> bool {
        let keep = self.reusable(fluid);
        let restored = std::mem::take(&mut self.restored);
        self.moved = None;
        if keep {
            fluid.place_body_particles(bodies);
            if restored {
                fluid.search_at(&self.at, SKIN * fluid.params.spacing);
            }
            self.info.reused += 1;
            restored
        } else {
            // Lists without a skin: the projection searches again.
            self.at.clear();
            fluid.update_neighbours(bodies);
            true
        }
    }

    /// The state a checkpoint keeps (empty when the next step searches anyway).
    pub fn save_state(&self) -> Vec<u8> {
        match self.moved {
            Some(moved) => postcard::to_stdvec(&Saved {
                moved,
                at: self.at.clone(),
            })
            .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Puts [`Projection::save_state`]'s state back.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.moved = None;
        self.at.clear();
        if !bytes.is_empty() {
            let s: Saved = postcard::from_bytes(bytes).map_err(|e| {
                format!("the checkpoint's constraint-method state cannot be read: {e}")
            })?;
            self.moved = Some(s.moved);
            self.at = s.at;
        }
        self.restored = true;
        Ok(())
    }

    /// Whether stage 1 can keep the projection's lists, as [`Projection::find_neighbours`]
    /// decides it: no particle has moved by half the skin since its search (lists in place, or
    /// to be rebuilt from a checkpoint's state).
    pub fn reusable(&self, fluid: &Fluid) -> bool {
        let half_skin = 0.5 * SKIN * fluid.params.spacing;
        matches!(self.moved, Some(d) if d <= half_skin && (self.restored || fluid.has_neighbours()))
    }

    /// Stage 1 searched without the projection (a divided fluid): its lists are given up.
    pub fn searching(&mut self) {
        self.moved = None;
        self.restored = false;
        self.at.clear();
    }

    /// Stage 6, after the particles moved: projects them if one is compressed by more than the
    /// tolerance (module docs), using `rows` (the step's density rows, read back already) as
    /// scratch. `h` is the step (s); `bodies` are at their poses at the end of the step. On one
    /// part of a divided fluid (`halo`; `None`: one process) every decision is taken over all
    /// the parts, the search follows a redistribution, the sweeps run across the parts
    /// (`HaloParts`) and the bodies' reaction is summed over them. The sweeps use the step's
    /// solve scratch (`scratch`).
    pub fn apply(
        &mut self,
        rows: &mut DensityRows,
        fluid: &mut Fluid,
        h: Real,
        bodies: &mut [RigidBody],
        mut halo: Option<&mut (dyn Halo + '_)>,
        mut scratch: SolveScratch<'_>,
    ) {
        self.moved = None;
        self.info.passes += 1;
        let p = self.params;
        if p.max_sweeps == 0 {
            return;
        }
        let walls_move = fluid.place_body_particles(bodies);
        // The last search's lists (skin `SKIN l`) still hold every pair within the support
        // while no particle has moved by half the skin since: water at rest, or slow flow,
        // searches once in many steps instead of every step.
        let skin = SKIN * fluid.params.spacing;
        let kept = self
            .moved_since_search(fluid)
            .filter(|&d| !walls_move && d <= 0.5 * skin);
        let keep = match halo.as_deref_mut() {
            Some(h) => !h.any(kept.is_none()),
            None => kept.is_some(),
        };
        if keep {
            // (Positions back into the periodic range, as a search would put them: every
            // pair is taken by its nearest image.)
            fluid.wrap_positions();
            self.moved = kept;
            self.info.kept += 1;
        } else {
            match halo.as_deref_mut() {
                Some(h) => super::divided::redistribute(h, fluid, rows, |f| f.search(skin)),
                None => fluid.search(skin),
            }
            rows.follow_search(fluid);
            self.at.clone_from(&fluid.pos);
            self.moved = Some(0.0);
        }
        let (colour, multilevel) = (rows.colour, rows.multilevel);
        rows.colour = true;
        // Plain sweeps: with multilevel corrections the projection of the sloshing tank took
        // 0.86 ms per step instead of 0.59 ms for the same 10 sweeps' cap.
        rows.multilevel = false;
        // The compression at the new positions first (a kernel sum per particle): the rows,
        // with their gradients, are built only in the steps that project (in the sloshing
        // tank, 1 660 of 4 000).
        compressions(fluid, &mut self.err);
        let worst = self.err.iter().copied().fold(0.0, Real::max);
        let worst = halo.as_deref_mut().map_or(worst, |h| h.largest(worst));
        if worst > p.tolerance {
            rows.build_projection(fluid, h, &mut self.err);
            self.project(rows, fluid, h, halo.as_deref_mut(), &mut scratch);
            react(
                rows,
                scratch.lambda,
                fluid,
                h,
                bodies,
                &mut self.reaction,
                halo,
            );
        }
        rows.colour = colour;
        rows.multilevel = multilevel;
        rows.release();
    }

    /// Solves the projection's rows (built) and moves the particles (module docs).
    fn project(
        &mut self,
        rows: &DensityRows,
        fluid: &mut Fluid,
        h: Real,
        halo: Option<&mut (dyn Halo + '_)>,
        scratch: &mut SolveScratch<'_>,
    ) {
        let n = fluid.len();
        let (lambda, u, ws) = (
            &mut *scratch.lambda,
            &mut *scratch.v,
            &mut *scratch.workspace,
        );
        u.clear();
        u.resize(3 * n, 0.0);
        lambda.clear();
        lambda.resize(rows.len(), 0.0);
        let sweeps = PgsParams {
            max_iterations: self.params.max_sweeps,
            // A sweep's largest update of a row's w (m/s) is a change of its linearised
            // compression by h times as much.
            tolerance: 0.1 * self.params.tolerance / h,
            warm_start: false,
            ..Default::default()
        };
        let info = match halo {
            None => pgs::solve(&sweeps, rows, lambda, u, ws),
            Some(halo) => {
                self.foreign.clear();
                super::divided::foreign_density_rows(rows, fluid, halo, &mut self.foreign);
                super::divided::near_ghosts(fluid, halo, &mut self.near);
                self.interface.clear();
                super::divided::interface_density_rows(rows, &self.near, &mut self.interface);
                let mut parts = super::HaloParts {
                    halo,
                    foreign: &self.foreign,
                    interface: &self.interface,
                    dof0: 0,
                    body_dofs: 0,
                };
                pgs::solve_parts(&sweeps, rows, lambda, u, ws, Some(&mut parts))
            }
        };
        self.info.projected += 1;
        self.info.sweeps += info.iterations as u64;
        if !info.converged {
            self.info.at_cap += 1;
        }
        let mut moved: Real = 0.0;
        for (i, (x, v)) in fluid.pos.iter_mut().zip(fluid.vel.iter_mut()).enumerate() {
            let du = Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]);
            *x += du * h;
            *v += du;
            moved = moved.max(du.norm() * h);
        }
        // (A bound on the displacement since the search: before the projection plus its own.)
        self.moved = Some(self.moved.unwrap_or(0.0) + moved);
    }

    /// The largest displacement of a particle since the last search (m), or `None` when the
    /// lists are not that search's (no search yet, another particle count).
    fn moved_since_search(&self, fluid: &Fluid) -> Option<Real> {
        if self.at.len() != fluid.len() || !fluid.has_neighbours() {
            return None;
        }
        let per = fluid.params.periodic;
        let d2 = (fluid.pos.iter().zip(&self.at))
            .map(|(x, a)| per.delta(x, a).norm_squared())
            .fold(0.0, Real::max);
        Some(d2.sqrt())
    }
}

/// Each fluid particle's compression `(ρ − ρ0)/ρ0` (dimensionless) from the kernel sum over
/// its neighbours and boundary neighbours, summed as the density rows sum it (the same value
/// to the last bit).
fn compressions(fluid: &Fluid, out: &mut Vec<Real>) {
    let (k, v0, per) = (fluid.params.kernel, fluid.volume, fluid.params.periodic);
    let (pos, boundary, ff, fb) = (&fluid.pos, &fluid.boundary, &fluid.ff, &fluid.fb);
    out.resize(fluid.len(), 0.0);
    crate::fluid::per_particle(out, |i| {
        let xi = &pos[i];
        let mut rho = v0 * k.w(0.0);
        for &j in ff.of(i) {
            rho += v0 * k.w(per.delta(xi, &pos[j as usize]).norm());
        }
        for &b in fb.of(i) {
            rho += v0 * k.w(per.delta(xi, &boundary[b as usize]).norm());
        }
        rho + fluid.smooth.fill(xi).0 - 1.0
    });
}

/// The bodies' share of the projection's impulses `lambda` (N·s·m per row): the rows' Jacobians
/// on the boundary particles of each body (`c_ib` in fluid row i, `−Σ_j c_bj` in body particle
/// b's wall row; [`crate::constraints::density`]'s moving walls) times the impulses, summed per
/// body (N·s, and N·m·s about its centre of mass; static bodies by [`Fluid::wall_body`]). The
/// bodies were held in the projection; this is the reaction of the impulse the fluid took from
/// their walls, so momentum is kept: each dynamic body's velocity changes by it, and the fluid's
/// force on each body gains it over `h` (s).
fn react(
    rows: &DensityRows,
    lambda: &[Real],
    fluid: &mut Fluid,
    h: Real,
    bodies: &mut [RigidBody],
    sums: &mut Vec<(Vec3, Vec3)>,
    halo: Option<&mut (dyn Halo + '_)>,
) {
    sums.clear();
    sums.resize(bodies.len(), (Vec3::zeros(), Vec3::zeros()));
    let (owner, boundary, fb) = (&fluid.wall_body, &fluid.boundary, &fluid.fb);
    let mut add = |b: usize, c: Vec3| {
        let o = owner[b];
        if o != STATIC {
            let o = o as usize;
            sums[o].0 += c;
            sums[o].1 += (boundary[b] - bodies[o].com()).cross(&c);
        }
    };
    for (i, &l) in lambda[..rows.nf].iter().enumerate() {
        if l != 0.0 {
            let first = fb.start[i] as usize;
            for (e, &b) in fb.of(i).iter().enumerate() {
                add(b as usize, -rows.fb_coef(first + e, i) * l);
            }
        }
    }
    for (r, &b) in rows.bactive.iter().enumerate() {
        let l = lambda[rows.nf + r];
        if l != 0.0 {
            add(b as usize, -rows.wall_sum(r) * l);
        }
    }
    if let Some(halo) = halo {
        // (Each part's impulses are those of the rows it owns: the sum is the whole.)
        crate::fluid::halo::sum_vectors(halo, sums.iter_mut().flat_map(|(l, a)| [l, a]));
    }
    let dofs = if fluid.params.planar {
        Dofs::Planar
    } else {
        Dofs::Spatial
    };
    let mask = linear_mask(dofs);
    for (k, b) in bodies.iter_mut().enumerate() {
        let (lin, ang) = sums[k];
        if b.is_dynamic() {
            b.lin_vel += (lin * b.inv_mass).component_mul(&mask);
            b.ang_vel += b.inv_inertia_world(dofs) * ang;
        }
        if let (Some(f), Some(t)) = (fluid.body_force.get_mut(k), fluid.body_torque.get_mut(k)) {
            *f += lin / h;
            *t += ang / h;
        }
    }
}
