//! Constraint solvers written once against the row interface [`RowSet`].
//!
//! The problem: find impulses λ (N·s, or N·m·s for angular rows) such that with
//! `v⁺ = v* + M⁻¹ Jᵀ λ` every row `k` satisfies, with `w_k = J_k v⁺ + b_k + ε_k λ_k`
//! (m/s, or rad/s for angular rows):
//!
//! - bilateral rows: `w_k = 0`, λ free;
//! - unilateral rows: `w_k ≥ 0`, `λ_k ≥ 0`, `w_k λ_k = 0` (a linear complementarity problem);
//! - friction blocks `[n, t1, t2]`: the normal row as unilateral, and the tangential impulse
//!   bounded by `μ λ_n` — component-wise (box, PGS) or on the exact Coulomb cone
//!   (APGD, the cone complementarity problem of Anitescu & Tasora 2010).
//!
//! `ε_k ≥ 0` is the row compliance (s/kg in velocity units) of soft constraints; `b_k` the bias
//! (restitution, Baumgarte stabilisation, compliant-joint spring term), see
//! [`crate::constraints`]. The solvers never see what a row means (Chrono's `ChConstraint` /
//! `ChSystemDescriptor` split).

pub mod apgd;
pub mod colouring;
mod dense_block;
pub mod multilevel;
pub mod pgs;
mod points;
mod stacked;
mod vecops;

use crate::math::Real;
use serde::{Deserialize, Serialize};

pub use apgd::ApgdParams;
pub use colouring::{Colouring, SharedVec};
pub use pgs::PgsParams;
pub use points::Points;
pub use stacked::{RowStack, MAX_FAMILIES};

/// How the impulses of a block of consecutive rows are projected onto their admissible set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BlockKind {
    /// `len` bilateral rows (1 to 6) solved together: λ free. PGS solves the block exactly
    /// (a dense `len × len` solve with the couplings `J_k M⁻¹ J_lᵀ`), so strongly coupled rows
    /// of one joint do not slow the sweep down.
    Bilateral {
        /// Number of rows, 1 to [`MAX_BLOCK`].
        len: usize,
    },
    /// One unilateral row: λ ≥ 0.
    Unilateral,
    /// Three rows `[normal, tangent1, tangent2]` of a frictional contact with coefficient μ.
    Friction {
        /// Coulomb coefficient μ (≥ 0).
        mu: Real,
    },
}

impl BlockKind {
    /// Number of rows the block spans.
    pub fn len(&self) -> usize {
        match self {
            BlockKind::Friction { .. } => 3,
            BlockKind::Bilateral { len } => *len,
            BlockKind::Unilateral => 1,
        }
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Largest number of rows of one joint's bilateral block (longer blocks are chains of joints,
/// whose scratch is not on the stack).
pub const MAX_BLOCK: usize = 6;

/// A block of consecutive rows starting at `start`.
#[derive(Debug, Clone, Copy)]
pub struct Block {
    /// Index of the first row.
    pub start: usize,
    /// Projection of the block.
    pub kind: BlockKind,
}

/// The interface every row family implements and every solver uses.
///
/// Velocities are a flat DOF vector: 6 entries per dynamic body `(V, ω)` in the world frame
/// (later 3 per fluid particle). Implementations must be deterministic.
pub trait RowSet: Sync {
    /// Number of rows.
    fn len(&self) -> usize;
    /// Whether there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The blocks partitioning the rows, in solve order.
    fn blocks(&self) -> &[Block];
    /// `J_k v` for row `k`.
    fn jv(&self, k: usize, v: &[Real]) -> Real;
    /// `v += M⁻¹ J_kᵀ dλ`.
    fn apply(&self, k: usize, dlambda: Real, v: &mut [Real]);
    /// `J_k M⁻¹ J_kᵀ` (without compliance).
    fn diag(&self, k: usize) -> Real;
    /// `J_k M⁻¹ J_lᵀ`, the coupling of two rows (used for the rows of one block).
    fn coupling(&self, k: usize, l: usize) -> Real;
    /// The bias `b_k`.
    fn bias(&self, k: usize) -> Real;
    /// The compliance `ε_k ≥ 0`.
    fn compliance(&self, k: usize) -> Real;
    /// `out = J v` for all rows.
    fn mul_j(&self, v: &[Real], out: &mut [Real]) {
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.jv(k, v);
        }
    }
    /// `v += M⁻¹ Jᵀ λ` for all rows, in row order (deterministic).
    fn add_minv_jt(&self, lambda: &[Real], v: &mut [Real]) {
        for (k, &l) in lambda.iter().enumerate() {
            if l != 0.0 {
                self.apply(k, l, v);
            }
        }
    }
    /// Rows a Gauss–Seidel sweep may update in parallel ([`colouring`]), if the set offers them:
    /// single-row blocks (unilateral or bilateral) of a family that implements
    /// [`ColouredRows`]. At most one family of a stack is coloured.
    fn coloured(&self) -> Option<Coloured<'_>> {
        None
    }
}

/// What a parallel Gauss–Seidel sweep (PGS over a [`Colouring`]) asks of the coloured rows
/// beyond [`RowSet`]: their products on a velocity vector the workers share, and, for the
/// multilevel corrections, their columns by point ([`PointColumns`]). Only PGS uses it; a
/// family that offers no colouring implements none of it.
pub trait ColouredRows: RowSet {
    /// `J_k v` on a shared vector.
    fn jv_shared(&self, k: usize, v: &SharedVec) -> Real;
    /// `v += M⁻¹ J_kᵀ dλ` on a shared vector.
    fn apply_shared(&self, k: usize, dlambda: Real, v: &SharedVec);
    /// One Gauss–Seidel update of coloured row `k` on a shared vector: `update` receives
    /// `J_k v` and returns the impulse change dλ, which is applied (`v += M⁻¹ J_kᵀ dλ`) unless
    /// zero. Rows that form their coefficients on the fly override it to form them once.
    #[inline]
    fn update_shared(&self, k: usize, v: &SharedVec, update: &mut dyn FnMut(Real) -> Real) {
        update_shared_by_parts(self, k, v, update);
    }
    /// The rows' columns by point block, if the family offers them (for [`multilevel`]).
    fn point_columns(&self) -> Option<&dyn PointColumns> {
        None
    }
}

/// The columns of a family's rows by point block (3 degrees of freedom each, starting at the
/// family's first particle DOF), for the multilevel operators ([`multilevel`]).
pub trait PointColumns {
    /// The number of point blocks and their inverse mass per axis (1/kg).
    fn point_blocks(&self) -> (usize, crate::math::Vec3);
    /// Calls `f(k, J_k[p])` for every row k (the family's numbering) whose Jacobian has a
    /// non-zero block on point p.
    fn column(&self, p: usize, f: &mut dyn FnMut(usize, crate::math::Vec3));
}

/// The coloured rows of a set: one family's [`Colouring`] placed in the set's numbering.
#[derive(Clone, Copy)]
pub struct Coloured<'a> {
    /// Row of the set that is the family's row 0.
    pub offset: usize,
    /// Number of rows of the family.
    pub len: usize,
    /// The family's colouring (family row numbers).
    pub colouring: &'a Colouring,
    /// The family (family row numbers), for the shared products.
    pub rows: &'a dyn ColouredRows,
}

/// A solve whose rows and unknowns are divided among processes (issue 55): each part updates
/// the rows it owns (PGS: Gauss–Seidel inside the part; APGD: its steps, with every product
/// and sum over all parts), and the parts meet after every sweep or product —
/// block Jacobi between them: the hybrid (processor-block) Gauss–Seidel of parallel
/// multigrid smoothers (Baker, Falgout, Kolev & Yang 2011, SIAM J. Sci. Comput. 33:2864; Adams
/// 2001, SC'01, for ordering it across processes). A row another part owns is set aside here (impulse zero, never updated):
/// its owner's updates reach this part's unknowns through [`Parts::settle`].
pub trait Parts {
    /// Per row of the set being solved: whether another part updates it.
    fn foreign(&self) -> &[bool];
    /// Per row (empty: all zero): the share `f_k` in [0, 1] of the row's unknowns that another
    /// part's rows also touch. PGS takes `D_k (1 + f_k)` as the row's diagonal: the ℓ1
    /// scaling of Baker et al. 2011 (the sum of the row's couplings to other parts added to
    /// its diagonal; for rows like ours, whose off-diagonal couplings sum to about the
    /// diagonal, about `f_k D_k`), without which the Jacobi coupling between parts diverged in
    /// 3D (the divided part of `crate::fluid::constraint`).
    fn interface(&self) -> &[Real] {
        &[]
    }
    /// Before the warm start: remembers `v` (`v*`, the same on every part for every unknown
    /// this part holds) as the point from which this part's changes are counted.
    fn begin(&mut self, v: &[Real]);
    /// After the warm start and after each sweep (collective): the changes this part made to
    /// the unknowns of other parts go to them, every part's unknowns take the sum of all the
    /// changes, the copies of other parts' unknowns take their owners' values; returns the
    /// largest `change` over all parts (m/s), so that every part stops at the same sweep.
    fn settle(&mut self, v: &mut [Real], change: Real) -> Real;
    /// Element-wise sum of `v` over all parts, in place (collective; the same bits on every
    /// part).
    fn sum(&mut self, v: &mut [Real]);
    /// The largest `x` over all parts (collective).
    fn max(&mut self, x: Real) -> Real;
}

/// Which solver to use, selected by name in RON: `Pgs((..))` or `Apgd((..))`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SolverChoice {
    /// Projected Gauss–Seidel.
    Pgs(#[serde(default)] PgsParams),
    /// Accelerated projected gradient descent (Nesterov), Mazhar et al. 2015.
    Apgd(#[serde(default)] ApgdParams),
}

impl Default for SolverChoice {
    fn default() -> Self {
        SolverChoice::Pgs(PgsParams::default())
    }
}

impl SolverChoice {
    /// Short name (`"pgs"`, `"apgd"`).
    pub fn name(&self) -> &'static str {
        match self {
            SolverChoice::Pgs(_) => "pgs",
            SolverChoice::Apgd(_) => "apgd",
        }
    }

    /// What will run, in words: the solver with its tolerance (m/s) and iteration cap.
    pub fn describe(&self) -> String {
        match self {
            SolverChoice::Pgs(p) => format!(
                "PGS: stops at a residual of {:.3e} m/s or after {} sweeps{}",
                p.tolerance,
                p.max_iterations,
                if p.multilevel {
                    ", multilevel density correction"
                } else {
                    ""
                }
            ),
            SolverChoice::Apgd(p) => format!(
                "APGD: stops at a residual of {:.3e} m/s or after {} iterations",
                p.tolerance, p.max_iterations
            ),
        }
    }

    /// Whether the solver sweeps rows one at a time (PGS), so that rows sharing no unknown are
    /// best grouped by colour.
    pub fn sweeps_rows(&self) -> bool {
        matches!(self, SolverChoice::Pgs(_))
    }

    /// Whether the solve adds multilevel corrections ([`multilevel`]), so that the coloured
    /// rows are also grouped into aggregates.
    pub fn multilevel(&self) -> bool {
        matches!(self, SolverChoice::Pgs(p) if p.multilevel)
    }

    /// What to do when most steps stopped at the iteration cap (for the run summary).
    pub fn cap_advice(&self) -> String {
        match self {
            SolverChoice::Pgs(p) if p.max_iterations <= 50 => format!(
                "PGS ran its fixed {} sweeps per step (a choice: the residual above is what they \
                 leave); for a converged solve raise `solver.max_iterations` or use `Apgd()`",
                p.max_iterations
            ),
            _ => "most steps stopped at the iteration cap: raise `solver.max_iterations`, or \
                  loosen `solver.tolerance` if the residual above is small enough for the model"
                .to_string(),
        }
    }

    /// Checks the chosen solver's parameters.
    pub fn validate(&self) -> Result<(), crate::params::ParamError> {
        match self {
            SolverChoice::Pgs(p) => p.validate(),
            SolverChoice::Apgd(p) => p.validate(),
        }
    }

    /// Solves the problem: `lambda` holds the warm start on entry and the impulses on exit;
    /// `v` holds `v*` on entry and `v⁺` on exit.
    pub fn solve<R: RowSet>(
        &self,
        rows: &R,
        lambda: &mut [Real],
        v: &mut [Real],
        ws: &mut Workspace,
    ) -> SolveInfo {
        self.solve_parts(rows, lambda, v, ws, None)
    }

    /// [`SolverChoice::solve`] of a part of a divided solve ([`Parts`]; `None`: the whole
    /// problem).
    pub fn solve_parts<R: RowSet>(
        &self,
        rows: &R,
        lambda: &mut [Real],
        v: &mut [Real],
        ws: &mut Workspace,
        parts: Option<&mut dyn Parts>,
    ) -> SolveInfo {
        match self {
            SolverChoice::Pgs(p) => pgs::solve_parts(p, rows, lambda, v, ws, parts),
            SolverChoice::Apgd(p) => apgd::solve_parts(p, rows, lambda, v, ws, parts),
        }
    }
}

/// Scratch buffers reused between solves (never saved).
#[derive(Debug, Default, Clone)]
pub struct Workspace {
    pub(crate) bufs: Vec<Vec<Real>>,
    /// Where each block's factor starts in `factors` (empty when no block has several rows).
    pub(crate) offsets: Vec<usize>,
    /// The Cholesky factors of the blocks of several bilateral rows.
    pub(crate) factors: Vec<Real>,
    /// Per-chunk partial sums of the vector passes ([`vecops`]).
    pub(crate) partials: Vec<[Real; 4]>,
    /// Velocities during PGS's parallel phase.
    pub(crate) shared: SharedVec,
    /// The multilevel corrections' operators and scratch ([`multilevel`]).
    pub(crate) cycle: multilevel::Cycle,
    /// Per row of a divided solve: whether another part owns it ([`Parts`]; APGD's copy).
    pub(crate) foreign: Vec<bool>,
}

/// The step's solve scratch, lent to a later stage once the solve has been read back (the
/// constraint method's density projection solves with it instead of keeping a second set:
/// 22 MB of the 3D dam break's 203 609 particles): the workspace and two vectors, whose
/// contents are free.
pub struct SolveScratch<'a> {
    /// The solver's workspace.
    pub workspace: &'a mut Workspace,
    /// The impulse vector (any length).
    pub lambda: &'a mut Vec<Real>,
    /// The velocity vector (any length).
    pub v: &'a mut Vec<Real>,
}

impl<'a> SolveScratch<'a> {
    /// The scratch of these three.
    pub fn new(
        workspace: &'a mut Workspace,
        lambda: &'a mut Vec<Real>,
        v: &'a mut Vec<Real>,
    ) -> Self {
        SolveScratch {
            workspace,
            lambda,
            v,
        }
    }
}

/// Ensures `n` buffers of length `len` in `bufs`, all zeroed, and returns them.
pub(crate) fn take(bufs: &mut Vec<Vec<Real>>, n: usize, len: usize) -> &mut [Vec<Real>] {
    if bufs.len() < n {
        bufs.resize(n, Vec::new());
    }
    for b in &mut bufs[..n] {
        b.clear();
        b.resize(len, 0.0);
    }
    &mut bufs[..n]
}

/// What a solve reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SolveInfo {
    /// Iterations done.
    pub iterations: usize,
    /// Final residual (m/s): the largest velocity-scaled fixed-point residual
    /// `D_k |λ_k − Π(λ_k − w_k / D_k)|` with `D_k = J_k M⁻¹ J_kᵀ + ε_k`.
    pub residual: Real,
    /// Whether the tolerance was reached.
    pub converged: bool,
}

/// Projects the impulses of one block in place (`cone` selects the exact Coulomb cone for
/// friction blocks; otherwise the box `|λ_t,i| ≤ μ λ_n` is used).
pub fn project(kind: BlockKind, l: &mut [Real], cone: bool) {
    match kind {
        BlockKind::Bilateral { .. } => {}
        BlockKind::Unilateral => l[0] = l[0].max(0.0),
        BlockKind::Friction { mu } => {
            if cone {
                project_cone(mu, l)
            } else {
                l[0] = l[0].max(0.0);
                let lim = mu * l[0];
                l[1] = l[1].max(-lim).min(lim);
                l[2] = l[2].max(-lim).min(lim);
            }
        }
    }
}

/// Euclidean projection of `(λn, λt1, λt2)` onto the cone `|λt| ≤ μ λn`.
pub fn project_cone(mu: Real, l: &mut [Real]) {
    let n = l[0];
    let t = (l[1] * l[1] + l[2] * l[2]).sqrt();
    if t <= mu * n {
        return;
    }
    if mu * t <= -n || (mu == 0.0 && n <= 0.0) {
        l[0] = 0.0;
        l[1] = 0.0;
        l[2] = 0.0;
        return;
    }
    let nn = (n + mu * t) / (mu * mu + 1.0);
    let s = if t > 0.0 { mu * nn / t } else { 0.0 };
    l[0] = nn;
    l[1] *= s;
    l[2] *= s;
}

/// The scale `D_B` of [`residual_scaled`] for every row: the mean `J M⁻¹ Jᵀ + ε` of its
/// block's rows (1/kg, or the row family's own unit), at least 1e-300. A chain's bilateral
/// block (longer than [`MAX_BLOCK`]: a beam's hinges, whose point and spring rows differ in
/// scale by orders of magnitude) gets one scale per row: its projection is the identity, so
/// any positive scale per row keeps it exact.
pub fn block_scales<R: RowSet>(rows: &R, out: &mut [Real]) {
    for b in rows.blocks() {
        let n = b.kind.len();
        if n > MAX_BLOCK && matches!(b.kind, BlockKind::Bilateral { .. }) {
            for (k, o) in (b.start..).zip(&mut out[b.start..b.start + n]) {
                *o = (rows.diag(k) + rows.compliance(k)).max(1e-300);
            }
            continue;
        }
        let d = ((b.start..b.start + n)
            .map(|k| rows.diag(k) + rows.compliance(k))
            .sum::<Real>()
            / n as Real)
            .max(1e-300);
        out[b.start..b.start + n].iter_mut().for_each(|e| *e = d);
    }
}

/// Fixed-point residual (m/s) of `lambda` given the current row values `w = J v⁺ + b + ε λ`:
/// the largest `D_B |λ_B − Π_B(λ_B − w_B / D_B)|` over blocks B, with one scale `D_B` per block
/// (the mean of its rows' `J M⁻¹ Jᵀ + ε`, from [`block_scales`], computed once per solve). One
/// scale per block matters: the fixed point of a cone projection with a uniform step is the
/// optimality condition, with per-row steps it is not.
pub fn residual_scaled(
    blocks: &[Block],
    scale: &[Real],
    lambda: &[Real],
    w: &[Real],
    cone: bool,
) -> Real {
    vecops::max_of(blocks.len(), |i| {
        let b = &blocks[i];
        let n = b.kind.len();
        let d = scale[b.start];
        if n == 1 && b.kind == BlockKind::Unilateral {
            // The common case (density and contact rows): |λ − max(λ − w/d, 0)| = |min(λ, w/d)|.
            let t = lambda[b.start].min(w[b.start] / d);
            return d * t.abs();
        }
        if n > MAX_BLOCK {
            // A chain's bilateral block: the projection is the identity, the residual |w|.
            return w[b.start..b.start + n]
                .iter()
                .map(|x| x * x)
                .sum::<Real>()
                .sqrt();
        }
        let mut tmp = [0.0; MAX_BLOCK];
        for (i, t) in tmp[..n].iter_mut().enumerate() {
            let k = b.start + i;
            *t = lambda[k] - w[k] / d;
        }
        project(b.kind, &mut tmp[..n], cone);
        let r2: Real = tmp[..n]
            .iter()
            .zip(&lambda[b.start..])
            .map(|(t, l)| (l - t) * (l - t))
            .sum();
        d * r2.sqrt()
    })
}

/// [`ColouredRows::update_shared`] from the row's two products: `J_k v`, then `v += M⁻¹ J_kᵀ dλ`
/// unless dλ is zero (the default, and what rows that form their coefficients fall back to).
#[inline]
pub fn update_shared_by_parts<R: ColouredRows + ?Sized>(
    rows: &R,
    k: usize,
    v: &SharedVec,
    update: &mut dyn FnMut(Real) -> Real,
) {
    let dl = update(rows.jv_shared(k, v));
    if dl != 0.0 {
        rows.apply_shared(k, dl, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cone projection is the Euclidean projection: idempotent, inside points unchanged,
    /// and the residual is orthogonal to the projected point (Moreau decomposition of a cone).
    #[test]
    fn cone_projection_is_the_euclidean_projection() {
        let mu = 0.6;
        let pts = [
            [1.0, 0.2, 0.1],
            [1.0, 2.0, -1.0],
            [-1.0, 0.1, 0.0],
            [-0.2, 3.0, 4.0],
            [0.0, 0.0, 0.0],
        ];
        for p in pts {
            let mut q = p;
            project_cone(mu, &mut q);
            let t = (q[1] * q[1] + q[2] * q[2]).sqrt();
            assert!(
                t <= mu * q[0] * (1.0 + 1e-12) + 1e-15,
                "{q:?} not in the cone"
            );
            let mut q2 = q;
            project_cone(mu, &mut q2);
            assert_eq!(q, q2, "projection must be idempotent");
            let r = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
            let dot = r[0] * q[0] + r[1] * q[1] + r[2] * q[2];
            assert!(dot.abs() < 1e-12, "residual not orthogonal: {dot}");
        }
        let mut inside = [1.0, 0.3, 0.2];
        project_cone(mu, &mut inside);
        assert_eq!(inside, [1.0, 0.3, 0.2]);
    }

    #[test]
    fn box_projection_bounds_each_tangent() {
        let mut l = [2.0, 5.0, -5.0];
        project(BlockKind::Friction { mu: 0.5 }, &mut l, false);
        assert_eq!(l, [2.0, 1.0, -1.0]);
        let mut l = [-1.0, 5.0, -5.0];
        project(BlockKind::Friction { mu: 0.5 }, &mut l, false);
        assert_eq!(l, [0.0, 0.0, 0.0]);
    }
}
