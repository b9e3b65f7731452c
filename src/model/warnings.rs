//! Located warnings: things a model may mean but probably does not. Printed by `check` and
//! `run` with their place in the file; never fatal unless asked (`--deny-warnings`).
//!
//! - bodies that overlap at t = 0 (the contact rows push them apart in the first steps);
//! - fluid outside any container: particles with no body below them along gravity, which will
//!   fall without bound;
//! - a fluid field written in the model that the chosen fluid method does not use
//!   (`velocity_filter` is the constraint method's and ISPH's, not WCSPH's; `shifting` is used
//!   by all three);
//! - touching dynamic bodies whose masses differ by more than [`MASS_RATIO`]: contact solvers
//!   and impulse resolvers converge slowly or stall on such pairs (a 1e-12 m thin cube in a
//!   stack ran every step at the impulse cap);
//! - friction in a model whose contacts the simultaneous impulse resolver takes: it is
//!   frictionless by design (002 Appendix B, §7.2), so the materials' friction is not applied;
//! - a moving body whose boundary particles start too close to the fluid (compressed at the
//!   first step) or with a gap (the body settles into it): its faces miss the fluid's lattice
//!   (`lattice_fit`);
//! - a fluid too coarse to mean anything, a body too small for the fluid's spacing, a time
//!   step too long for the constraint method ([`super::resolution`]).
//!
//! (Joint anchors cannot disagree at t = 0: a joint has one anchor, in world coordinates.)

use super::error::FieldError;
use super::schema::Model;
use super::spans::Spans;
use crate::pipeline::World;
use parry3d_f64::query::Ray;
use rayon::prelude::*;

/// How deep two bodies may overlap at t = 0 before it is worth a warning (m): deeper than the
/// default contact slop by two orders of magnitude.
pub const OVERLAP: f64 = 1e-3;

/// Bodies closer than this (m) touch, for the mass-ratio warning.
const TOUCH: f64 = 1e-6;

/// Mass ratio of two touching dynamic bodies above which `check` warns.
pub const MASS_RATIO: f64 = 1e6;

/// How far below a fluid particle a body still counts as holding it (m): farther than any
/// coordinate a model may hold (1e6 m) can reach.
const BELOW: f64 = 1e7;

/// The warnings of a world just built from `model`, by field path: bodies that overlap at
/// t = 0 by more than [`OVERLAP`] (the contact rows will push them apart in the first steps, at
/// a speed of `β · depth / dt`), fluid fields the method does not use that the model's text
/// (`spans`, when it came from a file) writes, and fluid particles that nothing holds
/// ([`uncontained`]).
pub fn warnings(model: &Model, spans: Option<&Spans>, world: &World) -> Vec<FieldError> {
    let mut out = overlaps(model, world);
    out.extend(unused_fluid_fields(spans, world));
    out.extend(frictionless_resolver(model, world).map(|e| *e));
    out.extend(super::resolution::warnings(model, world));
    out.extend(lattice_fit(model, world));
    let (count, first) = uncontained(world);
    if let (Some(p), Some(f)) = (first, &world.fluid) {
        let at = match world.dofs {
            crate::body::Dofs::Planar => format!("({:.4}, {:.4})", p.x, p.y),
            crate::body::Dofs::Spatial => format!("({:.4}, {:.4}, {:.4})", p.x, p.y, p.z),
        };
        out.push(
            *FieldError::new(
                "fluid",
                format!(
                    "fluid outside any container: {count} of the {} fluid particles have no body \
                 below them along gravity (the first at {at} m) and will fall without bound",
                    f.len()
                ),
            )
            .at_key(),
        );
    }
    out
}

/// Nearest fluid particle closer than this many spacings to a body's boundary particle: the
/// pair starts compressed.
pub const TOO_CLOSE: f64 = 0.75;
/// The body's outer boundary particles that touch the fluid have their nearest fluid particle
/// farther than this many spacings on median: a gap the body settles into at the start.
pub const GAP: f64 = 1.3;

/// Moving bodies whose faces miss the fluid's lattice. Where a face lies midway between two
/// rows of fluid particles, the body's outer boundary particles (half a spacing inside the
/// face) have their nearest fluid particle one spacing away, as in the fluid. Closer than
/// [`TOO_CLOSE`] spacings, the pair starts compressed (a paddle with a particle row on its
/// face stopped at the first step). Each flat face is judged by itself: the outer boundary
/// particles that look through it (their vector to the surface within
/// [`crate::fluid::face_fit::AXIAL`] of one axis) and see a fluid particle within 2.5 spacings
/// inside a cone of [`crate::fluid::face_fit::FACING`] about that vector (a particle whose
/// vector is unknown, zero, looks through no face). If the median of those distances is
/// farther than [`GAP`] on any face, the body settles into the gap at the start (a floating
/// box whose bottom face lay on a particle row dropped about 5 mm; a hull whose keel lay 3e-5 m
/// under midway between two rows at 1/60 m fell 5 mm and struck the water at five times its
/// weight). A body's dry sides see the water only obliquely, below
/// them, and are left out by the cone (counted with the wet faces, they gave a hull whose keel
/// missed the lattice by a whole row the same median, 1.36 spacings, as one whose keel missed
/// it by a third of a spacing). Curved faces are left out too: no lattice fits them
/// everywhere.
fn lattice_fit(model: &Model, world: &World) -> Vec<FieldError> {
    let Some(f) = world.fluid.as_ref() else {
        return Vec::new();
    };
    let l = f.params.spacing;
    let mut grid = crate::fluid::grid::CellGrid::default();
    grid.build(&f.pos, 2.0 * l, f.params.planar, &f.params.periodic);
    let mut out = Vec::new();
    for (k, body) in world.bodies.iter().enumerate() {
        if body.kind == crate::body::Kind::Static {
            continue;
        }
        let mut fit = crate::fluid::face_fit::FaceFit::default();
        for ((b, &o), s) in f.boundary.iter().zip(&f.owner).zip(&f.to_surface) {
            if o as usize == k {
                fit.add(&grid, &f.pos, b, s, l);
            }
        }
        let closest = fit.closest;
        let worst = fit.worst();
        let path = super::resolution::body_field(model, &body.name, "position");
        if closest < TOO_CLOSE {
            out.push(*FieldError::new(
                path,
                format!(
                    "body `{}` starts with a boundary particle {closest:.2} spacings from a fluid \
                     particle (1 where its faces lie midway between the fluid's particle rows): \
                     the fluid there starts compressed; move or size the body so that its faces \
                     lie half a spacing from the nearest row",
                    body.name
                ),
            ));
            continue;
        }
        if let Some((face, median)) = worst.filter(|w| w.1 > GAP) {
            out.push(*FieldError::new(
                path,
                format!(
                    "body `{}`'s faces miss the fluid's lattice: the outer boundary particles of \
                     its face towards {} have their nearest fluid particle {median:.2} spacings \
                     away on median (1 where a face lies midway between the fluid's particle \
                     rows): {} up to {:.4} m at the start; move or size the body so that its \
                     faces lie half a spacing from the nearest row",
                    body.name,
                    ["-x", "+x", "-y", "+y", "-z", "+z"][face],
                    if body.kind == crate::body::Kind::Dynamic {
                        "it settles into the gap,"
                    } else {
                        "the fluid closes the gap,"
                    },
                    (median - 1.0) * l
                ),
            ));
        }
    }
    out
}

/// With `contact: (resolver: SimultaneousImpulse())`, a warning if a dynamic body's material
/// has friction: the simultaneous method (002 Appendix B) solves the normal impulses only.
fn frictionless_resolver(model: &Model, world: &World) -> Option<Box<FieldError>> {
    use crate::impulse::ResolverChoice;
    if !matches!(
        model.contact.resolver,
        ResolverChoice::SimultaneousImpulse(_)
    ) {
        return None;
    }
    let c = world
        .geometry
        .colliders
        .iter()
        .filter(|c| world.bodies[c.body].is_dynamic())
        .find(|c| c.friction > 0.0)?;
    Some(FieldError::new(
        "contact.resolver",
        format!(
            "SimultaneousImpulse is frictionless (002 §7.2), but body `{}` has friction {}: it \
             is not applied. Eti(), SequentialImpulse() or Complementarity() apply Coulomb \
             friction; a material with `friction: 0` silences this",
            world.bodies[c.body].name, c.friction
        ),
    ))
}

/// Fields of `fluid:` the model's text writes but its fluid method does not use
/// ([`crate::fluid::FluidMethod::unused_fields`]: `velocity_filter` with WCSPH). A model built
/// in code (no text) writes no field.
fn unused_fluid_fields(spans: Option<&Spans>, world: &World) -> Vec<FieldError> {
    let Some(spans) = spans.filter(|_| world.fluid.is_some()) else {
        return Vec::new();
    };
    world
        .fluid_method
        .unused_fields()
        .iter()
        .map(|field| format!("fluid.{field}"))
        .filter(|path| spans.contains(path))
        .map(|path| {
            let field = super::error::last_field(&path).to_string();
            *FieldError::new(
                path,
                format!(
                    "`{field}` belongs to the constraint method and ISPH; {} does not apply it",
                    world.fluid_method.name()
                ),
            )
            .at_key()
        })
        .collect()
}

/// The fluid particles with no body below them: a ray from each along gravity meets no
/// collider (static or moving; a moving container carries its water). Returns their count and
/// the first of them. Without gravity, or without fluid, nothing falls: `(0, None)`. Gravity
/// along a periodic axis only carries the fluid round the period: it is left out.
pub fn uncontained(world: &World) -> (usize, Option<crate::math::Vec3>) {
    let Some(fluid) = &world.fluid else {
        return (0, None);
    };
    let mut g = world.gravity;
    for a in 0..3 {
        if fluid.params.periodic.on(a) {
            g[a] = 0.0;
        }
    }
    let Some(down) = g.try_normalize(0.0) else {
        return (0, None);
    };
    let dir = crate::math::to_pv(&down);
    let poses: Vec<_> = world
        .geometry
        .poses(&world.bodies)
        .map(|p| crate::math::to_pose(&p))
        .collect();
    let held = |p: &crate::math::Vec3| {
        let ray = Ray::new(crate::math::to_pv(p), dir);
        world
            .geometry
            .colliders
            .iter()
            .zip(&poses)
            .any(|(c, pose)| c.shape.cast_ray(pose, &ray, BELOW, true).is_some())
    };
    let loose: Vec<usize> = (0..fluid.len())
        .into_par_iter()
        .filter(|&i| !held(&fluid.pos[i]))
        .collect();
    (loose.len(), loose.first().map(|&i| fluid.pos[i]))
}

/// Pairs of bodies that overlap at t = 0 by more than [`OVERLAP`], the deepest contact of each,
/// at the second body's entry in `model` (an array's copy at its template).
fn overlaps(model: &Model, world: &World) -> Vec<FieldError> {
    let origin = super::expand::arrays::origins(model);
    let mut geometry = world.geometry.fresh_copy();
    let mut contacts = Vec::new();
    // Bodies placed face to face touch within rounding: closer than a micrometre counts.
    geometry.update(&world.bodies, TOUCH, &mut contacts);
    let at = |b: usize| {
        origin
            .get(b)
            .map_or("bodies".into(), |i| format!("bodies[{i}].name"))
    };
    let mut out = mass_ratios(world, &contacts, &at);
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
    out.extend(worst.iter().map(|&((a, b), depth)| {
        let (na, nb) = (&world.bodies[a].name, &world.bodies[b].name);
        *FieldError::named(
            at(b),
            "bodies",
            format!(
                "body `{nb}` overlaps body `{na}` by {depth:.3e} m at t = 0; the contact rows \
                 will push them apart in the first steps"
            ),
        )
    }));
    out
}

/// Touching dynamic bodies at t = 0 whose masses differ by more than [`MASS_RATIO`], once
/// per pair, at the lighter body's entry.
fn mass_ratios(
    world: &World,
    contacts: &[crate::geometry::Contact],
    at: &dyn Fn(usize) -> String,
) -> Vec<FieldError> {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for c in contacts {
        let (a, b) = (&world.bodies[c.body1], &world.bodies[c.body2]);
        let key = (c.body1.min(c.body2), c.body1.max(c.body2));
        if !(a.is_dynamic() && b.is_dynamic()) || seen.contains(&key) {
            continue;
        }
        let (light, heavy) = if a.mass <= b.mass {
            (c.body1, c.body2)
        } else {
            (c.body2, c.body1)
        };
        let (ml, mh) = (world.bodies[light].mass, world.bodies[heavy].mass);
        if mh > MASS_RATIO * ml {
            seen.push(key);
            out.push(*FieldError::named(
                at(light),
                "bodies",
                format!(
                    "body `{}` ({ml:.3e} kg) touches body `{}` ({mh:.3e} kg), {:.1e} times \
                     heavier: contact solves and impulse resolvers converge slowly or stall on \
                     such pairs; keep touching masses within about 1e6 of each other",
                    world.bodies[light].name,
                    world.bodies[heavy].name,
                    mh / ml
                ),
            ));
        }
    }
    out
}
