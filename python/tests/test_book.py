"""The book's Python page: its script runs and draws its figure (CI installs matplotlib and
sets VCSIM_REQUIRE_MATPLOTLIB; elsewhere a machine without matplotlib skips this)."""

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

SCRIPT = REPO / "book" / "src" / "python" / "box_in_water.py"


def test_the_book_script_runs_and_draws_its_figure(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.environ.get("VCSIM_REQUIRE_MATPLOTLIB"):
            raise
        pytest.skip("matplotlib is not installed (pip install matplotlib)")
    fig = tmp_path / "fig.png"
    p = subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(fig)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Let go at Archimedes' height, the box stays within a centimetre of it.
    m = re.search(r"after release: ([\d.]+) to ([\d.]+) m \(Archimedes ([\d.]+) m\)", p.stdout)
    assert m, p.stdout
    low, high, rest = map(float, m.groups())
    assert rest - 0.01 < low <= high < rest + 0.01, p.stdout
    # The page quotes this run's output.
    page = (REPO / "book" / "src" / "python.md").read_text()
    for line in p.stdout.splitlines():
        if line.startswith(("box centre after release", "largest compression")):
            assert line in page, line
