//! Particle sampling on lattices of spacing l: fluid regions, and boundary particles filling
//! the inside of static bodies to a given depth.

use crate::math::{from_pv, to_pv, Iso, Real, Vec3};
use parry3d_f64::shape::SharedShape;

/// Lattice points `min + (i + ½) l` inside the box `[min, max]` (m); planar: the z = 0 layer.
pub fn fill_box(min: Vec3, max: Vec3, l: Real, planar: bool, out: &mut Vec<Vec3>) {
    let n = |a: usize| ((max[a] - min[a]) / l + 1e-9).floor().max(0.0) as usize;
    let nz = if planar { 1 } else { n(2) };
    for k in 0..nz {
        for j in 0..n(1) {
            for i in 0..n(0) {
                let z = if planar {
                    0.0
                } else {
                    min.z + (k as Real + 0.5) * l
                };
                out.push(Vec3::new(
                    min.x + (i as Real + 0.5) * l,
                    min.y + (j as Real + 0.5) * l,
                    z,
                ));
            }
        }
    }
}

/// Lattice points of spacing l inside the ball (disc in planar models) of `radius` around
/// `center`, the lattice centred on `center`.
pub fn fill_ball(center: Vec3, radius: Real, l: Real, planar: bool, out: &mut Vec<Vec3>) {
    let n = (radius / l).ceil() as i64 + 1;
    let zr = if planar { 0..=0 } else { -n..=n };
    for k in zr {
        for j in -n..=n {
            for i in -n..=n {
                let d = Vec3::new(i as Real, j as Real, k as Real) * l;
                if d.norm() < radius {
                    out.push(center + d);
                }
            }
        }
    }
}

/// Boundary particles of a body: lattice points of spacing l in the body's shape frame
/// (offset by ½ l from the shape's bounding box), inside the shape and at most `depth` (m)
/// below its surface, returned in world coordinates. Planar: the z = 0 layer.
pub fn fill_shape_layer(
    shape: &SharedShape,
    pose: &Iso,
    l: Real,
    depth: Real,
    planar: bool,
    out: &mut Vec<Vec3>,
) {
    let aabb = shape.compute_local_aabb();
    let (lo, hi) = (from_pv(aabb.mins), from_pv(aabb.maxs));
    let n = |a: usize| ((hi[a] - lo[a]) / l + 1e-9).floor().max(0.0) as usize;
    let nz = if planar { 1 } else { n(2) };
    for k in 0..nz {
        for j in 0..n(1) {
            for i in 0..n(0) {
                let mut p = lo + Vec3::new(i as Real + 0.5, j as Real + 0.5, k as Real + 0.5) * l;
                if planar {
                    // The planar layer is z = 0 in the world: take the local point that maps there.
                    let w = pose * nalgebra::Point3::from(Vec3::new(p.x, p.y, 0.0));
                    p = pose
                        .inverse_transform_point(&nalgebra::Point3::new(w.x, w.y, 0.0))
                        .coords;
                }
                let lp = to_pv(&p);
                if !shape.contains_local_point(lp) {
                    continue;
                }
                let proj = shape.project_local_point(lp, false);
                if (from_pv(proj.point) - p).norm() <= depth {
                    out.push((pose * nalgebra::Point3::from(p)).coords);
                }
            }
        }
    }
}
