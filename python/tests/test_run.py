"""Stepping from Python against the CLI: the same probes to the last digit, the same files
byte for byte, checkpoints that either side resumes, a controller through applied forces,
the fluid's arrays."""

import filecmp
import math
import os

import numpy as np
import pytest

import vcsim
from conftest import REPO, cli

DAM = REPO / "models" / "dam_break_2d_apgd.ron"
END = 0.05  # s: 100 steps of the 2D dam break, on its output grid (every 0.005 s)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """The CLI's run of the 2D dam break to END, uninterrupted."""
    out = tmp_path_factory.mktemp("cli") / "run"
    cli("run", DAM, "--out", out, "--end", END, "--quiet")
    return out


def output_files(d):
    """The run's output files a session writes too (not the CLI's summary, plot, checkpoint)."""
    skip = {"summary.txt", "plot.png", "checkpoint.bin"}
    return sorted(
        str(p.relative_to(d)) for p in d.rglob("*") if p.is_file() and p.name not in skip
    )


def same_files(a, b):
    names = output_files(a)
    assert names == output_files(b)
    assert len(names) > 5
    match, mismatch, errors = filecmp.cmpfiles(a, b, names, shallow=False)
    assert mismatch == [] and errors == [], (mismatch, errors)


def dam_break(tmp_path=None, **kw):
    m = vcsim.load(DAM)
    m.set("time.end", END)
    return m.build(**kw) if tmp_path is None else m.build(out=tmp_path, **kw)


def test_probes_equal_the_cli_csv_to_the_last_digit(cli_run):
    sim = dam_break()
    sim.run(END)
    assert sim.steps == round(END / sim.dt)
    p = sim.probes()
    lines = (cli_run / "probes.csv").read_text().splitlines()
    header = lines[0].split(",")
    assert header == ["t"] + sim.probe_columns
    rows = [list(map(str, r.split(","))) for r in lines[1:]]
    assert len(rows) == len(p["t"]) == 11
    for k, name in enumerate(header):
        col = p[name]
        for r, v in zip(rows, col):
            text = r[k]
            # The CSV's digits are the Python value's, rounded as the CSV writes them.
            digits = len(text.split("e")[0].split(".")[1]) if "." in text else 0
            fmt = f"{{:.{digits}e}}" if "e" in text else f"{{:.{digits}f}}"
            assert float(fmt.format(v)) == float(text), (name, v, text)


def test_stepping_writes_the_cli_files_byte_for_byte(cli_run, tmp_path):
    sim = dam_break(tmp_path / "py")
    for _ in range(round(END / sim.dt)):
        sim.step()
    same_files(cli_run, tmp_path / "py")


def test_a_checkpoint_resumed_from_python_gives_the_cli_bytes(cli_run, tmp_path):
    out = tmp_path / "py"
    sim = dam_break(out)
    sim.run(END / 2 + 0.0015)  # between output times: nothing off the grid is written
    path = sim.save_checkpoint()
    assert path == out / "checkpoint.bin" or str(path) == str(out / "checkpoint.bin")
    sim.run(END / 2 + 0.004)  # written after the checkpoint: cut back on resume
    del sim
    again = vcsim.resume(out)
    assert again.time == pytest.approx(END / 2 + 0.0015, abs=1e-12)
    assert len(again.probes()["t"]) == 6
    again.run(END)
    same_files(cli_run, out)


def test_the_cli_resumes_a_python_checkpoint_and_python_a_cli_one(cli_run, tmp_path):
    out = tmp_path / "py"
    sim = dam_break(out)
    sim.run(0.02)
    sim.save_checkpoint(end=END)
    cli("run", "--resume", out, "--quiet")
    same_files(cli_run, out)
    # A CLI run stopped at 0.02 s with its checkpoint, finished from Python.
    half = tmp_path / "cli"
    cli("run", DAM, "--out", half, "--end", 0.02, "--checkpoint-every", 0.02, "--quiet")
    sim = vcsim.resume(half)
    sim.run(END)
    same_files(cli_run, half)


def test_a_checkpoint_without_outputs_resumes_the_state(tmp_path):
    a = dam_break()
    a.run(0.01)
    a.save_checkpoint(tmp_path / "ck")
    a.run(0.02)
    b = vcsim.resume(tmp_path / "ck")
    b.run(0.02)
    assert np.array_equal(a.fluid_positions(), b.fluid_positions())
    assert np.array_equal(a.fluid_velocities(), b.fluid_velocities())
    with pytest.raises(ValueError, match="before the current time"):
        b.run(0.01)


def test_fluid_arrays_are_in_particle_id_order_and_fill_out_arrays():
    sim = dam_break(threads=1)
    x0 = sim.fluid_positions()
    n = sim.particles
    assert x0.shape == (n, 3) and x0.dtype == np.float64 and x0.flags.c_contiguous
    sim.run(0.01)
    x1 = sim.fluid_positions()
    v1 = sim.fluid_velocities()
    # Row i is particle i at every step: no particle moves more than v dt per step.
    assert np.max(np.linalg.norm(x1 - x0, axis=1)) < 0.01 * 3.0
    assert np.all(np.isfinite(v1))
    buf = np.empty((n, 3))
    assert sim.fluid_positions(out=buf) is buf
    assert np.array_equal(buf, x1)
    rho = sim.fluid_densities()
    p = sim.fluid_pressures()
    assert rho.shape == p.shape == (n,)
    # The densities are those the guard reads: the largest is the compression probe's.
    assert rho.max() == pytest.approx(1000.0 * (1.0 + sim.sample()["max_compression"]), rel=1e-12)
    assert rho.min() > 500.0  # free-surface particles miss neighbours; none is missing most
    assert np.all(p >= 0.0)
    with pytest.raises(ValueError, match="shape"):
        sim.fluid_positions(out=np.empty((n, 2)))
    with pytest.raises(ValueError, match="shape"):
        sim.fluid_positions(out=np.empty((n + 1, 3)))


def test_threads_give_the_same_run():
    a = dam_break(threads=1)
    b = dam_break(threads=2)
    a.run(0.01)
    b.run(0.01)
    assert np.array_equal(a.fluid_positions(), b.fluid_positions())


def test_an_output_folder_with_files_is_refused(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(ValueError, match="already holds files"):
        dam_break(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"


BOX = """Model(
    time: (dt: 0.002, end: 5.0),
    bodies: [
        (name: "box", shape: Cuboid(half_extents: (0.1, 0.1, 0.1)), position: (0, 0, 0.5)),
    ],
    output: (every: 0.01, vtk: false, plot: false),
    probes: [Position("box")],
)"""


def test_a_python_controller_holds_a_body_at_a_height():
    """A PD controller on the applied force holds a falling 8 kg box at 1 m."""
    sim = vcsim.loads(BOX, "box.ron").build()
    mass = sim.body("box")["mass"]
    assert mass == pytest.approx(8.0)
    g = 9.81
    omega = 4.0  # rad/s: critically damped, settles in about 2 s
    target = 1.0
    for _ in range(round(4.0 / sim.dt)):
        s = sim.body("box")
        z, vz = s["position"][2], s["velocity"][2]
        f = mass * (g + omega**2 * (target - z) - 2.0 * omega * vz)
        sim.set_force("box", (0.0, 0.0, f))
        sim.step()
    s = sim.body("box")
    assert abs(s["position"][2] - target) < 1e-3
    assert abs(s["velocity"][2]) < 1e-3
    # The probes saw it: it rose from 0.5 m and stayed within 1 mm over the last second.
    p = sim.probes()
    z = p["box.pos.z"]
    assert z[0] == pytest.approx(0.5)
    assert np.all(np.abs(z[p["t"] > 3.0] - target) < 1e-3)
    # Without the force it falls freely.
    sim.set_force("box", (0.0, 0.0, 0.0))
    t0, s0 = sim.time, sim.body("box")
    z0, v0 = s0["position"][2], s0["velocity"][2]
    sim.run(sim.time + 0.5)
    # Semi-implicit Euler: after n steps z = z0 + v0 n dt - g dt² n (n + 1) / 2.
    n, dt = 250, sim.dt
    fall = z0 + v0 * n * dt - g * dt**2 * n * (n + 1) / 2
    assert sim.body("box")["position"][2] == pytest.approx(fall, abs=1e-9)
    assert sim.time == pytest.approx(t0 + 0.5)


def test_bad_forces_and_names_are_refused():
    sim = vcsim.loads(BOX, "box.ron").build()
    with pytest.raises(ValueError, match="finite"):
        sim.set_force("box", (0.0, math.nan, 0.0))
    with pytest.raises(ValueError, match="finite"):
        sim.set_velocity("box", (1e308 * 10, 0.0, 0.0))
    with pytest.raises(KeyError, match="no body is named"):
        sim.set_force("nobody", (0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match="no fluid"):
        sim.fluid_positions()
    with pytest.raises(ValueError):
        sim.run(math.nan)
    with pytest.raises(ValueError):
        vcsim.loads(BOX).build(threads=0)


def test_a_kinematic_body_moves_as_told():
    text = BOX.replace('(name: "box",', '(name: "box", kind: Kinematic,')
    sim = vcsim.loads(text, "kin.ron").build()
    sim.set_velocity("box", (0.5, 0.0, 0.0))
    sim.run(1.0)
    assert sim.body("box")["position"][0] == pytest.approx(0.5, abs=1e-9)
    assert sim.body("box")["position"][2] == pytest.approx(0.5, abs=1e-9)


def test_a_run_that_leaves_its_bounds_raises_run_error(tmp_path):
    m = vcsim.load(DAM)
    m.set("time.dt", 0.01)
    m.set("guard.max_compression", 0.001)
    sim = m.build()
    with pytest.raises(vcsim.RunError, match="max_compression"):
        sim.run(0.4)
    with pytest.raises(ValueError, match="stopped stepping"):
        sim.step()
    with pytest.raises(ValueError, match="outside the run's bounds"):
        sim.save_checkpoint(tmp_path)


def test_steps_release_the_gil_and_a_second_thread_is_refused():
    import threading
    import time

    sim = dam_break(threads=1)
    started, done = threading.Event(), threading.Event()
    errors = []

    def work():
        started.set()
        try:
            sim.run(0.1)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        done.set()

    th = threading.Thread(target=work)
    th.start()
    started.wait()
    time.sleep(0.2)  # the worker holds the simulation by now (200 steps take seconds)
    with pytest.raises(RuntimeError, match="another thread"):
        sim.step()
    ticks = 0
    while not done.wait(0.001):
        ticks += 1  # this thread runs while the other steps
    th.join()
    assert errors == []
    assert ticks > 20
    assert sim.steps == round(0.1 / sim.dt)
