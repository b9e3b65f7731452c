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
        /// Relaxation α of the density-invariance source (000 eq. 14). Default 1 (000 uses
        /// 0.01; the book's ISPH page has the measurements behind the choice).
        #[serde(default = "isph_alpha")]
        alpha: NonNegative,
        /// Relaxation α_e of the density source where the interior has expanded (n < 1 with no
        /// free-surface or wall neighbour), in [0, 1]. Default 0.05 (0.2 and more open voids
        /// in the circular patch; the book's ISPH page); 0 turns it off.
        #[serde(default = "isph_expansion")]
        expansion: UnitInterval,
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
        /// Pressure gradient of the corrector: `Symmetric` (default; 000 eq. 12) or
        /// `Renormalised` (difference form with the renormalisation matrix).
        #[serde(default)]
        gradient: crate::fluid::isph::PressureGradient,
    },
}

impl FluidMethodDef {
    /// The value types' rules of the method's parameters (for models built in code): the
    /// field and what was expected.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let each = |fields: &[(&'static str, Result<(), String>)]| {
            fields
                .iter()
                .find_map(|(f, r)| r.clone().err().map(|e| (*f, e)))
                .map_or(Ok(()), Err)
        };
        match self {
            FluidMethodDef::Constraint { .. } => Ok(()),
            FluidMethodDef::Wcsph {
                sound_speed,
                alpha,
                delta,
                cfl,
                ..
            } => each(&[
                ("sound_speed", sound_speed.map_or(Ok(()), |c| c.check())),
                ("alpha", alpha.check()),
                ("delta", delta.check()),
                ("cfl", cfl.check()),
            ]),
            FluidMethodDef::Isph {
                alpha,
                expansion,
                surface,
                cfl,
                ..
            } => each(&[
                ("alpha", alpha.check()),
                ("expansion", expansion.check()),
                ("surface", surface.check()),
                ("cfl", cfl.check()),
            ]),
        }
    }

    /// The constraint method's kind of density rows (the default for the other methods, which
    /// build none).
    pub fn density(&self) -> crate::fluid::DensityMethod {
        match self {
            FluidMethodDef::Constraint { density } => *density,
            _ => Default::default(),
        }
    }

    /// The smoothing length over spacing `h / l` when the model gives none: DualSPHysics'
    /// `√d` (coefh = 1, d the dimension) for WCSPH, else the kernel's default
    /// ([`crate::fluid::FluidParams::default_smoothing`]).
    pub fn default_smoothing(&self, kernel: crate::fluid::kernel::KernelKind, dim: u32) -> f64 {
        match self {
            FluidMethodDef::Wcsph { .. } => (dim as f64).sqrt(),
            _ => crate::fluid::FluidParams::default_smoothing(kernel),
        }
    }

    /// The shifting coefficient A when the model gives none: WCSPH's
    /// [`crate::fluid::wcsph::WcsphParams::DEFAULT_SHIFTING`], else
    /// [`crate::fluid::FluidParams::DEFAULT_SHIFTING`].
    pub fn default_shifting(&self) -> f64 {
        match self {
            FluidMethodDef::Wcsph { .. } => crate::fluid::wcsph::WcsphParams::DEFAULT_SHIFTING,
            _ => crate::fluid::FluidParams::DEFAULT_SHIFTING,
        }
    }

    /// The core's fluid method, its defaults resolved from the built fluid `f` under
    /// `gravity` (m/s²).
    pub fn build(
        &self,
        f: &crate::fluid::Fluid,
        gravity: &crate::math::Vec3,
    ) -> Result<Box<dyn crate::fluid::FluidMethod>, String> {
        use crate::fluid::{constraint::Constraint, isph, wcsph};
        Ok(match self {
            FluidMethodDef::Constraint { .. } => Box::new(Constraint::default()),
            FluidMethodDef::Wcsph {
                sound_speed,
                alpha,
                delta,
                cfl,
                walls,
                diffusion,
                stepping,
            } => {
                let c0 = match sound_speed {
                    Some(c) => c.0,
                    None => wcsph::default_sound_speed(&f.pos, &f.vel, gravity, f.params.spacing)
                        .ok_or(
                        "a WCSPH fluid without gravity and at rest needs `sound_speed` (m/s)",
                    )?,
                };
                Box::new(wcsph::Wcsph::new(wcsph::WcsphParams {
                    sound_speed: c0,
                    alpha: alpha.0,
                    delta: delta.0,
                    cfl: cfl.0,
                    walls: *walls,
                    diffusion: *diffusion,
                    stepping: *stepping,
                }))
            }
            FluidMethodDef::Isph {
                alpha,
                expansion,
                surface,
                cfl,
                solver,
                gradient,
            } => Box::new(isph::Isph::new(isph::IsphParams {
                alpha: alpha.0,
                expansion: expansion.0,
                surface: surface.0,
                cfl: cfl.0,
                solver: *solver,
                gradient: *gradient,
            })),
        })
    }
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
fn isph_expansion() -> UnitInterval {
    UnitInterval(crate::fluid::isph::IsphParams::DEFAULT_EXPANSION)
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

/// What resolves rigid-body contacts (`contact: (resolver: ..)`): complementarity rows in the
/// solve (default) or one of the impulse methods of `crate::impulse`. Written with parentheses
/// like the fluid methods: `Complementarity()`, `Eti()`, `Eti(divider: 50)`,
/// `SequentialImpulse()`, `SimultaneousImpulse()`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum ContactResolverDef {
    /// Normal and friction rows in the PGS/APGD solve with everything else.
    Complementarity {},
    /// Energy-tracking impulses (002, 000).
    Eti {
        /// Divider λ of the base increment (002 eq. 62). Default 30.
        #[serde(default = "eti_divider")]
        divider: std::num::NonZeroU32,
        /// Repetitions of the three stages before the restitution is forced to 0. Default 300.
        #[serde(default = "eti_repeats")]
        max_repeats: std::num::NonZeroU32,
        /// Compression stops when no contact approaches faster than this fraction of the
        /// largest approach of the step (0 to 1). Default 1e-6.
        #[serde(default = "eti_tolerance")]
        tolerance: super::values::UnitInterval,
    },
    /// Sequential impulses, most negative contact first (002 Appendix A).
    SequentialImpulse {
        /// Impulses per step before giving up (reported). Default 10 000.
        #[serde(default = "sqm_iterations")]
        max_iterations: std::num::NonZeroU32,
    },
    /// Simultaneous impulses, one linear system (002 Appendix B; frictionless).
    SimultaneousImpulse {},
}

impl Default for ContactResolverDef {
    fn default() -> Self {
        ContactResolverDef::Complementarity {}
    }
}

fn eti_divider() -> std::num::NonZeroU32 {
    std::num::NonZeroU32::new(crate::impulse::eti::EtiParams::default().divider).unwrap()
}
fn eti_repeats() -> std::num::NonZeroU32 {
    std::num::NonZeroU32::new(crate::impulse::eti::EtiParams::default().max_repeats).unwrap()
}
fn eti_tolerance() -> super::values::UnitInterval {
    super::values::UnitInterval(crate::impulse::eti::EtiParams::default().tolerance)
}
fn sqm_iterations() -> std::num::NonZeroU32 {
    std::num::NonZeroU32::new(crate::impulse::sqm::SqmParams::default().max_iterations).unwrap()
}

/// The largest ETI divider: λ = 10⁵ already asks 10⁵ increments of every contact (002: no gain
/// above 50); larger values only run into the increment cap.
pub const MAX_DIVIDER: u32 = 100_000;

impl ContactResolverDef {
    /// Whether this is `Complementarity()` (contacts as rows of the solve).
    pub fn is_complementarity(&self) -> bool {
        matches!(self, ContactResolverDef::Complementarity {})
    }

    /// Values the parser accepts but a run cannot honour: the field and what is wrong.
    pub fn check(&self) -> Option<(&'static str, String)> {
        let cap = crate::impulse::eti::MAX_INCREMENTS as u32;
        match *self {
            ContactResolverDef::Eti { divider, .. } if divider.get() > MAX_DIVIDER => Some((
                "divider",
                format!("expected at most {MAX_DIVIDER}, got {divider}"),
            )),
            ContactResolverDef::Eti { tolerance, .. } if tolerance.check().is_err() => {
                Some(("tolerance", tolerance.check().unwrap_err()))
            }
            ContactResolverDef::SequentialImpulse { max_iterations }
                if max_iterations.get() > cap =>
            {
                Some((
                    "max_iterations",
                    format!("expected at most {cap} impulses per step, got {max_iterations}"),
                ))
            }
            _ => None,
        }
    }

    /// The core's resolver, restitution below `threshold` (m/s) off.
    pub fn to_core(
        &self,
        threshold: crate::math::Real,
    ) -> Box<dyn crate::impulse::ContactResolver> {
        use crate::impulse::eti::{Eti, EtiParams};
        use crate::impulse::smm::{SimultaneousImpulse, SmmParams};
        use crate::impulse::sqm::{SequentialImpulse, SqmParams};
        match *self {
            ContactResolverDef::Complementarity {} => Box::new(crate::impulse::Complementarity),
            ContactResolverDef::Eti {
                divider,
                max_repeats,
                tolerance,
            } => Box::new(Eti::new(EtiParams {
                divider: divider.get(),
                max_repeats: max_repeats.get(),
                restitution_threshold: threshold,
                tolerance: tolerance.0,
            })),
            ContactResolverDef::SequentialImpulse { max_iterations } => {
                Box::new(SequentialImpulse(SqmParams {
                    max_iterations: max_iterations.get(),
                    restitution_threshold: threshold,
                }))
            }
            ContactResolverDef::SimultaneousImpulse {} => {
                Box::new(SimultaneousImpulse(SmmParams {
                    restitution_threshold: threshold,
                }))
            }
        }
    }
}

impl super::schema::ContactSettings {
    /// The core's contact parameters.
    pub fn params(&self) -> crate::constraints::contact::ContactParams {
        crate::constraints::contact::ContactParams {
            prediction: self.prediction.0,
            baumgarte: self.baumgarte.0,
            slop: self.slop.0,
            restitution_threshold: self.restitution_threshold.0,
        }
    }

    /// The core's contact resolver.
    pub fn resolver(&self) -> Box<dyn crate::impulse::ContactResolver> {
        self.resolver.to_core(self.restitution_threshold.0)
    }
}
