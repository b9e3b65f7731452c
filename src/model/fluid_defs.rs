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
    /// `Wendland` (C2, default), `WendlandC6` (the same support; lattices that hold under load,
    /// the book's fluid chapter), `CubicSpline` or `Mps`.
    #[serde(default)]
    pub kernel: crate::fluid::kernel::KernelKind,
    /// Particle spacing l (m): the nearest-neighbour distance of the initial lattice.
    pub spacing: Positive,
    /// Initial lattice: `Square` (default; cubic in 3D) or `Hexagonal` (FCC in 3D).
    /// `Hexagonal` is experimental: with KCSPH rows and a solve to a tolerance its 2D tank rests
    /// at the default smoothing; with the default rows its surface row slides (the book's
    /// fluid chapter).
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
    /// Constraint method: how fast the fluid may come up to a boundary particle that is not
    /// fully wetted (a wall above the waterline, a floating body's dry side). `Feedback`
    /// (default): at the density-error feedback's rate, as a fluid row — at `stabilisation: 0`
    /// not at all, so a hull sinking into the water pushes the surface beside it down.
    /// `Speculative`: until the boundary particle reaches the rest density within the step
    /// (the book's waves page measures both).
    #[serde(default)]
    pub dry_walls: DryWalls,
    /// Constraint method: whether fluid particles get contact rows against moving bodies'
    /// boundary particles (001 §4.2: the particles as spheres of diameter l, planes over a
    /// body's first layer; [`crate::constraints::particle_contact`]). Default `true`. With
    /// `false` only the density rows (the fluid's and the body's wall rows,
    /// [`crate::constraints::wall`]) keep the fluid out of a moving body (fixed walls keep
    /// their contact rows): on the heave-decay section driven at its natural frequency at
    /// 0.04 m the fluid's added mass falls from 81.6 to 64.8 kg/m against potential flow's
    /// 58.7, and its free decay's period at 0.02 m from 1.227 to 1.181 s against the measured
    /// 1.17 s (the book's waves page).
    #[serde(default = "contacts")]
    pub body_contacts: bool,
    /// How static walls meet the fluid: `Particles` (default: boundary particles on the
    /// fluid's lattice, filled to the kernel support below each static body's surface) or
    /// `Smooth` (the constraint method on the square lattice: each static, axis-aligned cuboid
    /// becomes the kernel sum of its particles spread evenly along its faces,
    /// [`crate::fluid::smooth_walls`] — free-slip and without the lattice's corrugation; other
    /// static shapes, and walls a `FluidForce` probe reads, keep their particles).
    #[serde(default)]
    pub walls: WallTreatment,
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

/// How fast fluid may approach a boundary particle below the rest density
/// ([`FluidDef::dry_walls`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DryWalls {
    /// At the density-error feedback's rate `β g / h` (g the particle's density deficit, h the
    /// step): the fluid rows' rule.
    #[default]
    Feedback,
    /// Until it reaches the rest density within the step, `g / h`: the linearised condition
    /// `ρ_b(t + h) ≤ ρ0`, as a speculative contact closes its whole gap.
    Speculative,
}

/// How static walls meet the fluid ([`FluidDef::walls`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WallTreatment {
    /// Boundary particles on the fluid's lattice.
    #[default]
    Particles,
    /// Axis-aligned static cuboids as smooth walls ([`crate::fluid::smooth_walls`]).
    Smooth,
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

    /// Monaghan's artificial viscosity as `(α, c)` (dimensionless, m/s); `(0, 0)` when off.
    pub fn artificial_viscosity_pair(&self) -> (f64, f64) {
        self.artificial_viscosity
            .as_ref()
            .map_or((0.0, 0.0), |a| (a.alpha.0, a.sound_speed.0))
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
fn contacts() -> bool {
    FluidParams::DEFAULT_BODY_CONTACTS
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
    /// A linear standing gravity wave at the instant its surface is flat and its particles
    /// fastest (Dean & Dalrymple 1991, §4.9: the velocity potential
    /// `φ = a ω cosh(k z) / (k sinh(k d)) cos(k x) cos(ω t)`): `u = a ω / sinh(k d) ·
    /// (−cosh(k z) sin(k x) x̂ + sinh(k z) cos(k x) ẑ)`, so that the surface rises as
    /// `η = a cos(k x) sin(ω t)`, with `k = 2π / wavelength`, `ω² = g k tanh(k d)`, x measured
    /// from `origin` along the scene's x axis (made horizontal) and z up (against gravity) from
    /// `origin`, the floor under the first crest. A closed tank of length L between walls at
    /// x = 0 and x = L holds the n-th mode at `wavelength: 2L/n`. E.g. `StandingWave(amplitude:
    /// 0.02, wavelength: 2.0, depth: 0.5, origin: (0, 0))`. The model needs gravity (not along
    /// x), and the amplitude must be below the depth.
    StandingWave {
        /// Surface amplitude a (m).
        amplitude: NonNegative,
        /// Wavelength 2π/k (m).
        wavelength: Positive,
        /// Still-water depth d (m) over the floor at `origin`.
        depth: Positive,
        /// A point on the floor under a crest (m). Default the origin.
        #[serde(default)]
        origin: V3,
    },
}

impl Default for VelocityDef {
    fn default() -> Self {
        VelocityDef::Uniform(V3::default())
    }
}

impl VelocityDef {
    /// The velocity (m/s) at `p` (m) under `gravity` (m/s²; only a standing wave uses it, and
    /// it is zero without gravity).
    pub fn at(&self, p: &crate::math::Vec3, gravity: &crate::math::Vec3) -> crate::math::Vec3 {
        use crate::math::Vec3;
        match self {
            VelocityDef::Uniform(u) => u.vec(),
            VelocityDef::Linear(a, b, c) => {
                Vec3::new(a.vec().dot(p), b.vec().dot(p), c.vec().dot(p))
            }
            VelocityDef::StandingWave {
                amplitude,
                wavelength,
                depth,
                origin,
            } => {
                let g = gravity.norm();
                let Some(up) = (-gravity).try_normalize(1e-300) else {
                    return Vec3::zeros();
                };
                let Some(along) = (Vec3::x() - up * up.x).try_normalize(1e-9) else {
                    return Vec3::zeros();
                };
                let k = 2.0 * std::f64::consts::PI / wavelength.0;
                let kd = k * depth.0;
                let omega = (g * k * kd.tanh()).sqrt();
                let r = p - origin.vec();
                // Linear theory holds between the floor and the still surface: a point outside
                // takes the value at the nearer of them (bounded by the crest's speed).
                let (x, z) = (r.dot(&along), r.dot(&up).clamp(0.0, depth.0));
                // cosh(kz)/sinh(kd) and sinh(kz)/sinh(kd) without overflow for large kd.
                let den = -(-2.0 * kd).exp_m1();
                let (a, b) = ((k * (z - depth.0)).exp(), (-k * (z + depth.0)).exp());
                let s = amplitude.0 * omega;
                along * (-s * (a + b) / den * (k * x).sin())
                    + up * (s * (a - b) / den * (k * x).cos())
            }
        }
    }

    /// The fastest speed (m/s) this field reaches within `reach` (m) of the origin under
    /// gravity `g` (m/s², its magnitude): |u| for a uniform field, ‖G‖ · reach for a linear
    /// one, `a ω coth(k d)` (at the crest of the still surface) for a standing wave.
    pub fn largest_speed(
        &self,
        reach: crate::math::Real,
        g: crate::math::Real,
    ) -> crate::math::Real {
        match self {
            VelocityDef::Uniform(u) => u.vec().norm(),
            VelocityDef::Linear(a, b, c) => {
                (a.vec().norm_squared() + b.vec().norm_squared() + c.vec().norm_squared()).sqrt()
                    * reach
            }
            VelocityDef::StandingWave {
                amplitude,
                wavelength,
                depth,
                ..
            } => {
                let k = 2.0 * std::f64::consts::PI / wavelength.0;
                let kd = k * depth.0;
                amplitude.0 * (g * k * kd.tanh()).sqrt() / kd.tanh()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    fn wave() -> VelocityDef {
        VelocityDef::StandingWave {
            amplitude: NonNegative(0.02),
            wavelength: Positive(2.0),
            depth: Positive(0.5),
            origin: V3(0.0, 0.0, 0.0),
        }
    }

    #[test]
    fn a_standing_wave_is_linear_theorys_field() {
        let (g, a, k, d) = (Vec3::new(0.0, -9.81, 0.0), 0.02, std::f64::consts::PI, 0.5);
        let omega = (9.81 * k * (k * d).tanh()).sqrt();
        let w = wave();
        let u = |x: f64, y: f64| w.at(&Vec3::new(x, y, 0.0), &g);
        // The surface rises at a ω cos kx; the walls of a tank one half wavelength long and
        // the floor let nothing through.
        for x in [0.0, 0.3, 0.5, 0.77, 1.0] {
            let v = u(x, d).y;
            assert!(
                (v - a * omega * (k * x).cos()).abs() < 1e-12,
                "x = {x}: {v}"
            );
            assert!(u(x, 0.0).y.abs() < 1e-15);
        }
        for y in [0.0, 0.2, 0.5] {
            assert!(u(0.0, y).x.abs() < 1e-15 && u(1.0, y).x.abs() < 1e-12);
        }
        // Divergence-free (central differences), and the kinetic energy per unit density
        // ½∫|u|² over the tank is the wave's energy g a² L / 4 (half of it, at this instant,
        // all kinetic).
        let e = 1e-6;
        let (n, mut ke) = (400, 0.0);
        for i in 0..n {
            for j in 0..n {
                let (x, y) = ((i as f64 + 0.5) / n as f64, (j as f64 + 0.5) / n as f64 * d);
                let div =
                    (u(x + e, y).x - u(x - e, y).x + u(x, y + e).y - u(x, y - e).y) / (2.0 * e);
                assert!(div.abs() < 1e-6, "div {div} at ({x}, {y})");
                ke += 0.5 * u(x, y).norm_squared() * (1.0 / n as f64) * (d / n as f64);
            }
        }
        let expected = 9.81 * a * a * 1.0 / 4.0;
        assert!((ke / expected - 1.0).abs() < 1e-4, "{ke} vs {expected}");
        assert!((w.largest_speed(0.0, 9.81) - a * omega / (k * d).tanh()).abs() < 1e-12);
    }

    #[test]
    fn a_standing_wave_stays_finite_anywhere_and_needs_gravity() {
        let w = wave();
        let g = Vec3::new(0.0, -9.81, 0.0);
        let crest = w.largest_speed(0.0, 9.81);
        // Above the still surface, below the floor, far away: bounded by the crest's speed.
        for p in [(0.3, 5.0), (0.3, -2.0), (1e6, 1e6), (-3.0, 0.25)] {
            let u = w.at(&Vec3::new(p.0, p.1, 0.0), &g);
            assert!(
                u.iter().all(|c| c.is_finite()) && u.norm() <= crest * (1.0 + 1e-12),
                "{p:?}: {u}"
            );
        }
        // A very short wave in deep water: no overflow.
        let short = VelocityDef::StandingWave {
            amplitude: NonNegative(0.01),
            wavelength: Positive(1e-3),
            depth: Positive(100.0),
            origin: V3(0.0, 0.0, 0.0),
        };
        let u = short.at(&Vec3::new(0.1, 50.0, 0.0), &g);
        assert!(u.iter().all(|c| c.is_finite()), "{u}");
        assert_eq!(
            w.at(&Vec3::new(0.3, 0.2, 0.0), &Vec3::zeros()),
            Vec3::zeros()
        );
    }
}
