//! The RON side of the step's switches: a fluid's `method` (see
//! [`crate::pipeline::FluidMethod`] for the core type it maps onto).

use super::values::{NonNegative, Positive, UnitInterval};
use serde::{Deserialize, Serialize};

/// A fluid method and its parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum FluidMethodDef {
    /// The constraint method (monolithic).
    Constraint {
        /// `Unilateral` (001, default) or `Kcsph` (004: bilateral) density rows.
        #[serde(default)]
        density: crate::fluid::DensityMethod,
    },
    /// Weakly compressible SPH (Tait equation of state, δ-SPH, symplectic sub-steps).
    Wcsph {
        /// Sound speed c0 (m/s). Default ten times the larger of `√(2 g H)` (H the fluid's
        /// initial height) and the largest initial speed.
        #[serde(default)]
        sound_speed: Option<Positive>,
        /// Artificial viscosity α (Monaghan 1992). Default 0.01.
        #[serde(default = "wcsph_alpha")]
        alpha: NonNegative,
        /// δ-SPH density diffusion δ. Default 0.1.
        #[serde(default = "wcsph_delta")]
        delta: UnitInterval,
        /// Courant number of the sub-step, in (0, 1]. Default 0.2.
        #[serde(default = "wcsph_cfl")]
        cfl: UnitInterval,
        /// Wall pressure: `Adami` (extrapolated, default) or `Dynamic` (dynamic boundary
        /// particles, as DualSPHysics).
        #[serde(default)]
        walls: crate::fluid::wcsph::WallTreatment,
        /// Correction of the density diffusion: `Fourtakas` (hydrostatic part only, as
        /// DualSPHysics' `DensityDT = 2`; default) or `Antuono` (renormalised gradients).
        #[serde(default)]
        diffusion: crate::fluid::wcsph::Diffusion,
        /// Sub-step integration: `Symplectic` (default; two pair passes per sub-step) or
        /// `Verlet(every: 40)` (one pair pass, an Euler step every `every` sub-steps, as
        /// DualSPHysics' dam break).
        #[serde(default)]
        stepping: crate::fluid::wcsph::Stepping,
    },
    /// Incompressible SPH (Chorin projection, stabilised pressure Poisson equation; partitioned
    /// coupling).
    Isph {
        /// Relaxation α of the density-invariance source (000 eq. 14). Default 0.01.
        #[serde(default = "isph_alpha")]
        alpha: NonNegative,
        /// Free-surface threshold on the normalised kernel sum, in (0, 1]. Default 0.9.
        #[serde(default = "isph_surface")]
        surface: UnitInterval,
        /// Courant number of the sub-step, in (0, 1]. Default 0.25.
        #[serde(default = "isph_cfl")]
        cfl: UnitInterval,
        /// Linear solver of the pressure equation: `Cg` (default; Jacobi-preconditioned
        /// conjugate gradients, warm-started) or `Direct` (sparse Cholesky).
        #[serde(default)]
        solver: crate::fluid::isph::PpeSolver,
    },
}

impl Default for FluidMethodDef {
    fn default() -> Self {
        FluidMethodDef::Constraint {
            density: Default::default(),
        }
    }
}

fn wcsph_alpha() -> NonNegative {
    NonNegative(crate::fluid::wcsph::WcsphParams::DEFAULT_ALPHA)
}
fn wcsph_delta() -> UnitInterval {
    UnitInterval(crate::fluid::wcsph::WcsphParams::DEFAULT_DELTA)
}
fn isph_alpha() -> NonNegative {
    NonNegative(crate::fluid::isph::IsphParams::DEFAULT_ALPHA)
}
fn isph_surface() -> UnitInterval {
    UnitInterval(crate::fluid::isph::IsphParams::DEFAULT_SURFACE)
}
fn isph_cfl() -> UnitInterval {
    UnitInterval(crate::fluid::isph::IsphParams::DEFAULT_CFL)
}
fn wcsph_cfl() -> UnitInterval {
    UnitInterval(crate::fluid::wcsph::WcsphParams::DEFAULT_CFL)
}
