//! The position correction of an ISPH sub-step (step 6 of the ISPH module docs): the
//! compressed part of the density source, solved after the move with the sub-step's matrix,
//! moves the particles and leaves their velocities.

use super::super::IsphParams;
use super::{Ppe, PpeSolver, ANCHORED, DIRICHLET};
use crate::fluid::halo::Halo;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

/// The correction's buffers, reused from sub-step to sub-step.
#[derive(Default)]
pub(super) struct Scratch {
    /// Right-hand side and solution per unknown.
    rhs: Vec<Real>,
    sol: Vec<Real>,
    /// Pressure `p_ρ` per particle (Pa).
    pressure: Vec<Real>,
    /// Displacement per particle (m).
    shift: Vec<Vec3>,
}

impl Ppe {
    /// Moves the particles of `f` by `−(Δt²/ρ0) ⟨∇p_ρ⟩` with `A p_ρ = α_p ρ0 (n_i − 1)/Δt²`
    /// over the compressed unknowns of the sub-step's solve (`n` the kernel sums at the moved
    /// positions, `h` = Δt in s), `p_ρ = 0` at free-surface particles and in pockets (whose
    /// blocks are singular), and `p_ρ ≥ 0`. The matrix is the one the sub-step assembled
    /// (solved by conjugate gradients with either [`PpeSolver`]). Velocities are not changed.
    /// `halo`: a divided fluid's exchange (the solve divided; the ghosts move as their owners
    /// only once the caller refreshes them).
    pub fn correct_positions(
        &mut self,
        f: &mut Fluid,
        p: &IsphParams,
        n: &[Real],
        h: Real,
        halo: Option<&mut (dyn Halo + '_)>,
    ) {
        let m = self.rhs.len();
        if m == 0 && halo.is_none() {
            return;
        }
        let rho0 = f.params.rho0;
        let s = &mut self.position;
        s.rhs.clear();
        s.rhs.resize(m, 0.0);
        for (i, &ix) in self.index.iter().enumerate() {
            let row = ix as usize;
            if ix != DIRICHLET && n[i] > 1.0 && self.pocket[row] == ANCHORED {
                s.rhs[row] = p.position_alpha * rho0 * (n[i] - 1.0) / (h * h);
            }
        }
        let (nothing, finite) = self.with_parts(halo, |ppe, mut parts| {
            let s = &mut ppe.position;
            let mut nothing = s.rhs[..ppe.owned].iter().all(|&b| b == 0.0);
            if let Some(q) = parts.as_deref_mut() {
                nothing = !q.any(!nothing);
            }
            if !nothing {
                if p.solver == PpeSolver::Direct {
                    ppe.solver.csr.assemble(m, &ppe.triplets);
                }
                // From zero: the particles are re-sorted between sub-steps, and a warm start
                // from the last p_ρ would have to follow them (it saved 5 % of the 20 000-particle
                // dam break).
                s.sol.clear();
                s.sol.resize(m, 0.0);
                ppe.solver.solve(&s.rhs, &mut s.sol, parts.as_deref_mut());
            }
            let mut finite = s.sol.iter().all(|x| x.is_finite());
            if let Some(q) = parts {
                finite = !q.any(!finite);
            }
            (nothing, finite)
        });
        if nothing || !finite {
            return;
        }
        let s = &mut self.position;
        s.pressure.clear();
        s.pressure.extend(self.index.iter().map(|&ix| {
            if ix == DIRICHLET {
                0.0
            } else {
                s.sol[ix as usize].max(0.0)
            }
        }));
        // The symmetric gradient (module docs, step 4) of p_ρ; a boundary neighbour holds
        // the particle's own p_ρ (no wall jump: the correction has no wall velocity).
        s.shift.resize(f.len(), Vec3::zeros());
        f.symmetric_gradient(&s.pressure, |_, _| 0.0, &mut s.shift);
        let scale = h * h / rho0;
        for (x, g) in f.pos.iter_mut().zip(&s.shift) {
            *x -= g * scale;
        }
    }
}
