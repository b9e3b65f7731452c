//! Measurements of the fluid: surge front, pressure at a point, smoothed pressure (001 eq. 42),
//! density error, energies, submerged fraction of a body, closest particle pair.

use crate::fluid::halo::owned_of;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};
use rayon::prelude::*;

impl Fluid {
    /// The smallest distance between two fluid particles that were neighbours at the last
    /// neighbour search, at their current positions (m); infinite without neighbours.
    pub fn min_pair_distance(&self) -> Real {
        if !self.has_neighbours() {
            return Real::INFINITY;
        }
        (0..self.len())
            .map(|i| {
                self.ff
                    .of(i)
                    .iter()
                    .map(|&j| {
                        let per = &self.params.periodic;
                        per.delta(&self.pos[i], &self.pos[j as usize]).norm()
                    })
                    .fold(Real::INFINITY, Real::min)
            })
            .fold(Real::INFINITY, Real::min)
    }

    /// Surge front: the largest `x · d` over the particle centres (m).
    pub fn front(&self, d: &Vec3) -> Real {
        self.pos
            .iter()
            .map(|x| x.dot(d))
            .fold(Real::NEG_INFINITY, Real::max)
    }

    /// Pressure at a point (Pa): the Shepard (kernel-normalised) mean of the particle
    /// pressures within the kernel support, 0 where no particle is that close.
    pub fn pressure_at(&self, p: &Vec3) -> Real {
        let (num, den) = self.pressure_sums(p, None);
        if den > 0.0 {
            num / den
        } else {
            0.0
        }
    }

    /// The sums of [`Fluid::pressure_at`]: `(Σ W_j p_j, Σ W_j)` over the particles within the
    /// kernel support of `p` (Pa, and 1), those of `owned` only when given (a fluid divided
    /// among processes adds the ranks' sums).
    pub fn pressure_sums(&self, p: &Vec3, owned: Option<&[bool]>) -> (Real, Real) {
        let k = &self.params.kernel;
        let r = k.support();
        let mut q = *p;
        if self.params.planar {
            q.z = 0.0;
        }
        let (mut num, mut den) = (0.0, 0.0);
        for (x, pr) in owned_of(&self.pos, owned).zip(owned_of(&self.pressure, owned)) {
            let d = self.params.periodic.delta(x, &q).norm();
            if d < r {
                let w = k.w(d);
                num += w * pr;
                den += w;
            }
        }
        (num, den)
    }

    /// Height (m) of the free surface along the vertical line through `p` (vertical: against
    /// `gravity`), measured from `p` upwards: where the fluid's kernel sum `Σ_j V W(|x − x_j|)`
    /// (its particles' volume fraction, 1 inside the fluid) falls through 1/2, searched from
    /// above in steps of an eighth of a spacing and interpolated linearly between them. `None`
    /// when no particle is within a kernel support of the line. A wave gauge reads this at
    /// each output and reports it against the height at the start.
    pub fn surface_height(&self, p: &Vec3, gravity: &Vec3) -> Option<Real> {
        self.height_in_column(&self.surface_column(p, gravity, None))
    }

    /// The particles [`Fluid::surface_height`] reads (those of `owned` only when given): the
    /// height above `p` (m) and the squared lateral distance (m²) of each within a kernel
    /// support of the vertical line through `p`; empty without gravity.
    pub fn surface_column(
        &self,
        p: &Vec3,
        gravity: &Vec3,
        owned: Option<&[bool]>,
    ) -> Vec<(Real, Real)> {
        let Some(up) = (-gravity).try_normalize(1e-300) else {
            return Vec::new();
        };
        let r = self.params.kernel.support();
        let mut q = *p;
        if self.params.planar {
            q.z = 0.0;
        }
        owned_of(&self.pos, owned)
            .filter_map(|x| {
                let d = self.params.periodic.delta(x, &q);
                let z = d.dot(&up);
                let lateral = (d - up * z).norm_squared();
                (lateral < r * r).then_some((z, lateral))
            })
            .collect()
    }

    /// [`Fluid::surface_height`] from its particles ([`Fluid::surface_column`], gathered over
    /// the ranks of a divided fluid).
    pub fn height_in_column(&self, near: &[(Real, Real)]) -> Option<Real> {
        let k = &self.params.kernel;
        let r = k.support();
        let top = near.iter().map(|n| n.0).fold(Real::NEG_INFINITY, Real::max);
        let bottom = near.iter().map(|n| n.0).fold(Real::INFINITY, Real::min);
        if !top.is_finite() {
            return None;
        }
        let fraction = |z: Real| -> Real {
            near.iter()
                .map(|&(zj, lat)| {
                    let dz = zj - z;
                    let d2 = dz * dz + lat;
                    if d2 < r * r {
                        self.volume * k.w(d2.sqrt())
                    } else {
                        0.0
                    }
                })
                .sum()
        };
        let step = 0.125 * self.params.spacing;
        let (mut z, mut above) = (top + r, 0.0);
        while z >= bottom - r {
            let f = fraction(z);
            if f >= 0.5 {
                // Between z + step (fraction `above` < 1/2) and z.
                return Some(z + step * (f - 0.5) / (f - above).max(1e-300));
            }
            above = f;
            z -= step;
        }
        None
    }

    /// The distance (m) from the most compressed particle to the nearest boundary particle,
    /// and that particle's owner (a body index, or [`crate::fluid::STATIC`] for walls); `None`
    /// without particles.
    pub fn most_compressed_to_boundary(&self) -> Option<(Real, u32)> {
        let worst =
            self.density_error
                .iter()
                .enumerate()
                .fold(
                    (0, Real::NEG_INFINITY),
                    |a, (i, &e)| {
                        if e > a.1 {
                            (i, e)
                        } else {
                            a
                        }
                    },
                );
        let x = self.pos.get(worst.0)?;
        Some(
            self.boundary
                .iter()
                .zip(&self.owner)
                .map(|(b, &o)| ((b - x).norm(), o))
                .fold(
                    (Real::INFINITY, u32::MAX),
                    |a, b| if b.0 < a.0 { b } else { a },
                ),
        )
    }

    /// Largest compression `max (ρ − ρ0)/ρ0` (0 if none) and mean `|ρ − ρ0|/ρ0` over the
    /// particles, at the start of the last step.
    pub fn density_error_stats(&self) -> (Real, Real) {
        let n = self.density_error.len().max(1) as Real;
        (
            self.density_error.iter().copied().fold(0.0, Real::max),
            self.density_error.iter().map(|e| e.abs()).sum::<Real>() / n,
        )
    }

    /// Kinetic energy `Σ m v²/2` and potential energy `−Σ m g·x` (J; planar: per thickness
    /// `t`, included in the mass).
    pub fn energies(&self, gravity: &Vec3) -> (Real, Real) {
        let m = self.mass;
        (
            self.vel.iter().map(|v| 0.5 * m * v.norm_squared()).sum(),
            self.pos.iter().map(|x| -m * gravity.dot(x)).sum(),
        )
    }

    /// Fraction of a body's volume below the free surface (0–1). `pts` fill the body in its
    /// centre-of-mass frame (pose `pose`). The surface height (along −g) is half a spacing above
    /// the mean of the highest particle centre in each horizontal bin of width l, over the
    /// bins whose centre is farther from the body's centre of mass, horizontally, than the
    /// body's own horizontal extent plus one kernel support and one spacing. NaN (written as
    /// such in `probes.csv`) when it cannot be measured: no such bin (the fluid does not reach
    /// far enough from the body), no gravity (no "below"), or no sample points.
    pub fn submerged_fraction(
        &self,
        pose: &crate::math::Iso,
        pts: &[Vec3],
        gravity: &Vec3,
    ) -> Real {
        self.submerged_in(pose, pts, gravity, self.surface_tops(gravity, None))
    }

    /// The free surface [`Fluid::submerged_fraction`] reads: the highest particle centre (m,
    /// along −g) in each horizontal bin of width l, keyed by the bin (those of `owned` only when
    /// given: a fluid divided among processes takes the largest over the ranks); empty without
    /// gravity.
    pub fn surface_tops(&self, gravity: &Vec3, owned: Option<&[bool]>) -> SurfaceTops {
        let mut tops = SurfaceTops::new();
        let Some(up) = (-gravity).try_normalize(1e-300) else {
            return tops;
        };
        let l = self.params.spacing;
        let (e1, e2) = crate::math::orthonormal_basis(&up);
        for x in owned_of(&self.pos, owned) {
            let key = (
                (x.dot(&e1) / l).floor() as i64,
                (x.dot(&e2) / l).floor() as i64,
            );
            let h = x.dot(&up);
            let t = tops.entry(key).or_insert(h);
            *t = t.max(h);
        }
        tops
    }

    /// [`Fluid::submerged_fraction`] with the free surface `tops` ([`Fluid::surface_tops`]).
    pub fn submerged_in(
        &self,
        pose: &crate::math::Iso,
        pts: &[Vec3],
        gravity: &Vec3,
        mut tops: SurfaceTops,
    ) -> Real {
        if pts.is_empty() || gravity.norm() == 0.0 {
            return Real::NAN;
        }
        let up = -gravity.normalize();
        let c = pose.translation.vector;
        let horizontal = |d: Vec3| (d - up * d.dot(&up)).norm();
        let extent = pts
            .iter()
            .map(|p| horizontal(pose.rotation * p))
            .fold(0.0, Real::max);
        let far = extent + self.params.kernel.support();
        // The free surface: the top particle of each horizontal bin of width l, averaged over
        // the bins wholly in the far region (a bin cut by the region's edge may hold only deep
        // particles and would read low).
        let l = self.params.spacing;
        let (e1, e2) = crate::math::orthonormal_basis(&up);
        let (c1, c2) = (c.dot(&e1), c.dot(&e2));
        let planar = self.params.planar;
        let distance = |&(k1, k2): &(i64, i64)| {
            let d1 = (k1 as Real + 0.5) * l - c1;
            let d2 = if planar {
                0.0
            } else {
                (k2 as Real + 0.5) * l - c2
            };
            (d1 * d1 + d2 * d2).sqrt()
        };
        if !tops.keys().any(|k| distance(k) <= far + 2.0 * l) {
            // No fluid around the body, seen from above: it is not in the fluid at all.
            return Real::NAN;
        }
        tops.retain(|k, _| distance(k) > far + l);
        if tops.is_empty() {
            // No fluid far enough from the body to read the free surface from.
            return Real::NAN;
        }
        let level = tops.values().sum::<Real>() / tops.len() as Real + 0.5 * l;
        let below = pts
            .iter()
            .filter(|p| (pose * nalgebra::Point3::from(**p)).coords.dot(&up) < level)
            .count();
        below as Real / pts.len() as Real
    }

    /// Smoothed pressure (001 eq. 42) with `w_s = (r_e² − r²)³`, `r_e` the kernel support (Pa).
    pub fn smoothed_pressure(&self) -> Vec<Real> {
        if !self.has_neighbours() {
            // No neighbour lists yet (before the first step): nothing to smooth with.
            return self.pressure.clone();
        }
        let re2 = self.params.kernel.support().powi(2);
        (0..self.len())
            .into_par_iter()
            .map(|i| {
                let (mut num, mut den) = (re2.powi(3) * self.pressure[i], re2.powi(3));
                for &j in self.ff.of(i) {
                    let r2 = (self.params.periodic)
                        .delta(&self.pos[i], &self.pos[j as usize])
                        .norm_squared();
                    let w = (re2 - r2).max(0.0).powi(3);
                    num += w * self.pressure[j as usize];
                    den += w;
                }
                num / den
            })
            .collect()
    }
}

/// The free surface as [`Fluid::surface_tops`] reads it: the highest particle (m, along −g) of
/// each horizontal bin, by bin.
pub type SurfaceTops = std::collections::BTreeMap<(i64, i64), Real>;

impl crate::pipeline::World {
    /// Number of fluid particles whose centre lies inside a body's shape (0 without fluid).
    pub fn fluid_inside_bodies(&self) -> usize {
        let Some(f) = self.fluid.as_ref() else {
            return 0;
        };
        let poses: Vec<_> = self
            .geometry
            .poses(&self.bodies)
            .map(|p| crate::math::to_pose(&p))
            .collect();
        f.pos
            .iter()
            .filter(|x| {
                let p = crate::math::to_pv(x);
                self.geometry
                    .colliders
                    .iter()
                    .zip(&poses)
                    .any(|(c, pose)| c.shape.contains_point(pose, p))
            })
            .count()
    }
}
