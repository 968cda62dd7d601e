"""Analysis of sp-short-long: the short flows' FCTs and the long flows' throughput from the
first burst on, with super-packets on no flow, every flow, short flows only (super-packets
§5.4, Fig. 5 and 6)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .plots import figure
from .sp_common import (
    LENGTH_BINS,
    flow_groups,
    length_shares,
    mean_or_none,
    partial_share,
    transfer_times,
)
from .stats import mean_ci

#: When the first burst starts (the template's `start` of the short flows).
BURSTS_FROM_S = 5.0
#: sp-short with the settings the paper gives without a sweep moved (its own is `sp-short`).
SETTING_ARMS = {
    "weight-0.7": "sp-short",
    "weight-0.5": "sp-short-w50",
    "weight-1.0": "sp-short-w100",
    "t-buffer-250us": "sp-short-250us",
    "t-buffer-1ms": "sp-short-1ms",
    "t-buffer-4ms": "sp-short-4ms",
}
#: The template's minimum RTO: a short flow that took longer waited out a timeout (its SYN's or
#: its data's), where one that did not takes a few round trips (about 20 ms).
MIN_RTO_S = 0.2
#: Longer than this, a short flow waited out more than one data timeout (0.2 s, then the
#: backed-off 0.4 s) or a SYN timeout (1 s, then RFC 6298 §5.7's 3 s).
MULTI_TIMEOUT_S = MIN_RTO_S + 2 * MIN_RTO_S
ARMS = (
    "regular",
    "sp-all",
    "sp-short",
    "sp-short-sender",
    "sp-router",
    "sp-short-w50",
    "sp-short-w100",
    "sp-short-250us",
    "sp-short-1ms",
    "sp-short-4ms",
)


def short_fcts(run) -> np.ndarray:
    group = flow_groups(run)
    ids = run.tables["transfers"].column("flow_id").to_pylist()
    short = np.asarray([group[f] == "short" for f in ids])
    return np.sort(transfer_times(run)[short])


def long_throughput(run) -> float:
    """The long flows' delivered rate summed, averaged from the first burst to the end."""
    ts = run.tables["timeseries"]
    long_ids = [f for f, g in flow_groups(run).items() if g == "long"]
    t = np.asarray(ts.column("t_s"), dtype=float)
    fid = np.asarray(ts.column("flow_id"))
    rate = np.asarray(ts.column("delivered_bps"), dtype=float)
    keep = (t > BURSTS_FROM_S) & np.isin(fid, long_ids)
    samples = len(np.unique(t[keep]))
    return float(rate[keep].sum() / samples)


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    fct: dict[str, dict[int, np.ndarray]] = defaultdict(dict)
    thr: dict[str, dict[int, float]] = defaultdict(dict)
    partial: dict[str, list[float]] = defaultdict(list)
    lengths: dict[tuple, list[float]] = defaultdict(list)  # (arm, bin) -> shares
    for r in runs:
        arm = r.params["sp"]
        fct[arm][r.seed] = short_fcts(r)
        thr[arm][r.seed] = long_throughput(r)
        if (p := partial_share(r)) is not None:
            partial[arm].append(p)
        if (shares := length_shares(r)) is not None:
            for b, v in shares.items():
                lengths[arm, b].append(v)
    seeds = sorted(fct["regular"])

    def mean_ratio(a, b):
        return mean_ci(np.mean(fct[a][s]) / np.mean(fct[b][s]) for s in seeds)

    def stalled(arm, s, longer_than=MIN_RTO_S):
        return float(np.mean(fct[arm][s] > longer_than))

    quantities = {
        "short_mean_ratio": mean_ratio("regular", "sp-short"),
        # The settings swept around the paper's (weight 0.7, T_buffer 60 µs): the gain at each,
        # and the least of them per seed (the summary).
        **{
            f"short_mean_ratio_{point}": mean_ratio("regular", arm)
            for point, arm in SETTING_ARMS.items()
        },
        "short_mean_ratio_every_setting": mean_ci(
            np.mean(fct["regular"][s]) / max(np.mean(fct[arm][s]) for arm in SETTING_ARMS.values())
            for s in seeds
        ),
        # The typical short flow at T_buffer 4 ms, which the few that wait out timeouts do not
        # move (the arm that shows `short-fct-improves-t-buffer-4ms`'s cause).
        "short_median_ratio_t-buffer-4ms": mean_ci(
            np.median(fct["regular"][s]) / np.median(fct["sp-short-4ms"][s]) for s in seeds
        ),
        "all_over_short_mean": mean_ratio("sp-all", "sp-short"),
        "long_stalled_all_minus_short": mean_ci(
            stalled("sp-all", s, MULTI_TIMEOUT_S) - stalled("sp-short", s, MULTI_TIMEOUT_S)
            for s in seeds
        ),
        "sender_over_short_mean": mean_ratio("sp-short-sender", "sp-short"),
        "long_loss_sp_short": mean_ci(1 - thr["sp-short"][s] / thr["regular"][s] for s in seeds),
        "long_loss_sp_all": mean_ci(1 - thr["sp-all"][s] / thr["regular"][s] for s in seeds),
    }

    rows = defaultdict(list)
    for arm in ARMS:
        rows["sp"].append(arm)
        mean_ci(float(np.mean(fct[arm][s])) for s in seeds).append_to(rows, "short_mean_fct_s")
        mean_ci(float(np.median(fct[arm][s])) for s in seeds).append_to(rows, "short_median_fct_s")
        mean_ci(float(np.max(fct[arm][s])) for s in seeds).append_to(rows, "short_worst_fct_s")
        mean_ci(stalled(arm, s) for s in seeds).append_to(rows, "short_stalled_share")
        mean_ci(stalled(arm, s, MULTI_TIMEOUT_S) for s in seeds).append_to(
            rows, "short_long_stalled_share"
        )
        mean_ci(thr[arm][s] / 1e6 for s in seeds).append_to(rows, "long_mbps")
        mean_ci(1 - thr[arm][s] / thr["regular"][s] for s in seeds).append_to(rows, "long_loss")
        rows["short_flows"].append(int(sum(len(fct[arm][s]) for s in seeds)))
        rows["sp_partially_dropped"].append(mean_or_none(partial[arm]))
        for b in LENGTH_BINS:
            rows[f"packets_in_length_{b}"].append(mean_or_none(lengths[arm, b]))
        rows["seeds"].append(len(seeds))

    def draw(axes):
        for arm in ARMS:
            # Every seed's short flows pooled and sorted (a seed may finish fewer bursts).
            curve = np.sort(np.concatenate([fct[arm][s] for s in seeds]))
            axes[0].plot(np.linspace(0, 20, len(curve)), curve * 1e3, label=arm)
        axes[0].set_yscale("log")
        axes[0].set_xlabel("short flow (sorted by FCT; seeds pooled, scaled to 20)")
        axes[0].set_ylabel("FCT (ms)")
        axes[0].legend(fontsize="small")
        means = [np.mean([thr[a][s] for s in seeds]) / 1e6 for a in ARMS]
        axes[1].bar(ARMS, means)
        axes[1].tick_params(axis="x", labelsize=7, rotation=20)
        axes[1].set_ylim(min(means) * 0.98, max(means) * 1.01)
        axes[1].set_ylabel("long flows' throughput (Mbps)")

    return Analysis(
        quantities=quantities,
        tables={"short_long": pa.table(dict(rows))},
        figures=[
            figure(
                draw, "short_long", f"{exp['id']}: short flows amid 25 long", ncols=2, sharey=False
            )
        ],
    )
