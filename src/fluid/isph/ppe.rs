//! The pressure Poisson equation of an ISPH sub-step: wall pressure jumps, assembly of the
//! symmetric positive definite system over the fluid particles that are not on the free
//! surface, its sparse Cholesky solve with faer, and the residual. Equations in the parent
//! module.

mod added;
mod cg;
mod coarse;
mod divergence;
mod parts;
mod position;

use cg::{Csr, Solver};
use parts::Parts;

pub use divergence::Divergence;

use super::pockets::{label_pockets, ANCHORED, DIRICHLET};
use super::{IsphParams, PpeSolver};
use crate::fluid::halo::{owned_of, Halo};
use crate::fluid::Fluid;
use crate::math::{Real, Vec3};
use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::Side;

/// The PPE's buffers, reused from sub-step to sub-step.
#[derive(Default)]
pub struct Ppe {
    /// `p_b − p_i` for each fluid–boundary pair, in the order of `Fluid::fb` (Pa).
    jump: Vec<Real>,
    /// Gravity (m/s²) whose tangential part the wall jumps rise with (zero for the
    /// renormalised gradient and along periodic axes; set by the ISPH sub-step).
    pub(crate) wall_gravity: Vec3,
    /// Pressure (Pa) of the free-surface particles (set by the ISPH sub-step; module docs,
    /// step 2).
    pub(crate) surface_pressure: Real,
    /// Outward wall normal for each fluid–boundary pair (as `jump`).
    normal: Vec<Vec3>,
    /// Scratch of [`Ppe::wall_jumps`]: the walls one fluid particle sees.
    walls: Vec<SeenWall>,
    /// Row starts of `jump` (a copy of `Fluid::fb.start`).
    start: crate::csr::RowStarts,
    /// Unknown index of each particle, or [`DIRICHLET`].
    index: Vec<u32>,
    /// Lower triangle of the matrix (row ≥ column).
    triplets: Vec<Triplet<usize, usize, Real>>,
    rhs: Vec<Real>,
    /// The whole symmetric matrix in compressed rows and its conjugate gradients, with the
    /// two-level preconditioner when it holds this sub-step's matrix (then the position
    /// correction and the added mass use it too).
    solver: Solver,
    /// The solution per unknown.
    sol: Vec<Real>,
    /// The residual per unknown.
    res: Vec<Real>,
    /// Pocket (connected group of unknowns without a free-surface neighbour) of each unknown,
    /// or [`ANCHORED`] ([`label_pockets`]).
    pocket: Vec<u32>,
    /// The search stack of [`label_pockets`] (particle indices).
    stack: Vec<u32>,
    /// Whether each unknown may take the expansion term (no free-surface and no wall
    /// neighbour), for the position correction's source ([`Ppe::correct_positions`]).
    interior: Vec<bool>,
    /// `⟨∇·v*⟩_i` per particle (1/s; [`Divergence`]).
    div: Vec<Real>,
    /// The position correction's right-hand side, solution and per-particle pressure (Pa).
    position: position::Scratch,
    /// The lowest solution value of each pocket (Pa).
    pocket_min: Vec<Real>,
    /// The right-hand side's sum and the number of rows of each pocket.
    pocket_sum: Vec<(Real, usize)>,
    /// Unknowns this part owns (the first ones; all of them in one process), the particle of
    /// each unknown, one number per particle for the exchange, and each local pocket's label
    /// over the parts ([`parts`]).
    owned: usize,
    particle: Vec<u32>,
    buf: Vec<Real>,
    labels: Vec<Real>,
    /// Each unknown's pocket label while the parts join them.
    label: Vec<Real>,
}

/// Laplacian weight `w_ij ≥ 0` of a pair at separation `d` (m): 000 eq. 15 with `η² = 0.01 h²`,
/// divided by the lattice Laplacian moment μ (1/m² per unit pressure difference).
fn laplacian_weight(f: &Fluid) -> impl Fn(&Vec3) -> Real {
    let (k, v0, mu) = (f.params.kernel, f.volume, f.laplacian);
    let eta2 = 0.01 * k.h * k.h;
    move |d: &Vec3| {
        let r = d.norm();
        if r > 0.0 {
            2.0 * v0 * (-r * k.dw(r)) / ((r * r + eta2) * mu)
        } else {
            0.0
        }
    }
}

/// Relative residual `|A p − b| / |b|` at which CG stops.
pub const CG_TOLERANCE: Real = 1e-9;

/// Relative residual above which a pressure solve has failed and the run stops (exit 3): its
/// pressures are not a solution. A converged solve ends below [`CG_TOLERANCE`] (the direct
/// solve at round-off); a block the equation cannot pin made CG break down at 3.4e7 and the
/// pressures reach 1e10 Pa (the refined sloshing tank before the pockets got the closed
/// domain's treatment).
pub const FAILED_RESIDUAL: Real = 1e-4;

/// Whether a solve that ended at this relative residual failed ([`FAILED_RESIDUAL`]; NaN
/// fails).
pub fn failed(residual: Real) -> bool {
    residual.is_nan() || residual > FAILED_RESIDUAL
}

/// The outward wall normal of boundary particle `b` itself (unit; out of the fluid, into the
/// wall): from its offset to its wall's surface `to_surface` (m), or along the pair `d = x_b −
/// x_i` (m) where that is unknown.
fn own_normal(to_surface: Vec3, d: Vec3) -> Vec3 {
    if to_surface.norm() > 0.0 {
        -to_surface / to_surface.norm()
    } else if d.norm() > 0.0 {
        d / d.norm()
    } else {
        Vec3::zeros()
    }
}

/// One wall or body as a fluid particle sees it within its support ([`seen_walls`]).
#[derive(Clone, Copy, Debug)]
struct SeenWall {
    /// The wall's body ([`Fluid::wall_body`]).
    body: u32,
    /// `Σ_b V ∇_i W_ib` over the wall's boundary neighbours b of the particle (1/m): it points
    /// from the particle into the wall.
    gradient: Vec3,
    /// The first of those neighbours' own normals ([`own_normal`]).
    first: Vec3,
    /// Whether every one of them has that normal (to 1e-9): a flat face.
    flat: bool,
    /// The normal every pair of the particle with this wall takes: the gradient's direction
    /// where the face is not flat, else `None` (each pair keeps its own).
    normal: Option<Vec3>,
}

/// The walls and bodies fluid particle `i` sees (`out`), each with the kernel gradient of its
/// boundary neighbours and whether they share one normal. A pair's normal in the Neumann
/// jumps ([`Ppe::wall_jumps`]) is the boundary particle's own where the wall is flat within
/// the support and the wall's kernel gradient at the fluid particle where it is not (module
/// docs, **Curved walls**: each boundary particle's own normal on a curved face made the water
/// at the heave-decay hull's rounded bilges churn).
fn seen_walls(f: &Fluid, i: usize, out: &mut Vec<SeenWall>) {
    let (k, v0, per) = (&f.params.kernel, f.volume, f.params.periodic);
    out.clear();
    for &b in f.fb.of(i) {
        let b = b as usize;
        let x = per.delta(&f.pos[i], &f.boundary[b]);
        let grad = crate::fluid::kernel::volume_gradient(k, v0, &x);
        let own = own_normal(f.to_surface[b], -x);
        match out.iter_mut().find(|w| w.body == f.wall_body[b]) {
            Some(w) => {
                w.gradient += grad;
                w.flat &= (own - w.first).norm() <= 1e-9;
            }
            None => out.push(SeenWall {
                body: f.wall_body[b],
                gradient: grad,
                first: own,
                flat: true,
                normal: None,
            }),
        }
    }
    for w in out.iter_mut() {
        if !w.flat && w.gradient.norm() > 0.0 {
            w.normal = Some(w.gradient.normalize());
        }
    }
}

impl Ppe {
    /// `p_b − p_i` (Pa) for the `e`-th boundary neighbour of particle `i` in the last solve.
    #[inline]
    pub fn wall_jump(&self, i: usize, e: usize) -> Real {
        self.jump[self.start[i] as usize + e]
    }

    /// Outward wall normal of the `e`-th boundary neighbour of particle `i`.
    #[inline]
    pub fn wall_normal(&self, i: usize, e: usize) -> Vec3 {
        self.normal[self.start[i] as usize + e]
    }

    /// Solves the PPE for the predicted velocities `f.vel` (v*, m/s) over a sub-step `h` (s),
    /// with the normalised kernel sums `n` and the wall velocities `bvel` (m/s); writes
    /// `f.pressure` (Pa) and `f.density_error` (`n_i − 1`). Returns the relative residual
    /// `|A p − b| / |b|` (0 without unknowns) and the CG iterations (0 for the direct solve).
    /// `halo`: the exchange of a fluid divided among processes (the module `parts`; the direct solve
    /// does not run divided); the ghosts' pressures are then their owners'.
    pub fn solve(
        &mut self,
        f: &mut Fluid,
        p: &IsphParams,
        n: &[Real],
        bvel: &[Vec3],
        h: Real,
        mut halo: Option<&mut (dyn Halo + '_)>,
    ) -> (Real, usize) {
        let count = f.len();
        self.wall_jumps(f, bvel, h);
        let (m, mut closed) =
            self.number_unknowns(n, p.surface, halo.as_deref().map(|h| h.owned()));
        if let Some(h) = halo.as_deref_mut() {
            let owned = h.owned().iter().filter(|&&o| o).count();
            let mut v = [self.owned as Real, owned as Real];
            h.sum(&mut v);
            closed = v[0] == v[1] && v[1] > 0.0;
        }
        let (residual, iterations) = self.with_parts(halo, |ppe, mut parts| {
            ppe.assemble(f, p, n, h, m, parts.as_deref_mut());
            // Warm start from the last pressures.
            let mut sol = std::mem::take(&mut ppe.sol);
            sol.clear();
            sol.resize(m, 0.0);
            if f.pressure.len() == count {
                for (i, &ix) in ppe.index.iter().enumerate() {
                    if ix != DIRICHLET {
                        sol[ix as usize] = f.pressure[i];
                    }
                }
            }
            let solved = ppe.solve_linear(p.solver, m, &mut sol, parts.as_deref_mut());
            ppe.write_pressures(f, &sol, closed, parts.as_deref_mut());
            if let Some(parts) = parts {
                parts.halo.refresh_scalar(&mut f.pressure);
            }
            ppe.sol = sol;
            solved
        });
        f.density_error.clear();
        f.density_error.extend(n.iter().map(|x| x - 1.0));
        (residual, iterations)
    }

    /// Runs `work` with this equation's view for a divided fluid (`halo`; `None` in one
    /// process): the exchange, the owned unknowns, the particle of each unknown and a buffer of
    /// one number per particle ([`parts`]), taken out of `self` for the call.
    fn with_parts<R>(
        &mut self,
        halo: Option<&mut (dyn Halo + '_)>,
        work: impl FnOnce(&mut Ppe, Option<&mut Parts<'_>>) -> R,
    ) -> R {
        let (particle, mut buf) = (
            std::mem::take(&mut self.particle),
            std::mem::take(&mut self.buf),
        );
        buf.resize(self.index.len(), 0.0);
        let mut parts = halo.map(|h| Parts {
            halo: h,
            owned: self.owned,
            particle: &particle,
            buf: &mut buf,
        });
        let out = work(self, parts.as_mut());
        (self.particle, self.buf) = (particle, buf);
        out
    }

    /// The wall pressure jumps (Neumann condition, and the rise along the wall with
    /// `wall_gravity`; module docs, **Walls**) and outward normals of every fluid–boundary pair.
    fn wall_jumps(&mut self, f: &Fluid, bvel: &[Vec3], h: Real) {
        let (per, rho0) = (f.params.periodic, f.params.rho0);
        let g_wall = self.wall_gravity;
        self.start.copy_from(&f.fb.start);
        self.jump.clear();
        self.normal.clear();
        let mut walls = std::mem::take(&mut self.walls);
        for i in 0..f.len() {
            seen_walls(f, i, &mut walls);
            for &b in f.fb.of(i) {
                let b = b as usize;
                let d = per.delta(&f.boundary[b], &f.pos[i]);
                let seen = walls.iter().find(|w| w.body == f.wall_body[b]);
                let nrm = seen
                    .and_then(|w| w.normal)
                    .unwrap_or_else(|| own_normal(f.to_surface[b], d));
                let an = (f.vel[i] - bvel[b]).dot(&nrm) / h;
                let gt = g_wall - nrm * nrm.dot(&g_wall);
                self.jump.push(rho0 * (an * nrm.dot(&d) + gt.dot(&d)));
                self.normal.push(nrm);
            }
        }
        self.walls = walls;
    }

    /// Numbers the unknowns: every particle off the free surface (`n_i ≥ surface`). Returns
    /// their count and whether the domain of the `count` particles is closed (no free
    /// surface). In a closed domain the
    /// matrix is singular (a constant pressure solves the homogeneous problem): the
    /// right-hand side's mean is removed (the discrete compatibility condition of the pure
    /// Neumann problem) and a relative 1e-12 added to the diagonal, which picks the
    /// zero-mean solution (004 §5); every particle keeps its row.
    /// A divided fluid (`owned`, the part's mask) numbers its owned unknowns first, then its
    /// ghosts' ([`parts`]); the caller decides whether the whole domain is closed.
    fn number_unknowns(
        &mut self,
        n: &[Real],
        surface: Real,
        owned: Option<&[bool]>,
    ) -> (usize, bool) {
        let count = n.len();
        self.index.clear();
        self.index.resize(count, DIRICHLET);
        self.particle.clear();
        let mut unknowns = 0u32;
        // Owned particles first (every one in one process), then the ghosts.
        for ghosts in [false, true] {
            if ghosts && owned.is_none() {
                break;
            }
            for (i, &ni) in n.iter().enumerate() {
                if ni >= surface && owned.is_some_and(|o| !o[i]) == ghosts {
                    self.index[i] = unknowns;
                    self.particle.push(i as u32);
                    unknowns += 1;
                }
            }
            if !ghosts {
                self.owned = unknowns as usize;
            }
        }
        (unknowns as usize, unknowns as usize == count && count > 0)
    }

    /// The matrix (lower triangle, as triplets) and right-hand side of the `m` unknowns. A
    /// divided equation (`parts`) assembles the rows it owns; an entry between an owned and a
    /// ghost unknown goes in as the ghost's row (the lower triangle, mirrored by the CSR).
    fn assemble(
        &mut self,
        f: &Fluid,
        p: &IsphParams,
        n: &[Real],
        h: Real,
        m: usize,
        parts: Option<&mut Parts<'_>>,
    ) {
        let count = f.len();
        let per = f.params.periodic;
        let rho0 = f.params.rho0;
        let weight = laplacian_weight(f);
        let ps = self.surface_pressure;
        self.triplets.clear();
        self.rhs.clear();
        self.rhs.resize(m, 0.0);
        self.interior.clear();
        self.interior.resize(m, false);
        let mut div = std::mem::take(&mut self.div);
        f.velocity_divergence(p.divergence, &self.index, &mut div);
        let mut diag_sum = 0.0;
        for (i, &n_i) in n.iter().enumerate().take(count) {
            let row = self.index[i];
            if row == DIRICHLET || row as usize >= self.owned {
                continue;
            }
            let row = row as usize;
            let mut diag = 0.0;
            // Free-surface neighbours hold the known `surface_pressure`: to the right-hand side.
            let (mut known, mut at_surface) = (0.0, false);
            for &j in f.ff.of(i) {
                let j = j as usize;
                let d = per.delta(&f.pos[i], &f.pos[j]);
                let w = weight(&d);
                diag += w;
                let col = self.index[j];
                if col == DIRICHLET {
                    known += w * ps;
                    at_surface = true;
                } else if (col as usize) < row {
                    self.triplets.push(Triplet::new(row, col as usize, -w));
                } else if col as usize >= self.owned {
                    self.triplets.push(Triplet::new(col as usize, row, -w));
                }
            }
            // The velocity source (module docs, step 3; [`Divergence`]).
            let mut b = known - rho0 * div[i] / h;
            // Density invariance: compression with α; expansion with α_e, and only in the
            // interior (no free-surface neighbour, no wall neighbour), where a particle short
            // of neighbours sits in a void rather than at the surface.
            self.interior[row] = !at_surface && f.fb.of(i).is_empty();
            let relax = if n_i > 1.0 {
                p.alpha
            } else if self.interior[row] {
                p.expansion
            } else {
                0.0
            };
            b -= relax * rho0 * (1.0 - n_i) / (h * h);
            for (e, &bb) in f.fb.of(i).iter().enumerate() {
                let d = per.delta(&f.pos[i], &f.boundary[bb as usize]);
                b += weight(&d) * self.jump[self.start[i] as usize + e];
            }
            self.triplets.push(Triplet::new(row, row, diag));
            diag_sum += diag;
            self.rhs[row] = b;
        }
        self.div = div;
        self.pockets(f, diag_sum, m, parts);
    }

    /// Pockets' blocks are pure Neumann problems, singular like a closed domain's: each gets
    /// the closed domain's treatment (module docs, **Walls**): its right-hand side's mean
    /// removed, a relative 1e-12 (of the mean diagonal `diag_sum / m`) on its diagonal. A
    /// divided equation joins its parts' pockets ([`parts::join_pockets`]) and sums over them.
    fn pockets(&mut self, f: &Fluid, diag_sum: Real, m: usize, parts: Option<&mut Parts<'_>>) {
        let pockets = label_pockets(&self.index, &f.ff, m, &mut self.pocket, &mut self.stack);
        self.pocket_min.clear();
        self.pocket_min.resize(pockets, Real::INFINITY);
        self.pocket_sum.clear();
        self.pocket_sum.resize(pockets, (0.0, 0));
        let (mut diag_sum, mut m) = (diag_sum, m as Real);
        let owned = self.owned;
        let mut sums = Vec::new();
        for (b, &c) in self.rhs.iter().zip(&self.pocket).take(owned) {
            if c != ANCHORED {
                let (sum, size) = &mut self.pocket_sum[c as usize];
                *sum += b;
                *size += 1;
            }
        }
        if let Some(parts) = parts {
            let pocket = (&mut self.pocket[..], pockets, ANCHORED);
            parts::join_pockets(parts, pocket, &f.id, &mut self.label, &mut self.labels);
            sums.extend(self.pocket_sum.iter().flat_map(|&(s, n)| [s, n as Real]));
            parts::reduce_by_label(parts, &self.labels, &mut sums, 2, false);
            for (ps, c) in self.pocket_sum.iter_mut().zip(sums.chunks_exact(2)) {
                *ps = (c[0], c[1] as usize);
            }
            let mut v = [diag_sum, owned as Real];
            parts.halo.sum(&mut v);
            (diag_sum, m) = (v[0], v[1]);
        }
        if self.pocket.iter().all(|&c| c == ANCHORED) {
            return;
        }
        for (b, &c) in self.rhs.iter_mut().zip(&self.pocket).take(owned) {
            if c != ANCHORED {
                let (sum, size) = self.pocket_sum[c as usize];
                *b -= sum / size as Real;
            }
        }
        let eps = 1e-12 * diag_sum.max(Real::MIN_POSITIVE) / m;
        for t in self.triplets.iter_mut().filter(|t| t.row == t.col) {
            if self.pocket[t.row] != ANCHORED {
                t.val += eps;
            }
        }
    }

    /// Solves the assembled system for the `m` unknowns into `sol` (holding the warm start);
    /// returns the relative residual and the CG iterations.
    fn solve_linear(
        &mut self,
        solver: PpeSolver,
        m: usize,
        sol: &mut [Real],
        mut parts: Option<&mut Parts<'_>>,
    ) -> (Real, usize) {
        let (mut residual, mut iterations) = (0.0, 0);
        self.solver.forget_cycle();
        if m > 0 || parts.is_some() {
            match solver {
                PpeSolver::Direct => {
                    let solved =
                        SparseColMat::<usize, Real>::try_new_from_triplets(m, m, &self.triplets)
                            .ok()
                            .and_then(|a| a.sp_cholesky(Side::Lower).ok());
                    if let Some(llt) = solved {
                        let rhs = faer::Col::<Real>::from_fn(m, |i| self.rhs[i]);
                        let x = llt.solve(&rhs);
                        for (s, i) in sol.iter_mut().zip(0..m) {
                            *s = x[i];
                        }
                    } else {
                        // Not positive definite (a particle with no unknown neighbour and no
                        // diagonal): zero pressures; the residual reports the failure.
                        sol.iter_mut().for_each(|x| *x = 0.0);
                    }
                }
                PpeSolver::Cg | PpeSolver::TwoLevel => {
                    self.solver.csr.assemble(m, &self.triplets);
                    if solver == PpeSolver::TwoLevel {
                        self.solver.build_cycle(self.owned, parts.as_deref_mut());
                    }
                    iterations = self.solver.solve(&self.rhs, sol, parts.as_deref_mut());
                }
            }
        }
        if m > 0 || parts.is_some() {
            residual = self.residual(sol, parts);
        }
        (residual, iterations)
    }

    /// The particles' pressures (Pa) from the solution: the surface pressure on free-surface
    /// particles, zero-mean in a closed domain, never negative with a free surface (a pocket's
    /// lowest pressure zero).
    /// A divided equation (`parts`) takes each pocket's lowest pressure and a closed domain's
    /// mean over the parts.
    fn write_pressures(
        &mut self,
        f: &mut Fluid,
        sol: &[Real],
        closed: bool,
        mut parts: Option<&mut Parts<'_>>,
    ) {
        let (ps, count) = (self.surface_pressure, f.len());
        f.pressure.resize(count, 0.0);
        // A pocket beside a free surface ([`label_pockets`]) has its pressure up to a constant,
        // which the symmetric gradient is not invariant to: its lowest pressure is taken as
        // zero, as at a free surface.
        if !closed {
            for (&x, &c) in sol.iter().zip(&self.pocket).take(self.owned) {
                if c != ANCHORED {
                    let lo = &mut self.pocket_min[c as usize];
                    *lo = lo.min(x);
                }
            }
            if let Some(parts) = parts.as_mut() {
                let mut v: Vec<Real> = self.pocket_min.iter().map(|x| -x).collect();
                parts::reduce_by_label(parts, &self.labels, &mut v, 1, true);
                for (lo, x) in self.pocket_min.iter_mut().zip(v) {
                    *lo = -x;
                }
            }
        }
        for (pi, &ix) in f.pressure.iter_mut().zip(&self.index) {
            *pi = if ix == DIRICHLET {
                ps
            } else if closed {
                sol[ix as usize]
            } else if self.pocket[ix as usize] != ANCHORED {
                sol[ix as usize] - self.pocket_min[self.pocket[ix as usize] as usize]
            } else {
                // With a free surface the water cannot pull (as the constraint method's
                // unilateral rows): negative pressures, found next to the surface where the
                // divergence source overshoots, are set to zero; kept, they clumped particles
                // (tensile instability) until the circular patch blew up at t = 0.43 s.
                sol[ix as usize].max(0.0)
            };
        }
        if closed {
            let mean = match parts {
                Some(parts) => {
                    let mut v = [0.0, 0.0];
                    for x in owned_of(&f.pressure, Some(parts.halo.owned())) {
                        v[0] += x;
                        v[1] += 1.0;
                    }
                    parts.halo.sum(&mut v);
                    v[0] / v[1]
                }
                None => f.pressure.iter().sum::<Real>() / count as Real,
            };
            f.pressure.iter_mut().for_each(|x| *x -= mean);
        }
    }

    /// `|A p − b| / |b|` from the stored lower triangle; over the owned rows of every part
    /// for a divided equation (the ghosts' entries of `x` their owners').
    fn residual(&mut self, x: &[Real], parts: Option<&mut Parts<'_>>) -> Real {
        let r = &mut self.res;
        r.clone_from(&self.rhs);
        for t in &self.triplets {
            r[t.row] -= t.val * x[t.col];
            if t.row != t.col {
                r[t.col] -= t.val * x[t.row];
            }
        }
        let owned = self.owned;
        let squares = |v: &[Real]| v[..owned].iter().map(|a| a * a).sum::<Real>();
        let mut v = [squares(&self.rhs), squares(r)];
        if let Some(parts) = parts {
            parts.halo.sum(&mut v);
        }
        let (b, r) = (v[0].sqrt(), v[1].sqrt());
        if b > 0.0 {
            r / b
        } else {
            r
        }
    }
}
