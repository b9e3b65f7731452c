//! The angle of repose of a pile of bodies on a plate: the fixed-base cone method (powder is
//! poured onto a plate of fixed diameter until the cone covers it; e.g. ISO 4324), measured as
//! in 002 §7.5 by a least-squares line through the highest point of each cell of a grid on the
//! floor, here cells of rings and sectors around the plate's centre (the cone is round).
//!
//! The plate is a body's collision shape; its top is the highest point of its bounding box and
//! its radius `R` the half of the smaller horizontal side of that box (3D, gravity along −z).
//! The pile is every dynamic body whose centre lies above that top and within `R` of the
//! plate's vertical axis. Rings are one mean grain diameter `d` wide; the height of a ring is
//! the highest top (centre height plus bounding radius, m) of a grain whose centre lies in it.
//! As 002 averages 8 strips, the plate is cut into [`SECTORS`] sectors around its axis; in each
//! the rings whose middle lies between `R/4` and `R` (the rounded apex left out) are fit by a
//! line `h = a − s r`, if at least three hold a grain. The angle is the mean of the sectors'
//! `atan s` (degrees), the spread half the difference between the largest and the smallest
//! (002's "absolute error"); both NaN when fewer than half the sectors could be fit.

use crate::math::{from_pv, to_pose, Real};
use crate::pipeline::World;

/// The bounding radius (m) of each body about its centre of mass: the largest reach of its
/// colliders' bounding spheres.
pub fn bounding_radii(world: &World) -> Vec<Real> {
    let mut r: Vec<Real> = vec![0.0; world.bodies.len()];
    for c in &world.geometry.colliders {
        let s = c.shape.compute_local_bounding_sphere();
        let centre = c.local * nalgebra::Point3::from(from_pv(s.center));
        let reach: Real = s.radius + centre.coords.norm();
        r[c.body] = r[c.body].max(reach);
    }
    r
}

/// Sectors the plate is divided into around its axis (002 uses 8 strips).
pub const SECTORS: usize = 8;

/// Angle of repose and its spread (degrees), grains on the plate, and pile height above the
/// plate (m).
pub fn measure(world: &World, plate: usize, radii: &[Real]) -> [Real; 4] {
    let (mut lo, mut hi) = ([Real::INFINITY; 3], [Real::NEG_INFINITY; 3]);
    for c in world.geometry.colliders.iter().filter(|c| c.body == plate) {
        let b = c
            .shape
            .compute_aabb(&to_pose(&(world.bodies[plate].pose * c.local)));
        let (mn, mx) = (from_pv(b.mins), from_pv(b.maxs));
        for k in 0..3 {
            lo[k] = lo[k].min(mn[k]);
            hi[k] = hi[k].max(mx[k]);
        }
    }
    let (cx, cy, top) = (0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), hi[2]);
    let big_r = 0.5 * (hi[0] - lo[0]).min(hi[1] - lo[1]);
    let pile: Vec<(Real, Real, Real, Real)> = world
        .bodies
        .iter()
        .enumerate()
        .filter(|(j, b)| *j != plate && b.is_dynamic())
        .filter_map(|(j, b)| {
            let x = b.com();
            let r = (x.x - cx).hypot(x.y - cy);
            let phi = (x.y - cy).atan2(x.x - cx);
            (x.z > top && r < big_r).then_some((r, phi, x.z - top + radii[j], radii[j]))
        })
        .collect();
    let n = pile.len();
    let height = pile.iter().map(|p| p.2).fold(0.0, Real::max);
    let nan = [Real::NAN, Real::NAN, n as Real, height];
    if n == 0 || big_r.is_nan() || big_r <= 0.0 {
        return nan;
    }
    let d = 2.0 * pile.iter().map(|p| p.3).sum::<Real>() / n as Real;
    let rings = ((big_r / d).ceil() as usize).clamp(1, 100_000);
    let mut top_of = vec![Real::NEG_INFINITY; SECTORS * rings];
    for &(r, phi, h, _) in &pile {
        let k = ((r / d) as usize).min(rings - 1);
        let s = ((phi / std::f64::consts::TAU + 0.5) * SECTORS as Real) as usize;
        let cell = &mut top_of[s.min(SECTORS - 1) * rings + k];
        *cell = cell.max(h);
    }
    let slopes: Vec<Real> = top_of
        .chunks(rings)
        .filter_map(|sector| {
            let pts: Vec<(Real, Real)> = sector
                .iter()
                .enumerate()
                .map(|(k, &h)| ((k as Real + 0.5) * d, h))
                .filter(|&(r, h)| h.is_finite() && r >= 0.25 * big_r && r <= big_r)
                .collect();
            (pts.len() >= 3).then(|| {
                let m = pts.len() as Real;
                let mr = pts.iter().map(|p| p.0).sum::<Real>() / m;
                let mh = pts.iter().map(|p| p.1).sum::<Real>() / m;
                let sxy: Real = pts.iter().map(|p| (p.0 - mr) * (p.1 - mh)).sum();
                let sxx: Real = pts.iter().map(|p| (p.0 - mr).powi(2)).sum();
                (-sxy / sxx).atan().to_degrees()
            })
        })
        .collect();
    if slopes.len() < SECTORS / 2 {
        return nan;
    }
    let mean = slopes.iter().sum::<Real>() / slopes.len() as Real;
    let (lo, hi) = slopes
        .iter()
        .fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    [mean, 0.5 * (hi - lo), n as Real, height]
}
