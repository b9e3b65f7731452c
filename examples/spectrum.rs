//! Why the density solve needs hundreds of iterations: the spectrum of the operator
//! `N = J M⁻¹ Jᵀ + E` of the hydrostatic tank's first step, per group of rows.
//!
//! Each tank is the shipped hydrostatic tank (0.5 m wide, spacing 0.02 m) at the depths given
//! (default 0.25 0.5 1). For the whole problem and for the fluid rows alone, fluid + wall rows,
//! fluid + particle contact rows and the wall rows alone, it prints the number of rows, the
//! number of (numerically) zero eigenvalues (below 1e-10 of the largest), the smallest non-zero
//! and the largest eigenvalue (1/kg) and their ratio (the condition number on the range), and
//! the same ratio of the diagonally scaled operator `D^-1/2 N D^-1/2` that APGD iterates on by
//! default. The iteration count of an accelerated gradient method grows with the square root
//! of that ratio.
//!
//! `cargo run --release --example spectrum -- 0.25 0.5 1 2` (dense eigenvalues: the 2 m tank's
//! 3 200 rows take a minute).

mod common;

use nalgebra::DMatrix;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let depths: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let depths = if depths.is_empty() {
        vec![0.25, 0.5, 1.0]
    } else {
        depths
    };
    println!(
        "depth_m  rows             n  zero  smallest_nonzero  largest  ratio     scaled_ratio"
    );
    for depth in depths {
        let mut w = common::tank_world(depth, 500, 1e-6);
        // The velocity solve's problem: the density projection would rebuild the rows after it.
        w.fluid_method = Box::new(vcsim::fluid::constraint::Constraint::new(
            vcsim::fluid::constraint::ConstraintParams {
                projection: vcsim::fluid::constraint::ProjectionParams {
                    max_sweeps: 0,
                    ..Default::default()
                },
                ..Default::default()
            },
        ));
        w.step();
        let p = w.last_problem();
        let n = p.r.len();
        let mut full = DMatrix::<f64>::zeros(n, n);
        for &(i, j, v) in &p.operator {
            full[(i, j)] = v;
        }
        let group = |name: &str| {
            p.groups
                .iter()
                .find(|g| g.0 == name)
                .map(|g| (g.1..g.1 + g.2).collect::<Vec<_>>())
                .unwrap_or_default()
        };
        let (fl, wa, co) = (
            group("fluid density"),
            group("wall"),
            group("particle contact"),
        );
        let selections: [(&str, Vec<usize>); 5] = [
            ("all", (0..n).collect()),
            ("fluid", fl.clone()),
            ("fluid+wall", [fl.clone(), wa.clone()].concat()),
            ("fluid+contact", [fl.clone(), co.clone()].concat()),
            ("wall", wa.clone()),
        ];
        for (name, sel) in selections {
            if sel.is_empty() {
                continue;
            }
            let sub = DMatrix::from_fn(sel.len(), sel.len(), |a, b| full[(sel[a], sel[b])]);
            // What APGD with diagonal scaling iterates on: D^-1/2 N D^-1/2.
            let d: Vec<f64> = (0..sel.len())
                .map(|a| sub[(a, a)].max(1e-300).sqrt())
                .collect();
            let scaled = DMatrix::from_fn(sel.len(), sel.len(), |a, b| sub[(a, b)] / (d[a] * d[b]));
            let spectrum = |m: DMatrix<f64>| {
                let mut ev: Vec<f64> = m.symmetric_eigenvalues().iter().copied().collect();
                ev.sort_by(f64::total_cmp);
                let largest = *ev.last().unwrap();
                let zero = ev.iter().filter(|&&e| e < 1e-10 * largest).count();
                (zero, ev.get(zero).copied().unwrap_or(f64::NAN), largest)
            };
            let (zero, smallest, largest) = spectrum(sub);
            let (_, s_small, s_large) = spectrum(scaled);
            println!(
                "{depth:7.2}  {name:<13} {:5}  {zero:4}  {smallest:16.3e}  {largest:7.1}  {:8.2e}  {:8.2e}",
                sel.len(),
                largest / smallest,
                s_large / s_small
            );
        }
    }
    Ok(())
}
