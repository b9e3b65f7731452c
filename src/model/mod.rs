//! Model files: the RON schema ([`schema`]), validated values ([`values`]), located errors
//! ([`error`]), loading with cross-checks ([`load`]) and building a [`crate::pipeline::World`]
//! ([`build`]).

pub mod build;
pub mod error;
pub mod load;
pub mod schema;
pub mod values;

pub use build::build_world;
pub use error::ModelError;
pub use load::{load_file, parse_str};
pub use schema::Model;
