//! The RON side of prescribed motion (`motion:` of a kinematic body; the core type is
//! [`crate::body::Motion`]); [`super::validate`] checks it.

use super::values::{Finite, Positive, V3};
use crate::body::Motion;
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

impl MotionDef {
    /// The core motion (rotations in rad).
    pub fn motion(&self) -> Motion {
        let rad = |v: &V3| v.vec() * std::f64::consts::PI / 180.0;
        match self {
            MotionDef::Sine {
                displacement,
                rotation,
                frequency,
                phase,
            } => Motion::Sine {
                translation: displacement.vec(),
                rotation: rad(rotation),
                frequency: frequency.0,
                phase: phase.0,
            },
            MotionDef::Table(rows) => Motion::Table(
                rows.iter()
                    .map(|r| (r.t.0, r.displacement.vec(), rad(&r.rotation)))
                    .collect(),
            ),
        }
    }
}
