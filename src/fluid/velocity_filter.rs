//! Velocity filter: removes, before the solve, part of the kernel-scale velocity noise that no
//! local linear field explains, keeping the fluid's linear and angular momentum.
//!
//! With the corrected velocity gradient (Bonet & Lok 1999's kernel-gradient correction)
//! `G_i = (Σ_j V (v_j − v_i) ⊗ ∇_i W_ij) L_i⁻¹`, `L_i = Σ_j V (x_j − x_i) ⊗ ∇_i W_ij`, each step
//! does `v_i += ε Σ_j V W_ij [(v_j − v_i) − G_i (x_j − x_i)] / Σ_j V W_ij` with the per-step
//! fraction `ε = 1 − exp(−γ h)` of the rate γ (1/s, [`super::FluidParams::velocity_filter`]),
//! then removes the change's mean and rigid rotation; a particle whose neighbourhood cannot
//! measure a gradient (`‖L_i⁻¹‖` above [`MAX_INVERSE_MOMENT`]: a sheet, a jet, a droplet) is left
//! as it is. Zero for any linear velocity field. Without
//! it the surface layers of a fluid at rest sink into the hollows of the lattice below and the
//! tank churns (the book's fluid chapter has the measurements).

use super::halo::owned_of;
use super::kernel::volume_gradient_of;
use super::{per_particle, Fluid};
use crate::math::{Real, Vec3};

/// Largest Frobenius norm of `L_i⁻¹` (dimensionless) at which a particle's velocity gradient
/// is measured and the particle filtered; beyond it the particle is left as it is. On the
/// square and cubic lattices at h = 1.3 l (Wendland) a full neighbourhood gives 1.8, a flat free
/// surface 2.6–2.8, an edge 4.3–4.4 and a corner of 3D fluid 6.7; a sheet or a jet one particle
/// thick, or a droplet, has `L_i` (nearly) singular across it, and `G_i` from it is noise
/// amplified by `‖L_i⁻¹‖`: in a 3D
/// dam break on an obstacle (spacing 0.02 m, 10 PGS sweeps) the splash off the obstacle threw a
/// particle out at 23–460 m/s at 0.54 s (the guard stopped the run) with every such particle
/// filtered, and ran to the end (1.6 s) with this bound (2026-11-28).
pub const MAX_INVERSE_MOMENT: Real = 20.0;

impl Fluid {
    /// Removes the part of each particle's velocity that no linear field explains, by the
    /// fraction `eps`: `v_i += eps Σ_j V W_ij [(v_j − v_i) − G_i (x_j − x_i)] / Σ_j V W_ij` with
    /// the corrected velocity gradient `G_i = (Σ_j V (v_j − v_i) ⊗ ∇_i W_ij) L_i⁻¹`,
    /// `L_i = Σ_j V (x_j − x_i) ⊗ ∇_i W_ij`. Zero for any linear velocity field (uniform flow,
    /// rotation, the circular patch's strain), also at free surfaces; it damps only
    /// kernel-scale noise. Fluid neighbours only (`walls = None`, the constraint method), or
    /// also the boundary particles at their wall velocities `walls` (m/s, one per boundary
    /// particle; ISPH): a wall neighbour then counts as a no-slip neighbour, so a column of
    /// particles sliding along a wall is noise too. A gather, thread-count independent. For a
    /// fluid divided among processes (`halo`) the change's mean and rotation are those of the
    /// whole fluid: summed over each part's own particles, then over the parts (a part that
    /// counted its ghosts as well took a mean of its own, 3.8e-9 m from one process after three
    /// steps of a converged dam break on two ranks, and different with every ghost width).
    pub fn filter_velocities(
        &mut self,
        eps: Real,
        walls: Option<&[Vec3]>,
        halo: Option<&mut (dyn super::halo::Halo + '_)>,
    ) {
        let mut next = self.take_spare();
        if self.params.planar {
            per_particle(&mut next, |i| self.filtered::<PlaneSums>(i, eps, walls));
        } else {
            per_particle(&mut next, |i| self.filtered::<SpaceSums>(i, eps, walls));
        }
        self.finish_filter(next, halo);
    }

    /// Particle i's filtered velocity from one pass over its neighbours (`S`'s sums): each at
    /// `d = x_j − x_i`, with its kernel weight and its gradient `V ∇_i W_ij` (none for a fluid
    /// neighbour on the particle itself, which has no direction).
    #[inline(always)]
    fn filtered<S: FilterSums>(&self, i: usize, eps: Real, walls: Option<&[Vec3]>) -> Vec3 {
        let (k, v0, per) = (&self.params.kernel, self.volume, self.params.periodic);
        let (pos, vel) = (&self.pos, &self.vel);
        let mut sums = S::default();
        let mut add = |d: Vec3, dv: Vec3, fluid: bool| {
            let r = d.norm();
            let (wr, dwr) = k.w_dw(r);
            let w = v0 * wr;
            let grad = (!(fluid && r == 0.0)).then(|| volume_gradient_of(v0, &-d, r, dwr));
            sums.add(&d, &dv, w, grad.as_ref());
        };
        for &j in self.ff.of(i) {
            let j = j as usize;
            add(per.delta(&pos[j], &pos[i]), vel[j] - vel[i], true);
        }
        if let Some(bv) = walls {
            for &b in self.fb.of(i) {
                let b = b as usize;
                add(per.delta(&self.boundary[b], &pos[i]), bv[b] - vel[i], false);
            }
        }
        sums.velocity(vel[i], eps)
    }

    /// The filter's last part, after its sums (in [`Fluid::filter_velocities`], or in the
    /// density rows' pass, which forms the same kernel values): the filtered velocities `next`
    /// (m/s, one per particle) lose the mean and rotation of their change and become the
    /// velocities (the old ones' buffer is kept for the next pass).
    pub(crate) fn finish_filter(
        &mut self,
        mut next: Vec<Vec3>,
        halo: Option<&mut (dyn super::halo::Halo + '_)>,
    ) {
        keep_momentum(&self.pos, &self.vel, &mut next, self.params.planar, halo);
        self.spare = std::mem::replace(&mut self.vel, next);
    }

    /// A buffer of one velocity per particle for the filter's output (the spare one).
    pub(crate) fn take_spare(&mut self) -> Vec<Vec3> {
        let mut next = std::mem::take(&mut self.spare);
        next.resize(self.pos.len(), Vec3::zeros());
        next
    }
}

/// One particle's sums of the filter over its neighbours, then its filtered velocity (module
/// docs): [`PlaneSums`] for a planar fluid, [`SpaceSums`] otherwise.
pub(crate) trait FilterSums: Default {
    /// Whether there is a filter (false for [`NoSums`], a pass without one).
    const ACTIVE: bool = true;
    /// A neighbour at `d = x_j − x_i` (m) whose velocity differs by `dv` (m/s), with its
    /// kernel weight `w = V W_ij` and, unless it has no direction, its gradient
    /// `grad = V ∇_i W_ij` (1/m).
    fn add(&mut self, d: &Vec3, dv: &Vec3, w: Real, grad: Option<&Vec3>);
    /// The filtered velocity of a particle at velocity `vi` (m/s), by the fraction `eps`.
    fn velocity(&self, vi: Vec3, eps: Real) -> Vec3;
}

/// No filter: a pass that could carry the filter's sums but does not.
#[derive(Default)]
pub(crate) struct NoSums;

impl FilterSums for NoSums {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn add(&mut self, _: &Vec3, _: &Vec3, _: Real, _: Option<&Vec3>) {}
    fn velocity(&self, vi: Vec3, _: Real) -> Vec3 {
        vi
    }
}

/// The 3D sums: the moments `L_i = Σ V (x_j − x_i) ⊗ ∇W` and `Σ V (v_j − v_i) ⊗ ∇W`, and the
/// kernel-weighted sums `Σ V W (v_j − v_i)`, `Σ V W (x_j − x_i)` and `Σ V W`, from which
/// `Σ V W [(v_j − v_i) − G_i (x_j − x_i)]` is `Σ V W (v_j − v_i) − G_i Σ V W (x_j − x_i)`.
#[derive(Default)]
pub(crate) struct SpaceSums {
    l: crate::math::Mat3,
    g: crate::math::Mat3,
    wv: Vec3,
    wx: Vec3,
    den: Real,
}

impl FilterSums for SpaceSums {
    #[inline(always)]
    fn add(&mut self, d: &Vec3, dv: &Vec3, w: Real, grad: Option<&Vec3>) {
        self.wv += dv * w;
        self.wx += d * w;
        self.den += w;
        if let Some(grad) = grad {
            self.l += d * grad.transpose();
            self.g += dv * grad.transpose();
        }
    }

    fn velocity(&self, vi: Vec3, eps: Real) -> Vec3 {
        let Some(li) = self.l.try_inverse() else {
            return vi;
        };
        if li.norm() > MAX_INVERSE_MOMENT {
            return vi;
        }
        let grad_v = self.g * li;
        if self.den > 0.0 {
            vi + (self.wv - grad_v * self.wx) * (eps / self.den)
        } else {
            vi
        }
    }
}

/// The planar sums: [`SpaceSums`]' on the plane's 2 × 2 blocks only. The out-of-plane rows and
/// columns of the moments are zero there (and `L_i`'s `zz` entry is taken as 1), so every
/// in-plane number is the 3 × 3 computation's, term by term and in its order (the same bits; a
/// 3 × 3 computation took 30 % more of the flume's step).
#[derive(Default)]
pub(crate) struct PlaneSums {
    /// Row-major 2 × 2 blocks of `L_i` and of the velocity moment.
    l: [Real; 4],
    g: [Real; 4],
    wv: [Real; 2],
    wx: [Real; 2],
    den: Real,
}

impl FilterSums for PlaneSums {
    #[inline(always)]
    fn add(&mut self, d: &Vec3, dv: &Vec3, w: Real, grad: Option<&Vec3>) {
        let (l, g, wv, wx) = (&mut self.l, &mut self.g, &mut self.wv, &mut self.wx);
        *wv = [wv[0] + dv.x * w, wv[1] + dv.y * w];
        *wx = [wx[0] + d.x * w, wx[1] + d.y * w];
        self.den += w;
        if let Some(grad) = grad {
            *l = [
                l[0] + d.x * grad.x,
                l[1] + d.x * grad.y,
                l[2] + d.y * grad.x,
                l[3] + d.y * grad.y,
            ];
            *g = [
                g[0] + dv.x * grad.x,
                g[1] + dv.x * grad.y,
                g[2] + dv.y * grad.x,
                g[3] + dv.y * grad.y,
            ];
        }
    }

    fn velocity(&self, vi: Vec3, eps: Real) -> Vec3 {
        let (l, g, wv, wx) = (&self.l, &self.g, &self.wv, &self.wx);
        // nalgebra's 3 × 3 inverse with the zz entry 1 and the rest of the third row and
        // column 0, written out.
        let det = l[0] * l[3] - l[1] * l[2];
        if det == 0.0 {
            return vi;
        }
        let li = [l[3] / det, (0.0 - l[1]) / det, -l[2] / det, l[0] / det];
        let zz = (l[0] * l[3] - l[2] * l[1]) / det;
        let norm2 = (li[0] * li[0] + li[2] * li[2]) + (li[1] * li[1] + li[3] * li[3]) + zz * zz;
        if norm2.sqrt() > MAX_INVERSE_MOMENT {
            return vi;
        }
        let gv = [
            g[0] * li[0] + g[1] * li[2],
            g[0] * li[1] + g[1] * li[3],
            g[2] * li[0] + g[3] * li[2],
            g[2] * li[1] + g[3] * li[3],
        ];
        if self.den > 0.0 {
            let s = eps / self.den;
            let fx = gv[0] * wx[0] + gv[1] * wx[1];
            let fy = gv[2] * wx[0] + gv[3] * wx[1];
            Vec3::new(vi.x + (wv[0] - fx) * s, vi.y + (wv[1] - fy) * s, vi.z)
        } else {
            vi
        }
    }
}

/// Removes from the filtered velocities `next` (m/s) the mean and rigid rotation about the
/// centroid of their change from `vel`, so the filter keeps the fluid's linear and angular
/// momentum exactly (sums in particle order: the result does not depend on the thread count;
/// of a divided fluid, `halo`, over each part's own particles, then over the parts).
fn keep_momentum(
    pos: &[Vec3],
    vel: &[Vec3],
    next: &mut [Vec3],
    planar: bool,
    halo: Option<&mut (dyn super::halo::Halo + '_)>,
) {
    let n = pos.len();
    let mut halo = halo;
    let mut centroid = [0.0; 4];
    for x in owned_of(pos, halo.as_deref().map(|h| h.owned())) {
        centroid = [
            centroid[0] + x.x,
            centroid[1] + x.y,
            centroid[2] + x.z,
            centroid[3] + 1.0,
        ];
    }
    if let Some(h) = halo.as_deref_mut() {
        h.sum(&mut centroid);
    }
    let count = centroid[3];
    if count > 0.0 {
        let c = Vec3::new(centroid[0], centroid[1], centroid[2]) / count;
        let (mut dp, mut dl) = (Vec3::zeros(), Vec3::zeros());
        let mut inertia = crate::math::Mat3::zeros();
        let owned = halo.as_deref().map(|h| h.owned());
        for i in (0..n).filter(|&i| owned.is_none_or(|o| o[i])) {
            let (r, dv) = (pos[i] - c, next[i] - vel[i]);
            dp += dv;
            dl += r.cross(&dv);
            inertia += crate::math::Mat3::identity() * r.norm_squared() - r * r.transpose();
        }
        if let Some(h) = halo {
            let mut s = [0.0; 15];
            s[..3].copy_from_slice(dp.as_slice());
            s[3..6].copy_from_slice(dl.as_slice());
            s[6..].copy_from_slice(inertia.as_slice());
            h.sum(&mut s);
            dp = Vec3::from_column_slice(&s[..3]);
            dl = Vec3::from_column_slice(&s[3..6]);
            inertia = crate::math::Mat3::from_column_slice(&s[6..]);
        }
        let dv_mean = dp / count;
        let omega = if planar {
            let izz = inertia[(2, 2)];
            Vec3::new(0.0, 0.0, if izz > 0.0 { dl.z / izz } else { 0.0 })
        } else {
            inertia.try_inverse().map(|m| m * dl).unwrap_or_default()
        };
        for (x, b) in pos.iter().zip(next.iter_mut()) {
            *b -= dv_mean + omega.cross(&(x - c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fluid::FluidParams;

    /// The largest velocity change (m/s) of one filter pass (ε = 0.3) over particles at `pos`
    /// with velocities `vel` (3D, spacing 1 cm, no walls).
    fn largest_change(pos: Vec<Vec3>, vel: Vec<Vec3>) -> Real {
        let mut f = Fluid::new(FluidParams::default(), pos, vel.clone(), Vec::new());
        f.update_neighbours(&[]);
        let before: Vec<Vec3> = f.id.iter().map(|&k| vel[k as usize]).collect();
        f.filter_velocities(0.3, None, None);
        f.vel
            .iter()
            .zip(&before)
            .map(|(a, b)| (a - b).norm())
            .fold(0.0, Real::max)
    }

    /// Droplets of 2–7 particles at random within 1.5 spacings, moving at random by up to
    /// 1 cm/s: their `L_i` are (nearly) singular, and a velocity gradient measured from them
    /// turned that noise into 5.5 m/s (20 000 droplets, without [`MAX_INVERSE_MOMENT`]). The
    /// filter leaves such particles as they are: no change beyond the noise's own size. A block
    /// of fluid with the same noise is filtered.
    #[test]
    fn droplets_are_left_alone() {
        let l = 0.01;
        let mut seed = 12345u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as Real / (1u64 << 53) as Real
        };
        let mut worst: Real = 0.0;
        for _ in 0..20_000 {
            let n = 2 + (rnd() * 6.0) as usize;
            let pos = (0..n)
                .map(|_| Vec3::new(rnd(), rnd(), rnd()) * (1.5 * l))
                .collect();
            let vel = (0..n)
                .map(|_| Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.02)
                .collect();
            worst = worst.max(largest_change(pos, vel));
        }
        assert!(worst < 0.01, "a droplet's velocity changed by {worst} m/s");
        let block: Vec<Vec3> = (0..6 * 6 * 6)
            .map(|i| Vec3::new((i % 6) as Real, (i / 6 % 6) as Real, (i / 36) as Real) * l)
            .collect();
        let vel = (0..block.len())
            .map(|_| Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.02)
            .collect();
        let change = largest_change(block, vel);
        assert!(change > 1e-4 && change < 0.01, "{change}");
    }

    /// The planar path ([`Plane`]): a linear velocity field over a 2D block (uniform flow plus
    /// a strain and a rotation) is left as it is to round-off, also at the block's edges, and
    /// noise on it is damped, particle by particle nearer the field than before.
    #[test]
    fn a_planar_linear_field_is_kept_and_its_noise_damped() {
        let l = 0.01;
        let params = FluidParams {
            planar: true,
            kernel: crate::fluid::kernel::Kernel::new(
                crate::fluid::kernel::KernelKind::Wendland,
                1.3 * l,
                2,
            ),
            spacing: l,
            ..FluidParams::default()
        };
        let pos: Vec<Vec3> = (0..20 * 12)
            .map(|i| Vec3::new((i % 20) as Real, (i / 20) as Real, 0.0) * l)
            .collect();
        let field = |x: &Vec3| {
            Vec3::new(
                0.3 + 2.0 * x.x - 5.0 * x.y,
                -0.1 + 4.0 * x.x - 2.0 * x.y,
                0.0,
            )
        };
        let filtered = |noise: Real| {
            let mut seed = 99u64;
            let vel: Vec<Vec3> = pos
                .iter()
                .map(|x| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let a = (seed >> 11) as Real / (1u64 << 53) as Real - 0.5;
                    field(x) + Vec3::new(a, -a, 0.0) * noise
                })
                .collect();
            let mut f = Fluid::new(params, pos.clone(), vel, Vec::new());
            f.update_neighbours(&[]);
            let before = f.vel.clone();
            f.filter_velocities(0.5, None, None);
            (0..f.pos.len())
                .map(|i| {
                    (
                        (before[i] - field(&f.pos[i])).norm(),
                        (f.vel[i] - field(&f.pos[i])).norm(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let kept = filtered(0.0).iter().map(|e| e.1).fold(0.0, Real::max);
        assert!(kept < 1e-12, "a linear field changed by {kept} m/s");
        let noisy = filtered(0.02);
        let (b, a): (Real, Real) = noisy.iter().fold((0.0, 0.0), |s, e| (s.0 + e.0, s.1 + e.1));
        assert!(a < 0.8 * b, "noise {b} -> {a}");
    }
}
