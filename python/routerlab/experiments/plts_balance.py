"""Analysis of plts-balance: for each 10 ms sample of the 9 core -> pod-1 links in the sampled
second, the spread (max − min) of their queue lengths and of their utilizations; per scheme
the largest and mean spreads, and the spreads sorted by rank (Fig. 3b, 3c)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import add_row, mean_ci

#: The links into pod 1 from the core: `c<i>->a1_<j>`.
POD = 1


def spreads(queues: pa.Table, start: float, end: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Per sample time in [start, end): max − min of queue bytes and of utilization across
    the core -> pod links; and their mean utilization (the load on them)."""
    links = queues.column("link").to_pylist()
    into_pod = pa.array([lk.startswith("c") and f"->a{POD}_" in lk for lk in links])
    t = queues.column("t_s")
    keep = pc.and_(into_pod, pc.and_(pc.greater_equal(t, start), pc.less(t, end)))
    q = queues.filter(keep).to_pydict()
    by_time: dict[float, list[tuple[int, float]]] = defaultdict(list)
    for ts, b, u in zip(q["t_s"], q["queue_bytes"], q["utilization"], strict=True):
        by_time[ts].append((b, u))
    q_spread, u_spread, load = [], [], []
    for ts in sorted(by_time):
        b, u = zip(*by_time[ts], strict=True)
        q_spread.append(max(b) - min(b))
        u_spread.append(max(u) - min(u))
        load.append(float(np.mean(u)))
    return np.asarray(q_spread, dtype=float), np.asarray(u_spread), float(np.mean(load))


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    per: dict[str, dict[int, dict[str, float]]] = defaultdict(dict)
    ranked: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    for r in runs:
        qs, us, load = spreads(r.tables["queues"], c["window_start_s"], c["window_end_s"])
        per[r.params["scheme"]][r.seed] = {
            "max_queue_spread": float(qs.max()),
            "mean_queue_spread": float(qs.mean()),
            "max_util_spread": float(us.max()),
            "mean_util_spread": float(us.mean()),
            "mean_utilization": load,
        }
        ranked[r.params["scheme"]].append((np.sort(qs), np.sort(us)))
    schemes = [s for s in exp["grid"]["scheme"] if s in per]
    seeds = sorted(per[schemes[0]])

    def at(scheme, metric):
        return [per[scheme][s][metric] for s in seeds]

    rows = defaultdict(list)
    for scheme in schemes:
        metrics = ("mean_queue_spread", "max_util_spread", "mean_util_spread", "mean_utilization")
        extra = {m: mean_ci(at(scheme, m)).mean for m in metrics}
        est = mean_ci(at(scheme, "max_queue_spread"))
        add_row(rows, {"scheme": scheme}, est, "max_queue_spread_bytes", 1.0, extra)

    quantities = {
        f"max_queue_spread_bytes_{scheme}": mean_ci(at(scheme, "max_queue_spread"))
        for scheme in schemes
    } | {
        "util_spread_ratio_rr_over_ecmp": mean_ci(
            a / b if b > 0 else float("nan")
            for a, b in zip(
                at("spray-rr", "mean_util_spread"), at("ecmp", "mean_util_spread"), strict=True
            )
        ),
    }
    if "spray-rr-light" in per:
        quantities["rr_light_spread_ratio"] = mean_ci(
            a / b if b > 0 else float("nan")
            for a, b in zip(
                at("spray-rr-light", "max_queue_spread"),
                at("spray-rr", "max_queue_spread"),
                strict=True,
            )
        )

    def draw(index, ylabel, log):
        def d(ax):
            for scheme in schemes:
                mean_by_rank = np.mean([x[index] for x in ranked[scheme]], axis=0)
                ax.plot(range(1, len(mean_by_rank) + 1), mean_by_rank, label=scheme)
            if log:
                ax.set_yscale("symlog", linthresh=100)
            ax.set_xlabel("reading by rank (mean over seeds)")
            ax.set_ylabel(ylabel)
            ax.legend()

        return d

    title = f"{exp['id']}: 9 core links into pod {POD}, 10 ms samples"
    return Analysis(
        quantities=quantities,
        tables={"spread": pa.table(dict(rows))},
        figures=[
            figure(draw(0, "max − min queue length (bytes)", True), "queue_spread", title),
            figure(draw(1, "max − min utilization", False), "utilization_spread", title),
        ],
    )
