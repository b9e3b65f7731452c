//! The WCSPH pair passes: equation of state, wall pressures, and the rates `dv/dt`, `dρ/dt`
//! of every fluid particle (and of dynamic wall particles), with the fluid force on each body.
//! Equations and citations in the parent module.

use super::{WallTreatment, WcsphParams, WcsphScratch, GAMMA};
use crate::fluid::kernel::Kernel;
use crate::fluid::morris_viscosity::no_slip_factor;
use crate::fluid::{per_particle, per_particle_pair, Fluid, STATIC};
use crate::math::{Real, Vec3};

/// Tait pressure (Pa) of density `rho` (kg/m³) with `b = c0² ρ0 / γ` (Pa).
#[inline]
pub fn tait(b: Real, rho0: Real, rho: Real) -> Real {
    b * ((rho / rho0).powi(GAMMA as i32) - 1.0)
}

/// Density (kg/m³) of pressure `p` (Pa): the inverse of [`tait`].
#[inline]
pub fn tait_inverse(b: Real, rho0: Real, p: Real) -> Real {
    rho0 * (p / b + 1.0).max(1e-3).powf(1.0 / GAMMA)
}

/// What a pair term needs, fixed over a pass.
struct Pair {
    support2: Real,
    /// Mass per particle in the kernel's dimension (kg, or kg/m in 2D).
    m: Real,
    h: Real,
    eta2: Real,
    /// α c0 (m/s).
    av: Real,
    nu: Real,
    /// Whether walls drag with Morris' extrapolated velocity (Adami walls).
    no_slip: bool,
    /// Half a spacing (m): the smallest wall distance in Morris' factor.
    min_gap: Real,
}

/// A pair inside the support, from [`Pair::geometry`].
struct Geometry {
    /// `x_i − x_j` (m).
    d: Vec3,
    /// `|d|²` (m²).
    r2: Real,
    /// `W'(r)/r` (1/m^(d+2)).
    f: Real,
    /// `1 / (r2 + η²)` (1/m²).
    inv: Real,
}

/// One particle of a pair: density (kg/m³), its inverse, pressure (Pa).
#[derive(Clone, Copy)]
struct Side {
    rho: Real,
    inv: Real,
    p: Real,
}

impl Side {
    #[inline(always)]
    fn of(rho: &[Real], inv: &[Real], p: &[Real], k: usize) -> Side {
        Side {
            rho: rho[k],
            inv: inv[k],
            p: p[k],
        }
    }
}

impl Pair {
    /// The pair's geometry for a pair at `d = x_i − x_j` (m) inside the support: `f = W'(r)/r`
    /// (so that `∇_iW = f d`), `r2 = |d|²` and `1 / (r2 + η²)`; `None` outside the support or
    /// for coincident points (the lists hold a skin beyond it).
    #[inline(always)]
    fn geometry(&self, k: &Kernel, d: Vec3) -> Option<Geometry> {
        let r2 = d.norm_squared();
        (r2 < self.support2 && r2 > 0.0).then(|| Geometry {
            d,
            r2,
            f: k.dw_over_r(r2.sqrt()),
            inv: 1.0 / (r2 + self.eta2),
        })
    }

    /// Acceleration of particle i (m/s²) from neighbour j across the pair `g` with relative
    /// velocity `vij`, and the continuity term `m v_ij·∇_iW` (kg/m³/s).
    #[inline(always)]
    fn terms(&self, g: &Geometry, vij: &Vec3, i: Side, j: Side) -> (Vec3, Real) {
        let (d, f) = (&g.d, g.f);
        let vd = vij.dot(d);
        let mut coef = -self.m * (i.p + j.p) * (i.inv * j.inv) * f;
        // Approaching pairs only (vd < 0), without a branch: which pairs approach is not
        // predictable, and a mispredicted branch cost more than the term.
        let mu = self.h * vd.min(0.0) * g.inv;
        coef += 2.0 * self.m * self.av * mu / (i.rho + j.rho) * f;
        let mut a = d * coef;
        if self.nu > 0.0 {
            a += self.laminar(g, vij, i, j);
        }
        (a, self.m * f * vd)
    }

    /// The laminar viscous acceleration of particle i (m/s²) from neighbour j across the pair
    /// `g` with relative velocity `vij` (Morris et al. 1997).
    #[inline(always)]
    fn laminar(&self, g: &Geometry, vij: &Vec3, i: Side, j: Side) -> Vec3 {
        vij * (self.m * self.nu * (i.inv + j.inv) * g.r2 * g.inv * g.f)
    }

    /// With Adami walls, the part of the no-slip wall drag beyond `v_b = v_w`: `(β − 1)` times
    /// the laminar term, β Morris' factor ([`no_slip_factor`]); zero for dynamic walls (as
    /// DualSPHysics) or without viscosity.
    #[inline(always)]
    fn no_slip_extra(&self, g: &Geometry, to_surface: &Vec3, vib: &Vec3, i: Side, b: Side) -> Vec3 {
        if self.nu > 0.0 && self.no_slip {
            let beta = no_slip_factor(&g.d, to_surface, self.min_gap);
            self.laminar(g, vib, i, b) * (beta - 1.0)
        } else {
            Vec3::zeros()
        }
    }
}

impl Fluid {
    /// Renormalised density gradient of every particle (Antuono et al. 2010, eq. 11):
    /// `⟨∇ρ⟩_i = L_i Σ_j (ρ_j − ρ_i) ∇_iW_ij V_j`, `L_i = [Σ_j (x_j − x_i) ⊗ ∇_iW_ij V_j]⁻¹`
    /// over the fluid neighbours (kg/m⁴); zero where `L_i` is singular (a particle nearly alone).
    fn density_gradients(&self, rho: &[Real], out: &mut Vec<Vec3>) {
        let k = self.params.kernel;
        let s2 = k.support() * k.support();
        let (pos, ff, planar) = (&self.pos, &self.ff, self.params.planar);
        let per = self.params.periodic;
        let v = self.volume;
        out.resize(self.len(), Vec3::zeros());
        per_particle(out, |i| {
            let mut m = nalgebra::Matrix3::<Real>::zeros();
            let mut g = Vec3::zeros();
            for &j in ff.of(i) {
                let j = j as usize;
                let d = per.delta(&pos[i], &pos[j]);
                let r2 = d.norm_squared();
                if r2 >= s2 || r2 == 0.0 {
                    continue;
                }
                let gw = d * (v * k.dw(r2.sqrt()) / r2.sqrt());
                m -= d * gw.transpose();
                g += gw * (rho[j] - rho[i]);
            }
            if planar {
                m[(2, 2)] = 1.0;
            }
            m.try_inverse().map(|l| l * g).unwrap_or_default()
        });
    }

    fn pair(&self, p: &WcsphParams) -> Pair {
        let k = &self.params.kernel;
        Pair {
            support2: k.support() * k.support(),
            m: self.params.rho0 * self.volume,
            h: k.h,
            eta2: 0.01 * k.h * k.h,
            av: p.alpha * p.c0(),
            nu: self.params.viscosity / self.laplacian,
            no_slip: p.walls == WallTreatment::Adami,
            min_gap: 0.5 * self.params.spacing,
        }
    }

    /// Tait coefficient B (Pa).
    pub(crate) fn tait_b(&self, p: &WcsphParams) -> Real {
        p.c0() * p.c0() * self.params.rho0 / GAMMA
    }

    /// Pressures of the fluid particles (equation of state) and of the wall particles (Adami's
    /// extrapolation, or the equation of state of their own density).
    pub(super) fn wall_state(&mut self, p: &WcsphParams, g: &Vec3, s: &mut WcsphScratch) {
        let (b, rho0) = (self.tait_b(p), self.params.rho0);
        s.press.resize(self.len(), 0.0);
        let rho = &s.carry.rho;
        per_particle(&mut s.press, |i| tait(b, rho0, rho[i]));
        let nb = self.boundary.len();
        s.bpress.resize(nb, 0.0);
        s.bdry.resize(nb, false);
        match p.walls {
            WallTreatment::Dynamic => {
                let brho = &s.carry.brho;
                per_particle(&mut s.bpress, |k| tait(b, rho0, brho[k]));
                s.bdry.fill(false);
            }
            WallTreatment::Adami => {
                let k = &self.params.kernel;
                let r2 = k.support() * k.support();
                let (pos, press, bx) = (&self.pos, &s.press, &self.boundary);
                let per = self.params.periodic;
                let (owner, acc) = (&self.owner, &s.body_acc);
                let bf = &self.bf;
                // The clamped extrapolation and whether the particle is dry: at or below zero by
                // the hydrostatic term alone (module docs, **Walls**).
                per_particle_pair(&mut s.bpress, &mut s.bdry, |w| {
                    let (mut sw, mut sp, mut sr) = (0.0, 0.0, Vec3::zeros());
                    for &f in bf.of(w) {
                        let f = f as usize;
                        let d = per.delta(&bx[w], &pos[f]);
                        let d2 = d.norm_squared();
                        if d2 < r2 {
                            let wk = k.w(d2.sqrt());
                            sw += wk;
                            sp += press[f] * wk;
                            sr += d * (rho[f] * wk);
                        }
                    }
                    if sw <= 0.0 {
                        return (0.0, true);
                    }
                    let a = match owner[w] {
                        STATIC => Vec3::zeros(),
                        o => acc.get(o as usize).copied().unwrap_or_default(),
                    };
                    let raw = (sp + (g - a).dot(&sr)) / sw;
                    (raw.max(0.0), raw <= 0.0 && sp >= 0.0)
                });
                let bpress = &s.bpress;
                s.carry.brho.resize(nb, rho0);
                per_particle(&mut s.carry.brho, |w| tait_inverse(b, rho0, bpress[w]));
            }
        }
    }

    /// Rates of change at the current state: `s.acc` (m/s²), `s.drho` (kg/m³/s) and, for
    /// dynamic walls, `s.bdrho`. With `body_weight = Some(w)`, adds `w` times the fluid force
    /// and torque on each body to [`Fluid::body_force`] / [`Fluid::body_torque`] (N, N·m).
    pub(super) fn rates(
        &mut self,
        p: &WcsphParams,
        g: &Vec3,
        s: &mut WcsphScratch,
        body_weight: Option<Real>,
    ) {
        let pair = self.pair(p);
        let k = self.params.kernel;
        let n = self.len();
        s.acc.resize(n, Vec3::zeros());
        s.drho.resize(n, 0.0);
        let antuono = p.diffusion == super::Diffusion::Antuono && p.delta > 0.0;
        if antuono {
            self.density_gradients(&s.carry.rho, &mut s.grad_rho);
        }
        inverses(&s.carry.rho, &mut s.inv_rho);
        inverses(&s.carry.brho, &mut s.binv_rho);
        let grad = &s.grad_rho;
        let (pos, vel, rho, press) = (&self.pos, &self.vel, &s.carry.rho, &s.press);
        let (bx, bv, brho, bpress) = (&self.boundary, &s.bvel, &s.carry.brho, &s.bpress);
        let (inv, binv, bdry) = (&s.inv_rho, &s.binv_rho, &s.bdry);
        let surf = &self.to_surface;
        let (ff, fb) = (&self.ff, &self.fb);
        let (rho0, c0) = (self.params.rho0, p.c0());
        let dcoef = 2.0 * p.delta * k.h * c0;
        let hydro = rho0 / (c0 * c0);
        // No hydrostatic density difference along a periodic axis (the fluid is homogeneous
        // along it; gravity there only drives it round the period).
        let gh = self.params.periodic.across(g);
        let (planar, per) = (self.params.planar, self.params.periodic);
        let body = |i: usize| {
            let (xi, vi) = (pos[i], vel[i]);
            let si = Side::of(rho, inv, press, i);
            let mut a = *g;
            let (mut dr, mut diff) = (0.0, 0.0);
            for &j in ff.of(i) {
                let j = j as usize;
                let Some(gm) = pair.geometry(&k, per.delta(&xi, &pos[j])) else {
                    continue;
                };
                let (sj, vij) = (Side::of(rho, inv, press, j), vi - vel[j]);
                let (aij, cij) = pair.terms(&gm, &vij, si, sj);
                a += aij;
                dr += cij;
                if dcoef > 0.0 {
                    let (d, s) = (&gm.d, gm.r2 * gm.inv);
                    let psi = if antuono {
                        (si.rho - sj.rho) * s - 0.5 * (grad[i] + grad[j]).dot(d)
                    } else {
                        ((si.rho - sj.rho) - hydro * gh.dot(d)) * s
                    };
                    diff += pair.m * sj.inv * psi * gm.f;
                }
            }
            for &b in fb.of(i) {
                let b = b as usize;
                let Some(gm) = pair.geometry(&k, per.delta(&xi, &bx[b])) else {
                    continue;
                };
                let vib = vi - bv[b];
                let sb = Side::of(brho, binv, bpress, b);
                // A dry wall particle exerts no pressure force (module docs, **Walls**).
                let sib = Side {
                    p: if bdry[b] { 0.0 } else { si.p },
                    ..si
                };
                let (aij, cij) = pair.terms(&gm, &vib, sib, sb);
                a += aij + pair.no_slip_extra(&gm, &surf[b], &vib, si, sb);
                dr += cij;
            }
            if planar {
                a.z = 0.0;
            }
            (a, dr + dcoef * diff)
        };
        per_particle_pair(&mut s.acc, &mut s.drho, body);
        if p.walls == WallTreatment::Dynamic {
            self.wall_density_rates(&pair, s);
        }
        if let Some(weight) = body_weight {
            self.add_body_forces(&pair, s, weight);
        }
    }

    /// Dynamic walls: each wall particle's density rate `s.bdrho` (kg/m³/s) from the continuity
    /// equation over its fluid neighbours.
    fn wall_density_rates(&self, pair: &Pair, s: &mut WcsphScratch) {
        let (k, per) = (self.params.kernel, self.params.periodic);
        let (pos, vel, bx, bv, bf) = (&self.pos, &self.vel, &self.boundary, &s.bvel, &self.bf);
        s.bdrho.resize(bx.len(), 0.0);
        per_particle(&mut s.bdrho, |b| {
            let mut dr = 0.0;
            for &i in bf.of(b) {
                let i = i as usize;
                if let Some(g) = pair.geometry(&k, per.delta(&bx[b], &pos[i])) {
                    dr += pair.m * g.f * (bv[b] - vel[i]).dot(&g.d);
                }
            }
            dr
        });
    }

    /// Adds `weight` times the fluid's force (N) and torque (N·m) on each body to
    /// [`Fluid::body_force`] / [`Fluid::body_torque`]: the reaction of every fluid–body pair,
    /// on the body (per unit thickness in 2D), per boundary particle in parallel, then summed
    /// per body in particle order.
    fn add_body_forces(&mut self, pair: &Pair, s: &mut WcsphScratch, weight: Real) {
        let (k, per, t) = (
            self.params.kernel,
            self.params.periodic,
            self.params.thickness,
        );
        let (pos, vel, rho, press) = (&self.pos, &self.vel, &s.carry.rho, &s.press);
        let (bx, bv, brho, bpress) = (&self.boundary, &s.bvel, &s.carry.brho, &s.bpress);
        let (inv, binv) = (&s.inv_rho, &s.binv_rho);
        let (bdry, surf) = (&s.bdry, &self.to_surface);
        let (owner, bf) = (&self.wall_body, &self.bf);
        // (A divided fluid: the owned particles' share; the ranks' shares are summed after the
        // sub-steps.)
        let owned = s.halo.0.as_deref().map(|h| h.owned());
        s.bforce.resize(bx.len(), Vec3::zeros());
        per_particle(&mut s.bforce, |b| {
            let mut fsum = Vec3::zeros();
            if owner[b] == STATIC {
                return fsum;
            }
            for &i in bf.of(b) {
                let i = i as usize;
                if owned.is_some_and(|o| !o[i]) {
                    continue;
                }
                if let Some(g) = pair.geometry(&k, per.delta(&pos[i], &bx[b])) {
                    let vib = vel[i] - bv[b];
                    let (si, sb) = (
                        Side::of(rho, inv, press, i),
                        Side::of(brho, binv, bpress, b),
                    );
                    let sib = Side {
                        p: if bdry[b] { 0.0 } else { si.p },
                        ..si
                    };
                    let (aib, _) = pair.terms(&g, &vib, sib, sb);
                    let extra = pair.no_slip_extra(&g, &surf[b], &vib, si, sb);
                    fsum -= (aib + extra) * pair.m * t;
                }
            }
            fsum
        });
        for (b, fsum) in s.bforce.iter().enumerate() {
            let o = self.wall_body[b];
            if o == STATIC {
                continue;
            }
            let o = o as usize;
            let arm = self.boundary[b] - s.body_com.get(o).copied().unwrap_or_default();
            self.body_force[o] += fsum * weight;
            self.body_torque[o] += arm.cross(fsum) * weight;
        }
    }
}

/// `out[k] = 1 / v[k]` (the pair terms multiply by inverse densities instead of dividing).
fn inverses(v: &[Real], out: &mut Vec<Real>) {
    out.resize(v.len(), 0.0);
    per_particle(out, |k| 1.0 / v[k]);
}
