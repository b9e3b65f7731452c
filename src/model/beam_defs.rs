//! Flexible beams (003: Capasso et al. 2022, §2): a beam written once in a model,
//! `beams: [(name: "plate", root: (0, 0), direction: (0, 1), length: 0.09, thickness: 0.004,
//! youngs_modulus: 3.5e6, poisson_ratio: Some(0.5), material: "rubber", elements: 10)]`,
//! expanded into `elements` rigid bodies joined by compliant hinges before the world is built.
//!
//! **Discretisation** (003 eqs. 25–31). The beam of length L (m) becomes N rigid cuboid elements
//! of length Δs = L/N and the beam's thickness T and width W, joined at their shared sections by
//! revolute joints about the bending axis with torsional springs. Hinge i lumps the curvature
//! M/(EI) of the length Δs around it (eq. 27), so an interior hinge has `k = EI/Δs` (N·m/rad,
//! eq. 28); the clamp's hinge sees only the half element on the beam side (eq. 31: a trunk of
//! length Δs/2), so `k = 2EI/Δs`. With this lumping each element's slope is the continuum
//! slope at the element's midpoint (a midpoint rule), and the discrete beam converges to
//! Euler–Bernoulli as Δs²: under its own weight the tip deflection is +3.98 / +0.98 / +0.23 %
//! off at N = 5 / 10 / 20 (003's derived table; `tests/beams.rs` measures ours). A clamp made
//! rigid over the first element would keep an O(Δs) error (003 §2.4). `I = W T³/12` (m⁴);
//! a 2D beam's width is the scene's thickness, so everything is per that depth. E is the
//! Young's modulus (Pa), or the plate modulus E/(1 − ν²) when `poisson_ratio` is given (003
//! eq. 43). Only bending is modelled: the elements are rigid (no axial or shear strain); each
//! element's rotary inertia is that of its cuboid (Timoshenko's rotary-inertia term, small for
//! slender beams).
//!
//! **Damping.** `viscosity` η (Pa·s) is Kelvin–Voigt material damping, bending moment
//! `EIκ + ηIκ̇`: hinge damping `c = ηI/Δs` (twice at the clamp); mode n's damping ratio is
//! `η ω_n / (2E)`. `hinges: Conservative` (default) solves the springs with
//! [`crate::constraints::conservative_spring_row`], which adds no numerical damping at any time
//! step (its period error is `5 (ωh)²/24`); `hinges: Implicit` uses backward Euler
//! ([`crate::constraints::spring_row`]), which damps each mode by `ζ ≈ ωh/2` (the book's beam
//! page measures both).
//!
//! **Names.** Elements `name.0` (at the root) … `name.{N−1}` (at the tip), hinges `name.hinge0`
//! (root) … `name.hinge{N−1}`; a `Clamped` or `Pinned` beam gets a static support block
//! `name.support` (the cross-section, T deep, behind the root). Elements of one beam do not
//! collide with each other (collision group `beam:name`); they collide with other bodies and
//! carry boundary particles in a fluid like any body.
//!
//! **Initial state.** Straight along `direction`; `tip_velocity` (m/s) starts it moving along
//! the thickness direction in the shape of a clamped cantilever's first mode
//! (`kL = 1.8751`, 003 eqs. 37–38), each element with the velocity the hinge chain gives it.

use super::values::{Finite, NonNegative, Positive, V3};
use crate::math::{Quat, Real, Vec3};
use serde::{Deserialize, Serialize};

/// The most elements a beam may have (each is a body with its joint rows).
pub const MAX_ELEMENTS: u32 = 10_000;

/// A flexible beam (module docs).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeamDef {
    /// Unique name; its elements are `name.0` … (module docs).
    pub name: String,
    /// Centre of the root cross-section (m).
    pub root: V3,
    /// From the root towards the tip (any length). Default `(1, 0, 0)`.
    #[serde(default = "x_axis")]
    pub direction: V3,
    /// The axis the beam bends about (3D; any length, perpendicular to `direction`). Default
    /// `(0, 0, 1)`, the only one in 2D. The thickness lies along `bending_axis × direction`.
    #[serde(default = "z_axis")]
    pub bending_axis: V3,
    /// Length L (m).
    pub length: Positive,
    /// Thickness T (m), smaller than the length.
    pub thickness: Positive,
    /// Width W along the bending axis (m); 3D only (a 2D beam's width is the scene's thickness).
    #[serde(default)]
    pub width: Option<Positive>,
    /// Young's modulus E (Pa).
    pub youngs_modulus: Positive,
    /// Poisson's ratio ν in [0, 0.5]: when given, the plate modulus E/(1 − ν²) is used.
    #[serde(default)]
    pub poisson_ratio: Option<NonNegative>,
    /// Material name (its density, friction and restitution); default `"default"`.
    #[serde(default = "default_material")]
    pub material: String,
    /// Number of rigid elements N (1 to [`MAX_ELEMENTS`]).
    pub elements: u32,
    /// How the root is held. Default `Clamped`.
    #[serde(default)]
    pub support: Support,
    /// Kelvin–Voigt viscosity η (Pa·s). Default 0.
    #[serde(default)]
    pub viscosity: NonNegative,
    /// How the hinge springs are stepped. Default `Conservative`.
    #[serde(default)]
    pub hinges: HingeRule,
    /// Initial tip velocity along the thickness direction (m/s), first-mode shape. Default 0.
    #[serde(default)]
    pub tip_velocity: Finite,
}

/// How a beam's root is held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum Support {
    /// Clamped to a fixed support block (`name.support`): root hinge `k = 2EI/Δs`.
    #[default]
    Clamped,
    /// Pinned to a fixed support block: the root turns freely.
    Pinned,
    /// Clamped to the named body (static, kinematic or dynamic).
    ClampedTo(String),
    /// Pinned to the named body.
    PinnedTo(String),
    /// Not held: a free beam.
    Free,
}

impl Support {
    /// The body the root is joined to, if any: the named one or the beam's own support block.
    pub fn body(&self, beam: &str) -> Option<String> {
        match self {
            Support::Clamped | Support::Pinned => Some(format!("{beam}.support")),
            Support::ClampedTo(b) | Support::PinnedTo(b) => Some(b.clone()),
            Support::Free => None,
        }
    }

    /// Whether the root hinge has a spring.
    pub fn clamped(&self) -> bool {
        matches!(self, Support::Clamped | Support::ClampedTo(_))
    }

    /// Whether the beam brings its own support block.
    pub(crate) fn own_block(&self) -> bool {
        matches!(self, Support::Clamped | Support::Pinned)
    }
}

/// How hinge springs are stepped (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum HingeRule {
    /// No numerical damping (period error `5 (ωh)²/24`).
    #[default]
    Conservative,
    /// Backward Euler: numerical damping ratio `ζ ≈ ωh/2`.
    Implicit,
}

fn x_axis() -> V3 {
    V3(1.0, 0.0, 0.0)
}
fn z_axis() -> V3 {
    V3(0.0, 0.0, 1.0)
}
fn default_material() -> String {
    "default".to_string()
}

/// A beam's frame and section, from its definition in a model of the given planarity and
/// scene thickness (validated: the axes have directions).
#[derive(Debug, Clone, Copy)]
pub struct BeamFrame {
    /// Root point (m).
    pub root: Vec3,
    /// Unit direction root → tip.
    pub along: Vec3,
    /// Unit thickness direction, `axis × along`.
    pub across: Vec3,
    /// Unit bending axis.
    pub axis: Vec3,
    /// Element length Δs (m).
    pub ds: Real,
    /// Bending stiffness E I (N·m²).
    pub ei: Real,
    /// Viscous bending coefficient η I (N·m²·s).
    pub eta_i: Real,
    /// Width W (m).
    pub width: Real,
}

impl BeamFrame {
    /// The frame of `b` (module docs).
    pub fn of(b: &BeamDef, planar: bool, scene_thickness: Real) -> BeamFrame {
        let along = b.direction.vec().normalize();
        let axis = if planar {
            Vec3::z()
        } else {
            let a = b.bending_axis.vec();
            (a - along * along.dot(&a)).normalize()
        };
        let width = match (planar, b.width) {
            (false, Some(w)) => w.0,
            _ => scene_thickness,
        };
        let t = b.thickness.0;
        let i = width * t * t * t / 12.0;
        let nu = b.poisson_ratio.map_or(0.0, |n| n.0);
        BeamFrame {
            root: b.root.vec(),
            along,
            across: axis.cross(&along),
            axis,
            ds: b.length.0 / b.elements as Real,
            ei: b.youngs_modulus.0 / (1.0 - nu * nu) * i,
            eta_i: b.viscosity.0 * i,
            width,
        }
    }

    /// The orientation whose x, y, z axes are `along`, `across`, `axis`.
    pub fn rotation(&self) -> Quat {
        let m = nalgebra::Matrix3::from_columns(&[self.along, self.across, self.axis]);
        Quat::from_matrix(&m)
    }

    /// The point at distance `s` (m) from the root along the straight beam.
    pub fn point(&self, s: Real) -> Vec3 {
        self.root + self.along * s
    }
}
