"""vcsim from Python: load a model, step it, read its arrays as numpy, run a study.

>>> import vcsim
>>> model = vcsim.load("models/dam_break_2d_apgd.ron")
>>> model.set("time.end", 0.2)
>>> sim = model.build()
>>> sim.run(0.2)
>>> x = sim.fluid_positions()          # (particles, 3) numpy array, m
>>> p = sim.probes()                    # {"t": ..., "front": ...}

Everything is in SI units. The engine is the Rust library `vcsim`; this package is its PyO3
extension (`vcsim._vcsim`) with the study table's helpers. The book's "Python" page is a
worked example.
"""

from ._vcsim import (
    Model,
    ModelError,
    RunError,
    Simulation,
    __version__,
    load,
    loads,
    resume,
)
from ._vcsim import study as _study

__all__ = [
    "Model",
    "ModelError",
    "RunError",
    "Simulation",
    "Table",
    "load",
    "loads",
    "resume",
    "study",
    "__version__",
]


# Columns that stay text even where they read as numbers (a case's label "0.002").
_TEXT = {"case", "status", "reason"}


def _value(column, text):
    """A table cell as a number where it is one, else the text (None when empty)."""
    if text == "":
        return None
    if column in _TEXT:
        return text
    try:
        return float(text)
    except ValueError:
        return text


class Table(list):
    """A study's table: a list of dicts, one per case, keyed by the columns of `table.csv`
    (numbers as floats, empty cells as None; `case`, `status` and `reason` as text). `out` is the study's output folder (with
    `report.md` and the figures)."""

    def __init__(self, rows, columns, out):
        super().__init__(rows)
        self.columns = columns
        self.out = out

    def to_pandas(self):
        """The table as a pandas DataFrame (needs pandas)."""
        import pandas

        return pandas.DataFrame(list(self), columns=self.columns)


def study(path, out=None, jobs=None, threads=None, rerun_failed=False):
    """Runs the study file at `path` as `vcsim study` does and returns its table.

    `out`: the output folder (default `runs/STUDY`; this study's earlier output there is
    resumed: finished cases with unchanged models are reused). `jobs`: cases at once (default:
    one per core); `threads`: threads per case (default: the cores divided among the jobs).
    A bad study raises `ModelError`; Ctrl-C stops the running cases, keeps the finished ones,
    writes the report and raises KeyboardInterrupt.
    """
    import csv
    import io
    from pathlib import Path

    text, folder = _study(
        str(path),
        None if out is None else str(out),
        jobs,
        threads,
        rerun_failed,
    )
    reader = csv.reader(io.StringIO(text))
    columns = next(reader)
    rows = [{c: _value(c, v) for c, v in zip(columns, r)} for r in reader]
    return Table(rows, columns, Path(folder))
