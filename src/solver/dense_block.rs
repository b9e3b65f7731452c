//! Bilateral blocks solved exactly inside a PGS sweep: the dense matrix `A = J M⁻¹ Jᵀ + E` of
//! each multi-row bilateral block (one joint's rows, or a chain of joints such as a beam's
//! hinges), its Cholesky factor once per solve, and the exact block update `Δλ = −ω A⁻¹ w`.

use super::{BlockKind, RowSet, MAX_BLOCK};
use crate::math::Real;

/// Factors the matrices of multi-row bilateral blocks (once per solve): block `b`'s factor is
/// `factors[offsets[b]..]` (both empty when no block has several rows).
pub(super) fn factor_blocks<R: RowSet>(
    rows: &R,
    blocks: &[super::Block],
    offsets: &mut Vec<usize>,
    factors: &mut Vec<Real>,
) {
    offsets.clear();
    factors.clear();
    // (No block of several rows, as in a fluid's rows: no offsets either, 8 bytes per block.)
    if !blocks
        .iter()
        .any(|b| matches!(b.kind, BlockKind::Bilateral { len } if len > 1))
    {
        return;
    }
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
pub(super) fn block_update<R: RowSet>(
    rows: &R,
    f: &[Real],
    lambda: &mut [Real],
    v: &mut [Real],
    omega: Real,
    k: usize,
    n: usize,
) -> Real {
    if n > MAX_BLOCK {
        // A chain's block: scratch of this thread (no allocation once it has grown).
        return LONG_BLOCK.with(|x| {
            let mut x = x.borrow_mut();
            x.resize(n, 0.0);
            solve_block(rows, f, lambda, v, omega, k, &mut x[..n])
        });
    }
    let mut x = [0.0; MAX_BLOCK];
    solve_block(rows, f, lambda, v, omega, k, &mut x[..n])
}

thread_local! {
    /// Scratch of [`block_update`] for blocks longer than [`MAX_BLOCK`].
    static LONG_BLOCK: std::cell::RefCell<Vec<Real>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`block_update`] with the scratch `x` of the block's length.
fn solve_block<R: RowSet>(
    rows: &R,
    f: &[Real],
    lambda: &mut [Real],
    v: &mut [Real],
    omega: Real,
    k: usize,
    x: &mut [Real],
) -> Real {
    let n = x.len();
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
