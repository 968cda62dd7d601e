"""Analysis of ka-light: mean FCT by flow size under light load for TCP, RCP and Kick-Ass on
their own routers (Kick-Ass §III-C2, Fig. 3)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .ka_common import (
    SIZE_BINS,
    bin_label,
    completed_fcts,
    draw_fct_by_size,
    mean_fct_by_bin,
    mean_large_fct,
)
from .plots import figure
from .stats import mean_ci

RTT_S = 0.1
SCHEMES = ("tcp", "rcp", "ka", "tcp-ns3")


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    mean: dict[str, dict[int, float]] = defaultdict(dict)
    large: dict[str, dict[int, float]] = defaultdict(dict)
    by_bin: dict[str, dict[int, list[float]]] = defaultdict(dict)
    count: dict[str, int] = defaultdict(int)
    for r in runs:
        arm = r.params["scheme"]
        sizes, fcts = completed_fcts(r)
        mean[arm][r.seed] = float(fcts.mean())
        large[arm][r.seed] = mean_large_fct(sizes, fcts)
        by_bin[arm][r.seed] = mean_fct_by_bin(sizes, fcts)
        count[arm] += len(fcts)
    seeds = sorted(mean["tcp"])
    quantities = {
        "ka_minus_rcp_rtts": mean_ci((mean["ka"][s] - mean["rcp"][s]) / RTT_S for s in seeds),
        "tcp_over_ka": mean_ci(mean["tcp"][s] / mean["ka"][s] for s in seeds),
        "tcp_over_rcp": mean_ci(mean["tcp"][s] / mean["rcp"][s] for s in seeds),
        # TCP as the paper's ns-3 ran it by default (the tcp-ns3 arm).
        "tcp_ns3_over_ka": mean_ci(mean["tcp-ns3"][s] / mean["ka"][s] for s in seeds),
        # …and over the large flows alone.
        "tcp_ns3_over_ka_large": mean_ci(large["tcp-ns3"][s] / large["ka"][s] for s in seeds),
    }
    rows = defaultdict(list)
    for arm in SCHEMES:
        for i in range(len(SIZE_BINS)):
            rows["scheme"].append(arm)
            rows["packets"].append(bin_label(i))
            mean_ci(by_bin[arm][s][i] for s in seeds).append_to(rows, "mean_fct_s")
            rows["ka_minus_rcp_s"].append(
                float(np.nanmean([by_bin["ka"][s][i] - by_bin["rcp"][s][i] for s in seeds]))
            )
        rows["scheme"].append(arm)
        rows["packets"].append("all")
        mean_ci(mean[arm][s] for s in seeds).append_to(rows, "mean_fct_s")
        rows["ka_minus_rcp_s"].append(
            float(np.mean([mean["ka"][s] - mean["rcp"][s] for s in seeds]))
        )
    rows_counts = {"scheme": list(SCHEMES), "flows": [count[a] for a in SCHEMES]}

    labels = {"tcp": "TCP", "rcp": "RCP", "ka": "Kick-Ass", "tcp-ns3": "TCP (ns-3.1x defaults)"}

    def draw(ax):
        draw_fct_by_size(ax, {labels[a]: by_bin[a] for a in SCHEMES}, seeds)

    return Analysis(
        quantities=quantities,
        tables={"fct": pa.table(dict(rows)), "flows": pa.table(rows_counts)},
        figures=[figure(draw, "fct", f"{exp['id']}: mean FCT by size, light load")],
    )
