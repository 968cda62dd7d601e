"""Analysis of taq-model: per run, the bottleneck's loss rate p and the share of (flow, epoch)
pairs in which the flow's sender sent nothing; the model's '0 sent' share at that p; the
model's timeout share against p (TAQ Fig. 6 and §3.2)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..model import taq
from . import Analysis, Run
from .plots import figure
from .stats import Estimate, mean_ci


def loss_rate(run: Run, link: str = "left->right") -> float:
    links = run.tables["links"].to_pydict()
    i = links["link"].index(link)
    drops, sent = links["drops"][i], links["tx_packets"][i]
    return drops / (sent + drops) if sent + drops else 0.0


def silent_share(run: Run, warmup_s: float) -> float:
    """Share of (flow, sample) pairs after the warm-up in which the sender sent nothing since
    the previous sample."""
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"))
    rate = np.asarray(ts.column("send_rate_bps"))[t > warmup_s]
    return float((rate == 0).mean()) if len(rate) else float("nan")


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    w_max = c["w_max"]
    per: dict[int, dict[int, tuple[float, float, float]]] = defaultdict(dict)
    for r in runs:
        p = loss_rate(r)
        model = taq.summary(min(p, 0.499), w_max)["sent_0"]
        per[r.seed][r.params["n"]] = (p, silent_share(r, c["warmup_s"]), model)
    seeds = sorted(per)
    ns = sorted(per[seeds[0]])

    def worst(s):
        errs = [abs(sim - model) for p, sim, model in per[s].values() if p > c["judged_p"]]
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
        "max_abs_error_sent0_above_judged_p": mean_ci(worst(s) for s in seeds),
    }

    rows = defaultdict(list)
    for n in ns:
        ps = [per[s][n][0] for s in seeds]
        sims = [per[s][n][1] for s in seeds]
        models = [per[s][n][2] for s in seeds]
        rows["n"].append(n)
        for name, values in (("loss_rate", ps), ("sent0_simulated", sims), ("sent0_model", models)):
            mean_ci(values).append_to(rows, name)
        rows["seeds"].append(len(seeds))

    def draw(ax):
        grid = np.linspace(0, 0.45, 91)
        ax.plot(
            grid, [taq.summary(p, w_max)["sent_0"] for p in grid], label="model: 0 sent (b0, b*)"
        )
        ax.plot(
            grid,
            [taq.summary(p, w_max)["timeout_share"] for p in grid],
            linestyle="--",
            label="model: in b0, b* or S1",
        )
        xs = [per[s][n][0] for s in seeds for n in ns]
        ys = [per[s][n][1] for s in seeds for n in ns]
        ax.scatter(xs, ys, s=12, color="black", label="simulated: sender sent nothing in an epoch")
        ax.set_xlabel("loss rate p")
        ax.set_ylabel("share of epochs")
        ax.set_ylim(0, 1)
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"model": pa.table(dict(rows))},
        figures=[
            figure(
                draw, "sent0_vs_p", f"{exp['id']}: W_max = {w_max}, 1 Mbps, {ns[0]}–{ns[-1]} flows"
            )
        ],
    )
