//! Step cost of fixed scenes: `cargo bench --bench step`.
//!
//! Each benchmark loads a shipped model, advances it to a representative state (outside the
//! timing), then times single steps: geometry, rows and solve included, output excluded.

use std::path::Path;
use vcsim::World;

fn main() {
    divan::main();
}

fn world_at(model: &str, settle_steps: usize) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(model);
    let (m, _) = vcsim::load_file(&path).expect("shipped model loads");
    let mut w = vcsim::build_world(&m).expect("shipped model builds");
    for _ in 0..settle_steps {
        w.step();
    }
    w
}

/// Ten resting cubes (40 contact points, 120 rows), warm-started.
#[divan::bench(args = ["stack_pgs.ron", "stack_apgd.ron"])]
fn stack_of_ten(b: divan::Bencher, model: &str) {
    let mut w = world_at(model, 200);
    b.bench_local(|| w.step());
}

/// The same resting stack with each contact resolver (`contact: (resolver: ..)`): the impulse
/// methods' hot path (ETI: tens of thousands of increments per step here).
#[divan::bench(args = ["Eti()", "SequentialImpulse()", "SimultaneousImpulse()", "Complementarity()"])]
fn stack_resolvers(b: divan::Bencher, resolver: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/stack_apgd.ron");
    let (mut m, _) = vcsim::load_file(&path).expect("shipped model loads");
    m.contact.resolver = vcsim::model::from_ron_str(resolver).expect("a resolver");
    let mut w = vcsim::build_world(&m).expect("model builds");
    for _ in 0..200 {
        w.step();
    }
    b.bench_local(|| w.step());
}

/// The angle-of-repose pile (534 faceted grains, ETI) as it runs out of the lifted tube at
/// t = 0.6 s: the impulse resolver on a dense granular flow (tens of thousands of increments).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn repose_pile(b: divan::Bencher) {
    let mut w = world_at("repose_eti.ron", 360);
    b.bench_local(|| w.step());
}

/// 18 mixed shapes piling up on a triangle-mesh ramp (3D, APGD), at t = 1.6 s.
#[divan::bench]
fn mixed_pile(b: divan::Bencher) {
    let mut w = world_at("pile_3d_apgd.ron", 800);
    b.bench_local(|| w.step());
}

/// Ten segments with compliant hinges (2D, PGS), near equilibrium.
#[divan::bench]
fn cantilever_chain(b: divan::Bencher) {
    let mut w = world_at("cantilever_chain_2d_pgs.ron", 2500);
    b.bench_local(|| w.step());
}

/// Beams (003): the 20-element cantilever under its own weight near rest (its 60 hinge rows
/// one exact PGS block), and the 10-element plate oscillating freely.
#[divan::bench(args = ["beam_static_2d.ron", "beam_oscillation_2d.ron"])]
fn beam(b: divan::Bencher, model: &str) {
    let mut w = world_at(model, 500);
    b.bench_local(|| w.step());
}

/// The elastic plate in water (10 000 particles, constraint method, PGS 20 sweeps) at
/// t = 0.36 s, as the water hits the plate.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn elastic_plate(b: divan::Bencher) {
    let mut w = world_at("elastic_plate_2d_pgs.ron", 720);
    b.bench_local(|| w.step());
}

/// One step of the tank for long runs at rest (`hydrostatic_2d_kcsph.ron`, 625 particles,
/// multilevel PGS, one sweep per step once settled), 1 s in: the step of water at rest, where
/// the projection keeps its neighbour lists and the multilevel operators are never built.
#[divan::bench]
fn tank_at_rest_2d(b: divan::Bencher) {
    let mut w = world_at("hydrostatic_2d_kcsph.ron", 1000);
    b.bench_local(|| w.step());
}

/// One step of the standing wave (`standing_wave_2d.ron`, 800 particles, 10 PGS sweeps) 0.2 s
/// in, with its walls as boundary particles and as smooth walls (`walls: Smooth`: the walls'
/// kernel sum from tables in every row, shifting and projection pass instead of boundary
/// neighbours).
#[divan::bench(args = ["Particles", "Smooth"], sample_count = 20)]
fn standing_wave_walls_2d(b: divan::Bencher, walls: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/standing_wave_2d.ron");
    let (mut m, _) = vcsim::load_file(&path).expect("shipped model loads");
    m.fluid.as_mut().expect("a fluid model").walls =
        vcsim::model::from_ron_str(walls).expect("a wall treatment");
    let mut w = vcsim::build_world(&m).expect("model builds");
    for _ in 0..50 {
        w.step();
    }
    b.bench_local(|| w.step());
}

/// 2D tank, 625 fluid particles and their wall rows, APGD (monolithic fluid step), at t = 0.05 s.
#[divan::bench]
fn hydrostatic_tank_2d(b: divan::Bencher) {
    let mut w = world_at("hydrostatic_2d_apgd.ron", 50);
    b.bench_local(|| w.step());
}

/// One step of the 2D dam break (800 particles, walls, contact rows) 0.1 s into the collapse.
#[divan::bench(sample_count = 20)]
fn dam_break_2d(b: divan::Bencher) {
    let mut w = world_at("dam_break_2d_apgd.ron", 200);
    b.bench_local(|| w.step());
}

/// One step of the floating box (fluid rows with body Jacobians, a prismatic joint) after 0.2 s.
#[divan::bench(sample_count = 10)]
fn buoyancy_box_2d(b: divan::Bencher) {
    let mut w = world_at("buoyancy_2d_apgd.ron", 100);
    b.bench_local(|| w.step());
}

/// One step of a dynamic open box holding water on a floor (body particles of a dynamic body in
/// the density, wall and particle contact rows, a rigid contact) after 0.2 s.
#[divan::bench(sample_count = 10)]
fn water_box_2d(b: divan::Bencher) {
    let mut w = world_at("water_box_2d_apgd.ron", 100);
    b.bench_local(|| w.step());
}

/// One step of the 20 000-particle 2D dam break (DualSPHysics' validation size) 0.02 s in.
#[divan::bench(sample_count = 5)]
fn dam_break_2d_20k(b: divan::Bencher) {
    let mut w = world_at("dam_break_2d_20k_apgd.ron", 20);
    b.bench_local(|| w.step());
}

/// One step of the same dam break with PGS at 10 sweeps (`dam_break_2d_20k_pgs.ron`), 0.02 s in,
/// on 1 and 2 threads: the coloured parallel sweeps over the density rows
/// (`solver/colouring.rs`) and the stages around them.
#[divan::bench(args = [1, 2], sample_count = 10)]
fn dam_break_2d_20k_pgs(b: divan::Bencher, threads: usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let mut w = world_at("dam_break_2d_20k_pgs.ron", 20);
    b.bench_local(|| pool.install(|| w.step()));
}

/// One step of the PGS dam break on two threads with the density rows' pair coefficients
/// stored or formed from the positions in every sweep (`Constraint(pair_coefficients: ..)`;
/// the same results, 24 bytes per pair against none).
#[divan::bench(args = ["Stored", "Formed"], sample_count = 10)]
fn dam_break_2d_20k_pgs_pairs(b: divan::Bencher, pairs: &str) {
    use vcsim::fluid::constraint::{ConstraintParams, PairCoefficients};
    use vcsim::fluid::FluidMethodChoice;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_20k_pgs.ron");
    let (mut m, _) = vcsim::load_file(&path).expect("shipped model loads");
    let fluid = m.fluid.as_mut().expect("a fluid model");
    let FluidMethodChoice::Constraint(p) = fluid.method else {
        panic!("a constraint model");
    };
    let pair_coefficients = match pairs {
        "Stored" => PairCoefficients::Stored,
        _ => PairCoefficients::Formed,
    };
    fluid.method = FluidMethodChoice::Constraint(ConstraintParams {
        pair_coefficients,
        ..p
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");
    let mut w = vcsim::build_world(&m).expect("shipped model builds");
    for _ in 0..20 {
        pool.install(|| w.step());
    }
    b.bench_local(|| pool.install(|| w.step()));
}

/// One model step of the 800-particle dam break with ISPH (`dam_break_2d_apgd.ron` with the
/// method replaced), 0.25 s in (the impact), with the defaults (the renormalised divergence,
/// the position correction, a second pressure solve per sub-step, and the two-level
/// preconditioner), without the correction, with the lattice divergence, and with the Jacobi
/// preconditioner.
#[divan::bench(
    args = ["Isph()", "Isph(position_alpha: 0)", "Isph(divergence: Lattice)", "Isph(solver: Cg)"],
    sample_count = 20
)]
fn isph_dam_break_2d(b: divan::Bencher, method: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_apgd.ron");
    let (mut m, _) = vcsim::load_file(&path).expect("shipped model loads");
    m.fluid.as_mut().expect("a fluid model").method =
        vcsim::model::from_ron_str(method).expect("a fluid method in RON");
    let mut w = vcsim::build_world(&m).expect("shipped model builds");
    while w.time < 0.25 {
        w.step();
    }
    b.bench_local(|| w.step());
}

/// One model step (1 ms, about 32 WCSPH sub-steps: the hot path is the sub-steps' pair passes)
/// of the 20 000-particle dam break with the WCSPH backend (`dam_break_2d_20k_wcsph.ron`,
/// DualSPHysics' settings), 0.01 s in, on 2 threads. Particle-steps per second =
/// 20 000 × sub-steps / time (the summary of `vcsim run` gives the sub-steps).
#[divan::bench(sample_count = 5)]
fn dam_break_2d_20k_wcsph(b: divan::Bencher) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");
    let mut w = world_at("dam_break_2d_20k_wcsph.ron", 10);
    b.bench_local(|| pool.install(|| w.step()));
}

/// The stabilisation stages alone on the circular patch (7860 particles) 0.1 s in: the velocity
/// filter (corrected-gradient fit per particle) and particle shifting (one neighbour pass).
#[divan::bench(args = ["filter", "shift"], sample_count = 20)]
fn patch_stabilisation(b: divan::Bencher, stage: &str) {
    let mut w = world_at("circular_patch_2d_apgd.ron", 50);
    let h = w.dt;
    let f = w.fluid.as_mut().expect("fluid model");
    let eps = -(-f.params.velocity_filter * h).exp_m1();
    match stage {
        "filter" => b.bench_local(|| f.filter_velocities(eps, None, None)),
        _ => b.bench_local(|| f.shift_particles(h)),
    }
}

/// The moored box in waves (4 800 particles, PGS 10 sweeps, two mooring lines, a damping
/// zone) at t = 4 s, waves on the box: a whole step, and the two hot paths waves add — the
/// damping zone's pass over the particles and one wave gauge's reading (done at each output).
#[divan::bench(sample_count = 10, sample_size = 1)]
fn moored_box_2d(b: divan::Bencher) {
    let mut w = world_at("moored_box_2d.ron", 1040);
    b.bench_local(|| w.step());
}

/// The damping zone's pass (module `vcsim::fluid::damping`) on the moored box's fluid.
#[divan::bench]
fn damping_zone_pass(b: divan::Bencher) {
    let mut w = world_at("moored_box_2d.ron", 0);
    let dt = w.dt;
    let f = w.fluid.as_mut().expect("fluid");
    b.bench_local(|| f.damp(dt));
}

/// One wave gauge's reading (`Fluid::surface_height`) on the moored box's fluid.
#[divan::bench]
fn wave_gauge_reading(b: divan::Bencher) {
    let w = world_at("moored_box_2d.ron", 0);
    let f = w.fluid.as_ref().expect("fluid");
    let p = vcsim::math::Vec3::new(1.0, 0.0, 0.0);
    b.bench_local(|| f.surface_height(&p, &w.gravity));
}

/// The WCSPH dam break (`dam_break_2d_wcsph.ron`, 800 particles) divided among `ranks` ranks
/// as threads of this process (`vcsim::distributed::ThreadComm`, the exchange code of
/// `mpirun`; one thread each), 20 model steps (about 140 sub-steps) from the start: with 2 the
/// hot path of a divided run (ghost refreshes after every update, the collective sub-step,
/// migration at each search) against 1 (the same calls, no other rank). Building and dividing
/// the worlds is outside the timing.
#[divan::bench(args = [1, 2], sample_count = 10, sample_size = 1)]
fn wcsph_divided_2d(b: divan::Bencher, ranks: usize) {
    divided_steps(b, "dam_break_2d_wcsph.ron", ranks);
}

/// The constraint method's dam break (`dam_break_2d_wcsph.ron` with the constraint method at
/// its defaults: ten PGS sweeps and the density projection, 800 particles) divided among
/// `ranks` ranks as threads, 20 model steps: the hot path of a divided solve (the ranks meet
/// after the warm start and every sweep of the solve and of the projection: two exchanges
/// each) against 1 (the same calls, no other rank).
#[divan::bench(args = [1, 2], sample_count = 10, sample_size = 1)]
fn constraint_divided_2d(b: divan::Bencher, ranks: usize) {
    divided_steps(b, "constraint", ranks);
}

/// ISPH's dam break (`dam_break_2d_wcsph.ron` with `method: Isph()`, 800 particles) divided
/// among `ranks` ranks as threads, 20 model steps: the hot path of a divided pressure solve
/// (per CG iteration one exchange of the direction's ghost entries, two for the two-level
/// cycle's smoothing, the coarse residual's and the dot products' sums) against 1 (the same calls, no other rank).
#[divan::bench(args = [1, 2], sample_count = 10, sample_size = 1)]
fn isph_divided_2d(b: divan::Bencher, ranks: usize) {
    divided_steps(b, "isph", ranks);
}

/// 20 steps of `model` (`"constraint"` or `"isph"`: the WCSPH dam break with that method)
/// divided among `ranks` ranks as threads, one thread each.
fn divided_steps(b: divan::Bencher, model: &'static str, ranks: usize) {
    let prepared = || -> Vec<World> {
        let comms = vcsim::distributed::ThreadComm::group(ranks);
        std::thread::scope(|s| {
            let handles: Vec<_> = comms
                .into_iter()
                .map(|c| {
                    s.spawn(move || {
                        let mut w = if model == "constraint" || model == "isph" {
                            dam_break_with(model)
                        } else {
                            world_at(model, 0)
                        };
                        vcsim::distributed::run::prepare(&mut w, Box::new(c))
                            .expect("the method divides");
                        w
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    b.with_inputs(prepared).bench_values(|worlds| {
        std::thread::scope(|s| {
            for mut w in worlds {
                s.spawn(move || {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(1)
                        .build()
                        .expect("thread pool");
                    pool.install(|| {
                        for _ in 0..20 {
                            w.step();
                        }
                    });
                });
            }
        })
    });
}

/// `dam_break_2d_wcsph.ron` with the constraint method (`"constraint"`) or ISPH (`"isph"`) at
/// its defaults.
fn dam_break_with(method: &str) -> World {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models/dam_break_2d_wcsph.ron");
    let name = if method == "isph" {
        "Isph("
    } else {
        "Constraint("
    };
    let text = std::fs::read_to_string(&path)
        .expect("model")
        .replace("method: Wcsph(", &format!("method: {name}"));
    let m = vcsim::model::parse_str(&path, &text).expect("parses");
    vcsim::model::build_world(&m).expect("builds")
}
