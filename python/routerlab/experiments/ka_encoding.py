"""Analysis of ka-encoding: the rate and RTT code tables from the simulator's encoder, their
round trips, and the measured cost of fragmenting every packet (Kick-Ass §II-A, §II-B, §IV-C)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from .. import _core
from ..reproduction import Analysis
from .plots import figure
from .stages import stage_counter
from .stats import Estimate, mean_ci

IP_HEADER_BYTES = 20
LINK = "left->right"


def exact(x: float) -> Estimate:
    return Estimate(float(x), None, None, 1)


def overhead(run) -> float:
    """Extra IP header bytes the Kick-Ass router added over the bytes its link sent."""
    links = run.tables["links"]
    tx = dict(
        zip(links.column("link").to_pylist(), links.column("tx_bytes").to_pylist(), strict=True)
    )
    return stage_counter(run, LINK, "signalled") * IP_HEADER_BYTES / tx[LINK]


def flow_column(run, name: str) -> float:
    return float(run.tables["flows"].column(name).to_pylist()[0])


def rate_mode_share(run) -> float:
    """The flow's time in rate mode over its lifetime."""
    life = float(run.summary["sim_seconds"]) - flow_column(run, "start_s")
    return flow_column(run, "rate_mode_s") / life


def by_arm(runs: list) -> dict:
    """The runs of each `signalling` arm, by seed."""
    out = defaultdict(dict)
    for r in runs:
        out[r.params.get("signalling", "every-packet")][r.seed] = r
    return out


def overhead_quantities(arms: dict) -> dict:
    """The every-packet arm's overhead; the spaced arm's (§V) as a share of it, its goodput over
    the every-packet arm's, and its flow's share of time in rate mode (same seeds)."""
    every, spaced = arms["every-packet"], arms.get("spaced", {})
    seeds = sorted(set(every) & set(spaced))
    out = {"overhead": mean_ci(overhead(r) for r in every.values())}
    if seeds:
        out["spaced_overhead_share"] = mean_ci(
            overhead(spaced[s]) / overhead(every[s]) for s in seeds
        )
        out["spaced_goodput_gain"] = mean_ci(
            flow_column(spaced[s], "goodput_bps") / flow_column(every[s], "goodput_bps")
            for s in seeds
        )
        out["spaced_rate_mode"] = mean_ci(rate_mode_share(spaced[s]) for s in seeds)
    return out


def overhead_table(quantities: dict) -> pa.Table:
    """The measured overhead quantities, with their intervals."""
    rows = defaultdict(list)
    for name in ("overhead", "spaced_overhead_share", "spaced_goodput_gain", "spaced_rate_mode"):
        if name in quantities:
            rows["quantity"].append(name)
            quantities[name].append_to(rows, "value")
    return pa.table(dict(rows))


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    levels = _core.ka_levels()
    indicators = _core.ka_indicators()
    lengths = np.array([lv[0] for lv in levels])
    rates = np.array([lv[1] for lv in levels], dtype=float)
    quantities = {
        "levels": exact(len(levels)),
        "level_round_trip_failures": exact(sum(1 for ln, _, back in levels if back != ln)),
        "indicator_round_trip_failures": exact(
            sum(1 for size, _, back in indicators if back != size)
        ),
        **overhead_quantities(by_arm(runs)),
        "level_step": exact(float(np.mean(rates[1:] / rates[:-1]) - 1)),
    }
    level_rows = {
        "length_bytes": lengths.tolist(),
        "rate_bps": rates.tolist(),
        "step_to_next": [*(rates[1:] / rates[:-1] - 1).tolist(), None],
        "round_trip": [back for _, _, back in levels],
    }
    ind_rows = defaultdict(list)
    for size, rtt, back in indicators:
        ind_rows["size_bytes"].append(size)
        ind_rows["rtt_s"].append(rtt)
        ind_rows["round_trip"].append(back)

    def draw(axes):
        axes[0].plot(rates / 1e6, lengths, lw=1)
        axes[0].set_xscale("log")
        axes[0].set_xlabel("rate (Mbps)")
        axes[0].set_ylabel("leading-fragment payload (bytes)")
        axes[0].axvline(120e-3, ls=":", c="k", lw=0.8)
        axes[1].step(ind_rows["size_bytes"], np.asarray(ind_rows["rtt_s"]) * 1e3, where="mid")
        axes[1].set_yscale("log")
        axes[1].set_xlabel("indicator size (bytes)")
        axes[1].set_ylabel("RTT a router reads (ms)")

    return Analysis(
        quantities=quantities,
        tables={
            "levels": pa.table(level_rows),
            "indicators": pa.table(dict(ind_rows)),
            "overhead": overhead_table(quantities),
        },
        figures=[figure(draw, "codes", f"{exp['id']}: rate and RTT codes", ncols=2, sharey=False)],
    )
