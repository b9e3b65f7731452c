//! Geometry: parry3d shapes attached to bodies, a sweep-and-prune broad phase and parry's
//! persistent contact manifolds as the narrow phase.
//!
//! Contacts are reported with the normal `n` pointing from body 1 to body 2 (parry's `local_n1`
//! in world coordinates) and the signed distance `dist` (m, < 0 when penetrating). Each contact
//! point carries the impulses of the previous step ([`Impulse`]), matched by parry through the
//! contact's feature ids, which gives the solvers their warm start.

mod broad;
mod shapes;

pub use broad::sweep_and_prune;
pub use shapes::shape_mesh;

use crate::body::RigidBody;
use crate::math::{from_pv, to_pose, Iso, Real, Vec3};
use parry3d_f64::bounding_volume::BoundingVolume;
use parry3d_f64::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry3d_f64::shape::SharedShape;
use rayon::prelude::*;

/// Impulses of a contact point from the last solve, kept for warm starting.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Impulse {
    /// Normal impulse (N·s).
    pub normal: Real,
    /// Tangential impulse as a world vector (N·s), re-projected on the new tangent basis.
    pub tangent: [Real; 3],
}

/// A collision shape attached to a body.
#[derive(Clone)]
pub struct Collider {
    /// The shape.
    pub shape: SharedShape,
    /// The body it belongs to.
    pub body: usize,
    /// Pose of the shape in the body's centre-of-mass frame.
    pub local: Iso,
    /// Coulomb friction coefficient of the material.
    pub friction: Real,
    /// Coefficient of restitution of the material.
    pub restitution: Real,
    /// Collision groups of the body, one bit per group (see [`Geometry::no_contact`]).
    pub groups: u32,
}

type Manifold = ContactManifold<(), Impulse>;

/// Contact points of one manifold closer than this fraction of the smaller shape's half
/// diagonal are merged.
pub const MERGE_FRACTION: Real = 1e-3;

/// Persistent data of a pair of colliders: parry's manifolds (points with their feature ids and
/// warm-start impulses) and its workspace for composite shapes. Saved whole in checkpoints, so a
/// resumed run matches the same contact points as an uninterrupted one.
#[derive(Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct PairCache {
    manifolds: Vec<Manifold>,
    workspace: Option<ContactManifoldsWorkspace>,
    failed: bool,
}

/// One contact point in world coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Contact {
    /// First body.
    pub body1: usize,
    /// Second body.
    pub body2: usize,
    /// Contact point (midpoint of the two witness points), world (m).
    pub point: Vec3,
    /// Unit normal from body 1 to body 2, world.
    pub normal: Vec3,
    /// Signed distance (m), < 0 when penetrating.
    pub dist: Real,
    /// Combined friction coefficient.
    pub friction: Real,
    /// Combined restitution.
    pub restitution: Real,
    /// Impulses of the previous step at this point.
    pub warm: Impulse,
    /// Where the point lives, to write the new impulses back: (pair, manifold, point).
    pub slot: (u32, u32, u32),
}

/// The collision world: colliders and persistent pair data.
#[derive(Default)]
pub struct Geometry {
    /// The colliders, one per body.
    pub colliders: Vec<Collider>,
    /// Pairs that must not collide (e.g. bodies joined by a joint), sorted, body indices.
    pub excluded: Vec<(usize, usize)>,
    /// Group filter: bit `h` of `no_contact[g]` set means bodies of group `g` never collide
    /// with bodies of group `h` (symmetric).
    pub no_contact: [u32; 32],
    pairs: Vec<((u32, u32), PairCache)>,
    candidates: Vec<(u32, u32)>,
    aabbs: Vec<parry3d_f64::bounding_volume::Aabb>,
    poses: Vec<Iso>,
    failed: Vec<(usize, usize)>,
}

impl Geometry {
    /// A geometry with the same colliders and exclusions and no contact history (for a look at
    /// the contacts of a state without touching the world's warm-start data).
    pub fn fresh_copy(&self) -> Geometry {
        Geometry {
            colliders: self.colliders.clone(),
            excluded: self.excluded.clone(),
            no_contact: self.no_contact,
            ..Default::default()
        }
    }

    /// The persistent contact data, pair by pair (body-collider indices), for a checkpoint.
    pub fn pair_caches(&self) -> Vec<((u32, u32), PairCache)> {
        self.pairs.clone()
    }

    /// Restores persistent contact data saved by [`Geometry::pair_caches`]; pairs must name
    /// existing colliders.
    pub fn restore_pair_caches(
        &mut self,
        pairs: Vec<((u32, u32), PairCache)>,
    ) -> Result<(), String> {
        let n = self.colliders.len() as u32;
        if let Some(((i, j), _)) = pairs.iter().find(|((i, j), _)| *i >= n || *j >= n) {
            return Err(format!(
                "the checkpoint has contacts between colliders {i} and {j}; the model has {n}"
            ));
        }
        self.pairs = pairs;
        Ok(())
    }

    /// Points filling body `i`'s shape on a cubic lattice of `spacing` (m), in the body's
    /// centre-of-mass frame (planar models: the z = 0 section). For volume fractions (the
    /// `Submerged` probe).
    pub fn volume_samples(&self, i: usize, spacing: Real, planar: bool) -> Vec<Vec3> {
        let mut pts = Vec::new();
        for c in self.colliders.iter().filter(|c| c.body == i) {
            let aabb = c.shape.compute_aabb(&crate::math::to_pose(&c.local));
            let (lo, hi) = (
                crate::math::from_pv(aabb.mins),
                crate::math::from_pv(aabb.maxs),
            );
            let n = |a: usize| ((hi[a] - lo[a]) / spacing).ceil().max(1.0) as usize;
            let nz = if planar { 1 } else { n(2) };
            for ix in 0..n(0) {
                for iy in 0..n(1) {
                    for iz in 0..nz {
                        let mut p = lo
                            + Vec3::new(ix as Real + 0.5, iy as Real + 0.5, iz as Real + 0.5)
                                * spacing;
                        if planar {
                            p.z = 0.0;
                        }
                        let q = c.local.inverse_transform_point(&nalgebra::Point3::from(p));
                        if c.shape.contains_local_point(crate::math::to_pv(&q.coords)) {
                            pts.push(p);
                        }
                    }
                }
            }
        }
        pts
    }

    /// Body pairs whose contacts parry could not compute in the last [`Geometry::update`]
    /// (an unsupported shape pair): they had no contacts. Empty when all is well; the runner
    /// stops with an error otherwise.
    pub fn failed_pairs(&self) -> &[(usize, usize)] {
        &self.failed
    }

    /// Whether parry can compute contacts between the shapes of colliders `i` and `j`:
    /// `Err` names the shapes when it cannot (checked when a model is built).
    pub fn check_pair(&self, i: usize, j: usize) -> Result<(), String> {
        let (c1, c2) = (&self.colliders[i], &self.colliders[j]);
        let mut manifolds: Vec<Manifold> = Vec::new();
        let mut ws = None;
        DefaultQueryDispatcher
            .contact_manifolds(
                &to_pose(&Iso::identity()),
                c1.shape.as_ref(),
                c2.shape.as_ref(),
                0.0,
                &mut manifolds,
                &mut ws,
            )
            .map(|_| ())
            .map_err(|e| {
                format!(
                    "contacts between a {:?} and a {:?} cannot be computed ({e})",
                    c1.shape.shape_type(),
                    c2.shape.shape_type()
                )
            })
    }

    /// Whether colliders `i` and `j` may collide: different bodies, not joined (unless the
    /// joint asks), not in groups the model keeps apart.
    pub fn may_collide(&self, i: usize, j: usize) -> bool {
        let (ci, cj) = (&self.colliders[i], &self.colliders[j]);
        let (bi, bj) = (ci.body, cj.body);
        if bi == bj
            || self
                .excluded
                .binary_search(&(bi.min(bj), bi.max(bj)))
                .is_ok()
        {
            return false;
        }
        let mut g = ci.groups;
        while g != 0 {
            let k = g.trailing_zeros() as usize;
            if self.no_contact[k] & cj.groups != 0 {
                return false;
            }
            g &= g - 1;
        }
        true
    }

    /// The world pose of each collider (in collider order) for the bodies' current poses.
    pub fn poses<'a>(&'a self, bodies: &'a [RigidBody]) -> impl Iterator<Item = Iso> + 'a {
        self.colliders.iter().map(|c| bodies[c.body].pose * c.local)
    }

    /// Merges the old pair caches into the new sorted candidate list (deterministic order): a
    /// pair that stays keeps its manifolds (warm starts), a new one starts empty.
    fn merge_pair_caches(&mut self) {
        let mut old = std::mem::take(&mut self.pairs).into_iter().peekable();
        for &key in &self.candidates {
            while old.peek().is_some_and(|(k, _)| *k < key) {
                old.next();
            }
            let cache = match old.peek() {
                Some((k, _)) if *k == key => old.next().map(|(_, c)| c).unwrap_or_default(),
                _ => PairCache::default(),
            };
            self.pairs.push((key, cache));
        }
    }

    /// The narrow phase over the candidate pairs, in parallel: each pair's contact manifolds
    /// at the current poses, and the body pairs whose contacts could not be computed.
    fn narrow_phase(&mut self, prediction: Real) {
        let (colliders, poses) = (&self.colliders, &self.poses);
        let dispatcher = DefaultQueryDispatcher;
        self.pairs.par_iter_mut().for_each(|((i, j), cache)| {
            let (c1, c2) = (&colliders[*i as usize], &colliders[*j as usize]);
            let p1 = to_pose(&poses[*i as usize]);
            let p2 = to_pose(&poses[*j as usize]);
            let pos12 = p1.inv_mul(&p2);
            cache.failed = dispatcher
                .contact_manifolds(
                    &pos12,
                    c1.shape.as_ref(),
                    c2.shape.as_ref(),
                    prediction,
                    &mut cache.manifolds,
                    &mut cache.workspace,
                )
                .is_err();
            if cache.failed {
                cache.manifolds.clear();
            }
        });
        self.failed.clear();
        self.failed.extend(
            self.pairs
                .iter()
                .filter(|(_, c)| c.failed)
                .map(|((i, j), _)| (colliders[*i as usize].body, colliders[*j as usize].body)),
        );
    }

    /// Updates the manifolds of all pairs at the bodies' current poses and returns the contacts.
    /// `prediction` (m) is the distance below which separated shapes already produce contacts.
    pub fn update(&mut self, bodies: &[RigidBody], prediction: Real, contacts: &mut Vec<Contact>) {
        let mut poses = std::mem::take(&mut self.poses);
        poses.clear();
        poses.extend(self.poses(bodies));
        self.poses = poses;
        let poses = &self.poses;
        self.aabbs.clear();
        for (c, p) in self.colliders.iter().zip(poses) {
            let aabb = c.shape.compute_aabb(&to_pose(p));
            self.aabbs.push(aabb.loosened(prediction * 0.5));
        }
        let mut candidates = std::mem::take(&mut self.candidates);
        let this = &*self;
        sweep_and_prune(&this.aabbs, &mut candidates, |i, j| {
            let (bi, bj) = (this.colliders[i].body, this.colliders[j].body);
            (bodies[bi].is_dynamic() || bodies[bj].is_dynamic()) && this.may_collide(i, j)
        });
        self.candidates = candidates;
        self.merge_pair_caches();
        self.narrow_phase(prediction);
        let (colliders, poses) = (&self.colliders, &self.poses);
        contacts.clear();
        for (pi, ((i, j), cache)) in self.pairs.iter().enumerate() {
            let (c1, c2) = (&colliders[*i as usize], &colliders[*j as usize]);
            let (w1, w2) = (&poses[*i as usize], &poses[*j as usize]);
            let friction = (c1.friction * c2.friction).sqrt();
            let restitution = c1.restitution.max(c2.restitution);
            for (mi, m) in cache.manifolds.iter().enumerate() {
                // Sub-shape poses of composite shapes (relative to their parent shape).
                let sub1 = m
                    .subshape_pos1()
                    .map(|p| Iso::from(*p))
                    .unwrap_or_else(Iso::identity);
                let sub2 = m
                    .subshape_pos2()
                    .map(|p| Iso::from(*p))
                    .unwrap_or_else(Iso::identity);
                let f1 = w1 * sub1;
                let f2 = w2 * sub2;
                let normal = (f1.rotation * from_pv(m.local_n1)).normalize();
                // Near-coincident points (e.g. the shared corners of two equal faces, reported once
                // by each face) would give nearly dependent rows that slow every solver down and
                // add nothing to the support polygon: keep the first within MERGE_FRACTION of the
                // smaller shape's size.
                let first = contacts.len();
                let size = |k: u32| self.aabbs[k as usize].half_extents().length();
                let tol = MERGE_FRACTION * size(*i).min(size(*j));
                let keep = reduce_manifold(m, &f1, &normal);
                for (k, pt) in m.points.iter().enumerate() {
                    if keep & (1 << k.min(63)) == 0 {
                        continue;
                    }
                    let a = f1 * nalgebra::Point3::from(from_pv(pt.local_p1));
                    let b = f2 * nalgebra::Point3::from(from_pv(pt.local_p2));
                    let point = (a.coords + b.coords) * 0.5;
                    if contacts[first..]
                        .iter()
                        .any(|c: &Contact| (c.point - point).norm() <= tol)
                    {
                        continue;
                    }
                    contacts.push(Contact {
                        body1: c1.body,
                        body2: c2.body,
                        point,
                        normal,
                        dist: pt.dist,
                        friction,
                        restitution,
                        warm: pt.data,
                        slot: (pi as u32, mi as u32, k as u32),
                    });
                }
            }
        }
    }

    /// Stores the impulses of the last solve at the contact points for the next warm start.
    pub fn store_impulses(&mut self, contacts: &[Contact], impulses: &[Impulse]) {
        for (c, imp) in contacts.iter().zip(impulses) {
            let (p, m, k) = c.slot;
            if let Some(pt) = self
                .pairs
                .get_mut(p as usize)
                .and_then(|(_, cache)| cache.manifolds.get_mut(m as usize))
                .and_then(|m| m.points.get_mut(k as usize))
            {
                pt.data = *imp;
            }
        }
    }
}

/// Manifolds with more points than this are not reduced.
const MAX_MANIFOLD_POINTS: usize = 32;

/// Chooses at most four points of a manifold that span the largest contact area (a bit mask of
/// the kept points): the deepest point, the point farthest from it, the point making the largest
/// triangle with them, and the point adding the most area on the other side. A flat patch is
/// supported by its convex hull; more points only add nearly dependent rows, slow the solvers
/// and change from step to step, which spoils warm starts.
fn reduce_manifold(m: &Manifold, pose1: &Iso, normal: &Vec3) -> u64 {
    let n = m.points.len();
    if n <= 4 {
        return u64::MAX;
    }
    if n > MAX_MANIFOLD_POINTS {
        // Beyond what is reduced here; keep them all (parry's convex manifolds stay far below).
        return u64::MAX;
    }
    let mut p = [Vec3::zeros(); MAX_MANIFOLD_POINTS];
    for (q, c) in p.iter_mut().zip(&m.points) {
        *q = (pose1 * nalgebra::Point3::from(from_pv(c.local_p1))).coords;
    }
    let i0 = (0..n)
        .min_by(|&a, &b| m.points[a].dist.total_cmp(&m.points[b].dist))
        .unwrap_or(0);
    let i1 = (0..n)
        .max_by(|&a, &b| {
            (p[a] - p[i0])
                .norm_squared()
                .total_cmp(&(p[b] - p[i0]).norm_squared())
        })
        .unwrap_or(0);
    let area = |a: usize| (p[i1] - p[i0]).cross(&(p[a] - p[i0])).dot(normal);
    let i2 = (0..n)
        .max_by(|&a, &b| area(a).abs().total_cmp(&area(b).abs()))
        .unwrap_or(0);
    let s2 = area(i2).signum();
    let i3 = (0..n)
        .min_by(|&a, &b| (s2 * area(a)).total_cmp(&(s2 * area(b))))
        .unwrap_or(0);
    let mut mask = (1u64 << i0) | (1 << i1) | (1 << i2);
    if s2 * area(i3) < 0.0 {
        mask |= 1 << i3;
    }
    mask
}
