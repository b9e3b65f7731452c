//! Building a [`World`] from a [`Model`]: [`build_world`] validates the model first
//! ([`super::validate::validate`]), so a model edited in code gets the same checks, and errors
//! by field path, as one read from a file; then expands body arrays and builds. What only
//! building can find (a fluid too large to sample, a body too small to carry boundary
//! particles, a pair of shapes without contacts) is reported by path too.
//!
//! Mass properties come from parry (`mass_properties(density)`): mass (kg), centre of mass and
//! principal inertia (kg·m²) of the shape, scaled when the body gives its mass directly. The
//! body's state is kept in its centre-of-mass principal frame; the user's frame is kept as an
//! offset. Planar models have the thickness as extrusion depth, so their masses are per that depth.

use super::error::FieldError;
use super::schema::{BodyKind, Dimension, FluidDef, JointKindDef, Model, RegionDef, ShapeDef};
use super::shapes::build_shape;
use crate::body::{Dofs, Kind, RigidBody};
use crate::constraints::joint::{Joint, JointCompliance, JointKind};
use crate::fluid::{sampling, Fluid, FluidParams};
use crate::geometry::{Collider, Geometry};
use crate::math::{from_pv, Iso, Quat, Vec3};
use crate::pipeline::World;

/// Where an error found while building lies: a body (index in the expanded model), a joint,
/// the fluid, or the model as a whole. The message names what is wrong.
enum BuildError {
    Body(usize, String),
    Joint(usize, String),
    Fluid(String),
}

impl From<String> for BuildError {
    fn from(message: String) -> BuildError {
        BuildError::Fluid(message)
    }
}

/// Validates the model ([`super::validate::validate`]) and builds the world; the error names
/// the field by its path (`bodies[3]`, `fluid`, `time.dt`, ...).
pub fn build_world(m: &Model) -> Result<World, Box<FieldError>> {
    super::validate::validate(m)?;
    let origin = super::arrays::origins(m);
    let expanded = super::arrays::expanded(m);
    build(&expanded).map_err(|e| match e {
        // At the body's (joint's) name, or the `fluid` key: what the message is about.
        BuildError::Body(i, msg) => {
            FieldError::named(format!("bodies[{}].name", origin[i]), "bodies", msg)
        }
        BuildError::Joint(i, msg) => FieldError::named(format!("joints[{i}].name"), "joints", msg),
        BuildError::Fluid(msg) => FieldError::new("fluid", msg).at_key(),
    })
}

/// Builds the world from a validated model whose arrays are expanded.
fn build(m: &Model) -> Result<World, BuildError> {
    let dofs = match m.scene.dimension {
        Dimension::Two => Dofs::Planar,
        Dimension::Three => Dofs::Spatial,
    };
    let planar = dofs == Dofs::Planar;
    let flat = |v: Vec3| if planar { Vec3::new(v.x, v.y, 0.0) } else { v };
    let mut bodies = Vec::with_capacity(m.bodies.len());
    let groups = m.collision_groups();
    let mut geometry = Geometry::default();
    for (i, b) in m.bodies.iter().enumerate() {
        let body_err = |e: String| BuildError::Body(i, format!("body `{}`: {e}", b.name));
        let (shape, offset) = build_shape(&b.shape, dofs, m.scene.thickness.0)
            .map_err(|e| body_err(e.to_string()))?;
        let name = b.material.as_str();
        let (density, friction, restitution) = match m.materials.iter().find(|mat| mat.name == name)
        {
            Some(mat) => (mat.density.0, mat.friction.0, mat.restitution.0),
            None if name == "default" => (1000.0, 0.5, 0.0),
            None => return Err(body_err(format!("unknown material `{name}`"))),
        };
        let rot = b
            .rotation
            .quat()
            .ok_or_else(|| body_err("invalid rotation".into()))?;
        let rot = if planar {
            // Only rotations about z are planar.
            let (_, _, yaw) = rot.euler_angles();
            Quat::from_axis_angle(&Vec3::z_axis(), yaw)
        } else {
            rot
        };
        let frame = Iso::from_parts(flat(b.position.vec()).into(), rot);
        let kind = match b.kind {
            BodyKind::Static => Kind::Static,
            BodyKind::Kinematic => Kind::Kinematic,
            BodyKind::Dynamic => Kind::Dynamic,
        };
        let (pose, com_to_frame, local, mass, inertia) = if kind == Kind::Dynamic {
            let mp = shape.mass_properties(density);
            let m0 = mp.mass();
            if !(m0 > 0.0 && m0.is_finite()) {
                return Err(body_err("its shape has no volume, so no mass".into()));
            }
            let scale = b.mass.map(|mm| mm.0 / m0).unwrap_or(1.0);
            let principal = Iso::from_parts(
                from_pv(mp.local_com).into(),
                Quat::from(mp.principal_inertia_local_frame),
            );
            let com_in_body = offset * principal;
            (
                frame * com_in_body,
                com_in_body.inverse(),
                principal.inverse(),
                m0 * scale,
                from_pv(mp.principal_inertia()) * scale,
            )
        } else {
            (frame, Iso::identity(), offset, 0.0, Vec3::zeros())
        };
        let mut ang_vel = b.angular_velocity.vec();
        if planar {
            ang_vel = Vec3::new(0.0, 0.0, ang_vel.z);
        }
        bodies.push(RigidBody {
            name: b.name.clone(),
            kind,
            pose,
            lin_vel: flat(b.velocity.vec()),
            ang_vel: if kind == Kind::Static {
                Vec3::zeros()
            } else {
                ang_vel
            },
            mass,
            inv_mass: if mass > 0.0 { 1.0 / mass } else { 0.0 },
            inertia,
            com_to_frame,
            force: flat(b.force.vec()),
            torque: if planar {
                Vec3::new(0.0, 0.0, b.torque.2)
            } else {
                b.torque.vec()
            },
            collider: i,
            motion: b.motion.as_ref().map(|m| crate::body::Prescribed {
                motion: m.motion(),
                origin: frame,
            }),
        });
        geometry.colliders.push(Collider {
            shape,
            body: i,
            local,
            friction,
            restitution,
            groups: group_bits(&groups, &b.groups),
        });
    }
    for (a, b) in &m.no_contact {
        let (ga, gb) = (group_bits(&groups, [a]), group_bits(&groups, [b]));
        let (ka, kb) = (ga.trailing_zeros() as usize, gb.trailing_zeros() as usize);
        if ga != 0 && gb != 0 {
            geometry.no_contact[ka] |= gb;
            geometry.no_contact[kb] |= ga;
        }
    }
    let mut joints = Vec::new();
    for (k, j) in m.joints.iter().enumerate() {
        let index = |name: &str| {
            bodies
                .iter()
                .position(|b: &RigidBody| b.name == name)
                .ok_or_else(|| BuildError::Joint(k, format!("unknown body `{name}`")))
        };
        let (b1, b2) = (index(&j.body1)?, index(&j.body2)?);
        let (kind, axis) = match &j.kind {
            JointKindDef::Fixed => (JointKind::Fixed, Vec3::z()),
            JointKindDef::Spherical => (JointKind::Spherical, Vec3::z()),
            JointKindDef::Revolute { axis, spring } => (
                JointKind::Revolute {
                    spring: spring.as_ref().map(|s| (s.stiffness.0, s.damping.0)),
                },
                axis.vec(),
            ),
            JointKindDef::Prismatic { axis } => (JointKind::Prismatic, axis.vec()),
        };
        let compliance = j.compliance.as_ref().map(|c| JointCompliance {
            linear_stiffness: c.linear_stiffness.0,
            angular_stiffness: c.angular_stiffness.0,
            linear_damping: c.linear_damping.0,
            angular_damping: c.angular_damping.0,
        });
        joints.push(
            Joint::new(
                j.name.clone(),
                kind,
                &bodies,
                b1,
                b2,
                flat(j.anchor.vec()),
                axis,
                compliance,
            )
            .map_err(|e| BuildError::Joint(k, e))?,
        );
        if !j.collide {
            geometry.excluded.push((b1.min(b2), b1.max(b2)));
        }
    }
    geometry.excluded.sort_unstable();
    geometry.excluded.dedup();
    check_contact_pairs(&geometry, &bodies)?;
    let fluid = match &m.fluid {
        Some(f) => Some(build_fluid(f, m, &bodies, &geometry)?),
        None => None,
    };
    let fluid_method = match (&m.fluid, &fluid) {
        (Some(def), Some(f)) => def.method.build(f, &flat(m.scene.gravity.vec()))?,
        _ => Box::new(crate::fluid::constraint::Constraint::default()),
    };
    Ok(World {
        dofs,
        gravity: flat(m.scene.gravity.vec()),
        dt: m.time.dt.0,
        time: 0.0,
        steps: 0,
        time_origin: 0.0,
        steps_origin: 0,
        bodies,
        geometry,
        joints,
        solver: m.solver_choice(),
        contact: m.contact.params(),
        fluid_method,
        last_substeps: Default::default(),
        last_impulses: Default::default(),
        contact_resolver: m.contact.resolver(),
        timings: Default::default(),
        scratch: Default::default(),
        last_solve: Default::default(),
        fluid,
    })
}

/// One bit per group of `names` found in `groups` (the first 32 groups only).
fn group_bits<'a>(groups: &[&str], names: impl IntoIterator<Item = &'a String>) -> u32 {
    names
        .into_iter()
        .filter_map(|n| groups.iter().position(|g| g == n))
        .filter(|&k| k < 32)
        .fold(0, |bits, k| bits | 1 << k)
}

/// Every pair of colliders that may touch (one of them dynamic, not joined) must be a pair of
/// shapes parry computes contacts for; the error names the bodies.
fn check_contact_pairs(geometry: &Geometry, bodies: &[RigidBody]) -> Result<(), BuildError> {
    let mut seen = std::collections::HashSet::new();
    let cs = &geometry.colliders;
    for i in 0..cs.len() {
        for j in i + 1..cs.len() {
            let (bi, bj) = (cs[i].body, cs[j].body);
            if !(bodies[bi].is_dynamic() || bodies[bj].is_dynamic()) || !geometry.may_collide(i, j)
            {
                continue;
            }
            let (ti, tj) = (cs[i].shape.shape_type(), cs[j].shape.shape_type());
            let simple = |t| {
                !matches!(
                    t,
                    parry3d_f64::shape::ShapeType::Compound
                        | parry3d_f64::shape::ShapeType::TriMesh
                )
            };
            if simple(ti) && simple(tj) && !seen.insert((ti, tj)) {
                continue;
            }
            geometry.check_pair(i, j).map_err(|e| {
                BuildError::Body(
                    bi,
                    format!(
                        "body `{}`: {e} (with body `{}`)",
                        bodies[bi].name, bodies[bj].name
                    ),
                )
            })?;
        }
    }
    Ok(())
}

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
fn aabb_of(shape: &parry3d_f64::shape::SharedShape, pose: &Iso) -> (Vec3, Vec3) {
    let a = shape.compute_aabb(&crate::math::to_pose(pose));
    (from_pv(a.mins), from_pv(a.maxs))
}

/// The most fluid plus boundary particles a model may ask for.
pub const MAX_PARTICLES: usize = 20_000_000;

/// Samples the fluid regions and the walls (every static body, filled to the kernel support
/// below its surface).
fn build_fluid(
    f: &FluidDef,
    m: &Model,
    bodies: &[RigidBody],
    geometry: &Geometry,
) -> Result<Fluid, BuildError> {
    let planar = m.scene.dimension == Dimension::Two;
    let l = f.spacing.0;
    let kernel = f.kernel(planar);
    let periodic = super::periodic::periodic(&m.scene.periodic);
    // One global lattice for the fluid and the walls, anchored half a spacing inside the first
    // region's lower corner.
    let anchor = match f.regions.first() {
        Some(RegionDef::Box { min, .. }) => {
            let mut o = min.vec() + Vec3::repeat(0.5 * l);
            if f.lattice == crate::fluid::sampling::LatticeKind::Hexagonal && planar {
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
    let lattice = sampling::Lattice {
        kind: f.lattice,
        l,
        origin: if planar {
            Vec3::new(anchor.x, anchor.y, 0.0)
        } else {
            anchor
        },
        planar,
    };
    let mut pos = Vec::new();
    let mut fields = Vec::new();
    let mut visits = 0.0;
    for r in &f.regions {
        let field = match r {
            RegionDef::Box { min, max, velocity } => {
                budget(
                    &mut visits,
                    lattice.visits(min.vec(), max.vec()),
                    "a fluid region",
                )?;
                sampling::fill_box(&lattice, min.vec(), max.vec(), &mut pos);
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
                budget(&mut visits, lattice.visits(c - r, c + r), "a fluid region")?;
                sampling::fill_ball(&lattice, c, radius.0, &mut pos);
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
                budget(&mut visits, lattice.visits(lo, hi), "a fluid region")?;
                sampling::fill_shape(&lattice, &s, &pose, &mut pos);
                velocity
            }
        };
        if pos.len() > MAX_PARTICLES {
            return Err(BuildError::Fluid(format!(
                "the fluid regions hold more than {MAX_PARTICLES} particles at spacing {l} m"
            )));
        }
        fields.resize(pos.len(), field);
    }
    // No fluid particle where a body is: lattice points inside a shape or less than half a
    // spacing from its surface are left out (walls drawn flush with a region keep it whole).
    let keep: Vec<bool> = pos
        .iter()
        .map(|p| {
            geometry.colliders.iter().zip(bodies).all(|(c, b)| {
                let pose = crate::math::to_pose(&(b.pose * c.local));
                c.shape
                    .distance_to_point(&pose, crate::math::to_pv(p), true)
                    >= 0.499 * l
            })
        })
        .collect();
    // On a periodic axis the lattice points of [lo, hi) are the fluid; a point at hi (or past
    // it) would be an image of one at lo.
    let keep: Vec<bool> = keep
        .iter()
        .zip(&pos)
        .map(|(&k, p)| k && periodic.contains(p, 1e-9 * l))
        .collect();
    let mut it = keep.iter();
    pos.retain(|_| *it.next().unwrap());
    let mut it = keep.iter();
    fields.retain(|_| *it.next().unwrap());
    // The initial velocity field at the (offset) particle positions.
    sampling::jitter(&mut pos, f.jitter.0 * l, planar, &periodic);
    let mut vel: Vec<Vec3> = pos.iter().zip(&fields).map(|(p, v)| v.at(p)).collect();
    if pos.is_empty() {
        return Err(BuildError::Fluid(format!(
            "the fluid regions hold no particle at spacing {l} m (lattice points inside a body or within half a spacing of one are left out)"
        )));
    }
    let mut boundary = Vec::new();
    let depth = kernel.support();
    for (c, b) in geometry.colliders.iter().zip(bodies) {
        if b.kind == Kind::Static {
            let (lo, hi) = aabb_of(&c.shape, &(b.pose * c.local));
            budget(
                &mut visits,
                lattice.visits(lo, hi),
                &format!("body `{}` (a wall)", b.name),
            )
            .map_err(|e| BuildError::Body(c.body, e))?;
            sampling::fill_shape_layer(
                &lattice,
                &c.shape,
                &(b.pose * c.local),
                depth,
                &mut boundary,
            );
            if boundary.len() + pos.len() > MAX_PARTICLES {
                return Err(BuildError::Fluid(format!("the walls need more than {MAX_PARTICLES} boundary particles at spacing {l} m; make the static bodies smaller")));
            }
        }
    }
    boundary.retain(|p| periodic.contains(&p.0, 1e-9 * l));
    // A lattice point on a face shared by two walls is sampled by both: keep it once, with its
    // offset to the nearer surface.
    let key = |p: &Vec3| [0, 1, 2].map(|a| (p[a] / (1e-6 * l)).round() as i64);
    boundary.sort_by(|a, b| {
        key(&a.0)
            .cmp(&key(&b.0))
            .then(a.1.norm_squared().total_cmp(&b.1.norm_squared()))
    });
    boundary.dedup_by_key(|p| key(&p.0));
    let (boundary, to_surface): (Vec<Vec3>, Vec<Vec3>) = boundary.into_iter().unzip();
    let params = FluidParams {
        method: f.method.density(),
        kernel,
        spacing: l,
        rho0: f.density.0,
        viscosity: f.viscosity.0,
        beta: f.stabilisation.0,
        compliance: f.compliance.0,
        planar,
        thickness: if planar { m.scene.thickness.0 } else { 1.0 },
        lattice: f.lattice,
        velocity_filter: f.velocity_filter.0,
        shifting: f.shifting_coefficient(),
        artificial_viscosity: f
            .artificial_viscosity
            .as_ref()
            .map(|a| (a.alpha.0, a.sound_speed.0))
            .unwrap_or((0.0, 0.0)),
        periodic,
    };
    vel.iter_mut().filter(|_| planar).for_each(|v| v.z = 0.0);
    let mut fluid = Fluid::new(params, pos, vel, boundary);
    fluid.set_wall_surfaces(to_surface);
    // Moving bodies carry boundary particles on a lattice of their own, anchored half a spacing
    // inside the corner of the shape's bounding box in the body's own frame (the frame the model
    // places it in): a box is then sampled exactly l/2 inside each face, wherever it is placed.
    // The lattice is laid in that frame, not in the principal (centre-of-mass) frame, whose
    // axes parry may permute: a planar lattice in a permuted frame would lie across the plane
    // (every particle of an open box on one line). The points are then expressed in the
    // centre-of-mass frame the body's state uses.
    for (c, b) in geometry.colliders.iter().zip(bodies) {
        if b.kind != Kind::Static {
            let in_frame = b.com_to_frame.inverse() * c.local;
            let aabb = c.shape.compute_aabb(&crate::math::to_pose(&in_frame));
            let mut origin = from_pv(aabb.mins) + Vec3::repeat(0.5 * l);
            if planar {
                origin.z = 0.0;
            }
            let own = sampling::Lattice { origin, ..lattice };
            budget(
                &mut visits,
                own.visits(from_pv(aabb.mins), from_pv(aabb.maxs)),
                &format!("body `{}`", b.name),
            )
            .map_err(|e| BuildError::Body(c.body, e))?;
            let mut pts = Vec::new();
            sampling::fill_shape_layer(&own, &c.shape, &in_frame, depth, &mut pts);
            for (p, s) in pts.iter_mut() {
                *p = (b.com_to_frame * nalgebra::Point3::from(*p)).coords;
                *s = b.com_to_frame.rotation * *s;
            }
            if pts.is_empty() {
                return Err(BuildError::Body(
                    c.body,
                    format!(
                        "body `{}` is too small to carry boundary particles at spacing {l} m",
                        b.name
                    ),
                ));
            }
            fluid.attach_body(c.body, &b.pose, &pts);
        }
    }
    if fluid.boundary.len() + fluid.len() > MAX_PARTICLES {
        return Err(BuildError::Fluid(format!(
            "the bodies need more than {MAX_PARTICLES} boundary particles at spacing {l} m"
        )));
    }
    Ok(fluid)
}
