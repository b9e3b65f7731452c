//! How the density solve's iteration count grows with the depth of the fluid (the performance
//! issue's target 2: tanks 0.25, 0.5, 1 and 2 m deep at one spacing should need iteration counts
//! within 1.5× of each other).
//!
//! Each tank is the shipped hydrostatic tank (`models/hydrostatic_2d_apgd.ron`: 0.5 m wide,
//! spacing 0.02 m, APGD) with another depth. It prints, per depth: the particle count, the
//! iterations of the first step (a cold solve of the hydrostatic pressure: λ = 0 at the start,
//! the water at rest), the mean and largest iterations over the following steps (warm-started),
//! the steps at the iteration limit, and the largest compression at the end.
//!
//! `cargo run --release --example depth_iterations -- [steps] [tolerance]` (defaults 100, 1e-6).

mod common;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let steps: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(100);
    let tol: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1e-6);
    let limit = 5000;
    println!("tolerance {tol:e} m/s, iteration limit {limit}, {steps} steps of dt = 1 ms");
    println!("depth_m  particles  first_step  mean  max  at_limit  max_compression  wall_s");
    let mut first = Vec::new();
    for depth in [0.25, 0.5, 1.0, 2.0] {
        let mut w = common::tank_world(depth, limit, tol);
        let start = std::time::Instant::now();
        w.step();
        let cold = w.last_solve.iterations;
        let (mut sum, mut max, mut capped) = (0usize, 0usize, 0usize);
        for _ in 1..steps {
            w.step();
            let it = w.last_solve.iterations;
            sum += it;
            max = max.max(it);
            capped += (!w.last_solve.converged) as usize;
        }
        let f = w.fluid.as_ref().expect("the tank has fluid");
        let compression = f.largest_compression().map_or(0.0, |(_, c)| c.max(0.0));
        println!(
            "{depth:7.2}  {:9}  {cold:10}  {:4.0}  {max:3}  {capped:8}  {compression:15.3e}  {:6.1}",
            f.len(),
            sum as f64 / (steps - 1).max(1) as f64,
            start.elapsed().as_secs_f64()
        );
        first.push(cold);
    }
    let ratio = *first.iter().max().unwrap() as f64 / *first.iter().min().unwrap().max(&1) as f64;
    println!("first-step iterations, deepest over shallowest: {ratio:.2} (target < 1.5)");
    Ok(())
}
