"""Analysis of taq-fairness-capacity: per capacity, queue and fair share, the 20 s Jain index;
per capacity, TAQ's index minus drop-tail's inside the small packet regime (TAQ Fig. 8 at other
capacities)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .small_packet import (
    bottleneck_utilization,
    capacities_by_rate,
    fair_share_axes,
    point_capacity,
    point_share_bps,
)
from .stats import mean_ci


def by_share(points: Iterable[str], share_bps: Callable[[str], float]) -> list[str]:
    """Points from the largest fair share to the smallest; points of equal share (the same
    share at two capacities) in name order, so that the table's rows do not follow a set's
    order, which changes from process to process."""
    return sorted(sorted(points), key=share_bps, reverse=True)


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    points = exp["variants"]["point"]

    def share_bps(point: str) -> float:
        return point_share_bps(points[point])

    # metric[name][(point, queue)][seed]
    metric: dict = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        key = (r.params["point"], r.params["queue"])
        metric["jain20"][key][r.seed] = r.summary["jain_short_mean"]
        metric["utilization"][key][r.seed] = bottleneck_utilization(r)
    run_points = by_share({p for p, _ in metric["jain20"]}, share_bps)
    queues = [q for q in exp["grid"]["queue"] if any(k[1] == q for k in metric["jain20"])]
    seeds = sorted(next(iter(metric["jain20"].values())))
    run_caps = {point_capacity(p) for p in run_points}
    caps = [cap for cap in capacities_by_rate(points) if cap in run_caps]

    def gain(cap: str, s: int) -> float:
        small = [p for p in run_points if share_bps(p) < c["judged_share_bps"]]
        judged = [p for p in small if point_capacity(p) == cap]
        return sum(
            metric["jain20"][p, "taq"][s] - metric["jain20"][p, "droptail"][s] for p in judged
        ) / len(judged)

    quantities = {
        f"jain20_taq_minus_droptail_{cap}": mean_ci(gain(cap, s) for s in seeds) for cap in caps
    }

    rows = defaultdict(list)
    est = {}
    for p in run_points:
        for q in queues:
            rows["capacity"].append(point_capacity(p))
            rows["queue"].append(q)
            rows["n"].append(points[p]["n"])
            rows["fair_share_kbps"].append(share_bps(p) / 1e3)
            for name in ("jain20", "utilization"):
                est[name, p, q] = e = mean_ci(metric[name][p, q][s] for s in seeds)
                e.append_to(rows, name)
            rows["seeds"].append(len(seeds))

    def draw(ax):
        for cap in caps:
            ps = [p for p in run_points if point_capacity(p) == cap]
            for q in queues:
                x = [share_bps(p) / 1e3 for p in ps]
                errorbar(ax, x, [est["jain20", p, q] for p in ps], f"{q}, {cap}")
        ax.set_ylabel("Jain index, 20 s slices")
        fair_share_axes(ax, sorted({round(share_bps(p) / 1e3, 1) for p in run_points}))

    return Analysis(
        quantities=quantities,
        tables={"fairness": pa.table(dict(rows))},
        figures=[figure(draw, "jain20_vs_share", f"{exp['id']}: TAQ and drop-tail")],
    )
