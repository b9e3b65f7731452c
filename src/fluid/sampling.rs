//! Particle sampling on one global lattice of spacing l: fluid regions, and boundary particles
//! filling the inside of static bodies to a given depth. Fluid and walls use the same lattice,
//! so a wall continues the fluid's lattice across the interface.
//!
//! Lattices (nearest-neighbour distance l): square (2D) / cubic (3D), and hexagonal (2D:
//! rows `√3/2 l` apart, every other row shifted by `l/2`) / face-centred cubic (3D: cubic cell
//! `√2 l`, four points per cell). The hexagonal packing is the stable one for particles that only
//! push each other: a particle rests in the hollow between two below it, where on a square
//! lattice it balances on top of one.

use super::kernel::Kernel;
use crate::math::{from_pv, to_pv, Iso, Real, Vec3};
use parry3d_f64::shape::SharedShape;
use serde::{Deserialize, Serialize};

/// The lattice kind, by name in RON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum LatticeKind {
    /// Square (2D) / simple cubic (3D).
    #[default]
    Square,
    /// Hexagonal (2D) / face-centred cubic (3D).
    Hexagonal,
}

/// A lattice anchored at `origin`.
#[derive(Debug, Clone, Copy)]
pub struct Lattice {
    /// Kind.
    pub kind: LatticeKind,
    /// Nearest-neighbour distance l (m).
    pub l: Real,
    /// A lattice point (m).
    pub origin: Vec3,
    /// Planar: the z = 0 layer only.
    pub planar: bool,
}

impl Lattice {
    /// Calls `f` with every lattice point in the closed box `[lo, hi]`.
    pub fn for_each_in(&self, lo: Vec3, hi: Vec3, mut f: impl FnMut(Vec3)) {
        let l = self.l;
        // Cell vectors and basis of the conventional cell.
        let (cell, basis): (Vec3, &[Vec3]) = match (self.kind, self.planar) {
            (LatticeKind::Square, _) => (Vec3::repeat(l), &[Vec3::new(0.0, 0.0, 0.0)]),
            (LatticeKind::Hexagonal, true) => (
                Vec3::new(l, 3f64.sqrt() * l, l),
                &[Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.5, 0.5, 0.0)],
            ),
            (LatticeKind::Hexagonal, false) => (
                Vec3::repeat(2f64.sqrt() * l),
                &[
                    Vec3::new(0.0, 0.0, 0.0),
                    Vec3::new(0.5, 0.5, 0.0),
                    Vec3::new(0.5, 0.0, 0.5),
                    Vec3::new(0.0, 0.5, 0.5),
                ],
            ),
        };
        let range = |a: usize| {
            let a0 = ((lo[a] - self.origin[a]) / cell[a]).floor() as i64 - 1;
            let a1 = ((hi[a] - self.origin[a]) / cell[a]).ceil() as i64 + 1;
            a0..=a1
        };
        let zr = if self.planar { 0..=0 } else { range(2) };
        let tol = 1e-9 * l;
        for k in zr {
            for j in range(1) {
                for i in range(0) {
                    for b in basis {
                        let mut p = self.origin
                            + Vec3::new(
                                (i as Real + b.x) * cell.x,
                                (j as Real + b.y) * cell.y,
                                (k as Real + b.z) * cell.z,
                            );
                        if self.planar {
                            p.z = 0.0;
                        }
                        if (0..3).all(|a| {
                            (self.planar && a == 2) || (p[a] >= lo[a] - tol && p[a] <= hi[a] + tol)
                        }) {
                            f(p);
                        }
                    }
                }
            }
        }
    }

    /// How many lattice points [`Lattice::for_each_in`] visits for the box `[lo, hi]`: an upper
    /// bound of the points it yields, computed without visiting them (infinite for a box that
    /// is not finite). Used to refuse a model before sampling would exhaust memory or time.
    pub fn visits(&self, lo: Vec3, hi: Vec3) -> Real {
        let l = self.l;
        let (cell, nbasis) = match (self.kind, self.planar) {
            (LatticeKind::Square, _) => (Vec3::repeat(l), 1.0),
            (LatticeKind::Hexagonal, true) => (Vec3::new(l, 3f64.sqrt() * l, l), 2.0),
            (LatticeKind::Hexagonal, false) => (Vec3::repeat(2f64.sqrt() * l), 4.0),
        };
        let axes = if self.planar { 2 } else { 3 };
        let mut n = nbasis;
        for a in 0..axes {
            let a0 = ((lo[a] - self.origin[a]) / cell[a]).floor() - 1.0;
            let a1 = ((hi[a] - self.origin[a]) / cell[a]).ceil() + 1.0;
            let k = (a1 - a0 + 1.0).max(0.0);
            n *= if k.is_finite() { k } else { Real::INFINITY };
        }
        if n.is_nan() {
            Real::INFINITY
        } else {
            n
        }
    }

    /// The lattice offsets (anchored at the origin) within distance `r` (m), the origin
    /// included: for lattice sums.
    pub fn offsets_within(kind: LatticeKind, l: Real, planar: bool, r: Real) -> Vec<Vec3> {
        let lat = Lattice {
            kind,
            l,
            origin: Vec3::zeros(),
            planar,
        };
        let mut out = Vec::new();
        lat.for_each_in(Vec3::repeat(-r), Vec3::repeat(r), |p| {
            if p.norm() <= r {
                out.push(p)
            }
        });
        out
    }
}

/// Lattice points inside the box `[min, max]` (m), at least half a spacing from its faces
/// along the lattice (the box is the fluid's volume, the points its particle centres).
pub fn fill_box(lattice: &Lattice, min: Vec3, max: Vec3, out: &mut Vec<Vec3>) {
    let h = 0.5 * lattice.l * 0.999;
    let (lo, hi) = (min + Vec3::repeat(h), max - Vec3::repeat(h));
    let mut lo2 = lo;
    let mut hi2 = hi;
    if lattice.kind == LatticeKind::Hexagonal && lattice.planar {
        // Rows are √3/2 l apart: keep √3/4 l from the horizontal faces; along a row, the
        // rows alternate l/4 and 3l/4 from a vertical face (anchored so by the model).
        let hy = 3f64.sqrt() / 4.0 * lattice.l * 0.999;
        lo2.y = min.y + hy;
        hi2.y = max.y - hy;
        lo2.x = min.x + 0.25 * lattice.l * 0.999;
        hi2.x = max.x - 0.25 * lattice.l * 0.999;
    }
    lattice.for_each_in(lo2, hi2, |p| out.push(p));
}

/// The least distance (m) at which a fluid lattice of `kind` and spacing `l` (m) meets a body's
/// face. A fixed wall's particles continue the lattice: half a spacing on the square and cubic
/// lattices and the 3D face-centred one; on the planar hexagonal lattice a quarter spacing,
/// where its rows meet a vertical face (alternately l/4 and 3l/4; the floor √3/4 l). A `moving`
/// body's particles lie on a lattice of their own, half a spacing inside its faces, which does
/// not continue the fluid's: half a spacing on every lattice (a quarter put fluid particles
/// 0.70–0.75 l from the heave-decay hull's, 12.8 % compressed from the start; 2026-12-01).
pub fn face_offset(kind: LatticeKind, planar: bool, l: Real, moving: bool) -> Real {
    if kind == LatticeKind::Hexagonal && planar && !moving {
        0.25 * l
    } else {
        0.5 * l
    }
}

/// The least distance (m) a fluid particle keeps from a body's surface when the fluid is
/// filled ([`face_offset`], a `moving` body or a fixed wall) less a thousandth of a spacing,
/// so that the lattice points at exactly that offset are kept.
pub fn wall_clearance(lattice: &Lattice, moving: bool) -> Real {
    face_offset(lattice.kind, lattice.planar, lattice.l, moving) - 0.001 * lattice.l
}

/// Lattice points inside the ball (disc in planar models) of `radius` around `center`.
pub fn fill_ball(lattice: &Lattice, center: Vec3, radius: Real, out: &mut Vec<Vec3>) {
    lattice.for_each_in(
        center - Vec3::repeat(radius),
        center + Vec3::repeat(radius),
        |p| {
            if (p - center).norm() < radius {
                out.push(p);
            }
        },
    );
}

/// Lattice points inside a shape at `pose` (world coordinates).
pub fn fill_shape(lattice: &Lattice, shape: &SharedShape, pose: &Iso, out: &mut Vec<Vec3>) {
    let aabb = shape.compute_aabb(&crate::math::to_pose(pose));
    lattice.for_each_in(from_pv(aabb.mins), from_pv(aabb.maxs), |w| {
        let p = pose
            .inverse_transform_point(&nalgebra::Point3::from(w))
            .coords;
        if shape.contains_local_point(to_pv(&p)) {
            out.push(w);
        }
    });
}

/// Boundary particles of a body: lattice points inside its shape at most `depth` (m) below
/// its surface, in world coordinates, each with the vector from it to the nearest point of the
/// surface (m, world frame; its length is the particle's depth, its direction the wall normal
/// into the fluid).
pub fn fill_shape_layer(
    lattice: &Lattice,
    shape: &SharedShape,
    pose: &Iso,
    depth: Real,
    out: &mut Vec<(Vec3, Vec3)>,
) {
    let aabb = shape.compute_aabb(&crate::math::to_pose(pose));
    lattice.for_each_in(from_pv(aabb.mins), from_pv(aabb.maxs), |w| {
        let p = pose
            .inverse_transform_point(&nalgebra::Point3::from(w))
            .coords;
        let lp = to_pv(&p);
        if shape.contains_local_point(lp) {
            let proj = shape.project_local_point(lp, false);
            let to_surface = from_pv(proj.point) - p;
            if to_surface.norm() <= depth {
                out.push((w, pose.rotation * to_surface));
            }
        }
    });
}

/// The offsets of the ideal lattice within the kernel support, the origin included.
fn lattice_offsets(kernel: &Kernel, l: Real, kind: LatticeKind) -> impl Iterator<Item = Vec3> {
    Lattice::offsets_within(kind, l, kernel.dim == 2, kernel.support()).into_iter()
}

/// The gradient moment `κ = Σ_k V (−r W'(r)) e_x²` over the ideal lattice (self excluded):
/// the discrete `Σ_j V ∇_i W_ij ⊗ (x_j − x_i)` is `κ I` on the lattice (1 for the exact
/// integral). A pressure gradient G gives the row force `−V κ G`, so hydrostatic balance holds
/// with `G = ρ0 g / κ`: the physical pressure is `κ λ / (h V t)`. This is 001's gradient
/// correction constant C (eq. 6) in the SPH setting.
pub fn lattice_gradient_moment(kernel: &Kernel, l: Real, kind: LatticeKind, volume: Real) -> Real {
    lattice_offsets(kernel, l, kind)
        .filter(|d| d.norm() > 0.0)
        .map(|d| {
            let r = d.norm();
            volume * (-r * kernel.dw(r)) * (d.x / r).powi(2)
        })
        .sum()
}

/// The Laplacian moment `μ = Σ_k V (−r W'(r)) e_x² / (r² + η²)` over the ideal lattice (self
/// excluded), `η² = 0.01 h²`: the laminar viscous term of Morris et al. 1997
/// ([`super::morris_viscosity`]) applied to `u = x²` there gives `2 μ ν` where `ν ∇²u = 2ν`
/// (μ = 1 for the exact integral without η). For Wendland C2 in 2D on a square lattice
/// μ = 0.953 at `h = 1.3 l` and 0.974 at `h = √2 l`: uncorrected, the fluid is 5 % (3 %) less
/// viscous than the model says. The viscous terms of every method use `ν / μ`
/// ([`super::Fluid::laplacian`]), so the operator is exact for quadratic velocity fields on the
/// initial lattice (the same normalisation as κ for the pressure gradient).
pub fn lattice_laplacian_moment(kernel: &Kernel, l: Real, kind: LatticeKind, volume: Real) -> Real {
    let eta2 = 0.01 * kernel.h * kernel.h;
    lattice_offsets(kernel, l, kind)
        .filter(|d| d.norm() > 0.0)
        .map(|d| {
            let r = d.norm();
            volume * (-r * kernel.dw(r)) * d.x * d.x / (r * r + eta2)
        })
        .sum()
}

/// The depth `d_s` (m) of the surface pressure that holds the top row of the ideal lattice at
/// rest under the symmetric pressure gradient `(1/κ) Σ_j V (p_i + p_j) ∇_iW_ij` (ISPH's
/// default form; 000 eq. 12) when the rows below carry the hydrostatic pressure: `p_s = ρ0 |g|
/// d_s` on the top row and `p_s + ρ0 |g| z_j` at depth `z_j` below it. Of the top particle's
/// neighbours only those at or below its row exist, so the balance of the vertical force with
/// gravity reads `2 p_s G + ρ0 |g| m = ρ0 |g| κ`, with `G = Σ V (−W'(r)) z_j / r` and `m = Σ V
/// (−W'(r)) z_j² / r` over the neighbours below (`κ = Σ V (−W'(r)) z_j² / r` over the whole
/// lattice, the gradient moment along `up`: [`lattice_gradient_moment`]'s on these isotropic
/// lattices, which the unit test checks):
///
/// `d_s = (κ − m) / (2 G)`
///
/// (the volume V cancels). On the square lattice with Wendland C2 it is 0.500 l at h = l,
/// 0.538 l at 1.3 l, 0.644 l at 1.7 l and 0.733 l at 2.0 l: the hydrostatic pressure half a
/// spacing deep (where a top-row particle's centre lies) holds the top row only at h ≈ l, and a
/// wider kernel needs more, since the particles below reach further. `up` is the unit vector
/// against gravity.
pub fn lattice_surface_depth(kernel: &Kernel, l: Real, kind: LatticeKind, up: &Vec3) -> Real {
    let (mut kappa, mut below, mut moment) = (0.0, 0.0, 0.0);
    for d in lattice_offsets(kernel, l, kind).filter(|d| d.norm() > 0.0) {
        let r = d.norm();
        let a = -kernel.dw(r) / r;
        let z = -d.dot(up);
        kappa += a * z * z;
        if z > 1e-9 * l {
            below += a * z;
            moment += a * z * z;
        }
    }
    (kappa - moment) / (2.0 * below)
}

/// `n0 = Σ_k W(|k| l)` over the ideal lattice (self included), 1/m^d.
pub fn lattice_sum(kernel: &Kernel, l: Real, kind: LatticeKind) -> Real {
    lattice_offsets(kernel, l, kind)
        .map(|d| kernel.w(d.norm()))
        .sum()
}

/// Offsets each position by a deterministic pseudo-random amount, uniform in
/// `[−amplitude, amplitude]` (m) per coordinate (not along z when `planar`), from a hash of the
/// particle's index (the same positions give the same offsets, on any thread count), and wraps
/// it on the periodic axes.
pub fn jitter(
    pos: &mut [Vec3],
    amplitude: Real,
    planar: bool,
    periodic: &super::periodic::Periodic,
) {
    if amplitude == 0.0 {
        return;
    }
    // SplitMix64 of the index ([`crate::math::mix64`]): a uniform number in [−1, 1).
    let uniform = |k: u64| {
        let z = crate::math::mix64(k.wrapping_add(crate::math::SPLITMIX_GAMMA));
        2.0 * crate::math::unit_uniform(z) - 1.0
    };
    let axes = if planar { 2 } else { 3 };
    for (i, p) in pos.iter_mut().enumerate() {
        for a in 0..axes {
            p[a] += amplitude * uniform(3 * i as u64 + a as u64);
        }
        periodic.wrap(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fluid::kernel::KernelKind;

    /// The upward acceleration (m/s² per m/s² of gravity) of the top particle of a half lattice
    /// under the symmetric gradient, summed pair by pair from its pressure `ps` (in units of
    /// ρ0 |g|, m) and the hydrostatic pressure of each neighbour at or below its row.
    fn top_row_lift(kernel: &Kernel, l: Real, kind: LatticeKind, up: &Vec3, ps: Real) -> Real {
        let v = 1.0 / lattice_sum(kernel, l, kind);
        let kappa = lattice_gradient_moment(kernel, l, kind, v);
        let planar = kernel.dim == 2;
        let mut lift = 0.0;
        for d in Lattice::offsets_within(kind, l, planar, kernel.support()) {
            let depth = -d.dot(up);
            let r = d.norm();
            if r == 0.0 || depth < -1e-9 * l {
                continue;
            }
            // ∇_i W_ij with x_i − x_j = −d; the force on i is −(V/ρ0) Σ (p_i + p_j) ∇_i W_ij / κ.
            let grad = -d * (kernel.dw(r) / r);
            lift -= v * (2.0 * ps + depth) * grad.dot(up) / kappa;
        }
        lift
    }

    /// The surface depth holds the top row: the pairs' lift equals gravity on square and
    /// hexagonal lattices in 2D and 3D at several widths, and half a spacing does so only near
    /// h = l.
    #[test]
    fn the_surface_depth_holds_the_top_row_against_gravity() {
        let l = 0.02;
        for dim in [2, 3] {
            let up = if dim == 2 { Vec3::y() } else { Vec3::z() };
            for kind in [LatticeKind::Square, LatticeKind::Hexagonal] {
                for ratio in [1.0, 1.3, 1.7, 2.0, 2.5] {
                    let k = Kernel::new(KernelKind::Wendland, ratio * l, dim);
                    let ds = lattice_surface_depth(&k, l, kind, &up);
                    let lift = top_row_lift(&k, l, kind, &up, ds);
                    assert!((lift - 1.0).abs() < 1e-9, "{dim}D {kind:?} {ratio}: {lift}");
                }
            }
        }
        let square = |ratio: Real| {
            let k = Kernel::new(KernelKind::Wendland, ratio * l, 2);
            lattice_surface_depth(&k, l, LatticeKind::Square, &Vec3::y()) / l
        };
        for (ratio, depth) in [(1.0, 0.500), (1.3, 0.538), (1.7, 0.644), (2.0, 0.733)] {
            assert!(
                (square(ratio) - depth).abs() < 5e-4,
                "{ratio}: {}",
                square(ratio)
            );
        }
        // Half a spacing leaves the top row at 2.0 l a third short of its support.
        let k = Kernel::new(KernelKind::Wendland, 2.0 * l, 2);
        let lift = top_row_lift(&k, l, LatticeKind::Square, &Vec3::y(), 0.5 * l);
        assert!(lift < 0.9, "{lift}");
    }
}
