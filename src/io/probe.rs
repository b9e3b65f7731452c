//! Probes: named measurements sampled at output times, written to `probes.csv` and plotted.

use crate::model::schema::ProbeDef;
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
    /// Constraint force of joint `i` on its second body (N).
    JointForce(usize),
    /// Kinetic, potential and total energy (J).
    Energy,
}

impl Probe {
    /// Resolves a probe definition against the world; `None` for unknown names.
    pub fn resolve(def: &ProbeDef, world: &World) -> Option<Probe> {
        Some(match def {
            ProbeDef::Position(n) => Probe::Position(world.body(n)?),
            ProbeDef::Velocity(n) => Probe::Velocity(world.body(n)?),
            ProbeDef::AngularVelocity(n) => Probe::AngularVelocity(world.body(n)?),
            ProbeDef::JointForce(n) => Probe::JointForce(world.joint(n)?),
            ProbeDef::Energy => Probe::Energy,
        })
    }

    /// Panel title and unit.
    pub fn title(&self, world: &World) -> String {
        match self {
            Probe::Position(i) => format!("position of {} (m)", world.bodies[*i].name),
            Probe::Velocity(i) => format!("velocity of {} (m/s)", world.bodies[*i].name),
            Probe::AngularVelocity(i) => {
                format!("angular velocity of {} (rad/s)", world.bodies[*i].name)
            }
            Probe::JointForce(i) => format!("force of joint {} (N)", world.joints[*i].name),
            Probe::Energy => "energy (J)".to_string(),
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
            Probe::JointForce(i) => xyz(format!("{}.force", world.joints[*i].name)),
            Probe::Energy => vec!["kinetic".into(), "potential".into(), "total".into()],
        }
    }

    /// Current values, one per column.
    pub fn sample(&self, world: &World, out: &mut Vec<Real>) {
        let v = match self {
            Probe::Position(i) => world.bodies[*i].com(),
            Probe::Velocity(i) => world.bodies[*i].lin_vel,
            Probe::AngularVelocity(i) => world.bodies[*i].ang_vel,
            Probe::JointForce(i) => world.joints[*i].force,
            Probe::Energy => {
                let (k, p) = (world.kinetic_energy(), world.potential_energy());
                crate::math::Vec3::new(k, p, k + p)
            }
        };
        out.extend(v.iter());
    }
}
