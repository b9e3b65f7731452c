//! Located warnings: things a model may mean but probably does not. Printed by `check` and
//! `run` with their place in the file; never fatal.

use super::error::{build_error, ModelError};
use crate::pipeline::World;
use std::path::Path;

/// How deep two bodies may overlap at t = 0 before it is worth a warning (m): deeper than the
/// default contact slop by two orders of magnitude.
pub const OVERLAP: f64 = 1e-3;

/// The warnings of a world just built from the model in `source` at `path`: bodies that
/// overlap at t = 0 by more than [`OVERLAP`] (the contact rows will push them apart in the
/// first steps, at a speed of `β · depth / dt`).
pub fn warnings(path: &Path, source: &str, world: &World) -> Vec<ModelError> {
    let mut geometry = world.geometry.fresh_copy();
    let mut contacts = Vec::new();
    geometry.update(&world.bodies, 0.0, &mut contacts);
    let mut worst: Vec<((usize, usize), f64)> = Vec::new();
    for c in &contacts {
        let key = (c.body1.min(c.body2), c.body1.max(c.body2));
        if -c.dist > OVERLAP {
            match worst.iter_mut().find(|(k, _)| *k == key) {
                Some((_, d)) => *d = d.max(-c.dist),
                None => worst.push((key, -c.dist)),
            }
        }
    }
    worst
        .iter()
        .map(|&((a, b), depth)| {
            let (na, nb) = (&world.bodies[a].name, &world.bodies[b].name);
            build_error(
                path,
                source,
                &format!(
                    "body `{nb}` overlaps body `{na}` by {depth:.3e} m at t = 0; the contact rows \
                     will push them apart in the first steps"
                ),
            )
        })
        .collect()
}
