//! Expanding body arrays ([`crate::model::array_defs`]): every body with an `array` is replaced
//! by its copies before the world is built.

use crate::math::{Quat, Real, Vec3};
use crate::model::array_defs::offsets;
use crate::model::schema::{Dimension, Model};
use crate::model::values::{Finite, Rotation};

/// The `k`-th uniform number in [0, 1) of the stream of `seed`: SplitMix64's output function
/// ([`crate::math::mix64`]) of the seed and the number mixed by two odd constants.
fn uniform(seed: u64, k: u64) -> Real {
    let z = seed
        .wrapping_mul(crate::math::SPLITMIX_GAMMA)
        .wrapping_add(k.wrapping_mul(0xBF58_476D_1CE4_E5B9));
    crate::math::unit_uniform(crate::math::mix64(z))
}

/// The random rotation of copy `c` (Shoemake 1992, uniform over rotations; 2D about z).
fn random_rotation(seed: u64, c: u64, planar: bool) -> Quat {
    let u = |j: u64| uniform(seed, 3 * c + j);
    let tau = 2.0 * std::f64::consts::PI;
    if planar {
        return Quat::from_axis_angle(&Vec3::z_axis(), tau * u(0));
    }
    let (a, b, g) = (u(0), tau * u(1), tau * u(2));
    let (p, q) = ((1.0 - a).sqrt(), a.sqrt());
    Quat::from_quaternion(nalgebra::Quaternion::new(
        q * g.cos(),
        p * b.sin(),
        p * b.cos(),
        q * g.sin(),
    ))
}

/// For each body of `m` with its arrays expanded, the index of the body in `m` it comes
/// from (a copy's template).
pub fn origins(m: &Model) -> Vec<usize> {
    let planar = m.scene.dimension == Dimension::Two;
    m.bodies
        .iter()
        .enumerate()
        .flat_map(|(i, b)| {
            let n = if b.array.is_some() {
                b.copy_names(planar).len()
            } else {
                1
            };
            std::iter::repeat_n(i, n)
        })
        .collect()
}

/// `m` with its arrays expanded, borrowed when it has none.
pub fn expanded(m: &Model) -> std::borrow::Cow<'_, Model> {
    match m.bodies.iter().any(|b| b.array.is_some()) {
        true => std::borrow::Cow::Owned(expand(m.clone())),
        false => std::borrow::Cow::Borrowed(m),
    }
}

/// Replaces every body with an array by its copies (module docs); other bodies are unchanged.
pub fn expand(mut m: Model) -> Model {
    if m.bodies.iter().all(|b| b.array.is_none()) {
        return m;
    }
    let planar = m.scene.dimension == Dimension::Two;
    let mut bodies = Vec::with_capacity(m.bodies.len());
    for b in std::mem::take(&mut m.bodies) {
        let Some(a) = b.array.clone() else {
            bodies.push(b);
            continue;
        };
        let base = b.rotation.quat().unwrap_or_else(Quat::identity);
        for (c, d) in offsets(&a, planar).enumerate() {
            let mut copy = b.clone();
            copy.array = None;
            copy.name = format!("{}.{c}", b.name);
            copy.position.0 += d.x;
            copy.position.1 += d.y;
            copy.position.2 += d.z;
            if a.random_rotation {
                let q = random_rotation(a.seed, c as u64, planar) * base;
                let v = q.coords;
                copy.rotation = Rotation::Quat(Finite(v.w), Finite(v.x), Finite(v.y), Finite(v.z));
            }
            bodies.push(copy);
        }
    }
    m.bodies = bodies;
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::array_defs::ArrayDef;
    use crate::model::values::{Positive, PositiveV3, V3};

    fn array(count: (u32, u32, u32), radius: Option<Real>) -> ArrayDef {
        ArrayDef {
            count,
            spacing: PositiveV3(V3(1.0, 2.0, 3.0)),
            radius: radius.map(Positive),
            random_rotation: true,
            seed: 1,
        }
    }

    #[test]
    fn lattice_is_centred_and_cut_by_radius() {
        let o: Vec<_> = offsets(&array((3, 1, 2), None), false).collect();
        assert_eq!(o.len(), 6);
        assert_eq!(o[0], Vec3::new(-1.0, 0.0, -1.5));
        assert_eq!(o[5], Vec3::new(1.0, 0.0, 1.5));
        // A 5 × 5 layer of spacing (1, 2) within 2.5 m of the axis: x ∈ {−2..2}, y ∈ {−2, 0, 2}
        // with x² + y² ≤ 6.25: 5 + 3 + 3 = 11.
        assert_eq!(offsets(&array((5, 5, 1), Some(2.5)), false).count(), 11);
    }

    #[test]
    fn random_rotations_are_unit_reproducible_and_spread() {
        let qs: Vec<_> = (0..2000).map(|c| random_rotation(7, c, false)).collect();
        for q in &qs {
            assert!((q.coords.norm() - 1.0).abs() < 1e-12);
        }
        assert_eq!(qs[5], random_rotation(7, 5, false));
        // Uniform rotations turn the x axis onto a direction uniform on the sphere: the mean
        // of its z component is 0 and of its square 1/3 (±0.02 at 2000 draws, about 3σ).
        let z: Vec<Real> = qs.iter().map(|q| (q * Vec3::x()).z).collect();
        let mean = z.iter().sum::<Real>() / z.len() as Real;
        let sq = z.iter().map(|v| v * v).sum::<Real>() / z.len() as Real;
        assert!(mean.abs() < 0.04, "mean {mean}");
        assert!((sq - 1.0 / 3.0).abs() < 0.02, "mean square {sq}");
    }
}
