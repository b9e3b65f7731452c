//! Materials: values, densities within limits, names defined once.

use super::{at, item, value, FieldError, MAX_DENSITY};
use crate::model::schema::Model;
use std::collections::HashSet;

/// Checks the materials; returns the names bodies may use (`"default"` always).
pub(super) fn validate(m: &Model) -> Result<HashSet<&str>, Box<FieldError>> {
    let mut names: HashSet<&str> = HashSet::from(["default"]);
    let mut seen = HashSet::new();
    for (i, mat) in m.materials.iter().enumerate() {
        let here = item("materials", i);
        value(|| at(&here, "density"), mat.density.check())?;
        value(|| at(&here, "friction"), mat.friction.check())?;
        value(|| at(&here, "restitution"), mat.restitution.check())?;
        if mat.density.0 > MAX_DENSITY {
            return Err(FieldError::new(
                at(&here, "density"),
                format!(
                    "expected a density up to {MAX_DENSITY:e} kg/m³, got {:e}",
                    mat.density.0
                ),
            ));
        }
        if !seen.insert(mat.name.as_str()) {
            return Err(FieldError::new(
                at(&here, "name"),
                format!("material `{}` is defined twice", mat.name),
            ));
        }
        names.insert(&mat.name);
    }
    Ok(names)
}
