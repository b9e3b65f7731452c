//! WCSPH as a fluid method ([`Wcsph`]) and its default sound speed.

use super::{Fluid, SubStepInfo, WcsphParams, WcsphScratch};
use crate::body::RigidBody;
use crate::math::{Real, Vec3};

/// The sound speed a model gets by default (m/s): ten times the larger of `√(2 g H)` (H the
/// fluid's height along gravity, m) and the largest initial speed; `None` if both are zero.
pub fn default_sound_speed(
    pos: &[Vec3],
    vel: &[Vec3],
    gravity: &Vec3,
    spacing: Real,
) -> Option<Real> {
    let g = gravity.norm();
    let height = crate::math::fall_height(pos.iter().copied(), gravity, spacing);
    let u = vel
        .iter()
        .map(|v| v.norm())
        .fold((2.0 * g * height).sqrt(), Real::max);
    (u > 0.0 && u.is_finite()).then_some(10.0 * u)
}

/// WCSPH as a fluid method ([`crate::fluid::FluidMethod`]): its parameters and sub-step
/// buffers, with the state it carries between steps ([`super::Carry`], saved in checkpoints).
pub struct Wcsph {
    /// Parameters, the sound speed resolved.
    pub params: WcsphParams,
    scratch: WcsphScratch,
}

impl Wcsph {
    /// WCSPH with these parameters for `fluid` under `gravity` (m/s²): a sound speed left out
    /// is the default one ([`default_sound_speed`]); an error when there is none (no gravity
    /// and a fluid at rest).
    pub fn new(mut params: WcsphParams, fluid: &Fluid, gravity: &Vec3) -> Result<Wcsph, String> {
        if params.sound_speed.is_none() {
            let c0 = default_sound_speed(&fluid.pos, &fluid.vel, gravity, fluid.params.spacing)
                .ok_or("a WCSPH fluid without gravity and at rest needs `sound_speed` (m/s)")?;
            params.sound_speed = Some(c0);
        }
        Ok(Wcsph {
            params,
            scratch: WcsphScratch::default(),
        })
    }
}

impl crate::fluid::FluidMethod for Wcsph {
    fn name(&self) -> &'static str {
        "WCSPH (partitioned)"
    }

    fn advance(
        &mut self,
        fluid: &mut Fluid,
        bodies: &[RigidBody],
        gravity: &Vec3,
        dt: Real,
    ) -> SubStepInfo {
        fluid.advance_wcsph(&self.params, bodies, gravity, dt, &mut self.scratch)
    }

    fn unused_fields(&self) -> &'static [&'static str] {
        &["velocity_filter"]
    }

    fn save_state(&self) -> Vec<u8> {
        postcard::to_stdvec(&self.scratch.carry).unwrap_or_default()
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.scratch.carry = if bytes.is_empty() {
            Default::default()
        } else {
            postcard::from_bytes(bytes)
                .map_err(|e| format!("the checkpoint's WCSPH state cannot be read: {e}"))?
        };
        Ok(())
    }

    fn set_halo(&mut self, halo: Box<dyn crate::fluid::halo::Halo>) -> Result<(), String> {
        self.scratch.halo.0 = Some(halo);
        Ok(())
    }

    /// The lists' skin ([`super::SKIN`]): a divided fluid is redistributed at every search.
    fn ghost_skin(&self, _fluid: &Fluid) -> Real {
        super::SKIN
    }

    fn halo(&mut self) -> Option<&mut dyn crate::fluid::halo::Halo> {
        // (A match, not `as_deref_mut`: `&mut` is invariant, the object's lifetime shortens
        // only at a coercion site.)
        match self.scratch.halo.0.as_mut() {
            Some(h) => Some(&mut **h),
            None => None,
        }
    }
}
