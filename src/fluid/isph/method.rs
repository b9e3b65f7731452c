//! ISPH as a fluid method ([`crate::fluid::FluidMethod`]): the sub-steps of the parent module,
//! the bodies' added mass taken implicitly, the state a checkpoint keeps, and the division among
//! processes ([`super::divided`]).

use super::{take_added_mass, IsphParams, IsphScratch, PpeSolver};
use crate::body::RigidBody;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

/// ISPH as a fluid method ([`crate::fluid::method::FluidMethod`]): its parameters, scratch (the
/// pressure equation, the bodies' added mass) and the bodies' velocities one step back, which
/// the added mass needs and checkpoints keep.
pub struct Isph {
    /// Parameters.
    pub params: IsphParams,
    scratch: IsphScratch,
    /// Each body's (linear, angular) velocity at the start of the last model step (m/s, rad/s).
    body_start: Vec<(Vec3, Vec3)>,
}

impl Isph {
    /// ISPH with these parameters.
    pub fn new(params: IsphParams) -> Isph {
        Isph {
            params,
            scratch: IsphScratch::default(),
            body_start: Vec::new(),
        }
    }
}

impl crate::fluid::method::FluidMethod for Isph {
    fn name(&self) -> &'static str {
        "ISPH (partitioned)"
    }

    fn advance(
        &mut self,
        fluid: &mut Fluid,
        bodies: &[RigidBody],
        gravity: &Vec3,
        dt: Real,
    ) -> crate::fluid::method::SubStepInfo {
        let info = fluid.advance_isph(&self.params, bodies, gravity, dt, &mut self.scratch);
        crate::fluid::method::SubStepInfo {
            substeps: info.substeps,
            solve_residual: info.residual,
            solve_iterations: info.iterations,
            cut: info.cut,
        }
    }

    /// The added mass taken implicitly ([`take_added_mass`]).
    fn couple_body(&mut self, k: usize, body: &mut RigidBody, v0: (Vec3, Vec3), active: [bool; 6]) {
        let starts = &mut self.body_start;
        starts.resize(starts.len().max(k + 1), v0);
        let prev = std::mem::replace(&mut starts[k], v0);
        if !body.is_dynamic() {
            return;
        }
        if let Some(ma) = self.scratch.added_mass.get(k) {
            take_added_mass(body, ma, v0, prev, active);
        }
    }

    fn inner_solve(&self) -> Option<crate::fluid::method::InnerSolve> {
        Some(crate::fluid::method::InnerSolve {
            name: "pressure solve",
            iterations: "CG iterations",
        })
    }

    /// A pressure solve that ended far from its tolerance ([`super::ppe::failed`]) stops the run
    /// (exit 3): its pressures are no solution.
    fn stop(
        &self,
        info: &crate::fluid::method::SubStepInfo,
        t: Real,
    ) -> Option<crate::interrupt::Abort> {
        super::report::solve_failure(info, t)
    }

    fn save_state(&self) -> Vec<u8> {
        postcard::to_stdvec(&self.body_start).unwrap_or_default()
    }

    /// Divided with its pressure solves ([`super::ppe`]'s `parts`): conjugate gradients, not the
    /// direct solve.
    fn set_halo(&mut self, halo: Box<dyn crate::fluid::halo::Halo>) -> Result<(), String> {
        if self.params.solver == PpeSolver::Direct {
            return Err(
                "ISPH's direct pressure solve (`solver: Direct`) does not run divided \
                        among processes: `solver: TwoLevel` (the default) or `Cg` do"
                    .into(),
            );
        }
        self.scratch.halo.0 = Some(halo);
        Ok(())
    }

    /// One support: an owned particle reads its neighbours' positions, velocities, kernel sums
    /// and pressures, each exchanged after it changes (module `divided`).
    fn ghost_supports(&self) -> Real {
        1.0
    }

    fn halo(&mut self) -> Option<&mut dyn crate::fluid::halo::Halo> {
        match self.scratch.halo.0.as_mut() {
            Some(h) => Some(&mut **h),
            None => None,
        }
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.is_empty() {
            self.body_start.clear();
            return Ok(());
        }
        self.body_start = postcard::from_bytes(bytes)
            .map_err(|e| format!("the checkpoint's ISPH state cannot be read: {e}"))?;
        Ok(())
    }
}
