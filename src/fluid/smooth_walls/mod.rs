//! Smooth walls: flat static walls as a kernel field instead of boundary particles
//! (`fluid: (walls: Smooth, ..)`; the constraint method).
//!
//! A wall of boundary particles on the fluid's lattice is corrugated: a particle sliding along
//! it under pressure rides over the bumps of the lattice's kernel sum, and the wall grips the
//! water (the book's waves chapter: a standing wave 4 % fast and losing twice the height per
//! period against smooth plates). A smooth wall replaces the particles of an axis-aligned
//! static box by their kernel sum *averaged along the wall's surface*: layers of the lattice
//! at depths `(n + ½) l` below the face nearest to the particle, each spread evenly along the
//! face, so the field depends only on the distance to the face (and, near the box's edges, on
//! where the face ends). Its value at a fluid particle `x` is
//!
//! `Φ(x) = Σ_n (V / l^(d−1)) ∫_face W(|x − y_n|) dA`  (dimensionless),
//!
//! `V` the particle volume (m^d), `l` the spacing (m), `y_n` the points of layer `n`; it takes
//! the boundary particles' place in the kernel-sum density of each fluid row,
//! `ρ_i/ρ0 = V Σ_j W_ij + Φ(x_i)`, and `∇Φ` their share of the row's gradient (the wall is
//! fixed, so the row has no wall column). The integrals along the face are tabulated once per
//! kernel ([`tables`]). On the square lattice a layer's average differs from the lattice sum at
//! a particle that sits over a column by 1.5e-4 of the rest density (2D, Wendland at
//! h = 1.3 l), so fluid sampled on the lattice starts at rest against a smooth wall as against
//! the particles it replaces.
//!
//! This is the boundary-integral idea of Kulasegaram, Bonet, Lewis & Profit 2004 (Comput.
//! Mech. 33:316, the kernel's missing volume as a wall term), Ferrand et al. 2013 (Int. J.
//! Numer. Meth. Fluids 71:446, its gradient as the wall's force) and Koschier & Bender 2017 (SCA,
//! "Density maps": the wall's share of the density on a grid), here with the layering of the
//! particles it replaces so that it keeps their rest state.
//!
//! Boxes that overlap are split into disjoint ones first (each part of a wall counts once),
//! and on a periodic axis a box spanning the period is endless. A particle that has crossed a
//! face into its box sees the field at the face extended along its gradient (it grows as the
//! particle goes deeper, never falls). Walls are free-slip (no viscous wall term; water's
//! boundary layer is far thinner than a spacing in the flows this is for).
//!
//! Limits (measured on the book's waves page): a smooth wall has no rows of its own, and at the
//! lattice's position a particle's own row gains from the wall what it loses from the fluid
//! when it moves towards it, so under load the first layer sinks towards the wall (half a
//! spacing to about 0.17 in a tank at rest); water at rest is not held as the particle walls'
//! own rows hold it (in the standing wave's tank at rest, 0.5 m of water at l = 0.025 m and
//! h = 2.0 l, the sinking drops 8.2 J/m of potential energy in the first 0.03 s and peaks at
//! 6.7 J/m of kinetic energy; plane contact rows holding the first layer half a spacing off the
//! wall remove that start but double the standing wave's loss per period, `benches/LOG.md`,
//! 2026-12-02; and the column by a side wall comes loose from the water and slides along the
//! wall, climbing at about 0.1 m/s in that tank at rest, converged or not), and a moving wall
//! made this way (a piston) gives a smaller wave. For waves
//! along flat static walls, with a kernel of h = 2.0 l, it takes the boundary particles' grip
//! away: the standing wave on linear theory's period, the coarse flumes' waves within 4–9 %;
//! but the closed tank's side walls still take about three quarters of the standing wave's loss
//! (the same wave on a periodic axis, without them: 3.4 % of its height per period against
//! 12.6 % at l = 0.025 m).

pub mod tables;

use super::kernel::Kernel;
use super::periodic::Periodic;
use crate::math::{Real, Vec3};
use tables::{Line, Plate};

/// An axis-aligned box of wall (m), from the static body `body` (its index among the model's
/// bodies).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WallBox {
    /// Lower corner (m).
    pub min: Vec3,
    /// Upper corner (m).
    pub max: Vec3,
    /// The body it belongs to.
    pub body: u32,
}

/// The smooth walls of a fluid (module docs); empty: none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmoothWalls {
    boxes: Vec<WallBox>,
    kernel: Option<Kernel>,
    planar: bool,
    /// Spacing l (m).
    l: Real,
    /// `V / l^(d−1)` (m): a layer's weight.
    weight: Real,
    line: Line,
    plate: Plate,
}

impl SmoothWalls {
    /// Smooth walls of the boxes `boxes` (m) for a fluid of kernel `kernel`, spacing `l` (m),
    /// particle volume `volume` (m^d), in 2D if `planar`, periodic on `periodic`'s axes.
    pub fn new(
        boxes: Vec<WallBox>,
        kernel: Kernel,
        l: Real,
        volume: Real,
        planar: bool,
        periodic: &Periodic,
    ) -> SmoothWalls {
        if boxes.is_empty() {
            return SmoothWalls::default();
        }
        let dims = if planar { 2 } else { 3 };
        let boxes = images(disjoint(boxes, dims), periodic, dims);

        let line = Line::new(&kernel);
        let plate = if planar {
            Plate::default()
        } else {
            Plate::new(&kernel, &line)
        };
        SmoothWalls {
            boxes,
            kernel: Some(kernel),
            planar,
            l,
            weight: volume / l.powi(dims as i32 - 1),
            line,
            plate,
        }
    }

    /// Whether there is no smooth wall.
    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }

    /// The disjoint boxes the walls were split into (with their periodic images).
    pub fn boxes(&self) -> &[WallBox] {
        &self.boxes
    }

    /// The walls' share `Φ(x)` of the kernel-sum density at `x` (dimensionless, a fraction of
    /// the rest density) and its gradient `∇Φ` (1/m).
    #[inline]
    pub fn fill(&self, x: &Vec3) -> (Real, Vec3) {
        let mut out = (0.0, Vec3::zeros());
        if let Some(k) = &self.kernel {
            for b in &self.boxes {
                let (f, g) = self.one(k, b, x);
                out.0 += f;
                out.1 += g;
            }
        }
        out
    }

    /// One box's share of [`SmoothWalls::fill`].
    #[inline]
    fn one(&self, k: &Kernel, b: &WallBox, x: &Vec3) -> (Real, Vec3) {
        let s = k.support();
        let dims = if self.planar { 2 } else { 3 };
        // The face the particle looks at: the axis along which it is farthest outside.
        let (mut a, mut o) = (0, Real::NEG_INFINITY);
        for ax in 0..dims {
            let out = (b.min[ax] - x[ax]).max(x[ax] - b.max[ax]);
            if out > o {
                (a, o) = (ax, out);
            }
        }
        if o >= s {
            return (0.0, Vec3::zeros());
        }
        let top = x[a] >= 0.5 * (b.min[a] + b.max[a]);
        let (face, into) = if top {
            (b.max[a], -1.0)
        } else {
            (b.min[a], 1.0)
        };
        let xa = if o < 0.0 { face } else { x[a] };
        let thick = b.max[a] - b.min[a];
        let (mut phi, mut g) = (0.0, Vec3::zeros());
        let mut n = 0;
        loop {
            let depth = (n as Real + 0.5) * self.l;
            let v = xa - (face + into * depth);
            if depth >= thick || v.abs() >= s {
                break;
            }
            let (f, gv, gt) = self.layer(b, x, a, v);
            phi += f;
            g[a] += gv;
            g += gt;
            n += 1;
        }
        // Past the face: the field at the face, extended along its gradient.
        phi += (x[a] - xa) * g[a];
        (phi * self.weight, g * self.weight)
    }

    /// A layer at `v` (m) along axis `a` from `x` (`v = x_a − y_a`): the kernel's integral over
    /// the box's extent along the other axes (1/m in 2D and 3D alike: `W` is 1/m^d, the
    /// integral spans d − 1 axes; times the layer's weight `V / l^(d−1)` it is dimensionless),
    /// its derivative along `a` (1/m²) and its gradient along the other axes (1/m², zero along
    /// `a`).
    #[inline]
    fn layer(&self, b: &WallBox, x: &Vec3, a: usize, v: Real) -> (Real, Real, Vec3) {
        let mut gt = Vec3::zeros();
        if self.planar {
            let t = 1 - a;
            let (u0, u1) = (b.min[t] - x[t], b.max[t] - x[t]);
            let (l0, lu0, lv0) = self.line.with_du(u0, v);
            let (l1, lu1, lv1) = self.line.with_du(u1, v);
            gt[t] = lu1 - lu0;
            return (l0 - l1, lv0 - lv1, gt);
        }
        let (t, r) = ((a + 1) % 3, (a + 2) % 3);
        let (u0, u1) = (b.min[t] - x[t], b.max[t] - x[t]);
        let (w0, w1) = (b.min[r] - x[r], b.max[r] - x[r]);
        let p = |u, w| self.plate.at(u, w, v);
        let (q00, q10, q01, q11) = (p(u0, w0), p(u1, w0), p(u0, w1), p(u1, w1));
        let sum = |e: usize| q00[e] - q10[e] - q01[e] + q11[e];
        // (u = min − x_t: ∂/∂x_t = −∂/∂u; likewise w.)
        gt[t] = -sum(1);
        gt[r] = -sum(2);
        (sum(0), sum(3), gt)
    }
}

/// The boxes split so that no two overlap (each later box loses what earlier ones cover).
fn disjoint(boxes: Vec<WallBox>, dims: usize) -> Vec<WallBox> {
    let mut kept: Vec<WallBox> = Vec::new();
    for b in boxes {
        let mut parts = vec![b];
        for k in &kept {
            parts = parts
                .into_iter()
                .flat_map(|p| subtract(p, k, dims))
                .collect();
        }
        kept.extend(parts);
    }
    kept
}

/// The parts of `a` outside `b` (at most `2 dims` boxes).
fn subtract(mut a: WallBox, b: &WallBox, dims: usize) -> Vec<WallBox> {
    if (0..dims).any(|ax| a.max[ax] <= b.min[ax] || a.min[ax] >= b.max[ax]) {
        return vec![a];
    }
    let mut out = Vec::new();
    for ax in 0..dims {
        if a.min[ax] < b.min[ax] {
            let mut p = a;
            p.max[ax] = b.min[ax];
            out.push(p);
            a.min[ax] = b.min[ax];
        }
        if a.max[ax] > b.max[ax] {
            let mut p = a;
            p.min[ax] = b.max[ax];
            out.push(p);
            a.max[ax] = b.max[ax];
        }
    }
    out
}

/// On each periodic axis: a box spanning the period becomes endless, any other gets its
/// images one period either side.
fn images(boxes: Vec<WallBox>, periodic: &Periodic, dims: usize) -> Vec<WallBox> {
    let mut out = boxes;
    for ax in (0..dims).filter(|&ax| periodic.on(ax)) {
        let len = periodic.len[ax];
        let mut next = Vec::new();
        for mut b in out {
            if b.max[ax] - b.min[ax] >= len * (1.0 - 1e-9) {
                (b.min[ax], b.max[ax]) = (-Real::MAX, Real::MAX);
                next.push(b);
            } else {
                for shift in [-len, 0.0, len] {
                    let mut c = b;
                    c.min[ax] += shift;
                    c.max[ax] += shift;
                    next.push(c);
                }
            }
        }
        out = next;
    }
    out
}

#[cfg(test)]
mod tests;
