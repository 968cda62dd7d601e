"""`routerlab bench`: how fast the simulator runs the fixed benchmark scenarios.

Each run is a fresh subprocess (``python -m routerlab.bench SCENARIO SPAWNED``), so that the
peak RSS and the simulator's peak heap are that run's alone, and a warm cache from an earlier
run cannot help. The subprocess times the simulation loop by itself (one call into Rust for the
whole run: no Python between events) and reports ``setup_seconds`` apart: from the moment the
parent spawned it (interpreter start, imports, scenario parsing and building) to the loop's
start. Of N runs per scenario, the median run by loop time is reported, whole (all its figures
from the same run).

The scenarios are the files in ``routerlab/benchmarks/``; see docs/performance.md for what each
stands for and the targets.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).parent / "benchmarks"

#: The keys of each `--json` record, in order.
KEYS = (
    "scenario",
    "sim_seconds",
    "events",
    "packet_hops",
    "wall_seconds",
    "setup_seconds",
    "events_per_s",
    "packet_hops_per_s",
    "peak_rss_bytes",
    "sim_peak_bytes",
)


class BenchError(Exception):
    pass


#: The reference scenario first, then the scaling checks.
ORDER = ("dumbbell-1g", "dumbbell-10g-1000", "fattree-k8")


def scenarios() -> dict[str, Path]:
    """The benchmark scenarios by name: ORDER first, then any others by name."""
    found = {p.stem: p for p in sorted(BENCH_DIR.glob("*.toml"))}
    first = [n for n in ORDER if n in found]
    return {n: found[n] for n in first + [n for n in found if n not in ORDER]}


def measure_once(path: Path) -> dict:
    """Run one scenario in a fresh interpreter; its figures."""
    spawned = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "routerlab.bench", str(path), repr(spawned)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise BenchError(f"{path.stem}: the benchmark run failed:\n{proc.stderr.strip()}")
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec["scenario"] = path.stem
    wall = rec["wall_seconds"]
    rec["events_per_s"] = rec["events"] / wall if wall > 0 else 0.0
    rec["packet_hops_per_s"] = rec["packet_hops"] / wall if wall > 0 else 0.0
    return {k: rec[k] for k in KEYS}


def median_run(runs: list[dict]) -> dict:
    """The run whose loop time is the median (the lower middle one for an even count)."""
    ordered = sorted(runs, key=lambda r: r["wall_seconds"])
    return ordered[(len(ordered) - 1) // 2]


def run(names: list[str], repeat: int, progress) -> list[dict]:
    """Median run of each named scenario over `repeat` runs; `progress(msg)` reports."""
    available = scenarios()
    results = []
    for name in names:
        runs = []
        progress(f"{name}: {repeat} run(s) …")
        for i in range(repeat):
            runs.append(measure_once(available[name]))
            r = runs[-1]
            progress(
                f"{name}: run {i + 1}/{repeat}: loop {r['wall_seconds']:.3f} s, "
                f"{r['packet_hops_per_s'] / 1e6:.2f} M packet-hops/s"
            )
        best = dict(median_run(runs))
        best["wall_seconds_all"] = [r["wall_seconds"] for r in runs]
        results.append(best)
    return results


def format_table(results: list[dict]) -> str:
    head = (
        f"{'scenario':<20} {'sim s':>6} {'events':>11} {'pkt-hops':>11} {'wall s':>7} "
        f"{'setup s':>7} {'M ev/s':>7} {'M hops/s':>8} {'RSS MB':>7} {'heap MB':>7}"
    )
    lines = [head]
    for r in results:
        lines.append(
            f"{r['scenario']:<20} {r['sim_seconds']:>6g} {r['events']:>11,} "
            f"{r['packet_hops']:>11,} {r['wall_seconds']:>7.3f} {r['setup_seconds']:>7.3f} "
            f"{r['events_per_s'] / 1e6:>7.2f} {r['packet_hops_per_s'] / 1e6:>8.2f} "
            f"{r['peak_rss_bytes'] / 1e6:>7.1f} {r['sim_peak_bytes'] / 1e6:>7.1f}"
        )
    return "\n".join(lines)


def _child(path: str, spawned: float) -> None:
    """The measured subprocess: build, run the loop in one call, report one JSON line."""
    from . import _core

    text = Path(path).read_text()
    _core.reset_peak_heap()
    sim = _core.Run(text, None, Path(path).parent)
    t0 = time.monotonic()
    setup = t0 - spawned
    start = time.perf_counter()
    done = sim.step(2**63)
    wall = time.perf_counter() - start
    assert done, "the run did not finish"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    rec = {
        "sim_seconds": sim.end_s,
        "events": sim.events,
        "packet_hops": sim.packet_hops,
        "wall_seconds": wall,
        "setup_seconds": setup,
        "peak_rss_bytes": usage.ru_maxrss * 1024,  # Linux reports kilobytes
        "sim_peak_bytes": _core.peak_heap_bytes(),
    }
    print(json.dumps(rec))


if __name__ == "__main__":
    _child(sys.argv[1], float(sys.argv[2]))
