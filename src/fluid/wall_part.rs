//! The static walls of one part of a fluid divided among processes ([`super::halo`]): a part
//! holds the wall particles within reach of its own fluid, not the whole container. Its static
//! walls are a subset of the model's, in the model's order (so that every sum over walls runs
//! in the same order as in one process), rebuilt at each redistribution from the walls it keeps
//! and those it receives packed ([`Fluid::pack_wall`]); body particles, after the static walls,
//! are on every part and left alone.

use super::halo::Carried;
use super::{Fluid, STATIC};
use crate::math::{Real, Vec3};

/// Where each static wall particle of a rebuilt part comes from.
#[derive(Debug, Clone, Copy)]
pub enum WallSource {
    /// The part's static wall particle with this index now.
    Kept(u32),
    /// Record `k` of the packed records handed to [`Fluid::rebuild_walls`].
    Packed(u32),
}

impl Fluid {
    /// The number of static wall particles (the leading boundary particles; the body particles
    /// follow, one [`Fluid::local`] each).
    pub fn static_walls(&self) -> usize {
        self.boundary.len() - self.local.len()
    }

    /// Numbers per packed static wall particle: position, the body its force goes to, the
    /// vector to its surface, its wall density sum, its pressure, then one per carried array.
    pub fn wall_width(carried: &Carried<'_>) -> usize {
        9 + carried.walls.len()
    }

    /// Packs static wall particle `i` onto `out` ([`Fluid::wall_width`] numbers; an array not
    /// in use sends 0).
    pub fn pack_wall(&self, i: usize, carried: &Carried<'_>, out: &mut Vec<Real>) {
        let nb = self.boundary.len();
        let (x, s) = (self.boundary[i], self.to_surface[i]);
        let at = |a: &[Real]| if a.len() == nb { a[i] } else { 0.0 };
        out.extend([x.x, x.y, x.z, self.wall_body[i] as Real, s.x, s.y, s.z]);
        out.extend([at(&self.bdens), at(&self.boundary_pressure)]);
        out.extend(carried.walls.iter().map(|a| at(a)));
    }

    /// Makes the static wall particles those of `sources`, in order (kept ones, or records
    /// of `packed`, each [`Fluid::wall_width`] numbers), the body particles following as they
    /// were; the carried per-boundary arrays in use follow. The walls' cell grid is rebuilt at
    /// the next search.
    pub fn rebuild_walls(&mut self, sources: &[WallSource], packed: &[Real], c: &mut Carried<'_>) {
        let (ns, nb) = (self.static_walls(), self.boundary.len());
        let w = Self::wall_width(c);
        let rec = |k: u32| &packed[k as usize * w..(k as usize + 1) * w];
        fn rebuild<T: Copy>(
            a: &mut Vec<T>,
            (ns, nb): (usize, usize),
            sources: &[WallSource],
            packed: impl Fn(u32) -> T,
        ) {
            if a.len() != nb {
                return;
            }
            let mut out: Vec<T> = sources
                .iter()
                .map(|s| match *s {
                    WallSource::Kept(i) => a[i as usize],
                    WallSource::Packed(k) => packed(k),
                })
                .collect();
            out.extend_from_slice(&a[ns..]);
            *a = out;
        }
        let v = |r: &[Real], o: usize| Vec3::new(r[o], r[o + 1], r[o + 2]);
        let n = (ns, nb);
        rebuild(&mut self.boundary, n, sources, |k| v(rec(k), 0));
        rebuild(&mut self.owner, n, sources, |_| STATIC);
        rebuild(&mut self.wall_body, n, sources, |k| rec(k)[3] as u32);
        rebuild(&mut self.to_surface, n, sources, |k| v(rec(k), 4));
        rebuild(&mut self.bdens, n, sources, |k| rec(k)[7]);
        rebuild(&mut self.boundary_pressure, n, sources, |k| rec(k)[8]);
        for (j, a) in c.walls.iter_mut().enumerate() {
            rebuild(a, n, sources, |k| rec(k)[9 + j]);
        }
        // (The grid over the walls is rebuilt when its item count differs from theirs.)
        self.bgrid.items.clear();
    }
}
