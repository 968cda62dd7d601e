"""Analysis of sp-mss: the singled-out flow's goodput with jumbo frames and with super-packets,
each over its goodput without (same seed, same RTTs), and beside the other 49 flows
(super-packets §5.1, Fig. 1 and 2)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .plots import figure
from .sp_common import LENGTH_BINS, length_shares, mean_or_none, mean_sp_length, partial_share
from .stages import stage_counters
from .stats import mean_ci

#: Arms with the whole mechanism: the SP sender on flow 0 and the SPManager (T_buffer swept).
FULL_ARMS = (
    "sp",
    "sp-250us",
    "sp-1ms",
    "sp-4ms",
    "sp-4ms-w50",
    "sp-4ms-w100",
    "sp-4ms-16-w50",
    "sp-4ms-16-w100",
)


#: The T_buffer sweep: the full mechanism's arm at each point (60 µs is the paper's default).
T_BUFFER_ARMS = {"60us": "sp", "250us": "sp-250us", "1ms": "sp-1ms", "4ms": "sp-4ms"}
#: The reservation weight sweep, at T_buffer 4 ms: the arm at each weight (0.7 is §3.3's).
WEIGHT_ARMS = {"0.5": "sp-4ms-w50", "0.7": "sp-4ms", "1.0": "sp-4ms-w100"}
#: The T_buffer points in µs, for the sweep's figure.
T_BUFFER_US = {"60us": 60, "250us": 250, "1ms": 1000, "4ms": 4000}


#: The arms drawn flow by flow, as Fig. 1 (jumbo) and Fig. 2 (super-packets) are.
PER_FLOW_ARMS = ("jumbo", "sp", "sp-4ms")
PER_FLOW_TITLES = {
    "jumbo": "jumbo frames (Fig. 1)",
    "sp": "super-packets, T_buffer 60 µs (Fig. 2)",
    "sp-4ms": "super-packets, T_buffer 4 ms",
}


def refusal_rates(run) -> tuple[float, float]:
    """The SPManager's refusal rates: super-packets (first packets refused over seen) and
    regular packets, over the run."""
    c = stage_counters(run, "sp-manager")
    sps = c["sps_admitted"] + c["sps_refused"] + c["sps_refused_host_cap"]
    regular = c["regular_accepted"] + c["regular_refused"]
    sp_rate = (c["sps_refused"] + c["sps_refused_host_cap"]) / sps if sps else float("nan")
    return sp_rate, c["regular_refused"] / regular if regular else float("nan")


def singles_share(run) -> float | None:
    """The share of the SP senders' packets that left as singles (not in a super-packet)."""
    c = stage_counters(run, "sp-sender")
    total = c["sp_packets_sent"] + c["singles_sent"]
    return c["singles_sent"] / total if total else None


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    flow0: dict[tuple, dict[int, float]] = defaultdict(dict)  # (arm, rtts) -> seed -> bps
    others: dict[tuple, dict[int, float]] = defaultdict(dict)
    partial: dict[tuple, list[float]] = defaultdict(list)
    partial_by_seed: dict[tuple, dict[int, float]] = defaultdict(dict)
    length: dict[tuple, list[float]] = defaultdict(list)
    refusal: dict[tuple, dict[int, float]] = defaultdict(dict)  # (kind, rtts) -> seed -> rate
    singles: dict[tuple, list[float]] = defaultdict(list)
    lengths: dict[tuple, list[float]] = defaultdict(list)  # (arm, rtts, bin) -> shares
    per_flow: dict[tuple, np.ndarray] = {}  # (arm, rtts) -> every flow's goodput, first seed
    first_seed = min(r.seed for r in runs)
    for r in runs:
        key = (r.params["flow0"], r.params["rtts"])
        g = np.asarray(r.tables["flows"].column("goodput_bps"), dtype=float)
        if r.seed == first_seed:
            per_flow[key] = g
        flow0[key][r.seed] = g[0]
        others[key][r.seed] = float(g[1:].mean())
        if (p := partial_share(r)) is not None:
            partial[key].append(p)
            partial_by_seed[key][r.seed] = p
        if (m := mean_sp_length(r)) is not None:
            length[key].append(m)
        if (share := singles_share(r)) is not None:
            singles[key].append(share)
        if (shares := length_shares(r)) is not None:
            for b, v in shares.items():
                lengths[(*key, b)].append(v)
        if key[0] in FULL_ARMS:
            sp_rate, regular_rate = refusal_rates(r)
            refusal["sp", *key][r.seed] = sp_rate
            refusal["regular", *key][r.seed] = regular_rate
    seeds = sorted(next(iter(flow0.values())))

    def gain(arm, rtts):
        return mean_ci(flow0[arm, rtts][s] / flow0["regular", rtts][s] for s in seeds)

    quantities = {}
    for rtts in ("equal", "mixed"):
        quantities[f"jumbo_gain_{rtts}"] = gain("jumbo", rtts)
        quantities[f"sp_gain_{rtts}"] = gain("sp", rtts)
        quantities[f"sp_over_sender_{rtts}"] = mean_ci(
            flow0["sp", rtts][s] / flow0["sp-sender", rtts][s] for s in seeds
        )
        quantities[f"sp_over_regular_refusal_{rtts}"] = mean_ci(
            refusal["sp", "sp", rtts][s] / refusal["regular", "sp", rtts][s] for s in seeds
        )
        # With T_buffer long enough that a window leaves as one super-packet (§4's ideal).
        quantities[f"sp_over_sender_4ms_{rtts}"] = mean_ci(
            flow0["sp-4ms", rtts][s] / flow0["sp-sender-4ms", rtts][s] for s in seeds
        )
        low, high = partial_by_seed["sp-4ms-w50", rtts], partial_by_seed["sp-4ms-w100", rtts]
        quantities[f"partial_w50_over_w100_{rtts}"] = mean_ci(
            low[s] / high[s] for s in seeds if high.get(s)
        )
        quantities[f"sp_4ms_over_jumbo_{rtts}"] = mean_ci(
            flow0["sp-4ms", rtts][s] / flow0["jumbo", rtts][s] for s in seeds
        )
        # T_buffer swept: the gain at each point, and the least of them per seed (the summary).
        for point, arm in T_BUFFER_ARMS.items():
            quantities[f"sp_gain_t_buffer_{point}_{rtts}"] = gain(arm, rtts)
        quantities[f"sp_gain_every_t_buffer_{rtts}"] = mean_ci(
            min(flow0[arm, rtts][s] for arm in T_BUFFER_ARMS.values()) / flow0["regular", rtts][s]
            for s in seeds
        )
        # The reservation weight swept at T_buffer 4 ms (0.7 is §3.3's): gain at each, least.
        for point, arm in WEIGHT_ARMS.items():
            quantities[f"sp_gain_weight_{point}_{rtts}"] = gain(arm, rtts)
        quantities[f"sp_gain_every_weight_{rtts}"] = mean_ci(
            min(flow0[arm, rtts][s] for arm in WEIGHT_ARMS.values()) / flow0["regular", rtts][s]
            for s in seeds
        )
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
        rows["singles_share"].append(mean_or_none(singles[arm, rtts]))
        for b in LENGTH_BINS:
            rows[f"packets_in_length_{b}"].append(mean_or_none(lengths[arm, rtts, b]))
        for kind in ("sp", "regular"):
            rate = [refusal[kind, arm, rtts][s] for s in seeds] if arm in FULL_ARMS else []
            rows[f"{kind}_refusal_rate"].append(mean_or_none(rate))
        rows["seeds"].append(len(seeds))

    def draw(axes):
        arms = ("regular", "jumbo", "sp", "sp-sender", "sp-router", "sp-4ms", "sp-sender-4ms")
        for ax, rtts in zip(axes, ("equal", "mixed"), strict=True):
            x = np.arange(len(arms))
            f0 = [np.mean([flow0[a, rtts][s] for s in seeds]) / 8e3 for a in arms]
            ot = [np.mean([others[a, rtts][s] for s in seeds]) / 8e3 for a in arms]
            ax.bar(x - 0.2, ot, 0.4, label="mean of the other 49 flows")
            ax.bar(x + 0.2, f0, 0.4, label="flow 0 (singled out)")
            ax.set_xticks(x, arms, rotation=30, fontsize="small")
            ax.set_title(f"{rtts} RTTs", fontsize=9)
        axes[0].set_ylabel("throughput (kB/s)")
        axes[0].legend(fontsize="small")

    def draw_per_flow(axes):
        # Fig. 1 and 2 as the paper draws them: every flow's throughput, the singled-out one
        # last and marked; one seed, equal RTTs (and the window-sized T_buffer beside).
        for ax, arm in zip(axes, PER_FLOW_ARMS, strict=True):
            g = per_flow[arm, "equal"] / 8e3
            colours = ["tab:blue"] * (len(g) - 1) + ["tab:red"]
            ax.bar(np.arange(len(g)), np.concatenate([g[1:], g[:1]]), color=colours, width=0.8)
            ax.set_title(PER_FLOW_TITLES[arm], fontsize=9)
            ax.set_xlabel("flow (the singled-out one last, red)")
        axes[0].set_ylabel("throughput (kB/s)")

    def draw_t_buffer(axes):
        # The T_buffer sweep: flow 0's gain, and the share of its packets sent as singles.
        x = [T_BUFFER_US[p] for p in T_BUFFER_ARMS]
        for rtts in ("equal", "mixed"):
            g = [
                np.mean([flow0[a, rtts][s] / flow0["regular", rtts][s] for s in seeds])
                for a in T_BUFFER_ARMS.values()
            ]
            axes[0].plot(x, g, marker="o", label=f"{rtts} RTTs")
            axes[1].plot(
                x,
                [mean_or_none(singles[a, rtts]) for a in T_BUFFER_ARMS.values()],
                marker="o",
                label=f"{rtts} RTTs",
            )
        for ax in axes:
            ax.set_xscale("log")
            ax.set_xlabel("T_buffer (µs; the paper's 60 µs first)")
        axes[0].axhspan(1.8, 7.2, color="0.9", label="sp-gains' band")
        axes[0].set_ylabel("flow 0's gain (× regular)")
        axes[1].set_ylabel("share of flow 0's packets sent as singles")
        axes[0].legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"throughput": pa.table(dict(rows))},
        figures=[
            figure(
                draw_t_buffer,
                "t_buffer_sweep",
                f"{exp['id']}: T_buffer swept",
                ncols=2,
                sharey=False,
            ),
            figure(draw, "throughput", f"{exp['id']}: one flow among 50", ncols=2),
            figure(
                draw_per_flow,
                "per_flow",
                f"{exp['id']}: every flow's throughput, equal RTTs (Fig. 1 and 2)",
                ncols=len(PER_FLOW_ARMS),
            ),
        ],
    )
