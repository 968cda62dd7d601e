"""Analysis of taq-hangs: per run, each user's longest hang — the longest run of one-second
samples in which none of its connections got new data — and the share of users whose longest
hang exceeds 20 s and 60 s (TAQ §2.3)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import mean_ci

THRESHOLDS_S = (20, 60)


def longest_hangs(run: Run, users: int, until_s: float | None = None) -> np.ndarray:
    """Each user's longest hang, seconds (flow i belongs to user i mod `users`), in the whole
    run or in its first `until_s` seconds."""
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"))
    keep = t <= until_s if until_s is not None else np.ones(len(t), dtype=bool)
    t = t[keep]
    flow = np.asarray(ts.column("flow_id"))[keep]
    got = np.asarray(ts.column("delivered_bps"))[keep] > 0
    times = np.unique(t)
    step = times[1] - times[0] if len(times) > 1 else 1.0
    index = np.searchsorted(times, t)
    active = np.zeros((users, len(times)), dtype=bool)
    np.logical_or.at(active, (flow % users, index), got)
    longest = np.zeros(users)
    for u in range(users):
        run_len = best = 0
        for a in active[u]:
            run_len = 0 if a else run_len + 1
            best = max(best, run_len)
        longest[u] = best * step
    return longest


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    # share[(queue, users, threshold)][seed]; hangs[(queue, users)] pooled for the figure;
    # early[(queue, users)][seed]: the share over 60 s in the runs' first `early_s` seconds
    early_s = float(exp["constants"]["early_s"])
    share: dict[tuple, dict[int, float]] = defaultdict(dict)
    early: dict[tuple, dict[int, float]] = defaultdict(dict)
    pooled: dict[tuple, list[np.ndarray]] = defaultdict(list)
    for r in runs:
        q, u = r.params["queue"], r.params["users"]
        h = longest_hangs(r, u)
        pooled[q, u].append(h)
        for th in THRESHOLDS_S:
            share[q, u, th][r.seed] = float((h > th).mean())
        early[q, u][r.seed] = float((longest_hangs(r, u, early_s) > 60).mean())
    seeds = sorted(next(iter(share.values())))

    def at(q, u, th):
        return [share[q, u, th][s] for s in seeds]

    quantities = {
        "share_hang_over_20s_droptail_200": mean_ci(at("droptail", 200, 20)),
        "share_hang_over_60s_droptail_400": mean_ci(at("droptail", 400, 60)),
        # How the share over a minute grows from the runs' first `early_s` seconds to all of them.
        "share_hang_over_60s_droptail_400_growth": mean_ci(
            a - early["droptail", 400][s]
            for a, s in zip(at("droptail", 400, 60), seeds, strict=True)
        ),
        "share_hang_over_20s_taq_minus_droptail_200": mean_ci(
            a - b for a, b in zip(at("taq", 200, 20), at("droptail", 200, 20), strict=True)
        ),
    }

    rows = defaultdict(list)
    for q, u in sorted(pooled):
        rows["queue"].append(q)
        rows["users"].append(u)
        for th in THRESHOLDS_S:
            e = mean_ci(at(q, u, th))
            e.append_to(rows, f"share_hang_over_{th}s")
        mean_ci(early[q, u][s] for s in seeds).append_to(rows, "share_hang_over_60s_early")
        rows["median_longest_hang_s"].append(float(np.median(np.concatenate(pooled[q, u]))))
        rows["seeds"].append(len(seeds))

    def draw(ax):
        for (q, u), hs in sorted(pooled.items()):
            x = np.sort(np.concatenate(hs))
            ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=f"{q}, {u} users")
        for th in THRESHOLDS_S:
            ax.axvline(th, color="grey", linestyle=":")
        ax.set_xlabel("a user's longest hang (s)")
        ax.set_ylabel("share of users (CDF)")
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"hangs": pa.table(dict(rows))},
        figures=[figure(draw, "longest_hang_cdf", f"{exp['id']}: 4 connections per user, 1 Mbps")],
    )
