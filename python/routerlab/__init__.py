"""routerlab — a packet-level laboratory for router-assisted transport.

The simulation core is Rust (``routerlab._core``); this package is its front end: the
``routerlab`` command, result files, and (growing) a Python API that returns data frames.
"""

from . import _core
from .runner import RunResult, ScenarioInvalid, simulate

__version__ = _core.version()

__all__ = ["RunResult", "ScenarioInvalid", "simulate", "__version__"]
