//! The expansion stage of the model chain (schema → validate → expand → build): what a model
//! writes once and the world holds many times, made explicit before the world is built —
//! body arrays ([`arrays`]) and flexible beams ([`beams`]).

pub mod arrays;
pub mod beams;
