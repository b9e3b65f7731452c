//! Body arrays: one body written once, copied onto a lattice (`array: (count: (11, 11, 6),
//! spacing: (0.052, 0.052, 0.052), radius: Some(0.27), random_rotation: true)`), for granular
//! models such as the angle of repose (hundreds of grains).
//!
//! The lattice is centred on the body's `position`: copy `(i, j, k)` sits at `position +
//! ((i − (nx−1)/2) sx, (j − (ny−1)/2) sy, (k − (nz−1)/2) sz)` (m), numbered with x fastest, then
//! y, then z, and named `name.0`, `name.1`, … (probes and joints may name them). `radius` keeps
//! only the points within that horizontal distance (m) of the body's position (3D: from the z
//! axis through it; 2D: |Δx|). With `random_rotation` each copy's orientation is the body's
//! `rotation` turned by a rotation drawn uniformly (Shoemake's method; 2D: an angle about z)
//! from a generator seeded by `seed` and the copy's number, so a model gives the same copies
//! on every machine.
//!
//! The definition (`ArrayDef`) and the copies' names; validation ([`super::validate`]) names
//! the template body's `array` field; [`super::expand::arrays`] makes the copies.

use super::values::{Positive, PositiveV3};
use crate::math::{Real, Vec3};
use serde::{Deserialize, Serialize};

/// Copies one array may make at most (each is a body with its contacts; beyond this a model
/// exhausts memory in the broad phase long before it runs).
pub const MAX_COPIES: u64 = 100_000;

/// A lattice of copies of a body (module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayDef {
    /// Lattice points along x, y and z (each ≥ 1; planar models: z = 1).
    pub count: (u32, u32, u32),
    /// Lattice spacing along x, y and z (m); planar models may give `(sx, sy)`.
    pub spacing: PositiveV3,
    /// Keep only points within this horizontal distance (m) of the body's position.
    #[serde(default)]
    pub radius: Option<Positive>,
    /// Turn each copy by a random rotation. Default false.
    #[serde(default)]
    pub random_rotation: bool,
    /// Seed of the random rotations. Default 1.
    #[serde(default = "one")]
    pub seed: u64,
}

fn one() -> u64 {
    1
}

/// The lattice offsets (m) of `a`'s copies from the template's position.
pub(super) fn offsets(a: &ArrayDef, planar: bool) -> impl Iterator<Item = Vec3> + '_ {
    let (n, s) = (a.count, a.spacing.0);
    let at = |i: u32, n: u32, s: Real| (i as Real - 0.5 * (n as Real - 1.0)) * s;
    (0..n.2).flat_map(move |k| {
        (0..n.1).flat_map(move |j| {
            (0..n.0).filter_map(move |i| {
                let d = Vec3::new(at(i, n.0, s.0), at(j, n.1, s.1), at(k, n.2, s.2));
                let r = if planar { d.x.abs() } else { d.xy().norm() };
                a.radius.is_none_or(|rad| r <= rad.0).then_some(d)
            })
        })
    })
}

impl ArrayDef {
    /// The names this array gives the copies of the body `name` (`name.0`, `name.1`, …).
    pub fn copy_names(&self, name: &str, planar: bool) -> Vec<String> {
        (0..offsets(self, planar).count())
            .map(|c| format!("{name}.{c}"))
            .collect()
    }
}
