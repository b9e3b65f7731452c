//! The largest time step that holds the accuracy: a dam-break model run at several time steps,
//! each reported with its cost (steps, wall time, mean solver iterations), the largest fluid
//! compression of any step, and the surge front against Koshizuka & Oka's points.
//!
//! ```sh
//! cargo run --release --example dt_study -- MODEL WIDTH T_MAX END DT...
//! cargo run --release --example dt_study -- models/dam_break_2d_apgd.ron 0.146 2.5 0.3 5e-4 1e-3 2e-3
//! ```
//!
//! WIDTH is the column width L (m) of the front's scaling (Z = x/L, T = t √(2g/L)), T_MAX the
//! last reference point compared, END the simulated time (s). The model's own `dt` is replaced.

mod common;

use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: dt_study MODEL WIDTH T_MAX END DT...");
        std::process::exit(2);
    }
    let model = Path::new(&args[0]);
    let big_l: f64 = args[1].parse()?;
    let t_max: f64 = args[2].parse()?;
    let end: f64 = args[3].parse()?;
    let dts: Vec<f64> = args[4..]
        .iter()
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let points = common::koshizuka_oka(t_max);
    println!("dt_s     steps  wall_s  mean_it  max_compression_%  front_mean_%  front_max_%");
    for dt in dts {
        let (mut m, _) = vcsim::load_file(model)?;
        m.time.dt = vcsim::model::values::Positive(dt);
        let mut w = vcsim::build_world(&m)?;
        let x = nalgebra::Vector3::x();
        let mut front = vec![(0.0, w.fluid.as_ref().map(|f| f.front(&x)).unwrap_or(0.0))];
        let (mut worst, mut iterations, mut steps) = (0.0f64, 0usize, 0usize);
        let start = Instant::now();
        while w.time < end - 1e-9 {
            iterations += w.step().iterations;
            steps += 1;
            let f = w.fluid.as_ref().expect("a dam break has fluid");
            worst = worst.max(f.largest_compression().map_or(0.0, |(_, c)| c));
            front.push((w.time, f.front(&x)));
        }
        let wall = start.elapsed().as_secs_f64();
        let (mean, max) =
            common::front_errors(&front, &points, big_l).unwrap_or((f64::NAN, f64::NAN));
        println!(
            "{dt:<8} {steps:5}  {wall:6.1}  {:7.1}  {:17.2}  {:12.1}  {:11.1}",
            iterations as f64 / steps.max(1) as f64,
            100.0 * worst,
            100.0 * mean,
            100.0 * max
        );
    }
    Ok(())
}
