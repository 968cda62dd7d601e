"""Sweeps: many runs of one base scenario — parameters × replicates — on a local process pool
or a Dask cluster, resumable, with one table of every run.

    import routerlab
    c = routerlab.sweep("examples/dumbbell.toml",
                        grid={"topology.bottleneck.queue.limit": ["20pkts", "100pkts"],
                              "run.duration": "2s"},
                        seeds=5, out="results/sweeps/buffers")
    c.table()      # one row per run: parameters and summary
    c.stats()      # one row per configuration: means with 95 % intervals

The same sweep as a file runs with ``routerlab sweep SWEEP.toml`` (docs/sweep.md).
"""

from __future__ import annotations

from pathlib import Path

from .backends import BACKENDS, BackendError
from .campaign import Campaign, run_campaign
from .spec import SweepError, SweepSpec, from_arguments
from .spec import load as load_spec

__all__ = [
    "BACKENDS",
    "BackendError",
    "Campaign",
    "SweepError",
    "SweepSpec",
    "default_out",
    "load",
    "load_spec",
    "run_campaign",
    "sweep",
]


def default_out(name: str) -> Path:
    """Where a sweep's campaign goes unless told: results/sweeps/NAME."""
    return Path("results") / "sweeps" / name


def sweep(
    base,
    grid: dict | None = None,
    seeds: int = 1,
    backend: str = "local",
    out=None,
    *,
    axes: dict | None = None,
    seed: int = 0,
    name: str | None = None,
    jobs: int | None = None,
    client=None,
    scheduler: str | None = None,
    batch: int | None = None,
    timeout=None,
    retry_failed: bool = False,
    plots: list | None = None,
    progress: bool | None = None,
    report: bool = True,
) -> Campaign:
    """Run ``base`` (a scenario path, TOML text or dict) over ``grid`` with ``seeds``
    replicates each, and return the campaign.

    ``grid`` maps dotted scenario paths (``"topology.bottleneck.rate"``, ``"workload.0.flows"``)
    to a list of values (an axis) or one value (set in every run); ``axes`` names axes whose
    values set several paths (``{"scheme": {"tcp": {"transport.cc": "newreno"}, …}}``).
    ``backend``: ``"local"`` (``jobs`` processes, default every core) or ``"dask"`` (on
    ``client``, or the scheduler at address ``scheduler``, or a new local cluster). Runs
    already in ``out`` (default results/sweeps/NAME) are not run again; failed ones only with
    ``retry_failed``. ``seed`` is the campaign seed the runs' seeds derive from; ``timeout``
    (seconds, or "10min") fails a run that takes longer; ``batch`` sets the runs per task;
    ``progress`` shows a bar (None: when stderr is a terminal); ``report`` writes the figures
    and report.html at the end."""
    spec = from_arguments(
        base,
        grid=grid,
        axes=axes,
        seeds=seeds,
        seed=seed,
        name=name,
        timeout=timeout,
        batch=batch,
        plots=plots,
    )
    return run_campaign(
        spec,
        Path(out) if out is not None else default_out(spec.name),
        backend=backend,
        jobs=jobs,
        client=client,
        scheduler=scheduler,
        retry_failed=retry_failed,
        progress=progress,
        report=report,
    )


def load(directory) -> Campaign:
    """A campaign's directory, read back."""
    return Campaign(Path(directory))
