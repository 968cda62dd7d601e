"""Analysis of base-loss: one flow's goodput per loss rate, against the PFTK and Mathis models."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .models import mathis, pftk
from .plots import errorbar, figure
from .stats import add_row, mean_ci

#: Loss rates up to which Mathis's law is compared point by point, and the slope is fitted.
MATHIS_MAX_P = 0.005
SLOPE_MAX_P = 0.01


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    mss, rtt, t0, b = c["mss_bytes"], c["rtt_s"], c["t0_s"], c["acks_per_segment"]
    # goodput[sack][seed][p]
    goodput: dict[bool, dict[int, dict[float, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        goodput[r.params["sack"]][r.seed][r.params["p"]] = (
            r.tables["flows"].column("goodput_bps")[0].as_py()
        )
    reno = goodput[False]
    seeds = sorted(reno)
    ps = sorted(reno[seeds[0]])

    def worst_dev(seed: int, model, pmax: float) -> float:
        return max(abs(reno[seed][p] / model(p) - 1) for p in ps if p <= pmax)

    def slope(seed: int) -> float:
        low = [p for p in ps if p <= SLOPE_MAX_P]
        return float(np.polyfit(np.log(low), np.log([reno[seed][p] for p in low]), 1)[0])

    def model_pftk(p):
        return pftk(p, mss, rtt, t0, b)

    def model_mathis(p):
        return mathis(p, mss, rtt)

    quantities = {
        "pftk_worst_ratio_dev": mean_ci(worst_dev(s, model_pftk, 1.0) for s in seeds),
        "mathis_worst_ratio_dev_low_p": mean_ci(
            worst_dev(s, model_mathis, MATHIS_MAX_P) for s in seeds
        ),
        "slope_low_p": mean_ci(slope(s) for s in seeds),
        "mathis_ratio_pmax": mean_ci(reno[s][ps[-1]] / model_mathis(ps[-1]) for s in seeds),
    }

    rows = defaultdict(list)
    est = {}
    for sack in sorted(goodput):
        for p in ps:
            e = mean_ci(goodput[sack][s][p] for s in seeds)
            est[sack, p] = e
            models = {"pftk_mbps": model_pftk(p) / 1e6, "mathis_mbps": model_mathis(p) / 1e6}
            add_row(rows, {"sack": sack, "p": p}, e, "goodput_mbps", 1e-6, models)

    def draw(ax):
        dense = np.geomspace(ps[0], ps[-1], 100)
        ax.plot(dense, [model_mathis(p) / 1e6 for p in dense], "k--", lw=1, label="Mathis et al.")
        ax.plot(
            dense,
            [model_pftk(p) / 1e6 for p in dense],
            "k-",
            lw=1,
            label="PFTK (T0 = 200 ms, b = 1)",
        )
        for sack, label in ((False, "NewReno"), (True, "NewReno + SACK")):
            if sack in goodput:
                errorbar(ax, ps, [est[sack, p].scaled(1e-6) for p in ps], label, linestyle="none")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("loss probability p")
        ax.set_ylabel("goodput (Mbps)")
        ax.legend()

    pmax = ps[-1]
    ours = est[False, pmax].mean
    notes = (
        f"At p = {pmax:g}, NewReno (no SACK) gets {ours / 1e6:.3g} Mbps: "
        f"{ours / model_mathis(pmax):.2f} × Mathis and {ours / model_pftk(pmax):.2f} × PFTK. "
        "For these parameters PFTK itself predicts "
        f"{model_pftk(pmax) / model_mathis(pmax):.2f} × Mathis, so the `timeouts` criterion "
        "(≤ 0.8 × Mathis) asks for at least the model's own gap. "
        f"At p = {ps[0]:g}, ours is {est[False, ps[0]].mean / model_mathis(ps[0]):.2f} × Mathis: "
        "with random (not periodic) losses and an ACK per segment, Mathis et al. measured a "
        "constant of ≈ 1.31 instead of sqrt(3/2) ≈ 1.22, i.e. 1.07 × the formula; the resulting "
        "slope is a little steeper than −0.5."
    )
    return Analysis(
        notes=notes,
        quantities=quantities,
        tables={"goodput": pa.table(dict(rows))},
        figures=[
            figure(
                draw, "goodput_vs_loss", f"{exp['id']}: one flow, RTT {rtt * 1e3:g} ms, MSS {mss} B"
            )
        ],
    )
