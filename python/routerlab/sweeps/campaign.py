"""Running a sweep as a campaign, and reading one back.

`run_campaign` validates every configuration, skips the runs whose results are already in the
campaign's directory, hands the others to a backend in batches, and records each run as it
comes back: its directory, or its error. A failed run costs nothing else; it is retried only on
request. At the end, the campaign's tables, figures and report are written.

`Campaign` reads a campaign's directory: ``table()`` has one row per run (its parameters and its
summary), ``stats()`` one per configuration (means with 95 % intervals), ``flows()`` and
``links()`` every run's rows together.
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .. import display
from ..api import frame
from ..experiments.stats import mean_ci
from ..output import write_text_atomic
from ..runner import RunTimeout, ScenarioInvalid, simulate
from . import backends
from .spec import RUN_COLUMNS, SweepError, SweepSpec, run_key
from .store import Store

#: Wall seconds between manifest writes while runs come back (and always at the end).
MANIFEST_INTERVAL_S = 1.0
#: Summary keys that are not results (provenance, or repeated as run columns).
NON_METRICS = {"seed", "scenario_hash", "routerlab_version", "git_commit"}
#: Lines of a Python traceback kept with a failed run.
TRACEBACK_LINES = 12


@dataclass
class Task:
    """One run to do: sent to a worker, so plain data."""

    key: str
    text: str
    seed: int
    base_dir: str | None
    timeout: float | None


def run_batch(tasks: list[Task]) -> list[tuple[str, object, str | None]]:
    """Run a batch (in a worker): (key, RunResult or None, error or None) per run. Errors are
    caught here, so one failing run never costs the others."""
    out = []
    for t in tasks:
        try:
            base = None if t.base_dir is None else Path(t.base_dir)
            r = simulate(t.text, seed=t.seed, progress=False, base_dir=base, timeout=t.timeout)
            out.append((t.key, r, None))
        except (ScenarioInvalid, RunTimeout) as e:
            out.append((t.key, None, f"{type(e).__name__}: {e}"))
        except KeyboardInterrupt:
            raise
        except BaseException as e:  # a Rust panic arrives as a BaseException
            tb = traceback.format_exc().strip().splitlines()[-TRACEBACK_LINES:]
            out.append((t.key, None, f"{type(e).__name__}: {e}\n" + "\n".join(tb)))
    return out


def _log(quiet: bool):
    def log(message: str) -> None:
        if not quiet:
            print(message, file=sys.stderr, flush=True)

    return log


def run_campaign(
    spec: SweepSpec,
    out: Path,
    backend: str = "local",
    jobs: int | None = None,
    client=None,
    scheduler: str | None = None,
    retry_failed: bool = False,
    progress: bool | None = None,
    quiet: bool = True,
    report: bool = True,
) -> Campaign:
    """Run what is missing of a sweep in ``out`` and return the campaign."""
    if backend not in backends.BACKENDS:  # refused before anything is written
        raise backends.BackendError(
            f"unknown backend {backend!r} (known: {', '.join(backends.BACKENDS)})"
        )
    owned = False
    if backend == "dask" and client is None and scheduler:
        # Reached before anything is written: an unreachable scheduler leaves no directory.
        client, owned = backends.dask_client(None, scheduler, jobs)
    try:
        return _campaign(spec, out, backend, jobs, client, retry_failed, progress, quiet, report)
    finally:
        if owned:
            backends.close_client(client)


def _campaign(spec, out, backend, jobs, client, retry_failed, progress, quiet, report) -> Campaign:
    log = _log(quiet)
    configs = spec.configs()  # every configuration is checked before anything runs
    store = Store(out)
    old = store.read_manifest()
    if old and old.get("sweep", {}).get("campaign_seed", spec.seed) != spec.seed:
        raise SweepError(
            f"{out} holds a campaign with seed {old['sweep']['campaign_seed']}, not {spec.seed}: "
            "its runs have other seeds (use another directory, or that seed)"
        )
    files = {}
    if spec.source is not None:
        files["sweep.toml"] = spec.source
    if spec.base_source is not None:
        files["base.toml"] = spec.base_source
    config_rows = [
        {
            "config": c.index,
            "params": c.params,
            "spec_hash": c.spec_hash,
            "scenario": f"scenarios/config{c.index:04d}.toml",
        }
        for c in configs
    ]
    runs = {}  # key -> (manifest entry, task); configurations with equal scenarios share runs
    base_dir = None if spec.base_dir is None else str(spec.base_dir)
    for c in configs:
        for r in range(spec.seeds):
            key = run_key(c.spec_hash, r)
            seed = spec.run_seed(r)
            entry = {"config": c.index, "params": c.params, "replicate": r, "seed": seed}
            entry["spec_hash"] = c.spec_hash
            runs.setdefault(key, (entry, Task(key, c.text, seed, base_dir, spec.timeout)))
    store.open(spec.describe(), config_rows, len(runs), files)
    for c in configs:
        header = f"# {spec.name}, configuration {c.index}: {json.dumps(c.params, sort_keys=True)}\n"
        write_text_atomic(store.root / config_rows[c.index]["scenario"], header + c.text)
    done = store.done_keys() & set(runs)
    for key in done - set(store.manifest["runs"]):
        store.adopt(key, runs[key][0])
    failed_before = set(store.manifest["failed"]) & set(runs)
    todo = [runs[k][1] for k in runs if k not in done and (retry_failed or k not in failed_before)]
    skipped = len(failed_before) if not retry_failed else 0
    log(
        f"{spec.name}: {len(runs)} runs ({len(configs)} configurations × {spec.seeds} seeds): "
        f"{len(done)} done before, "
        + (f"{skipped} failed before (not retried; --retry-failed), " if skipped else "")
        + f"{len(todo)} to run"
    )
    store.flush()
    if todo:
        _execute(spec, store, runs, todo, backend, jobs, client, progress)
    campaign = Campaign(out)
    campaign.write_tables()
    if report:
        from ..report import write_report

        campaign.write_figures()
        write_report(out)
    failed = campaign.failures()
    log(
        f"{spec.name}: {len(campaign.manifest['runs'])} of {len(runs)} runs done, "
        f"{len(failed)} failed → {out}/"
    )
    return campaign


def _execute(spec, store, runs, todo, backend, jobs, client, progress) -> None:
    bar = backends.progress_bar(len(todo), spec.name, progress)
    failures, last_flush = 0, time.monotonic()
    results = backends.run_batched(run_batch, todo, backend, jobs, client, None, spec.batch)
    try:
        # Closed however the loop ends, so that an interrupt stops the workers at once.
        with contextlib.closing(results):
            for _, batch, outcome in results:
                if isinstance(outcome, BaseException):  # the task failed, or its worker died
                    error = f"{type(outcome).__name__}: {outcome}"
                    outcome = [(t.key, None, error) for t in batch]
                failures += _record(store, runs, outcome)
                if bar is not None:
                    bar.update(len(outcome))
                    if failures:
                        bar.set_postfix_str(f"{failures} failed")
                if time.monotonic() - last_flush > MANIFEST_INTERVAL_S:
                    store.flush()
                    last_flush = time.monotonic()
    finally:
        store.flush()
        if bar is not None:
            bar.close()


def _record(store: Store, runs: dict, outcome: list) -> int:
    """Enter a batch's runs in the store; returns how many failed."""
    failed = 0
    for key, result, error in outcome:
        entry, task = runs[key]
        if error is None:
            store.record_run(key, entry, result, task.text)
        else:
            store.record_failure(key, entry, error)
            failed += 1
    return failed


class Campaign:
    """A campaign's directory, read back (`load(DIR)`, or what `sweep` returns)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        path = self.root / "manifest.json"
        if not path.is_file():
            raise FileNotFoundError(f"{self.root}: no manifest.json (not a sweep's directory)")
        self.manifest = json.loads(path.read_text())
        self._runs: pa.Table | None = None  # the runs table, read once

    @property
    def name(self) -> str:
        return self.manifest["sweep"]["name"]

    @property
    def axes(self) -> list[str]:
        return [a["name"] for a in self.manifest["sweep"]["axes"]]

    def _rows(self) -> list[tuple[dict, str]]:
        """(table row without results, key) of every run done, in (config, replicate) order."""
        seeds = self.manifest["sweep"]["seeds"]
        out = []
        for c in self.manifest["configs"]:
            for r in range(seeds):
                key = run_key(c["spec_hash"], r)
                entry = self.manifest["runs"].get(key)
                if entry is None:
                    continue
                row = {"run": key, "config": c["config"], "replicate": r, "seed": entry["seed"]}
                row["spec_hash"] = c["spec_hash"]
                row.update(c["params"])
                out.append((row, key))
        return out

    def arrow_table(self) -> pa.Table:
        """One row per run done: run columns, the axes, and every summary value."""
        if self._runs is None:
            self._runs = self._read_runs()
        return self._runs

    def _read_runs(self) -> pa.Table:
        rows = []
        for row, key in self._rows():
            summary = json.loads((self.root / "runs" / key / "summary.json").read_text())
            for k, v in summary.items():
                if k in NON_METRICS:
                    continue
                row[k if k not in row else f"summary.{k}"] = v
            rows.append(row)
        if not rows:
            return pa.table({c: pa.array([], pa.string()) for c in RUN_COLUMNS})
        return pa.Table.from_pylist(rows)

    def table(self, polars: bool = False):
        """Every run's parameters and summary, one row per run (pandas, or polars)."""
        return frame(self.arrow_table(), polars)

    def stats(self, polars: bool = False):
        """One row per configuration: the axes, the number of runs, and for every numeric
        summary value its mean with a 95 % Student-t interval (`NAME_ci95_lo`, `_hi`)."""
        return frame(self.arrow_stats(), polars)

    def arrow_stats(self) -> pa.Table:
        runs = self.arrow_table().to_pylist()
        metrics = [k for k in (runs[0] if runs else {}) if _is_metric(runs, k, self.axes)]
        by_config: dict[int, list[dict]] = {}
        for r in runs:
            by_config.setdefault(r["config"], []).append(r)
        out = []
        for config, rs in sorted(by_config.items()):
            row = {"config": config, **{a: rs[0][a] for a in self.axes}, "runs": len(rs)}
            for m in metrics:
                row.update(mean_ci([r[m] for r in rs]).columns(m))
            out.append(row)
        return pa.Table.from_pylist(out) if out else pa.table({"config": pa.array([], pa.int64())})

    def _joined(self, name: str) -> pa.Table | None:
        """A per-run table of every run, with the run columns and axes in front."""
        parts = []
        for row, key in self._rows():
            path = self.root / "runs" / key / f"{name}.parquet"
            if not path.is_file():
                continue
            t = pq.read_table(path)
            front = {k: pa.array([v] * t.num_rows) for k, v in row.items()}
            for i, (k, col) in enumerate(front.items()):
                t = t.add_column(i, k, col)
            parts.append(t)
        return pa.concat_tables(parts, promote_options="permissive") if parts else None

    def flows(self, polars: bool = False):
        """Every run's flows, with the run's columns and parameters in front."""
        t = self._joined("flows")
        return None if t is None else frame(t, polars)

    def links(self, polars: bool = False):
        t = self._joined("links")
        return None if t is None else frame(t, polars)

    def _summary_rows(self) -> list[tuple[str, str]]:
        sweep = self.manifest["sweep"]
        configs, seeds = len(self.manifest["configs"]), sweep["seeds"]
        return [
            ("directory", str(self.root)),
            ("axes", ", ".join(self.axes) or "none"),
            (
                "runs done",
                f"{len(self._rows())} of {configs * seeds}"
                f" ({configs} configurations × {seeds} seeds)",
            ),
            ("failed", str(len(self.failures()))),
        ]

    def __repr__(self) -> str:
        return display.text(f"routerlab.Campaign {self.name!r}", self._summary_rows())

    def _repr_html_(self) -> str:
        return display.html(f"routerlab.Campaign {self.name!r}", self._summary_rows())

    def failures(self) -> list[dict]:
        """The sweep's runs that failed (and were not done since): key, parameters, seed, error.
        (Failures of configurations an earlier sweep into the same directory had are left out.)"""
        seeds = self.manifest["sweep"]["seeds"]
        keys = {run_key(c["spec_hash"], r) for c in self.manifest["configs"] for r in range(seeds)}
        failed = [(k, v) for k, v in self.manifest["failed"].items() if k in keys]
        return [{"run": k, **v} for k, v in sorted(failed, key=_by_config)]

    def write_tables(self) -> list[str]:
        """tables/runs.parquet, configs.parquet, flows.parquet, links.parquet (atomically)."""
        tdir = self.root / "tables"
        tdir.mkdir(exist_ok=True)
        tables = {"runs": self.arrow_table(), "configs": self.arrow_stats()}
        for name in ("flows", "links"):
            t = self._joined(name)
            if t is not None:
                tables[name] = t
        for name, t in tables.items():
            tmp = tdir / f".{name}.parquet.tmp"
            pq.write_table(t, tmp, compression="zstd")
            tmp.replace(tdir / f"{name}.parquet")
        return [f"tables/{n}.parquet" for n in tables]

    def write_figures(self) -> list[str]:
        from .figures import draw

        return draw(self)


def _by_config(item):
    return (item[1]["config"], item[1]["replicate"])


def _is_metric(rows: list[dict], key: str, axes: list[str]) -> bool:
    if key in RUN_COLUMNS or key in axes or key == "config":
        return False
    values = [r.get(key) for r in rows]
    return all(
        v is None or (isinstance(v, int | float) and not isinstance(v, bool)) for v in values
    ) and any(v is not None and not (isinstance(v, float) and math.isnan(v)) for v in values)
