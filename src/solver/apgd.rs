//! Accelerated projected gradient descent (APGD): Nesterov's method for the cone complementarity
//! problem, after Mazhar, Heyn, Tasora & Negrut (2015), "Using Nesterov's method to accelerate
//! multibody dynamics with friction and contact", ACM Trans. Graph. 34(3), Algorithm 2.
//!
//! It minimises `f(λ) = ½ λᵀ N λ + rᵀ λ` over the product of admissible sets (free, `λ ≥ 0`,
//! Coulomb cones), where `N = J M⁻¹ Jᵀ + E` (E the diagonal of compliances) and
//! `r = J v* + b`. Its gradient `∇f(λ) = J (v* + M⁻¹ Jᵀ λ) + b + E λ` is the row velocity `w`, so
//! the method needs only the two products `M⁻¹ Jᵀ λ` and `J v` of the row interface — never N.
//! Steps: `λ_{k+1} = Π(y_k − t_k ∇f(y_k))` with backtracking on the Lipschitz estimate `L_k`
//! (doubled until the quadratic upper bound holds, then shrunk by 0.9 per iteration), Nesterov
//! momentum `y_{k+1} = λ_{k+1} + β (λ_{k+1} − λ_k)` with
//! `θ_{k+1} = (−θ_k² + θ_k √(θ_k² + 4)) / 2`, `β = θ_k (1 − θ_k) / (θ_k² + θ_{k+1})`, and an
//! adaptive restart (`y = λ`, `θ = 1`) whenever `∇f(y_k)ᵀ(λ_{k+1} − λ_k) > 0`. The iterate with
//! the smallest residual is returned. Friction uses the exact cone projection.
//!
//! With `diagonal_scaling` (default) the same iteration runs in the variables `D^{1/2} λ`
//! (`D` = one mean diagonal per block): the gradient step becomes `λ − t D⁻¹ ∇f` and the
//! quadratic bound uses the `D`-norm. The admissible sets are cones, unchanged by a positive
//! scale per block, so the projections stay exact.
//!
//! **Cost.** One gradient (the products `M⁻¹ Jᵀ λ` and `J v`) per iteration, plus one per
//! backtracking retry: `∇f` is affine, so at the extrapolated point it is
//! `∇f(y) = (1 + β) ∇f(λ_k) − β ∇f(λ_{k−1})`, from two gradients already evaluated. The rows'
//! bias, compliance and block scales are read once per solve; the vector passes run in
//! parallel above 4096 rows with sums per fixed chunk (`solver/vecops.rs`), so the result does not
//! depend on the thread count.

use super::vecops::{copy, fill, for_blocks_mut, sums4, update};
use super::{block_scales, project, residual_scaled, Parts, RowSet, SolveInfo, Workspace};
use crate::math::Real;
use crate::params::{iteration_limit, positive, ParamError};
use serde::{Deserialize, Serialize};

/// APGD parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ApgdParams {
    /// Maximum iterations, 1 to 100 000 ([`crate::params::MAX_ITERATIONS`]). Default 500.
    pub max_iterations: usize,
    /// Stop when the fixed-point residual is below this (m/s). Default 1e-7.
    pub tolerance: Real,
    /// Start from the previous step's impulses where rows persist. Default true.
    pub warm_start: bool,
    /// Diagonal (Jacobi) scaling: iterate in the variables `D_B^{1/2} λ` with one scale per
    /// block (the mean `J M⁻¹ Jᵀ + ε` of its rows), which keeps the projections exact and
    /// equalises rows of very different effective mass (fluid rows next to wall rows, light
    /// bodies on heavy ones). Default true; false is Mazhar et al.'s plain method.
    pub diagonal_scaling: bool,
}

impl ApgdParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        iteration_limit("max_iterations", self.max_iterations)?;
        positive("tolerance", self.tolerance)
    }
}

impl Default for ApgdParams {
    fn default() -> Self {
        ApgdParams {
            max_iterations: 500,
            tolerance: 1e-7,
            warm_start: true,
            diagonal_scaling: true,
        }
    }
}

/// The per-row constants of one solve, read from the rows once (each read through a row stack
/// is a virtual call that first finds the row's family).
struct Constants<'a> {
    /// The bias `b_k`.
    bias: &'a [Real],
    /// The compliance `ε_k`.
    compliance: &'a [Real],
    /// Per row of a divided solve: whether another part owns it (empty: the whole problem).
    foreign: &'a [bool],
}

/// The other parts of a divided solve ([`Parts`]), if any: the products' meetings and the
/// reductions of the sums and of the residual.
struct Across<'a>(Option<&'a mut dyn Parts>);

impl Across<'_> {
    /// `u += M⁻¹ Jᵀ x`, made whole over the parts (`u` holds `v*`).
    fn add_minv_jt<R: RowSet>(&mut self, rows: &R, x: &[Real], u: &mut [Real]) {
        if let Some(p) = self.0.as_deref_mut() {
            p.begin(u);
        }
        rows.add_minv_jt(x, u);
        if let Some(p) = self.0.as_deref_mut() {
            p.settle(u, 0.0);
        }
    }

    /// `v` summed over the parts.
    fn sum<const N: usize>(&mut self, mut v: [Real; N]) -> [Real; N] {
        if let Some(p) = self.0.as_deref_mut() {
            p.sum(&mut v);
        }
        v
    }

    /// The largest `x` over the parts.
    fn max(&mut self, x: Real) -> Real {
        match self.0.as_deref_mut() {
            Some(p) => p.max(x),
            None => x,
        }
    }
}

/// `out = ∇f(x) = J (v* + M⁻¹ Jᵀ x) + b + E x`, using `u` as DOF scratch.
fn gradient<R: RowSet>(
    rows: &R,
    c: &Constants,
    vstar: &[Real],
    x: &[Real],
    u: &mut [Real],
    out: &mut [Real],
    across: &mut Across,
) {
    copy(u, vstar);
    across.add_minv_jt(rows, x, u);
    rows.mul_j(u, out);
    update(out, |k, o| *o += c.bias[k] + c.compliance[k] * x[k]);
    // (Another part's rows: no gradient here, so no step, no residual and no share of a sum.)
    for (o, _) in out.iter_mut().zip(c.foreign).filter(|(_, f)| **f) {
        *o = 0.0;
    }
}

fn project_all<R: RowSet>(rows: &R, x: &mut [Real]) {
    for_blocks_mut(rows.blocks(), x, |at, blocks, xs| {
        for b in blocks {
            let s = b.start - at;
            project(b.kind, &mut xs[s..s + b.kind.len()], true);
        }
    });
}

/// The solve's fifteen buffers: two over the velocities (v*, u = M⁻¹ Jᵀ λ), the others over
/// the `n` rows.
fn buffers(bufs: &mut Vec<Vec<Real>>, n: usize, ndof: usize) -> &mut [Vec<Real>] {
    let all = super::take(bufs, 15, n.max(ndof));
    for (i, b) in all.iter_mut().enumerate() {
        b.truncate(if i < 2 { ndof } else { n });
    }
    all
}

/// `r = J v* + b`, the gradient at λ = 0.
fn gradient_at_zero<R: RowSet>(rows: &R, vstar: &[Real], bias: &[Real], r: &mut [Real]) {
    rows.mul_j(vstar, r);
    for (rk, b) in r.iter_mut().zip(bias) {
        *rk += b;
    }
}

/// The first iterate: the warm start (or zero), another part's rows zero, projected.
fn start_point<R: RowSet>(
    p: &ApgdParams,
    rows: &R,
    lambda: &[Real],
    foreign: &[bool],
    x: &mut [Real],
) {
    if p.warm_start {
        x.copy_from_slice(lambda);
    } else {
        x.iter_mut().for_each(|e| *e = 0.0);
    }
    for (e, _) in x.iter_mut().zip(foreign).filter(|(_, f)| **f) {
        *e = 0.0;
    }
    project_all(rows, x);
}

/// Per-row bias and compliance, one scale per block (the mean `J M⁻¹ Jᵀ + ε` of its rows: the
/// residual's, and with diagonal scaling the step's) and the step's diagonal scaling `dinv`
/// (zero on another part's rows, `foreign`: they take no step).
fn row_data<R: RowSet>(
    p: &ApgdParams,
    rows: &R,
    foreign: &[bool],
    [dinv, scale, bias, comp]: [&mut [Real]; 4],
) {
    for k in 0..rows.len() {
        bias[k] = rows.bias(k);
        comp[k] = rows.compliance(k);
    }
    block_scales(rows, scale);
    for (di, &d) in dinv.iter_mut().zip(scale.iter()) {
        *di = if p.diagonal_scaling && d > 1e-300 {
            1.0 / d
        } else {
            1.0
        };
    }
    for (d, _) in dinv.iter_mut().zip(foreign).filter(|(_, f)| **f) {
        *d = 0.0;
    }
}

/// The Lipschitz constant of `∇f` estimated from `x` and `x + 1`: `|∇f(x + 1) − ∇f(x)| / √n`
/// (at least 1e-12); leaves `∇f(x)` in `gx`.
fn initial_lipschitz<R: RowSet>(
    rows: &R,
    c: &Constants,
    vstar: &[Real],
    x: &[Real],
    u: &mut [Real],
    [gx, g, tmp]: [&mut [Real]; 3],
    across: &mut Across,
) -> Real {
    let n = rows.len();
    let own = |k: usize| c.foreign.get(k).is_none_or(|f| !f);
    gradient(rows, c, vstar, x, u, gx, across);
    for k in 0..n {
        tmp[k] = x[k] + if own(k) { 1.0 } else { 0.0 };
    }
    gradient(rows, c, vstar, tmp, u, g, across);
    let sq: Real = g
        .iter()
        .zip(gx.iter())
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<Real>();
    let [sq, n] = across.sum([sq, (0..n).filter(|&k| own(k)).count() as Real]);
    let num = sq.sqrt();
    (num / (n as Real).sqrt()).max(1e-12)
}

/// `g = (1 + β) gx − β gx_prev`: the affine gradient at the extrapolated point from the
/// gradients at the last two iterates (`g = gx` when β = 0).
fn extrapolate(g: &mut [Real], gx: &[Real], gx_prev: &[Real], beta: Real) {
    if beta == 0.0 {
        copy(g, gx);
    } else {
        fill(g, |k| (1.0 + beta) * gx[k] - beta * gx_prev[k]);
    }
}

/// Nesterov's momentum after an iterate: `y = x` and θ = 1 on a `restart`, else
/// `y = x + β (x − x_prev)` with θ's next value. Returns (β of y, θ).
fn momentum(
    theta: Real,
    restart: bool,
    x: &[Real],
    x_prev: &[Real],
    y: &mut [Real],
) -> (Real, Real) {
    let theta_next = 0.5 * (-theta * theta + theta * (theta * theta + 4.0).sqrt());
    let beta = theta * (1.0 - theta) / (theta * theta + theta_next);
    if restart {
        copy(y, x);
        (0.0, 1.0)
    } else {
        fill(y, |k| x[k] + beta * (x[k] - x_prev[k]));
        (beta, theta_next)
    }
}

/// One backtracking line search from the extrapolated point y: `x = Π(y − t D g)` with
/// `t = 1 / lip`, doubling `lip` until the quadratic upper bound at y holds (or `lip` passes
/// 1e30); leaves `gx = ∇f(x)` and returns the restart test `∇f(y)ᵀ(x − x_prev)`. `fixed` is
/// `[v*, y, g = ∇f(y), r, D, x_prev]`, `fy` = f(y).
#[allow(clippy::too_many_arguments)]
fn backtrack<R: RowSet>(
    rows: &R,
    c: &Constants,
    [vstar, y, g, r, dinv, x_prev]: [&[Real]; 6],
    [x, u, gx]: [&mut [Real]; 3],
    partials: &mut Vec<[Real; 4]>,
    fy: Real,
    lip: &mut Real,
    across: &mut Across,
) -> Real {
    let n = rows.len();
    let mut t = 1.0 / *lip;
    loop {
        fill(x, |k| y[k] - t * dinv[k] * g[k]);
        project_all(rows, x);
        gradient(rows, c, vstar, x, u, gx, across);
        // f(x), the linear and quadratic terms of the bound, and the restart test
        // ∇f(y)ᵀ(x − x_prev), in one pass.
        let [fx2, lin, sq, restart] = {
            let (x, gx) = (&*x, &*gx);
            across.sum(sums4(n, partials, |k| {
                let d = x[k] - y[k];
                [
                    x[k] * (gx[k] + r[k]),
                    g[k] * d,
                    // (Another part's row: d = 0 and no scale.)
                    if dinv[k] > 0.0 { d * d / dinv[k] } else { 0.0 },
                    g[k] * (x[k] - x_prev[k]),
                ]
            }))
        };
        let fx = 0.5 * fx2;
        if fx <= fy + lin + 0.5 * *lip * sq + 1e-14 * fy.abs().max(1e-300) || *lip > 1e30 {
            return restart;
        }
        *lip *= 2.0;
        t = 1.0 / *lip;
    }
}

/// Runs APGD. `lambda`: warm start in, impulses out; `v`: `v*` in, `v⁺` out.
pub fn solve<R: RowSet>(
    p: &ApgdParams,
    rows: &R,
    lambda: &mut [Real],
    v: &mut [Real],
    ws: &mut Workspace,
) -> SolveInfo {
    solve_parts(p, rows, lambda, v, ws, None)
}

/// [`solve`] on one part of a divided problem ([`Parts`]; `None`: the whole problem): another
/// part's rows keep a zero impulse (no step: their scale is zero), every product `M⁻¹ Jᵀ λ`
/// meets the other parts, and every sum and the residual are taken over all parts, so every
/// part takes the same steps and stops at the same iteration (no part leaves early on an
/// interruption; the run loop reads it between steps).
pub fn solve_parts<R: RowSet>(
    p: &ApgdParams,
    rows: &R,
    lambda: &mut [Real],
    v: &mut [Real],
    ws: &mut Workspace,
    parts: Option<&mut dyn Parts>,
) -> SolveInfo {
    let n = rows.len();
    if n == 0 && parts.is_none() {
        return SolveInfo {
            converged: true,
            ..Default::default()
        };
    }
    let ndof = v.len();
    let Workspace {
        bufs,
        partials,
        foreign,
        ..
    } = ws;
    foreign.clear();
    foreign.extend_from_slice(parts.as_deref().map_or(&[], |p| p.foreign()));
    let mut across = Across(parts);
    let [vstar, u, r, x, x_prev, y, g, gx, gx_prev, best, tmp, dinv, scale, bias, comp] =
        buffers(bufs, n, ndof)
    else {
        unreachable!()
    };
    row_data(p, rows, foreign, [dinv, scale, bias, comp]);
    let c = Constants {
        bias,
        compliance: comp,
        foreign,
    };
    vstar.copy_from_slice(v);
    gradient_at_zero(rows, vstar, c.bias, r);
    start_point(p, rows, lambda, c.foreign, x);
    // Initial Lipschitz estimate from two nearby points; gx = ∇f(x).
    let mut lip = initial_lipschitz(rows, &c, vstar, x, u, [gx, g, tmp], &mut across);
    let mut theta: Real = 1.0;
    y.copy_from_slice(x);
    // The momentum of the last extrapolation `y = x + β (x − x_prev)`; 0 when y = x.
    let mut beta_y: Real = 0.0;
    best.copy_from_slice(x);
    let mut best_res = Real::INFINITY;
    let mut iterations = 0;
    let mut converged = false;

    let divided = across.0.is_some();
    for _ in (0..p.max_iterations).take_while(|_| divided || !crate::interrupt::overdue()) {
        iterations += 1;
        // g = ∇f(y). The gradient is affine, ∇f(λ) = N λ + r, so at the extrapolated point
        // it is the same combination of the gradients at x and x_prev, both already known:
        // one gradient (two products) per iteration instead of two.
        extrapolate(g, gx, gx_prev, beta_y);
        let fy = {
            let (y, g, r) = (&*y, &*g, &*r);
            0.5 * across.sum(sums4(n, partials, |k| {
                [y[k] * (g[k] + r[k]), 0.0, 0.0, 0.0]
            }))[0]
        };
        copy(x_prev, x);
        copy(gx_prev, gx);
        // Backtracking: x = Π(y − t g) until the quadratic upper bound holds.
        let restart_test = backtrack(
            rows,
            &c,
            [vstar, y, g, r, dinv, x_prev],
            [x, u, gx],
            partials,
            fy,
            &mut lip,
            &mut across,
        );
        // Residual at x (gx = ∇f(x) = w).
        let res = across.max(residual_scaled(rows.blocks(), scale, x, gx, true));
        if res < best_res {
            best_res = res;
            copy(best, x);
        }
        if res < p.tolerance {
            converged = true;
            break;
        }
        (beta_y, theta) = momentum(theta, restart_test > 0.0, x, x_prev, y);
        lip *= 0.9;
    }
    lambda.copy_from_slice(best);
    v.copy_from_slice(vstar);
    across.add_minv_jt(rows, lambda, v);
    SolveInfo {
        iterations,
        residual: best_res,
        converged,
    }
}
