"""routerlab — a packet-level laboratory for router-assisted transport.

The simulation core is Rust (``routerlab._core``); this package is its front end: the
``routerlab`` command, result files, and the Python API:

- ``routerlab.run(scenario)``: one run, its summary and tables as data frames;
- ``routerlab.sweep(base, grid, seeds=N)``: many runs on a local pool or a Dask cluster,
  resumable, with one table of every run (``routerlab.sweeps.load(DIR)`` reads one back).
"""

from . import _core
from .api import Result, run
from .runner import RunResult, RunTimeout, ScenarioInvalid, simulate
from .sweeps import Campaign, SweepError, sweep

__version__ = _core.version()

__all__ = [
    "Campaign",
    "Result",
    "RunResult",
    "RunTimeout",
    "ScenarioInvalid",
    "SweepError",
    "__version__",
    "run",
    "simulate",
    "sweep",
]
