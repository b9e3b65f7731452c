//! Contact rows: non-penetration with restitution and position correction, and Coulomb friction.
//!
//! For a contact with normal `n` (from body 1 to body 2), point `p`, lever arms
//! `r_i = p − x_i` and signed distance `d` (m), the normal row measures the separating speed
//! `u_n = n · (v_2(p) − v_1(p))`, Jacobian `(−n, −r_1 × n)` on body 1 and `(n, r_2 × n)` on
//! body 2 (Miyamoto & Koshizuka, 001 eqs. 46–60, with their normal reversed). The row asks
//! `u_n⁺ ≥ u_target`, `λ_n ≥ 0`, complementary, where (001 eq. 64, extended to speculative
//! contacts):
//!
//! - if the contact closes within this step with a normal approach faster than the restitution
//!   threshold: `u_target = max(−e u_n*, β max(0, −d − slop) / h)`, with `u_n*` the pre-solve
//!   normal speed frozen before any impulse (restitution e, Newton's law);
//! - else if separated (`d ≥ 0`): `u_target = −d / h` (the gap may close, not more);
//! - else: `u_target = β max(0, −d − slop) / h` (Baumgarte: remove a fraction β of the
//!   penetration per step).
//!
//! Friction adds two tangent rows `t_1, t_2` with zero bias, bounded by `μ λ_n` (PGS: box;
//! APGD: exact cone). `t_1` is aligned with the pre-solve sliding velocity when there is one,
//! (above [`SLIDING_SPEED`]), so box friction is isotropic for a sliding contact. The tangential impulse is kept as a world
//! vector between steps and re-projected on the new basis for the warm start.

use super::{BodyMass, BodyRows};
use crate::geometry::{Contact, Impulse};
use crate::math::{orthonormal_basis, Real, Vec3};
use crate::solver::{Block, BlockKind};

/// Contact parameters shared by all rigid contacts (RON: `contact: (..)`; every field may be
/// left out).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContactParams {
    /// Distance (m) below which a gap is already turned into a (speculative) contact row.
    /// Default 0.01 m.
    pub prediction: Real,
    /// Baumgarte factor β in [0, 1]: the fraction of a penetration removed per step
    /// (dimensionless; 001 eq. 64's α). Default 0.2.
    pub baumgarte: Real,
    /// Penetration tolerated without correction (m). Default 1e-5 m.
    pub slop: Real,
    /// Normal approach speed below which restitution is not applied (resting contacts; m/s).
    /// Default 0.05 m/s.
    pub restitution_threshold: Real,
    /// What resolves the contacts: complementarity rows (default) or an impulse method
    /// ([`crate::impulse::ResolverChoice`]).
    pub resolver: crate::impulse::ResolverChoice,
}

impl Default for ContactParams {
    fn default() -> Self {
        ContactParams {
            prediction: 0.01,
            baumgarte: 0.2,
            slop: 1e-5,
            restitution_threshold: 0.05,
            resolver: Default::default(),
        }
    }
}

impl ContactParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        use crate::params::{non_negative, unit_interval};
        non_negative("prediction", self.prediction)?;
        unit_interval("baumgarte", self.baumgarte)?;
        non_negative("slop", self.slop)?;
        non_negative("restitution_threshold", self.restitution_threshold)?;
        self.resolver.validate()
    }
}

/// Tangential speed (m/s) above which the first tangent follows the sliding direction; below
/// it a fixed basis is used, so resting contacts keep the same friction box from step to step.
pub const SLIDING_SPEED: Real = 1e-3;

/// Where a contact's rows are and its tangent basis.
#[derive(Debug, Clone, Copy)]
pub struct ContactRows {
    /// Index of the normal row.
    pub row: usize,
    /// Whether friction rows follow.
    pub friction: bool,
    /// Tangent basis.
    pub t1: Vec3,
    /// Tangent basis.
    pub t2: Vec3,
}

fn point_velocity(m: &BodyMass, v: &[Real], r: &Vec3) -> Vec3 {
    if m.dof == super::NO_DOF {
        return m.lin_vel + m.ang_vel.cross(r);
    }
    let o = m.dof as usize;
    let lin = Vec3::new(v[o], v[o + 1], v[o + 2]);
    let ang = Vec3::new(v[o + 3], v[o + 4], v[o + 5]);
    lin + ang.cross(r)
}

/// Adds the rows of all contacts. `v` is the pre-solve velocity vector `v*`; `h` the step (s).
pub fn build_rows(
    contacts: &[Contact],
    masses: &[BodyMass],
    v: &[Real],
    h: Real,
    p: &ContactParams,
    rows: &mut BodyRows,
    info: &mut Vec<ContactRows>,
) {
    info.clear();
    for c in contacts {
        let (a, b) = (&masses[c.body1], &masses[c.body2]);
        let n = c.normal;
        let r1 = c.point - a.com;
        let r2 = c.point - b.com;
        let rel = point_velocity(b, v, &r2) - point_velocity(a, v, &r1);
        let un = n.dot(&rel);
        let correction = p.baumgarte * (-c.dist - p.slop).max(0.0) / h;
        let target =
            if c.restitution > 0.0 && un < -p.restitution_threshold && c.dist + h * un < 0.0 {
                (-c.restitution * un).max(correction)
            } else if c.dist >= 0.0 {
                -c.dist / h
            } else {
                correction
            };
        let friction = c.friction > 0.0;
        let (t1, t2) = {
            let vt = rel - n * un;
            let s = vt.norm();
            if s > SLIDING_SPEED {
                let t1 = vt / s;
                (t1, n.cross(&t1))
            } else {
                orthonormal_basis(&n)
            }
        };
        let row = rows.rows.len();
        // Rows are written against the *bias* convention w = J v + b: target moves to −b.
        rows.push(
            a,
            (-n, -r1.cross(&n)),
            b,
            (n, r2.cross(&n)),
            -target,
            0.0,
            c.warm.normal,
        );
        if rows.rows[row].diag <= 1e-12 * (a.inv_mass.max() + b.inv_mass.max()) {
            // The normal lies along directions without effective mass (e.g. along z between
            // extruded planar shapes): nothing can be solved there.
            rows.rows.pop();
            rows.warm.pop();
            info.push(ContactRows {
                row: usize::MAX,
                friction: false,
                t1,
                t2,
            });
            continue;
        }
        info.push(ContactRows {
            row,
            friction,
            t1,
            t2,
        });
        let kind = if friction {
            BlockKind::Friction { mu: c.friction }
        } else {
            BlockKind::Unilateral
        };
        rows.blocks.push(Block { start: row, kind });
        if friction {
            let wt = Vec3::from(c.warm.tangent);
            for t in [t1, t2] {
                rows.push(
                    a,
                    (-t, -r1.cross(&t)),
                    b,
                    (t, r2.cross(&t)),
                    0.0,
                    0.0,
                    wt.dot(&t),
                );
            }
        }
    }
}

/// Reads the contact impulses back from the solution.
pub fn read_impulses(info: &[ContactRows], lambda: &[Real], out: &mut Vec<Impulse>) {
    out.clear();
    for ci in info {
        if ci.row == usize::MAX {
            out.push(Impulse::default());
            continue;
        }
        let normal = lambda[ci.row];
        let t = if ci.friction {
            ci.t1 * lambda[ci.row + 1] + ci.t2 * lambda[ci.row + 2]
        } else {
            Vec3::zeros()
        };
        out.push(Impulse {
            normal,
            tangent: [t.x, t.y, t.z],
        });
    }
}
