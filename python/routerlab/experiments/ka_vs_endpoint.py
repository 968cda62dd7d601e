"""Analysis of ka-vs-endpoint: Kick-Ass against CUBIC on drop-tail and on FQ-CoDel with ECN —
mean FCT under light load, queueing delay and per-flow throughput under heavy load (Kick-Ass
§IV-A, Fig. 8–10)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .ka_common import SEGMENT_BYTES, completed_fcts, link_bps, queue_samples
from .plots import figure
from .stats import mean_ci, queue_delay_samples

SCHEMES = ("ka", "cubic", "cubic-fq-codel", "ka-fast")
LABEL = {
    "ka": "Kick-Ass",
    "cubic": "CUBIC",
    "cubic-fq-codel": "CUBIC on FQ-CoDel+ECN",
    "ka-fast": "Kick-Ass, α = 0.4",
}
SHORT = {
    "ka": "Kick-Ass",
    "cubic": "CUBIC",
    "cubic-fq-codel": "CUBIC/FQ-CoDel",
    "ka-fast": "KA α=.4",
}
LINK = "left->right"
PACKET_BITS = 1500 * 8
#: Sampled queueing delays above this count as long waits in the `minutes` table.
LONG_WAIT_S = 0.1


def delay_histogram(run) -> tuple[np.ndarray, np.ndarray]:
    """(bucket upper bounds in s, counts) of the router's queueing delays."""
    buckets = queue_delay_samples(run.tables["queue_delay"])
    upper = np.asarray([hi for _, hi, _ in buckets], dtype=float)
    count = np.asarray([n for _, _, n in buckets], dtype=float)
    return upper, count


def delay_percentile(run, p: float) -> float:
    """The p-th percentile's bucket upper bound (the delay at most p % of packets exceed)."""
    upper, count = delay_histogram(run)
    cum = np.cumsum(count) / count.sum()
    return float(upper[np.searchsorted(cum, p / 100)])


def over_best_cubic(thr: dict, arm: str, seeds: list):
    """A Kick-Ass arm's mean per-flow throughput over the better CUBIC's, heavy load."""
    best = {s: max(thr["heavy", "cubic"][s], thr["heavy", "cubic-fq-codel"][s]) for s in seeds}
    return mean_ci(thr["heavy", arm][s] / best[s] for s in seeds)


def minute_rows(rows: dict, run, load: str, arm: str) -> None:
    """Per minute of one run: the median and 99th percentile of the queueing delay the 100 ms
    queue samples imply (packets × 1500 B at the link rate), and the share above LONG_WAIT_S —
    a rate locked at its floor shows here as minutes of long waits."""
    t, q = queue_samples(run, LINK)
    delay = q * PACKET_BITS / link_bps(run, LINK)
    for m in range(int(np.ceil(t.max() / 60)) if len(t) else 0):
        d = delay[(t > 60 * m) & (t <= 60 * (m + 1))]
        if not len(d):
            continue
        rows["load"].append(load)
        rows["scheme"].append(arm)
        rows["seed"].append(run.seed)
        rows["minute"].append(m)
        rows["median_delay_s"].append(float(np.median(d)))
        rows["p99_delay_s"].append(float(np.percentile(d, 99)))
        rows["long_wait_share"].append(float((d > LONG_WAIT_S).mean()))


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    fct = defaultdict(dict)
    thr = defaultdict(dict)
    med = defaultdict(dict)
    p99 = defaultdict(dict)
    heavy_runs = {}
    minutes = defaultdict(list)
    for r in sorted(runs, key=lambda r: (r.params["load"], r.params["scheme"], r.seed)):
        load = r.params["load"].removesuffix("-quick")
        arm = r.params["scheme"]
        sizes, fcts = completed_fcts(r)
        fct[load, arm][r.seed] = float(fcts.mean())
        thr[load, arm][r.seed] = float(np.mean(sizes * SEGMENT_BYTES * 8 / fcts))
        med[load, arm][r.seed] = delay_percentile(r, 50)
        p99[load, arm][r.seed] = delay_percentile(r, 99)
        if load == "heavy" and r.seed == min(x.seed for x in runs):
            heavy_runs[arm] = r
        if load == "heavy":
            minute_rows(minutes, r, load, arm)
    seeds = sorted(fct["light", "ka"])

    def ratio(table, load, a, b):
        return mean_ci(table[load, a][s] / table[load, b][s] for s in seeds)

    quantities = {
        "light_cubic_over_ka": ratio(fct, "light", "cubic", "ka"),
        "light_fq_codel_over_ka": ratio(fct, "light", "cubic-fq-codel", "ka"),
        "heavy_ka_median_delay_s": mean_ci(med["heavy", "ka"][s] for s in seeds),
        "heavy_ka_p99_delay_s": mean_ci(p99["heavy", "ka"][s] for s in seeds),
        "heavy_cubic_p99_delay_s": mean_ci(p99["heavy", "cubic"][s] for s in seeds),
        "heavy_ka_over_best_cubic_throughput": over_best_cubic(thr, "ka", seeds),
        "heavy_ka_fast_over_best_cubic_throughput": over_best_cubic(thr, "ka-fast", seeds),
    }
    rows = defaultdict(list)
    for load in ("light", "heavy"):
        for arm in SCHEMES:
            rows["load"].append(load)
            rows["scheme"].append(arm)
            mean_ci(fct[load, arm][s] for s in seeds).append_to(rows, "mean_fct_s")
            mean_ci(thr[load, arm][s] / 1e6 for s in seeds).append_to(rows, "mean_flow_mbps")
            mean_ci(med[load, arm][s] for s in seeds).append_to(rows, "median_queue_delay_s")
            mean_ci(p99[load, arm][s] for s in seeds).append_to(rows, "p99_queue_delay_s")

    def draw(axes):
        means = [np.mean([fct["light", a][s] for s in seeds]) for a in SCHEMES]
        axes[0].bar([SHORT[a] for a in SCHEMES], means)
        axes[0].set_ylabel("mean FCT, light load (s)")
        axes[0].tick_params(axis="x", labelsize=7)
        for a in SCHEMES:
            upper, count = delay_histogram(heavy_runs[a])
            axes[1].step(upper * 1e3, np.cumsum(count) / count.sum(), where="post", label=LABEL[a])
        axes[1].set_xscale("symlog", linthresh=1)
        axes[1].set_xlabel("queueing delay, heavy load (ms)")
        axes[1].set_ylabel("CDF")
        axes[1].legend(fontsize="small")
        for a in SCHEMES:
            sizes, fcts = completed_fcts(heavy_runs[a])
            x = np.sort(sizes * SEGMENT_BYTES * 8 / fcts / 1e6)
            axes[2].step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=LABEL[a])
        axes[2].set_xlabel("flow throughput, heavy load (Mbps)")
        axes[2].set_ylabel("CDF")

    return Analysis(
        quantities=quantities,
        tables={"endpoint": pa.table(dict(rows)), "minutes": pa.table(dict(minutes))},
        figures=[
            figure(draw, "endpoint", f"{exp['id']}: Kick-Ass against CUBIC", ncols=3, sharey=False)
        ],
    )
