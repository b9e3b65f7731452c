//! Which lattices water at rest keeps: the least geometric stiffness `s` of the density sums
//! (`vcsim::fluid::lattice_stability`) of the square and hexagonal lattices (2D) and the cubic
//! and face-centred cubic lattices (3D), for each kernel (Wendland C2 and C6, the cubic spline)
//! over smoothing ratios h / l from 1.0
//! to 2.2 (l the nearest-neighbour distance). A negative `s` is a displacement wave that
//! lowers the density sums: under load (hydrostatic pressure) the lattice collapses along it,
//! however strongly the velocities are damped.
//!
//! `cargo run --release --example lattice_stability` (a few seconds; `-- --3d` adds the 3D
//! lattices, a minute).

use vcsim::fluid::kernel::{Kernel, KernelKind};
use vcsim::fluid::lattice_stability::least_stiffness;
use vcsim::fluid::sampling::LatticeKind;

fn main() {
    let three = std::env::args().any(|a| a == "--3d");
    let l = 1.0;
    let mut dims = vec![(2, "square", "hexagonal")];
    if three {
        dims.push((3, "cubic", "fcc"));
    }
    for (dim, a, b) in dims {
        let n = if dim == 2 { 81 } else { 25 };
        for kind in [
            KernelKind::Wendland,
            KernelKind::WendlandC6,
            KernelKind::CubicSpline,
        ] {
            println!("\n{dim}D, {kind:?}: least s (negative: collapses under load)");
            println!("| h / l | {a} | {b} |");
            println!("|---|---|---|");
            for i in 0..=24 {
                if std::env::var("LS_FINE").is_ok() && i > 0 {
                    break;
                }
                let ratio = 1.0 + 0.05 * i as f64;
                let kernel = Kernel::new(kind, ratio * l, dim);
                let s = least_stiffness(&kernel, l, LatticeKind::Square, n);
                let h = least_stiffness(&kernel, l, LatticeKind::Hexagonal, n);
                println!("| {ratio:.2} | {:+.2e} | {:+.2e} |", s.least, h.least);
            }
        }
    }
}
