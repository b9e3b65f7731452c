//! Building parry shapes from the model's shape definitions (the core never sees the file
//! format: it receives parry shapes).
//!
//! Planar models extrude every shape along z over the scene thickness: a ball becomes a disc (a
//! cylinder whose axis is z), a capsule a stadium prism, a convex hull of `(x, y)` points a
//! polygonal prism, a cuboid gets `hz = thickness / 2`.

use super::schema::{PartDef, ShapeDef};
use super::values::V3;
use crate::body::Dofs;
use crate::math::{to_pv, Iso, Quat, Real, Vec3};
use parry3d_f64::math::Vector;
use parry3d_f64::shape::SharedShape;
use std::f64::consts::FRAC_PI_2;

/// Why a shape could not be built; the message names what is wrong.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// The largest length (m) a shape may have in any size or coordinate: beyond it parry's
/// algorithms lose all precision (a compound part of half extent 1e200 made its EPA index out
/// of bounds), and no model of this product needs it.
pub const MAX_LENGTH: Real = 1e6;

/// The largest absolute size or coordinate in a shape definition (m).
pub(crate) fn largest_length(def: &ShapeDef) -> Real {
    let v = |p: &super::values::V3| p.0.abs().max(p.1.abs()).max(p.2.abs());
    match def {
        ShapeDef::Ball { radius } | ShapeDef::FacetedBall { radius, .. } => radius.0,
        ShapeDef::Cuboid { half_extents } => v(&half_extents.0),
        ShapeDef::Capsule {
            half_height,
            radius,
        }
        | ShapeDef::Cylinder {
            half_height,
            radius,
        } => half_height.0.max(radius.0),
        ShapeDef::ConvexHull { points } => points.iter().map(v).fold(0.0, Real::max),
        ShapeDef::TriMesh { vertices, .. } => vertices.iter().map(v).fold(0.0, Real::max),
        ShapeDef::Compound { parts } => parts
            .iter()
            .map(|p| largest_length(&p.shape) + v(&p.position))
            .fold(0.0, Real::max),
    }
}

/// Subdivisions of a `FacetedBall` at most.
pub const MAX_SUBDIVISIONS: u8 = 4;

/// The vertices of a unit icosphere: the icosahedron's 12, then the midpoints of every edge
/// pushed onto the sphere, `subdivisions` times.
pub fn icosphere(subdivisions: u8) -> Vec<Vec3> {
    let t = (1.0 + 5.0_f64.sqrt()) / 2.0;
    let mut v: Vec<Vec3> = [
        (-1.0, t, 0.0),
        (1.0, t, 0.0),
        (-1.0, -t, 0.0),
        (1.0, -t, 0.0),
        (0.0, -1.0, t),
        (0.0, 1.0, t),
        (0.0, -1.0, -t),
        (0.0, 1.0, -t),
        (t, 0.0, -1.0),
        (t, 0.0, 1.0),
        (-t, 0.0, -1.0),
        (-t, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    let mut faces: Vec<[usize; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut mid = std::collections::HashMap::new();
        let mut next = Vec::with_capacity(4 * faces.len());
        for f in &faces {
            let mut m = [0; 3];
            for e in 0..3 {
                let (a, b) = (f[e], f[(e + 1) % 3]);
                m[e] = *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    v.push((v[a] + v[b]).normalize());
                    v.len() - 1
                });
            }
            next.extend([
                [f[0], m[0], m[2]],
                [f[1], m[1], m[0]],
                [f[2], m[2], m[1]],
                m,
            ]);
        }
        faces = next;
    }
    v
}

/// Builds a parry shape and the pose of that shape in the body frame.
pub fn build_shape(
    def: &ShapeDef,
    dofs: Dofs,
    thickness: Real,
) -> Result<(SharedShape, Iso), ShapeError> {
    let size = largest_length(def);
    if size.is_nan() || size > MAX_LENGTH {
        return Err(ShapeError(format!(
            "a size or coordinate of {size:e} m; shapes must fit within {MAX_LENGTH:e} m"
        )));
    }
    let hz = thickness * 0.5;
    let planar = dofs == Dofs::Planar;
    let err = |m: &str| Err(ShapeError(m.to_string()));
    Ok(match def {
        ShapeDef::Ball { radius } => {
            if planar {
                // parry's cylinder axis is y; turn it onto z.
                let rot = Quat::from_axis_angle(&Vec3::x_axis(), FRAC_PI_2);
                (
                    SharedShape::cylinder(hz, radius.0),
                    Iso::from_parts(Vec3::zeros().into(), rot),
                )
            } else {
                (SharedShape::ball(radius.0), Iso::identity())
            }
        }
        ShapeDef::FacetedBall {
            radius,
            subdivisions,
        } => faceted_ball(radius.0, *subdivisions, planar)?,
        ShapeDef::Cuboid { half_extents } => {
            let h = half_extents.0;
            let z = if planar { hz } else { h.2 };
            if z <= 0.0 {
                return err(
                    "a cuboid in a 3D model needs three positive half extents (hx, hy, hz)",
                );
            }
            (SharedShape::cuboid(h.0, h.1, z), Iso::identity())
        }
        ShapeDef::Capsule {
            half_height,
            radius,
        } => capsule(half_height.0, radius.0, planar, hz)?,
        ShapeDef::Cylinder {
            half_height,
            radius,
        } => {
            if planar {
                return err(
                    "Cylinder is a 3D shape; in a planar model use Ball (a disc) or Cuboid",
                );
            }
            (
                SharedShape::cylinder(half_height.0, radius.0),
                Iso::identity(),
            )
        }
        ShapeDef::ConvexHull { points } => convex_hull(points, planar, hz)?,
        ShapeDef::TriMesh { vertices, indices } => trimesh(vertices, indices, planar)?,
        ShapeDef::Compound { parts } => compound(parts, dofs, thickness)?,
    })
}

/// A faceted ball of circumscribed `radius` (m), its icosphere split `subdivisions` times.
fn faceted_ball(
    radius: Real,
    subdivisions: u8,
    planar: bool,
) -> Result<(SharedShape, Iso), ShapeError> {
    let err = |m: &str| Err(ShapeError(m.to_string()));
    if planar {
        return err("FacetedBall is a 3D shape; in a planar model use Ball or ConvexHull");
    }
    if subdivisions > MAX_SUBDIVISIONS {
        return Err(ShapeError(format!(
            "{subdivisions} subdivisions; at most {MAX_SUBDIVISIONS} (2 562 vertices)"
        )));
    }
    let pts: Vec<_> = icosphere(subdivisions)
        .iter()
        .map(|p| to_pv(&(p * radius)))
        .collect();
    match SharedShape::convex_hull(&pts) {
        Some(s) => Ok((s, Iso::identity())),
        None => err("could not build the faceted ball"),
    }
}

/// A capsule along y (m), in a planar model a stadium prism of depth `2 hz` (m).
fn capsule(
    half_height: Real,
    radius: Real,
    planar: bool,
    hz: Real,
) -> Result<(SharedShape, Iso), ShapeError> {
    let err = |m: &str| Err(ShapeError(m.to_string()));
    if planar {
        let (hh, r) = (half_height, radius);
        let n = 24;
        let mut pts = Vec::with_capacity(4 * (n + 1));
        for (cy, start) in [(hh, 0.0), (-hh, std::f64::consts::PI)] {
            for i in 0..=n {
                let a = start + std::f64::consts::PI * i as Real / n as Real;
                let (x, y) = (r * a.cos(), cy + r * a.sin());
                pts.push(Vector::new(x, y, -hz));
                pts.push(Vector::new(x, y, hz));
            }
        }
        match SharedShape::convex_hull(&pts) {
            Some(s) => Ok((s, Iso::identity())),
            None => err("could not build the planar capsule"),
        }
    } else {
        Ok((SharedShape::capsule_y(half_height, radius), Iso::identity()))
    }
}

/// The convex hull of `points` (m), in a planar model a prism of depth `2 hz` (m).
fn convex_hull(points: &[V3], planar: bool, hz: Real) -> Result<(SharedShape, Iso), ShapeError> {
    let err = |m: &str| Err(ShapeError(m.to_string()));
    let mut pts = Vec::new();
    for p in points {
        if planar {
            pts.push(Vector::new(p.0, p.1, -hz));
            pts.push(Vector::new(p.0, p.1, hz));
        } else {
            pts.push(to_pv(&p.vec()));
        }
    }
    match SharedShape::convex_hull(&pts) {
        Some(s) if s.mass_properties(1.0).inv_mass.is_finite() && s.mass_properties(1.0).inv_mass > 0.0 => {
            Ok((s, Iso::identity()))
        }
        _ => err("the convex hull of these points has no volume (need at least 3 non-collinear points in 2D, 4 non-coplanar in 3D)"),
    }
}

/// A triangle mesh (3D only) of `vertices` (m) and `indices`.
fn trimesh(
    vertices: &[V3],
    indices: &[(u32, u32, u32)],
    planar: bool,
) -> Result<(SharedShape, Iso), ShapeError> {
    let err = |m: &str| Err(ShapeError(m.to_string()));
    if planar {
        return err("TriMesh is a 3D shape; in a planar model use ConvexHull or Compound");
    }
    let nv = vertices.len() as u32;
    if let Some(t) = indices.iter().find(|t| t.0 >= nv || t.1 >= nv || t.2 >= nv) {
        return Err(ShapeError(format!(
            "triangle ({}, {}, {}) refers to a vertex beyond the {} given",
            t.0, t.1, t.2, nv
        )));
    }
    let v = vertices.iter().map(|p| to_pv(&p.vec())).collect();
    let i = indices.iter().map(|t| [t.0, t.1, t.2]).collect();
    match SharedShape::trimesh(v, i) {
        Ok(s) => Ok((s, Iso::identity())),
        Err(e) => Err(ShapeError(format!("invalid triangle mesh: {e}"))),
    }
}

/// A compound of convex `parts` placed in the body frame.
fn compound(
    parts: &[PartDef],
    dofs: Dofs,
    thickness: Real,
) -> Result<(SharedShape, Iso), ShapeError> {
    let err = |m: &str| Err(ShapeError(m.to_string()));
    let planar = dofs == Dofs::Planar;
    if parts.is_empty() {
        return err("a compound needs at least one part");
    }
    let mut shapes = Vec::new();
    for part in parts {
        if matches!(
            part.shape,
            ShapeDef::Compound { .. } | ShapeDef::TriMesh { .. }
        ) {
            return err("compound parts must be convex shapes (no nested Compound or TriMesh)");
        }
        let (s, off) = build_shape(&part.shape, dofs, thickness)?;
        let Some(rot) = part.rotation.quat() else {
            return err("a compound part's rotation has a zero axis or quaternion");
        };
        let mut pos = part.position.vec();
        if planar {
            pos.z = 0.0;
        }
        let pose = Iso::from_parts(pos.into(), rot) * off;
        shapes.push((pose.into(), s));
    }
    Ok((SharedShape::compound(shapes), Iso::identity()))
}
