//! Impulse-based contact resolvers, the alternatives to complementarity rows for rigid-body
//! contacts ([`ContactResolver`]): the energy-tracking impulse method (ETI,
//! [`eti`]), and the sequential (SQM, [`sqm`]) and simultaneous (SMM, [`smm`]) impulse
//! baselines, after Tang, Paluszny & Zimmerman 2014 (002) and Asai et al. 2021 (000 §5).
//!
//! They act on the bodies' velocities after the external forces (v*, m/s and rad/s) and before
//! the constraint solve, which then handles joints and fluid rows with the contacts already
//! resolved; positions are not touched.
//!
//! **One contact** between body M (the contact's `body1`) and body N (`body2`), unit normal n
//! from M to N, lever arms `r_M`, `r_N` from the centres of mass to the contact point (m). The
//! relative velocity is `u = (v_N + ω_N × r_N) − (v_M + ω_M × r_M)` (002 eqs. 1–2), so `u_n =
//! n·u > 0` separates. An impulse `p` (N·s) acts `+p` on N and `−p` on M (002 eqs. 4–7) and
//! changes `u` by `K p`, with the collision matrix (002 eq. 9, Mirtich)
//! `K = Σ_{j∈{M,N}} (m_j⁻¹ 1 − r̃_j I_j⁻¹ r̃_j)` (1/kg), `I⁻¹` world-frame and zero for bodies that are
//! not dynamic; in 2D the masses and inertias are those of the planar degrees of freedom.
//!
//! **Friction inside an impulse** (002 §4, eqs. 50–55): for a wanted change `Δ` of `u_n`, the
//! trial impulse `p = K⁻¹((u_n + Δ) n − u)` also stops the sliding; it is kept if
//! `|p_t| ≤ μ |p_n|` (sticking), else the sliding impulse is `p = p̃ (n + μ q)` with
//! `p̃ = Δ / (nᵀ K (n + μ q))`, which gives the same normal change `Δ`, and `q = −u_t/|u_t|`
//! the unit vector against the slip at the point (Coulomb's law; the trial's direction if
//! there is no slip). 002 eqs. 13 and 54–55 take `q` along the trial's tangential part, which
//! K's rotational coupling turns away from the slip at a corner of a face contact: a cube on a
//! 25° incline with μ = 0.3 then slid 26 % too fast in 3D and drifted sideways (the book's
//! incline page; `tests/impulse_friction.rs`). (002 also prints `t_i` of eq. 13 unnormalised
//! and eq. 75 with `n − μ q`; here `q` is a unit vector and the sign is eq. 55's for every
//! method.)
//!
//! **Work** of the normal part of an increment (002 eq. 18): `ΔW_n = ½ (2 u_n + Δ) p_n`,
//! `p_n = n·p` (J): negative while the contact compresses. ETI stores `E = −Σ ΔW_n ≥ 0` (002
//! writes `W` with the opposite sign; summary 002 §3).

pub mod choice;
pub mod eti;
pub mod resolver;
pub mod smm;
pub mod sqm;

pub use choice::ResolverChoice;
pub use resolver::{Complementarity, ContactResolver};

use crate::body::{linear_mask, Dofs, RigidBody};
use crate::geometry::{Contact, Impulse};
use crate::math::{skew, Mat3, Real, Vec3};

/// What any impulse resolver did in one step (diagnostics; energies in J). A resolver's own
/// figures (ETI's stored and released energy, its stagnation) are its own info type's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ImpulseInfo {
    /// Impulses applied (ETI: increments; SQM: single-contact impulses; SMM: 1 per solve).
    pub iterations: usize,
    /// Whether the method stopped at its iteration cap (ETI: after forcing e = 0).
    pub capped: bool,
    /// Kinetic energy of the bodies after minus before the resolution.
    pub energy_change: Real,
}

/// Impulses after which any resolution stops whatever its state: the run stops there
/// ([`crate::interrupt::Abort::Cap`], exit 3; [`ContactResolver::stop`]'s default).
pub const MAX_IMPULSES: usize = 10_000_000;

/// Whether a loop of impulses that has applied `count` should stop for an overdue
/// interruption (asked every 1024 impulses: the clock is read that often).
pub(crate) fn interrupt_due(count: usize) -> bool {
    count % 1024 == 1023 && crate::interrupt::overdue()
}

/// The run's stop after a step from `t` (s) whose resolution reached [`MAX_IMPULSES`].
pub fn cap_reached(info: &ImpulseInfo, t: Real) -> Option<crate::interrupt::Abort> {
    let impulses = info.iterations;
    (impulses >= MAX_IMPULSES).then(|| crate::interrupt::Abort::Cap {
        what: format!(
            "the contact resolver applied {impulses} impulses in the step from t = {t:.6} s \
             without resolving the contacts (bodies of very different size or mass in \
             contact, or a divider too large)"
        ),
        field: "contact.resolver",
    })
}

/// A body as the resolvers see it: inverse mass per axis (the planar mask applied), world
/// inverse inertia (1/(kg m²)) and velocity.
#[derive(Debug, Clone, Copy)]
pub struct ImpulseBody {
    inv_mass: Vec3,
    inv_inertia: Mat3,
    com: Vec3,
    /// Linear velocity (m/s).
    pub v: Vec3,
    /// Angular velocity (rad/s).
    pub w: Vec3,
    mass: Real,
    inertia: Mat3,
}

impl ImpulseBody {
    /// The resolver's view of `b` in a world with `dofs`.
    pub fn of(b: &RigidBody, dofs: Dofs) -> Self {
        let dynamic = b.is_dynamic();
        ImpulseBody {
            inv_mass: if dynamic {
                linear_mask(dofs) * b.inv_mass
            } else {
                Vec3::zeros()
            },
            inv_inertia: b.inv_inertia_world(dofs),
            com: b.com(),
            v: b.lin_vel,
            w: b.ang_vel,
            mass: if dynamic { b.mass } else { 0.0 },
            inertia: if dynamic {
                b.inertia_world()
            } else {
                Mat3::zeros()
            },
        }
    }

    /// Kinetic energy (J) of a dynamic body (0 otherwise).
    pub fn kinetic_energy(&self) -> Real {
        0.5 * self.mass * self.v.norm_squared() + 0.5 * self.w.dot(&(self.inertia * self.w))
    }

    fn point_velocity(&self, r: &Vec3) -> Vec3 {
        self.v + self.w.cross(r)
    }

    /// Applies the impulse `p` (N·s) at lever arm `r` (m).
    fn push(&mut self, r: &Vec3, p: &Vec3) {
        self.v += self.inv_mass.component_mul(p);
        self.w += self.inv_inertia * r.cross(p);
    }
}

/// A contact prepared for impulses (constant during the resolution, 002 §0).
#[derive(Debug, Clone)]
pub struct Point {
    /// Body M (the contact's `body1`) and body N (`body2`).
    pub m: usize,
    /// See `m`.
    pub n_body: usize,
    rm: Vec3,
    rn: Vec3,
    /// Unit normal from M to N.
    pub normal: Vec3,
    k: Mat3,
    k_inv: Option<Mat3>,
    /// Effective normal mass `1/(nᵀ K n)` (kg).
    pub normal_mass: Real,
    /// Restitution e and friction μ of the contact.
    pub restitution: Real,
    /// See `restitution`.
    pub friction: Real,
    /// Total impulse applied (N·s, on N), for output.
    pub applied: Vec3,
}

impl Point {
    /// Prepares contact `c` for the bodies `bodies`; `None` if neither body can move.
    pub fn new(c: &Contact, bodies: &[ImpulseBody], planar: bool) -> Option<Point> {
        let (bm, bn) = (&bodies[c.body1], &bodies[c.body2]);
        let (rm, rn) = (c.point - bm.com, c.point - bn.com);
        let part = |b: &ImpulseBody, r: &Vec3| {
            let s = skew(r);
            Mat3::from_diagonal(&b.inv_mass) - s * b.inv_inertia * s
        };
        let k = part(bm, &rm) + part(bn, &rn);
        let knn = c.normal.dot(&(k * c.normal));
        if knn <= 0.0 || !knn.is_finite() {
            return None;
        }
        // In 2D K has no out-of-plane part: invert it on the plane (the wanted changes lie in it).
        let mut kk = k;
        if planar {
            kk[(2, 2)] = 1.0;
        }
        Some(Point {
            m: c.body1,
            n_body: c.body2,
            rm,
            rn,
            normal: c.normal,
            k,
            k_inv: kk.try_inverse(),
            normal_mass: 1.0 / knn,
            restitution: c.restitution,
            friction: c.friction,
            applied: Vec3::zeros(),
        })
    }

    /// Relative velocity `u` (m/s).
    pub fn velocity(&self, b: &[ImpulseBody]) -> Vec3 {
        b[self.n_body].point_velocity(&self.rn) - b[self.m].point_velocity(&self.rm)
    }

    /// Normal relative velocity `u_n` (m/s).
    pub fn normal_velocity(&self, b: &[ImpulseBody]) -> Real {
        self.normal.dot(&self.velocity(b))
    }

    /// The impulse that changes `u_n` by `delta` (m/s) with Coulomb friction (module docs).
    fn impulse_for(&self, u: &Vec3, delta: Real) -> Vec3 {
        let n = self.normal;
        let normal_only = n * (delta * self.normal_mass);
        if self.friction <= 0.0 {
            return normal_only;
        }
        let Some(k_inv) = self.k_inv else {
            return normal_only;
        };
        let un = n.dot(u);
        let p = k_inv * (n * (un + delta) - u);
        let pn = n.dot(&p);
        let pt = p - n * pn;
        if pt.norm() <= self.friction * pn.abs() {
            return p;
        }
        // Sliding: against the slip at the point (module docs).
        let slip = u - n * un;
        let q = if slip.norm() > 0.0 {
            -slip / slip.norm()
        } else {
            pt / pt.norm()
        };
        let dir = n + q * self.friction;
        let denom = n.dot(&(self.k * dir));
        if denom > 0.0 {
            dir * (delta / denom)
        } else {
            normal_only
        }
    }

    /// Changes `u_n` by `delta` (m/s): applies the impulse to both bodies and returns the work of
    /// its normal part `ΔW_n` (J, 002 eq. 18).
    pub fn apply(&mut self, b: &mut [ImpulseBody], delta: Real) -> Real {
        let u = self.velocity(b);
        let p = self.impulse_for(&u, delta);
        b[self.n_body].push(&self.rn, &p);
        b[self.m].push(&self.rm, &(-p));
        self.applied += p;
        0.5 * (2.0 * self.normal.dot(&u) + delta) * self.normal.dot(&p)
    }

    /// The impulse applied so far, as the output's normal and tangential parts.
    pub fn output(&self) -> Impulse {
        let pn = self.normal.dot(&self.applied);
        let t = self.applied - self.normal * pn;
        Impulse {
            normal: pn,
            tangent: [t.x, t.y, t.z],
        }
    }
}

/// Total kinetic energy of the bodies (J).
pub fn kinetic_energy(bodies: &[ImpulseBody]) -> Real {
    bodies.iter().map(ImpulseBody::kinetic_energy).sum()
}

/// The contacts an impulse resolver takes, with their index in `contacts`: touching or
/// penetrating ones (`dist ≤ touch`, m), and speculative ones whose gap closes within the step
/// `h` (s) at the current approach speed.
pub fn prepare(
    contacts: &[Contact],
    bodies: &[ImpulseBody],
    planar: bool,
    h: Real,
    touch: Real,
    out: &mut Vec<(usize, Point)>,
) {
    out.clear();
    for (i, c) in contacts.iter().enumerate() {
        let Some(p) = Point::new(c, bodies, planar) else {
            continue;
        };
        if c.dist <= touch || c.dist + h * p.normal_velocity(bodies) < 0.0 {
            out.push((i, p));
        }
    }
}

/// Restitution for a contact approaching at `un` (m/s, < 0): the contact's own above
/// `threshold`, 0 below it (resting contacts, 000 §5).
pub fn restitution(p: &Point, un: Real, threshold: Real) -> Real {
    if -un > threshold {
        p.restitution
    } else {
        0.0
    }
}
