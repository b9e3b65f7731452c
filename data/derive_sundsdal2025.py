"""Heave, sway and roll response of the 2D Lewis-form section of Sundsdal et al. (2025) in
regular waves, from the raw measurements of the dataset's repository (KRSundsdal1/
2D-ship-cross-section-in-regular-waves): a least-squares first harmonic at the wave frequency
over the steady window at the model (x = 7 m from the wavemaker), divided by the incident
amplitude measured without the model at probes 4 and 6 (x = 5.5 and 8.5 m) over the same
window.

    python data/derive_sundsdal2025.py RAW_DIR > data/sundsdal2025_rao.csv

RAW_DIR holds the dataset's folders 1PPH (waves without the model) and 3PPH (the model free in
sway, heave and roll); the header lines of the CSV are written by hand (see the file).
"""
import sys
from pathlib import Path

import numpy as np

# Index: (omega rad/s, T s, k rad/m, c_g m/s, reflection time s), the dataset's table.
WAVES = {
    1: (4.143, 1.516, 1.750, 1.184, 10.137), 2: (4.952, 1.269, 2.500, 0.990, 12.116),
    3: (5.075, 1.238, 2.625, 0.967, 12.415), 4: (5.194, 1.210, 2.750, 0.944, 12.707),
    5: (5.311, 1.183, 2.875, 0.924, 12.993), 6: (5.425, 1.158, 3.000, 0.904, 13.272),
    7: (5.646, 1.113, 3.250, 0.869, 13.814), 8: (5.860, 1.072, 3.500, 0.837, 14.335),
    9: (6.065, 1.036, 3.750, 0.809, 14.839), 10: (7.004, 0.897, 5.000, 0.700, 17.134),
    11: (7.830, 0.802, 6.250, 0.626, 19.157), 12: (8.578, 0.733, 7.500, 0.572, 20.985),
    13: (9.265, 0.678, 8.750, 0.529, 22.666), 14: (9.905, 0.634, 10.000, 0.495, 24.231),
}
X_MODEL = 7.0  # m from the wavemaker
RAMP = 5  # periods of linear ramp-up


def read(path):
    with open(path) as f:
        head = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    cols = {h.split(" [")[0].strip(): data[:, i] for i, h in enumerate(head) if h}
    return cols


def first_harmonic(t, y, w, lo, hi):
    m = (t >= lo) & (t <= hi)
    a = np.column_stack([np.cos(w * t[m]), np.sin(w * t[m]), np.ones(m.sum())])
    c, *_ = np.linalg.lstsq(a, y[m], rcond=None)
    return float(np.hypot(c[0], c[1])), int(m.sum())


def window(cols, idx):
    w, T, k, cg, refl = WAVES[idx]
    t = cols["Time"]
    wm = cols["WM_Position"] - cols["WM_Position"][: 200].mean()
    start = t[np.argmax(np.abs(wm) > 0.05 * np.abs(wm).max())]
    arrive = start + X_MODEL / cg
    return arrive + (RAMP + 1) * T, arrive + refl, start


def main(raw):
    raw = Path(raw)
    print("# index,omega,T,k,H_target,zeta_incident,heave,heave_rao,sway_rao,roll_over_k_zeta,window_start,window_end,periods,run,calibration")
    for run in sorted((raw / "3PPH").glob("3??1_*.csv")):
        idx = int(run.stem[1:3])
        w, T, k, cg, refl = WAVES[idx]
        cols = read(run)
        lo, hi, _ = window(cols, idx)
        heave, n = first_harmonic(cols["Time"], cols["Heave"], w, lo, hi)
        sway, _ = first_harmonic(cols["Time"], cols["Sway"], w, lo, hi)
        roll, _ = first_harmonic(cols["Time"], cols["Roll"], w, lo, hi)
        # The incident wave without the model, same period and height, same window at x = 7 m.
        zs = []
        for cal in sorted((raw / "1PPH").glob(f"1{idx:02d}1*.csv")):
            c = read(cal)
            clo, chi, _ = window(c, idx)
            for probe in ("WP_4", "WP_6"):
                z, _ = first_harmonic(c["Time"], c[probe], w, clo, chi)
                zs.append(z)
        zeta = float(np.mean(zs))
        print(
            f"{idx},{w},{T},{k},0.024,{zeta:.5f},{heave:.5f},{heave / zeta:.4f},{sway / zeta:.4f},"
            f"{roll / (k * zeta):.4f},{lo:.2f},{hi:.2f},{(hi - lo) / T:.1f},{run.name},{len(zs) // 2}"
        )


if __name__ == "__main__":
    main(sys.argv[1])
