"""The Python API for one run: ``routerlab.run(scenario)`` returns data frames.

A scenario is given as a path, as TOML text, or as a dict (the parsed TOML). The result holds
the run's summary (the ``summary.json`` keys) and its tables as pandas data frames — or polars
ones with ``polars=True`` — converted from the Arrow tables the simulator returns, so no result
is copied through Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import tomli_w

from . import display
from .output import OPTIONAL_TABLES
from .runner import RunResult, read_scenario, simulate


def scenario_source(scenario) -> tuple[str, Path | None]:
    """A scenario argument as (TOML text, directory its relative file names are found in).

    A `Path`, or a one-line string without ``=``, is a file name; any other string is TOML text;
    a dict is the parsed scenario."""
    if isinstance(scenario, dict):
        return tomli_w.dumps(scenario), None
    if isinstance(scenario, Path) or (
        isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario
    ):
        path = Path(scenario)
        return read_scenario(path), path.resolve().parent
    if isinstance(scenario, str):
        return scenario, None
    raise TypeError(f"a scenario is a path, TOML text or a dict, not {type(scenario).__name__}")


def frame(t: pa.Table, polars: bool):
    """An Arrow table as a pandas data frame, or a polars one."""
    if polars:
        import polars as pl

        return pl.from_arrow(t)
    return t.to_pandas()


@dataclass
class Result:
    """One finished run: ``summary`` (dict), ``flows``, ``links``, ``queues``, ``timeseries`` and
    the other tables (``table(name)``) as data frames; ``raw`` is the `RunResult` with the Arrow
    tables, timing and pcap captures."""

    raw: RunResult
    polars: bool = False

    @property
    def summary(self) -> dict:
        return self.raw.summary

    @property
    def timing(self) -> dict:
        return self.raw.timing

    @property
    def flows(self):
        return self.table("flows")

    @property
    def links(self):
        return self.table("links")

    @property
    def queues(self):
        """Queue samples (empty unless the scenario asks for ``[output] queues``)."""
        return self.table("queues")

    @property
    def timeseries(self):
        """Per-flow time series (empty unless the scenario asks for ``[output] timeseries``)."""
        return self.table("timeseries")

    def _summary_rows(self) -> list[tuple[str, str]]:
        tables = ["flows", "links", *self.raw.extra_tables]
        if self.raw.transfers is not None and self.raw.transfers.num_rows:
            tables.insert(2, "transfers")
        s = self.summary
        return [
            ("simulated", f"{s['sim_seconds']:g} s (seed {s['seed']})"),
            *display.run_rows(s),
            ("tables", ", ".join(tables)),
        ]

    def __repr__(self) -> str:
        return display.text("routerlab.Result", self._summary_rows())

    def _repr_html_(self) -> str:
        return display.html("routerlab.Result", self._summary_rows())

    def plot(self):
        """The run at a glance (a matplotlib Figure, which a notebook shows): per-flow
        goodput, windows and RTTs over time, queue lengths, completion times, the summary;
        a panel the run did not record says which ``[output]`` setting records it."""
        from .runplot import TABLES, overview

        tables = {name: frame(self._arrow(name), polars=False) for name in TABLES}
        return overview(self.summary, tables, f"run (seed {self.summary.get('seed')})")

    def table(self, name: str):
        """Any result table by name: flows, links, transfers, or one of the optional tables
        (queues, timeseries, fairness, latency, queue_delay, flow_epochs, stages); an
        optional table the scenario did not ask for is empty, with its columns."""
        return frame(self._arrow(name), self.polars)

    def _arrow(self, name: str) -> pa.Table:
        if name in ("flows", "links", "transfers"):
            return getattr(self.raw, name)
        if name not in OPTIONAL_TABLES:
            known = ["flows", "links", "transfers", *OPTIONAL_TABLES]
            raise KeyError(f"no table {name!r}; known: {', '.join(known)}")
        t = self.raw.extra_tables.get(name)
        return OPTIONAL_TABLES[name].empty_table() if t is None else t


def run(
    scenario,
    seed: int | None = None,
    polars: bool = False,
    progress: bool | None = None,
    timeout: float | None = None,
) -> Result:
    """Simulate a scenario (a path, TOML text or a dict) and return its `Result`.

    ``seed`` overrides the scenario's; ``progress`` shows a bar on stderr (None: only on a
    terminal); ``timeout`` stops a run that takes longer (wall seconds) with `RunTimeout`.
    An invalid scenario raises `ScenarioInvalid`, whose ``problems`` name each field's path."""
    text, base_dir = scenario_source(scenario)
    raw = simulate(text, seed=seed, progress=progress, base_dir=base_dir, timeout=timeout)
    return Result(raw, polars)
