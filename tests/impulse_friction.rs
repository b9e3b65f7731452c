//! Coulomb friction of the impulse contact resolvers (ETI, sequential impulses) against the
//! complementarity rows: a cube on an incline slides at g (sin θ − μ cos θ) when μ < tan θ and
//! stays put when μ > tan θ, without sideways drift or spin, in 2D and 3D.

mod common;
use common::*;
use vcsim::math::Vec3;

const G: f64 = 9.81;

/// What a cube of edge 0.2 m released on a θ incline did between t = 0.5 s and 1.5 s.
struct Slide {
    /// Acceleration down the slope (m/s²).
    accel: f64,
    /// Largest speed across the slope (m/s), and the largest spin about the slope's normal
    /// (rad/s).
    sideways: f64,
    spin: f64,
    /// Displacement after 1.5 s (m).
    moved: f64,
    /// Speed down the slope at 1.5 s (m/s).
    speed: f64,
}

fn slide(planar: bool, resolver: &str, theta_deg: f64, mu: f64) -> Slide {
    let solver = "Pgs(max_iterations: 100, tolerance: 1e-10)";
    let (mut w, normal, down) = common::incline(planar, theta_deg, mu, solver, resolver);
    let across = if planar {
        Vec3::new(0.0, 0.0, 1.0)
    } else {
        Vec3::new(0.0, 1.0, 0.0)
    };
    let x0 = w.bodies[1].com();
    let (mut v1, mut v2, mut side, mut spin) = (0.0, 0.0, 0.0f64, 0.0f64);
    run_until(&mut w, 1.5, |w| {
        let b = &w.bodies[1];
        let s = b.lin_vel.dot(&down);
        if (w.time - 0.5).abs() < 1e-9 {
            v1 = s;
        }
        if (w.time - 1.5).abs() < 1e-9 {
            v2 = s;
        }
        if !planar {
            side = side.max(b.lin_vel.dot(&across).abs());
        }
        spin = spin.max(b.ang_vel.dot(&normal).abs());
    });
    Slide {
        accel: v2 - v1,
        sideways: side,
        spin,
        moved: (w.bodies[1].com() - x0).norm(),
        speed: v2,
    }
}

/// Sliding (μ < tan θ) and sticking (μ > tan θ) on two inclines with `resolver`: the
/// acceleration down the slope within 1 % of g sin θ of Coulomb's, the speed across it below
/// 1e-3 of the sliding speed, and a sticking block within 1 cm of where it was released.
fn check(planar: bool, resolver: &str) {
    for (deg, mu) in [(25.0, 0.3), (35.0, 0.5), (25.0, 0.6), (35.0, 0.8)] {
        let th = f64::to_radians(deg);
        let s = slide(planar, resolver, deg, mu);
        let exact = (G * (th.sin() - mu * th.cos())).max(0.0);
        let err = (s.accel - exact).abs() / (G * th.sin());
        eprintln!(
            "planar={planar} {resolver} θ = {deg}°, μ = {mu}: a = {:.4} m/s² (Coulomb {exact:.4}, \
             error {:.3} % of g sin θ), across {:.2e} m/s, spin {:.2e} rad/s, moved {:.2e} m",
            s.accel,
            100.0 * err,
            s.sideways,
            s.spin,
            s.moved
        );
        assert!(err < 0.01, "acceleration {} against {exact}", s.accel);
        // The incline page's bounds: 0.001 % (ETI), 0.02 % (sequential impulses).
        let bound = if resolver.starts_with("Eti") {
            1e-5
        } else {
            2e-4
        };
        assert!(
            err < bound,
            "examples/incline.md says within {} % of g sin θ; measured {:.2e} %",
            100.0 * bound,
            100.0 * err
        );
        if !planar && deg == 25.0 {
            // The page's table: 3D, θ = 25°, sliding μ = 0.3 and sticking μ = 0.6.
            let anchor = if resolver.starts_with("Eti") {
                "| ETI (λ = 30) |"
            } else {
                "| sequential impulses |"
            };
            let q = if exact > 0.0 {
                format!(
                    "| {} m/s ({} of the sliding speed) | {} rad/s |",
                    quotes::sci(s.sideways, 2),
                    quotes::sci(s.sideways / s.speed, 1),
                    quotes::sci(s.spin, 2)
                )
            } else {
                format!("| {} m |", quotes::sci(s.moved, 2))
            };
            quotes::assert_quotes("examples/incline.md", anchor, &[q]);
        }
        if exact > 0.0 {
            assert!(
                s.sideways < 1e-3 * s.speed,
                "speed across the slope {} at a sliding speed {}",
                s.sideways,
                s.speed
            );
        } else {
            assert!(s.moved < 1e-2, "a sticking block moved {} m", s.moved);
        }
    }
}

#[test]
fn eti_friction_is_coulombs_in_2d() {
    check(true, "Eti()");
}

#[test]
fn eti_friction_is_coulombs_in_3d() {
    check(false, "Eti()");
}

#[test]
fn sequential_impulse_friction_is_coulombs_in_2d() {
    check(true, "SequentialImpulse()");
}

#[test]
fn sequential_impulse_friction_is_coulombs_in_3d() {
    check(false, "SequentialImpulse()");
}
