"""A study from Python, and Ctrl-C (a real SIGINT) during a long `run`."""

import signal
import subprocess
import sys
import textwrap
import time

import pytest

import vcsim
from conftest import REPO, cli
from test_run import BOX, DAM, same_files

STUDY = """Study(
    description: "free fall at two time steps",
    model: "box.ron",
    axes: [Field(name: "dt", field: "time.dt", values: [0.002, 0.001])],
    metrics: [Final(column: "box.pos.z"), Run(Steps)],
)"""


@pytest.fixture
def study_file(tmp_path):
    (tmp_path / "box.ron").write_text(BOX.replace("end: 5.0", "end: 0.5"))
    p = tmp_path / "fall.ron"
    p.write_text(STUDY)
    return p


def test_a_study_from_python_gives_the_cli_table(study_file, tmp_path):
    table = vcsim.study(study_file, out=tmp_path / "py", jobs=1)
    assert [r["case"] for r in table] == ["0.002", "0.001"]
    assert table.out == tmp_path / "py"
    assert (table.out / "report.md").exists()
    assert table.columns == ["case", "dt", "status", "reason", "box.pos.z", "steps"]
    assert [r["status"] for r in table] == ["done", "done"]
    assert [r["steps"] for r in table] == [250.0, 500.0]
    finals = [r["box.pos.z"] for r in table]
    # Semi-implicit Euler from rest: 0.5 - g dt² n (n + 1) / 2 at t = 0.5 s.
    for z, dt in zip(finals, [0.002, 0.001]):
        n = round(0.5 / dt)
        assert z == pytest.approx(0.5 - 9.81 * dt**2 * n * (n + 1) / 2, rel=1e-6)
    cli("study", study_file, "--out", tmp_path / "cli", "--jobs", 1)
    lines = (tmp_path / "cli" / "table.csv").read_text().splitlines()
    assert lines[0].split(",") == table.columns
    # Every column but the wall times is the CLI's, digit for digit.
    keep = [i for i, c in enumerate(table.columns) if "wall" not in c]
    for line, row in zip(lines[1:], table):
        cells = line.split(",")
        for i in keep:
            c = table.columns[i]
            want = cells[i]
            got = row[c]
            if isinstance(got, float):
                assert float(want) == got, (c, want, got)
            else:
                assert want == (got or ""), (c, want, got)
    # Run again: every case is reused.
    again = vcsim.study(study_file, out=tmp_path / "py", jobs=1)
    assert [r["case"] for r in again] == ["0.002", "0.001"]


def test_a_bad_study_raises_a_located_model_error(tmp_path, study_file):
    bad = tmp_path / "bad.ron"
    bad.write_text(STUDY.replace('field: "time.dt"', 'field: "time.dtt"'))
    with pytest.raises(vcsim.ModelError) as e:
        vcsim.study(bad, out=tmp_path / "o")
    assert e.value.file == str(bad)
    assert e.value.line >= 1
    pandas = pytest.importorskip("pandas")
    frame = vcsim.study(study_file, out=tmp_path / "p", jobs=1).to_pandas()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 2


# The child runs the dam break past its own end (0.4 s) to 10 s, so that the signal comes while
# it runs: its splash leaves the scene's bounds at 0.625 s (1 250 steps, which a quiet machine
# reaches within the 1.5 s before the signal), so the bounds are widened.
MARGIN = 100.0

CHILD = textwrap.dedent(
    """
    import sys, vcsim
    model = vcsim.load(sys.argv[1])
    model.set("guard.scene_margin", MARGIN)
    sim = model.build(out=sys.argv[2])
    print("ready", flush=True)
    try:
        sim.run(10.0)
        print("finished", flush=True)
    except KeyboardInterrupt:
        sim.save_checkpoint()
        print(f"interrupted {sim.steps}", flush=True)
        sys.exit(3)
    """
)


def start(tmp_path, out, script=CHILD):
    script = script.replace("MARGIN", repr(MARGIN))
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(DAM), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out_text, err = child.communicate(timeout=30)
    return child.returncode, out_text, err, time.monotonic() - sent


def test_sigint_during_run_stops_after_a_whole_step_and_resumes_to_the_same_bytes(tmp_path):
    out = tmp_path / "interrupted"
    code, text, err, took = start(tmp_path, out)
    assert code == 3, err
    assert took < 5.0
    steps = int(text.split()[-1])
    assert 0 < steps < 20000
    rows = (out / "probes.csv").read_text()
    assert rows.endswith("\n")
    assert len(rows.splitlines()) == 1 + steps // 10 + 1  # the header, t = 0, every 10 steps
    # Resumed and run on to the next output time but one: the bytes of an uninterrupted run.
    sim = vcsim.resume(out)
    assert sim.steps == steps
    end = (steps // 10 + 2) * 10 * sim.dt
    sim.run(end)
    model = vcsim.load(DAM)
    model.set("guard.scene_margin", MARGIN)
    straight = model.build(out=tmp_path / "straight")
    straight.run(end)
    same_files(tmp_path / "straight", out)


def test_an_uncaught_sigint_ends_python_with_whole_files(tmp_path):
    script = CHILD.replace("try:", "if True:").replace("except KeyboardInterrupt:", "if False:")
    code, text, err, took = start(tmp_path, tmp_path / "o", script)
    assert code != 0 and "KeyboardInterrupt" in err
    assert took < 5.0
    rows = (tmp_path / "o" / "probes.csv").read_text()
    assert rows.endswith("\n") and len(rows.splitlines()) > 2
