//! What ISPH reports beyond any sub-stepping method: a pressure solve that failed stops the run
//! ([`super::ppe::failed`]).

use super::ppe;
use crate::fluid::method::SubStepInfo;
use crate::interrupt::Abort;
use crate::math::Real;

/// The cap message when a pressure solve of the step from `t` (s) failed ([`ppe::failed`]; the
/// run stops with exit 3).
pub(super) fn solve_failure(info: &SubStepInfo, t: Real) -> Option<Abort> {
    ppe::failed(info.solve_residual).then(|| Abort::Cap {
        what: format!(
            "a pressure solve in the step from t = {t:.6} s ended at a relative residual of \
             {:.1e} ({} conjugate-gradient iterations in the step; a converged solve ends \
             below {:.0e}), so its pressures are no solution",
            info.solve_residual,
            info.solve_iterations,
            ppe::CG_TOLERANCE,
        ),
        field: "fluid.method: Isph(solver)",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pressure solve that ends far from its tolerance stops the step with a message that
    /// names the residual, the time and the field; one at the tolerance does not. (The solve
    /// that broke down in the refined sloshing tank ended at 3.4e7.)
    #[test]
    fn a_failed_pressure_solve_stops_the_step() {
        for (residual, stops) in [
            (1e-9, false),
            (5e-5, false),
            (3.4e7, true),
            (Real::NAN, true),
        ] {
            let info = SubStepInfo {
                substeps: 3,
                solve_residual: residual,
                solve_iterations: 280,
                cut: false,
            };
            match solve_failure(&info, 3.114) {
                Some(Abort::Cap { what, field }) => {
                    assert!(stops, "stopped at residual {residual}: {what}");
                    assert!(what.contains("t = 3.114000 s") && what.contains("280 conjugate"));
                    assert!(
                        what.contains(&format!("residual of {residual:.1e}")),
                        "{what}"
                    );
                    assert_eq!(field, "fluid.method: Isph(solver)");
                }
                other => assert!(!stops && other.is_none(), "residual {residual}: {other:?}"),
            }
        }
    }
}
