"""The book's Python page: the tutorial's wooden box dropped into water, held by a controller
written in Python, let go, and measured, with a figure drawn in matplotlib from the arrays read back.

Run from anywhere, after `pip install ./python` and `pip install matplotlib`:

    python book/src/python/box_in_water.py --out box_in_water.png
"""

import argparse
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt
import numpy as np

import vcsim

ROOT = Path(__file__).resolve().parents[3]
END = 1.6  # s
HOLD = 1.0  # s: a controller written in Python holds the box until then, then lets go
OMEGA = 10.0  # rad/s: the controller's stiffness, m ω²


def main():
    a = argparse.ArgumentParser(description="the book's Python example")
    a.add_argument("--out", default="box_in_water.png", help="the figure (PNG)")
    a.add_argument("--threads", type=int, default=None)
    args = a.parse_args()

    # 1. Load the model and change it before it is built: fields by path, as in a study.
    model = vcsim.load(ROOT / "models" / "box_into_water_2d.ron")
    model.set("time.end", END)
    print("time step", model.get("time.dt"), "s; box density", model.get("materials[wood].density"))

    # 2. Build the world (the CLI's checks run at every step) and step it from Python. Until
    # HOLD a PID controller on an applied force holds the box where Archimedes says it
    # floats (its centre at the raised water level: its draft is half its 0.2 m height);
    # the force it needs there is the weight the water does not carry.
    sim = model.build(threads=args.threads)
    mass = sim.body("box")["mass"]  # kg (2D: per the model's thickness)
    g = 9.81
    rest = 0.4 + 0.2 * 0.1 / 1.2  # m: the level rises by the displaced area over the width
    t, y, force = [], [], []
    integral = 0.0
    start = time.perf_counter()
    while sim.steps < round(END / sim.dt):
        b = sim.body("box")
        error = rest - b["position"][1]
        if abs(error) < 0.01:  # the integral term acts near the target only (no wind-up)
            integral += error * sim.dt
        f = 0.0
        if sim.time < HOLD:
            f = mass * (OMEGA**2 * error - 2.0 * OMEGA * b["velocity"][1] + OMEGA**3 / 2 * integral)
        sim.set_force("box", (0.0, f, 0.0))
        sim.step()
        t.append(sim.time)
        y.append(sim.body("box")["position"][1])
        force.append(f / (mass * g))
    wall = time.perf_counter() - start
    t, y, force = np.array(t), np.array(y), np.array(force)

    # 3. Read the fluid as numpy arrays (particle-id order, SI units).
    x = sim.fluid_positions()  # m, (particles, 3)
    p = sim.fluid_pressures()  # Pa
    probes = sim.probes()  # the model's probes at its output times

    held = (t > HOLD - 0.3) & (t < HOLD)
    print(f"{sim.steps} steps in {wall:.1f} s; {sim.particles} particles")
    print(f"holding force over the last 0.3 s of the hold: {force[held].mean():+.3f} of the weight")
    late = (t > 0.5) & (t < HOLD)
    print(f"box centre held from 0.5 s: {y[late].min():.4f} to {y[late].max():.4f} m")
    print(f"box centre after release: {y[t > HOLD].min():.4f} to {y[t > HOLD].max():.4f} m (Archimedes {rest:.4f} m)")
    print(f"largest compression {probes['max_compression'].max():.2%}")

    # 4. Plot: the box's height and the controller's force, and the particles by pressure.
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), width_ratios=[1, 1.3])
    left.plot(t, y, label="box centre height (m)")
    left.axhline(rest, color="grey", ls="--", lw=1, label="Archimedes")
    left.axvspan(0.0, HOLD, color="orange", alpha=0.15, label="held from Python")
    left.set_xlabel("t (s)")
    left.set_ylabel("height (m)")
    left.legend(loc="upper right", fontsize=8)
    twin = left.twinx()
    twin.plot(t, force, color="tab:red", lw=0.8)
    twin.set_ylabel("controller force / weight", color="tab:red")
    sc = right.scatter(x[:, 0], x[:, 1], c=p / 1000.0, s=3, cmap="viridis")
    b = sim.body("box")
    w, _, _, qz = b["orientation"]
    a = 2.0 * np.arctan2(qz, w)
    corners = np.array([[-0.1, -0.1], [0.1, -0.1], [0.1, 0.1], [-0.1, 0.1], [-0.1, -0.1]])
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    box = corners @ rot.T + b["position"][:2]
    right.fill(box[:, 0], box[:, 1], color="saddlebrown")
    right.set_aspect("equal")
    right.set_xlabel("x (m)")
    right.set_ylabel("y (m)")
    right.set_title(f"t = {sim.time:.2f} s")
    fig.colorbar(sc, ax=right, label="pressure (kPa)")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("figure", args.out)


if __name__ == "__main__":
    main()
