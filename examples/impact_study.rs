//! 002's multi-point box impacts (issue 13, done-when 3) with every contact resolver: the box
//! of `models/box_impact_eti.ron` strikes the ground flat (four corners) and, with the ground
//! moved under one half of its face, on four points of that half (two corners and the ends of
//! the face's mid-line), for e = 1 and 0.5. One step of the model; the box's velocity, angular
//! velocity and relative kinetic energy change after the impact are printed and written to
//! `table.csv` in the output folder.
//!
//! ```sh
//! cargo run --release --example impact_study
//! cargo run --release --example impact_study -- --out runs/impact_study models/box_impact_eti.ron
//! ```

use std::path::PathBuf;
use vcsim::model::values::{PositiveV3, UnitInterval, V3};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut out, mut model) = (
        PathBuf::from("runs/impact_study"),
        PathBuf::from("models/box_impact_eti.ron"),
    );
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(args.next().ok_or("--out needs a folder")?),
            _ => model = PathBuf::from(a),
        }
    }
    let (base, _) = vcsim::load_file(&model)?;
    let resolvers = [
        "Eti()",
        "SequentialImpulse()",
        "SimultaneousImpulse()",
        "Complementarity()",
    ];
    let mut table = String::from("case,restitution,resolver,vx,vy,vz,wx,wy,wz,energy_change\n");
    println!("case      e    resolver               v (m/s)                      ω (rad/s)                    ΔE/E");
    for case in ["flat", "one half"] {
        for e in [1.0, 0.5] {
            for r in resolvers {
                let mut m = base.clone();
                m.contact.resolver = vcsim::model::from_ron_str(r)?;
                for mat in &mut m.materials {
                    mat.restitution = UnitInterval(e);
                }
                if case == "one half" {
                    // The ground under x ≥ 0 only; the box falls straight down.
                    let g = &mut m.bodies[0];
                    g.shape = vcsim::model::schema::ShapeDef::Cuboid {
                        half_extents: PositiveV3(V3(1.0, 2.0, 0.5)),
                    };
                    g.position = V3(1.0, 0.0, -0.5);
                    m.bodies[1].velocity = V3(0.0, 0.0, -10.0);
                }
                let mut w = vcsim::build_world(&m)?;
                let b = w.body("box").ok_or("no body `box`")?;
                let e0 = w.kinetic_energy();
                w.step();
                let (v, om) = (w.bodies[b].lin_vel, w.bodies[b].ang_vel);
                let de = (w.kinetic_energy() - e0) / e0;
                println!(
                    "{case:<9} {e:<4} {r:<22} ({:+.4}, {:+.4}, {:+.4})  ({:+.4}, {:+.4}, {:+.4})  {de:+.2e}",
                    v.x, v.y, v.z, om.x, om.y, om.z
                );
                table += &format!(
                    "{case},{e},{r},{},{},{},{},{},{},{de:e}\n",
                    v.x, v.y, v.z, om.x, om.y, om.z
                );
            }
        }
    }
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("table.csv"), table)?;
    println!("wrote {}/table.csv", out.display());
    Ok(())
}
