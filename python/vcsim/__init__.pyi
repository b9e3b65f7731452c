from os import PathLike
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from ._vcsim import (
    Model as Model,
    ModelError as ModelError,
    RunError as RunError,
    Simulation as Simulation,
    __version__ as __version__,
    load as load,
    loads as loads,
    resume as resume,
)

class Table(List[Dict[str, Any]]):
    columns: List[str]
    out: Path
    def to_pandas(self) -> Any: ...

def study(
    path: Union[str, "PathLike[str]"],
    out: Optional[Union[str, "PathLike[str]"]] = None,
    jobs: Optional[int] = None,
    threads: Optional[int] = None,
    rerun_failed: bool = False,
) -> Table: ...
