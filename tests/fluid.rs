//! Fluid references (issue 3, in progress): the hydrostatic tank against ρ g (depth), and
//! thread-count independence of a fluid step.

mod common;
use common::with_threads;
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
        with_threads(threads, || {
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

/// `run` on a fluid model writes the particle frames and the fluid series (and does not panic
/// on the frame written before the first step).
#[test]
fn a_fluid_run_writes_particle_frames() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/hydrostatic_2d_apgd.ron");
    let out = std::env::temp_dir().join(format!("vcsim-fluid-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_vcsim"))
        .args(["run", "--quiet", "--end", "0.02"])
        .arg(&model)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let frame = std::fs::read_to_string(out.join("frames/fluid_000001.vtu")).unwrap();
    assert!(frame.contains("NumberOfPoints=\"625\"") && frame.contains("Name=\"pressure\""));
    assert!(std::fs::read_to_string(out.join("fluid.pvd"))
        .unwrap()
        .contains("fluid_000001.vtu"));
    // Header, t = 0 and the last step (output every 0.05 s, run to 0.02 s).
    let lines = std::fs::read_to_string(out.join("fluid.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 3);
    let _ = std::fs::remove_dir_all(&out);
}
