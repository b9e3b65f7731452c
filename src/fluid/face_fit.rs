//! How a moving body's boundary particles meet the fluid's lattice, face by face: where a face
//! lies midway between two rows of fluid particles, its outer boundary particles (half a
//! spacing inside it) have the fluid particle facing them one spacing away, as in the fluid;
//! farther is a gap the body settles into at the start, nearer a compressed start. Distances in
//! spacings.

/// How a moving body's boundary particles meet the fluid's lattice: the nearest fluid particle
/// to any of them on its outward side, and by flat face the distances to the fluid particle
/// facing each (all in spacings). `check` warns by it (`model::warnings`), and the build lays a
/// body's particles by it.
#[derive(Debug)]
pub struct FaceFit {
    /// Nearest fluid particle on a boundary particle's outward side (spacings).
    pub closest: f64,
    /// Distances to the facing fluid particle within 2.5 spacings by face: -x, +x, -y, +y, -z,
    /// +z.
    faces: [Vec<f64>; 6],
}

impl Default for FaceFit {
    fn default() -> Self {
        FaceFit {
            closest: f64::INFINITY,
            faces: Default::default(),
        }
    }
}

impl FaceFit {
    /// Adds the boundary particle at `b` (m) whose vector to the body's surface is `s` (m; zero
    /// where unknown: it looks through no face), against the fluid particles `pos` in `grid`
    /// (cells of 2 `l`), spacing `l`.
    pub fn add(
        &mut self,
        grid: &crate::fluid::grid::CellGrid,
        pos: &[crate::math::Vec3],
        b: &crate::math::Vec3,
        s: &crate::math::Vec3,
        l: f64,
    ) {
        self.closest = self
            .closest
            .min(grid.nearest(pos, b, |r| r.dot(s) >= 0.0) / l);
        // Flat faces only: a curved surface meets no lattice everywhere (a circle's particles
        // 45° from its axes see the fluid 1.4 spacings away wherever it lies).
        let face = face_of(s);
        if s.norm() < l && s.norm() > 0.0 && s[face / 2].abs() >= AXIAL * s.norm() {
            let d = grid.nearest(pos, b, |r| r.dot(s) >= FACING * r.norm() * s.norm()) / l;
            if d < 2.5 {
                self.faces[face].push(d);
            }
        }
    }

    /// The face with the largest median distance to the fluid facing it and that median
    /// (spacings), if any face sees the fluid.
    pub fn worst(&mut self) -> Option<(usize, f64)> {
        self.faces
            .iter_mut()
            .enumerate()
            .filter(|(_, d)| !d.is_empty())
            .map(|(face, d)| {
                d.sort_by(f64::total_cmp);
                (face, d[d.len() / 2])
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The cone about a boundary particle's vector to the surface within which a fluid particle
/// faces it (the cosine of its half-angle, 37°).
pub const FACING: f64 = 0.8;

/// How nearly along an axis a boundary particle's vector to the surface must point for it to
/// count in its face's median (the cosine of the angle, 11°).
pub const AXIAL: f64 = 0.98;

/// The face of an axis-aligned box a vector `s` looks through: 0..6 for -x, +x, -y, +y, -z,
/// +z (its largest component's axis and sign).
fn face_of(s: &crate::math::Vec3) -> usize {
    let a = s.iamax();
    2 * a + usize::from(s[a] > 0.0)
}
