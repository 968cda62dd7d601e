"""Analysis of taq-short: the short flows' download times against their number of packets, per
queue (TAQ Fig. 10): the median per packet count and its straight-line fit, and the medians and
spread of the shortest flows."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import mean_ci


def short_transfers(run: Run, mss: int, warmup_s: float) -> list[tuple[int, float]]:
    """(packets, download seconds) of the completed short transfers started after warm-up."""
    t = run.tables["transfers"].to_pydict()
    out = []
    for group, size, start, end in zip(
        t["group"], t["size_bytes"], t["start_s"], t["end_s"], strict=True
    ):
        if group == "short" and end is not None and start >= warmup_s:
            out.append((math.ceil(size / mss), end - start))
    return out


def r2_of_medians(points: list[tuple[int, float]]) -> float:
    by = defaultdict(list)
    for k, d in points:
        by[k].append(d)
    ks = sorted(by)
    if len(ks) < 3:
        return float("nan")
    x = np.asarray(ks, dtype=float)
    y = np.asarray([np.median(by[k]) for k in ks])
    slope, icept = np.polyfit(x, y, 1)
    resid = y - (slope * x + icept)
    total = ((y - y.mean()) ** 2).sum()
    return float(1 - (resid**2).sum() / total) if total > 0 else float("nan")


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    per: dict[str, dict[int, list[tuple[int, float]]]] = defaultdict(dict)
    for r in runs:
        per[r.params["queue"]][r.seed] = short_transfers(r, c["mss"], c["warmup_s"])
    queues = [q for q in exp["grid"]["queue"] if q in per]
    seeds = sorted(per[queues[0]])

    def short_times(q, s):
        return [d for k, d in per[q][s] if k <= c["short_packets"]]

    def median_short(q, s):
        return float(np.median(short_times(q, s)))

    def spread(q, s):
        x = short_times(q, s)
        return float(np.percentile(x, 90) / np.percentile(x, 50))

    quantities = {
        "r2_median_time_vs_packets_taq": mean_ci(r2_of_medians(per["taq"][s]) for s in seeds),
        "median_time_short_taq_over_droptail": mean_ci(
            median_short("taq", s) / median_short("droptail", s) for s in seeds
        ),
        "p90_over_p50_short_taq_minus_droptail": mean_ci(
            spread("taq", s) - spread("droptail", s) for s in seeds
        ),
    }

    rows = defaultdict(list)
    for q in queues:
        rows["queue"].append(q)
        rows["transfers"].append(sum(len(per[q][s]) for s in seeds))
        for name, f in (
            ("median_short_s", median_short),
            ("p90_over_p50_short", spread),
            ("r2_medians", lambda q, s: r2_of_medians(per[q][s])),
        ):
            rows[name].append(mean_ci(f(q, s) for s in seeds).mean)
        rows["seeds"].append(len(seeds))

    def draw(ax):
        for q in queues:
            by = defaultdict(list)
            for s in seeds:
                for k, d in per[q][s]:
                    by[k].append(d)
            ks = sorted(by)
            ax.plot(
                ks, [np.median(by[k]) for k in ks], marker="o", markersize=3, label=f"{q}: median"
            )
            ax.plot(
                ks,
                [np.percentile(by[k], 90) for k in ks],
                linestyle=":",
                label=f"{q}: 90th percentile",
            )
        ax.set_xlabel("short flow length (packets)")
        ax.set_ylabel("download time (s)")
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"short": pa.table(dict(rows))},
        figures=[
            figure(
                draw, "download_time_vs_packets", f"{exp['id']}: 32 short flows, 50 long, 1 Mbps"
            )
        ],
    )
