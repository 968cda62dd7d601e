"""Analysis of ka-mixed-light: TCP clients' FCT with and without Kick-Ass clients beside them
at a Kick-Ass router, and the Kick-Ass clients' (Kick-Ass §III-D1, Fig. 4)."""

from __future__ import annotations

from collections import defaultdict

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

#: The curves of the paper's Fig. 4: (label, arm, group).
CURVES = (
    ("TCP no KA", "tcp-only", "tcp"),
    ("TCP shared", "mixed", "tcp"),
    ("KA shared", "mixed", "other"),
    # The TCP clients as ns-3.1x ran TCP by default, beside Kick-Ass clients.
    ("ns-3.1x TCP shared", "mixed-ns3", "tcp"),
    ("KA beside ns-3.1x TCP", "mixed-ns3", "other"),
)


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    mean: dict[str, dict[int, float]] = defaultdict(dict)
    large: dict[str, dict[int, float]] = defaultdict(dict)
    by_bin: dict[str, dict[int, list[float]]] = defaultdict(dict)
    for r in runs:
        for label, arm, group in CURVES:
            if r.params["arm"] == arm:
                sizes, fcts = completed_fcts(r, group)
                mean[label][r.seed] = float(fcts.mean())
                large[label][r.seed] = mean_large_fct(sizes, fcts)
                by_bin[label][r.seed] = mean_fct_by_bin(sizes, fcts)
    seeds = sorted(mean["TCP no KA"])
    quantities = {
        "tcp_shared_over_alone": mean_ci(
            mean["TCP shared"][s] / mean["TCP no KA"][s] for s in seeds
        ),
        "tcp_over_ka_shared": mean_ci(mean["TCP shared"][s] / mean["KA shared"][s] for s in seeds),
        "tcp_ns3_over_ka_shared": mean_ci(
            mean["ns-3.1x TCP shared"][s] / mean["KA beside ns-3.1x TCP"][s] for s in seeds
        ),
        # …and over the large flows alone.
        "tcp_ns3_over_ka_shared_large": mean_ci(
            large["ns-3.1x TCP shared"][s] / large["KA beside ns-3.1x TCP"][s] for s in seeds
        ),
    }
    rows = defaultdict(list)
    for label, _, _ in CURVES:
        for i in [*range(len(SIZE_BINS)), None]:
            rows["curve"].append(label)
            rows["packets"].append("all" if i is None else bin_label(i))
            vals = (mean[label][s] if i is None else by_bin[label][s][i] for s in seeds)
            mean_ci(vals).append_to(rows, "mean_fct_s")

    def draw(ax):
        draw_fct_by_size(ax, {label: by_bin[label] for label, _, _ in CURVES}, seeds)

    return Analysis(
        quantities=quantities,
        tables={"fct": pa.table(dict(rows))},
        figures=[figure(draw, "fct", f"{exp['id']}: TCP and Kick-Ass at a Kick-Ass router")],
    )
