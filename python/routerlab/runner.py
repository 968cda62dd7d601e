"""Running one scenario: build it, step it with a progress bar, collect and write its results."""

from __future__ import annotations

import errno
import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from . import _core
from .filekind import misfiled
from .output import (
    FLOW_SCHEMA,
    LINK_SCHEMA,
    OPTIONAL_TABLES,
    TRANSFER_SCHEMA,
    AtomicDir,
    pcap_file_name,
    table,
    write_json,
    write_table,
)
from .progress import bar as progress_bar
from .progress import wanted as progress_wanted

# Events per step between progress updates (and Ctrl-C checks): a few milliseconds of work,
# and at most STEP_SECONDS of wall time however slow the events are.
STEP_EVENTS = 200_000
STEP_SECONDS = 0.1


class RunTimeout(Exception):
    """A run took longer than its wall-clock limit."""


class ScenarioInvalid(Exception):
    """The scenario was rejected; ``.problems`` lists each problem with its field path."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def problems_text(where: str, problems: list[str]) -> str:
    """A rejected scenario's report: where it came from, then each problem with its field
    path, one per line."""
    return f"{where}: invalid scenario\n" + "\n".join(f"  {p}" for p in problems)


def read_scenario(path: Path) -> str:
    """A scenario file's text; `OSError` (with a `strerror` to print) if it cannot be read or
    is not UTF-8 text, as TOML is."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise OSError(
            errno.EILSEQ, f"not a UTF-8 text file (byte {e.start}); a TOML scenario is UTF-8"
        ) from None


def check_file(path: Path) -> list[str]:
    """The problems of a scenario file (none if it is valid), relative file names in it
    resolved beside it; `OSError` if it cannot be read."""
    text = read_scenario(path)
    problems = _core.check(text, str(path.resolve().parent))
    # Only a file the engine refuses can be of another kind (a scenario has none of their keys).
    if problems and (problem := misfiled(text, "scenario", str(path))):
        return [problem]
    return problems


def estimate_file(path: Path) -> tuple[str, str]:
    """The memory and the results a valid scenario file's run is estimated to take, as text
    ("120.0 MiB"): what `--max-memory` and `--max-output` are checked against."""
    memory, output = _core.estimate(read_scenario(path), str(path.resolve().parent))
    return _core.format_bytes(memory), _core.format_bytes(output)


def scenario_hash(normalized_json: str) -> str:
    return hashlib.sha256(normalized_json.encode()).hexdigest()


def build(
    text: str, seed: int | None = None, base_dir: Path | None = None, name: str = "FILE"
) -> _core.Run:
    """The engine's run of a scenario (`ScenarioInvalid` if it is not valid); ``name``: the
    file the text came from, for the command a file of another kind is run with."""
    try:
        return _core.Run(text, seed, str(base_dir) if base_dir is not None else None)
    except ValueError as e:
        problems = e.args[0] if e.args and isinstance(e.args[0], list) else [str(e)]
        # Only a file the engine refuses can be of another kind: no parse on the way to a run.
        if problem := misfiled(text, "scenario", name):
            problems = [problem]
        raise ScenarioInvalid(problems) from None


@dataclass
class RunResult:
    """A finished run: its summary, tables (Arrow) and timing."""

    summary: dict
    flows: pa.Table
    links: pa.Table
    timing: dict
    normalized: str
    transfers: pa.Table | None = None
    extra_tables: dict = field(default_factory=dict)
    pcaps: dict = field(default_factory=dict)


@dataclass
class Prepared:
    """A scenario checked and built, not yet run, and the seconds that took."""

    run: _core.Run
    setup_seconds: float


def prepare(
    text: str, seed: int | None = None, base_dir: Path | None = None, name: str = "FILE"
) -> Prepared:
    """Check and build a scenario given as TOML text (`ScenarioInvalid` if it is not valid);
    ``base_dir``: where relative file names in the scenario are found; ``name``: the file it
    came from."""
    t0 = time.perf_counter()
    run = build(text, seed, base_dir, name)
    return Prepared(run, time.perf_counter() - t0)


def simulate(
    text: str,
    seed: int | None = None,
    progress: bool | None = None,
    base_dir: Path | None = None,
    timeout: float | None = None,
) -> RunResult:
    """Run a scenario given as TOML text. ``progress``: None = show only on a terminal;
    ``base_dir``: where relative file names in the scenario are found; ``timeout``: wall
    seconds the simulation may take before `RunTimeout` is raised."""
    return execute(prepare(text, seed, base_dir), progress, timeout)


def execute(
    prepared: Prepared, progress: bool | None = None, timeout: float | None = None
) -> RunResult:
    """Run a prepared scenario to its end (see `simulate`)."""
    run, setup = prepared.run, prepared.setup_seconds
    bar = None
    if progress_wanted(progress):
        bar = progress_bar(
            total=round(run.end_s, 6),
            unit="s",
            unit_scale=False,
            desc="simulating",
            bar_format="{desc} {percentage:3.0f}%|{bar}| {n:.3f}/{total:.3f} sim-s "
            "[{elapsed}<{remaining}{postfix}]",
            leave=False,
        )
    t1 = time.perf_counter()
    try:
        while not run.step(STEP_EVENTS, STEP_SECONDS):
            if timeout is not None and time.perf_counter() - t1 > timeout:
                raise RunTimeout(
                    f"timed out after {timeout:g} s of wall time, at {run.now_s:.6g} of "
                    f"{run.end_s:g} simulated seconds"
                )
            if bar is not None:
                wall = time.perf_counter() - t1
                bar.n = round(run.now_s, 6)
                bar.set_postfix_str(f"{run.events / max(wall, 1e-9) / 1e6:.1f} M events/s")
    finally:
        if bar is not None:
            bar.close()
    wall = time.perf_counter() - t1
    res = run.results()
    summary = dict(res["summary"])
    summary.update(
        {
            "scenario_hash": scenario_hash(run.normalized),
            "seed": run.seed,
            "routerlab_version": _core.version(),
            "git_commit": _core.git_commit(),
        }
    )
    timing = {
        "wall_seconds": wall,
        "setup_seconds": setup,
        "events_per_s": run.events / wall if wall > 0 else 0.0,
        "packet_hops_per_s": run.packet_hops / wall if wall > 0 else 0.0,
    }
    extra = {
        name: table(res[name], schema) for name, schema in OPTIONAL_TABLES.items() if name in res
    }
    return RunResult(
        summary=summary,
        flows=table(res["flows"], FLOW_SCHEMA),
        links=table(res["links"], LINK_SCHEMA),
        timing=timing,
        normalized=run.normalized,
        transfers=table(res["transfers"], TRANSFER_SCHEMA),
        extra_tables=extra,
        pcaps=dict(run.pcaps()),
    )


def write_result(
    result: RunResult, out: Path, scenario_text: str, force: bool = False
) -> list[str]:
    """Write a run's files into ``out`` atomically; returns the file names."""
    with AtomicDir(out, force=force) as d:
        files = write_files(result, d.path, scenario_text)
        d.commit()
    return files


def write_files(result: RunResult, directory: Path, scenario_text: str) -> list[str]:
    write_json(directory / "summary.json", result.summary)
    write_json(directory / "timing.json", result.timing)
    files = ["summary.json", "timing.json"]
    files += write_table(directory, "flows", result.flows)
    files += write_table(directory, "links", result.links)
    if result.transfers is not None and result.transfers.num_rows:
        files += write_table(directory, "transfers", result.transfers, csv=False)
    for name, t in result.extra_tables.items():
        files += write_table(directory, name, t, csv=False)
    if result.pcaps:
        (directory / "pcap").mkdir()
        for link, data in sorted(result.pcaps.items()):
            (directory / "pcap" / pcap_file_name(link)).write_bytes(data)
        files.append("pcap/")
    (directory / "scenario.toml").write_text(scenario_text)
    (directory / "scenario.normalized.json").write_text(result.normalized + "\n")
    files += ["scenario.toml", "scenario.normalized.json"]
    return files
