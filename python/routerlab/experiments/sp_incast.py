"""Analysis of sp-incast: completion times of 50 simultaneous flows through a congested
super-packet router, per router variant, for 10- and 100-packet flows (super-packets §5.3,
Fig. 3 and 4): mean and slowest FCT, their ratios regular over SP, the sorted curves."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .plots import figure
from .sp_common import mean_or_none, mean_sp_length, partial_share, transfer_times
from .stats import mean_ci

#: Full-sized segments' payload: flow sizes are multiples of it.
MSS = 1460
#: The start jitter the paper's "simultaneous" is read as; the others are our sweep.
BASE_JITTER = "1ms"
#: The maxSpLength arms beside Algorithm 1's 16 (`sp-max10`, `sp-max1`).
MAX_SP_LENGTHS = (10, 1)


def jitter_us(j: str) -> float:
    return float(j.removesuffix("us")) if j.endswith("us") else float(j.removesuffix("ms")) * 1e3


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    # (router, packets, jitter) -> seed -> sorted FCTs
    every: dict[tuple, dict[int, np.ndarray]] = defaultdict(dict)
    # (router, packets, jitter) -> seed -> per flow: data timeouts, SYN timeouts; and the mean
    # FCT of the flows whose SYN got through at its first try
    data_to: dict[tuple, dict[int, float]] = defaultdict(dict)
    syn_to: dict[tuple, dict[int, float]] = defaultdict(dict)
    syn_ok_fct: dict[tuple, dict[int, float]] = defaultdict(dict)
    partial: dict[tuple, list[float]] = defaultdict(list)
    length: dict[tuple, list[float]] = defaultdict(list)
    # (router, packets, jitter) -> seed -> mean FCT with every connection opened ahead
    ahead: dict[tuple, dict[int, float]] = defaultdict(dict)
    for r in runs:
        jitter = r.params.get("jitter", BASE_JITTER)
        key = (r.params["router"], int(r.params["flow_bytes"]) // MSS)
        if r.params.get("handshake") == "ahead":
            # A block's time from its write: the connection was opened ahead, not with it.
            ahead[(*key, jitter)][r.seed] = float(np.mean(transfer_times(r)))
            continue
        flows = r.tables["flows"]
        f = np.asarray(flows.column("fct_s").to_pylist(), dtype=float)
        # An unfinished flow (none expected in 30 s) counts with the whole run.
        f = np.where(np.isnan(f), float(r.summary["sim_seconds"]), f)
        every[(*key, jitter)][r.seed] = np.sort(f)
        syns = np.asarray(flows.column("syn_timeouts").to_pylist())
        data_to[(*key, jitter)][r.seed] = float(np.mean(flows.column("timeouts").to_pylist()))
        syn_to[(*key, jitter)][r.seed] = float(np.mean(syns))
        syn_ok_fct[(*key, jitter)][r.seed] = (
            float(np.mean(f[syns == 0])) if (syns == 0).any() else float("nan")
        )
        if jitter != BASE_JITTER:
            continue
        if (p := partial_share(r)) is not None:
            partial[key].append(p)
        if (m := mean_sp_length(r)) is not None:
            length[key].append(m)
    # The tables and figure of the paper's setting: the base jitter.
    fcts = {(router, n): v for (router, n, j), v in every.items() if j == BASE_JITTER}
    seeds = sorted(next(iter(fcts.values())))
    sizes = sorted({k[1] for k in fcts})
    jitters = sorted({k[2] for k in every}, key=jitter_us)

    def ratio(stat, n, router="sp"):
        return mean_ci(stat(fcts["regular", n][s]) / stat(fcts[router, n][s]) for s in seeds)

    def swept_ratio(n, jitter, router="sp"):
        return mean_ci(
            np.mean(every["regular", n, jitter][s]) / np.mean(every[router, n, jitter][s])
            for s in seeds
        )

    def ahead_ratio(n, jitter, router):
        return mean_ci(ahead["regular", n, jitter][s] / ahead[router, n, jitter][s] for s in seeds)

    quantities = {}
    for n in sizes:
        quantities[f"mean_ratio_{n}"] = ratio(np.mean, n)
        quantities[f"worst_ratio_{n}"] = ratio(np.max, n)
        # maxSpLength swept (the paper gives none): 16 is `sp` itself, 10 and 1 the others.
        by_max = {16: quantities[f"mean_ratio_{n}"]}
        for m in MAX_SP_LENGTHS:
            if (f"sp-max{m}", n) in fcts:
                by_max[m] = quantities[f"mean_ratio_{n}_max{m}"] = ratio(np.mean, n, f"sp-max{m}")
        quantities[f"mean_ratio_{n}_best_max"] = max(by_max.values(), key=lambda e: e.mean)
        # The control arm without SYNs at the incast: every connection opened ahead.
        for router, suffix in (("sp", ""), ("sp-max1", "_max1")):
            if (router, n, BASE_JITTER) in ahead:
                quantities[f"mean_ratio_{n}{suffix}_ahead"] = ahead_ratio(n, BASE_JITTER, router)
        if ("sp-fixed", n) in fcts:
            quantities[f"fixed_over_sp_{n}"] = mean_ci(
                np.mean(fcts["sp-fixed", n][s]) / np.mean(fcts["sp", n][s]) for s in seeds
            )
        for j in jitters:
            quantities[f"mean_ratio_{n}_{j}"] = swept_ratio(n, j)
            # What refusing regular packets costs: SYN timeouts per flow over drop-tail's.
            quantities[f"extra_syn_timeouts_{n}_{j}"] = mean_ci(
                syn_to["sp", n, j][s] - syn_to["regular", n, j][s] for s in seeds
            )
        # The sweep's summary: the jitter where super-packets do best, judged there.
        quantities[f"mean_ratio_{n}_best"] = max(
            (quantities[f"mean_ratio_{n}_{j}"] for j in jitters), key=lambda e: e.mean
        )
    sweep = defaultdict(list)
    routers = sorted({k[0] for k in every}, key=lambda r: (r != "regular", r != "sp", r))
    for n in sizes:
        for j in jitters:
            for router in routers:
                sweep["packets"].append(n)
                sweep["jitter"].append(j)
                sweep["router"].append(router)
                swept_ratio(n, j, router).append_to(sweep, "regular_over_mean")
                if (router, n, j) in ahead:
                    ahead_ratio(n, j, router).append_to(sweep, "regular_over_mean_opened_ahead")
                mean_ci(data_to[router, n, j][s] for s in seeds).append_to(
                    sweep, "timeouts_per_flow"
                )
                mean_ci(syn_to[router, n, j][s] for s in seeds).append_to(
                    sweep, "syn_timeouts_per_flow"
                )
                mean_ci(syn_ok_fct[router, n, j][s] for s in seeds).append_to(
                    sweep, "mean_fct_syn_first_try_s"
                )

    rows = defaultdict(list)
    for router, n in sorted(fcts):
        rows["router"].append(router)
        rows["packets"].append(n)
        mean_ci(float(np.mean(fcts[router, n][s])) for s in seeds).append_to(rows, "mean_fct_s")
        mean_ci(float(np.median(fcts[router, n][s])) for s in seeds).append_to(rows, "median_fct_s")
        mean_ci(float(np.max(fcts[router, n][s])) for s in seeds).append_to(rows, "worst_fct_s")
        ratio(np.mean, n, router).append_to(rows, "regular_over_mean")
        ratio(np.max, n, router).append_to(rows, "regular_over_worst")
        rows["sp_partially_dropped"].append(mean_or_none(partial[router, n]))
        rows["mean_sp_length"].append(mean_or_none(length[router, n]))
        rows["seeds"].append(len(seeds))

    def draw(axes):
        routers = sorted({k[0] for k in fcts}, key=lambda r: (r != "regular", r != "sp", r))
        for ax, n in zip(axes, sizes, strict=True):
            for router in routers:
                # The flows' k-th fastest FCT, averaged over seeds (the paper's sorted curves).
                curve = np.mean([fcts[router, n][s] for s in seeds], axis=0)
                # Bloom decides as Algorithm 1 for honest senders: dashed, so both show.
                style = "--" if router == "bloom" else "-"
                ax.plot(np.arange(1, len(curve) + 1), curve * 1e3, style, label=router)
            ax.set_xlabel("flow (sorted by FCT)")
            ax.set_title(f"{n}-packet flows", fontsize=9)
        axes[0].set_ylabel("FCT (ms)")
        axes[0].legend(fontsize="small")

    def draw_sweep(axes):
        x = [jitter_us(j) for j in jitters]
        for ax, n in zip(axes, sizes, strict=True):
            for router in routers[1:]:
                y = [np.mean(sweep_mean(n, j, router)) for j in jitters]
                ax.plot(x, y, marker="o", label=router)
            ax.axhline(1.0, ls=":", c="k", lw=0.8)
            ax.set_xscale("log")
            ax.set_xlabel("start jitter (µs)")
            ax.set_title(f"{n}-packet flows", fontsize=9)
        axes[0].set_ylabel("regular mean FCT / router's (> 1: router wins)")
        axes[0].legend(fontsize="small")

    def sweep_mean(n, j, router):
        return [np.mean(every["regular", n, j][s]) / np.mean(every[router, n, j][s]) for s in seeds]

    return Analysis(
        quantities=quantities,
        tables={"fct": pa.table(dict(rows)), "sweep": pa.table(dict(sweep))},
        figures=[
            figure(draw, "fct_sorted", f"{exp['id']}: 50 simultaneous flows", ncols=len(sizes)),
            figure(
                draw_sweep,
                "jitter_sweep",
                f"{exp['id']}: regular mean FCT over each router's, by start jitter",
                ncols=len(sizes),
            ),
        ],
    )
