//! The RON schema of a model's fluid (`fluid: (..)`): the fluid's fields, its regions and
//! their initial velocity fields. Part of [`super::schema`].

use super::shape_defs::ShapeDef;
use super::values::{NonNegative, Positive, Rotation, UnitInterval, V3};
use crate::fluid::FluidMethodChoice;
use crate::fluid::FluidParams;
use serde::{Deserialize, Serialize};

/// An SPH fluid: particles on a lattice filling the regions; every static body becomes a wall
/// of boundary particles.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidDef {
    /// How the fluid is advanced: `Constraint()` (default: density rows in the one solve with
    /// the bodies), `Constraint(density: Kcsph)`, or `Wcsph()` / `Wcsph(sound_speed: 30, ..)`
    /// (weakly compressible SPH, explicit sub-steps, partitioned coupling to the bodies).
    #[serde(default)]
    pub method: FluidMethodChoice,
    /// `Wendland` (default), `CubicSpline` or `Mps`.
    #[serde(default)]
    pub kernel: crate::fluid::kernel::KernelKind,
    /// Particle spacing l (m): the nearest-neighbour distance of the initial lattice.
    pub spacing: Positive,
    /// Initial lattice: `Square` (default; cubic in 3D) or `Hexagonal` (FCC in 3D).
    /// `Hexagonal` is experimental: in the 2D tank it is worse than `Square` so far (see the
    /// book's fluid chapter).
    #[serde(default)]
    pub lattice: crate::fluid::sampling::LatticeKind,
    /// Random offset of each initial particle position, per coordinate at most this many
    /// spacings either way (deterministic: the same model gives the same offsets), up to 0.25;
    /// the regions' velocity fields are evaluated at the offset positions. Default 0 (the
    /// lattice as it is). A lattice is an equilibrium that a flow which only
    /// strains it (the circular patch) may never break: a small offset lets the particles
    /// re-arrange (the book's ISPH page).
    #[serde(default)]
    pub jitter: NonNegative,
    /// Smoothing length over spacing, h / l. Default 1.3 (support 2.6 l); for `Mps` it is
    /// r_e / l, default 2.1; with `method: Wcsph(..)` DualSPHysics' √d (√2 in 2D, √3 in 3D).
    #[serde(default)]
    pub smoothing: Option<Positive>,
    /// Rest density ρ0 (kg/m³). Default 1000.
    #[serde(default = "water")]
    pub density: Positive,
    /// Kinematic viscosity ν (m²/s). Default 1e-6 (water).
    #[serde(default = "water_nu")]
    pub viscosity: NonNegative,
    /// Density-error feedback β in [0, 1] per step (001's α). Default 0.05.
    #[serde(default = "beta")]
    pub stabilisation: UnitInterval,
    /// Row compliance ε ≥ 0 (regularisation). Default 0.
    #[serde(default)]
    pub compliance: NonNegative,
    /// Velocity filter rate γ (1/s): each step removes the fraction `1 − exp(−γ dt)` of the
    /// kernel-scale velocity noise — the part of a particle's velocity that the best local
    /// linear field does not explain — before the solve. Default 100 (0.095 per step at
    /// dt = 1 ms; it keeps a fluid at rest at rest, see the book's fluid chapter). 0 turns it
    /// off.
    #[serde(default = "filter")]
    pub velocity_filter: NonNegative,
    /// Particle shifting coefficient A (Fickian shifting, Lind et al. 2012, Skillen et al.
    /// 2013): particles move down the kernel-density gradient by `A h u_max dt |∇C|` per step,
    /// tangentially near a free surface, never into a wall. Default 1 for the constraint method
    /// and ISPH, 2 for WCSPH (Skillen et al.'s recommended value; the book's WCSPH page); 0
    /// turns it off. All three fluid methods apply it (WCSPH and ISPH after every sub-step). It
    /// lets the particles re-arrange where the flow stretches the lattice (the circular patch),
    /// which the velocity filter alone would hold back.
    #[serde(default)]
    pub shifting: Option<NonNegative>,
    /// Optional artificial viscosity (Monaghan 1992) for approaching particle pairs, e.g.
    /// `artificial_viscosity: (alpha: 0.01, sound_speed: 20)`. Default none.
    #[serde(default)]
    pub artificial_viscosity: Option<ArtificialViscosityDef>,
    /// Where the fluid starts.
    pub regions: Vec<RegionDef>,
    /// Damping zones that absorb waves ([`crate::fluid::damping`]), e.g. `damping: [(start:
    /// (5, 0), end: (6, 0))]`: the velocity relaxes towards rest from `start` to `end` (m) at
    /// up to `rate` (1/s). Default none.
    #[serde(default)]
    pub damping: Vec<DampingZoneDef>,
}

/// A damping zone of the fluid.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DampingZoneDef {
    /// Where the relaxation starts (m).
    pub start: V3,
    /// Where it reaches its full rate (m); beyond it the rate stays full.
    pub end: V3,
    /// Full relaxation rate σ (1/s). Default [`DampingZoneDef::DEFAULT_RATE`].
    #[serde(default = "damping_rate")]
    pub rate: Positive,
}

impl DampingZoneDef {
    /// Default full rate σ (1/s).
    pub const DEFAULT_RATE: f64 = 10.0;
}

fn damping_rate() -> Positive {
    Positive(DampingZoneDef::DEFAULT_RATE)
}

impl FluidDef {
    /// The fluid's kernel: its kind with the model's smoothing length, or the method's default
    /// ratio to the spacing ([`FluidMethodChoice::default_smoothing`]).
    pub fn kernel(&self, planar: bool) -> crate::fluid::kernel::Kernel {
        let dim = if planar { 2 } else { 3 };
        let ratio = match &self.smoothing {
            Some(s) => s.0,
            None => self.method.default_smoothing(self.kernel, dim),
        };
        crate::fluid::kernel::Kernel::new(self.kernel, ratio * self.spacing.0, dim)
    }

    /// The shifting coefficient A: the model's, or its fluid method's default (WCSPH's
    /// [`crate::fluid::wcsph::WcsphParams::DEFAULT_SHIFTING`], else
    /// [`FluidParams::DEFAULT_SHIFTING`]).
    pub fn shifting_coefficient(&self) -> f64 {
        match self.shifting {
            Some(a) => a.0,
            None => self.method.default_shifting(),
        }
    }
}

// Defaults are the core's (`FluidParams`): this layer only maps RON onto it.
fn filter() -> NonNegative {
    NonNegative(FluidParams::DEFAULT_VELOCITY_FILTER)
}
fn water() -> Positive {
    Positive(FluidParams::DEFAULT_DENSITY)
}
fn water_nu() -> NonNegative {
    NonNegative(FluidParams::DEFAULT_VISCOSITY)
}
fn beta() -> UnitInterval {
    UnitInterval(FluidParams::DEFAULT_BETA)
}

/// A region filled with fluid particles.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RegionDef {
    /// The box `[min, max]` (m).
    Box {
        /// Lower corner (m).
        min: V3,
        /// Upper corner (m).
        max: V3,
        /// Initial velocity.
        #[serde(default)]
        velocity: VelocityDef,
    },
    /// A ball (planar: disc) of `radius` (m) around `center`.
    Ball {
        /// Centre (m).
        center: V3,
        /// Radius (m).
        radius: Positive,
        /// Initial velocity.
        #[serde(default)]
        velocity: VelocityDef,
    },
    /// Any body shape except a triangle mesh (ball, cuboid, capsule, cylinder, convex hull,
    /// compound), placed like a body: the lattice points inside it.
    Shape {
        /// The shape, in its own frame (the same syntax as a body's `shape`).
        shape: ShapeDef,
        /// Position of the shape's frame (m).
        #[serde(default)]
        position: V3,
        /// Orientation of the shape's frame (planar models: about z only).
        #[serde(default)]
        rotation: Rotation,
        /// Initial velocity.
        #[serde(default)]
        velocity: VelocityDef,
    },
}

impl RegionDef {
    /// The region's initial velocity field.
    pub fn velocity(&self) -> &VelocityDef {
        match self {
            RegionDef::Box { velocity, .. }
            | RegionDef::Ball { velocity, .. }
            | RegionDef::Shape { velocity, .. } => velocity,
        }
    }
}

/// Monaghan's artificial viscosity: `α` and the sound speed it is scaled with.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtificialViscosityDef {
    /// α (dimensionless, typically 0.01–0.1).
    pub alpha: NonNegative,
    /// Sound speed c (m/s): what a weakly compressible model of the flow would use, ~10× the
    /// largest flow speed.
    pub sound_speed: Positive,
}

/// An initial velocity field.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum VelocityDef {
    /// The same velocity everywhere (m/s).
    Uniform(V3),
    /// `u = G x`, G given by its rows (1/s); e.g. `Linear((1, 0, 0), (0, -1, 0), (0, 0, 0))`
    /// is the circular patch's `u = (x, −y)`.
    Linear(V3, V3, V3),
}

impl Default for VelocityDef {
    fn default() -> Self {
        VelocityDef::Uniform(V3::default())
    }
}

impl VelocityDef {
    /// The velocity (m/s) at `p` (m).
    pub fn at(&self, p: &crate::math::Vec3) -> crate::math::Vec3 {
        match self {
            VelocityDef::Uniform(u) => u.vec(),
            VelocityDef::Linear(a, b, c) => {
                crate::math::Vec3::new(a.vec().dot(p), b.vec().dot(p), c.vec().dot(p))
            }
        }
    }
}
