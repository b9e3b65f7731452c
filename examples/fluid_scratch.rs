use std::path::Path;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let (m, _) = vcsim::load_file(Path::new(&path)).unwrap();
    let mut w = vcsim::build_world(&m).unwrap();
    let f = w.fluid.as_ref().unwrap();
    println!(
        "particles {}, boundary {}, volume {:.4e}, mass {:.4e}",
        f.len(),
        f.boundary.len(),
        f.volume,
        f.mass
    );
    let steps = (m.time.end.0 / w.dt).round() as usize;
    for s in 0..steps {
        let info = w.step();
        if s % 100 == 99 || s < 3 {
            let f = w.fluid.as_ref().unwrap();
            let maxerr = f.density_error.iter().fold(0.0f64, |a, e| a.max(*e));
            let (iv, maxv) = f.vel.iter().enumerate().fold((0, 0.0f64), |a, (i, v)| {
                if v.norm() > a.1 {
                    (i, v.norm())
                } else {
                    a
                }
            });
            let fast = f.vel.iter().filter(|v| v.norm() > 0.05).count();
            let meanv = f.vel.iter().map(|v| v.norm()).sum::<f64>() / f.len() as f64;
            println!("t={:.3} it={} res={:.2e} max compression={:.3e} max|v|={:.3e} at {:?} fast(>0.05)={} mean|v|={:.2e}", w.time, info.iterations, info.residual, maxerr, maxv, f.pos[iv].as_slice(), fast, meanv);
        }
    }
    let f = w.fluid.as_ref().unwrap();
    let ps = f.smoothed_pressure();
    let mut col: Vec<(f64, f64, f64)> = f
        .pos
        .iter()
        .zip(&ps)
        .zip(&f.pressure)
        .filter(|((p, _), _)| (p.x - 0.25).abs() < 0.011)
        .map(|((p, s), r)| (p.y, *s, *r))
        .collect();
    col.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (y, s, r) in col {
        println!(
            "y={y:.3} p~={s:9.1} p={r:9.1} rho g d={:9.1}",
            1000.0 * 9.81 * (0.5 - y)
        );
    }
}
