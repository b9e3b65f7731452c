//! Library use: load a shipped model, step it, and list the contact points and forces of the
//! last step — what `contacts.csv` holds, from code.
//!
//! `cargo run --release --example inspect_contacts -- models/stack_apgd.ron 1.0`

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "models/stack_apgd.ron".into()),
    );
    let until: f64 = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1.0);
    let (model, _) = vcsim::load_file(&path).map_err(|e| e.to_string())?;
    let mut world = vcsim::build_world(&model)?;
    while world.time < until {
        world.step();
    }
    let info = world.last_solve;
    println!(
        "t = {:.3} s: {} contact points, {} iterations, residual {:.2e} m/s",
        world.time,
        world.contacts().len(),
        info.iterations,
        info.residual
    );
    for (c, imp) in world.contacts().iter().zip(world.contact_impulses()) {
        println!(
            "  {:>10} / {:<10} at ({:7.3}, {:7.3}, {:7.3})  normal force {:9.3} N",
            world.bodies[c.body1].name,
            world.bodies[c.body2].name,
            c.point.x,
            c.point.y,
            c.point.z,
            imp.normal / world.dt
        );
    }
    Ok(())
}
