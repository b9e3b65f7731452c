//! WCSPH's parameters ([`WcsphParams`]) and the choices among its variants (wall treatment,
//! density diffusion, sub-step integration); the equations are in the module docs of
//! [`super`].

use crate::math::Real;

/// How wall particles get their pressure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum WallTreatment {
    /// Pressure extrapolated from the fluid (Adami et al. 2012).
    #[default]
    Adami,
    /// Dynamic boundary particles with their own density (Crespo et al. 2007; DualSPHysics'
    /// default).
    Dynamic,
}

/// WCSPH parameters (SI units; RON: `fluid: (method: Wcsph(sound_speed: 30, ..))`, every
/// field may be left out).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WcsphParams {
    /// Sound speed c0 (m/s), positive, at most [`WcsphParams::MAX_SOUND_SPEED`]. Default: ten
    /// times the larger of `√(2 g H)` (H the fluid's initial height) and the largest initial
    /// speed ([`super::default_sound_speed`]), resolved by [`super::Wcsph::new`].
    pub sound_speed: Option<Real>,
    /// Artificial viscosity α (Monaghan 1992; dimensionless, ≥ 0). Default 0.01.
    pub alpha: Real,
    /// δ-SPH density diffusion coefficient δ (dimensionless, in [0, 1]). Default 0.1.
    pub delta: Real,
    /// Courant number C of the sub-step (dimensionless, in (0, 1]). Default 0.2.
    pub cfl: Real,
    /// Wall pressure: `Adami` (extrapolated, default) or `Dynamic` (dynamic boundary
    /// particles, as DualSPHysics).
    pub walls: WallTreatment,
    /// Correction of the density diffusion: `Fourtakas` (hydrostatic part only, as
    /// DualSPHysics' `DensityDT = 2`; default) or `Antuono` (renormalised gradients).
    pub diffusion: Diffusion,
    /// Sub-step integration: `Symplectic` (default; two pair passes per sub-step) or
    /// `Verlet(every: 40)` (one pair pass, an Euler step every `every` sub-steps, as
    /// DualSPHysics' dam break).
    pub stepping: Stepping,
}

impl Default for WcsphParams {
    fn default() -> Self {
        WcsphParams {
            sound_speed: None,
            alpha: Self::DEFAULT_ALPHA,
            delta: Self::DEFAULT_DELTA,
            cfl: Self::DEFAULT_CFL,
            walls: WallTreatment::default(),
            diffusion: Diffusion::default(),
            stepping: Stepping::default(),
        }
    }
}

/// How a sub-step advances the fluid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Stepping {
    /// Symplectic position Verlet: second order, two pair passes per sub-step.
    #[default]
    Symplectic,
    /// Verlet with a forward Euler step every `every` sub-steps: one pair pass per sub-step
    /// (DualSPHysics' default for its dam break).
    Verlet {
        /// Sub-steps between Euler steps (DualSPHysics' `VerletSteps`). Default 40.
        #[serde(default = "Stepping::default_every")]
        every: std::num::NonZeroU32,
    },
}

impl Stepping {
    /// DualSPHysics' `VerletSteps` default.
    pub fn default_every() -> std::num::NonZeroU32 {
        std::num::NonZeroU32::new(40).expect("40 is not zero")
    }
}

/// Which correction the δ-SPH density diffusion carries, so that it does not act on the part of
/// the density field it should leave alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Diffusion {
    /// Antuono et al. 2010 (Comput. Phys. Commun. 181:532, eq. 12): the renormalised density
    /// gradients `⟨∇ρ⟩^L` are subtracted, so any linear density field is left unchanged,
    /// also where a free surface truncates the kernel (one more pair pass per stage). On the
    /// circular patch it changed the semi-axes by less than 0.1 %; on the dam break it let one
    /// particle into a wall in the splash where `Fourtakas` lets none.
    Antuono,
    /// Fourtakas et al. 2019: only the hydrostatic density difference is subtracted
    /// (DualSPHysics' `DensityDT = 2`); cheaper, exact at rest, but a dynamic pressure gradient
    /// at a free surface is diffused as well.
    #[default]
    Fourtakas,
}

impl WcsphParams {
    /// The largest sound speed a model may give (m/s).
    pub const MAX_SOUND_SPEED: Real = 1e5;

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        use crate::params::{non_negative, unit_interval, ParamError};
        if let Some(c) = self.sound_speed {
            if !(c.is_finite() && c > 0.0 && c <= Self::MAX_SOUND_SPEED) {
                return Err(ParamError::new(
                    "sound_speed",
                    "a sound speed > 0 and up to 1e5 m/s",
                    c,
                ));
            }
        }
        non_negative("alpha", self.alpha)?;
        unit_interval("delta", self.delta)?;
        if !(self.cfl > 0.0 && self.cfl <= 1.0) {
            return Err(ParamError::new(
                "cfl",
                "a Courant number in (0, 1]",
                self.cfl,
            ));
        }
        Ok(())
    }

    /// The resolved sound speed c0 (m/s; [`super::Wcsph::new`] resolves it).
    pub fn c0(&self) -> Real {
        self.sound_speed
            .expect("the sound speed is resolved when the method is made (Wcsph::new)")
    }

    /// Default artificial viscosity α.
    pub const DEFAULT_ALPHA: Real = 0.01;
    /// Default δ-SPH coefficient.
    pub const DEFAULT_DELTA: Real = 0.1;
    /// Default Courant number.
    pub const DEFAULT_CFL: Real = 0.2;
    /// Default particle shifting coefficient A of a WCSPH fluid (the fluid's `shifting` when the
    /// model does not set it): 2, Skillen et al. 2013's recommended value (also Chrono::FSI's
    /// default). With A = 1, the other methods' default, the circular patch's area came out
    /// +3.15 % at t = 1 s, with 2 +1.86 % (the book's WCSPH page).
    pub const DEFAULT_SHIFTING: Real = 2.0;
}
