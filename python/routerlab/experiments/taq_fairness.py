"""Analysis of taq-fairness: per queue and number of flows, the 20 s and whole-run Jain
indices and the bottleneck's utilization, against the per-flow fair share (TAQ Fig. 2 and 8)."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .small_packet import bottleneck_utilization, fair_share_axes
from .stats import mean_ci


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    # metric[name][queue][seed][n]
    metric: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in runs:
        q, n = r.params["queue"], r.params["n"]
        metric["jain20"][q][r.seed][n] = r.summary["jain_short_mean"]
        metric["jain_long"][q][r.seed][n] = r.summary["jain_index"]
        metric["utilization"][q][r.seed][n] = bottleneck_utilization(r)
    queues = [q for q in exp["grid"]["queue"] if q in metric["jain20"]]
    seeds = sorted(metric["jain20"][queues[0]])
    ns = sorted(metric["jain20"][queues[0]][seeds[0]])

    def share_bps(n: int) -> float:
        return c["capacity_bps"] / n

    def at(name, q, s, n):
        return metric[name][q][s][n]

    judged = [n for n in ns if share_bps(n) < c["judged_share_bps"]]
    quantities = {
        "jain20_taq_minus_droptail_min": mean_ci(
            min(at("jain20", "taq", s, n) - at("jain20", "droptail", s, n) for n in ns)
            for s in seeds
        ),
        "jain20_taq_at_judged_shares": mean_ci(
            sum(at("jain20", "taq", s, n) for n in judged) / len(judged) for s in seeds
        ),
        # TAQ tracking epochs from both directions (the paper's conventional mode).
        "jain20_taq_two_way_minus_droptail_min": mean_ci(
            min(at("jain20", "taq-two-way", s, n) - at("jain20", "droptail", s, n) for n in ns)
            for s in seeds
        ),
        "utilization_taq_min": mean_ci(
            min(at("utilization", "taq", s, n) for n in ns) for s in seeds
        ),
        **{
            f"jain20_{q.replace('-', '_')}_vs_droptail_at_min_share": mean_ci(
                abs(at("jain20", q, s, ns[-1]) - at("jain20", "droptail", s, ns[-1])) for s in seeds
            )
            for q in ("sfq", "red", "sfq-ns2")
            if q in queues
        },
    }

    rows = defaultdict(list)
    est = {}
    for q in queues:
        for n in ns:
            rows["queue"].append(q)
            rows["n"].append(n)
            rows["fair_share_kbps"].append(share_bps(n) / 1e3)
            for name in ("jain20", "jain_long", "utilization"):
                e = mean_ci(at(name, q, s, n) for s in seeds)
                est[name, q, n] = e
                e.append_to(rows, name)
            rows["seeds"].append(len(seeds))

    def draw(ax):
        x = [share_bps(n) / 1e3 for n in ns]
        for q in queues:
            errorbar(ax, x, [est["jain20", q, n] for n in ns], q)
        ax.set_ylabel("Jain index, 20 s slices")
        fair_share_axes(ax, x)

    return Analysis(
        quantities=quantities,
        tables={"fairness": pa.table(dict(rows))},
        figures=[figure(draw, "jain20_vs_share", f"{exp['id']}: 1 Mbps, {ns[0]}–{ns[-1]} flows")],
    )
