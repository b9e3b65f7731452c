//! The RON model schema: what a model file may contain.
//!
//! Every struct and every enum with struct variants denies unknown fields, so a misspelt field is
//! an error with its location, never silently ignored. Fields with defaults may be left out.
//! Units: SI (m, kg, s, N); angles in degrees where written by the user.
//!
//! A minimal model:
//!
//! ```ron
//! Model(
//!     time: (dt: 0.001, end: 1.0),
//!     bodies: [
//!         (name: "ground", kind: Static, shape: Cuboid(half_extents: (5, 5, 0.5)), position: (0, 0, -0.5)),
//!         (name: "ball", shape: Ball(radius: 0.1), position: (0, 0, 1)),
//!     ],
//! )
//! ```

pub use super::methods::FluidMethodDef;
pub use super::probes::ProbeDef;
pub use super::shape_defs::{PartDef, ShapeDef};
use super::values::{NonNegative, Positive, Rotation, UnitInterval, V3};
use crate::constraints::contact::ContactParams;
use crate::fluid::FluidParams;
use crate::solver::SolverChoice;
use serde::{Deserialize, Serialize};

/// A whole model file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Free text shown by `check` and in the run summary.
    #[serde(default)]
    pub description: String,
    /// Dimension, gravity, planar thickness.
    #[serde(default)]
    pub scene: Scene,
    /// Time step and end time.
    pub time: Time,
    /// Constraint solver and its parameters; default APGD (default parameters) for models with
    /// a fluid, PGS otherwise. See [`Model::solver_choice`].
    #[serde(default)]
    pub solver: Option<SolverChoice>,
    /// Contact handling parameters.
    #[serde(default)]
    pub contact: ContactSettings,
    /// Named materials; bodies refer to them by name. `"default"` always exists
    /// (density 1000 kg/m³, friction 0.5, restitution 0) unless redefined here.
    #[serde(default)]
    pub materials: Vec<MaterialDef>,
    /// The rigid bodies.
    #[serde(default)]
    pub bodies: Vec<BodyDef>,
    /// Joints between bodies.
    #[serde(default)]
    pub joints: Vec<JointDef>,
    /// Pairs of collision groups (bodies' `groups`) whose bodies never collide, e.g.
    /// `[("chain", "chain")]`.
    #[serde(default)]
    pub no_contact: Vec<(String, String)>,
    /// What is written and how often.
    #[serde(default)]
    pub output: Output,
    /// Measured series written to `probes.csv` and plotted.
    #[serde(default)]
    pub probes: Vec<ProbeDef>,
    /// Bounds checked after every step; a run that leaves them stops with exit code 3.
    #[serde(default)]
    pub guard: crate::runner::Bounds,
    /// An SPH fluid solved together with the bodies (optional).
    #[serde(default)]
    pub fluid: Option<FluidDef>,
}

impl Model {
    /// The model's collision group names, in order of first mention by a body (validation
    /// allows at most 32).
    pub fn collision_groups(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for g in self.bodies.iter().flat_map(|b| &b.groups) {
            if !names.contains(&g.as_str()) {
                names.push(g);
            }
        }
        names
    }

    /// The solver the model runs with: the one it names, else APGD for a model with a fluid
    /// (its density rows are solved in parallel) and PGS for bodies alone.
    pub fn solver_choice(&self) -> SolverChoice {
        match (&self.solver, &self.fluid) {
            (Some(s), _) => s.clone(),
            (None, Some(_)) => SolverChoice::Apgd(Default::default()),
            (None, None) => SolverChoice::default(),
        }
    }
}

/// An SPH fluid: particles on a lattice filling the regions; every static body becomes a wall
/// of boundary particles.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FluidDef {
    /// How the fluid is advanced: `Constraint()` (default: density rows in the one solve with
    /// the bodies), `Constraint(density: Kcsph)`, or `Wcsph()` / `Wcsph(sound_speed: 30, ..)`
    /// (weakly compressible SPH, explicit sub-steps, partitioned coupling to the bodies).
    #[serde(default)]
    pub method: FluidMethodDef,
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
}

impl FluidDef {
    /// The fluid's kernel: its kind with the model's smoothing length, or the method's default
    /// ratio to the spacing ([`FluidMethodDef::default_smoothing`]).
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

/// Spatial dimension of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Dimension {
    /// Planar: bodies move in the x–y plane and rotate about z; shapes are extruded along z.
    Two,
    /// Full 3D.
    #[default]
    Three,
}

/// Scene-wide settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// `Two` (planar) or `Three` (default).
    #[serde(default)]
    pub dimension: Dimension,
    /// Gravitational acceleration (m/s²). Default `(0, 0, -9.81)` in 3D; planar models should
    /// use `(0, -9.81)`.
    #[serde(default = "default_gravity")]
    pub gravity: V3,
    /// Planar models: extrusion depth along z of every shape (m). Default 1.
    #[serde(default = "one")]
    pub thickness: Positive,
    /// Periodic axes of the fluid, e.g. `[X(0.0, 0.1)]`: the fluid wraps over `[lo, hi)` (m)
    /// on each ([`crate::fluid::periodic`]). Default none.
    #[serde(default)]
    pub periodic: Vec<super::periodic::PeriodicAxis>,
}

fn default_gravity() -> V3 {
    V3(0.0, 0.0, -9.81)
}
fn one() -> Positive {
    Positive(1.0)
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            dimension: Dimension::Three,
            gravity: default_gravity(),
            thickness: one(),
            periodic: Vec::new(),
        }
    }
}

/// Time stepping.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Time {
    /// Time step h (s).
    pub dt: Positive,
    /// End time (s); `run --end` overrides it.
    pub end: Positive,
}

/// Contact parameters shared by all contacts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSettings {
    /// Distance (m) below which a gap is already turned into a (speculative) contact row. Default
    /// 0.01 m. Larger values catch fast approaches; each such row only forbids closing the gap
    /// by more than its width in one step.
    #[serde(default = "default_prediction")]
    pub prediction: NonNegative,
    /// Baumgarte factor β in [0, 1]: the fraction of a penetration removed per step
    /// (001 eq. 64 uses α for it). Default 0.2.
    #[serde(default = "default_baumgarte")]
    pub baumgarte: UnitInterval,
    /// Penetration (m) tolerated without correction, to avoid jitter. Default 1e-5 m.
    #[serde(default = "default_slop")]
    pub slop: NonNegative,
    /// Normal approach speed (m/s) below which restitution is not applied (resting contacts).
    /// Default 0.05 m/s.
    #[serde(default = "default_rest_threshold")]
    pub restitution_threshold: NonNegative,
    /// `Complementarity()` (default), `Eti(divider, max_repeats)`, `SequentialImpulse(..)` or
    /// `SimultaneousImpulse()`.
    #[serde(default)]
    pub resolver: super::methods::ContactResolverDef,
}

// Defaults are the core's (`ContactParams`): this layer only maps RON onto it.
fn default_prediction() -> NonNegative {
    NonNegative(ContactParams::default().prediction)
}
fn default_baumgarte() -> UnitInterval {
    UnitInterval(ContactParams::default().baumgarte)
}
fn default_slop() -> NonNegative {
    NonNegative(ContactParams::default().slop)
}
fn default_rest_threshold() -> NonNegative {
    NonNegative(ContactParams::default().restitution_threshold)
}

impl Default for ContactSettings {
    fn default() -> Self {
        ContactSettings {
            prediction: default_prediction(),
            baumgarte: default_baumgarte(),
            slop: default_slop(),
            restitution_threshold: default_rest_threshold(),
            resolver: Default::default(),
        }
    }
}

/// A named material.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialDef {
    /// The name bodies use.
    pub name: String,
    /// Density (kg/m³).
    pub density: Positive,
    /// Coulomb friction coefficient (≥ 0). Pairs combine as the geometric mean.
    #[serde(default = "half")]
    pub friction: NonNegative,
    /// Coefficient of restitution in [0, 1]. Pairs combine as the maximum.
    #[serde(default)]
    pub restitution: UnitInterval,
}

fn half() -> NonNegative {
    NonNegative(0.5)
}

impl Default for UnitInterval {
    fn default() -> Self {
        UnitInterval(0.0)
    }
}

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum BodyKind {
    /// Never moves; no degrees of freedom.
    Static,
    /// Moves with prescribed velocities, unaffected by forces.
    Kinematic,
    /// Moves under forces and constraints (default).
    #[default]
    Dynamic,
}

/// A rigid body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDef {
    /// Unique name (joints and probes refer to it).
    pub name: String,
    /// `Static`, `Kinematic` or `Dynamic` (default).
    #[serde(default)]
    pub kind: BodyKind,
    /// Collision and mass shape, in the body frame.
    pub shape: ShapeDef,
    /// Position of the body frame origin (m).
    #[serde(default)]
    pub position: V3,
    /// Orientation of the body frame.
    #[serde(default)]
    pub rotation: Rotation,
    /// Initial (or, for kinematic bodies, prescribed) linear velocity of the centre of mass (m/s).
    #[serde(default)]
    pub velocity: V3,
    /// Initial (or prescribed) angular velocity in the world frame (rad/s).
    #[serde(default)]
    pub angular_velocity: V3,
    /// Material name (default `"default"`).
    #[serde(default = "default_material")]
    pub material: String,
    /// Mass (kg) overriding the material density; the inertia scales with it.
    #[serde(default)]
    pub mass: Option<Positive>,
    /// Constant external force on the centre of mass, world frame (N).
    #[serde(default)]
    pub force: V3,
    /// Constant external torque, world frame (N·m).
    #[serde(default)]
    pub torque: V3,
    /// Prescribed motion of a `Kinematic` body: `Sine(displacement: (0.1, 0), frequency: 0.75)`
    /// or `Table([(t: 0), (t: 1, displacement: (0.2, 0))])`, relative to `position` and
    /// `rotation` (see [`super::motion::MotionDef`]).
    #[serde(default)]
    pub motion: Option<super::motion::MotionDef>,
    /// Collision groups the body belongs to (see the model's `no_contact`).
    #[serde(default)]
    pub groups: Vec<String>,
    /// Copies of this body on a lattice, named `name.0`, `name.1`, … (see
    /// [`super::arrays::ArrayDef`]); the body itself is then only their template.
    #[serde(default)]
    pub array: Option<super::arrays::ArrayDef>,
}

fn default_material() -> String {
    "default".to_string()
}

/// A joint between two bodies.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDef {
    /// Unique name (probes refer to it).
    pub name: String,
    /// The joint type.
    pub kind: JointKindDef,
    /// First body.
    pub body1: String,
    /// Second body.
    pub body2: String,
    /// Joint point in world coordinates at the start (m).
    pub anchor: V3,
    /// Optional compliance of the constrained directions: the joint becomes a stiff
    /// spring-damper solved in the same solve (SPOOK-style regularisation).
    #[serde(default)]
    pub compliance: Option<Compliance>,
    /// Whether the two joined bodies still collide with each other. Default false.
    #[serde(default)]
    pub collide: bool,
}

/// Joint types.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum JointKindDef {
    /// Removes all relative motion.
    Fixed,
    /// Keeps the anchor points together; free rotation.
    Spherical,
    /// A hinge about `axis` (world frame at the start), with an optional rotational spring.
    Revolute {
        /// Hinge axis (world frame at the start).
        axis: V3,
        /// Optional torsional spring-damper about the hinge axis, rest angle = initial angle.
        #[serde(default)]
        spring: Option<Spring>,
    },
    /// A slider along `axis` (world frame at the start): no relative rotation.
    Prismatic {
        /// Slide axis (world frame at the start).
        axis: V3,
    },
}

impl JointKindDef {
    /// The hinge or slide axis of a revolute or prismatic joint.
    pub fn axis(&self) -> Option<&V3> {
        match self {
            JointKindDef::Revolute { axis, .. } | JointKindDef::Prismatic { axis } => Some(axis),
            _ => None,
        }
    }
}

/// Stiffness and damping of the constrained directions of a compliant joint.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compliance {
    /// Translational stiffness (N/m).
    pub linear_stiffness: Positive,
    /// Rotational stiffness (N·m/rad).
    pub angular_stiffness: Positive,
    /// Translational damping (N·s/m).
    #[serde(default)]
    pub linear_damping: NonNegative,
    /// Rotational damping (N·m·s/rad).
    #[serde(default)]
    pub angular_damping: NonNegative,
}

/// A torsional spring-damper.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Stiffness (N·m/rad).
    pub stiffness: Positive,
    /// Damping (N·m·s/rad).
    #[serde(default)]
    pub damping: NonNegative,
}

impl Default for NonNegative {
    fn default() -> Self {
        NonNegative(0.0)
    }
}

/// Output settings.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Interval between written frames and CSV rows (s). Default 0.01 s.
    #[serde(default = "default_every")]
    pub every: Positive,
    /// Write VTK frames (`frames/*.vtu` and `bodies.pvd`). Default true.
    #[serde(default = "yes")]
    pub vtk: bool,
    /// Write a PNG plot of the probes. Default true.
    #[serde(default = "yes")]
    pub plot: bool,
}

fn default_every() -> Positive {
    Positive(0.01)
}
fn yes() -> bool {
    true
}

impl Default for Output {
    fn default() -> Self {
        Output {
            every: default_every(),
            vtk: true,
            plot: true,
        }
    }
}
