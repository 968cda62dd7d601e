"""What a sweep is: a base scenario, the parameters varied over it, replicates and seeds.

A sweep is given as a SWEEP.toml file (docs/sweep.md) or as the arguments of
``routerlab.sweep``. Both end here, as a `SweepSpec`: its configurations are the cross product
of the axes, each rendered into a scenario, checked, and keyed by the hash of its normalized
form (defaults filled in, seed removed) — so the key says what is simulated, not how the sweep
was written. Seeds derive from (campaign seed, that hash, replicate index) alone.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import tomli_w

from .. import _core, seeding
from ..api import scenario_source
from ..filekind import misfiled

#: Columns of the campaign table that describe a run; an axis may not take these names.
RUN_COLUMNS = ("run", "config", "replicate", "seed", "spec_hash")

#: Keys of a SWEEP.toml file, and of its [sweep] table.
FILE_KEYS = {"sweep", "base", "grid", "axes", "plot"}
SWEEP_KEYS = {"name", "description", "base", "seeds", "seed", "timeout", "batch"}
PLOT_KEYS = {"x", "y", "hue", "title", "log_y"}


class SweepError(Exception):
    """A sweep that cannot run as written; the message names the key (and configuration)."""


@dataclass
class Axis:
    """One varied parameter: the values shown in tables, and what each sets in the scenario
    (a map of dotted paths to values)."""

    name: str
    labels: list
    overrides: list[dict]


@dataclass
class Config:
    """One configuration: its axis values, scenario text and the hash of its normalized form."""

    index: int
    params: dict
    text: str
    spec_hash: str


@dataclass
class SweepSpec:
    name: str
    base: dict
    base_dir: Path | None = None
    constants: dict = field(default_factory=dict)
    axes: list[Axis] = field(default_factory=list)
    seeds: int = 1
    seed: int = 0
    timeout: float | None = None
    batch: int | None = None
    plots: list[dict] = field(default_factory=list)
    description: str = ""
    source: str | None = None  # the SWEEP.toml text, when read from a file
    base_source: str | None = None  # the base scenario's text, when read from a file
    origin: str | None = None  # the sweep file, named in problems found later

    def configs(self) -> list[Config]:
        """Every configuration, rendered and checked; raises SweepError naming the first
        configuration whose scenario is invalid, with the scenario's field paths."""
        out = []
        labels = [a.labels for a in self.axes]
        for index, combo in enumerate(itertools.product(*[range(len(v)) for v in labels])):
            params = {a.name: a.labels[i] for a, i in zip(self.axes, combo, strict=True)}
            scenario = copy.deepcopy(self.base)
            sets = dict(self.constants)
            for a, i in zip(self.axes, combo, strict=True):
                sets.update(a.overrides[i])
            at = f"{self.origin}: " if self.origin else ""
            for path, value in sets.items():
                where = f"{at}configuration {json.dumps(params, sort_keys=True)}, {path}"
                set_path(scenario, path, value, where)
            text = tomli_w.dumps(scenario)
            try:
                normalized = _core.normalize(text, _str(self.base_dir))
            except ValueError as e:
                problems = e.args[0] if isinstance(e.args[0], list) else [str(e)]
                raise SweepError(
                    f"{at}configuration {json.dumps(params, sort_keys=True)}: invalid scenario\n  "
                    + "\n  ".join(problems)
                ) from None
            out.append(Config(index, params, text, hashlib.sha256(normalized.encode()).hexdigest()))
        return out

    def run_seed(self, replicate: int) -> int:
        """Seed of one replicate, the same in every configuration (`routerlab.seeding`: common
        random numbers, the scheme reproductions use)."""
        return seeding.replicate_seed(self.seed, replicate)

    def describe(self) -> dict:
        """The sweep as JSON-able data (for the manifest)."""
        return {
            "name": self.name,
            "description": self.description,
            "seeds": self.seeds,
            "campaign_seed": self.seed,
            "timeout_s": self.timeout,
            "constants": self.constants,
            "axes": [{"name": a.name, "values": a.labels} for a in self.axes],
            "plots": self.plots,
        }


def run_key(spec_hash: str, replicate: int) -> str:
    """A run's key: its configuration's hash (shortened) and the replicate index."""
    return f"{spec_hash[:16]}-r{replicate}"


def _str(p: Path | None) -> str | None:
    return None if p is None else str(p)


def split_path(path: str) -> list:
    """`a.b.0.c` as keys and list indices."""
    return [int(p) if p.isdigit() else p for p in path.split(".")]


def set_path(doc: dict, path: str, value, where: str) -> None:
    """Set a dotted path (integers index arrays) in a parsed scenario, creating tables."""
    parts = split_path(path)
    node = doc
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list):
            if not isinstance(part, int) or part >= len(node):
                raise SweepError(f"{where}: no element {part} in a list of {len(node)}")
        elif isinstance(node, dict):
            if isinstance(part, int):
                part = str(part)
            if not last and part not in node:
                node[part] = {}
        else:
            raise SweepError(f"{where}: {'.'.join(map(str, parts[:i]))} is not a table")
        if last:
            node[part] = value
        else:
            node = node[part]


def flatten(table: dict, prefix: str = "") -> dict:
    """Nested tables as dotted paths; lists and scalars are leaves."""
    out = {}
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, path + "."))
        else:
            out[path] = v
    return out


def label(value):
    """How an axis value shows in tables: itself, or compact JSON for tables and lists."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return value


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s|min|h)\s*$")
_UNIT = {"ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def parse_timeout(value, where: str) -> float | None:
    """Seconds from a number or a duration string ("90s", "10min", "2h")."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str) and (m := _DURATION.match(value)) and float(m.group(1)) > 0:
        return float(m.group(1)) * _UNIT[m.group(2)]
    raise SweepError(f'{where}: {value!r} is not a positive duration (e.g. 600, "90s", "10min")')


def make_axes(grid: dict | None, axes: dict | None) -> tuple[dict, list[Axis]]:
    """Constants and axes from a grid (dotted paths: a list varies, a scalar is constant) and
    named axes (name → value name → paths set)."""
    constants, out = {}, []
    for path, v in flatten(grid or {}).items():
        where = f"grid.{path}"
        if isinstance(v, list):
            if not v:
                raise SweepError(f"{where}: an empty list of values")
            out.append(Axis(path, [label(x) for x in v], [{path: x} for x in v]))
        else:
            constants[path] = v
    for name, choices in (axes or {}).items():
        where = f"axes.{name}"
        if not isinstance(choices, dict) or not choices:
            raise SweepError(f"{where}: expected a table of named values, each a table of settings")
        overrides = []
        for value, settings in choices.items():
            if not isinstance(settings, dict):
                raise SweepError(f"{where}.{value}: expected a table of settings (path = value)")
            overrides.append(flatten(settings))
        out.append(Axis(name, list(choices), overrides))
    names = [a.name for a in out]
    for a in out:
        if a.name in RUN_COLUMNS:
            raise SweepError(f"axis {a.name!r}: the name is taken by a table column")
        if names.count(a.name) > 1:
            raise SweepError(f"axis {a.name!r} is given twice (in grid and in axes)")
    return constants, out


def _known(table: dict, keys: set[str], prefix: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise SweepError(f"{prefix}{unknown[0]}: unknown key (known: {', '.join(sorted(keys))})")


def check_plots(plots: list, axes: list[Axis]) -> list[dict]:
    names = {a.name for a in axes}
    for i, p in enumerate(plots):
        where = f"plot[{i}]"
        if not isinstance(p, dict):
            raise SweepError(f"{where}: expected a table with x and y")
        _known(p, PLOT_KEYS, f"{where}.")
        for key in ("x", "y"):
            if not isinstance(p.get(key), str):
                raise SweepError(f"{where}.{key}: missing (the name of an axis or a result column)")
        for key in ("x", "hue"):
            if key in p and p[key] not in names:
                raise SweepError(f"{where}.{key}: {p[key]!r} is not an axis ({sorted(names)})")
        if "log_y" in p and not isinstance(p["log_y"], bool):
            raise SweepError(f"{where}.log_y: expected true or false")
    return plots


def from_arguments(
    base,
    grid: dict | None = None,
    axes: dict | None = None,
    seeds: int = 1,
    seed: int = 0,
    name: str | None = None,
    timeout=None,
    batch: int | None = None,
    plots: list | None = None,
) -> SweepSpec:
    """A sweep from ``routerlab.sweep``'s arguments (``base``: a path, TOML text or a dict)."""
    text, base_dir = scenario_source(base)
    try:
        base_doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"base scenario: {e}") from None
    if name is None:
        name = Path(base).stem if isinstance(base, Path | str) and base_dir else "sweep"
    return _finish(
        SweepSpec(
            name=name,
            base=base_doc,
            base_dir=base_dir,
            seeds=seeds,
            seed=seed,
            timeout=parse_timeout(timeout, "timeout"),
            batch=batch,
            base_source=text,
        ),
        grid,
        axes,
        plots or [],
    )


def _finish(spec: SweepSpec, grid, axes, plots) -> SweepSpec:
    spec.constants, spec.axes = make_axes(grid, axes)
    spec.plots = check_plots(plots, spec.axes)
    if not isinstance(spec.seeds, int) or isinstance(spec.seeds, bool) or spec.seeds < 1:
        raise SweepError(f"seeds: {spec.seeds!r} is not a positive number of replicates")
    if not isinstance(spec.seed, int) or isinstance(spec.seed, bool) or spec.seed < 0:
        raise SweepError(f"seed: {spec.seed!r} is not a non-negative integer")
    if spec.batch is not None and (not isinstance(spec.batch, int) or spec.batch < 1):
        raise SweepError(f"batch: {spec.batch!r} is not a positive number of runs per task")
    return spec


def _read_toml(path: Path, where: str) -> tuple[str, dict]:
    try:
        text = path.read_text()
        return text, tomllib.loads(text)
    except OSError as e:
        raise SweepError(f"{where}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{where}: {e}") from None


def load(path: Path) -> SweepSpec:
    """A sweep from a SWEEP.toml file; every problem names the file and the key."""
    path = Path(path)
    source, doc = _read_toml(path, str(path))
    try:
        return _from_document(doc, path, source)
    except SweepError as e:
        raise SweepError(f"{path}: {e}") from None


def _from_document(doc: dict, path: Path, source: str) -> SweepSpec:
    if problem := misfiled(doc, "sweep", str(path)):
        raise SweepError(problem)
    _known(doc, FILE_KEYS, "")
    head = doc.get("sweep", {})
    _known(head, SWEEP_KEYS, "sweep.")
    base_doc, base_dir, base_source = {}, path.resolve().parent, None
    if "base" in head:
        base_file = (path.parent / head["base"]).resolve()
        base_source, base_doc = _read_toml(base_file, f"sweep.base: {head['base']}")
        base_dir = base_file.parent
    for k, v in flatten(doc.get("base", {})).items():
        set_path(base_doc, k, v, f"base.{k}")
    if not base_doc:
        raise SweepError("no base scenario: give sweep.base (a file) or a [base] table")
    spec = SweepSpec(
        name=head.get("name", path.stem),
        description=head.get("description", ""),
        base=base_doc,
        base_dir=base_dir,
        seeds=head.get("seeds", 1),
        seed=head.get("seed", 0),
        timeout=parse_timeout(head.get("timeout"), "sweep.timeout"),
        batch=head.get("batch"),
        source=source,
        base_source=base_source,
        origin=str(path),
    )
    return _finish(spec, doc.get("grid"), doc.get("axes"), doc.get("plot", []))
