"""Reproductions: `routerlab reproduce ID [--quick] [--seeds N] [--out DIR] [--force]`.

An experiment is defined in ``experiments/ID.toml`` (the repository's top-level folder):

- a scenario ``template`` (TOML with ``$name`` placeholders, filled from ``constants`` and
  the grid),
- a parameter ``grid`` (lists are crossed, scalars are constant) and a smaller ``[quick]``
  grid for the test suite (``[quick.constants]`` may shrink constants too),
- optional ``[[na]]`` entries: configurations that cannot run, each with its ``reason`` and
  the grid values it covers (``scheme = "plts-rr"``, ``workload = ["incast", "web"]``); they
  are left out of the grid, and the analysis reports them as "n/a" with the reason,
- the ``claim``s it checks — each with the paper's statement, source and number, the
  *quantity* our analysis computes, and an operational *criterion* written before running —
- optional ``variants``: for a grid key whose values name configurations rather than
  numbers (``scheme = ["tcp-200ms", "cp"]``), a table per value of the placeholders it sets
  (``[variants.scheme.cp] queue = '...'``; these may use the placeholders of the constants,
  the grid and the other variants),
- and the name of its ``analysis`` module (``routerlab.experiments.<analysis>``), which turns
  the runs into tables, quantities and figures.

Every configuration runs once per replicate; replicate i's seed derives from the experiment id
and i alone, so a rerun (anywhere) gives identical results, and the same seeds are used across
configurations (common random numbers). Runs go to a sweep backend: a process pool over the
local cores by default, or a Dask cluster.
The output directory is written atomically: tables (Parquet + CSV), figures (PNG + SVG), the
exact scenarios run, and ``verdict.json`` / ``verdict.md``. The finished runs wait in
``OUT.runs/`` until then (`runs`): an interrupted reproduction resumes from them.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import json
import os
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .. import _core, seeding
from ..experiments.stats import Estimate
from ..output import AtomicDir, write_table
from .runs import RunStore, run_key, store_of
from .verdict import ClaimError, build_verdict, check_claims, write_verdict

#: Replicates of a full run and of a quick run (REPRODUCTIONS.md: at least 10 and 3).
FULL_SEEDS = 10
QUICK_SEEDS = 3


#: The experiment files shipped with the package (the checkout's `experiments/` links here).
PACKAGED = Path(__file__).resolve().parent.parent / "experiments" / "toml"


def experiments_dir() -> Path:
    """$ROUTERLAB_EXPERIMENTS, else `experiments/` of the working directory, else the files
    shipped with the package (so that an installed wheel reproduces too)."""
    env = os.environ.get("ROUTERLAB_EXPERIMENTS")
    if env:
        return Path(env)
    cwd = Path.cwd() / "experiments"
    if cwd.is_dir():
        return cwd
    return PACKAGED


#: Keys of an experiment file: required, then optional.
REQUIRED_KEYS = {"id", "title", "sources", "analysis", "scenario", "grid", "claim"}
OPTIONAL_KEYS = {"constants", "quick", "variants", "doc", "seeds", "na"}
#: The mechanism matrix (docs/matrix.md): a comparison of our own, not a paper's, so it has
#: no claims, and `reproduce all` and the results document leave it out.
MATRIX_ID = "matrix"
#: Keys of an experiment's `[doc]`: its prose in the results document (`document.py`).
DOC_KEYS = {"summary", "discussion", "discussion_as_of"}


class ExperimentError(Exception):
    """An experiment file that cannot be run as written."""


class RunFailed(Exception):
    """One of an experiment's runs failed (raised, or killed its worker process)."""


def available() -> dict[str, dict]:
    """Every experiment definition, by id (the file's stem)."""
    return {f.stem: _read(f) for f in sorted(experiments_dir().glob("*.toml"))}


def load(exp_id: str) -> dict:
    path = experiments_dir() / f"{exp_id}.toml"
    if not path.is_file():
        known = ", ".join(sorted(available())) or "none"
        raise ExperimentError(f"no experiment {exp_id!r} (known: {known})")
    return _read(path)


def _read(path: Path) -> dict:
    """Parse and check an experiment file; every problem names the file and the key."""
    try:
        exp = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{path}: {e}") from None
    missing = REQUIRED_KEYS - set(exp) - ({"claim"} if path.stem == MATRIX_ID else set())
    unknown = set(exp) - REQUIRED_KEYS - OPTIONAL_KEYS
    if missing or unknown:
        raise ExperimentError(
            f"{path}: missing keys {sorted(missing)}, unknown keys {sorted(unknown)}"
        )
    if exp["id"] != path.stem:
        raise ExperimentError(f"{path}: id is {exp['id']!r}, expected {path.stem!r}")
    if "template" not in exp["scenario"]:
        raise ExperimentError(f"{path}: scenario.template is missing")
    unknown_doc = set(exp.get("doc", {})) - DOC_KEYS
    if unknown_doc:
        raise ExperimentError(f"{path}: unknown keys in doc: {sorted(unknown_doc)}")
    seeds = exp.get("seeds", FULL_SEEDS)
    if not isinstance(seeds, int) or isinstance(seeds, bool) or seeds < FULL_SEEDS:
        raise ExperimentError(
            f"{path}: seeds: {seeds!r} is not a number of replicates of at least {FULL_SEEDS}"
        )
    unknown_quick = set(exp.get("quick", {})) - {"grid", "constants"}
    if unknown_quick:
        raise ExperimentError(f"{path}: unknown keys in quick: {sorted(unknown_quick)}")
    for key, table in exp.get("variants", {}).items():
        grids = (exp["grid"], exp.get("quick", {}).get("grid", {}))
        values = {str(v) for g in grids for v in _as_list(g.get(key, []))}
        missing = sorted(values - set(table))
        if missing:
            raise ExperimentError(f"{path}: variants.{key} has no entry for {missing}")
    _check_na(path, exp)
    try:
        if "claim" in exp or path.stem != MATRIX_ID:
            check_claims(exp)
    except ClaimError as e:
        raise ExperimentError(f"{path}: {e}") from None
    exp["_path"] = str(path)
    return exp


def _check_na(path: Path, exp: dict) -> None:
    """Each `[[na]]` entry has a reason and names only grid keys."""
    keys = set(exp["grid"]) | set(exp.get("quick", {}).get("grid", {}))
    for i, entry in enumerate(exp.get("na", [])):
        where = f"{path}: na[{i}]"
        if not isinstance(entry.get("reason"), str) or not entry["reason"].strip():
            raise ExperimentError(f"{where}: a reason is required")
        named = set(entry) - {"reason"}
        if not named or named - keys:
            raise ExperimentError(
                f"{where}: names no grid key, or one that is not ({sorted(named - keys)})"
            )


def na_reason(exp: dict, params: dict) -> str | None:
    """Why a configuration cannot run (its `[[na]]` entry's reason), or None if it can."""
    for entry in exp.get("na", []):
        if all(
            str(params.get(k)) in map(str, _as_list(v)) for k, v in entry.items() if k != "reason"
        ):
            return entry["reason"]
    return None


def replicate_seed(exp_id: str, i: int) -> int:
    """Seed of replicate i, in every configuration: the experiment id is the campaign
    (`routerlab.seeding`, the scheme sweeps use)."""
    return seeding.replicate_seed(exp_id, i)


def grid(exp: dict, quick: bool) -> list[dict]:
    """The configurations: the cross product of the grid's list values, less those that an
    `[[na]]` entry says cannot run."""
    return [p for p in full_grid(exp, quick) if na_reason(exp, p) is None]


def full_grid(exp: dict, quick: bool) -> list[dict]:
    """The cross product of the grid's list values, n/a configurations included."""
    g = dict(exp.get("grid", {}))
    if quick:
        g.update(exp.get("quick", {}).get("grid", {}))
    keys = sorted(g)
    lists = [_as_list(g[k]) for k in keys]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*lists)]


def _as_list(v) -> list:
    """A grid value as the list of values it stands for (a scalar is constant)."""
    return v if isinstance(v, list) else [v]


def constants(exp: dict, quick: bool) -> dict:
    """The experiment's constants, with the quick variant's overrides if `quick`."""
    c = dict(exp.get("constants", {}))
    if quick:
        c.update(exp.get("quick", {}).get("constants", {}))
    return c


def render(exp: dict, params: dict, quick: bool = False) -> str:
    """The scenario text of one configuration."""
    values = {k: _toml_text(v) for k, v in {**constants(exp, quick), **params}.items()}
    chosen = {}
    for key, table in exp.get("variants", {}).items():
        if key in params:
            chosen.update({name: _toml_text(v) for name, v in table[str(params[key])].items()})
    values.update(chosen)
    # Variant values may use each other's placeholders: substitute until nothing changes.
    for _ in range(len(chosen) + 1):
        done = {k: string.Template(v).safe_substitute(values) for k, v in chosen.items()}
        if done == chosen:
            break
        chosen = done
        values.update(chosen)
    try:
        return string.Template(exp["scenario"]["template"]).substitute(
            {k: _toml_text(v) for k, v in values.items()}
        )
    except (KeyError, ValueError) as e:
        raise ExperimentError(f"{exp['id']}: the template's placeholder {e} has no value") from None


def check_scenarios(exp: dict, quick: bool) -> None:
    """Every configuration's scenario is valid, before anything runs."""
    for params in grid(exp, quick):
        problems = _core.check(render(exp, params, quick), str(experiments_dir()))
        if problems:
            raise ExperimentError(
                f"{exp['id']}, configuration {json.dumps(params, sort_keys=True)}: "
                + "; ".join(problems)
            )


def _toml_text(v) -> str:
    """A value as it reads inside TOML (booleans lowercase; strings bare, the template quotes)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@dataclass
class Run:
    """One simulation of one configuration with one seed, as the analysis sees it."""

    config: int
    params: dict
    seed: int
    summary: dict
    tables: dict = field(default_factory=dict)


def _run_one(job: tuple[int, dict, str, int]) -> Run:
    config, params, text, seed = job
    from ..runner import simulate

    r = simulate(text, seed=seed, progress=False)
    tables = {"flows": r.flows, "links": r.links}
    if r.transfers is not None:
        tables["transfers"] = r.transfers
    tables.update(r.extra_tables)
    return Run(config=config, params=params, seed=seed, summary=r.summary, tables=tables)


@dataclass
class Analysis:
    """What an experiment's analysis module returns."""

    quantities: dict[str, Estimate]
    tables: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)  # callables fig(directory) -> list of file names
    notes: str = ""


def _run_batch(jobs: list[tuple[int, dict, str, int]]) -> list[Run]:
    return [_run_one(j) for j in jobs]


def run_all(
    exp: dict,
    quick: bool,
    seeds: int,
    jobs: int | None = None,
    progress: bool | None = None,
    backend: str = "local",
    client=None,
    scheduler: str | None = None,
    store: RunStore | None = None,
) -> list[Run]:
    """Every run of the experiment, in (configuration, replicate) order, on a sweep backend
    (`routerlab.sweeps.backends`: the local pool, or Dask). With a ``store``, runs it holds
    are read back instead of simulated, and each new run is kept there as it finishes."""
    from ..sweeps import backends

    configs = grid(exp, quick)
    seed_list = [replicate_seed(exp["id"], i) for i in range(seeds)]
    work = [(ci, p, render(exp, p, quick), s) for ci, p in enumerate(configs) for s in seed_list]
    done: dict[int, Run] = {}
    if store is not None:
        for i, (ci, params, text, seed) in enumerate(work):
            if (kept := store.load(run_key(text, seed))) is not None:
                done[i] = Run(ci, params, seed, *kept)
    todo = [i for i in range(len(work)) if i not in done]
    if not todo:
        return [done[i] for i in range(len(work))]
    bar = backends.progress_bar(len(todo), exp["id"], progress, leave=False)
    results = backends.run_batched(
        _run_batch, [work[i] for i in todo], backend, jobs, client, scheduler
    )
    try:
        with contextlib.closing(results):
            for first, batch, runs in results:
                if isinstance(runs, BaseException):
                    ci, params, _, seed = batch[0]
                    raise RunFailed(
                        f"{exp['id']}: a run failed (configuration {ci} {params}, seed {seed}"
                        f"{' or the others of its batch' if len(batch) > 1 else ''}): "
                        f"{type(runs).__name__}: {runs}"
                    ) from runs
                for k, (job, run) in enumerate(zip(batch, runs, strict=True)):
                    done[todo[first + k]] = run
                    if store is not None:
                        store.save(run_key(job[2], job[3]), run.summary, run.tables)
                if bar:
                    bar.update(len(runs))
    finally:
        if bar:
            bar.close()
    return [done[i] for i in range(len(work))]


def reproduce(
    exp_id: str,
    out: Path,
    quick: bool = False,
    seeds: int | None = None,
    force: bool = False,
    jobs: int | None = None,
    progress: bool | None = None,
    backend: str = "local",
    client=None,
    scheduler: str | None = None,
    keep_runs: bool = False,
) -> dict:
    """Run an experiment and write its directory; returns the verdict. ``backend``, ``client``
    and ``scheduler`` choose where the runs execute (see `routerlab.sweeps.backends`). The
    finished runs are kept in ``OUT.runs/`` (`runs.RunStore`) until the directory is written,
    so that an interrupted reproduction resumes; with ``keep_runs``, also after."""
    exp = load(exp_id)
    seeds = seeds or (QUICK_SEEDS if quick else exp.get("seeds", FULL_SEEDS))
    check_scenarios(exp, quick)
    store = RunStore(store_of(out))
    with AtomicDir(Path(out), force=force) as d:
        runs = run_all(exp, quick, seeds, jobs, progress, backend, client, scheduler, store)
        module = importlib.import_module(f"..experiments.{exp['analysis']}", __package__)
        analysis: Analysis = module.analyze(exp, runs, quick)
        meta = {
            "quick": quick,
            "routerlab_version": _core.version(),
            "git_commit": _core.git_commit(),
            "seeds": [replicate_seed(exp_id, i) for i in range(seeds)],
        }
        verdict = build_verdict(exp, analysis.quantities, meta)
        verdict["notes"] = analysis.notes.strip()
        for name, t in sorted(analysis.tables.items()):
            write_table(d.path, name, t)
        figdir = d.path / "figures"
        figdir.mkdir()
        for fig in analysis.figures:
            fig(figdir)
        sdir = d.path / "scenarios"
        sdir.mkdir()
        for ci, p in enumerate(grid(exp, quick)):
            (sdir / f"config{ci:02d}.toml").write_text(
                f"# {exp_id}, configuration {ci}: {json.dumps(p, sort_keys=True)}\n"
                f"# run with seeds {meta['seeds']} (routerlab run FILE --seed SEED)\n"
                + render(exp, p, quick)
            )
        (d.path / "experiment.toml").write_text(Path(exp["_path"]).read_text())
        write_verdict(d.path, verdict, analysis.notes)
        d.commit()
    if not keep_runs:
        store.remove()
    return verdict
