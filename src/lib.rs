//! # vcsim — constraint-based multibody and particle-fluid simulation
//!
//! Everything that moves is a set of velocity degrees of freedom; everything that restricts
//! motion is a velocity-level constraint row (contacts with friction, joints, and later SPH
//! incompressibility and fluid–rigid rows), all solved together by one projected Gauss–Seidel or
//! Nesterov (APGD) solver.
//!
//! Modules follow the step as data flow: [`model`] (RON → [`pipeline::World`]), [`body`],
//! [`geometry`], [`constraints`], [`solver`], [`pipeline`], [`io`] (CSV, VTK, plots, runs) and
//! [`cli`]. Units are SI throughout; `Real = f64`.

pub mod body;
pub mod cli;
pub mod constraints;
pub mod fluid;
pub mod geometry;
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
