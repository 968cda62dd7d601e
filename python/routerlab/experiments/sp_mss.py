"""Analysis of sp-mss: the singled-out flow's goodput with jumbo frames and with super-packets,
each over its goodput without (same seed, same RTTs), and beside the other 49 flows
(super-packets §5.1, Fig. 1 and 2)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from . import Analysis
from .plots import figure
from .sp_common import mean_or_none, mean_sp_length, partial_share
from .stats import mean_ci


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    flow0: dict[tuple, dict[int, float]] = defaultdict(dict)  # (arm, rtts) -> seed -> bps
    others: dict[tuple, dict[int, float]] = defaultdict(dict)
    partial: dict[tuple, list[float]] = defaultdict(list)
    length: dict[tuple, list[float]] = defaultdict(list)
    for r in runs:
        key = (r.params["flow0"], r.params["rtts"])
        g = np.asarray(r.tables["flows"].column("goodput_bps"), dtype=float)
        flow0[key][r.seed] = g[0]
        others[key][r.seed] = float(g[1:].mean())
        if (p := partial_share(r)) is not None:
            partial[key].append(p)
        if (m := mean_sp_length(r)) is not None:
            length[key].append(m)
    seeds = sorted(next(iter(flow0.values())))

    def gain(arm, rtts):
        return mean_ci(flow0[arm, rtts][s] / flow0["regular", rtts][s] for s in seeds)

    quantities = {}
    for rtts in ("equal", "mixed"):
        quantities[f"jumbo_gain_{rtts}"] = gain("jumbo", rtts)
        quantities[f"sp_gain_{rtts}"] = gain("sp", rtts)
        quantities[f"sp_over_jumbo_{rtts}"] = mean_ci(
            (flow0["sp", rtts][s] / flow0["regular", rtts][s])
            / (flow0["jumbo", rtts][s] / flow0["regular", rtts][s])
            for s in seeds
        )

    rows = defaultdict(list)
    for arm, rtts in sorted(flow0):
        rows["flow0"].append(arm)
        rows["rtts"].append(rtts)
        mean_ci(flow0[arm, rtts][s] / 1e6 for s in seeds).append_to(rows, "flow0_mbps")
        mean_ci(others[arm, rtts][s] / 1e6 for s in seeds).append_to(rows, "others_mean_mbps")
        gain(arm, rtts).append_to(rows, "gain")
        rows["sp_partially_dropped"].append(mean_or_none(partial[arm, rtts]))
        rows["mean_sp_length"].append(mean_or_none(length[arm, rtts]))
        rows["seeds"].append(len(seeds))

    def draw(axes):
        arms = ("regular", "jumbo", "sp")
        for ax, rtts in zip(axes, ("equal", "mixed"), strict=True):
            x = np.arange(len(arms))
            f0 = [np.mean([flow0[a, rtts][s] for s in seeds]) / 8e3 for a in arms]
            ot = [np.mean([others[a, rtts][s] for s in seeds]) / 8e3 for a in arms]
            ax.bar(x - 0.2, ot, 0.4, label="mean of the other 49 flows")
            ax.bar(x + 0.2, f0, 0.4, label="flow 0 (singled out)")
            ax.set_xticks(x, arms)
            ax.set_title(f"{rtts} RTTs", fontsize=9)
        axes[0].set_ylabel("throughput (kB/s)")
        axes[0].legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"throughput": pa.table(dict(rows))},
        figures=[figure(draw, "throughput", f"{exp['id']}: one flow among 50", ncols=2)],
    )
