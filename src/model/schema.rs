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

pub use super::fluid_defs::{ArtificialViscosityDef, FluidDef, RegionDef, VelocityDef};
pub use super::probe_defs::ProbeDef;
pub use super::shape_defs::{PartDef, ShapeDef};
use super::values::{NonNegative, Positive, Rotation, UnitInterval, V3};
use crate::constraints::contact::ContactParams;
pub use crate::fluid::FluidMethodChoice;
use crate::solver::SolverChoice;
use crate::Real;
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
    /// Constraint solver and its parameters; default for models with a fluid PGS at 10 sweeps
    /// per step (stopping early at `3e-5 l / dt`), PGS otherwise. See
    /// [`Model::solver_choice`].
    #[serde(default)]
    pub solver: Option<SolverChoice>,
    /// Contact handling parameters and the contact resolver (the core's type, every field
    /// optional: [`ContactParams`]).
    #[serde(default)]
    pub contact: ContactParams,
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
    /// Flexible beams, each expanded into rigid elements joined by compliant hinges
    /// ([`super::beam_defs`]).
    #[serde(default)]
    pub beams: Vec<super::beam_defs::BeamDef>,
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

    /// The solver the model runs with: the one it names, else for a model with a fluid
    /// warm-started projected Gauss–Seidel at [`FLUID_SWEEPS`] sweeps per step, stopping
    /// earlier when a sweep changes no row by more than [`FLUID_RESIDUAL_PER_STEP`] spacings
    /// per step (`3e-5 l / dt` m/s, `dt` the world's step (s)), with the constraint method's
    /// density projection (on by default) taking out what the sweeps leave; and PGS with its
    /// own defaults for bodies alone.
    ///
    /// Chosen by measurement (issue 52; the book's performance chapter, 2026-11-30, each
    /// scene at its default step without `solver` or `dt`, two threads): the 20 000-particle
    /// dam break to 0.5 s, the sloshing tank to 8 s and the flume with a paddle and a floating
    /// box to 5 s took 31.4 / 5.3 / 13.0 s at 0.42 / 0.78 / 0.57 % largest compression with 10
    /// sweeps, 28.0 / 5.1 / 13.3 s at 0.55 / 1.01 / 0.78 % with 5, against 226 / 27.6 / 71.1 s
    /// for the former default (APGD to the same tolerance, at most 5000 iterations, 0.2 %)
    /// and 81.2 / 6.3 / 25.9 s for ISPH. What it gives up: the converged solve held water at
    /// rest in the hydrostatic tank for about a second (1.9e-3 m/s at 1 s, churning from
    /// 1.5 s on the square lattice under load, the fluid chapter's known limits); ten sweeps
    /// leave it moving at 8.3e-2 m/s at 0.5 s and 5.8e-2 m/s at 1 s. A model that must hold water
    /// still, or needs each step's pressure converged, names `Apgd(..)`.
    pub fn solver_choice(&self, dt: Real) -> SolverChoice {
        match (&self.solver, &self.fluid) {
            (Some(s), _) => s.clone(),
            (None, Some(f)) => SolverChoice::Pgs(crate::solver::PgsParams {
                tolerance: FLUID_RESIDUAL_PER_STEP * f.spacing.0 / dt,
                max_iterations: FLUID_SWEEPS,
                ..Default::default()
            }),
            (None, None) => SolverChoice::default(),
        }
    }
}

/// A fluid model's default solver tolerance, in fluid spacings per time step: a sweep that
/// changes no row's velocity by more than this fraction of a spacing per step ends the solve
/// ([`Model::solver_choice`]).
pub const FLUID_RESIDUAL_PER_STEP: f64 = 3e-5;

/// A fluid model's default number of Gauss–Seidel sweeps per step.
pub const FLUID_SWEEPS: usize = 10;

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
    /// Time step h (s). A fluid model may leave it out: it then gets half a spacing per step
    /// at the largest speed it can reach ([`crate::model::default_time_step`], said by
    /// `vcsim check`); a model without a fluid must give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt: Option<Positive>,
    /// End time (s); `run --end` overrides it.
    pub end: Positive,
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
    /// [`super::array_defs::ArrayDef`]); the body itself is then only their template.
    #[serde(default)]
    pub array: Option<super::array_defs::ArrayDef>,
}

impl BodyDef {
    /// The names this body's array gives its copies (empty without an array).
    pub fn copy_names(&self, planar: bool) -> Vec<String> {
        self.array
            .as_ref()
            .map(|a| a.copy_names(&self.name, planar))
            .unwrap_or_default()
    }
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
    /// Joints of one group written one after another are solved together exactly in each PGS
    /// sweep (a chain of strongly coupled joints, such as a beam's hinges, which sweep by
    /// sweep would need as many sweeps as links). Default none.
    #[serde(default)]
    pub group: Option<String>,
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
    /// A mooring line from the joint's `anchor` on `body1` to `anchor2` on `body2` (world
    /// points at the start, m) that carries tension only
    /// ([`crate::constraints::joint`]): slack while shorter than `rest_length`, then a spring
    /// of `stiffness` with `damping` along the line, e.g. `Line(anchor2: (2.5, 0.4),
    /// stiffness: 2000, damping: 20)`. Without `stiffness` the line is inextensible (a rope).
    /// The joined bodies still collide (`collide` does not apply).
    Line {
        /// The line's end on `body2` (world point at the start, m).
        anchor2: V3,
        /// Unstretched length (m). Default: the anchors' distance at the start.
        #[serde(default)]
        rest_length: Option<Positive>,
        /// Axial stiffness (N/m; per unit thickness in 2D, as forces are). Default none: an
        /// inextensible rope.
        #[serde(default)]
        stiffness: Option<Positive>,
        /// Axial damping while taut (N·s/m). Default 0.
        #[serde(default)]
        damping: NonNegative,
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
    /// Rotational stiffness (N·m/rad); needed by joints that constrain rotation (`Fixed`,
    /// `Revolute`, `Prismatic`), not by `Spherical`.
    #[serde(default)]
    pub angular_stiffness: Option<Positive>,
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
    /// Step the spring without numerical damping
    /// ([`crate::constraints::conservative_spring_row`]) instead of backward Euler (numerical
    /// damping ratio ≈ ωh/2). Default false.
    #[serde(default)]
    pub conservative: bool,
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
    /// When the run ends, draw every VTK frame as a PNG and an animated GIF into the run's
    /// `render/` folder (as `vcsim render RUN --gif`, particles coloured by speed). Needs
    /// `vtk: true`. Default false.
    #[serde(default)]
    pub animation: bool,
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
            animation: false,
        }
    }
}
