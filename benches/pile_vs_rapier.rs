//! Target 6 of the performance issue: one step of a settling pile of 1000 cubes in a container,
//! vcsim (PGS and APGD) against rapier3d on the same scene at the same iteration count
//! (`benches/pile_scene.rs`): `cargo bench --bench pile_vs_rapier`. Both run on one thread
//! (rapier3d is built without its `parallel` feature; vcsim in a one-thread pool).

#[path = "pile_scene.rs"]
mod pile_scene;

use pile_scene::{ITERATIONS, SETTLE};

fn main() {
    divan::main();
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool")
}

fn vcsim_world(solver: &str) -> vcsim::World {
    let mut w = pile_scene::vcsim_world(solver, ITERATIONS);
    for _ in 0..SETTLE {
        w.step();
    }
    w
}

#[divan::bench(args = ["Pgs", "Apgd"], sample_count = 20)]
fn vcsim_pile(b: divan::Bencher, solver: &str) {
    let pool = one_thread();
    let mut w = pool.install(|| vcsim_world(solver));
    b.bench_local(|| pool.install(|| w.step()));
}

#[divan::bench(sample_count = 20)]
fn rapier_pile(b: divan::Bencher) {
    let mut w = pile_scene::rapier_world(ITERATIONS);
    for _ in 0..SETTLE {
        w.step();
    }
    b.bench_local(|| w.step());
}
