//! Validated value types of the RON schema.
//!
//! Each type checks its value while the file is parsed, so a nonsense number is reported with the
//! file, line and column of the value itself (ron attaches the span of the value to the error).

use crate::math::{Quat, Real, Vec3};
use serde::{de, Deserialize, Deserializer, Serialize};
use std::fmt;

macro_rules! checked_real {
    ($(#[$doc:meta])* $name:ident, $check:expr, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub Real);

        impl $name {
            /// The wrapped value.
            pub fn get(self) -> Real {
                self.0
            }

            /// The type's rule (the one check, used when parsing and when validating a model
            /// built in code): `Err` says what was expected.
            pub fn check(self) -> Result<(), String> {
                let ok: fn(Real) -> bool = $check;
                if !self.0.is_finite() {
                    Err(format!("expected a finite number, got {}", self.0))
                } else if ok(self.0) {
                    Ok(())
                } else {
                    Err(format!(concat!("expected ", $what, ", got {}"), self.0))
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = $name(Real::deserialize(d)?);
                v.check().map_err(de::Error::custom)?;
                Ok(v)
            }
        }
    };
}

checked_real!(
    /// A finite number > 0.
    Positive, |v| v > 0.0, "a positive number (> 0)"
);
checked_real!(
    /// A finite number ≥ 0.
    NonNegative, |v| v >= 0.0, "a non-negative number (>= 0)"
);
checked_real!(
    /// A finite number in [0, 1].
    UnitInterval, |v| (0.0..=1.0).contains(&v), "a number in [0, 1]"
);
checked_real!(
    /// Any finite number.
    Finite, |_| true, "a finite number"
);

/// A 3-vector written `(x, y, z)`, or `(x, y)` for `z = 0` (convenient in planar models).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct V3(pub Real, pub Real, pub Real);

impl V3 {
    /// As an nalgebra vector.
    pub fn vec(self) -> Vec3 {
        Vec3::new(self.0, self.1, self.2)
    }

    /// `Ok` if every component is finite (the rule of parsing, for models built in code).
    pub fn check(self) -> Result<(), String> {
        if [self.0, self.1, self.2].iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(format!(
                "expected a vector of finite numbers, got ({}, {}, {})",
                self.0, self.1, self.2
            ))
        }
    }
}

impl<'de> Deserialize<'de> for V3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis;
        impl<'de> de::Visitor<'de> for Vis {
            type Value = V3;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a vector (x, y, z) or (x, y) of finite numbers")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut s: A) -> Result<V3, A::Error> {
                let mut c = [0.0; 3];
                let mut n = 0;
                while let Some(v) = s.next_element::<Finite>()? {
                    if n == 3 {
                        return Err(de::Error::invalid_length(4, &self));
                    }
                    c[n] = v.0;
                    n += 1;
                }
                if n < 2 {
                    return Err(de::Error::invalid_length(n, &self));
                }
                Ok(V3(c[0], c[1], c[2]))
            }
        }
        d.deserialize_tuple(3, Vis)
    }
}

/// A vector whose components are all > 0 (half extents, in m).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PositiveV3(pub V3);

impl PositiveV3 {
    /// The type's rule (parsing and validation): finite components, x and y > 0, z ≥ 0 (a
    /// 2-component vector leaves z = 0; planar models replace it by the scene thickness).
    pub fn check(self) -> Result<(), String> {
        let v = self.0;
        v.check()?;
        if v.0 > 0.0 && v.1 > 0.0 && v.2 >= 0.0 {
            Ok(())
        } else {
            Err(format!(
                "expected positive components, got ({}, {}, {})",
                v.0, v.1, v.2
            ))
        }
    }
}

impl<'de> Deserialize<'de> for PositiveV3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = PositiveV3(V3::deserialize(d)?);
        v.check().map_err(de::Error::custom)?;
        Ok(v)
    }
}

/// An orientation. Angles in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub enum Rotation {
    /// No rotation.
    #[default]
    Identity,
    /// A rotation about the z axis by this angle (degrees): the planar-model rotation.
    Deg(Finite),
    /// A rotation about an axis (need not be normalised) by an angle (degrees).
    AxisDeg(V3, Finite),
    /// A unit quaternion `(w, x, y, z)` (normalised on load).
    Quat(Finite, Finite, Finite, Finite),
}

impl Rotation {
    /// `Ok` if every number is finite (the rule of parsing, for models built in code).
    pub fn check(&self) -> Result<(), String> {
        let ok = match *self {
            Rotation::Identity => true,
            Rotation::Deg(a) => a.check().is_ok(),
            Rotation::AxisDeg(axis, a) => axis.check().is_ok() && a.check().is_ok(),
            Rotation::Quat(w, x, y, z) => [w, x, y, z].iter().all(|c| c.check().is_ok()),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expected finite numbers, got {self:?}"))
        }
    }

    /// The rotation as a unit quaternion; `None` for a zero axis or zero quaternion.
    pub fn quat(&self) -> Option<Quat> {
        match *self {
            Rotation::Identity => Some(Quat::identity()),
            Rotation::Deg(a) => Some(Quat::from_axis_angle(&Vec3::z_axis(), a.0.to_radians())),
            Rotation::AxisDeg(axis, a) => {
                let axis = nalgebra::Unit::try_new(axis.vec(), 1e-12)?;
                Some(Quat::from_axis_angle(&axis, a.0.to_radians()))
            }
            Rotation::Quat(w, x, y, z) => {
                let q = nalgebra::Quaternion::new(w.0, x.0, y.0, z.0);
                if q.norm() < 1e-12 {
                    None
                } else {
                    Some(Quat::from_quaternion(q))
                }
            }
        }
    }
}

impl Default for Finite {
    fn default() -> Self {
        Finite(0.0)
    }
}
