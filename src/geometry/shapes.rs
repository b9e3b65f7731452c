//! Triangle meshes of shapes, for output.

use crate::math::{from_pv, to_pv, Iso, Vec3};
use parry3d_f64::math::Vector;
use parry3d_f64::shape::{SharedShape, TypedShape};

/// A triangle mesh of the shape in its own frame (for VTK output): vertices (m) and triangles.
pub fn shape_mesh(shape: &SharedShape) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (v, i): (Vec<Vector>, Vec<[u32; 3]>) = match shape.as_typed_shape() {
        TypedShape::Ball(b) => b.to_trimesh(12, 8),
        TypedShape::Cuboid(c) => c.to_trimesh(),
        TypedShape::Capsule(c) => c.to_trimesh(12, 6),
        TypedShape::Cylinder(c) => c.to_trimesh(24),
        TypedShape::ConvexPolyhedron(c) => c.to_trimesh(),
        TypedShape::TriMesh(t) => (t.vertices().to_vec(), t.indices().to_vec()),
        TypedShape::Compound(c) => {
            let mut v = Vec::new();
            let mut i = Vec::new();
            for (pose, s) in c.shapes() {
                let (pv, pi) = shape_mesh(s);
                let iso = Iso::from(*pose);
                let base = v.len() as u32;
                v.extend(
                    pv.iter()
                        .map(|p| to_pv(&(iso * nalgebra::Point3::from(*p)).coords)),
                );
                i.extend(pi.iter().map(|t| [t[0] + base, t[1] + base, t[2] + base]));
            }
            (v, i)
        }
        _ => (Vec::new(), Vec::new()),
    };
    (v.into_iter().map(from_pv).collect(), i)
}
