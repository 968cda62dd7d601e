"""Analysis of cp-query: query completion times (QCT) of repeated 20-sender incast queries, per
scheme (TCP, DCTCP, CP on each): mean, 99th percentile, share of queries slower than 15 ms,
timeouts per query."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pyarrow as pa

from . import Analysis, Run
from .plots import figure
from .stats import add_row, mean_ci


def query_times(run: Run) -> list[float]:
    """Each query's completion time (s): from its first block's start to its last block's
    arrival. Queries with a block that never arrived are left out (the run was too short)."""
    t = run.tables["transfers"].to_pydict()
    start: dict[int, float] = {}
    end: dict[int, float] = {}
    for q, s, e in zip(t["seq"], t["start_s"], t["end_s"], strict=True):
        start[q] = min(start.get(q, s), s)
        end[q] = math.inf if e is None else max(end.get(q, e), e)
    return [end[q] - start[q] for q in sorted(start) if end[q] != math.inf]


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    slow = float(exp["constants"]["slow_ms"]) * 1e-3
    qct: dict[str, dict[int, list[float]]] = defaultdict(dict)
    timeouts: dict[str, dict[int, float]] = defaultdict(dict)
    for r in runs:
        scheme = r.params["scheme"]
        qct[scheme][r.seed] = times = query_times(r)
        timeouts[scheme][r.seed] = r.summary["timeouts"] / max(len(times), 1)
    schemes = [s for s in exp["grid"]["scheme"] if s in qct]
    seeds = sorted(qct[schemes[0]])

    def per_seed(scheme, f):
        return [f(np.asarray(qct[scheme][s])) for s in seeds]

    def p99(x):
        return float(np.percentile(x, 99))

    def slow_share(x):
        return float((x > slow).mean())

    rows = defaultdict(list)
    for scheme in schemes:
        extra = {
            "p99_ms": mean_ci(per_seed(scheme, p99)).mean * 1e3,
            "slow_share": mean_ci(per_seed(scheme, slow_share)).mean,
            "timeouts_per_query": mean_ci(timeouts[scheme][s] for s in seeds).mean,
            "queries": sum(len(qct[scheme][s]) for s in seeds),
        }
        add_row(rows, {"scheme": scheme}, mean_ci(per_seed(scheme, np.mean)), "mean_ms", 1e3, extra)

    quantities = {
        "p99_ratio_cp-dctcp_over_dctcp": mean_ci(
            a / b for a, b in zip(per_seed("cp-dctcp", p99), per_seed("dctcp", p99), strict=True)
        ),
        "slow_share_dctcp": mean_ci(per_seed("dctcp", slow_share)),
        "slow_share_cp-dctcp": mean_ci(per_seed("cp-dctcp", slow_share)),
    }
    for scheme in schemes:
        quantities[f"p99_ms_{scheme}"] = mean_ci(per_seed(scheme, p99)).scaled(1e3)
        quantities[f"mean_ms_{scheme}"] = mean_ci(per_seed(scheme, np.mean)).scaled(1e3)

    def draw(ax):
        for scheme in schemes:
            x = np.sort(np.concatenate([qct[scheme][s] for s in seeds])) * 1e3
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=scheme)
        ax.axvline(slow * 1e3, color="grey", linestyle=":", label=f"{slow * 1e3:.0f} ms")
        ax.set_xscale("log")
        ax.set_xlabel("query completion time (ms)")
        ax.set_ylabel("CDF of queries")
        ax.legend()

    p = {s: quantities[f"p99_ms_{s}"].mean for s in schemes}
    notes = (
        "99th percentiles (ms): "
        + ", ".join(f"{s} {p[s]:.1f}" for s in schemes)
        + '. The slides\' table ("DCTCP TCP … 99th 10.2ms 5.7ms") can be read as DCTCP 10.2 ms '
        "vs CP 5.7 ms, or as CP on DCTCP 10.2 ms vs CP on TCP 5.7 ms; our ratio CP-on-DCTCP / "
        f"DCTCP is {p['cp-dctcp'] / p['dctcp']:.2f} (first reading: 0.56) and CP-on-TCP / "
        f"CP-on-DCTCP is {p['cp'] / p['cp-dctcp']:.2f} (second reading: 0.56)."
    )
    return Analysis(
        quantities=quantities,
        tables={"qct": pa.table(dict(rows))},
        figures=[figure(draw, "qct_cdf", f"{exp['id']}: 20 × 50 KB queries, 1 Gbps")],
        notes=notes,
    )
