//! The corrector's pressure gradients (module docs of [`super`], step 4): the symmetric pair
//! form and the renormalised difference form, per particle (Pa/m).

use crate::fluid::kernel::volume_gradient;
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};

impl Fluid {
    /// The symmetric pressure gradient (module docs, step 4) of the per-particle pressures
    /// `press` (Pa) into `out` (Pa/m): `(1/κ) Σ V (p_i + p_j) ∇_iW_ij` over fluid and boundary
    /// neighbours, boundary neighbour e of particle i holding `p_i + jump(i, e)`.
    pub(super) fn symmetric_gradient(
        &self,
        press: &[Real],
        jump: impl Fn(usize, usize) -> Real + Sync,
        out: &mut [Vec3],
    ) {
        let (k, v0, per) = (&self.params.kernel, self.volume, self.params.periodic);
        let (pos, bx, ff, fb) = (&self.pos, &self.boundary, &self.ff, &self.fb);
        let (kappa, planar) = (self.kappa, self.params.planar);
        crate::fluid::per_particle(out, |i| {
            let pi = press[i];
            let mut g = Vec3::zeros();
            for &j in ff.of(i) {
                let d = per.delta(&pos[i], &pos[j as usize]);
                let pj = press[j as usize];
                g += volume_gradient(k, v0, &d) * (pi + pj);
            }
            for (e, &b) in fb.of(i).iter().enumerate() {
                let d = per.delta(&pos[i], &bx[b as usize]);
                let c = volume_gradient(k, v0, &d);
                g += c * (2.0 * pi + jump(i, e));
            }
            if planar {
                g.z = 0.0;
            }
            g / kappa
        });
    }

    /// The renormalised pressure gradient (module docs, step 4) of the particles' pressures
    /// into `out` (Pa/m), with the wall jumps and normals of `ppe`.
    pub(super) fn renormalised_gradient(&self, ppe: &super::ppe::Ppe, out: &mut [Vec3]) {
        let (k, v0, per) = (&self.params.kernel, self.volume, self.params.periodic);
        let (pos, bx, ff, fb) = (&self.pos, &self.boundary, &self.ff, &self.fb);
        let (press, kappa, planar) = (&self.pressure, self.kappa, self.params.planar);
        crate::fluid::per_particle(out, |i| {
            // Σ V (p_j − p_i) ∇_iW_ij and the renormalisation L_i⁻¹ = Σ V (x_j − x_i) ⊗ ∇_iW_ij
            // over fluid and boundary neighbours (exact for linear pressure fields, also where
            // the free surface truncates the kernel; 1/κ where L is singular).
            let mut g = Vec3::zeros();
            let mut l = crate::math::Mat3::zeros();
            for &j in ff.of(i) {
                let j = j as usize;
                let d = per.delta(&pos[i], &pos[j]);
                let c = volume_gradient(k, v0, &d);
                g += c * (press[j] - press[i]);
                l -= d * c.transpose();
            }
            // A boundary neighbour informs the normal derivative only (its pressure is the
            // Neumann extrapolation along the wall normal): its pair vector and gradient are
            // projected on the normal; tangential derivatives come from the fluid.
            for (e, &b) in fb.of(i).iter().enumerate() {
                let d = per.delta(&pos[i], &bx[b as usize]);
                let n = ppe.wall_normal(i, e);
                let c = volume_gradient(k, v0, &d);
                let (dn, cn) = (n * n.dot(&d), n * n.dot(&c));
                g += cn * ppe.wall_jump(i, e);
                l -= dn * cn.transpose();
            }
            if planar {
                l[(2, 2)] = 1.0;
            }
            // (g is a row-vector sum: ∇p = L⁻ᵀ… with L symmetric up to rounding on a lattice.)
            let mut g = match l.try_inverse() {
                Some(li) => li.transpose() * g,
                None => g / kappa,
            };
            if planar {
                g.z = 0.0;
            }
            g
        });
    }
}
