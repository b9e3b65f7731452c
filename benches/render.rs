//! Cost of `vcsim render` per frame: reading a VTU frame, drawing, PNG encoding.
//! `cargo bench --bench render`

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

fn main() {
    divan::main();
}

/// A finished run of the circular patch (7860 particles) to t = 0.1 s, two frames.
fn prepared_run() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vcsim-bench-render-{}", std::process::id()));
    if !dir.join("fluid.pvd").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/circular_patch_2d_apgd.ron");
        let (mut model, _) = vcsim::load_file(&path).unwrap();
        model.output.plot = false;
        let mut world = vcsim::build_world(&model).unwrap();
        let probes = vcsim::model::resolve_probes(&model, &world).unwrap();
        let opts = vcsim::io::RunOptions::for_model(&model, dir.clone(), 0.1);
        vcsim::io::run(&mut world, &probes, &opts).unwrap();
    }
    dir
}

/// One frame of 7860 particles, read, drawn and written as PNG.
#[divan::bench(sample_count = 20)]
fn one_frame_7860_particles(b: divan::Bencher) {
    let dir = prepared_run();
    let n = AtomicUsize::new(0);
    b.bench_local(|| {
        let k = n.fetch_add(1, Ordering::Relaxed);
        let opts = vcsim::io::render::RenderOptions {
            frames: Some((1, 1)),
            out: Some(dir.join(format!("bench-{k}"))),
            ..Default::default()
        };
        vcsim::io::render::render(&dir, &opts).unwrap()
    });
}
