//! The one Jacobian of a row on a rigid body, used by every row family that touches a body
//! (contacts, joints, density and wall rows of body particles, particle contacts).
//!
//! A row that measures the velocity of a body point `x_B + r` along a direction `c` reads
//! `c · (V + ω × r) = c · V + (r × c) · ω`: its Jacobian on the body's six DOFs `(V, ω)` is the
//! 6-vector `(c, r × c)` (1 and m for a unit direction; 1/m and 1 for a density row's
//! `c = V ∇W`). `M⁻¹ Jᵀ` is `(m⁻¹ c, I⁻¹ (r × c))` with the world inverse inertia (masked in
//! planar models). A body without DOFs (static or kinematic) moves with a known velocity, which
//! goes into the row's bias instead ([`BodyJacobian::known_velocity`]).

use super::BodyMass;
use crate::math::{Real, Vec3};

/// "No degrees of freedom" marker for a body's DOF offset.
pub const NO_DOF: u32 = u32::MAX;

/// A row's Jacobian on one body: DOF offset, `(lin, ang)` and `M⁻¹ Jᵀ`.
#[derive(Debug, Clone, Copy)]
pub struct BodyJacobian {
    /// Offset of the body's 6 DOFs in the velocity vector, or [`NO_DOF`].
    pub dof: u32,
    /// Jacobian, linear part (dimensionless for a unit direction; 1/m for density rows).
    pub lin: Vec3,
    /// Jacobian, angular part (m for a unit direction; dimensionless for density rows).
    pub ang: Vec3,
    /// `M⁻¹ lin` (1/kg times the unit of `lin`).
    pub mlin: Vec3,
    /// `I⁻¹ ang` (1/(kg·m²) times the unit of `ang`).
    pub mang: Vec3,
}

impl BodyJacobian {
    /// The Jacobian `(lin, ang)` on the body with mass data `m`.
    #[inline]
    pub fn new(m: &BodyMass, lin: Vec3, ang: Vec3) -> BodyJacobian {
        BodyJacobian {
            dof: m.dof,
            lin,
            ang,
            mlin: m.inv_mass.component_mul(&lin),
            mang: m.inv_inertia * ang,
        }
    }

    /// The Jacobian `(c, r × c)` of direction `c` at lever arm `r` from the centre of mass.
    #[inline]
    pub fn at_point(m: &BodyMass, c: Vec3, r: &Vec3) -> BodyJacobian {
        BodyJacobian::new(m, c, r.cross(&c))
    }

    /// Whether the body has DOFs in the solve.
    #[inline]
    pub fn has_dofs(&self) -> bool {
        self.dof != NO_DOF
    }

    /// The row's `J M⁻¹ Jᵀ` on this body.
    #[inline]
    pub fn diag(&self) -> Real {
        self.lin.dot(&self.mlin) + self.ang.dot(&self.mang)
    }

    /// `J v_B` for a body without DOFs, from its known velocity: the part of the row's value
    /// that goes into the bias.
    #[inline]
    pub fn known_velocity(&self, m: &BodyMass) -> Real {
        self.lin.dot(&m.lin_vel) + self.ang.dot(&m.ang_vel)
    }

    /// `J v` over the body's six DOFs in `v` (the body must have DOFs).
    #[inline]
    pub fn jv(&self, v: &[Real]) -> Real {
        let o = self.dof as usize;
        let d = &v[o..o + 6];
        self.lin.dot(&Vec3::new(d[0], d[1], d[2])) + self.ang.dot(&Vec3::new(d[3], d[4], d[5]))
    }

    /// `v += M⁻¹ Jᵀ dλ` on the body's six DOFs (the body must have DOFs).
    #[inline]
    pub fn apply(&self, dl: Real, v: &mut [Real]) {
        // One bounds check for the six DOFs (a slice of known length), not six.
        let o = self.dof as usize;
        let d = &mut v[o..o + 6];
        for a in 0..3 {
            d[a] += dl * self.mlin[a];
            d[3 + a] += dl * self.mang[a];
        }
    }
}

/// A row's Jacobian on a body, with the body's index (for reading forces back).
#[derive(Debug, Clone, Copy)]
pub struct BodyEntry {
    /// Body index in the world.
    pub body: u32,
    /// The Jacobian.
    pub jac: BodyJacobian,
}

/// Per-row lists of body entries, for row families whose rows touch any number of bodies
/// (density, wall and particle contact rows): row `k`'s entries are
/// `entries[start[k]..start[k + 1]]`. Empty (no `start`) when no body with DOFs is near.
#[derive(Debug, Default, Clone)]
pub struct BodyEntries {
    start: crate::csr::RowStarts,
    entries: Vec<BodyEntry>,
    /// Per-body accumulator of the row being built (scratch, kept to avoid allocation).
    acc: Vec<(u32, Vec3, Vec3)>,
    /// Entries on bodies without DOFs (kinematic): (row, body, lin, ang). They move their
    /// known velocity into the row's bias; kept to report the force on those bodies.
    known: Vec<(u32, u32, Vec3, Vec3)>,
}

impl BodyEntries {
    /// Removes all rows.
    pub fn clear(&mut self) {
        self.start.clear();
        self.entries.clear();
        self.acc.clear();
        self.known.clear();
    }

    /// Starts the list (call once before the first row when rows touch moving bodies).
    pub fn begin(&mut self) {
        self.clear();
        self.start.begin();
    }

    /// Adds `(lin, ang)` on `body` to the row being built (summed per body).
    pub fn add(&mut self, body: u32, lin: Vec3, ang: Vec3) {
        match self.acc.iter_mut().find(|e| e.0 == body) {
            Some(e) => {
                e.1 += lin;
                e.2 += ang;
            }
            None => self.acc.push((body, lin, ang)),
        }
    }

    /// Ends the row being built: entries on bodies with DOFs are stored and added to its
    /// `diag`; a body without DOFs moves its known velocity into its `bias`.
    pub fn finish_row(&mut self, masses: &[BodyMass], diag: &mut Real, bias: &mut Real) {
        for &(body, lin, ang) in self.acc.iter() {
            let m = &masses[body as usize];
            let jac = BodyJacobian::new(m, lin, ang);
            if !jac.has_dofs() {
                *bias += jac.known_velocity(m);
                let row = self.start.rows() as u32;
                self.known.push((row, body, lin, ang));
                continue;
            }
            *diag += jac.diag();
            self.entries.push(BodyEntry { body, jac });
        }
        self.acc.clear();
        self.start.close_row(self.entries.len());
    }

    /// Row `k`'s entries (empty when the list was not started).
    #[inline]
    pub fn of(&self, k: usize) -> &[BodyEntry] {
        if self.entries.is_empty() {
            return &[];
        }
        &self.entries[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// Whether no row has an entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// `v += M⁻¹ Jᵀ λ` on the bodies, a serial sum in row order (thread-count independent).
    pub fn add_minv_jt(&self, rows: usize, lambda: &[Real], v: &mut [Real]) {
        if self.entries.is_empty() {
            return;
        }
        for (k, &l) in lambda.iter().enumerate().take(rows) {
            for e in self.of(k) {
                e.jac.apply(l, v);
            }
        }
    }

    /// Adds each row's force `λ_k (lin, ang) / h` (N, N·m) to its bodies' `force`, `torque`,
    /// bodies without DOFs included.
    pub fn add_forces(&self, lambda: &[Real], h: Real, force: &mut [Vec3], torque: &mut [Vec3]) {
        for &(k, b, lin, ang) in &self.known {
            let l = lambda[k as usize];
            force[b as usize] += lin * (l / h);
            torque[b as usize] += ang * (l / h);
        }
        if self.entries.is_empty() {
            return;
        }
        for (k, l) in lambda.iter().enumerate().take(self.start.rows()) {
            for e in self.of(k) {
                let b = e.body as usize;
                force[b] += e.jac.lin * (l / h);
                torque[b] += e.jac.ang * (l / h);
            }
        }
    }
}
