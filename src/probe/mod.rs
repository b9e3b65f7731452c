//! Probes: named measurements of a [`World`], sampled by the runner ([`crate::runner`]) at
//! output times; `io` writes them to `probes.csv` and plots them. The fluid's measurements
//! (front, pressure, smoothed pressure, density error, energies, submerged fraction) are in
//! [`fluid`]. The model layer resolves the names of a model's probes into [`Probe`]s.

pub mod fluid;
pub use fluid::SurfaceTops;
pub mod repose;
pub mod waves;

use crate::math::Vec3;
use crate::pipeline::World;
use crate::Real;

/// A resolved probe.
#[derive(Debug, Clone)]
pub enum Probe {
    /// Centre-of-mass position of body `i` (m).
    Position(usize),
    /// Linear velocity of body `i` (m/s).
    Velocity(usize),
    /// Angular velocity of body `i` (rad/s).
    AngularVelocity(usize),
    /// Orientation of body `i`'s frame as a rotation vector (rad).
    Orientation(usize),
    /// Constraint force of joint `i` on its second body (N).
    JointForce(usize),
    /// Kinetic, potential and total energy (J).
    Energy,
    /// Surge front along a unit direction (m).
    Front(Vec3),
    /// Smoothed fluid pressure at a point (Pa).
    Pressure(Vec3),
    /// Free-surface elevation (m) on the vertical line through a point, against the height
    /// `rest` (m, from the point) of the surface there at the start ([`crate::fluid::Fluid::surface_height`]).
    WaveGauge {
        /// The point the line passes through (m).
        point: Vec3,
        /// The surface's height at the start (m, above the point).
        rest: Real,
    },
    /// Fluid force and torque on body `i` (N, N·m).
    FluidForce(usize),
    /// Max compression and mean |density error| of the fluid.
    DensityError,
    /// The impulse contact resolver's last step.
    Resolver,
    /// Submerged volume fraction of body `i`, with sample points of the body's volume in its
    /// centre-of-mass frame.
    Submerged(usize, Vec<Vec3>),
    /// Fluid kinetic, potential and total energy (J).
    FluidEnergy,
    /// Angle of repose of the pile on plate body `i` ([`repose`]), with every body's bounding
    /// radius (m).
    Repose(usize, Vec<Real>),
    /// Displacement (m) of a point fixed in body `body`'s frame (offset `local`, m) from the
    /// world point `initial`: a beam's tip or marker.
    BeamPoint {
        /// Column prefix.
        label: String,
        /// The element.
        body: usize,
        /// The point in the element's frame (m).
        local: Vec3,
        /// Its initial world position (m).
        initial: Vec3,
    },
    /// Root bending moment (N·m) of the named beam: the spring moment of its root hinge (joint
    /// index), 0 without one.
    BeamMoment(String, Option<usize>),
    /// Elastic energy (J) of the named beam's hinges (joint indices).
    BeamEnergy(String, Vec<usize>),
}

impl Probe {
    /// Panel title and unit.
    pub fn title(&self, world: &World) -> String {
        match self {
            Probe::Position(i) => format!("position of {} (m)", world.bodies[*i].name),
            Probe::Velocity(i) => format!("velocity of {} (m/s)", world.bodies[*i].name),
            Probe::AngularVelocity(i) => {
                format!("angular velocity of {} (rad/s)", world.bodies[*i].name)
            }
            Probe::Orientation(i) => {
                format!(
                    "orientation of {}, axis × angle (rad)",
                    world.bodies[*i].name
                )
            }
            Probe::JointForce(i) => format!("force of joint {} (N)", world.joints[*i].name),
            Probe::Energy => "energy (J)".to_string(),
            Probe::Front(_) => "surge front (m)".to_string(),
            Probe::Pressure(p) => format!("pressure at ({}, {}, {}) (Pa)", p.x, p.y, p.z),
            Probe::WaveGauge { point: p, .. } => {
                format!("free-surface elevation at ({}, {}, {}) (m)", p.x, p.y, p.z)
            }
            Probe::FluidForce(i) => format!(
                "fluid force (N) and torque (N m) on {}",
                world.bodies[*i].name
            ),
            Probe::DensityError => "density error (-)".to_string(),
            Probe::Resolver => "contact resolver: impulses (-), energies (J)".to_string(),
            Probe::Submerged(i, ..) => {
                format!("submerged fraction of {} (-)", world.bodies[*i].name)
            }
            Probe::FluidEnergy => "fluid energy (J)".to_string(),
            Probe::Repose(i, _) => format!(
                "pile on {}: angle of repose and spread (deg), grains (-), height (m)",
                world.bodies[*i].name
            ),
            Probe::BeamPoint { label, .. } => format!("displacement of {label} (m)"),
            Probe::BeamMoment(n, _) => format!("root bending moment of {n} (N m)"),
            Probe::BeamEnergy(n, _) => format!("elastic energy of {n} (J)"),
        }
    }

    /// Column names.
    pub fn columns(&self, world: &World) -> Vec<String> {
        let xyz = |prefix: String| {
            vec![
                format!("{prefix}.x"),
                format!("{prefix}.y"),
                format!("{prefix}.z"),
            ]
        };
        match self {
            Probe::Position(i) => xyz(format!("{}.pos", world.bodies[*i].name)),
            Probe::Velocity(i) => xyz(format!("{}.vel", world.bodies[*i].name)),
            Probe::AngularVelocity(i) => xyz(format!("{}.angvel", world.bodies[*i].name)),
            Probe::Orientation(i) => xyz(format!("{}.rot", world.bodies[*i].name)),
            Probe::JointForce(i) => xyz(format!("{}.force", world.joints[*i].name)),
            Probe::Energy => vec!["kinetic".into(), "potential".into(), "total".into()],
            Probe::Front(d) => vec![format!("front({} {} {})", d.x, d.y, d.z)],
            Probe::Pressure(p) => vec![format!("pressure({} {} {})", p.x, p.y, p.z)],
            Probe::WaveGauge { point: p, .. } => {
                vec![format!("elevation({} {} {})", p.x, p.y, p.z)]
            }
            Probe::FluidForce(i) => {
                let n = &world.bodies[*i].name;
                let mut c = xyz(format!("{n}.fluid_force"));
                c.extend(xyz(format!("{n}.fluid_torque")));
                c
            }
            Probe::DensityError => vec!["max_compression".into(), "mean_density_error".into()],
            Probe::Resolver => vec![
                "resolver_impulses".into(),
                "resolver_stored".into(),
                "resolver_released".into(),
                "resolver_energy_change".into(),
            ],
            Probe::Submerged(i, ..) => vec![format!("{}.submerged", world.bodies[*i].name)],
            Probe::FluidEnergy => vec![
                "fluid_kinetic".into(),
                "fluid_potential".into(),
                "fluid_total".into(),
            ],
            Probe::Repose(..) => vec![
                "repose_angle".into(),
                "repose_spread".into(),
                "pile_grains".into(),
                "pile_height".into(),
            ],
            Probe::BeamPoint { label, .. } => vec![
                format!("{label}.dx"),
                format!("{label}.dy"),
                format!("{label}.dz"),
            ],
            Probe::BeamMoment(n, _) => vec![format!("{n}.root_moment")],
            Probe::BeamEnergy(n, _) => vec![format!("{n}.elastic_energy")],
        }
    }

    /// The current values of every probe of `probes`, appended to `out` (one per column).
    pub fn sample_all(probes: &[Probe], world: &World, out: &mut Vec<Real>) {
        for p in probes {
            p.sample(world, out);
        }
    }

    /// Current values, one per column.
    pub fn sample(&self, world: &World, out: &mut Vec<Real>) {
        let fluid = world.fluid.as_ref();
        let v = match self {
            Probe::Front(d) => {
                let f = fluid.map(|f| f.front(d)).unwrap_or(0.0);
                out.push(f);
                return;
            }
            Probe::Pressure(p) => {
                out.push(fluid.map(|f| f.pressure_at(p)).unwrap_or(0.0));
                return;
            }
            Probe::WaveGauge { point, rest } => {
                let h = fluid.and_then(|f| f.surface_height(point, &world.gravity));
                out.push(h.map_or(Real::NAN, |h| h - rest));
                return;
            }
            Probe::FluidForce(i) => {
                let z = crate::math::Vec3::zeros();
                let (f, t) = fluid
                    .map(|f| {
                        (
                            f.body_force.get(*i).copied().unwrap_or(z),
                            f.body_torque.get(*i).copied().unwrap_or(z),
                        )
                    })
                    .unwrap_or((z, z));
                out.extend(f.iter().chain(t.iter()));
                return;
            }
            Probe::Repose(i, radii) => {
                out.extend(repose::measure(world, *i, radii));
                return;
            }
            Probe::Resolver => {
                let k = world.last_impulses;
                let (stored, released) =
                    world.contact_resolver.tracked_energy().unwrap_or_default();
                out.extend([k.iterations as Real, stored, released, k.energy_change]);
                return;
            }
            Probe::DensityError => {
                let (mx, mean) = fluid.map(|f| f.density_error_stats()).unwrap_or((0.0, 0.0));
                out.extend([mx, mean]);
                return;
            }
            Probe::Submerged(i, pts) => {
                out.push(
                    fluid
                        .map(|f| f.submerged_fraction(&world.bodies[*i].pose, pts, &world.gravity))
                        .unwrap_or(0.0),
                );
                return;
            }
            Probe::FluidEnergy => {
                let (k, p) = fluid
                    .map(|f| f.energies(&world.gravity))
                    .unwrap_or((0.0, 0.0));
                out.extend([k, p, k + p]);
                return;
            }
            Probe::BeamMoment(_, joint) => {
                let m = joint.and_then(|j| world.joints[j].spring_state(&world.bodies));
                out.push(m.map_or(0.0, |(moment, _)| moment));
                return;
            }
            Probe::BeamEnergy(_, joints) => {
                let e = joints
                    .iter()
                    .filter_map(|&j| world.joints[j].spring_state(&world.bodies))
                    .map(|(_, energy)| energy)
                    .sum::<Real>();
                out.push(e);
                return;
            }
            Probe::BeamPoint {
                body,
                local,
                initial,
                ..
            } => {
                let p = world.bodies[*body].frame_pose() * nalgebra::Point3::from(*local);
                p.coords - initial
            }
            Probe::Position(i) => world.bodies[*i].com(),
            Probe::Velocity(i) => world.bodies[*i].lin_vel,
            Probe::AngularVelocity(i) => world.bodies[*i].ang_vel,
            Probe::Orientation(i) => world.bodies[*i].frame_pose().rotation.scaled_axis(),
            Probe::JointForce(i) => world.joints[*i].force,
            Probe::Energy => {
                let (k, p) = (world.kinetic_energy(), world.potential_energy());
                crate::math::Vec3::new(k, p, k + p)
            }
        };
        out.extend(v.iter());
    }
}
