//! How the density rows hold their pair coefficients `c_ij = V ∇_i W_ij` (1/m; 001 §3, the
//! row of [`super::density`]): stored, 24 bytes per fluid–fluid pair, or formed from the
//! positions each time a sweep or a product reads them.
//!
//! The pairs dominate the constraint method's memory in 3D (about 75 per particle: 1.8 KiB
//! per particle stored). Forming a coefficient costs a square root, two divisions, the
//! kernel's derivative and a gather of the neighbour's position; a coloured Gauss–Seidel sweep
//! forms each of a row's coefficients once for its product and its update, and the 3D PGS dam
//! break's step costs about a quarter more, while APGD, whose every product forms them again,
//! spends 3.9 times as long in its solve (the performance chapter). Both ways evaluate the same function on the same
//! positions, so a run gives the same bytes either way. The wall rows' fluid–wall pairs follow
//! the same choice (formed from a copy of their boundary particles' positions: 24 bytes per
//! wall row instead of 28 per pair; 15 MB of the 3D dam break's 534 281 pairs), each formed
//! once per Gauss–Seidel update as a fluid row's are.

use crate::fluid::kernel::{volume_gradient, Kernel};
use crate::fluid::periodic::Periodic;
use crate::math::{Real, Vec3};
use serde::{Deserialize, Serialize};

/// The coefficient storage a model asks for (RON: `Constraint(pair_coefficients: Formed)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum PairCoefficients {
    /// Stored, unless they would take more than [`AUTO_BUDGET`] bytes and the rows are solved
    /// by Gauss–Seidel sweeps (default). Forming costs a PGS step about a quarter more, APGD's
    /// products three to four times (the 3D dam break), so APGD keeps them stored.
    #[default]
    Auto,
    /// Always stored: fastest, 24 bytes per pair.
    Stored,
    /// Always formed from the positions: no memory per pair.
    Formed,
}

/// The largest stored coefficient array `Auto` keeps (bytes): 256 MiB, about 11 million pairs
/// (a 3D fluid of about 150 000 particles).
pub const AUTO_BUDGET: usize = 256 << 20;

impl PairCoefficients {
    /// Whether the rows store the coefficients of `pairs` fluid–fluid pairs; `sweeps`: the rows
    /// are solved by (coloured) Gauss–Seidel sweeps.
    pub fn store(self, pairs: usize, sweeps: bool) -> bool {
        match self {
            PairCoefficients::Auto => {
                !sweeps || pairs.saturating_mul(std::mem::size_of::<Vec3>()) <= AUTO_BUDGET
            }
            PairCoefficients::Stored => true,
            PairCoefficients::Formed => false,
        }
    }

    /// What the choice does, for the run's description.
    pub fn describe(self) -> &'static str {
        match self {
            PairCoefficients::Auto => {
                "pair coefficients stored (formed beyond 256 MiB when solved by PGS sweeps)"
            }
            PairCoefficients::Stored => "pair coefficients stored",
            PairCoefficients::Formed => "pair coefficients formed in each sweep",
        }
    }
}

/// What forming a coefficient needs: the positions the rows were built at (a copy, 24 bytes
/// per particle), the positions of the wall rows' boundary particles (24 bytes per wall row),
/// the kernel, the particle volume (m^d) and the periodic axes.
#[derive(Debug, Clone, Default)]
pub(super) struct Former {
    pos: Vec<Vec3>,
    /// Boundary particle of each wall row (m), in row order.
    wall: Vec<Vec3>,
    kernel: Option<Kernel>,
    v0: Real,
    per: Periodic,
}

impl Former {
    /// Copies what forming needs from a fluid's current state.
    pub fn set(&mut self, pos: &[Vec3], kernel: Kernel, v0: Real, per: Periodic) {
        self.pos.clear();
        self.pos.extend_from_slice(pos);
        self.kernel = Some(kernel);
        self.v0 = v0;
        self.per = per;
    }

    /// Copies the positions of the wall rows' boundary particles (`rows[r]` indexes `boundary`,
    /// m).
    pub fn set_walls(&mut self, boundary: &[Vec3], rows: &[u32]) {
        self.wall.clear();
        self.wall.extend(rows.iter().map(|&b| boundary[b as usize]));
    }

    /// Releases the positions (the rows store their coefficients).
    pub fn clear(&mut self) {
        self.pos = Vec::new();
        self.wall = Vec::new();
        self.kernel = None;
    }

    /// `c_bj` of wall row `r` on fluid particle `j` (1/m): `V ∇_b W_bj`, as the wall rows are
    /// built (the gradient being odd, also the coefficient of the wall row in particle j's
    /// column).
    #[inline(always)]
    pub fn wall_coef(&self, r: usize, j: usize) -> Vec3 {
        let k = self
            .kernel
            .as_ref()
            .expect("formed coefficients need a kernel");
        volume_gradient(k, self.v0, &self.per.delta(&self.wall[r], &self.pos[j]))
    }

    /// Whether the rows form their coefficients.
    #[inline(always)]
    pub fn active(&self) -> bool {
        self.kernel.is_some()
    }

    /// Calls `f(j, c_ij)` for each of `nbr`, particle i's fluid neighbours.
    #[inline(always)]
    pub fn each(&self, i: usize, nbr: &[u32], mut f: impl FnMut(usize, Vec3)) {
        let k = self
            .kernel
            .as_ref()
            .expect("formed coefficients need a kernel");
        let xi = &self.pos[i];
        for &j in nbr {
            let d = self.per.delta(xi, &self.pos[j as usize]);
            f(j as usize, volume_gradient(k, self.v0, &d));
        }
    }

    /// One Gauss–Seidel update of fluid row i with coefficients formed once: `J_i v` is
    /// `s_i · vel(i) + Σ_j c_ij · vel(j)` (in that order, as the stored rows sum it), `update`
    /// turns it into dλ, and unless dλ is zero `particle(p, dλ, c)` receives each of the row's
    /// particles with its coefficient (`s_i` first).
    #[inline]
    pub fn update_row(
        &self,
        i: usize,
        nbr: &[u32],
        s_i: Vec3,
        vel: impl Fn(usize) -> Vec3,
        update: &mut dyn FnMut(Real) -> Real,
        mut particle: impl FnMut(usize, Real, &Vec3),
    ) {
        ROW.with(|row| {
            let mut row = row.borrow_mut();
            if row.len() < nbr.len() {
                row.resize(nbr.len(), Vec3::zeros());
            }
            let mut jv = s_i.dot(&vel(i));
            let mut e = 0;
            self.each(i, nbr, |j, c| {
                jv += c.dot(&vel(j));
                row[e] = c;
                e += 1;
            });
            let dl = update(jv);
            if dl != 0.0 {
                particle(i, dl, &s_i);
                for (&j, c) in nbr.iter().zip(row.iter()) {
                    particle(j as usize, dl, c);
                }
            }
        });
    }
}

impl Former {
    /// One Gauss–Seidel update of wall row `r` (fluid neighbours `nbr`) with its coefficients
    /// formed once, as [`Former::update_row`] does for a fluid row (a wall row has no
    /// particle of its own). (One helper for both, the own particle an `Option`, made the 3D
    /// dam break's step 5–6 % slower, two pairs of runs: they stay two.)
    #[inline]
    pub fn update_wall_row(
        &self,
        r: usize,
        nbr: &[u32],
        vel: impl Fn(usize) -> Vec3,
        update: &mut dyn FnMut(Real) -> Real,
        mut particle: impl FnMut(usize, Real, &Vec3),
    ) {
        ROW.with(|row| {
            let mut row = row.borrow_mut();
            if row.len() < nbr.len() {
                row.resize(nbr.len(), Vec3::zeros());
            }
            let mut jv = 0.0;
            for (e, &j) in nbr.iter().enumerate() {
                let c = self.wall_coef(r, j as usize);
                jv += c.dot(&vel(j as usize));
                row[e] = c;
            }
            let dl = update(jv);
            if dl != 0.0 {
                for (&j, c) in nbr.iter().zip(row.iter()) {
                    particle(j as usize, dl, c);
                }
            }
        });
    }
}

thread_local! {
    /// One row's formed coefficients between its product and its update (per thread, reused).
    static ROW: std::cell::RefCell<Vec<Vec3>> = const { std::cell::RefCell::new(Vec::new()) };
}
