//! The RON side of prescribed motion (`motion:` of a kinematic body; the core type is
//! [`crate::body::Motion`]); [`super::validate`] checks it.

use super::values::{Finite, NonNegative, Positive, V3};
use crate::body::wavemaker::{Paddle, Wave};
use crate::body::{Motion, Prescribed};
use crate::math::{Iso, Real, Vec3};
use serde::{Deserialize, Serialize};

/// The most rows a motion table may have.
pub const MAX_ROWS: usize = 1_000_000;

/// A prescribed motion of a kinematic body, relative to its `position` and `rotation`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MotionDef {
    /// `d(t) = displacement · sin(2π f t + phase)` and the rotation `rotation · sin(…)` about the
    /// body's origin, e.g. `Sine(displacement: (0.1, 0), frequency: 0.75)`.
    Sine {
        /// Displacement amplitude of the body origin (m).
        #[serde(default)]
        displacement: V3,
        /// Rotation amplitude as axis times angle (degrees; planar: `(0, 0, angle)`).
        #[serde(default)]
        rotation: V3,
        /// Frequency f (Hz).
        frequency: Positive,
        /// Phase φ (rad). Default 0.
        #[serde(default)]
        phase: Finite,
        /// The point the rotation turns about, from the body's `position` (m, world axes).
        /// Default (0, 0, 0): the body's origin.
        #[serde(default)]
        pivot: V3,
        /// The amplitudes rise from zero over this time (s) as `(1 − cos(π t/ramp))/2`. Default
        /// 0: no ramp.
        #[serde(default)]
        ramp: NonNegative,
    },
    /// A piston wavemaker: the body moves along `direction` with the stroke that makes a
    /// regular wave of `height` and `period` in water of `depth` by linear theory (Biésel's
    /// transfer function, [`crate::body::wavemaker`]), e.g. `Piston(height: 0.04, period: 1.2,
    /// depth: 0.5)`.
    Piston {
        /// Wave height H (m, crest to trough).
        height: Positive,
        /// Wave period T (s).
        period: Positive,
        /// Still water depth at the paddle (m).
        depth: Positive,
        /// Direction the paddle moves in (any length; normalised). Default (1, 0, 0).
        #[serde(default = "x_axis")]
        direction: V3,
        /// Ramp (s). Default two periods.
        #[serde(default)]
        ramp: Option<NonNegative>,
        /// Phase φ (rad): the displacement is `S/2 sin(2π t/T + φ)`. Default 0.
        #[serde(default)]
        phase: Finite,
    },
    /// A flap wavemaker: the body turns about a hinge at `hinge` (world point at the start,
    /// `hinge_height` above the bottom) about `axis`, with the stroke at the still water level
    /// that makes a regular wave of `height` and `period` in water of `depth`, e.g.
    /// `Flap(height: 0.04, period: 1.2, depth: 0.5, hinge: (0, 0, 0))`.
    Flap {
        /// Wave height H (m).
        height: Positive,
        /// Wave period T (s).
        period: Positive,
        /// Still water depth at the paddle (m).
        depth: Positive,
        /// The hinge (world point at the start, m).
        hinge: V3,
        /// Height of the hinge above the bottom (m), from 0 to below the still water level.
        /// Default 0.
        #[serde(default)]
        hinge_height: NonNegative,
        /// Hinge axis (any length; normalised; positive rotation by the right-hand rule).
        /// Default (0, 0, 1), the normal of a 2D model's plane; a 3D flap gives its own (the
        /// horizontal line of the hinge across the flume).
        #[serde(default = "z_axis")]
        axis: V3,
        /// Ramp (s). Default two periods.
        #[serde(default)]
        ramp: Option<NonNegative>,
        /// Phase φ (rad): the angle is `θa sin(2π t/T + φ)`. Default 0.
        #[serde(default)]
        phase: Finite,
    },
    /// Displacement and rotation interpolated linearly between rows, held before the first and
    /// after the last: `Table([(t: 0, displacement: (0, 0)), (t: 1, displacement: (0.2, 0))])`.
    Table(Vec<MotionRow>),
}

/// One row of a motion table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotionRow {
    /// Time (s).
    pub t: Finite,
    /// Displacement of the body origin (m).
    #[serde(default)]
    pub displacement: V3,
    /// Rotation as axis times angle (degrees).
    #[serde(default)]
    pub rotation: V3,
}

fn x_axis() -> V3 {
    V3(1.0, 0.0, 0.0)
}

fn z_axis() -> V3 {
    V3(0.0, 0.0, 1.0)
}

/// A wavemaker's default ramp, in periods.
pub const DEFAULT_RAMP_PERIODS: Real = 2.0;

/// What a wavemaker makes: the paddle, its wave, and the paddle's largest excursion at the
/// still water level (m, half the stroke).
#[derive(Debug, Clone, Copy)]
pub struct Wavemaker {
    /// The paddle.
    pub paddle: Paddle,
    /// The wave (number, length, stroke).
    pub wave: Wave,
    /// Half the stroke (m).
    pub excursion: Real,
    /// Flap: the angle amplitude (rad); piston: 0.
    pub angle: Real,
}

impl MotionDef {
    /// The wave a wavemaker makes under gravity `g` (m/s²); `None` for other motions.
    pub fn wavemaker(&self, g: Real) -> Option<Wavemaker> {
        match self {
            MotionDef::Piston {
                height,
                period,
                depth,
                ..
            } => {
                let wave = Wave::new(Paddle::Piston, height.0, period.0, depth.0, g);
                Some(Wavemaker {
                    paddle: Paddle::Piston,
                    wave,
                    excursion: 0.5 * wave.stroke,
                    angle: 0.0,
                })
            }
            MotionDef::Flap {
                height,
                period,
                depth,
                hinge_height,
                ..
            } => {
                let paddle = Paddle::Flap {
                    hinge_height: hinge_height.0,
                };
                let wave = Wave::new(paddle, height.0, period.0, depth.0, g);
                // The stroke is measured at the still water level, (d − l) above the hinge.
                let arm = depth.0 - hinge_height.0;
                Some(Wavemaker {
                    paddle,
                    wave,
                    excursion: 0.5 * wave.stroke,
                    angle: (0.5 * wave.stroke / arm).atan(),
                })
            }
            _ => None,
        }
    }

    /// The core motion (rotations in rad) of a body whose frame starts at `origin`, under
    /// gravity `g` (m/s², for wavemakers), with its ramp.
    pub fn prescribed(&self, origin: Iso, g: Real) -> Prescribed {
        let rad = |v: &V3| v.vec() * std::f64::consts::PI / 180.0;
        let unit = |v: &V3, or: Vec3| v.vec().try_normalize(1e-300).unwrap_or(or);
        let wm = self.wavemaker(g);
        let (motion, ramp) = match self {
            MotionDef::Sine {
                displacement,
                rotation,
                frequency,
                phase,
                pivot,
                ramp,
            } => (
                Motion::Sine {
                    translation: displacement.vec(),
                    rotation: rad(rotation),
                    frequency: frequency.0,
                    phase: phase.0,
                    pivot: pivot.vec(),
                },
                ramp.0,
            ),
            MotionDef::Piston {
                period,
                direction,
                ramp,
                phase,
                ..
            } => (
                Motion::Sine {
                    translation: unit(direction, Vec3::x()) * wm.map_or(0.0, |w| w.excursion),
                    rotation: Vec3::zeros(),
                    frequency: 1.0 / period.0,
                    phase: phase.0,
                    pivot: Vec3::zeros(),
                },
                ramp.map_or(DEFAULT_RAMP_PERIODS * period.0, |r| r.0),
            ),
            MotionDef::Flap {
                period,
                hinge,
                axis,
                ramp,
                phase,
                ..
            } => (
                Motion::Sine {
                    translation: Vec3::zeros(),
                    rotation: unit(axis, Vec3::z()) * wm.map_or(0.0, |w| w.angle),
                    frequency: 1.0 / period.0,
                    phase: phase.0,
                    pivot: hinge.vec() - origin.translation.vector,
                },
                ramp.map_or(DEFAULT_RAMP_PERIODS * period.0, |r| r.0),
            ),
            MotionDef::Table(rows) => (
                Motion::Table(
                    rows.iter()
                        .map(|r| (r.t.0, r.displacement.vec(), rad(&r.rotation)))
                        .collect(),
                ),
                0.0,
            ),
        };
        Prescribed {
            motion,
            origin,
            ramp,
        }
    }
}
