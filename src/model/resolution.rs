//! Warnings about a fluid too coarse to mean anything (part of [`super::warnings`]):
//!
//! - the fluid fewer than [`MIN_ACROSS`] particles across its smallest extent (a kernel spans
//!   about four spacings; the shipped models have 20–200 across);
//! - a dynamic body (or a beam's thickness) less than [`MIN_BODY`] spacings across: its
//!   boundary particles cannot resolve it in the fluid;
//! - a static wall beside the fluid thinner than the kernel's support (2h): the fluid next to
//!   it sees too little wall (its boundary particles, or its smooth field, end inside the
//!   support) and particles can leave through it, at the corners first (a standing wave with
//!   walls 0.1 m thick at l = 0.025 m lost a corner particle through them at h = 3.0 l, and at
//!   2.5 l with β = 0.05; walls 0.3 m thick held both: `benches/LOG.md`, 2026-12-02);
//! - with the constraint method (which splits a step by the speeds at its start only, where
//!   WCSPH and ISPH sub-step by the speeds they meet), a time step in which water falling from
//!   the fluid's height would move more than one spacing: `dt √(2 g H) > l`.

use super::error::FieldError;
use super::schema::Model;
use crate::math::Vec3;
use crate::pipeline::World;

/// Fewest particles across the fluid's smallest extent before a warning.
pub const MIN_ACROSS: f64 = 5.0;
/// Fewest spacings across a body in the fluid before a warning.
pub const MIN_BODY: f64 = 2.0;

/// The warnings of this module (module docs).
pub fn warnings(model: &Model, world: &World) -> Vec<FieldError> {
    let Some(f) = &world.fluid else {
        return Vec::new();
    };
    if f.is_empty() {
        return Vec::new();
    }
    let l = f.params.spacing;
    let axes = if world.dofs == crate::body::Dofs::Planar {
        2
    } else {
        3
    };
    let (lo, hi) = f.pos[..f.len()].iter().fold(
        (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.inf(p), hi.sup(p)),
    );
    let mut out = Vec::new();
    let (axis, extent) = (0..axes)
        .map(|a| (a, hi[a] - lo[a] + l))
        .fold((0, f64::INFINITY), |m, e| if e.1 < m.1 { e } else { m });
    let across = extent / l;
    if across < MIN_ACROSS {
        out.push(*FieldError::new(
            "fluid.spacing",
            format!(
                "the fluid is {across:.0} particles across along {} ({extent:.3e} m at spacing \
                 {l} m, {} particles in all): too coarse for SPH to mean anything (a kernel \
                 spans about 4 spacings); use a spacing of at most {:.3e} m (10 across)",
                ["x", "y", "z"][axis],
                f.len(),
                extent / 10.0
            ),
        ));
    }
    out.extend(small_bodies(model, world, l));
    out.extend(thin_walls(model, world, (lo, hi)));
    if world.fluid_method.in_solve() {
        let g = world.gravity.norm();
        let height = world
            .gravity
            .try_normalize(0.0)
            .map_or(0.0, |d| (hi - lo).dot(&d).abs());
        let speed = (2.0 * g * height).sqrt();
        if speed * world.dt > l {
            out.push(*FieldError::new(
                "time.dt",
                format!(
                    "water falling from the fluid's height ({height:.3} m) reaches {speed:.3} m/s \
                     and would move {:.1} spacings in one step of {} s; the constraint method \
                     splits a step by the speeds at its start, so water speeding up within a \
                     step this long moves it whole: use dt ≤ {:.2e} s (half a spacing per step)",
                    speed * world.dt / l,
                    world.dt,
                    0.5 * l / speed
                ),
            ));
        }
    }
    out
}

/// Dynamic bodies (any may fall or be pushed into the fluid) less than [`MIN_BODY`] spacings
/// across.
fn small_bodies(model: &Model, world: &World, l: f64) -> Vec<FieldError> {
    let planar = world.dofs == crate::body::Dofs::Planar;
    let mut out = Vec::new();
    let of_beam = |name: &str| {
        model.beams.iter().any(|bm| {
            name.strip_prefix(bm.name.as_str())
                .is_some_and(|r| r.starts_with('.'))
        })
    };
    for (k, bm) in model.beams.iter().enumerate() {
        if bm.thickness.0 < MIN_BODY * l * (1.0 - 1e-9) {
            out.push(*FieldError::new(
                format!("beams[{k}].thickness"),
                format!(
                    "beam `{}` is {:.3e} m thick, {:.1} fluid spacings: its elements' boundary \
                     particles cannot resolve it in the fluid; use a spacing of at most {:.3e} m \
                     (2 across)",
                    bm.name,
                    bm.thickness.0,
                    bm.thickness.0 / l,
                    bm.thickness.0 / 2.0
                ),
            ));
        }
    }
    for c in &world.geometry.colliders {
        let b = &world.bodies[c.body];
        if !b.is_dynamic() || of_beam(&b.name) {
            continue;
        }
        let (mn, mx) = super::build::aabb_of(&c.shape, &(b.pose * c.local));
        let size = (0..if planar { 2 } else { 3 })
            .map(|a| mx[a] - mn[a])
            .fold(f64::INFINITY, f64::min);
        if size < MIN_BODY * l * (1.0 - 1e-9) {
            out.push(*FieldError::new(
                body_field(model, &b.name, "shape"),
                format!(
                    "body `{}` is {size:.3e} m across, {:.1} fluid spacings: its boundary \
                     particles cannot resolve it in the fluid; use a spacing of at most {:.3e} m \
                     (4 across)",
                    b.name,
                    size / l,
                    size / 4.0
                ),
            ));
        }
    }
    out
}

/// Static bodies within the kernel's support of the fluid's bounding box `fluid` (its lowest
/// and highest particle positions, m) thinner than the support along their thinnest local
/// axis (in the plane for a planar model).
fn thin_walls(model: &Model, world: &World, fluid: (Vec3, Vec3)) -> Vec<FieldError> {
    let Some(f) = &world.fluid else {
        return Vec::new();
    };
    let support = f.params.kernel.support();
    let axes = if world.dofs == crate::body::Dofs::Planar {
        2
    } else {
        3
    };
    let (lo, hi) = (
        fluid.0 - Vec3::repeat(support),
        fluid.1 + Vec3::repeat(support),
    );
    let mut out = Vec::new();
    for c in &world.geometry.colliders {
        let b = &world.bodies[c.body];
        if b.kind != crate::body::Kind::Static {
            continue;
        }
        let (mn, mx) = super::build::aabb_of(&c.shape, &(b.pose * c.local));
        if (0..axes).any(|a| mx[a] < lo[a] || mn[a] > hi[a]) {
            continue;
        }
        let local = c.shape.compute_local_aabb();
        let thickness = (0..axes)
            .map(|a| local.maxs[a] - local.mins[a])
            .fold(f64::INFINITY, f64::min);
        if thickness < support * (1.0 - 1e-9) {
            out.push(*FieldError::new(
                body_field(model, &b.name, "shape"),
                format!(
                    "static body `{}` beside the fluid is {thickness:.3e} m thick, less than the \
                     kernel's support of {support:.3e} m (2h at h = {:.2} spacings): the fluid \
                     next to it sees too little wall and particles can leave through it, at the \
                     corners first; make it at least {support:.3e} m thick",
                    b.name,
                    f.params.kernel.h / f.params.spacing
                ),
            ));
        }
    }
    out
}

/// The path of field `field` of the body named `name` in the model, as its warnings name it
/// (`bodies` if no body of the model has that name).
pub(super) fn body_field(model: &Model, name: &str, field: &str) -> String {
    model
        .bodies
        .iter()
        .position(|d| d.name == name)
        .map_or("bodies".to_string(), |i| format!("bodies[{i}].{field}"))
}
