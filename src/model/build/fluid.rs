//! The fluid: particles on a lattice filling the regions, boundary particles of the walls
//! (static bodies, filled to the kernel support below their surface) and of the moving bodies.

use super::BuildError;
use crate::body::{Dofs, Kind, RigidBody};
use crate::fluid::smooth_walls::WallBox;
use crate::fluid::{sampling, Fluid, FluidParams};
use crate::geometry::Geometry;
use crate::math::{from_pv, Iso, Quat, Vec3};
use crate::model::schema::{Dimension, FluidDef, Model, RegionDef, ShapeDef};
use crate::model::shapes::build_shape;

/// The most lattice points the sampling of one model may visit (an upper bound of its fluid
/// and boundary particles, computed from bounding boxes before anything is sampled).
pub const MAX_VISITS: f64 = 2.0 * MAX_PARTICLES as f64;

/// Adds `n` lattice visits for `what` to `total`; an error that states the estimate when the
/// model would need more than [`MAX_VISITS`] (refused before sampling: memory and time stay
/// bounded whatever the spacing or extents).
fn budget(total: &mut f64, n: f64, what: &str) -> Result<(), String> {
    *total += n;
    if *total <= MAX_VISITS {
        Ok(())
    } else {
        Err(format!(
            "{what}: sampling this model would visit about {:.3e} lattice points (at most {MAX_VISITS:e}, for {MAX_PARTICLES} particles); use a larger spacing or smaller regions and walls",
            *total
        ))
    }
}

/// The world-space bounding box of a shape at a pose (m).
pub(crate) fn aabb_of(shape: &parry3d_f64::shape::SharedShape, pose: &Iso) -> (Vec3, Vec3) {
    let a = shape.compute_aabb(&crate::math::to_pose(pose));
    (from_pv(a.mins), from_pv(a.maxs))
}

/// The most fluid plus boundary particles a model may ask for.
pub const MAX_PARTICLES: usize = 20_000_000;

/// Samples the fluid regions and the walls (every static body, filled to the kernel support
/// below its surface), and the boundary particles of the moving bodies.
pub(super) fn build_fluid(
    f: &FluidDef,
    m: &Model,
    bodies: &[RigidBody],
    geometry: &Geometry,
) -> Result<Fluid, BuildError> {
    let planar = m.scene.dimension == Dimension::Two;
    let l = f.spacing.0;
    let kernel = f.kernel(planar);
    let periodic = crate::model::periodic::periodic(&m.scene.periodic);
    let lattice = lattice(f, planar);
    let mut visits = 0.0;
    let (mut pos, mut fields) = sample_regions(f, m, &lattice, &mut visits)?;
    // No fluid particle where a body is: lattice points inside a shape or closer to its surface
    // than the lattice's clearance are left out (walls drawn flush with a region keep it
    // whole): from a fixed wall, whose particles continue the lattice, half a spacing, a
    // quarter on the planar hexagonal lattice, whose rows meet a vertical face at l/4 and 3l/4;
    // from a moving body, whose particles lie on a lattice of their own, half a spacing.
    // On a periodic axis the lattice points of [lo, hi) are the fluid; a point at hi (or past
    // it) would be an image of one at lo.
    let keep: Vec<bool> = pos
        .iter()
        .map(|p| outside_bodies(p, geometry, bodies, &lattice) && periodic.contains(p, 1e-9 * l))
        .collect();
    let mut it = keep.iter();
    pos.retain(|_| *it.next().unwrap());
    let mut it = keep.iter();
    fields.retain(|_| *it.next().unwrap());
    sampling::jitter(&mut pos, f.jitter.0 * l, planar, &periodic);
    let g = m.scene.gravity.vec(); // the initial velocities at the (offset) positions:
    let mut vel: Vec<Vec3> = pos.iter().zip(&fields).map(|(p, v)| v.at(p, &g)).collect();
    if pos.is_empty() {
        return Err(BuildError::Fluid(format!(
            "the fluid regions hold no particle at spacing {l} m (lattice points inside a body or within half a spacing of one, a quarter from a fixed wall on the 2D hexagonal lattice, are left out)"
        )));
    }
    let smooth = smooth_walls(f, m, bodies, geometry);
    let (boundary, to_surface, wall_body) = sample_walls(
        geometry,
        bodies,
        &smooth,
        &lattice,
        kernel.support(),
        &periodic,
        (&mut visits, pos.len()),
    )?;
    let params = FluidParams {
        method: f.method.density(),
        kernel,
        spacing: l,
        rho0: f.density.0,
        viscosity: f.viscosity.0,
        beta: f.stabilisation.0,
        speculative_walls: f.dry_walls == crate::model::fluid_defs::DryWalls::Speculative,
        body_contacts: f.body_contacts,
        compliance: f.compliance.0,
        planar,
        thickness: if planar { m.scene.thickness.0 } else { 1.0 },
        lattice: f.lattice,
        velocity_filter: f.velocity_filter.0,
        shifting: f.shifting_coefficient(),
        artificial_viscosity: f.artificial_viscosity_pair(),
        periodic,
        max_substeps: m.guard.max_substeps,
    };
    vel.iter_mut().filter(|_| planar).for_each(|v| v.z = 0.0);
    let mut fluid = Fluid::new(params, pos, vel, boundary);
    fluid.set_wall_surfaces(to_surface);
    fluid.set_wall_bodies(read_walls(m, bodies, wall_body));
    fluid.smooth = crate::fluid::smooth_walls::SmoothWalls::new(
        smooth.into_iter().flatten().collect(),
        kernel,
        l,
        fluid.volume,
        planar,
        &periodic,
    );
    fluid.damping = damping_zones(f, planar);
    attach_bodies(
        &mut fluid,
        geometry,
        bodies,
        &lattice,
        kernel.support(),
        &mut visits,
    )?;
    if fluid.boundary.len() + fluid.len() > MAX_PARTICLES {
        return Err(BuildError::Fluid(format!(
            "the bodies need more than {MAX_PARTICLES} boundary particles at spacing {l} m"
        )));
    }
    Ok(fluid)
}

/// The one global lattice of the fluid and the walls, anchored half a spacing inside the first
/// region's lower corner (2D hexagonal: a quarter spacing along x and √3/4 l along y, so that a
/// box's rows meet its vertical faces at l/4 and 3l/4 and its floor at √3/4 l).
fn lattice(f: &FluidDef, planar: bool) -> sampling::Lattice {
    let l = f.spacing.0;
    let anchor = match f.regions.first() {
        Some(RegionDef::Box { min, .. }) => {
            let mut o = min.vec() + Vec3::repeat(0.5 * l);
            if f.lattice == crate::fluid::sampling::LatticeKind::Hexagonal && planar {
                o.x = min.vec().x + 0.25 * l;
                o.y = min.vec().y + 3f64.sqrt() / 4.0 * l;
            }
            o
        }
        // Half a spacing off the centre: no particle sits on an axis of symmetry of the flow,
        // where the forces balance exactly and it could never leave the axis.
        Some(RegionDef::Ball { center, .. }) => center.vec() + Vec3::repeat(0.5 * l),
        Some(RegionDef::Shape { position, .. }) => position.vec() + Vec3::repeat(0.5 * l),
        None => Vec3::zeros(),
    };
    sampling::Lattice {
        kind: f.lattice,
        l,
        origin: if planar {
            Vec3::new(anchor.x, anchor.y, 0.0)
        } else {
            anchor
        },
        planar,
    }
}

/// The lattice points of every region (within the visit budget) and the velocity field each
/// point takes.
fn sample_regions<'a>(
    f: &'a FluidDef,
    m: &Model,
    lattice: &sampling::Lattice,
    visits: &mut f64,
) -> Result<(Vec<Vec3>, Vec<&'a crate::model::schema::VelocityDef>), BuildError> {
    let (planar, l) = (m.scene.dimension == Dimension::Two, f.spacing.0);
    let mut pos = Vec::new();
    let mut fields = Vec::new();
    for r in &f.regions {
        let field = match r {
            RegionDef::Box { min, max, velocity } => {
                budget(
                    visits,
                    lattice.visits(min.vec(), max.vec()),
                    "a fluid region",
                )
                .map_err(BuildError::Spacing)?;
                sampling::fill_box(lattice, min.vec(), max.vec(), &mut pos);
                velocity
            }
            RegionDef::Ball {
                center,
                radius,
                velocity,
            } => {
                let mut c = center.vec();
                if planar {
                    c.z = 0.0;
                }
                let r = Vec3::repeat(radius.0);
                budget(visits, lattice.visits(c - r, c + r), "a fluid region")
                    .map_err(BuildError::Spacing)?;
                sampling::fill_ball(lattice, c, radius.0, &mut pos);
                velocity
            }
            RegionDef::Shape {
                shape,
                position,
                rotation,
                velocity,
            } => {
                if matches!(shape, ShapeDef::TriMesh { .. }) {
                    return Err(BuildError::Fluid(
                        "a fluid region cannot be a triangle mesh (use a convex hull or a compound)"
                            .to_string(),
                    ));
                }
                let dofs = if planar { Dofs::Planar } else { Dofs::Spatial };
                let (s, local) = build_shape(shape, dofs, m.scene.thickness.0)
                    .map_err(|e| format!("fluid region shape: {e}"))?;
                let rot = rotation.quat().ok_or_else(|| {
                    BuildError::Fluid(
                        "fluid region: invalid rotation (zero axis or quaternion)".into(),
                    )
                })?;
                let rot = if planar {
                    let (_, _, yaw) = rot.euler_angles();
                    Quat::from_axis_angle(&Vec3::z_axis(), yaw)
                } else {
                    rot
                };
                let mut at = position.vec();
                if planar {
                    at.z = 0.0;
                }
                let pose = Iso::from_parts(at.into(), rot) * local;
                let (lo, hi) = aabb_of(&s, &pose);
                budget(visits, lattice.visits(lo, hi), "a fluid region")
                    .map_err(BuildError::Spacing)?;
                sampling::fill_shape(lattice, &s, &pose, &mut pos);
                velocity
            }
        };
        if pos.len() > MAX_PARTICLES {
            return Err(BuildError::Spacing(format!(
                "the fluid regions hold more than {MAX_PARTICLES} particles at spacing {l} m"
            )));
        }
        fields.resize(pos.len(), field);
    }
    Ok((pos, fields))
}

/// The lattice origins a moving body may be sampled from (m, in its frame): per axis, half a
/// spacing inside the lower face of its bounding box `aabb` or half a spacing inside the upper
/// one (the same when the extent is a whole number of spacings, to 1e-6 of one); the
/// lower-corner origin first. A planar model's z stays 0.
fn anchor_candidates(aabb: &parry3d_f64::bounding_volume::Aabb, l: f64, planar: bool) -> Vec<Vec3> {
    let (lo, hi) = (from_pv(aabb.mins), from_pv(aabb.maxs));
    let axes = if planar { 2 } else { 3 };
    let options: Vec<Vec<f64>> = (0..3)
        .map(|a| {
            let low = lo[a] + 0.5 * l;
            if a >= axes {
                return vec![0.0];
            }
            let rows = ((hi[a] - lo[a] - 0.5 * l) / l + 1e-6).floor().max(0.0);
            let high = hi[a] - 0.5 * l - rows * l;
            if (high - low).abs() < 1e-6 * l {
                vec![low]
            } else {
                vec![low, high]
            }
        })
        .collect();
    let mut out = Vec::new();
    for &x in &options[0] {
        for &y in &options[1] {
            for &z in &options[2] {
                out.push(Vec3::new(x, y, z));
            }
        }
    }
    out
}

/// A moving body's boundary particles in its frame: (position, vector to its surface), m.
type Particles = Vec<(Vec3, Vec3)>;

/// Of a moving body's candidate particle sets `(clearance to the nearest fluid particle in m,
/// the worst flat face's median distance to the fluid facing it in spacings, particles)`, the
/// one to keep: among those whose clearance reaches the largest there is, or one spacing if
/// that is larger (no particle nearer the fluid than the lattice's own spacing where that can
/// be had), the one whose faces fit best; the first of equals. So a paddle 2.5 spacings thick
/// is laid from the face next to the water (the other anchor puts a row on that face, half a
/// spacing from the fluid), and a floating body of any height from its wet keel (laid from its
/// dry deck, the heave section's keel row lay 0.86 spacings inside the keel at 1/60 m, a
/// third of a spacing of gap the hull settled into).
fn choose_anchor(candidates: Vec<(f64, f64, Particles)>, l: f64) -> Particles {
    let reach = candidates
        .iter()
        .map(|c| c.0)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(l)
        - 1e-9 * l;
    let mut best: Option<(f64, Particles)> = None;
    for (clear, gap, pts) in candidates {
        if clear >= reach && best.as_ref().is_none_or(|(g, _)| gap < *g - 1e-9) {
            best = Some((gap, pts));
        }
    }
    best.map(|b| b.1).unwrap_or_default()
}

/// The lattice points a moving body's bounding box visits (for the build budget).
fn own_visits(lattice: &sampling::Lattice, aabb: &parry3d_f64::bounding_volume::Aabb) -> f64 {
    let own = sampling::Lattice {
        origin: from_pv(aabb.mins),
        ..*lattice
    };
    own.visits(from_pv(aabb.mins), from_pv(aabb.maxs))
}

/// Whether `p` lies outside every body and at least the `lattice`'s clearance from its surface
/// ([`sampling::wall_clearance`]: a fixed wall's or a moving body's).
fn outside_bodies(
    p: &Vec3,
    geometry: &Geometry,
    bodies: &[RigidBody],
    lattice: &sampling::Lattice,
) -> bool {
    geometry.colliders.iter().zip(bodies).all(|(c, b)| {
        let pose = crate::math::to_pose(&(b.pose * c.local));
        c.shape
            .distance_to_point(&pose, crate::math::to_pv(p), true)
            >= sampling::wall_clearance(lattice, b.kind != Kind::Static)
    })
}

/// `wall_body` (a static body per wall particle) kept for the bodies a `FluidForce` probe reads
/// and [`crate::fluid::STATIC`] for the others: a static body's force is summed only when asked
/// (a pass over its boundary particles' fluid neighbours each step, each sub-step for WCSPH).
fn read_walls(m: &Model, bodies: &[RigidBody], wall_body: Vec<u32>) -> Vec<u32> {
    let read: Vec<bool> = bodies.iter().map(|b| force_read(m, &b.name)).collect();
    wall_body
        .into_iter()
        .map(|b| {
            if read[b as usize] {
                b
            } else {
                crate::fluid::STATIC
            }
        })
        .collect()
}

/// The fluid's damping zones (in the plane of a 2D model).
fn damping_zones(f: &FluidDef, planar: bool) -> Vec<crate::fluid::damping::DampingZone> {
    let flat = |v: crate::math::Vec3| {
        if planar {
            crate::math::Vec3::new(v.x, v.y, 0.0)
        } else {
            v
        }
    };
    f.damping
        .iter()
        .map(|z| crate::fluid::damping::DampingZone {
            start: flat(z.start.vec()),
            end: flat(z.end.vec()),
            rate: z.rate.0,
        })
        .collect()
}

/// With `walls: Smooth`, the box of each static body that becomes a smooth wall: an
/// axis-aligned cuboid (a quarter turn counts) that no `FluidForce` probe reads; `None` for
/// every other body (and for all without smooth walls).
fn smooth_walls(
    f: &FluidDef,
    m: &Model,
    bodies: &[RigidBody],
    geometry: &Geometry,
) -> Vec<Option<WallBox>> {
    let on = f.walls == crate::model::fluid_defs::WallTreatment::Smooth;
    let aligned = |pose: &Iso| {
        let r = pose.rotation.to_rotation_matrix();
        r.matrix()
            .iter()
            .all(|x| x.abs() < 1e-9 || (x.abs() - 1.0).abs() < 1e-9)
    };
    geometry
        .colliders
        .iter()
        .zip(bodies)
        .map(|(c, b)| {
            let pose = b.pose * c.local;
            let keep = on
                && b.kind == Kind::Static
                && c.shape.as_cuboid().is_some()
                && aligned(&pose)
                && !force_read(m, &b.name);
            keep.then(|| {
                let (min, max) = aabb_of(&c.shape, &pose);
                WallBox {
                    min,
                    max,
                    body: c.body as u32,
                }
            })
        })
        .collect()
}

/// Whether a `FluidForce` probe reads body `name`.
fn force_read(m: &Model, name: &str) -> bool {
    m.probes
        .iter()
        .any(|p| matches!(p, crate::model::schema::ProbeDef::FluidForce(n) if n == name))
}

/// The walls' boundary particles (m), their offsets to the surface (m) and their bodies.
type Walls = (Vec<Vec3>, Vec<Vec3>, Vec<u32>);

/// The boundary particles of the walls (static bodies, filled `depth` (m) below their
/// surface) with their offsets to the surface and the index of the body each was sampled from;
/// `fluid` particles already sampled count in the particle limit, and the lattice `visits` so
/// far in its budget. Smooth walls (`smooth`) get no particles.
fn sample_walls(
    geometry: &Geometry,
    bodies: &[RigidBody],
    smooth: &[Option<WallBox>],
    lattice: &sampling::Lattice,
    depth: f64,
    periodic: &crate::fluid::periodic::Periodic,
    (visits, fluid): (&mut f64, usize),
) -> Result<Walls, BuildError> {
    let l = lattice.l;
    let mut boundary = Vec::new();
    let mut from = Vec::new();
    for ((c, b), smooth) in geometry.colliders.iter().zip(bodies).zip(smooth) {
        if b.kind == Kind::Static && smooth.is_none() {
            let (lo, hi) = aabb_of(&c.shape, &(b.pose * c.local));
            budget(
                visits,
                lattice.visits(lo, hi),
                &format!("body `{}` (a wall)", b.name),
            )
            .map_err(|e| BuildError::Body(c.body, e))?;
            sampling::fill_shape_layer(
                lattice,
                &c.shape,
                &(b.pose * c.local),
                depth,
                &mut boundary,
            );
            from.resize(boundary.len(), c.body as u32);
            if boundary.len() + fluid > MAX_PARTICLES {
                return Err(BuildError::Fluid(format!("the walls need more than {MAX_PARTICLES} boundary particles at spacing {l} m; make the static bodies smaller")));
            }
        }
    }
    let mut boundary: Vec<_> = boundary
        .into_iter()
        .zip(from)
        .filter(|(p, _)| periodic.contains(&p.0, 1e-9 * l))
        .collect();
    // A lattice point on a face shared by two walls is sampled by both: keep it once, with its
    // offset to the nearer surface (and that surface's body).
    let key = |p: &Vec3| [0, 1, 2].map(|a| (p[a] / (1e-6 * l)).round() as i64);
    boundary.sort_by(|(a, _), (b, _)| {
        key(&a.0)
            .cmp(&key(&b.0))
            .then(a.1.norm_squared().total_cmp(&b.1.norm_squared()))
    });
    boundary.dedup_by_key(|(p, _)| key(&p.0));
    let (mut x, mut s, mut o) = (Vec::new(), Vec::new(), Vec::new());
    for ((p, surface), body) in boundary {
        x.push(p);
        s.push(surface);
        o.push(body);
    }
    Ok((x, s, o))
}

/// Boundary particles of the moving bodies, fixed in their frames.
fn attach_bodies(
    fluid: &mut Fluid,
    geometry: &Geometry,
    bodies: &[RigidBody],
    lattice: &sampling::Lattice,
    depth: f64,
    visits: &mut f64,
) -> Result<(), BuildError> {
    let (planar, l) = (lattice.planar, lattice.l);
    if bodies.iter().all(|b| b.kind == Kind::Static) {
        return Ok(());
    }
    // The fluid particles' grid, for the nearest particle to each candidate sampling; the
    // bodies are attached once every one is sampled (attaching changes the fluid).
    let mut near = crate::fluid::grid::CellGrid::default();
    near.build(&fluid.pos, 2.0 * l, planar, &fluid.params.periodic);
    let mut attached = Vec::new();
    // Moving bodies carry boundary particles on a lattice of their own, anchored half a spacing
    // inside the corner of the shape's bounding box in the body's own frame (the frame the model
    // places it in): a box is then sampled exactly l/2 inside each face, wherever it is placed.
    // Where the box's extent along an axis is not a whole number of spacings, the rows can sit
    // l/2 inside the lower face or l/2 inside the upper one, not both: each combination is
    // sampled and [`choose_anchor`] keeps the one that fits the fluid best without a particle
    // nearer to it than needed ([`anchor_candidates`]; until 2026-12-04 the one farthest from
    // the fluid, which laid a floating body from its dry top). (Anchored at the lower corner
    // only, a paddle 2.5 spacings thick had a row on the face next to the water and stopped at
    // the first step, 28 % compressed; centred in the box, the floor of an open box of water
    // 27.5 spacings tall had its top row a quarter spacing under the water.)
    // The lattice is laid in that frame, not in the principal (centre-of-mass) frame, whose
    // axes parry may permute: a planar lattice in a permuted frame would lie across the plane
    // (every particle of an open box on one line). The points are then expressed in the
    // centre-of-mass frame the body's state uses.
    for (c, b) in geometry.colliders.iter().zip(bodies) {
        if b.kind != Kind::Static {
            let in_frame = b.com_to_frame.inverse() * c.local;
            let aabb = c.shape.compute_aabb(&crate::math::to_pose(&in_frame));
            budget(
                visits,
                own_visits(lattice, &aabb),
                &format!("body `{}`", b.name),
            )
            .map_err(|e| BuildError::Body(c.body, e))?;
            let mut candidates = Vec::new();
            for origin in anchor_candidates(&aabb, l, planar) {
                let own = sampling::Lattice { origin, ..*lattice };
                let mut pts = Vec::new();
                sampling::fill_shape_layer(&own, &c.shape, &in_frame, depth, &mut pts);
                // On the hexagonal and face-centred lattices no particle shallower than the
                // fluid's clearance from a moving body: their rows alternate by half a row (and
                // the anchors above step by l), so on the planar one every other row began on
                // the face (a floating box's left face; its bottom row 0.06 l inside with the
                // upper anchor), 0.76 l from the fluid's first row, 5.1 % compressed at the
                // first step (2026-12-01). The square and cubic lattices anchored as above
                // need no such filter, and it would be wrong for compound shapes, whose depth
                // is measured to the nearest part's surface (inner faces included).
                if own.kind == sampling::LatticeKind::Hexagonal {
                    pts.retain(|(_, s)| s.norm() >= sampling::wall_clearance(&own, true));
                }
                for (p, s) in pts.iter_mut() {
                    *p = (b.com_to_frame * nalgebra::Point3::from(*p)).coords;
                    *s = b.com_to_frame.rotation * *s;
                }
                let mut clear = f64::INFINITY;
                let mut fit = crate::fluid::face_fit::FaceFit::default();
                for (p, s) in &pts {
                    let x = (b.pose * nalgebra::Point3::from(*p)).coords;
                    clear = clear.min(near.nearest(&fluid.pos, &x, |_| true));
                    fit.add(&near, &fluid.pos, &x, &(b.pose.rotation * *s), l);
                }
                let gap = fit.worst().map_or(0.0, |w| w.1);
                candidates.push((clear, gap, pts));
            }
            let pts = choose_anchor(candidates, l);
            if pts.is_empty() {
                return Err(BuildError::Body(
                    c.body,
                    format!(
                        "body `{}` is too small to carry boundary particles at spacing {l} m",
                        b.name
                    ),
                ));
            }
            attached.push((c.body, b.pose, pts));
        }
    }
    for (body, pose, pts) in attached {
        fluid.attach_body(body, &pose, &pts);
    }
    Ok(())
}
