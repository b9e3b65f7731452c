//! Particle shifting: Fickian shifting of Lind, Xu, Stansby & Rogers 2012 ("Incompressible
//! smoothed particle hydrodynamics for free-surface flows: a generalised diffusion-based
//! algorithm for stability and validations for impulsive flows and propagating waves",
//! J. Comput. Phys. 231:1499), with the velocity-scaled coefficient of Skillen et al.
//! 2013 (Comput. Methods Appl. Mech. Eng. 265:163): `δr_i = −A h u_max dt ∇C_i` (m), tangential
//! only near a free surface, never into a wall. 004 §3.5 uses Xu et al.'s form instead (see
//! below for why not here).

use super::halo::owned_of;
use super::kernel::{volume_gradient_at, volume_gradient_of, Kernel};
use super::periodic::Periodic;
use super::{per_particle_pair, per_particle_update, Fluid};
use crate::math::{Real, Vec3};

/// Kernel fill `V Σ_j W_ij` (self and boundary included) below which a particle counts as near
/// a free surface for [`Fluid::shift_particles`] (1 inside the initial lattice).
pub const SURFACE_FILL: Real = 0.95;

/// Largest particle shift per step, in spacings.
pub const SHIFT_CAP: Real = 0.1;

impl Fluid {
    /// Particle shifting (Fickian, Lind et al. 2012; coefficient scaled with the speed as in
    /// Skillen et al. 2013): after the move, each particle is displaced by
    /// `δr_i = −A h u_max dt ∇C_i` (m), `C_i = V Σ_j W_ij` the kernel fill over fluid and boundary
    /// neighbours (the quantity the density rows hold at ≤ 1), `h` the smoothing length and
    /// `u_max` the largest fluid speed relative to the fluid's mean velocity (so that a uniform
    /// motion of the whole fluid, e.g. a container falling freely, does not shift anything; before
    /// this the absolute speed was used): particles move from denser to sparser places (a column
    /// squeezed together, a gap), and in a fluid at rest `u_max` is small and so is the shift.
    /// The velocity is kept (no Taylor correction).
    ///
    /// Free surface (after Lind et al. 2012): near a surface `∇C` points into the fluid and the
    /// shift would push particles out of it, so in the surface band — particles whose fill is
    /// below [`SURFACE_FILL`], and their fluid neighbours — the component along `∇C` (the
    /// surface normal) is removed and only the tangential shift is kept. A shift is capped at
    /// [`SHIFT_CAP`] spacings. (Xu et al.'s `Σ r_ij / |r_ij|³` form, used by 004 §3.5, was
    /// tried first: it compressed the 20 000-particle dam break by 5 % at t = 0.1 s, against
    /// 0.6 % with this form and 0.35 % without shifting; the book's fluid chapter.)
    ///
    /// Walls: a shift never points into a wall. Its component along the wall normal of each
    /// boundary particle within the support ([`Fluid::to_surface`]), and along the boundary
    /// particles' share of `∇C`, is removed when it points into the wall: the tangential shift
    /// of a particle running along a wall in the surface band (WCSPH's dam break, the jet
    /// climbing the far wall, or the first impact in its corner) could otherwise carry it into
    /// the wall, which the constraint method's wall rows would stop but WCSPH's wall pressure
    /// does not.
    pub fn shift_particles(&mut self, h: Real) {
        let umax = self.relative_speed_max(None);
        self.shift_particles_at(h, umax, None);
    }

    /// `u_max` of [`Fluid::shift_particles`]: the largest fluid speed relative to the fluid's
    /// mean velocity (m/s; the mean a sum in particle order: thread-count independent), over
    /// the whole fluid when it is divided among processes (`halo`: owned particles only, then
    /// reduced; [`super::halo`]). Shifting must not grow with a uniform motion of the whole
    /// fluid (a container of water in free fall).
    pub fn relative_speed_max(&self, mut halo: Option<&mut (dyn super::halo::Halo + '_)>) -> Real {
        let (sum, count) = owned_of(&self.vel, halo.as_deref().map(|h| h.owned()))
            .fold((Vec3::zeros(), 0.0), |(s, c), v| (s + v, c + 1.0));
        let mut total = [sum.x, sum.y, sum.z, count];
        if let Some(h) = halo.as_deref_mut() {
            h.sum(&mut total);
        }
        let mean = Vec3::new(total[0], total[1], total[2]) / total[3].max(1.0);
        let mut largest = [owned_of(&self.vel, halo.as_deref().map(|h| h.owned()))
            .map(|v| (v - mean).norm())
            .fold(0.0, Real::max)];
        if let Some(h) = halo {
            h.max(&mut largest);
        }
        largest[0]
    }

    /// [`Fluid::shift_particles`] with `u_max` given (m/s). With a `halo` (a divided fluid) the
    /// ghosts take their owners' fills before the surface band is found: a ghost's fill is then
    /// summed over all its neighbours, also where the ghost layer ends within its support.
    pub fn shift_particles_at(
        &mut self,
        h: Real,
        umax: Real,
        halo: Option<&mut (dyn super::halo::Halo + '_)>,
    ) {
        let (k, per) = (self.params.kernel, self.params.periodic);
        let (l, beta) = (self.params.spacing, self.params.shifting);
        if umax == 0.0 {
            return;
        }
        let n = self.pos.len();
        // Pass 1: the fills, and ∇C_i in `out` (then replaced by the shift: no buffer of its own).
        let mut fills = std::mem::take(&mut self.fill);
        let mut out = std::mem::take(&mut self.spare);
        fills.resize(n, 0.0);
        out.resize(n, Vec3::zeros());
        self.fills_and_gradients(&mut fills, &mut out);
        if let Some(halo) = halo {
            halo.refresh(&mut self.pos, &mut self.vel, &mut fills);
        }
        let (pos, ff, fb, boundary) = (&self.pos, &self.ff, &self.fb, &self.boundary);
        let (surf, v0, smooth) = (&self.to_surface, self.volume, &self.smooth);
        // Pass 2: the shifts; tangential in the surface band (a surface particle or a
        // neighbour of one).
        let fill = &fills;
        let s2 = k.support() * k.support();
        let shift = |i: usize, grad: &Vec3| -> Vec3 {
            let grad = *grad;
            let mut d = grad * (-beta * k.h * umax * h);
            let gn = grad.norm();
            let band =
                fill[i] < SURFACE_FILL || ff.of(i).iter().any(|&j| fill[j as usize] < SURFACE_FILL);
            if band && gn > 0.0 {
                let n = grad / gn;
                d -= n * d.dot(&n);
            }
            // Never towards a wall: what is left of the tangential shift of a particle running
            // along a wall in the surface band can point into it. On the way, the boundary
            // particles' share of ∇C_i, pointing into the walls near i (as pass 1 summed it).
            let mut wall = Vec3::zeros();
            for &j in fb.of(i) {
                let j = j as usize;
                let r = per.delta(&pos[i], &boundary[j]);
                let r2 = r.norm_squared();
                if r2 >= s2 {
                    continue;
                }
                wall += volume_gradient_at(&k, v0, &r, r2.sqrt());
                // (`to_surface` points into the fluid; zero where unknown.)
                let n = -surf[j].try_normalize(0.0).unwrap_or_default();
                let into = d.dot(&n);
                if into > 0.0 {
                    d -= n * into;
                }
            }
            wall += smooth.fill(&pos[i]).1;
            let wn = wall.norm();
            if wn > 0.0 && d.dot(&wall) > 0.0 {
                let n = wall / wn;
                d -= n * d.dot(&n);
            }
            let m = d.norm();
            if m > SHIFT_CAP * l {
                d *= SHIFT_CAP * l / m;
            }
            d
        };
        per_particle_update(&mut out, shift);
        let planar = self.params.planar;
        for (x, d) in self.pos.iter_mut().zip(&out) {
            *x += d;
            if planar {
                x.z = 0.0;
            }
        }
        self.spare = out;
        self.fill = fills;
    }

    /// Pass 1 of [`Fluid::shift_particles`], one distance per pair: the kernel fill of every
    /// particle into `fills` (1 inside the lattice; self and boundary included) and ∇C_i (1/m)
    /// over its fluid and boundary neighbours into `grads`.
    fn fills_and_gradients(&self, fills: &mut [Real], grads: &mut [Vec3]) {
        let (k, per, v0) = (self.params.kernel, self.params.periodic, self.volume);
        let (pos, ff, fb, boundary) = (&self.pos, &self.ff, &self.fb, &self.boundary);
        per_particle_pair(fills, grads, |i| {
            let xi = &pos[i];
            let (fill, fluid) = gather(&k, per, v0, v0 * k.w(0.0), xi, pos, ff.of(i));
            let (fill, wall) = gather(&k, per, v0, fill, xi, boundary, fb.of(i));
            let (smooth, towards) = self.smooth.fill(xi);
            (fill + smooth, fluid + wall + towards)
        });
    }
}

/// `fill` plus the kernel fill `V Σ_j W_ij` over the particles `others[list]`, and their share
/// `V Σ_j ∇_i W_ij` of ∇C_i (1/m), around `xi`; the kernel's compact support is in `w` and `dw`.
#[inline(always)]
fn gather(
    k: &Kernel,
    per: Periodic,
    v0: Real,
    fill: Real,
    xi: &Vec3,
    others: &[Vec3],
    list: &[u32],
) -> (Real, Vec3) {
    let (mut fill, mut grad) = (fill, Vec3::zeros());
    let s2 = k.support() * k.support();
    for &j in list {
        let d = per.delta(xi, &others[j as usize]);
        // The lists hold a skin beyond the support, where W and ∇W are zero: skipped before
        // the square root, whose distance then serves both W and ∇W.
        let r2 = d.norm_squared();
        if r2 >= s2 {
            continue;
        }
        let r = r2.sqrt();
        let (w, dw) = k.w_dw(r);
        fill += v0 * w;
        grad += volume_gradient_of(v0, &d, r, dw);
    }
    (fill, grad)
}
