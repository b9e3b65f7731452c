//! Angle of repose against friction (issue 13; 002 §7.5): runs a pile model (default
//! `models/repose_eti.ron`) once per friction coefficient and contact resolver, in parallel,
//! and writes the angle measured by the model's `Repose` probe at the end of each run as a
//! table (`table.csv`) and a plot (`repose.png`, with the spread over the sectors as bars) in
//! the output folder.
//!
//! ```sh
//! cargo run --release --example repose_study
//! cargo run --release --example repose_study -- --mu 0.1,0.3,0.6 --resolvers eti,complementarity \
//!     --divider 30 --out runs/repose_study models/repose_eti.ron
//! ```
//!
//! `--divider` replaces ETI's λ of the model; `complementarity` runs the same pile with the
//! PGS rows instead of impulses.

use plotters::prelude::*;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;
use vcsim::impulse::ResolverChoice;
use vcsim::model::values::NonNegative;

struct Run {
    resolver: String,
    mu: f64,
    angle: f64,
    spread: f64,
    grains: f64,
    height: f64,
    wall: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut mus, mut resolvers) = (vec![0.1, 0.3, 0.6], vec!["eti".to_string()]);
    let (mut divider, mut out) = (None, PathBuf::from("runs/repose_study"));
    let mut model = PathBuf::from("models/repose_eti.ron");
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--mu" => {
                mus = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--resolvers" => resolvers = value()?.split(',').map(String::from).collect(),
            "--divider" => divider = Some(value()?.parse::<u32>()?),
            "--out" => out = PathBuf::from(value()?),
            _ => model = PathBuf::from(a),
        }
    }
    let (base, _) = vcsim::load_file(&model)?;
    let cases: Vec<(String, f64)> = resolvers
        .iter()
        .flat_map(|r| mus.iter().map(move |&m| (r.clone(), m)))
        .collect();
    let runs: Vec<Run> = cases
        .par_iter()
        .map(|(resolver, mu)| {
            let mut m = base.clone();
            for mat in &mut m.materials {
                mat.friction = NonNegative(*mu);
            }
            match (resolver.as_str(), &mut m.contact.resolver) {
                ("complementarity", r) => *r = ResolverChoice::Complementarity {},
                ("eti", ResolverChoice::Eti(p)) => {
                    if let Some(l) = divider {
                        p.divider = l;
                    }
                }
                (other, _) => panic!("resolver `{other}`: the model's ETI or complementarity"),
            }
            let mut w = vcsim::build_world(&m).expect("model builds");
            let probes = vcsim::model::resolve_probes(&m, &w).expect("the model's probes");
            let (start, end) = (Instant::now(), m.time.end.0);
            let (series, _) = vcsim::runner::run(&mut w, &probes, end, end, &m.guard, &mut ())
                .expect("the run stays within its bounds");
            let last = |c: &str| {
                *series
                    .column(c)
                    .and_then(|v| v.last())
                    .expect("the model has a `Repose` probe")
            };
            let [angle, spread, grains, height] =
                ["repose_angle", "repose_spread", "pile_grains", "pile_height"].map(last);
            let wall = start.elapsed().as_secs_f64();
            eprintln!("{resolver} μ = {mu}: {angle:.2} ± {spread:.2}° ({grains} grains, {height:.3} m) in {wall:.0} s");
            Run {
                resolver: resolver.clone(),
                mu: *mu,
                angle,
                spread,
                grains,
                height,
                wall,
            }
        })
        .collect();
    std::fs::create_dir_all(&out)?;
    let mut table = String::from(
        "resolver,friction,angle_deg,spread_deg,grains_on_plate,pile_height_m,wall_s\n",
    );
    println!("resolver         μ     angle (deg)  spread (deg)  grains  height (m)  wall (s)");
    for r in &runs {
        table += &format!(
            "{},{},{:.3},{:.3},{},{:.4},{:.1}\n",
            r.resolver, r.mu, r.angle, r.spread, r.grains, r.height, r.wall
        );
        println!(
            "{:<15} {:5.2}  {:10.2}  {:12.2}  {:6}  {:9.3}  {:8.0}",
            r.resolver, r.mu, r.angle, r.spread, r.grains, r.height, r.wall
        );
    }
    std::fs::write(out.join("table.csv"), table)?;
    plot(&out.join("repose.png"), &resolvers, &runs)?;
    println!("wrote {}/table.csv and repose.png", out.display());
    Ok(())
}

fn plot(path: &std::path::Path, resolvers: &[String], runs: &[Run]) -> Result<(), String> {
    vcsim::io::plot::ensure_font();
    let e = |e: &dyn std::fmt::Display| e.to_string();
    let root = BitMapBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let top = runs
        .iter()
        .map(|r| r.angle + r.spread)
        .filter(|a| a.is_finite());
    let top = top.fold(10.0, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "angle of repose against friction (bars: spread over the 8 sectors)",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..0.7, 0.0..top)
        .map_err(|x| e(&x))?;
    chart
        .configure_mesh()
        .x_desc("friction coefficient μ")
        .y_desc("angle of repose (deg)")
        .draw()
        .map_err(|x| e(&x))?;
    for (i, name) in resolvers.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let mine: Vec<&Run> = runs
            .iter()
            .filter(|r| &r.resolver == name && r.angle.is_finite())
            .collect();
        let pts: Vec<(f64, f64)> = mine.iter().map(|r| (r.mu, r.angle)).collect();
        // The sectors' spread as a bar, the points of each resolver side by side.
        let dx = 0.006 * (i as f64 - 0.5 * (resolvers.len() as f64 - 1.0));
        chart
            .draw_series(mine.iter().map(|r| {
                PathElement::new(
                    vec![
                        (r.mu + dx, r.angle - r.spread),
                        (r.mu + dx, r.angle + r.spread),
                    ],
                    color.stroke_width(1),
                )
            }))
            .map_err(|x| e(&x))?;
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(|x| e(&x))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))
}
