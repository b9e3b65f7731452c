//! # vcsim — constraint-based multibody and particle-fluid simulation
//!
//! Everything that moves is a set of velocity degrees of freedom (6 per dynamic body, 3 per SPH
//! fluid particle); everything that restricts motion is a velocity-level constraint row
//! (contacts with friction, joints, fluid density and wall rows, particle contacts), all solved
//! together by one projected Gauss–Seidel or Nesterov (APGD) solver.
//!
//! ## The step
//!
//! [`pipeline::World::step`] is the list of stages, each entering each module once:
//!
//! 1. neighbours — [`fluid::Fluid::update_neighbours`];
//! 2. external forces — bodies (gravity, loads, gyroscopic step) and the fluid's explicit forces
//!    ([`fluid::morris_viscosity`], [`fluid::monaghan_viscosity`], [`fluid::velocity_filter`]);
//! 3. geometry — the velocity layout ([`constraints::VelocityLayout`]), broad and narrow phase
//!    ([`geometry`]);
//! 4. rows — each row family of [`constraints`] builds its rows: rigid contacts, joints
//!    ([`constraints::BodyRows`]), fluid density and wall rows ([`constraints::DensityRows`]),
//!    particle contacts ([`constraints::ParticleContactRows`]);
//! 5. solve — the families stacked ([`solver::RowStack`]) and solved by [`solver`]'s PGS or
//!    APGD; each family reads its impulses back;
//! 6. integrate — bodies, then fluid particles (with [`fluid::lind_shifting`]).
//!
//! The switches [`pipeline::FluidMethod`] and [`pipeline::ContactResolver`] choose which
//! families take part. A new row family is a file in [`constraints`] implementing
//! [`solver::RowSet`] and [`constraints::RowFamily`], added to the pipeline's list; nothing else
//! changes (the book's architecture chapter).
//!
//! ## Running
//!
//! [`model`] maps a RON file onto a [`World`]; [`runner::run`] steps it, samples [`probe`]s and
//! returns their series in memory, printing nothing; [`io`] writes files (CSV, VTK, plots,
//! renders) and [`cli`] is the command line. Units are SI throughout; `Real = f64`.

pub mod body;
pub mod cli;
pub mod constraints;
pub mod fluid;
pub mod geometry;
pub mod impulse;
pub mod io;
pub mod math;
pub mod model;
pub mod params;
pub mod pipeline;
pub mod probe;
pub mod runner;
pub mod solver;

pub use math::Real;
pub use model::{build_world, load_file, parse_str, Model, ModelError};
pub use pipeline::World;
