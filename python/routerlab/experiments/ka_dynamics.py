"""Analysis of ka-dynamics: per-flow rate against C/N as flows join, utilization and queue
over time, for native RCP and Kick-Ass (Kick-Ass §III-C1, Fig. 2), and both with the RCP
literature's faster gains (the `-fast` arms)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .plots import figure
from .stats import mean_ci

LINK_BPS = 150e6
RTT_S = 0.1
INITIAL = 10
JOIN_EVERY_S = 10.0
SETTLE_FROM_S = 2.0
#: Delivered payload to IP bytes (RCP's 16-byte header; Kick-Ass's rate is on 1500-byte packets).
IP_PER_PAYLOAD = {"rcp": 1500 / 1444, "ka": 1500 / 1460}
#: Band around C/N a settled flow stays in.
BAND = {"rcp": 0.10, "ka": 0.10 + 0.065}
SCHEMES = ("rcp", "ka")


def protocol(arm: str) -> str:
    """The protocol an arm runs: `rcp-fast` is RCP with other gains."""
    return arm.split("-")[0]


def flows_at(t: float) -> int:
    return INITIAL + int(t // JOIN_EVERY_S)


def series(run):
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"), dtype=float)
    fid = np.asarray(ts.column("flow_id"))
    rate = (
        np.asarray(ts.column("delivered_bps"), dtype=float)
        * IP_PER_PAYLOAD[protocol(run.params["scheme"])]
    )
    return t, fid, rate


def rate_over_share(run, link_bps: float = LINK_BPS) -> float:
    """Each flow's mean rate over C/N in each epoch (from 2 s after the epoch starts), averaged;
    C is `link_bps`."""
    t, fid, rate = series(run)
    end = float(run.summary["sim_seconds"])
    ratios = []
    for k in range(int(end // JOIN_EVERY_S) + 1):
        lo, hi = k * JOIN_EVERY_S + SETTLE_FROM_S, min((k + 1) * JOIN_EVERY_S, end)
        share = link_bps / flows_at(lo)
        for f in range(flows_at(lo)):
            sel = (fid == f) & (t > lo) & (t <= hi)
            if sel.any():
                ratios.append(rate[sel].mean() / share)
    return float(np.mean(ratios))


def settle_rtts(run) -> float:
    """RTTs from each join until the joining flow stays within the band of the new C/N."""
    t, fid, rate = series(run)
    band = BAND[protocol(run.params["scheme"])]
    end = float(run.summary["sim_seconds"])
    out = []
    for k in range(1, int(end // JOIN_EVERY_S) + 1):
        start = k * JOIN_EVERY_S
        if start >= end:
            break
        share = LINK_BPS / flows_at(start)
        sel = (fid == INITIAL + k - 1) & (t > start) & (t <= min(start + JOIN_EVERY_S, end))
        tt, rr = t[sel], rate[sel]
        outside = np.nonzero(np.abs(rr / share - 1) > band)[0]
        settled_at = tt[outside[-1]] if len(outside) else start
        # Whole samples apart: rounded, so that 30 samples of 0.1 s read 3 RTTs, not 3 + 1e-14.
        out.append(round((settled_at - start) / RTT_S, 9))
    return float(np.mean(out))


def link_series(run):
    q = run.tables["queues"]
    return (
        np.asarray(q.column("t_s"), dtype=float),
        np.asarray(q.column("utilization"), dtype=float),
        np.asarray(q.column("queue_packets"), dtype=float),
    )


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    ratio, settle, util, queue = (defaultdict(dict) for _ in range(4))
    traces = {}
    for r in runs:
        arm = r.params["scheme"]
        ratio[arm][r.seed] = rate_over_share(r)
        settle[arm][r.seed] = settle_rtts(r)
        t, u, q = link_series(r)
        util[arm][r.seed] = float(u[t > SETTLE_FROM_S].mean())
        queue[arm][r.seed] = float(q[t > SETTLE_FROM_S].mean())
        if r.seed == min(s.seed for s in runs):
            traces[arm] = (series(r), (t, u, q))
    seeds = sorted(ratio["rcp"])
    arms = sorted(ratio, key=lambda a: (a not in SCHEMES, a))
    quantities = {f"{a}_rate_over_share": mean_ci(ratio[a][s] for s in seeds) for a in arms}
    quantities |= {f"{a}_settle_rtts": mean_ci(settle[a][s] for s in seeds) for a in arms}
    quantities["utilization_min"] = mean_ci(min(util[a][s] for a in SCHEMES) for s in seeds)
    quantities["mean_queue_max"] = mean_ci(max(queue[a][s] for a in SCHEMES) for s in seeds)
    rows = defaultdict(list)
    for a in arms:
        rows["scheme"].append(a)
        mean_ci(ratio[a][s] for s in seeds).append_to(rows, "rate_over_share")
        mean_ci(settle[a][s] for s in seeds).append_to(rows, "settle_rtts")
        mean_ci(util[a][s] for s in seeds).append_to(rows, "utilization")
        mean_ci(queue[a][s] for s in seeds).append_to(rows, "mean_queue_packets")

    def draw(axes):
        for a in SCHEMES:
            (t, fid, rate), (lt, u, q) = traces[a]
            sel = fid == 0
            axes[0].plot(t[sel], rate[sel] / 1e6, label="Kick-Ass" if a == "ka" else "RCP", lw=0.8)
            axes[1].plot(lt, u, lw=0.8)
            axes[2].plot(lt, q, lw=0.8)
        end = max(traces["rcp"][1][0])
        ts = np.arange(0, end, 0.1)
        axes[0].plot(ts, [LINK_BPS / flows_at(x) / 1e6 for x in ts], "k:", lw=0.8, label="C/N")
        axes[0].set_ylabel("flow 0's rate (Mbps)")
        axes[0].set_ylim(0, 30)
        axes[0].legend(fontsize="small")
        axes[1].set_ylabel("utilization")
        axes[2].set_ylabel("queue (packets)")
        for ax in axes:
            ax.set_xlabel("time (s)")

    return Analysis(
        quantities=quantities,
        tables={"dynamics": pa.table(dict(rows))},
        figures=[
            figure(draw, "dynamics", f"{exp['id']}: a flow joins every 10 s", ncols=3, sharey=False)
        ],
    )
