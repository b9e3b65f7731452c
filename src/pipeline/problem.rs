//! The last step's constraint problem, assembled, for analysis: spectra of the operator per row
//! family, solver experiments outside the step (`examples/spectrum.rs`). Not used by the step.
//!
//! With the notation of [`crate::solver`]: the solve finds λ with `w = N λ + r`, where
//! `N = J M⁻¹ Jᵀ + E` (m/s per N·s, i.e. 1/kg) and `r = J v* + b` (m/s, the row velocities at
//! λ = 0). `N` is formed column by column from the rows' two products, `n` products of `n` rows
//! each: meant for scenes of up to about 10⁴ rows.

use super::World;
use crate::math::Real;
use crate::solver::{BlockKind, RowSet, RowStack};

/// The constraint problem of the last step (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct Problem {
    /// Row groups in stack order: name, first row, number of rows ([`crate::constraints::RowFamily::groups`]: the
    /// density family is split into its fluid rows and its wall rows).
    pub groups: Vec<(&'static str, usize, usize)>,
    /// `N` as `(row, column, value)` triplets of its non-zero entries, column by column (1/kg).
    pub operator: Vec<(usize, usize, Real)>,
    /// `r = J v* + b` per row (m/s).
    pub r: Vec<Real>,
    /// The impulses the solve returned, per row (N·s).
    pub lambda: Vec<Real>,
    /// Whether each row is unilateral (λ ≥ 0; a friction block's normal row counts), else
    /// bilateral or a tangential friction row.
    pub unilateral: Vec<bool>,
}

impl World {
    /// The constraint problem of the last step, assembled (call after [`World::step`]). The
    /// rows are read from the row families as the step left them: with the constraint method's
    /// density projection on, its density rows were rebuilt for the projection after the
    /// solve in a step that projected, so turn the projection off (`max_sweeps: 0`) to analyse a step's solve.
    pub fn last_problem(&self) -> Problem {
        let s = &self.scratch;
        let (families, nfam) =
            super::families(&s.body_rows, &*self.fluid_method, self.fluid.is_some());
        let families = &families[..nfam];
        let sets: Vec<&dyn RowSet> = families.iter().map(|f| *f as &dyn RowSet).collect();
        let mut blocks = Vec::new();
        let rows = RowStack::new(&sets, &mut blocks);
        let (n, ndof) = (rows.len(), s.v.len());
        if s.lambda.len() != n {
            return Problem::default();
        }
        let mut groups = Vec::new();
        let mut start = 0;
        for f in families {
            f.groups(&mut |name, len| {
                groups.push((name, start, len));
                start += len;
            });
        }
        let mut unilateral = vec![false; n];
        for b in rows.blocks() {
            match b.kind {
                BlockKind::Unilateral | BlockKind::Friction { .. } => unilateral[b.start] = true,
                BlockKind::Bilateral { .. } => {}
            }
        }
        let (mut u, mut col) = (vec![0.0; ndof], vec![0.0; n]);
        let mut operator = Vec::new();
        let mut n_lambda = vec![0.0; n];
        for k in 0..n {
            u.iter_mut().for_each(|e| *e = 0.0);
            rows.apply(k, 1.0, &mut u);
            rows.mul_j(&u, &mut col);
            col[k] += rows.compliance(k);
            for (l, &c) in col.iter().enumerate().filter(|(_, c)| **c != 0.0) {
                operator.push((l, k, c));
                n_lambda[l] += c * s.lambda[k];
            }
        }
        // v holds v⁺ = v* + M⁻¹ Jᵀ λ: r = J v⁺ + b + E λ − N λ.
        let mut r = vec![0.0; n];
        rows.mul_j(&s.v, &mut r);
        for (k, rk) in r.iter_mut().enumerate() {
            *rk += rows.bias(k) + rows.compliance(k) * s.lambda[k] - n_lambda[k];
        }
        Problem {
            groups,
            operator,
            r,
            lambda: s.lambda.clone(),
            unilateral,
        }
    }
}
