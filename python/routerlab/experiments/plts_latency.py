"""Analysis of plts-latency: the first `samples` ToR-to-ToR latencies of the measured flow
after `after_s`, per scheme; their 50th, 90th and 99th percentiles over the samples of all
seeds pooled, the ratios the paper gives (cluster-bootstrap intervals: runs are resampled
whole), and the latencies by rank (Fig. 4a).

Pooling, not a mean of per-seed ratios: with ECMP one seed's flow may hash onto an idle path
and another's onto the busiest one, so per-seed percentiles swing by an order of magnitude and
their ratios mostly measure the hash. The paper's curve is one ranked sample; the pooled
percentile is its analogue over seeds."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import pooled_percentile_ratio_ci


def sampled(latency: pa.Table, after_s: float, n: int) -> np.ndarray:
    """The first n latencies (seconds) sampled at or after `after_s`."""
    t = np.asarray(latency.column("t_s"))
    lat = np.asarray(latency.column("latency_s"))
    order = np.argsort(t, kind="stable")
    return lat[order][t[order] >= after_s][:n]


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    samples: dict[str, list[np.ndarray]] = defaultdict(list)
    for r in sorted(runs, key=lambda r: r.seed):
        samples[r.params["scheme"]].append(sampled(r.tables["latency"], c["after_s"], c["samples"]))
    schemes = [s for s in exp["grid"]["scheme"] if s in samples]

    rows = defaultdict(list)
    for scheme in schemes:
        pooled = np.concatenate(samples[scheme])
        rows["scheme"].append(scheme)
        for q in (50, 90, 99):
            rows[f"p{q}_ms"].append(float(np.percentile(pooled, q)) * 1e3)
        rows["samples_min"].append(min(len(x) for x in samples[scheme]))
        rows["seeds"].append(len(samples[scheme]))

    def ratio(a: str, b: str, q: float):
        return pooled_percentile_ratio_ci(samples[a], samples[b], q)

    quantities = {
        "p90_ratio_rr_over_ecmp_red": ratio("rr-droptail", "ecmp-red", 90),
        "p99_ratio_rr_over_ecmp_red": ratio("rr-droptail", "ecmp-red", 99),
        "p90_ratio_ecmp_droptail_over_red": ratio("ecmp-droptail", "ecmp-red", 90),
    }
    if "ecmp-red-slow" in samples:
        quantities |= {
            "p90_ratio_rr_over_ecmp_red_slow": ratio("rr-droptail", "ecmp-red-slow", 90),
            "p99_ratio_rr_over_ecmp_red_slow": ratio("rr-droptail", "ecmp-red-slow", 99),
            "p90_ratio_ecmp_droptail_over_red_slow": ratio("ecmp-droptail", "ecmp-red-slow", 90),
        }

    def draw(ax):
        for scheme in schemes:
            pooled = np.sort(np.concatenate(samples[scheme])) * 1e3
            ax.plot(np.linspace(0, 100, len(pooled)), pooled, label=scheme)
        ax.set_yscale("log")
        ax.set_xlabel("sampled packets, ranked (percentile, all seeds pooled)")
        ax.set_ylabel("ToR-to-ToR latency (ms)")
        ax.legend()

    return Analysis(
        quantities=quantities,
        tables={"latency": pa.table(dict(rows))},
        figures=[figure(draw, "latency", f"{exp['id']}: h0 -> h53, e0_0 to e5_2")],
    )
