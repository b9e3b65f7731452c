"""Bad and extreme input through every Python entry point: a clear Python exception, never a
crash, a hang or a model changed behind the user's back."""

import math

import numpy as np
import pytest

import vcsim
from conftest import REPO

VALUES = [
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    5e-324,
    0,
    -1,
    2**70,
    True,
    "",
    "(",
    "[[[[[[[[",
    "\"text\"",
    "Nonsense(1, 2)",
    "x" * 100_000,
    (math.nan, 0.0),
    [1.0] * 1000,
    (),
]
FIELDS = [
    "time.dt",
    "time.end",
    "fluid.spacing",
    "fluid.density",
    "fluid.regions[0].max",
    "bodies[0].position",
    "bodies[1].shape",
    "output.every",
    "guard.max_compression",
    "solver",
    "scene.gravity",
]


@pytest.mark.parametrize("field", FIELDS)
def test_extreme_values_are_refused_or_built(field):
    m = vcsim.load(REPO / "models" / "dam_break_2d_apgd.ron")
    for v in VALUES:
        before = m.text
        try:
            m.set(field, v)
        except (vcsim.ModelError, ValueError, TypeError) as e:
            assert str(e)
            assert m.text == before
            continue
        # Accepted: the model is valid, and builds or says why not.
        try:
            sim = m.build(threads=1)
        except (vcsim.ModelError, ValueError) as e:
            assert str(e)
        else:
            assert sim.time == 0.0
        m = vcsim.load(REPO / "models" / "dam_break_2d_apgd.ron")


def test_bad_arguments_to_a_simulation():
    sim = vcsim.load(REPO / "models" / "dam_break_2d_apgd.ron").build(threads=1)
    n = sim.particles
    for until in [math.nan, math.inf, -math.inf, 1e300, -1.0]:
        with pytest.raises(ValueError):
            sim.run(until)
    with pytest.raises(OverflowError):
        sim.step(-1)
    for bad in [np.empty((n, 3), dtype=np.float32), np.empty((3, n)).T, "x", 3]:
        with pytest.raises((TypeError, ValueError)):
            sim.fluid_positions(out=bad)
    frozen = np.empty((n, 3))
    frozen.flags.writeable = False
    with pytest.raises((TypeError, ValueError)):
        sim.fluid_positions(out=frozen)
    for f in [(1.0, 2.0), (1.0, 2.0, 3.0, 4.0), ("a", 0, 0), None]:
        with pytest.raises((TypeError, ValueError)):
            sim.set_force("floor", f)
    with pytest.raises(ValueError, match="static"):
        sim.set_velocity("floor", (1.0, 0.0, 0.0))
    with pytest.raises(KeyError):
        sim.body("")
    for bad in ["", "\0", "x" * 5000]:
        with pytest.raises((vcsim.ModelError, ValueError, OSError)):
            vcsim.load(bad)
        with pytest.raises((ValueError, OSError)):
            vcsim.resume(bad)
    assert sim.steps == 0


def test_garbage_checkpoints_are_refused(tmp_path):
    for i, data in enumerate([b"", b"VCSIMCKP", b"VCSIMCKP\x08\0\0\0garbage", b"\0" * 1000]):
        d = tmp_path / str(i)
        d.mkdir()
        (d / "checkpoint.bin").write_bytes(data)
        with pytest.raises(ValueError, match="checkpoint|damaged"):
            vcsim.resume(d)
