"""Heave damping ratio of the 2D section of Sundsdal et al. (2025) from its measured heave
response at resonance (data/sundsdal2025_rao.csv) and its measured heave natural period.

The section's heave in regular beam-sea waves is a linear oscillator, per metre of length:

    (M) s'' + (B_rad + B_rig) s' + C s = X e^{i omega t},

C = rho g B_w (waterplane beam B_w = 0.40 m), M = m + A33 = C / omega_n^2 with omega_n = 2 pi / T_n
from the decay tests (T_n = 1.17 s), B_rig the rig's dry damping (8.70 N s/m over the model's
0.586 m, measured by the authors), B_rad the wave radiation damping. Energy conservation and
Haskind's relation in two dimensions give the exciting force of a symmetric section from its own
radiation damping: |X / zeta|^2 = 2 rho g c_g B_rad (Newman 1962; Newman, Marine Hydrodynamics,
1977, sec. 6.19: the power radiated to both sides, rho g |A|^2 c_g, equals the work of the
damping force). Hence

    RAO(omega) = sqrt(2 rho g c_g B_rad) / sqrt((C - omega^2 M)^2 + omega^2 (B_rad + B_rig)^2),

and B_rad is the least-squares fit of this to the heave RAOs measured near resonance (omega =
5.075, 5.194, 5.425 rad/s; M and B_rad taken as constant over that band). The damping ratio a
2D simulation without the rig should show is zeta = B_rad / (2 M omega_n).

    python data/derive_sundsdal2025_damping.py

prints the fit, each point's own B_rad (their spread is the reference's uncertainty) and zeta.
"""
import csv
import math
from pathlib import Path

RHO, G = 1000.0, 9.81
B_W = 0.40  # waterplane beam (m)
T_N = 1.17  # heave natural period from the decay tests (s)
B_RIG = 8.70 / 0.586  # rig's dry damping per metre of model length (N s/m^2)
# Group velocity (m/s) at each frequency, the dataset's table (deep water: g / (2 omega)).
C_G = {3: 0.967, 4: 0.944, 6: 0.904}


def rao(omega, cg, b_rad, m, c):
    return math.sqrt(2 * RHO * G * cg * b_rad) / math.hypot(
        c - omega * omega * m, omega * (b_rad + B_RIG))


def solve_point(omega, cg, r, m, c):
    """The larger root B_rad of rao(B_rad) = r (the RAO rises, then falls, with B_rad)."""
    b_peak = B_RIG  # d rao / d B_rad = 0 at resonance when B_rad = B_rig
    lo, hi = max(b_peak, 1e-6), 1e5
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rao(omega, cg, mid, m, c) > r else (lo, mid)
    return 0.5 * (lo + hi)


def main():
    c = RHO * G * B_W
    omega_n = 2 * math.pi / T_N
    m = c / omega_n ** 2
    path = Path(__file__).with_name("sundsdal2025_rao.csv")
    rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("#"))]
    head, rows = rows[0], rows[1:]
    pts = [(float(r[head.index("omega")]), C_G[int(r[0])], float(r[head.index("heave_rao")]))
           for r in rows if int(r[0]) in C_G]
    # Least squares over B_rad: golden-section search of the summed squared RAO misfit.
    f = lambda b: sum((rao(w, cg, b, m, c) - r) ** 2 for w, cg, r in pts)
    lo, hi = 50.0, 1000.0
    for _ in range(200):
        a, b = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        lo, hi = (lo, b) if f(a) < f(b) else (a, hi)
    b_rad = 0.5 * (lo + hi)
    print(f"C = {c:.1f} N/m^2, M = m + A33 = {m:.2f} kg/m (A33 / m = {m / 79.86 - 1:.3f})")
    for w, cg, r in pts:
        b = solve_point(w, cg, r, m, c)
        print(f"omega {w:.3f} rad/s, RAO {r:.4f}: B_rad {b:.1f} N s/m^2, zeta {b / (2 * m * omega_n):.4f}")
    print(f"fit: B_rad {b_rad:.1f} N s/m^2, zeta {b_rad / (2 * m * omega_n):.4f}")


if __name__ == "__main__":
    main()
