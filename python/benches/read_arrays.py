"""What reading the fluid's arrays costs against a step: the 2D dam break of 20 000
particles (models/dam_break_2d_20k_pgs.ron, its own solver and time step).

    python python/benches/read_arrays.py [--threads N] [--steps N]

Prints the median wall time of a step and of each read (a new array, and `out=` into an
array of one's own), and each read as a share of a step. Issue 54's target: positions in
under 1 % of a step.
"""

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import vcsim

MODEL = Path(__file__).resolve().parents[2] / "models" / "dam_break_2d_20k_pgs.ron"


def median_time(f, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--threads", type=int, default=2)
    a.add_argument("--steps", type=int, default=40)
    args = a.parse_args()
    sim = vcsim.load(MODEL).build(threads=args.threads)
    n = sim.particles
    sim.step(5)  # past the first steps' set-up
    step = median_time(sim.step, args.steps)
    buf3 = np.empty((n, 3))
    buf1 = np.empty(n)
    reads = {
        "fluid_positions()": sim.fluid_positions,
        "fluid_positions(out=)": lambda: sim.fluid_positions(out=buf3),
        "fluid_velocities()": sim.fluid_velocities,
        "fluid_pressures(out=)": lambda: sim.fluid_pressures(out=buf1),
        "body('floor')": lambda: sim.body(sim.body_names[0]),
    }
    print(f"{MODEL.name}: {n} particles, {args.threads} threads, vcsim {vcsim.__version__}")
    print(f"  step                    {step * 1e3:9.3f} ms (median of {args.steps})")
    for name, f in reads.items():
        t = median_time(f, 200)
        print(f"  {name:<23} {t * 1e3:9.3f} ms  {100 * t / step:6.2f} % of a step")


if __name__ == "__main__":
    main()
