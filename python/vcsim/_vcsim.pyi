"""Type stubs of the extension module `vcsim._vcsim` (the Rust engine). Units are SI."""

from os import PathLike
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, "PathLike[str]"]
_Vec3 = Union[Sequence[float], npt.NDArray[np.float64]]

__version__: str

class ModelError(ValueError):
    """An invalid model or study file: `str(e)` is `file:line:column: field `name`: message`."""

    file: str
    line: int
    column: int
    field: Optional[str]
    message: str

class RunError(RuntimeError):
    """A step left the model's bounds, diverged or met a cap; the simulation stops stepping."""

class Model:
    """A model read from RON and validated."""

    @property
    def path(self) -> Path: ...
    @property
    def text(self) -> str:
        """The RON text, with the changes made by `set`."""
    def get(self, path: str) -> Union[bool, int, float, str]:
        """The field at `path` (`"time.dt"`, `"bodies[box].density"`), defaults filled in:
        a number or bool where it is one, else its RON text."""
    def set(self, path: str, value: Union[bool, int, float, str, Sequence[Any]]) -> None:
        """Sets the field at `path` (a str is RON text); raises ModelError if the edited
        model is invalid, leaving it as it was."""
    def warnings(self) -> List[str]:
        """What `vcsim check` warns about, located."""
    def build(self, out: Optional[_Path] = None, threads: Optional[int] = None) -> Simulation:
        """Builds the world; with `out`, writes the CLI's output files there as it steps."""

class Simulation:
    """A world stepped from Python; steps release the GIL."""

    @property
    def time(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def dt(self) -> float: ...
    @property
    def body_names(self) -> List[str]: ...
    @property
    def probe_columns(self) -> List[str]: ...
    @property
    def particles(self) -> int: ...
    @property
    def out(self) -> Optional[Path]: ...
    def step(self, n: int = 1) -> None: ...
    def run(self, until: float) -> None:
        """Steps to the step ending at `until` (s); Ctrl-C raises KeyboardInterrupt after a
        whole step with every output up to it written."""
    def body(self, name: str) -> Dict[str, Any]:
        """`position`, `orientation` (w, x, y, z), `velocity`, `angular_velocity`, `mass`."""
    def set_force(self, name: str, force: _Vec3, torque: Optional[_Vec3] = None) -> None: ...
    def set_velocity(
        self,
        name: str,
        velocity: Optional[_Vec3] = None,
        angular_velocity: Optional[_Vec3] = None,
    ) -> None: ...
    def fluid_positions(
        self, out: Optional[npt.NDArray[np.float64]] = None
    ) -> npt.NDArray[np.float64]: ...
    def fluid_velocities(
        self, out: Optional[npt.NDArray[np.float64]] = None
    ) -> npt.NDArray[np.float64]: ...
    def fluid_pressures(
        self, out: Optional[npt.NDArray[np.float64]] = None
    ) -> npt.NDArray[np.float64]: ...
    def fluid_densities(
        self, out: Optional[npt.NDArray[np.float64]] = None
    ) -> npt.NDArray[np.float64]: ...
    def sample(self) -> Dict[str, float]: ...
    def probes(self) -> Dict[str, npt.NDArray[np.float64]]: ...
    def totals(self) -> Dict[str, float]: ...
    def save_checkpoint(self, dir: Optional[_Path] = None, end: Optional[float] = None) -> Path: ...

def load(path: _Path) -> Model: ...
def loads(text: str, path: str = "<string>") -> Model: ...
def resume(dir: _Path, threads: Optional[int] = None) -> Simulation: ...
def study(
    path: _Path,
    out: Optional[_Path] = None,
    jobs: Optional[int] = None,
    threads: Optional[int] = None,
    rerun_failed: bool = False,
) -> Tuple[str, Path]: ...
