//! Fluid parameters: one core type with its defaults, units and validation. The model layer
//! maps RON onto it and nothing else; the defaults named here are the defaults of the RON fields.

use super::kernel::{Kernel, KernelKind};
use super::sampling::LatticeKind;
use crate::math::Real;
use crate::params::{non_negative, positive, unit_interval, ParamError};
use serde::{Deserialize, Serialize};

/// How incompressibility is imposed by the constraint method, by name in RON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DensityMethod {
    /// 001: unilateral rows (λ ≥ 0), the density may only grow at the target rate; free surfaces
    /// need no detection.
    #[default]
    Unilateral,
    /// 004 KCSPH: bilateral rows ρ_i = ρ0.
    Kcsph,
}

/// Fluid parameters (SI units). Every field's doc gives its unit and default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FluidParams {
    /// Density rows. Default [`DensityMethod::Unilateral`].
    pub method: DensityMethod,
    /// Kernel with its smoothing length. Default Wendland C2 with `h = 1.3 l`
    /// ([`FluidParams::default_smoothing`]).
    pub kernel: Kernel,
    /// Particle spacing l (m): the nearest-neighbour distance of the initial lattice. Default
    /// 0.01 m.
    pub spacing: Real,
    /// Rest density ρ0 (kg/m³). Default 1000 (water).
    pub rho0: Real,
    /// Kinematic viscosity ν (m²/s). Default 1e-6 (water).
    pub viscosity: Real,
    /// Density-error feedback β in [0, 1] per step (001's α; dimensionless). Default 0.05.
    pub beta: Real,
    /// Row compliance ε ≥ 0 (regularisation). Default 0.
    pub compliance: Real,
    /// How fast fluid may approach a boundary particle that has less than the rest density
    /// (a wall above the waterline, a body's dry side): `false` (default) at the feedback rate
    /// `β g / h` like a fluid row, `true` until it reaches the rest density within the step,
    /// `g / h` ([`crate::constraints`]' wall rows). Default false.
    pub speculative_walls: bool,
    /// Whether the constraint method builds contact rows between fluid particles and moving
    /// bodies' boundary particles ([`crate::constraints::particle_contact`]). Default true.
    pub body_contacts: bool,
    /// Planar model. Default false.
    pub planar: bool,
    /// Planar thickness t (m); 1 in 3D. Default 1.
    pub thickness: Real,
    /// The initial lattice (for n0 and κ). Default [`LatticeKind::Square`].
    pub lattice: LatticeKind,
    /// Velocity filter rate γ (1/s): each step removes the fraction `ε = 1 − exp(−γ h)` of the
    /// kernel-scale velocity noise before the solve ([`super::Fluid::filter_velocities`]), so
    /// the damping per second does not depend on the time step; 0 = off. Default 100.
    pub velocity_filter: Real,
    /// Particle shifting coefficient A (dimensionless; [`super::Fluid::shift_particles`]);
    /// 0 = off. Default 1 (a WCSPH model's default is
    /// [`super::wcsph::WcsphParams::DEFAULT_SHIFTING`]).
    pub shifting: Real,
    /// Artificial viscosity (Monaghan 1992): `α` (dimensionless) and the sound speed `c` (m/s)
    /// it is scaled with; `α = 0` = off ([`super::monaghan_viscosity`]). Default (0, 0).
    pub artificial_viscosity: (Real, Real),
    /// Periodic axes of the fluid domain ([`super::periodic`]). Default none.
    pub periodic: super::periodic::Periodic,
    /// Most sub-steps of a partitioned method (WCSPH, ISPH) in one model step: the model's
    /// `guard.max_substeps` ([`crate::runner::Bounds`]). Default 10 000.
    pub max_substeps: u64,
}

impl FluidParams {
    /// Default rest density ρ0 (kg/m³).
    pub const DEFAULT_DENSITY: Real = 1000.0;
    /// Default kinematic viscosity ν (m²/s).
    pub const DEFAULT_VISCOSITY: Real = 1e-6;
    /// Default density-error feedback β.
    pub const DEFAULT_BETA: Real = 0.05;
    /// Default velocity filter rate γ (1/s).
    pub const DEFAULT_VELOCITY_FILTER: Real = 100.0;
    /// Default shifting coefficient A.
    pub const DEFAULT_SHIFTING: Real = 1.0;
    /// Default of [`Self::body_contacts`]: contact rows against moving bodies.
    pub const DEFAULT_BODY_CONTACTS: bool = true;

    /// Default smoothing length over spacing `h / l` of a kernel: 1.3 (support 2.6 l), and for
    /// the MPS weight `r_e / l = 2.1`.
    pub fn default_smoothing(kind: KernelKind) -> Real {
        if kind == KernelKind::Mps {
            2.1
        } else {
            1.3
        }
    }

    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        positive("spacing", self.spacing)?;
        positive("density", self.rho0)?;
        positive("thickness", self.thickness)?;
        positive("smoothing", self.kernel.h)?;
        non_negative("viscosity", self.viscosity)?;
        non_negative("compliance", self.compliance)?;
        non_negative("velocity_filter", self.velocity_filter)?;
        non_negative("shifting", self.shifting)?;
        non_negative("artificial_viscosity.alpha", self.artificial_viscosity.0)?;
        non_negative(
            "artificial_viscosity.sound_speed",
            self.artificial_viscosity.1,
        )?;
        unit_interval("stabilisation", self.beta)
    }
}

impl Default for FluidParams {
    fn default() -> Self {
        let spacing = 0.01;
        FluidParams {
            method: DensityMethod::Unilateral,
            kernel: Kernel::new(
                KernelKind::Wendland,
                Self::default_smoothing(KernelKind::Wendland) * spacing,
                3,
            ),
            spacing,
            rho0: Self::DEFAULT_DENSITY,
            viscosity: Self::DEFAULT_VISCOSITY,
            beta: Self::DEFAULT_BETA,
            speculative_walls: false,
            body_contacts: Self::DEFAULT_BODY_CONTACTS,
            compliance: 0.0,
            planar: false,
            thickness: 1.0,
            lattice: LatticeKind::Square,
            velocity_filter: Self::DEFAULT_VELOCITY_FILTER,
            shifting: Self::DEFAULT_SHIFTING,
            artificial_viscosity: (0.0, 0.0),
            periodic: super::periodic::Periodic::NONE,
            max_substeps: 10_000,
        }
    }
}
