"""Analysis of ka-sensitivity: ka-dynamics' fair-share tracking of Kick-Ass and native RCP at
other RTTs and link rates (Kick-Ass §III-C1, "Other Topologies")."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .ka_common import link_bps
from .ka_dynamics import SETTLE_FROM_S, link_series, rate_over_share
from .plots import figure
from .stats import mean_ci

LINK = "left->right"


def worst(per_point: dict, seeds: list, key) -> list[float]:
    """Per seed, the value of the point that `key` ranks worst (highest)."""
    return [max((v[s] for v in per_point.values()), key=key) for s in seeds]


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    track = defaultdict(dict)  # (point, scheme) → seed → rate over C/N
    util = defaultdict(dict)
    for r in runs:
        key = (r.params["point"], r.params["scheme"])
        track[key][r.seed] = rate_over_share(r, link_bps(r, LINK))
        t, u, _ = link_series(r)
        util[key][r.seed] = float(u[t > SETTLE_FROM_S].mean())
    points = sorted({p for p, _ in track})
    seeds = sorted(track[points[0], "ka"])
    ka = {p: track[p, "ka"] for p in points}
    rcp = {p: track[p, "rcp"] for p in points}
    ratio = {p: {s: ka[p][s] / rcp[p][s] for s in seeds} for p in points}
    quantities = {
        "ka_worst_rate_over_share": mean_ci(worst(ka, seeds, key=lambda x: -x)),
        "rcp_worst_rate_over_share": mean_ci(worst(rcp, seeds, key=lambda x: -x)),
        "ka_over_rcp_worst": mean_ci(worst(ratio, seeds, key=lambda x: abs(x - 1))),
    }
    rows = defaultdict(list)
    for p in points:
        for scheme in ("rcp", "ka"):
            rows["point"].append(p)
            rows["scheme"].append(scheme)
            mean_ci(track[p, scheme][s] for s in seeds).append_to(rows, "rate_over_share")
            mean_ci(util[p, scheme][s] for s in seeds).append_to(rows, "utilization")

    def draw(ax):
        x = np.arange(len(points))
        for i, scheme in enumerate(("rcp", "ka")):
            y = [np.mean([track[p, scheme][s] for s in seeds]) for p in points]
            label = "RCP" if scheme == "rcp" else "Kick-Ass"
            ax.bar(x + (i - 0.5) * 0.4, y, width=0.4, label=label)
        ax.axhline(1.0, ls=":", c="k", lw=0.8)
        ax.set_xticks(x, points, rotation=30, fontsize="small")
        ax.set_ylabel("rate over C/N")
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"tracking": pa.table(dict(rows))},
        figures=[figure(draw, "tracking", f"{exp['id']}: fair-share tracking by point")],
    )
