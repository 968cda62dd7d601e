"""Analysis of base-small-packet-capacity: per bottleneck capacity, the 20 s Jain index and the
utilization against the per-flow fair share, and where the index falls below 0.9 (the knee,
in packets per RTT) at each capacity (TAQ §2.2, Fig. 2)."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .small_packet import (
    bottleneck_utilization,
    capacities_by_rate,
    fair_share_axes,
    knee,
    point_capacity,
    point_share_bps,
)
from .stats import mean_ci


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    points = exp["variants"]["point"]
    packet_bits = c["packet_bytes"] * 8

    def share_bps(point: str) -> float:
        return point_share_bps(points[point])

    def share_packets(point: str) -> float:
        return share_bps(point) * c["rtt_with_queue_s"] / packet_bits

    # metric[name][capacity][seed][point]
    metric: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in runs:
        p = r.params["point"]
        metric["jain20"][point_capacity(p)][r.seed][p] = r.summary["jain_short_mean"]
        metric["utilization"][point_capacity(p)][r.seed][p] = bottleneck_utilization(r)
    caps = [cap for cap in capacities_by_rate(points) if cap in metric["jain20"]]
    seeds = sorted(metric["jain20"][caps[0]])

    def knees(cap: str) -> list[float]:
        by_seed = metric["jain20"][cap]
        return [knee({share_packets(p): j for p, j in by_seed[s].items()}) for s in seeds]

    quantities = {f"knee_packets_per_rtt_{cap}": mean_ci(knees(cap)) for cap in caps}
    if {"300kbps", "3mbps"} <= set(caps):
        quantities["knee_3mbps_over_300kbps"] = mean_ci(
            a / b for a, b in zip(knees("3mbps"), knees("300kbps"), strict=True)
        )

    rows = defaultdict(list)
    est = {}
    for cap in caps:
        for p in sorted(metric["jain20"][cap][seeds[0]], key=share_bps, reverse=True):
            rows["capacity"].append(cap)
            rows["n"].append(points[p]["n"])
            rows["fair_share_kbps"].append(share_bps(p) / 1e3)
            rows["fair_share_packets_per_rtt"].append(share_packets(p))
            for name in ("jain20", "utilization"):
                est[name, p] = e = mean_ci(metric[name][cap][s][p] for s in seeds)
                e.append_to(rows, name)
            rows["seeds"].append(len(seeds))

    def draw(ax):
        for cap in caps:
            ps = sorted(metric["jain20"][cap][seeds[0]], key=share_bps)
            errorbar(ax, [share_bps(p) / 1e3 for p in ps], [est["jain20", p] for p in ps], cap)
        ax.set_ylabel("Jain index, 20 s slices")
        fair_share_axes(ax, sorted({round(share_bps(p) / 1e3, 1) for p in points}))

    return Analysis(
        quantities=quantities,
        tables={"fairness": pa.table(dict(rows))},
        figures=[figure(draw, "jain20_vs_share", f"{exp['id']}: drop-tail, one RTT of buffer")],
    )
