//! Scalar and vector types used throughout the crate: `Real = f64` and nalgebra aliases.
//!
//! Units follow SI everywhere: metres, kilograms, seconds, radians, newtons.

pub use nalgebra::{Matrix3, Point3, UnitQuaternion, Vector3};

/// The floating-point type of every quantity (f64 throughout).
pub type Real = f64;
/// A 3-vector (m, m/s, N, ... depending on use).
pub type Vec3 = Vector3<Real>;
/// A 3×3 matrix (inertia tensors in kg·m², rotation matrices).
pub type Mat3 = Matrix3<Real>;
/// A unit quaternion (orientation).
pub type Quat = UnitQuaternion<Real>;
/// A rigid transformation (rotation then translation).
pub type Iso = nalgebra::Isometry3<Real>;

/// Converts an nalgebra isometry to parry's (glam) pose.
pub fn to_pose(iso: &Iso) -> parry3d_f64::math::Pose {
    (*iso).into()
}

/// Converts a parry (glam) vector to an nalgebra vector.
pub fn from_pv(v: parry3d_f64::math::Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// Converts an nalgebra vector to a parry (glam) vector.
pub fn to_pv(v: &Vec3) -> parry3d_f64::math::Vector {
    parry3d_f64::math::Vector::new(v.x, v.y, v.z)
}

/// The skew-symmetric cross-product matrix `[a]×` with `[a]× b = a × b`.
pub fn skew(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Two unit vectors orthogonal to `n` and to each other, forming a right-handed basis `(n, t1, t2)`.
pub fn orthonormal_basis(n: &Vec3) -> (Vec3, Vec3) {
    // Duff et al. 2017, "Building an orthonormal basis, revisited".
    let sign = if n.z >= 0.0 { 1.0 } else { -1.0 };
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    let t1 = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
    let t2 = Vec3::new(b, sign + n.y * n.y * a, -n.y);
    (t1, t2)
}

/// The increment γ of SplitMix64's state (2⁶⁴ divided by the golden ratio).
pub const SPLITMIX_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function (Steele, Lea & Flood 2014, "Fast splittable pseudorandom
/// number generators", OOPSLA): a 64-bit hash of `z` in which every input bit reaches every
/// output bit. The `k`-th number of the stream seeded with `s` is `mix64(s + (k + 1) γ)`; a
/// value that already mixes its inputs (an index, a seed and a copy number) can be hashed
/// directly. Deterministic and thread-count independent: the crate's only random numbers.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The top 53 bits of `bits` as a uniform number in [0, 1).
pub fn unit_uniform(bits: u64) -> Real {
    (bits >> 11) as Real / (1u64 << 53) as Real
}

/// The height (m) a set of points spans along `gravity` (m/s²) plus `pad` (m): what water and
/// bodies among them can fall through. 0 without gravity or points.
pub fn fall_height(points: impl Iterator<Item = Vec3>, gravity: &Vec3, pad: Real) -> Real {
    let g = gravity.norm();
    if g == 0.0 {
        return 0.0;
    }
    let down = gravity / g;
    let (lo, hi) = points.fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x.dot(&down)), hi.max(x.dot(&down)))
    });
    if lo > hi {
        return 0.0;
    }
    (hi - lo).max(0.0) + pad
}

/// `x.floor() as i64` (saturating; 0 for NaN) without a call: on the baseline x86-64 target
/// `floor` is a library call (0.7 % of the flume's step, in the neighbour search's cell
/// indices); a truncation corrected by one below zero is an instruction or two. Exact: a double
/// above 2⁵³ in magnitude is an integer, and below it the truncation converts back exactly.
#[inline(always)]
pub fn floor_i64(x: Real) -> i64 {
    let t = x as i64;
    if (t as Real) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cell index without `floor`'s call is `floor` as an integer, at every kind of value.
    #[test]
    fn floor_without_a_call_is_floor() {
        let mut vals = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999999999,
            -2.000000001,
            1e-300,
            -1e-300,
            4503599627370495.5,
            -4503599627370495.5,
            9007199254740993.0,
            9.3e18,
            -9.3e18,
            9.223372036854775e18,
            1e300,
            -1e300,
            Real::INFINITY,
            Real::NEG_INFINITY,
            Real::NAN,
        ];
        vals.extend((-2000..2000).map(|k| k as Real * 0.37 + 1e-3));
        for x in vals {
            assert_eq!(super::floor_i64(x), x.floor() as i64, "{x}");
        }
    }
}
