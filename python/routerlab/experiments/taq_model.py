"""Analysis of taq-model: per run, the bottleneck's loss rate p and the shares of (flow, epoch)
pairs in which the flow's sender sent no packet, one, and two; the model's '0 sent', '1 sent'
and '2 sent' shares at that p; the model's timeout share against p (TAQ Fig. 6 and §3.2)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..model import taq
from ..reproduction import Analysis, Run
from .plots import figure
from .stats import Estimate, mean_ci


def loss_rate(run: Run, link: str = "left->right") -> float:
    links = run.tables["links"].to_pydict()
    i = links["link"].index(link)
    drops, sent = links["drops"][i], links["tx_packets"][i]
    return drops / (sent + drops) if sent + drops else 0.0


#: The packet counts per epoch whose shares Fig. 6 compares: '0 sent', '1 sent', '2 sent'.
SENT = (0, 1, 2)


def sent_shares(run: Run, warmup_s: float, payload_bytes: int) -> dict[int, float]:
    """Share of (flow, sample) pairs after the warm-up in which the sender sent k segments
    (retransmissions included) since the previous sample, for k in `SENT`."""
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"))
    keep = t > warmup_s
    if len(t) < 2 or not keep.any():
        return dict.fromkeys(SENT, float("nan"))
    interval = float(np.min(np.diff(np.unique(t))))
    rate = np.asarray(ts.column("send_rate_bps"))[keep]
    # A partial segment counts as one: '0 sent' is an epoch with no payload at all.
    packets = np.ceil(rate * interval / 8 / payload_bytes - 1e-9)
    return {k: float((packets == k).mean()) for k in SENT}


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    w_max = c["w_max"]
    # by_tcp[tcp][seed][n] = (p, {k: simulated 'k sent' share}, {k: the model's}); the claims
    # are judged on the SACK senders, the Reno ones (`tcp = "reno"`) show what SACK changes.
    by_tcp: dict[str, dict] = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        p = loss_rate(r)
        model = taq.summary(min(p, 0.499), w_max)
        sim = sent_shares(r, c["warmup_s"], c["payload_bytes"])
        by_tcp[r.params.get("tcp", "sack")][r.seed][r.params["n"]] = (
            p,
            sim,
            {k: model[f"sent_{k}"] for k in SENT},
        )
    per = by_tcp["sack"]
    seeds = sorted(per)
    ns = sorted(per[seeds[0]])

    def worst(s, k, tcp="sack"):
        runs_of = by_tcp[tcp][s].values()
        errs = [abs(sim[k] - mod[k]) for p, sim, mod in runs_of if p > c["judged_p"]]
        return max(errs) if errs else float("nan")

    # The model's knee, judged by its slope: the timeout share's mean rise per unit of p
    # beyond p = 0.1 (to 0.2) over that below it (from 0), and where the rise is steepest.
    grid_p = np.round(np.arange(0.0, 0.2001, 0.005), 3)
    share = {p: taq.summary(p, w_max)["timeout_share"] if p > 0 else 0.0 for p in grid_p}
    slope = np.gradient([share[p] for p in grid_p], grid_p)
    quantities = {
        "model_slope_ratio_beyond_0.1": Estimate(
            (share[0.2] - share[0.1]) / (share[0.1] - share[0.0]), None, None, 1
        ),
        "model_steepest_p": Estimate(float(grid_p[int(np.argmax(slope))]), None, None, 1),
        **{
            f"max_abs_error_sent{k}_above_judged_p": mean_ci(worst(s, k) for s in seeds)
            for k in SENT
        },
        **{
            f"max_abs_error_sent{k}_above_judged_p_{tcp}": mean_ci(
                worst(s, k, tcp) for s in sorted(by_tcp[tcp])
            )
            for k in SENT
            for tcp in by_tcp
            if tcp != "sack"
        },
    }

    if "sack-per-ack" in by_tcp:
        # What growing one segment per ACK in slow start (ns-2's rule) does to '2 sent': the
        # share with it less the share counting bytes, per seed, averaged over the flows.
        other = by_tcp["sack-per-ack"]
        quantities["sent2_per_ack_minus_bytes"] = mean_ci(
            float(np.mean([other[s][n][1][2] - per[s][n][1][2] for n in ns])) for s in seeds
        )

    rows = defaultdict(list)
    for tcp, arm in sorted(by_tcp.items()):
        arm_seeds = sorted(arm)
        for n in sorted(arm[arm_seeds[0]]):
            rows["tcp"].append(tcp)
            rows["n"].append(n)
            mean_ci(arm[s][n][0] for s in arm_seeds).append_to(rows, "loss_rate")
            for k in SENT:
                mean_ci(arm[s][n][1][k] for s in arm_seeds).append_to(rows, f"sent{k}_simulated")
                mean_ci(arm[s][n][2][k] for s in arm_seeds).append_to(rows, f"sent{k}_model")
            rows["seeds"].append(len(arm_seeds))

    def draw(ax):
        grid = np.linspace(0, 0.45, 91)
        model = [taq.summary(p, w_max) for p in grid]
        xs = [per[s][n][0] for s in seeds for n in ns]
        labels = {0: "0 sent (b0, b*)", 1: "1 sent (S1)", 2: "2 sent (S2)"}
        for k, color in zip(SENT, ("C0", "C1", "C2"), strict=True):
            ax.plot(grid, [m[f"sent_{k}"] for m in model], color=color, label=f"model: {labels[k]}")
            ys = [per[s][n][1][k] for s in seeds for n in ns]
            ax.scatter(xs, ys, s=10, color=color, marker="o", label=f"simulated: {k} sent")
        ax.plot(
            grid,
            [m["timeout_share"] for m in model],
            color="grey",
            linestyle="--",
            label="model: in b0, b* or S1",
        )
        ax.set_xlabel("loss rate p")
        ax.set_ylabel("share of epochs")
        ax.set_ylim(0, 1)
        ax.legend(fontsize="small", ncol=2)

    return Analysis(
        quantities=quantities,
        tables={"model": pa.table(dict(rows))},
        figures=[
            figure(
                draw, "sent_vs_p", f"{exp['id']}: W_max = {w_max}, 1 Mbps, {ns[0]}–{ns[-1]} flows"
            )
        ],
    )
