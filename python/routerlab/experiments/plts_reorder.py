"""Analysis of plts-reorder: per scheme, mean per-flow throughput as a share of the ideal,
spurious retransmissions, fast recoveries and timeouts per flow; the remedies against PLTS-RR
alone and ECMP (PLTS paper, §III-C)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure, yerr
from .plts_throughput import ideal_bps
from .stages import stage_counters
from .stats import add_row, mean_ci

METRICS = (
    "spurious_per_flow",
    "fast_recoveries_per_flow",
    "timeouts_per_flow",
    "runs_per_flow",
    "released_share",
    "recoveries_per_released_run",
)


def agent_runs(run: Run, flows: int, fast_recoveries: int) -> dict[str, float]:
    """What the hosts' DUPACK agents saw: runs of three duplicates or more per flow, the share
    of them let through to the sender, and the fast recoveries per run let through (NaN
    without an agent)."""
    c = stage_counters(run, "dupack-filter")
    ended, released = c.get("runs_ended", 0), c.get("runs_released", 0)
    return {
        "runs_per_flow": ended / flows if c else float("nan"),
        "released_share": released / ended if ended else float("nan"),
        "recoveries_per_released_run": fast_recoveries / released if released else float("nan"),
    }


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    ideal = ideal_bps(exp)
    per: dict[str, dict[int, dict[str, float]]] = defaultdict(dict)
    for r in runs:
        f = r.tables["flows"].to_pydict()
        n = len(f["goodput_bps"])
        per[r.params["scheme"]][r.seed] = {
            "throughput": float(np.mean(f["goodput_bps"])) / ideal,
            "spurious_per_flow": sum(f["spurious_retransmissions"]) / n,
            "fast_recoveries_per_flow": sum(f["fast_recoveries"]) / n,
            "timeouts_per_flow": sum(f["timeouts"]) / n,
            **agent_runs(r, n, sum(f["fast_recoveries"])),
        }
    schemes = [s for s in exp["grid"]["scheme"] if s in per]
    seeds = sorted(per[schemes[0]])

    def at(scheme, metric="throughput"):
        return [per[scheme][s][metric] for s in seeds]

    def ratio(a, b, metric="throughput"):
        return mean_ci(x / y for x, y in zip(at(a, metric), at(b, metric), strict=True))

    rows = defaultdict(list)
    est = {}
    for scheme in schemes:
        est[scheme] = e = mean_ci(at(scheme))
        extra = {m: mean_ci(at(scheme, m)).mean for m in METRICS}
        add_row(rows, {"scheme": scheme}, e, "throughput_of_ideal", 1.0, extra)

    quantities = {
        "spurious_ratio_dupthresh_paths_over_rr": ratio(
            "rr-dupthresh-paths", "rr", "spurious_per_flow"
        ),
        "gap_closed_dupthresh_paths": mean_ci(
            (x - y) / (1 - y) for x, y in zip(at("rr-dupthresh-paths"), at("rr"), strict=True)
        ),
        "spurious_ratio_agent_over_rr": ratio("rr-agent-percentile", "rr", "spurious_per_flow"),
        "fast_retransmit_ratio_agent_over_rr": ratio(
            "rr-agent-percentile", "rr", "fast_recoveries_per_flow"
        ),
        "agent_released_share": mean_ci(at("rr-agent-percentile", "released_share")),
        "recoveries_per_run_agent_over_plain": ratio(
            "rr-agent-percentile", "rr-agent-watching", "recoveries_per_released_run"
        ),
        "throughput_ratio_agent_over_rr": ratio("rr-agent-percentile", "rr"),
        "throughput_ratio_ecn_agent_over_ecmp_red": ratio("rr-agent-ecn", "ecmp-red"),
        "throughput_ratio_ecn_agent_over_rr_red": ratio("rr-agent-ecn", "rr-red"),
    }
    if {"rr-data", "rr-data-dupthresh-paths", "rr-data-agent-percentile"} <= set(schemes):
        quantities["gap_closed_dupthresh_paths_data"] = mean_ci(
            (x - y) / (1 - y)
            for x, y in zip(at("rr-data-dupthresh-paths"), at("rr-data"), strict=True)
        )
        quantities["throughput_ratio_agent_over_rr_data"] = ratio(
            "rr-data-agent-percentile", "rr-data"
        )
    if {"rr-red-dupthresh-paths", "rr-agent-ecn-dupthresh-paths"} <= set(schemes):
        quantities["ecn_agent_gain_dupthresh_3_minus_paths"] = mean_ci(
            a / b - c / d
            for a, b, c, d in zip(
                at("rr-agent-ecn"),
                at("rr-red"),
                at("rr-agent-ecn-dupthresh-paths"),
                at("rr-red-dupthresh-paths"),
                strict=True,
            )
        )
    if {"rr-agent-ecn-slow", "ecmp-red-slow"} <= set(schemes):
        quantities["throughput_ratio_ecn_agent_over_ecmp_red_slow"] = ratio(
            "rr-agent-ecn-slow", "ecmp-red-slow"
        )

    def draw(ax):
        x = np.arange(len(schemes))
        es = [est[s].scaled(100) for s in schemes]
        ax.bar(x, [e.mean for e in es], yerr=yerr(es))
        ax.set_xticks(x, schemes, rotation=30, ha="right")
        ax.set_ylabel("throughput (% of ideal)")
        ax.set_ylim(0, 105)

    return Analysis(
        quantities=quantities,
        tables={"reorder": pa.table(dict(rows))},
        figures=[figure(draw, "throughput", f"{exp['id']}: PLTS-RR's remedies for reordering")],
    )
