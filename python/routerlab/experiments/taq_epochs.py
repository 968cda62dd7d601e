"""Analysis of taq-epochs: does TAQ's flow tracker hold its epoch? Per queue and number of
flows, the median of the tracker's epochs against the senders' mean smoothed RTT, both after
the warm-up.

An epoch's length is the time since the flow's previous epoch ended (`flow_epochs.end_s`); a
row that stands for several identical epochs (`epochs`) gives each of them that share and
counts as many times in the median. The senders' SRTT comes from `timeseries`, every flow at
every sample once it has an estimate."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .stats import mean_ci


def epoch_lengths(run: Run, warmup_s: float) -> tuple[np.ndarray, np.ndarray]:
    """(length, multiplicity) of every epoch of every flow that ended after the warm-up."""
    t = run.tables["flow_epochs"]
    flow = np.asarray(t.column("flow_id"))
    end = np.asarray(t.column("end_s"))
    epochs = np.asarray(t.column("epochs"))
    order = np.lexsort((end, flow))
    flow, end, epochs = flow[order], end[order], epochs[order]
    follows = flow[1:] == flow[:-1]  # the row has a previous epoch of the same flow
    length = (end[1:] - end[:-1]) / np.maximum(epochs[1:], 1)
    keep = follows & (end[1:] > warmup_s)
    return length[keep], epochs[1:][keep]


def median_epoch(run: Run, warmup_s: float) -> float:
    length, times = epoch_lengths(run, warmup_s)
    return float(np.median(np.repeat(length, times))) if len(length) else float("nan")


def mean_srtt(run: Run, warmup_s: float) -> float:
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"))
    srtt = ts.column("srtt_s").to_numpy(zero_copy_only=False).astype(float)
    ok = (t > warmup_s) & np.isfinite(srtt) & (srtt > 0)
    return float(srtt[ok].mean()) if ok.any() else float("nan")


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    warmup = float(exp["constants"]["warmup_s"])
    # ratio[queue][seed][n]: the tracker's median epoch / the senders' mean SRTT
    epoch: dict = defaultdict(lambda: defaultdict(dict))
    srtt: dict = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        q, n = r.params["queue"], r.params["n"]
        epoch[q][r.seed][n] = median_epoch(r, warmup)
        srtt[q][r.seed][n] = mean_srtt(r, warmup)
    queues = [q for q in exp["grid"]["queue"] if q in epoch]
    seeds = sorted(epoch[queues[0]])
    ns = sorted(epoch[queues[0]][seeds[0]])

    def ratio(q, s, n):
        return epoch[q][s][n] / srtt[q][s][n]

    def worst_error(q):
        """Per seed, the largest relative error of the median epoch over the numbers of flows."""
        return mean_ci(max(abs(ratio(q, s, n) - 1) for n in ns) for s in seeds)

    quantities = {
        "epoch_error_taq_max": worst_error("taq"),
        "epoch_error_taq_bursts_max": worst_error("taq-bursts"),
        "epoch_error_taq_two_way_max": worst_error("taq-two-way"),
    }

    rows = defaultdict(list)
    est = {}
    for q in queues:
        for n in ns:
            rows["queue"].append(q)
            rows["n"].append(n)
            mean_ci(epoch[q][s][n] for s in seeds).append_to(rows, "median_epoch_s")
            mean_ci(srtt[q][s][n] for s in seeds).append_to(rows, "mean_srtt_s")
            est[q, n] = mean_ci(ratio(q, s, n) for s in seeds)
            est[q, n].append_to(rows, "epoch_over_srtt")
            rows["seeds"].append(len(seeds))

    def draw(ax):
        for q in queues:
            errorbar(ax, ns, [est[q, n] for n in ns], q)
        tol = float(exp["constants"]["tolerance"])
        ax.axhspan(1 - tol, 1 + tol, color="0.9", zorder=0, label=f"±{tol:.0%}")
        ax.set_xscale("log")
        ax.set_xlabel("flows")
        ax.set_ylabel("tracker's median epoch / senders' mean SRTT")
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"epochs": pa.table(dict(rows))},
        figures=[figure(draw, "epoch_over_srtt", f"{exp['id']}: 1 Mbps, {ns[0]}–{ns[-1]} flows")],
    )
