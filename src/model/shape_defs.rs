//! The shapes a model file may give a body (`shape: ..`); [`super::shapes`] builds them.

use super::values::{Positive, PositiveV3, Rotation, V3};
use serde::{Deserialize, Serialize};

/// A collision and mass shape in the body frame.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ShapeDef {
    /// A sphere (planar: a disc extruded along z).
    Ball {
        /// Radius (m).
        radius: Positive,
    },
    /// A faceted sphere (3D only): an icosahedron whose vertices lie on the sphere of `radius`
    /// (m), its triangles split in four `subdivisions` times (0: 12 vertices, 20 faces; 1: 42,
    /// 80; 2: 162, 320; at most 4). The meshed spheres of 002's packing and repose tests:
    /// unlike a `Ball`, it cannot roll without lifting its centre over an edge.
    FacetedBall {
        /// Circumscribed radius (m).
        radius: Positive,
        /// Times each triangle is split in four. Default 0.
        #[serde(default)]
        subdivisions: u8,
    },
    /// A box given by half extents (m); planar models may give `(hx, hy)`.
    Cuboid {
        /// Half extents (m).
        half_extents: PositiveV3,
    },
    /// A capsule along the local y axis (planar: a stadium extruded along z).
    Capsule {
        /// Half length of the segment between the cap centres (m).
        half_height: Positive,
        /// Radius (m).
        radius: Positive,
    },
    /// A cylinder along the local y axis (3D only).
    Cylinder {
        /// Half length (m).
        half_height: Positive,
        /// Radius (m).
        radius: Positive,
    },
    /// The convex hull of points (m); planar models give `(x, y)` points of a polygon.
    ConvexHull {
        /// The points.
        points: Vec<V3>,
    },
    /// A triangle mesh (3D only, static bodies only).
    TriMesh {
        /// Vertices (m).
        vertices: Vec<V3>,
        /// Triangles as vertex indices, counter-clockwise seen from outside.
        indices: Vec<(u32, u32, u32)>,
    },
    /// Several shapes rigidly joined.
    Compound {
        /// The parts, each placed in the body frame.
        parts: Vec<PartDef>,
    },
}

/// A part of a compound shape.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartDef {
    /// The shape of the part (compounds may not nest).
    pub shape: ShapeDef,
    /// Position in the body frame (m).
    #[serde(default)]
    pub position: V3,
    /// Orientation in the body frame.
    #[serde(default)]
    pub rotation: Rotation,
}
