//! The fluid: its method's values (sound speed and Courant number: a sub-step that lets the
//! run finish), density, smoothing (a kernel support of 1.2 to 6 spacings), jitter, region
//! positions and sizes (m), initial speeds (m/s), no z in a 2D model.

use super::{at, item, magnitude, value, Checked, FieldError};
use super::{MAX_DENSITY, MAX_LENGTH, MAX_SPEED, MAX_STEPS};
use crate::fluid::FluidMethodChoice;
use crate::model::fluid_defs::WallTreatment;
use crate::model::schema::{FluidDef, Model, RegionDef, VelocityDef};

/// The kernel support over the spacing a model may ask for: below it a particle barely reaches
/// its nearest neighbours (the sums are meaningless); above it the neighbour lists grow as the
/// support's cube (6 spacings: about 900 neighbours per particle in 3D).
pub const MIN_SUPPORT: f64 = 1.2;
/// See [`MIN_SUPPORT`].
pub const MAX_SUPPORT: f64 = 6.0;
/// Largest `fluid.jitter` (spacings): neighbours stay at least half a spacing apart.
pub const MAX_JITTER: f64 = 0.25;

/// Checks `fluid` (if any).
/// Damping zones: finite ends within the model's size limit, apart.
fn damping(f: &crate::model::fluid_defs::FluidDef) -> Checked {
    for (k, z) in f.damping.iter().enumerate() {
        let here = format!("fluid.damping[{k}]");
        for (field, v) in [("start", &z.start), ("end", &z.end)] {
            let d = super::magnitude(&v.vec());
            if d.is_nan() || d > super::MAX_LENGTH {
                return Err(FieldError::new(
                    format!("{here}.{field}"),
                    format!(
                        "expected a point within {:e} m of the origin, got {v:?}",
                        super::MAX_LENGTH
                    ),
                ));
            }
        }
        let length = super::magnitude(&(z.end.vec() - z.start.vec()));
        if length.is_nan() || length <= 0.0 {
            return Err(FieldError::new(
                format!("{here}.end"),
                "a damping zone needs `end` apart from `start`: the relaxation grows from one to the other",
            ));
        }
        if z.rate.0 > 1e6 {
            return Err(FieldError::new(
                format!("{here}.rate"),
                format!("expected a rate up to 1e6 1/s, got {:e}", z.rate.0),
            ));
        }
    }
    Ok(())
}

pub(super) fn validate(m: &Model) -> Checked {
    let Some(f) = &m.fluid else {
        return Ok(());
    };
    values(f)?;
    method(f, m)?;
    damping(f)?;
    if f.density.0 > MAX_DENSITY {
        return Err(FieldError::new(
            "fluid.density",
            format!(
                "expected a density up to {MAX_DENSITY:e} kg/m³, got {:e}",
                f.density.0
            ),
        ));
    }
    if let Some(ratio) = &f.smoothing {
        // The support over the spacing (the kernel at h = h/l).
        let support = crate::fluid::kernel::Kernel::new(f.kernel, ratio.0, 2).support();
        if !(MIN_SUPPORT..=MAX_SUPPORT).contains(&support) {
            return Err(FieldError::new("fluid.smoothing", format!(
                "expected h/l (a ratio to the spacing, not a length) whose kernel support lies between {MIN_SUPPORT} and {MAX_SUPPORT} spacings, got {} (support {support:.3} spacings)",
                ratio.0
            )));
        }
    }
    if f.jitter.0 > MAX_JITTER {
        return Err(FieldError::new(
            "fluid.jitter",
            format!(
                "expected an offset up to {MAX_JITTER} spacings, got {}",
                f.jitter.0
            ),
        ));
    }
    let planar = m.scene.dimension == crate::model::schema::Dimension::Two;
    for (i, r) in f.regions.iter().enumerate() {
        region(&item("fluid.regions", i), r, planar, &m.scene.gravity.vec())?;
    }
    Ok(())
}

/// The value types' rules of the fluid (for models built in code).
fn values(f: &FluidDef) -> Checked {
    let v = |field: &str, rule: Result<(), String>| value(|| at("fluid", field), rule);
    v("spacing", f.spacing.check())?;
    v("jitter", f.jitter.check())?;
    v("density", f.density.check())?;
    v("viscosity", f.viscosity.check())?;
    v("stabilisation", f.stabilisation.check())?;
    v("compliance", f.compliance.check())?;
    v("velocity_filter", f.velocity_filter.check())?;
    if let Some(s) = f.smoothing {
        v("smoothing", s.check())?;
    }
    if let Some(s) = f.shifting {
        v("shifting", s.check())?;
    }
    if let Some(a) = &f.artificial_viscosity {
        let here = "fluid.artificial_viscosity";
        value(|| at(here, "alpha"), a.alpha.check())?;
        value(|| at(here, "sound_speed"), a.sound_speed.check())?;
    }
    f.method
        .validate()
        .map_err(|e| FieldError::new(at("fluid.method", e.field), e.message()))?;
    for (i, r) in f.regions.iter().enumerate() {
        let here = item("fluid.regions", i);
        let velocity = match r {
            RegionDef::Box { min, max, velocity } => {
                value(|| at(&here, "min"), min.check())?;
                value(|| at(&here, "max"), max.check())?;
                velocity
            }
            RegionDef::Ball {
                center,
                radius,
                velocity,
            } => {
                value(|| at(&here, "center"), center.check())?;
                value(|| at(&here, "radius"), radius.check())?;
                velocity
            }
            RegionDef::Shape {
                shape,
                position,
                rotation,
                velocity,
            } => {
                super::bodies::shape_values(&at(&here, "shape"), shape)?;
                value(|| at(&here, "position"), position.check())?;
                value(|| at(&here, "rotation"), rotation.check())?;
                velocity
            }
        };
        let rule = match velocity {
            VelocityDef::Uniform(u) => u.check(),
            VelocityDef::Linear(a, b, c) => a.check().and(b.check()).and(c.check()),
            VelocityDef::StandingWave {
                amplitude,
                wavelength,
                depth,
                origin,
            } => amplitude
                .check()
                .and(wavelength.check())
                .and(depth.check())
                .and(origin.check()),
        };
        value(|| at(&here, "velocity"), rule)?;
    }
    Ok(())
}

/// A WCSPH method's sound speed: without one the model needs gravity or an initial velocity
/// to derive one, and the sub-step it gives must let the run finish (at most [`MAX_STEPS`]
/// sub-steps over the run, estimated at the sound speed). (Each method's own values are its
/// parameters' `validate()`.)
fn method(f: &FluidDef, m: &Model) -> Checked {
    if f.walls == WallTreatment::Smooth {
        if !matches!(f.method, FluidMethodChoice::Constraint(_)) {
            return Err(FieldError::new(
                "fluid.walls",
                "smooth walls are built for the constraint method only (its density rows take the walls' kernel sum); use `walls: Particles` with WCSPH, ISPH or a registered method",
            ));
        }
        if f.lattice != crate::fluid::sampling::LatticeKind::Square {
            return Err(FieldError::new(
                "fluid.walls",
                "smooth walls spread the layers of the square lattice along the walls; use `lattice: Square` with `walls: Smooth`",
            ));
        }
    }
    let FluidMethodChoice::Wcsph(p) = &f.method else {
        return Ok(());
    };
    let Some(c0) = p.sound_speed else {
        let g = magnitude(&m.scene.gravity.vec());
        let moving = f
            .regions
            .iter()
            .any(|r| r.velocity().largest_speed(1.0, g) > 0.0);
        if g == 0.0 && !moving {
            return Err(FieldError::named(
                "fluid.method",
                "sound_speed",
                "a WCSPH fluid without gravity and at rest needs `sound_speed` (m/s): about ten times the largest speed expected",
            ));
        }
        return Ok(());
    };
    // (The smallest default, 2D's, bounds the sub-step from below; the default is the
    // method's own, written once.)
    let ratio = f
        .smoothing
        .map(|s| s.0)
        .unwrap_or_else(|| f.method.default_smoothing(f.kernel, 2));
    let sub = p.cfl * ratio * f.spacing.0 / c0;
    let substeps = m.time.end.0 / sub;
    if substeps > MAX_STEPS {
        return Err(FieldError::new("fluid.method.sound_speed", format!(
            "the WCSPH sub-step would be about {sub:.2e} s ({substeps:.2e} sub-steps to end = {} s); more than {MAX_STEPS:e} is not a run that finishes — lower the sound speed or coarsen the spacing",
            m.time.end.0
        )));
    }
    Ok(())
}

/// A region at `here`: points within the model's size limit (no z in 2D), a ball's radius,
/// and initial speeds (a standing wave: under gravity with a horizontal x axis, a wavelength
/// within the size limit).
fn region(here: &str, r: &RegionDef, planar: bool, gravity: &crate::math::Vec3) -> Checked {
    let (points, size) = match r {
        RegionDef::Box { min, max, .. } => (vec![("min", min.vec()), ("max", max.vec())], None),
        RegionDef::Ball { center, radius, .. } => (vec![("center", center.vec())], Some(radius.0)),
        RegionDef::Shape {
            shape, position, ..
        } => {
            // A shape's points lie within √3 × its largest size of its frame (an oversized
            // shape is refused when it is built).
            let s = crate::model::shapes::largest_length(shape);
            let s = if s <= MAX_LENGTH {
                3f64.sqrt() * s
            } else {
                0.0
            };
            (vec![("position", position.vec())], Some(s))
        }
    };
    let mut reach: f64 = 0.0;
    for (field, x) in &points {
        let d = magnitude(x);
        if d.is_nan() || d > MAX_LENGTH {
            return Err(FieldError::new(
                at(here, field),
                format!("expected a distance from the origin up to {MAX_LENGTH:e} m, got {d:e}"),
            ));
        }
        if planar && x.z != 0.0 {
            return Err(FieldError::new(
                at(here, field),
                format!("a 2D model has no z component; got {}", x.z),
            ));
        }
        reach = reach.max(d);
    }
    if let Some(radius) = size {
        if radius > MAX_LENGTH && matches!(r, RegionDef::Ball { .. }) {
            return Err(FieldError::new(
                at(here, "radius"),
                format!("expected a radius up to {MAX_LENGTH:e} m, got {radius:e}"),
            ));
        }
        reach += radius;
    }
    // The field's own rules, then its fastest initial particle
    // ([`VelocityDef::largest_speed`] over the region's reach).
    match r.velocity() {
        VelocityDef::Uniform(u) if planar && u.2 != 0.0 => {
            return Err(FieldError::new(
                at(here, "velocity"),
                format!("a 2D model has no z component; got {}", u.2),
            ));
        }
        VelocityDef::StandingWave {
            amplitude,
            wavelength,
            depth,
            origin,
        } => {
            let sizes = (amplitude.0, wavelength.0, depth.0);
            standing_wave(here, gravity, sizes, origin, planar)?;
        }
        _ => {}
    }
    let speed = match r.velocity() {
        VelocityDef::Uniform(u) => magnitude(&u.vec()),
        v => v.largest_speed(reach, magnitude(gravity)),
    };
    if speed.is_nan() || speed > MAX_SPEED {
        return Err(FieldError::new(at(here, "velocity"), format!("expected initial speeds up to {MAX_SPEED:e} m/s, this field reaches {speed:.3e} m/s in the region")));
    }
    Ok(())
}

/// A standing wave's frame and sizes: gravity not along the x axis, an amplitude below the
/// depth (linear theory's wave is small), the wavelength within the size limit, no z in 2D.
fn standing_wave(
    here: &str,
    gravity: &crate::math::Vec3,
    (amplitude, wavelength, depth): (f64, f64, f64),
    origin: &crate::model::values::V3,
    planar: bool,
) -> Checked {
    let field = at(here, "velocity");
    let g = magnitude(gravity);
    if g == 0.0 || (gravity.x / g).abs() > 0.999 {
        return Err(FieldError::new(
            field,
            format!("a standing wave needs gravity that is not along the x axis (the wave runs along x over a level surface): the scene's gravity is ({}, {}, {})", gravity.x, gravity.y, gravity.z),
        ));
    }
    for (name, v) in [("wavelength", wavelength), ("depth", depth)] {
        if v > MAX_LENGTH {
            return Err(FieldError::new(
                at(&field, name),
                format!("expected a {name} up to {MAX_LENGTH:e} m, got {v:e}"),
            ));
        }
    }
    if amplitude >= depth {
        return Err(FieldError::new(
            at(&field, "amplitude"),
            format!("expected an amplitude below the depth ({} m; linear theory's wave is small against it), got {} m", crate::params::shown(depth), crate::params::shown(amplitude)),
        ));
    }
    let o = magnitude(&origin.vec());
    if o > MAX_LENGTH {
        return Err(FieldError::new(
            at(&field, "origin"),
            format!("expected a point within {MAX_LENGTH:e} m of the origin, got one {o:e} m away"),
        ));
    }
    if planar && origin.2 != 0.0 {
        return Err(FieldError::new(
            at(&field, "origin"),
            format!("a 2D model has no z component; got {}", origin.2),
        ));
    }
    Ok(())
}
