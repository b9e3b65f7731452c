//! Energy-tracking impulse method (ETI; Tang et al. 2014 = 002 §5–6, Algorithms 1–2; used
//! with particle-discretised bodies and ISPH in 000 §5).
//!
//! Each contact stores the energy `E ≥ 0` its normal impulses took out of the motion (module
//! docs of [`super`]). Repeated until no contact approaches:
//!
//! 1. **Compression** (002 eq. 63): the contact with the most negative `u_n` gets an increment
//!    `Δ = min(δ, −u_n)`, `δ = |u_n⁰|/λ` with `u_n⁰` the most negative normal velocity at the
//!    start of the resolution (002 eq. 62, λ the divider), with friction (002 eqs. 50–55);
//!    `E −= ΔW_n`. Until every `u_n ≥ 0`.
//! 2. **Stronge** (002 eq. 65): `E ← e² E` at every contact; e is the contact's restitution if
//!    it approached faster than the restitution threshold at some point, else 0 (resting and
//!    colliding contacts differ, 000 §5).
//! 3. **Release** (002 eq. 66): sweeps over the contacts holding energy, largest first, each
//!    getting `Δ = min(δ, Δ_max)`, `Δ_max = −u_n + √(2E/h + u_n²)` with `h = 1/(nᵀKn)` (002
//!    eq. 49), the increment that releases exactly the stored energy; `E −= ΔW_n`.
//!
//! After `max_repeats` repetitions every restitution is set to 0, which ends the loop in a few
//! more (002 §6: "e.g. 300"). Every impulse is one iteration of the report.

use super::{kinetic_energy, restitution, ImpulseBody, ImpulseInfo, Point, MAX_IMPULSES};
use crate::math::Real;

/// ETI parameters (RON: `contact: (resolver: Eti(divider: 50))`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EtiParams {
    /// Divider λ of the base increment (002 eq. 62; 30 in its tests, 000 likewise), 1 to
    /// [`MAX_DIVIDER`]. Default 30.
    pub divider: u32,
    /// Repetitions of the three stages before the restitution is forced to 0 (002 §6: 300),
    /// at least 1. Default 300.
    pub max_repeats: u32,
    /// Approach speed (m/s) below which a contact is resting (no restitution): the model's
    /// `contact.restitution_threshold` (not written here). Default 0.05 m/s.
    #[serde(skip)]
    pub restitution_threshold: Real,
    /// Compression ends when no contact approaches faster than this fraction of the largest
    /// approach at the start of the resolution (–). The increments converge linearly (each
    /// one disturbs the neighbouring contacts): over the first 0.3 s of the 534-grain repose
    /// pile (λ = 10) every decade cost about 15 000 increments per step, 180 000 at 1e-13
    /// against 62 000 at 1e-6. In [0, 1]. Default 1e-6.
    pub tolerance: Real,
}

impl Default for EtiParams {
    fn default() -> Self {
        EtiParams {
            divider: 30,
            max_repeats: 300,
            restitution_threshold: 0.05,
            tolerance: 1e-6,
        }
    }
}

/// What one ETI resolution did: the figures every resolver reports, and ETI's own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EtiInfo {
    /// Increments applied.
    pub iterations: usize,
    /// Whether the resolution stopped at a cap (after forcing e = 0, at [`MAX_IMPULSES`],
    /// or stagnated).
    pub capped: bool,
    /// The compression stopped early because the approach no longer fell
    /// ([`STAGNATION`]); the contacts were left approaching.
    pub stagnated: bool,
    /// Largest total energy stored in the contacts at once (J).
    pub stored: Real,
    /// Energy released back into motion (J).
    pub released: Real,
    /// Kinetic energy of the bodies after minus before the resolution (J).
    pub energy_change: Real,
}

impl EtiInfo {
    /// The figures every resolver reports.
    pub fn common(&self) -> ImpulseInfo {
        ImpulseInfo {
            iterations: self.iterations,
            capped: self.capped,
            energy_change: self.energy_change,
        }
    }
}

/// Increments over which the fastest approach must fall by 1 % (else the resolution has
/// stagnated and stops, and the run with it; [`crate::interrupt::Abort::Cap`]), or λ per
/// contact point if that is more (increments spread over the contacts). Converging
/// resolutions fall by decades in fewer: the 534-grain repose pile needed about 15 000
/// increments per decade.
pub const STAGNATION: usize = 200_000;

/// The largest divider: λ = 10⁵ already asks 10⁵ increments of every contact (002: no gain
/// above 50); larger values only run into the increment cap.
pub const MAX_DIVIDER: u32 = 100_000;

impl EtiParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        use crate::params::{unit_interval, ParamError};
        if !(1..=MAX_DIVIDER).contains(&self.divider) {
            return Err(ParamError::new(
                "divider",
                "from 1 to 100000",
                self.divider as Real,
            ));
        }
        if self.max_repeats == 0 {
            return Err(ParamError::new("max_repeats", "at least 1", 0.0));
        }
        unit_interval("tolerance", self.tolerance)
    }
}

/// Per-contact state of one resolution.
#[derive(Debug, Clone, Copy, Default)]
struct State {
    /// Stored energy E (J).
    energy: Real,
    /// Largest approach speed seen (m/s).
    approach: Real,
}

/// The buffers of a resolution, reused from step to step.
#[derive(Debug, Default)]
pub struct EtiScratch {
    st: Vec<State>,
    vel: Velocities,
    order: Vec<usize>,
}

/// The normal velocity of every contact, kept current: after an impulse only the contacts that
/// share a dynamic body with it are recomputed, and a tournament tree over them gives the most
/// negative one in O(1) after O(log n) per change (a scan of all contacts per increment made a
/// pile of 500 grains spend most of its time looking for the next contact).
#[derive(Debug, Default)]
struct Velocities {
    un: Vec<Real>,
    /// Contacts of each dynamic body, in compressed rows (`start[b]..start[b + 1]` into `list`);
    /// static and kinematic bodies keep their velocity, so they list nothing.
    start: Vec<usize>,
    list: Vec<usize>,
    fill: Vec<usize>,
    /// Tournament tree: `tree[leaves + k] = k`, every inner node the index of the smaller `un`
    /// of its two children; `tree[1]` is the most negative contact.
    tree: Vec<usize>,
    leaves: usize,
}

impl Velocities {
    fn reset(&mut self, points: &[Point], bodies: &[ImpulseBody]) {
        let start = &mut self.start;
        start.clear();
        start.resize(bodies.len() + 1, 0);
        let moves = |b: usize| bodies[b].mass > 0.0;
        for c in points {
            for b in [c.m, c.n_body].into_iter().filter(|&b| moves(b)) {
                start[b + 1] += 1;
            }
        }
        for b in 0..bodies.len() {
            start[b + 1] += start[b];
        }
        self.fill.clone_from(start);
        self.list.clear();
        self.list.resize(start[bodies.len()], 0);
        for (k, c) in points.iter().enumerate() {
            for b in [c.m, c.n_body].into_iter().filter(|&b| moves(b)) {
                self.list[self.fill[b]] = k;
                self.fill[b] += 1;
            }
        }
        self.un.clear();
        self.un
            .extend(points.iter().map(|c| c.normal_velocity(bodies)));
        self.build_tree();
    }

    /// Builds the tournament tree over the `un` of the contacts.
    fn build_tree(&mut self) {
        // Leaves past the last contact point at a sentinel that never approaches (a real
        // contact there would go stale in the matches off its own path and hide the minimum).
        let n = self.un.len();
        self.un.push(Real::INFINITY);
        self.leaves = n.next_power_of_two();
        self.tree.clear();
        self.tree.resize(2 * self.leaves, n);
        for k in 0..n {
            self.tree[self.leaves + k] = k;
        }
        for node in (1..self.leaves).rev() {
            self.tree[node] = self.smaller(node);
        }
    }

    /// The contact of the smaller `un` among the two children of `node` (the left on a tie).
    fn smaller(&self, node: usize) -> usize {
        let (a, b) = (self.tree[2 * node], self.tree[2 * node + 1]);
        if self.un[b] < self.un[a] {
            b
        } else {
            a
        }
    }

    /// Sets the normal velocity of contact `k` and replays its matches up the tree, stopping
    /// where a match is won by the same other contact as before (nothing above it changes).
    fn set(&mut self, k: usize, un: Real) {
        self.un[k] = un;
        let mut node = (self.leaves + k) / 2;
        while node >= 1 {
            let winner = self.smaller(node);
            if winner == self.tree[node] && winner != k {
                break;
            }
            self.tree[node] = winner;
            node /= 2;
        }
    }

    /// Applies `delta` at contact `k` and refreshes the contacts of its two bodies; returns the
    /// normal work.
    fn apply(
        &mut self,
        points: &mut [Point],
        bodies: &mut [ImpulseBody],
        k: usize,
        delta: Real,
    ) -> Real {
        let w = points[k].apply(bodies, delta);
        for b in [points[k].m, points[k].n_body] {
            for i in self.start[b]..self.start[b + 1] {
                let j = self.list[i];
                self.set(j, points[j].normal_velocity(bodies));
            }
        }
        w
    }

    /// The contact with the most negative normal velocity and that velocity.
    fn most_negative(&self) -> (usize, Real) {
        let k = self.tree[1.min(self.tree.len() - 1)];
        (k, self.un[k])
    }
}

/// Resolves `points` on `bodies` (velocities changed in place), with the buffers `scratch`.
pub fn resolve(
    p: &EtiParams,
    points: &mut [Point],
    bodies: &mut [ImpulseBody],
    scratch: &mut EtiScratch,
) -> EtiInfo {
    let mut info = EtiInfo::default();
    if points.is_empty() {
        return info;
    }
    let before = kinetic_energy(bodies);
    let lambda = p.divider.max(1) as Real;
    let EtiScratch { st, vel, order } = scratch;
    st.clear();
    st.resize(points.len(), State::default());
    vel.reset(points, bodies);
    let mut elastic = true;
    // Fastest approach at the start (m/s); `tolerance` of it counts as zero. One base
    // increment δ for the whole resolution comes from it (002 leaves open whether δ is per
    // contact; per contact, a contact first compressed by its neighbours' increments took δ/λ,
    // its neighbour δ/λ², … and a resting stack of ten cubes needed 85 000 increments per step
    // instead of 48 700).
    let scale = vel.un.iter().map(|u| (-u).max(0.0)).fold(0.0, Real::max);
    let (tol, step) = (p.tolerance * scale, scale / lambda);
    // Stagnation window: enough increments for every contact to take λ of them.
    let window = STAGNATION.max(points.len().saturating_mul(p.divider as usize));
    for repeat in 0.. {
        if repeat == p.max_repeats {
            elastic = false;
            info.capped = true;
        }
        if repeat > p.max_repeats.saturating_add(1000)
            || info.iterations >= MAX_IMPULSES
            || crate::interrupt::overdue()
        {
            info.capped = true;
            break;
        }
        // Stage I: compression, always at the most negative contact.
        let mut any = false;
        let mut last_check = (info.iterations, Real::NEG_INFINITY);
        loop {
            let (k, un) = vel.most_negative();
            if info.iterations - last_check.0 >= window {
                // Stagnation: the fastest approach fell by less than 1 % over the window.
                if un <= 0.99 * last_check.1 {
                    info.capped = true;
                    info.stagnated = true;
                    break;
                }
                last_check = (info.iterations, un);
            }
            if un >= -tol
                || info.iterations >= MAX_IMPULSES
                || super::interrupt_due(info.iterations)
            {
                info.capped |= un < -tol;
                break;
            }
            any = true;
            st[k].approach = st[k].approach.max(-un);
            let delta = if un + step < 0.0 { step } else { -un };
            st[k].energy -= vel.apply(points, bodies, k, delta);
            info.iterations += 1;
        }
        if info.stagnated || (!any && st.iter().all(|s| s.energy <= 0.0)) {
            break;
        }
        let stored: Real = st.iter().map(|s| s.energy.max(0.0)).sum();
        info.stored = info.stored.max(stored);
        // Stage II: Stronge's energetic restitution.
        for (s, c) in st.iter_mut().zip(points.iter()) {
            let e = if elastic {
                restitution(c, -s.approach, p.restitution_threshold)
            } else {
                0.0
            };
            s.energy *= e * e;
        }
        release(points, bodies, st, vel, order, step, &mut info);
    }
    info.energy_change = kinetic_energy(bodies) - before;
    info
}

/// Stage III of one repeat: releases the stored energy, sweeping the contacts with energy,
/// largest first, in increments of `step` (m/s).
fn release(
    points: &mut [Point],
    bodies: &mut [ImpulseBody],
    st: &mut [State],
    vel: &mut Velocities,
    order: &mut Vec<usize>,
    step: Real,
    info: &mut EtiInfo,
) {
    order.clear();
    order.extend((0..points.len()).filter(|&k| st[k].energy > 0.0));
    while !order.is_empty() {
        order.sort_by(|&a, &b| st[b].energy.total_cmp(&st[a].energy));
        for &k in order.iter() {
            let un = vel.un[k];
            let c = &points[k];
            let max = -un + (2.0 * st[k].energy / c.normal_mass + un * un).sqrt();
            let last = max <= step;
            let w = vel.apply(points, bodies, k, if last { max } else { step });
            info.released += w;
            // The last increment releases what was left (up to rounding).
            st[k].energy = if last { 0.0 } else { st[k].energy - w };
            info.iterations += 1;
        }
        order.retain(|&k| st[k].energy > 0.0);
        // A divider of millions makes a release of millions of increments: capped too.
        if info.iterations >= MAX_IMPULSES || crate::interrupt::overdue() {
            info.capped = true;
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree's most negative contact is the scan's (the first of equal minima) after any
    /// sequence of changes, for sizes on and off powers of two.
    #[test]
    fn tree_finds_the_first_minimum() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for n in [1usize, 2, 3, 5, 8, 13, 64, 100] {
            let mut v = Velocities {
                un: (0..n).map(|k| (k % 7) as Real).collect(),
                ..Default::default()
            };
            v.build_tree();
            for _ in 0..2000 {
                // Few distinct values, so ties are common.
                let (k, u) = (next() % n, (next() % 9) as Real - 4.0);
                v.set(k, u);
                let scan = (0..n).fold(0, |b, j| if v.un[j] < v.un[b] { j } else { b });
                assert_eq!(v.most_negative().0, scan, "n = {n}");
            }
        }
    }
}

/// The energy-tracking method as a contact resolver ([`super::ContactResolver`]): its
/// parameters and buffers.
#[derive(Default)]
pub struct Eti {
    /// Parameters.
    pub params: EtiParams,
    scratch: EtiScratch,
    /// What the last resolution did.
    last: EtiInfo,
}

impl Eti {
    /// ETI with these parameters.
    pub fn new(params: EtiParams) -> Eti {
        Eti {
            params,
            scratch: EtiScratch::default(),
            last: EtiInfo::default(),
        }
    }
}

impl super::ContactResolver for Eti {
    fn name(&self) -> &'static str {
        "energy-tracking impulses (ETI)"
    }

    fn resolve(&mut self, points: &mut [Point], bodies: &mut [ImpulseBody]) -> ImpulseInfo {
        self.last = resolve(&self.params, points, bodies, &mut self.scratch);
        self.last.common()
    }

    fn stop(&self, info: &ImpulseInfo, t: Real) -> Option<crate::interrupt::Abort> {
        if !self.last.stagnated {
            return super::cap_reached(info, t);
        }
        let impulses = info.iterations;
        Some(crate::interrupt::Abort::Cap {
            what: format!(
                "the contact resolver stagnated in the step from t = {t:.6} s: after {impulses} \
                 impulses the fastest approach no longer fell (less than 1 % over the last \
                 window of impulses; bodies of very different size or mass in contact)"
            ),
            field: "contact.resolver",
        })
    }

    fn tracked_energy(&self) -> Option<(Real, Real)> {
        Some((self.last.stored, self.last.released))
    }
}
