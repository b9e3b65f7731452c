//! The bodies' added mass from the pressure equation's matrix ([`super::super::added_mass`]
//! takes it implicitly in the rigid-body step).

use super::{laplacian_weight, Ppe, DIRICHLET};
use crate::fluid::halo::Halo;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

impl Ppe {
    /// Added mass of body `body` (owner index), centre of mass `com` (m), over a sub-step `h`
    /// (s), from the matrix of the last solve: for each rigid velocity mode e (unit
    /// translation along x, y, z, unit rotation about x, y, z through `com`) the PPE with
    /// v* = 0 and only that body's wall jumps is solved, and the pressure force and torque on
    /// the body's particles (as [`super::Fluid::advance_isph`] sums them) times `−h` is column
    /// e: the impulse (N·s, N·m·s) with which the fluid opposes a unit change of the body's
    /// velocity at the start of a sub-step. Modes outside `active` are left zero. `halo`: a
    /// divided fluid's exchange (the solves divided, the wrench summed over the parts' own
    /// particles).
    pub fn added_mass(
        &mut self,
        f: &Fluid,
        (body, com): (usize, &Vec3),
        h: Real,
        active: [bool; 6],
        halo: Option<&mut (dyn Halo + '_)>,
    ) -> nalgebra::Matrix6<Real> {
        let per = f.params.periodic;
        let rho0 = f.params.rho0;
        let weight = laplacian_weight(f);
        let m = self.rhs.len();
        let mut out = nalgebra::Matrix6::zeros();
        if m == 0 && halo.is_none() {
            return out;
        }
        self.with_parts(halo, |ppe, mut parts| {
            let mine: Option<Vec<bool>> = parts.as_deref().map(|p| p.halo.owned().to_vec());
            let mine = |i: usize| mine.as_ref().is_none_or(|o| o[i]);
            ppe.solver.csr.assemble(m, &ppe.triplets);
            let mut rhs = vec![0.0; m];
            let mut x = vec![0.0; m];
            let mut jump = vec![0.0; ppe.jump.len()];
            for (e, _) in active.iter().enumerate().filter(|a| *a.1) {
                let unit = |p: &Vec3| {
                    let mut a = Vec3::zeros();
                    a[e % 3] = 1.0;
                    if e < 3 {
                        a
                    } else {
                        a.cross(&(p - com))
                    }
                };
                rhs.iter_mut().for_each(|r| *r = 0.0);
                let mut any = false;
                for i in 0..f.len() {
                    for (j, &b) in f.fb.of(i).iter().enumerate() {
                        let at = ppe.start[i] as usize + j;
                        jump[at] = 0.0;
                        if f.owner[b as usize] as usize != body {
                            continue;
                        }
                        let xb = &f.boundary[b as usize];
                        let d = per.delta(xb, &f.pos[i]);
                        let n = ppe.normal[at];
                        jump[at] = rho0 * (-unit(xb).dot(&n) / h) * n.dot(&d);
                        let row = ppe.index[i];
                        if row != DIRICHLET {
                            rhs[row as usize] += weight(&d) * jump[at];
                        }
                        any = true;
                    }
                }
                if let Some(p) = parts.as_deref_mut() {
                    any = p.any(any);
                }
                if !any {
                    continue;
                }
                x.iter_mut().for_each(|s| *s = 0.0);
                ppe.solver.solve(&rhs, &mut x, parts.as_deref_mut());
                let mut wrench = ppe.wrench(f, (body, com), &x, &jump, &mine);
                if let Some(p) = parts.as_deref_mut() {
                    p.halo.sum(wrench.as_mut_slice());
                }
                for a in 0..6 {
                    out[(a, e)] = if active[a] { -h * wrench[a] } else { 0.0 };
                }
            }
        });
        out
    }

    /// The pressure force and torque (N, N·m about `com`) on body `body`'s particles from the
    /// fluid particles for which `mine` holds, with the pressures `x` per unknown and the wall
    /// jumps `jump` per fluid–boundary pair (Pa; as [`super::super::Fluid::advance_isph`] sums
    /// them).
    fn wrench(
        &self,
        f: &Fluid,
        (body, com): (usize, &Vec3),
        x: &[Real],
        jump: &[Real],
        mine: &dyn Fn(usize) -> bool,
    ) -> nalgebra::Vector6<Real> {
        let (k, v0, per) = (f.params.kernel, f.volume, f.params.periodic);
        let (rho0, kappa, mass) = (f.params.rho0, f.kappa, f.mass);
        let mut wrench = nalgebra::Vector6::<Real>::zeros();
        for i in (0..f.len()).filter(|&i| mine(i)) {
            let pi = match self.index[i] {
                DIRICHLET => 0.0,
                r => x[r as usize],
            };
            for (j, &b) in f.fb.of(i).iter().enumerate() {
                if f.owner[b as usize] as usize != body {
                    continue;
                }
                let xb = &f.boundary[b as usize];
                let d = per.delta(&f.pos[i], xb);
                let c = crate::fluid::kernel::volume_gradient(&k, v0, &d);
                let jb = jump[self.start[i] as usize + j];
                let force = c * ((2.0 * pi + jb) / kappa / rho0 * mass);
                let torque = (xb - com).cross(&force);
                for a in 0..3 {
                    wrench[a] += force[a];
                    wrench[a + 3] += torque[a];
                }
            }
        }
        wrench
    }
}
