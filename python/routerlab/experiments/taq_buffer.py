"""Analysis of taq-buffer: per number of flows and drop-tail buffer, the mean 20 s Jain index
after the warm-up (over 100 s slices for the arms `-100s` names); per seed and number of flows,
the smallest buffer of the sweep whose index reaches the fairness threshold (TAQ §2.4,
Fig. 3)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .small_packet import bottleneck_utilization
from .stats import mean_ci


def settled_jain(run: Run, warmup_s: float) -> float:
    """Mean Jain index of the fairness slices that start at or after `warmup_s`."""
    f = run.tables["fairness"].to_pydict()
    kept = [j for s, j in zip(f["start_s"], f["jain_index"], strict=True) if s >= warmup_s]
    return float(np.mean(kept)) if kept else float("nan")


def buffer_needed(jain_by_delay: dict[float, float], threshold: float, beyond: float) -> float:
    """The smallest buffer (s of queueing) whose index reaches `threshold`; `beyond` if none."""
    met = [d for d, j in sorted(jain_by_delay.items()) if j >= threshold]
    return met[0] if met else beyond


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    delay = {b: float(v["delay_s"]) for b, v in exp["variants"]["buffer"].items()}
    # jain[sender][n][seed][delay_s], utilization likewise
    jain: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    util: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    timeouts: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in runs:
        m, n, d = r.params["sender"], r.params["n"], delay[r.params["buffer"]]
        jain[m][n][r.seed][d] = settled_jain(r, float(r.params["warmup_s"]))
        util[m][n][r.seed][d] = bottleneck_utilization(r)
        timeouts[m][n][r.seed][d] = float(np.mean(r.tables["flows"]["timeouts"].to_numpy()))
    caps = [m for m in exp["grid"]["sender"] if m in jain]
    judged = caps[0]
    ns = sorted(jain[judged])
    seeds = sorted(jain[judged][ns[0]])
    delays = sorted(jain[judged][ns[0]][seeds[0]])

    def needed(n: int, s: int, m: str = judged) -> float:
        return buffer_needed(jain[m][n][s], c["fair_jain"], c["beyond_s"])

    rows = defaultdict(list)
    est = {}
    for m, n, d in [(m, n, d) for m in caps for n in ns for d in delays]:
        rows["sender"].append(m)
        rows["n"].append(n)
        rows["fair_share_kbps"].append(c["capacity_bps"] / n / 1e3)
        rows["buffer_s"].append(d)
        rows["buffer_packets"].append(round(d * c["capacity_bps"] / 8 / c["packet_bytes"]))
        est[m, n, d] = e = mean_ci(jain[m][n][s][d] for s in seeds)
        e.append_to(rows, "jain20")
        mean_ci(util[m][n][s][d] for s in seeds).append_to(rows, "utilization")
        mean_ci(timeouts[m][n][s][d] for s in seeds).append_to(rows, "timeouts_per_flow")
        rows["seeds"].append(len(seeds))
    needs = defaultdict(list)
    for m, n in [(m, n) for m in caps for n in ns]:
        needs["sender"].append(m)
        needs["n"].append(n)
        needs["fair_share_kbps"].append(c["capacity_bps"] / n / 1e3)
        mean_ci(needed(n, s, m) for s in seeds).append_to(needs, "buffer_needed_s")

    quantities = {
        f"buffer_needed_s_{ns[-1]}": mean_ci(needed(ns[-1], s) for s in seeds),
        f"buffer_needed_{ns[-1]}_over_{ns[0]}": mean_ci(
            needed(ns[-1], s) / needed(ns[0], s) for s in seeds
        ),
        f"jain20_{ns[-1]}_{delays[0]:g}s": est[judged, ns[-1], delays[0]],
    } | {
        f"buffer_needed_s_{ns[-1]}_{m}": mean_ci(needed(ns[-1], s, m) for s in seeds)
        for m in caps[1:]
    }
    if "paced" in caps and 32.0 in delays:
        quantities[f"jain20_{ns[-1]}_32s_paced_minus_{judged}"] = mean_ci(
            jain["paced"][ns[-1]][s][32.0] - jain[judged][ns[-1]][s][32.0] for s in seeds
        )

    def draw(ax):
        for m in caps:
            for n in ns:
                label = f"{n} flows" + ("" if m == judged else f", {m}")
                errorbar(ax, delays, [est[m, n, d] for d in delays], label)
        ax.axhline(c["fair_jain"], color="grey", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_xticks(delays, [f"{d:g}" for d in delays])
        ax.minorticks_off()
        ax.set_xlabel("drop-tail buffer (s of queueing at 2 Mbps)")
        ax.set_ylabel("Jain index, 20 s slices")
        ax.set_ylim(0, 1.05)
        ax.legend(loc="lower right")

    return Analysis(
        quantities=quantities,
        tables={"fairness": pa.table(dict(rows)), "buffer_needed": pa.table(dict(needs))},
        figures=[figure(draw, "jain20_vs_buffer", f"{exp['id']}: 2 Mbps, 1000-byte packets")],
    )
