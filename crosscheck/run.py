"""`make crosscheck`: routerlab against ns-3 3.44 on the canonical scenarios of `grid.py`.

Runs every point under every perturbation in both simulators (ns-3 through the `ns3` wheel in
its own interpreter, routerlab in this one), averages each metric over the perturbations, and
writes `results/crosscheck/`: `ns3.json` and `routerlab.json` (every run's raw counters) and
`table.md` (ns-3, routerlab, their ratio and whether it is within tolerance). `--reference`
compares with the stored ns-3 runs (`reference/ns3.json`: each run's metrics) instead of
running ns-3; `--update` writes the table into docs/crosscheck.md and stores ns-3's metrics
of every point there (a point that changes routerlab only has the compared point's).

    python crosscheck/run.py --ns3-python .venv-ns3/bin/python [--update]
    python crosscheck/run.py --reference [--points incast-40-256pkts-200ms ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import grid  # noqa: E402
import records  # noqa: E402

REFERENCE = HERE / "reference" / "ns3.json"
DOCS = HERE.parent / "docs" / "crosscheck.md"
BEGIN, END = "<!-- crosscheck table: begin -->", "<!-- crosscheck table: end -->"
METRICS = [
    ("goodput_mbps", "goodput (Mbps)"),
    ("jain", "Jain"),
    ("drops", "drops"),
    ("retransmissions", "retransmissions"),
    ("timeouts", "timeouts"),
    ("syn_timeouts", "SYN timeouts"),
    ("recoveries", "fast recoveries"),
    ("fct_mean_ms", "FCT mean (ms)"),
    ("fct_p99_ms", "FCT p99 (ms)"),
    ("slow_rounds", "rounds with a timeout"),
]


def jobs(names: list[str], perturbations: int) -> list[dict]:
    return [{"point": n, "k": k} for n in names for k in range(perturbations)]


def run_ns3(python: str, todo: list[dict], workers: int) -> list[dict]:
    """ns-3 runs, split over `workers` interpreters (each compiles the C++ once)."""
    shares = [todo[i::workers] for i in range(workers)]
    procs = []
    for share in shares:
        if not share:
            continue
        p = subprocess.Popen(
            [os.path.abspath(python), str(HERE / "ns3_side.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=HERE,
        )
        p.stdin.write(json.dumps(share))
        p.stdin.close()
        procs.append(p)
    out = []
    for p in procs:
        for line in p.stdout:
            rec = json.loads(line)
            rec["raw"] = records.normalize_ns3(rec["raw"])
            out.append(rec)
            print(f"  ns-3      {rec['point']} #{rec['k']}", file=sys.stderr, flush=True)
        if p.wait() != 0:
            raise SystemExit(f"crosscheck: the ns-3 side failed (exit {p.returncode})")
    return out


def run_ns3_once(python: str, todo: list[dict], workers: int) -> list[dict]:
    """ns-3 runs of `todo`, each simulation once: a point that changes only routerlab
    (`ns3_same_as`) gets the runs of the point it names."""
    base = {j["point"]: grid.ns3_point(j["point"]) for j in todo}
    needed = sorted({(base[j["point"]], j["k"]) for j in todo}, key=lambda pk: (pk[0], pk[1]))
    runs = run_ns3(python, [{"point": p, "k": k} for p, k in needed], workers)
    by_key = {(r["point"], r["k"]): r for r in runs}
    return [{**by_key[(base[j["point"]], j["k"])], "point": j["point"]} for j in todo]


def _routerlab_job(job: dict) -> dict:
    import routerlab_side

    return {**job, "raw": routerlab_side.run(job["point"], job["k"])}


def run_routerlab(todo: list[dict], workers: int) -> list[dict]:
    out = []
    with ProcessPoolExecutor(workers) as pool:
        for rec in pool.map(_routerlab_job, todo):
            print(f"  routerlab {rec['point']} #{rec['k']}", file=sys.stderr, flush=True)
            out.append(rec)
    return out


def with_metrics(runs: list[dict]) -> list[dict]:
    """Each run with its metrics (runs read from the reference have them already)."""
    return [
        r if "metrics" in r else {**r, "metrics": records.metrics(grid.point(r["point"]), r["raw"])}
        for r in runs
    ]


def means(runs: list[dict], names: list[str]) -> dict[str, dict[str, float]]:
    by_point: dict[str, list[dict]] = {}
    for r in runs:
        by_point.setdefault(r["point"], []).append(r["metrics"])
    return {n: records.mean_metrics(by_point[n]) for n in names if n in by_point}


def fmt(x: float) -> str:
    if math.isnan(x):
        return "—"
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"


def table(ns3: dict, ours: dict, names: list[str], perturbations: int) -> str:
    lines = [
        f"Means over {perturbations} start-time perturbations. Within tolerance: goodput ±5 %, "
        "Jain ±0.05, drops ±30 %, FCT ±25 %; retransmissions, timeouts, fast recoveries and "
        "rounds with a timeout (incast: rounds of 10 whose slowest block took at least the "
        "minimum RTO) are reported, not judged.",
        "",
        "| point | metric | ns-3 | routerlab | ratio | within |",
        "|---|---|---|---|---|---|",
    ]
    for n in names:
        if n not in ns3 or n not in ours:
            continue
        for key, label in METRICS:
            a, b = ns3[n][key], ours[n][key]
            if math.isnan(a) and math.isnan(b):
                continue
            ratio = b / a if a else (float("nan") if b else 1.0)
            ok = records.within(key, a, b)
            mark = "—" if ok is None else ("yes" if ok else "**no**")
            lines.append(f"| {n} | {label} | {fmt(a)} | {fmt(b)} | {fmt(ratio)} | {mark} |")
    return "\n".join(lines) + "\n"


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
        f.write(text)
    os.chmod(f.name, 0o644)
    os.replace(f.name, path)


def update_docs(text: str, stamp: str) -> None:
    doc = DOCS.read_text()
    i, j = doc.index(BEGIN), doc.index(END)
    write_atomically(DOCS, doc[: i + len(BEGIN)] + f"\n{stamp}\n\n{text}" + doc[j:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--ns3-python", help="the interpreter with the ns3 wheel (.venv-ns3/bin/python)"
    )
    ap.add_argument("--reference", action="store_true", help="compare with the stored ns-3 runs")
    ap.add_argument("--points", nargs="*", help="only these points (default: the whole grid)")
    ap.add_argument("--perturbations", type=int, default=grid.PERTURBATIONS)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default="results/crosscheck")
    ap.add_argument(
        "--update",
        action="store_true",
        help="write the docs table and store ns-3's runs",
    )
    args = ap.parse_args(argv)
    all_names = [p.name for p in grid.points()]
    names = args.points or all_names
    unknown = sorted(set(names) - set(all_names))
    if unknown:
        ap.error(f"unknown points: {', '.join(unknown)} (known: {', '.join(all_names)})")
    if not args.reference and not args.ns3_python:
        ap.error("give --ns3-python (the ns-3 interpreter) or --reference (the stored ns-3 runs)")
    if args.update and (args.points or args.perturbations != grid.PERTURBATIONS):
        ap.error("--update needs the whole grid")
    todo = jobs(names, args.perturbations)
    t0 = time.time()
    if args.reference:
        stored = {(r["point"], r["k"]): r for r in json.loads(REFERENCE.read_text())}
        ns3_runs = [
            {**stored[key], "point": j["point"]}
            for j in todo
            if (key := (grid.ns3_point(j["point"]), j["k"])) in stored
        ]
    else:
        ns3_runs = run_ns3_once(args.ns3_python, todo, args.jobs)
    ours_runs = with_metrics(run_routerlab(todo, args.jobs))
    ns3_runs = with_metrics(ns3_runs)
    out = Path(args.out)
    write_atomically(out / "ns3.json", json.dumps(ns3_runs, indent=1))
    write_atomically(out / "routerlab.json", json.dumps(ours_runs, indent=1))
    text = table(means(ns3_runs, names), means(ours_runs, names), names, args.perturbations)
    write_atomically(out / "table.md", text)
    print(text)
    print(f"crosscheck: {len(todo)} runs per simulator in {time.time() - t0:.0f} s → {out}/")
    if args.update:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
        ).stdout.strip()
        day = time.strftime("%Y-%m-%d")
        at = f"at commit {commit or 'unknown'} on {day}"
        # ns-3's runs of every point, those of a point that changes routerlab only being the
        # compared point's (read from the reference itself with --reference).
        ns3_runs.sort(key=lambda r: (all_names.index(r["point"]), r["k"]))
        stored = [{"point": r["point"], "k": r["k"], "metrics": r["metrics"]} for r in ns3_runs]
        write_atomically(REFERENCE, json.dumps(stored, indent=1) + "\n")
        if args.reference:
            stamp = f"Generated by `crosscheck/run.py --reference --update` {at}, ns-3's runs "
            stamp += "from `crosscheck/reference/ns3.json`."
        else:
            stamp = f"Generated by `make crosscheck` {at}."
        update_docs(text, stamp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
