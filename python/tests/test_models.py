"""Loading models: every shipped model reads; bad ones raise ModelError located as the CLI
locates them; fields are read and changed by path."""

import math

import pytest

import vcsim
from conftest import REPO, cli

MODELS = sorted((REPO / "models").glob("*.ron"))


def test_import_and_version():
    assert vcsim.__version__ == "0.1.0"
    assert issubclass(vcsim.ModelError, ValueError)
    assert issubclass(vcsim.RunError, RuntimeError)


@pytest.mark.parametrize("path", MODELS, ids=[p.stem for p in MODELS])
def test_every_shipped_model_loads(path):
    m = vcsim.load(path)
    assert m.text == path.read_text(encoding="utf-8").lstrip("\ufeff")
    dt = m.get("time.dt")
    assert dt is None or dt > 0


def test_there_are_shipped_models():
    assert len(MODELS) >= 40


def test_a_bad_model_raises_with_file_line_column_and_field(tmp_path):
    bad = tmp_path / "bad.ron"
    bad.write_text(
        "Model(\n    time: (dt: 0.001, end: 1.0),\n"
        "    bodies: [(name: \"b\", shape: Ball(radius: -0.1))],\n)\n"
    )
    with pytest.raises(vcsim.ModelError) as e:
        vcsim.load(bad)
    err = e.value
    assert (err.file, err.line, err.field) == (str(bad), 3, "radius")
    assert err.column == 46
    assert "positive" in err.message
    # The same message as the CLI's first line.
    first = cli("check", bad, check=False).stderr
    assert str(err) in first, (str(err), first)


def test_a_syntax_error_and_an_unknown_field_are_located():
    with pytest.raises(vcsim.ModelError) as e:
        vcsim.loads("Model(time: (dt: 0.001, end: 1.0), bodys: [])", "x.ron")
    assert (e.value.file, e.value.line, e.value.field) == ("x.ron", 1, "bodys")
    with pytest.raises(vcsim.ModelError) as e:
        vcsim.loads("Model(time: (dt: 0.001, end: 1.0)", "y.ron")
    assert e.value.file == "y.ron" and e.value.line == 1


def test_a_missing_file_raises_model_error(tmp_path):
    with pytest.raises(vcsim.ModelError, match="cannot read the model file"):
        vcsim.load(tmp_path / "nothing.ron")


def test_fields_are_read_with_defaults_and_changed_by_path():
    m = vcsim.load(REPO / "models" / "ball_bounce_pgs.ron")
    assert m.get("time.dt") == 0.001
    assert m.get("materials[rubber].restitution") == 0.5
    assert m.get("bodies[ball].shape").startswith("Ball(")
    assert m.get("output.vtk") in (True, False)
    m.set("time.end", 0.25)
    m.set("materials[rubber].restitution", 0.8)
    m.set("bodies[ball].position", (0, 0, 2.0))
    m.set("solver", "Pgs(max_iterations: 20)")
    assert m.get("time.end") == 0.25
    assert m.get("materials[rubber].restitution") == 0.8
    assert m.get("bodies[ball].position") == "(0.0,0.0,2.0)"
    assert m.get("solver").startswith("Pgs(max_iterations:20")
    assert "end: 0.25" in m.text
    assert vcsim.loads(m.text).get("time.end") == 0.25


def test_a_field_left_out_reads_none_and_a_wrong_one_raises():
    m = vcsim.load(REPO / "models" / "flume_2d.ron")
    assert m.get("time.dt") is None
    with pytest.raises(ValueError, match="no field"):
        m.get("time.dtt")
    sim_dt = vcsim.load(REPO / "models" / "flume_2d.ron").build().dt
    assert 0 < sim_dt < 0.01


def test_a_bad_value_is_refused_and_the_model_kept():
    m = vcsim.load(REPO / "models" / "ball_bounce_pgs.ron")
    before = m.text
    for path, value in [
        ("time.dt", math.nan),
        ("time.dt", -1.0),
        ("time.dt", 1e308),
        ("bodies[ball].position", (0, 0, math.inf)),
    ]:
        with pytest.raises(vcsim.ModelError) as e:
            m.set(path, value)
        assert e.value.field is not None
    with pytest.raises(ValueError, match="no item"):
        m.set("bodies[nobody].density", 2.0)
    with pytest.raises(TypeError):
        m.set("time.dt", object())
    assert m.text == before


def test_warnings_are_located():
    m = vcsim.load(REPO / "models" / "ball_bounce_pgs.ron")
    assert m.warnings() == []
    # At 0.025 m the hull's keel (y = 0.84 m, 33.6 spacings) misses the lattice: the row at
    # 0.8375 m is closer than half a spacing and left out (the model's header): the CLI's
    # warning.
    path = REPO / "models" / "heave_decay_2d.ron"
    m = vcsim.load(path)
    m.set("fluid.spacing", 0.025)
    # Its walls, 0.2 m thick, are thicker than the support 2h = 0.1 m at this spacing: the
    # one warning is the hull's.
    (w,) = m.warnings()
    # The hull's `position` line, column 23 (where its value starts).
    lines = path.read_text().splitlines()
    line = 1 + next(k for k, l in enumerate(lines) if l.strip().startswith("position: (3.0, 0.84)"))
    assert w.startswith(f"{path}:{line}:23: field `position`: body `hull`'s faces miss"), w
