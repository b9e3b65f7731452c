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
//! - 0 prescribed motion — kinematic bodies take the velocities to their prescribed poses;
//! - 1 neighbours — the fluid method's [`fluid::FluidMethod::find_neighbours`] (the
//!   constraint method: [`fluid::Fluid::update_neighbours`]);
//! - 1b sub-steps — a partitioned fluid method's [`fluid::FluidMethod::advance`]
//!   ([`fluid::wcsph`], [`fluid::isph`]), leaving the fluid's force on the bodies;
//! - 2 external forces — bodies (gravity, loads, the partitioned fluid's force, gyroscopic
//!   step, [`fluid::FluidMethod::couple_body`]) and the fluid's explicit forces
//!   ([`fluid::FluidMethod::external`]: [`fluid::morris_viscosity`],
//!   [`fluid::monaghan_viscosity`], [`fluid::velocity_filter`]);
//! - 3 geometry — the velocity layout ([`constraints::VelocityLayout`]), broad and narrow
//!   phase ([`geometry`]); 3b an impulse contact resolver ([`impulse::ContactResolver`]) on
//!   the bodies' velocities;
//! - 4 rows — each row family of [`constraints`] builds its rows: rigid contacts, joints
//!   ([`constraints::BodyRows`]), and the fluid method's ([`fluid::FluidMethod::build_rows`]:
//!   density and wall rows [`constraints::DensityRows`], particle contacts
//!   [`constraints::ParticleContactRows`]);
//! - 5 solve — the families stacked ([`solver::RowStack`]) and solved by [`solver`]'s PGS or
//!   APGD; each family reads its impulses back;
//! - 6 integrate — bodies, then [`fluid::FluidMethod::integrate`] (with
//!   [`fluid::lind_shifting`]).
//!
//! The world holds one [`fluid::FluidMethod`] and one [`impulse::ContactResolver`] as trait
//! objects; no stage asks which it has. A new fluid method or contact resolver is a type
//! implementing the trait (`tests/extension.rs` writes one of each outside the crate); a new row
//! family is a file in [`constraints`] implementing [`solver::RowSet`] and
//! [`constraints::RowFamily`] (the book's "Adding a method" page).
//!
//! ## Running
//!
//! [`model`] maps a RON file onto a [`World`]; [`runner::run`] steps it, samples [`probe`]s and
//! returns their series in memory, printing nothing; [`io`] writes files (CSV, VTK, plots,
//! renders) and [`cli`] is the command line. Units are SI throughout; `Real = f64`.

pub mod body;
pub mod cli;
pub mod constraints;
pub mod csr;
pub mod distributed;
pub mod fluid;
pub mod geometry;
pub mod impulse;
pub mod interrupt;
pub mod io;
pub mod math;
pub mod model;
pub mod named;
pub mod params;
pub mod pipeline;
pub mod probe;
pub mod registry;
pub mod runner;
pub mod solver;
pub mod study;

pub use math::Real;
pub use model::{build_world, load_file, parse_str, Model, ModelError};
pub use pipeline::World;
