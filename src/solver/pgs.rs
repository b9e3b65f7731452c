//! Projected Gauss–Seidel (PGS) with warm start and over-relaxation.
//!
//! Each sweep visits the blocks in order and updates one row at a time:
//! `λ_k ← Π(λ_k − ω w_k / D_k)`, `v ← v + M⁻¹ J_kᵀ Δλ_k`, with
//! `w_k = J_k v + b_k + ε_k λ_k` and `D_k = J_k M⁻¹ J_kᵀ + ε_k` (Miyamoto & Koshizuka, 001
//! eqs. 36–41 and 65–72, generalised to compliance). Friction rows are bounded component-wise by
//! `μ λ_n` of the current normal impulse (box friction); the solver stops when the largest
//! velocity-scaled update `D_k |Δλ_k|` of a sweep falls below the tolerance.

use super::{block_scales, residual_scaled, BlockKind, RowSet, SolveInfo, Workspace, MAX_BLOCK};
use crate::math::Real;
use crate::params::{iteration_limit, positive, ParamError};
use serde::{Deserialize, Serialize};

/// PGS parameters.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PgsParams {
    /// Maximum sweeps, 1 to 100 000 ([`crate::params::MAX_ITERATIONS`]). Default 200.
    #[serde(default = "default_iters")]
    pub max_iterations: usize,
    /// Stop when the largest velocity-scaled update of a sweep is below this (m/s). Default 1e-7.
    #[serde(default = "default_tol")]
    pub tolerance: Real,
    /// Relaxation factor ω in (0, 2). Default 1 (plain Gauss–Seidel).
    #[serde(default = "one")]
    pub relaxation: Real,
    /// Start from the previous step's impulses where rows persist. Default true.
    #[serde(default = "yes")]
    pub warm_start: bool,
}

fn default_iters() -> usize {
    200
}
fn default_tol() -> Real {
    1e-7
}
fn one() -> Real {
    1.0
}
fn yes() -> bool {
    true
}

impl PgsParams {
    /// Checks every value; the error names the field (as in RON) and what was expected.
    pub fn validate(&self) -> Result<(), ParamError> {
        iteration_limit("max_iterations", self.max_iterations)?;
        positive("tolerance", self.tolerance)?;
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(ParamError::new(
                "relaxation",
                "a relaxation factor in (0, 2)",
                self.relaxation,
            ));
        }
        Ok(())
    }
}

impl Default for PgsParams {
    fn default() -> Self {
        PgsParams {
            max_iterations: default_iters(),
            tolerance: default_tol(),
            relaxation: 1.0,
            warm_start: true,
        }
    }
}

/// Runs PGS. `lambda`: warm start in, impulses out; `v`: `v*` in, `v⁺` out.
pub fn solve<R: RowSet>(
    p: &PgsParams,
    rows: &R,
    lambda: &mut [Real],
    v: &mut [Real],
    ws: &mut Workspace,
) -> SolveInfo {
    let n = rows.len();
    if n == 0 {
        return SolveInfo {
            converged: true,
            ..Default::default()
        };
    }
    if p.warm_start {
        rows.add_minv_jt(lambda, v);
    } else {
        lambda.iter_mut().for_each(|l| *l = 0.0);
    }
    let Workspace { bufs, offsets, .. } = ws;
    let [d, w, factors, scale] = super::take(bufs, 4, n) else {
        unreachable!()
    };
    for (k, dk) in d.iter_mut().enumerate() {
        *dk = (rows.diag(k) + rows.compliance(k)).max(1e-300);
    }
    let omega = p.relaxation;
    let mut iterations = 0;
    let mut converged = false;
    let blocks = rows.blocks();
    // Factor the matrices of multi-row bilateral blocks once per solve.
    offsets.clear();
    factors.clear();
    for b in blocks {
        offsets.push(factors.len());
        if let BlockKind::Bilateral { len } = b.kind {
            if len > 1 {
                let at = factors.len();
                factors.resize(at + len * len, 0.0);
                for i in 0..len {
                    for j in 0..len {
                        let mut a = rows.coupling(b.start + i, b.start + j);
                        if i == j {
                            a += rows.compliance(b.start + i);
                        }
                        factors[at + i * len + j] = a;
                    }
                }
                cholesky_in_place(&mut factors[at..at + len * len], len);
            }
        }
    }
    for it in 0..p.max_iterations {
        iterations += 1;
        let mut max_change: Real = 0.0;
        // Symmetric Gauss–Seidel: sweep forward, then backward.
        let forward = it % 2 == 0;
        for bi in 0..blocks.len() {
            let bi = if forward { bi } else { blocks.len() - 1 - bi };
            let b = &blocks[bi];
            let k = b.start;
            let update = |k: usize, lo: Real, hi: Real, lambda: &mut [Real], v: &mut [Real]| {
                row_update(rows, d, lambda, v, omega, k, lo, hi)
            };
            let change = match b.kind {
                BlockKind::Bilateral { len: 1 } => {
                    update(k, Real::NEG_INFINITY, Real::INFINITY, lambda, v)
                }
                BlockKind::Bilateral { len } => {
                    let f = &factors[offsets[bi]..offsets[bi] + len * len];
                    block_update(rows, f, lambda, v, omega, k, len)
                }
                BlockKind::Unilateral => update(k, 0.0, Real::INFINITY, lambda, v),
                BlockKind::Friction { mu } => {
                    let normal = update(k, 0.0, Real::INFINITY, lambda, v);
                    let lim = mu * lambda[k];
                    let t1 = update(k + 1, -lim, lim, lambda, v);
                    normal.max(t1).max(update(k + 2, -lim, lim, lambda, v))
                }
            };
            max_change = max_change.max(change);
        }
        if max_change < p.tolerance {
            converged = true;
            break;
        }
    }
    // Report the same residual measure as APGD (on the box projection PGS solves).
    rows.mul_j(v, w);
    for k in 0..n {
        w[k] += rows.bias(k) + rows.compliance(k) * lambda[k];
    }
    block_scales(rows, scale);
    let res = residual_scaled(blocks, scale, lambda, w, false);
    SolveInfo {
        iterations,
        residual: res,
        converged,
    }
}

/// One projected row update; returns the velocity-scaled change `D_k |Δλ_k|`.
#[allow(clippy::too_many_arguments)]
#[inline]
fn row_update<R: RowSet>(
    rows: &R,
    d: &[Real],
    lambda: &mut [Real],
    v: &mut [Real],
    omega: Real,
    k: usize,
    lo: Real,
    hi: Real,
) -> Real {
    let w = rows.jv(k, v) + rows.bias(k) + rows.compliance(k) * lambda[k];
    let new = (lambda[k] - omega * w / d[k]).max(lo).min(hi);
    let dl = new - lambda[k];
    if dl != 0.0 {
        rows.apply(k, dl, v);
        lambda[k] = new;
    }
    d[k] * dl.abs()
}

/// In-place Cholesky factor `A = L Lᵀ` of a symmetric positive semi-definite `n × n` matrix
/// (row-major; L in the lower triangle). A pivot that vanishes (a dependent row) is set to
/// zero, and that row then gets no update.
fn cholesky_in_place(a: &mut [Real], n: usize) {
    let scale = (0..n).map(|i| a[i * n + i]).fold(0.0, Real::max);
    for j in 0..n {
        let mut s = a[j * n + j];
        for k in 0..j {
            s -= a[j * n + k] * a[j * n + k];
        }
        let pivot = if s > 1e-12 * scale { s.sqrt() } else { 0.0 };
        a[j * n + j] = pivot;
        for i in j + 1..n {
            let mut t = a[i * n + j];
            for k in 0..j {
                t -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = if pivot > 0.0 { t / pivot } else { 0.0 };
        }
    }
}

/// Exact update of a bilateral block: `Δλ = −ω A⁻¹ w` with the block's Cholesky factor.
/// Returns the largest velocity-scaled change.
fn block_update<R: RowSet>(
    rows: &R,
    f: &[Real],
    lambda: &mut [Real],
    v: &mut [Real],
    omega: Real,
    k: usize,
    n: usize,
) -> Real {
    let mut x = [0.0; MAX_BLOCK];
    for i in 0..n {
        x[i] = -(rows.jv(k + i, v) + rows.bias(k + i) + rows.compliance(k + i) * lambda[k + i]);
    }
    // Forward and back substitution with L and Lᵀ.
    for i in 0..n {
        let mut t = x[i];
        for j in 0..i {
            t -= f[i * n + j] * x[j];
        }
        x[i] = if f[i * n + i] > 0.0 {
            t / f[i * n + i]
        } else {
            0.0
        };
    }
    for i in (0..n).rev() {
        let mut t = x[i];
        for j in i + 1..n {
            t -= f[j * n + i] * x[j];
        }
        x[i] = if f[i * n + i] > 0.0 {
            t / f[i * n + i]
        } else {
            0.0
        };
    }
    let mut change: Real = 0.0;
    for i in 0..n {
        let dl = omega * x[i];
        if dl != 0.0 {
            rows.apply(k + i, dl, v);
            lambda[k + i] += dl;
        }
        change = change.max((rows.diag(k + i) + rows.compliance(k + i)) * dl.abs());
    }
    change
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block solve inverts a symmetric positive definite matrix exactly.
    #[test]
    fn cholesky_solves_a_spd_system() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let mut f = a;
        cholesky_in_place(&mut f, 3);
        let b = [1.0, -2.0, 0.5];
        // Solve L Lᵀ x = b as block_update does.
        let mut x = b;
        for i in 0..3 {
            let mut t = x[i];
            for j in 0..i {
                t -= f[i * 3 + j] * x[j];
            }
            x[i] = t / f[i * 3 + i];
        }
        for i in (0..3).rev() {
            let mut t = x[i];
            for j in i + 1..3 {
                t -= f[j * 3 + i] * x[j];
            }
            x[i] = t / f[i * 3 + i];
        }
        for i in 0..3 {
            let ax: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum();
            assert!((ax - b[i]).abs() < 1e-14, "row {i}: {ax} vs {}", b[i]);
        }
    }
}
