//! Model files: the RON schema ([`schema`]), validated values ([`values`]), located errors
//! ([`error`]), loading with cross-checks ([`load`]), body arrays ([`arrays`]), shapes
//! ([`shape_defs`], [`shapes`]), building a
//! [`crate::pipeline::World`] ([`build`]) and resolving probes ([`probes`]). This layer only
//! maps RON onto the core's types (parameters with their defaults and `validate()`, shapes,
//! probes); the core never imports it.

pub mod arrays;
pub mod build;
pub mod error;
mod fluid_limits;
pub mod load;
pub mod methods;
pub mod motion;
pub mod periodic;
pub mod probes;
pub mod schema;
pub mod shape_defs;
pub mod shapes;
pub mod values;
pub mod warnings;

pub use build::build_world;
pub use error::ModelError;
pub use load::{load_file, parse_str};
pub use probes::resolve_probes;
pub use schema::Model;
