//! Fluid references (issue 3, in progress): the hydrostatic tank against ρ g (depth), and
//! thread-count independence of a fluid step.

use std::path::Path;

fn load(model: &str) -> vcsim::World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(model);
    let (m, _) = vcsim::load_file(&path).expect("model loads");
    vcsim::build_world(&m).expect("model builds")
}

/// 2D tank, spacing 0.02 m, water 0.5 m deep, unilateral rows, APGD: at t = 1 s no particle is
/// compressed by 1 % or more (001 §5.2's criterion), and the smoothed pressure (001 eq. 42) on
/// the centre line is within 3 % of ρ g (depth), away from the free surface (top 3 layers) and
/// the bottom two layers.
#[test]
fn hydrostatic_tank() {
    let mut w = load("hydrostatic_2d_apgd.ron");
    let steps = (1.0 / w.dt).round() as usize;
    let mut worst_compression: f64 = 0.0;
    for _ in 0..steps {
        w.step();
        let f = w.fluid.as_ref().unwrap();
        worst_compression =
            worst_compression.max(f.density_error.iter().copied().fold(0.0, f64::max));
    }
    let f = w.fluid.as_ref().unwrap();
    let (l, depth, rho, g) = (0.02, 0.5, 1000.0, 9.81);
    let ps = f.smoothed_pressure();
    let mut checked = 0;
    let mut worst: f64 = 0.0;
    for (p, s) in f.pos.iter().zip(&ps) {
        if (p.x - 0.25).abs() < 0.5 * l && p.y > 2.0 * l && p.y < depth - 3.0 * l {
            let exact = rho * g * (depth - p.y);
            let err = (s - exact).abs() / exact;
            worst = worst.max(err);
            checked += 1;
        }
    }
    eprintln!("max compression {worst_compression:.2e}; {checked} centre-line particles, worst pressure error {:.2} %", 100.0 * worst);
    assert!(checked >= 15, "too few centre-line particles ({checked})");
    assert!(worst_compression < 0.01, "compression {worst_compression}");
    assert!(
        worst < 0.03,
        "smoothed pressure off by {:.2} %",
        100.0 * worst
    );
}

/// The same fluid steps with 1 and 2 threads give bit-identical particle states.
#[test]
fn fluid_steps_do_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut w = load("hydrostatic_2d_apgd.ron");
            for _ in 0..20 {
                w.step();
            }
            let f = w.fluid.as_ref().unwrap();
            f.pos
                .iter()
                .chain(&f.vel)
                .flat_map(|v| v.iter().copied())
                .chain(f.pressure.iter().copied())
                .collect::<Vec<f64>>()
        })
    };
    assert_eq!(run(1), run(2));
}
