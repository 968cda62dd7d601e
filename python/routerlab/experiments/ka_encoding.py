"""Analysis of ka-encoding: the rate and RTT code tables from the simulator's encoder, their
round trips, and the measured cost of fragmenting every packet (Kick-Ass §II-A, §II-B, §IV-C)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from .. import _core
from . import Analysis
from .plots import figure
from .stats import Estimate, mean_ci

IP_HEADER_BYTES = 20


def exact(x: float) -> Estimate:
    return Estimate(float(x), None, None, 1)


def router_counter(run, name: str) -> int:
    t = run.tables["stages"]
    return sum(
        v
        for at, stage, c, v in zip(
            t.column("at").to_pylist(),
            t.column("stage").to_pylist(),
            t.column("counter").to_pylist(),
            t.column("value").to_pylist(),
            strict=True,
        )
        if at == "left->right" and stage == "ka-router" and c == name
    )


def overhead(run) -> float:
    links = run.tables["links"]
    tx = dict(
        zip(links.column("link").to_pylist(), links.column("tx_bytes").to_pylist(), strict=True)
    )
    return router_counter(run, "signalled") * IP_HEADER_BYTES / tx["left->right"]


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
        "overhead": mean_ci(overhead(r) for r in runs),
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
        tables={"levels": pa.table(level_rows), "indicators": pa.table(dict(ind_rows))},
        figures=[figure(draw, "codes", f"{exp['id']}: rate and RTT codes", ncols=2, sharey=False)],
    )
