//! Model files, as a one-way chain: the RON schema ([`schema`], with its value types
//! [`values`], shapes [`shape_defs`], the fluid [`fluid_defs`], motion, arrays, periodic axes
//! and probes; parameters of methods are the core's own types) →
//! validation ([`validate`]: `validate(&Model)`, errors by field path) → building a
//! [`crate::pipeline::World`] ([`build`], which validates first; [`shapes`] makes parry shapes
//! for both) → warnings about a built world ([`warnings`]). Loading a file ([`load`]) parses,
//! validates and locates errors in the text with the span map ([`spans`], [`error`]). No file
//! imports a later stage (checked by `tests/architecture.rs`). This layer only maps RON onto
//! the core's types; the core never imports it.

pub mod array_defs;
pub mod beam_defs;
pub mod build;
pub mod error;
pub mod expand;
pub mod fluid_defs;
pub mod hints;
pub mod load;
pub mod motion;
pub mod periodic;
pub mod probe_defs;
pub mod resolution;
pub mod schema;
pub mod shape_defs;
pub mod shapes;
pub mod spans;
pub mod validate;
pub mod values;
pub mod warnings;

pub use build::probes::resolve_probes;
pub use build::time_step::default_time_step;
pub use build::{build_world, build_world_with};
pub use error::{FieldError, ModelError};
pub use load::{from_ron_str, load_file, load_file_with, parse_str, parse_str_with};
pub use schema::Model;
