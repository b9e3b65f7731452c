"""Linear potential-flow heave coefficients of the 2D section of Sundsdal et al. (2025) by a
boundary-element (source panel) method: the added mass A33(omega) (kg/m), the radiation damping
B33(omega) (N s/m^2), the undamped heave natural period, and the heave RAO they give in regular
waves. An independent reference for the section's heave, beside the measured one
(data/sundsdal2025_rao.csv): it says what an inviscid, linear fluid does with this section, so a
simulation's added mass and resonance can be checked against it without the experiment's
viscous and rig losses.

Method (per metre of length; y up, the still free surface at y = 0, deep water, time factor
exp(-i omega t), nu = omega^2 / g):

- Green's function of the linearised free-surface problem in deep water (John 1950; Wehausen &
  Laitone 1960, sec. 13), with X = x - xi, Y = y + eta < 0, r and r' the distances to the source
  and to its image above the surface:
      G = ln r - ln r' - 2 PV int_0^inf exp(kY) cos(kX) / (k - nu) dk - 2 pi i exp(nu Y) cos(nu X),
  and the principal value in closed form, with z = nu (Y + i |X|):
      PV int = Re(exp(z) E1(z)) - pi Im(exp(z)).
  (Checked against direct quadrature with a Cauchy weight when this script is run with --check.)
  G satisfies G_y - nu G = 0 on y = 0 and radiates outgoing waves.
- Constant-strength source panels on the wetted contour, collocated at the panels' midpoints:
  pi sigma_i + sum_j sigma_j int_j dG/dn_i ds = n_y,i (unit heave velocity; n out of the body),
  phi_i = sum_j sigma_j int_j G ds (16-point Gauss on each panel; the self panel's ln r
  analytically), and the force -i omega rho int phi n_y ds = (i omega A33 - B33) per unit
  velocity.
- Checks (--check): the closed-form principal value against quadrature (six digits); a
  half-immersed circle of radius R tends to its exact high-frequency limit rho pi R^2 / 2
  (0.995 of it at nu R = 50; 0.65 / 0.61 / 0.67 of it at nu R = 0.5 / 1 / 1.5, the problem
  Ursell 1949 solved); the damping from the pressure equals the energy the far-field waves
  carry away, rho g^2 |A_r|^2 / omega, to 0.5 % (circle and section); 120 and 200 panels
  agree to 0.2 %.
- The RAO: (C - omega^2 (m + A33)) s + i omega (B33 + B_rig) s = X, with C = rho g B_w and the
  exciting force from Haskind's relation for a symmetric 2D section, |X / zeta|^2 =
  2 rho g c_g B33 (as in data/derive_sundsdal2025_damping.py), c_g = g / (2 omega).

Section (data/sundsdal2025_rao.csv's header): beam 0.40 m, bilge radius 0.0512 m, 46.8 kg over
0.586 m = 79.86 kg/m, hence a draft of 0.2025 m (area 0.4 d - 2 (1 - pi/4) r^2); the rig's dry
damping 8.70 N s/m over 0.586 m. The flume is 1.0 m deep: kh = 2.6-6.3 at these periods, where
deep water's coefficients differ from the finite depth's by about 1 %.

    python data/derive_sundsdal2025_bem.py            # prints data/sundsdal2025_bem.csv's rows
    python data/derive_sundsdal2025_bem.py --check    # the checks above

Needs numpy and scipy.
"""
import sys

import numpy as np
from scipy.special import exp1

RHO, G = 1000.0, 9.81
BEAM, BILGE, MASS = 0.40, 0.0512, 46.8 / 0.586
DRAFT = (MASS / RHO + 2 * (1 - np.pi / 4) * BILGE**2) / BEAM
B_RIG = 8.70 / 0.586
PERIODS = [1.396, 1.300, 1.257, 1.238, 1.210, 1.180, 1.158, 1.100, 1.047, 1.000, 0.950, 0.897,
           0.850, 0.802]


def section(n=200):
    """The wetted contour's n + 1 points, from the right waterline down, under the keel and up
    to the left waterline, clustered towards the waterlines (m)."""
    l1, l2, l3 = DRAFT - BILGE, np.pi * BILGE / 2, BEAM / 2 - BILGE
    total = 2 * (l1 + l2 + l3)

    def point(u):
        if u > total / 2:
            x, y = point(total - u)
            return -x, y
        if u <= l1:
            return BEAM / 2, -u
        u -= l1
        if u <= l2:
            a = u / BILGE
            return BEAM / 2 - BILGE + BILGE * np.cos(a), -(DRAFT - BILGE) - BILGE * np.sin(a)
        return BEAM / 2 - BILGE - (u - l2), -DRAFT

    s = total * (1 - np.cos(np.pi * np.linspace(0, 1, n + 1))) / 2
    return np.array([point(u) for u in s])


def green(px, py, qx, qy, nu):
    """G at field points p from sources q (arrays broadcast), complex."""
    x, y = px - qx, py + qy
    z = nu * (y + 1j * np.abs(x))
    ez = np.exp(z)
    pv = np.real(ez * exp1(z)) - np.pi * np.imag(ez)
    return (np.log(np.hypot(x, py - qy)) - np.log(np.hypot(x, py + qy)) - 2 * pv
            - 2j * np.pi * np.exp(nu * y) * np.cos(nu * x))


def panels(pts, ng=16):
    """Midpoints, unit tangents, normals (out of the body), lengths, Gauss points and weights."""
    mid = 0.5 * (pts[:-1] + pts[1:])
    t = pts[1:] - pts[:-1]
    length = np.hypot(t[:, 0], t[:, 1])
    t = t / length[:, None]
    n = np.stack([-t[:, 1], t[:, 0]], 1)
    xg, wg = np.polynomial.legendre.leggauss(ng)
    qx = mid[:, 0][None, :, None] + 0.5 * length[None, :, None] * t[:, 0][None, :, None] * xg
    qy = mid[:, 1][None, :, None] + 0.5 * length[None, :, None] * t[:, 1][None, :, None] * xg
    w = 0.5 * length[None, :, None] * wg
    return mid, n, length, qx, qy, w, xg, wg


def heave(pts, omega):
    """(A33 in kg/m, B33 in N s/m^2, source strengths, panels) of the contour at omega."""
    nu = omega * omega / G
    mid, n, length, qx, qy, w, xg, wg = panels(pts)
    px, py = mid[:, 0][:, None, None], mid[:, 1][:, None, None]
    eps = 1e-7
    gx = (green(px + eps, py, qx, qy, nu) - green(px - eps, py, qx, qy, nu)) / (2 * eps)
    gy = (green(px, py + eps, qx, qy, nu) - green(px, py - eps, qx, qy, nu)) / (2 * eps)
    dn = ((gx * n[:, 0][:, None, None] + gy * n[:, 1][:, None, None]) * w).sum(2)
    s = (green(px, py, qx, qy, nu) * w).sum(2)
    k = np.arange(len(mid))
    half = np.abs(0.5 * length[:, None] * xg[None, :])
    s[k, k] += length * (np.log(length / 2) - 1) - (np.log(half) * 0.5 * length[:, None] * wg).sum(1)
    dn[k, k] += np.pi
    sigma = np.linalg.solve(dn, n[:, 1].astype(complex))
    f = ((s @ sigma) * n[:, 1] * length).sum()
    return -RHO * f.real, omega * RHO * abs(f.imag), sigma, (qx, qy, w)


def rao(omega, a33, b33, rig=B_RIG):
    """Heave amplitude over the incident wave's (m/m)."""
    c = RHO * G * BEAM
    x = np.sqrt(2 * RHO * G * (G / (2 * omega)) * b33)
    return x / np.hypot(c - omega**2 * (MASS + a33), omega * (b33 + rig))


def natural_period(pts):
    """The undamped heave natural period (s): omega^2 (m + A33(omega)) = rho g B_w."""
    omega = 5.4
    for _ in range(30):
        a33 = heave(pts, omega)[0]
        omega = np.sqrt(RHO * G * BEAM / (MASS + a33))
    return 2 * np.pi / omega, a33


def check():
    from scipy.integrate import quad

    nu = 2.0
    for x, y in [(0.3, -0.2), (-0.7, -0.05), (1.5, -0.4), (0.0, -0.1)]:
        f = lambda k: np.exp(k * y) * np.cos(k * x)
        direct = (quad(f, 0, 2 * nu, weight="cauchy", wvar=nu, limit=400)[0]
                  + quad(lambda k: f(k) / (k - nu), 2 * nu, np.inf, limit=800)[0])
        z = nu * (y + 1j * abs(x))
        closed = np.real(np.exp(z) * exp1(z)) - np.pi * np.imag(np.exp(z))
        print(f"PV integral at X {x}, Y {y}: quadrature {direct:.6f}, closed form {closed:.6f}")
    r = 0.2
    th = np.linspace(0, np.pi, 201)
    circle = np.stack([r * np.cos(th), -r * np.sin(th)], 1)
    for name, pts in [("half circle R 0.2 m", circle), ("section", section())]:
        for nur in [0.5, 1.0, 1.5, 5.0, 50.0]:
            omega = np.sqrt(nur / r * G)
            a33, b33, sigma, (qx, qy, w) = heave(pts, omega)
            nu = omega**2 / G
            far = -2j * np.pi * (sigma[None, :, None] * np.exp(nu * qy) * np.exp(-1j * nu * qx) * w).sum()
            b_far = RHO * G * G * (omega / G * abs(far)) ** 2 / omega
            print(f"{name}, nu R {nur}: A33 / (rho pi R^2 / 2) {a33 / (RHO * np.pi * r * r / 2):.3f}, "
                  f"B33 {b33:.2f}, from the far field {b_far:.2f} N s/m^2")
    for n in [120, 200]:
        a33, b33 = heave(section(n), 5.37)[:2]
        print(f"section, {n} panels, omega 5.37: A33 {a33:.2f} kg/m, B33 {b33:.2f} N s/m^2")


def main():
    if "--check" in sys.argv:
        return check()
    pts = section()
    t_n, a_n = natural_period(pts)
    print(f"# draft {DRAFT:.4f} m; undamped heave natural period {t_n:.4f} s (A33 {a_n:.1f} kg/m)")
    print("T,omega,a33,b33,heave_rao,heave_rao_no_rig")
    for t in PERIODS:
        omega = 2 * np.pi / t
        a33, b33 = heave(pts, omega)[:2]
        print(f"{t:.3f},{omega:.4f},{a33:.2f},{b33:.2f},{rao(omega, a33, b33):.4f},"
              f"{rao(omega, a33, b33, 0.0):.4f}")


if __name__ == "__main__":
    main()
