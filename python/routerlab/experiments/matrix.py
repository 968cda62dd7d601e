"""Analysis of the mechanism matrix (`routerlab reproduce matrix`, docs/matrix.md): the same
metrics for every (workload, scheme) cell, each a mean over the seeds with its 95 % interval and
its ratio to drop-tail on the same workload, or "n/a" with the reason.

A metric is computed per run, then averaged over the replicates (the same seeds for every
scheme). Percentiles (FCT p99, queueing delay p50/p99) are each run's own, averaged.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run, full_grid, na_reason
from .plots import STYLE, plt, save
from .stats import mean_ci, queue_delay_samples

#: The baseline every cell is compared with.
BASELINE = "droptail"

#: Transfer size classes for flow completion times: (name, smallest size, largest size), bytes.
SIZE_CLASSES = (
    ("short", 0, 100_000),
    ("medium", 100_000, 1_000_000),
    ("long", 1_000_000, math.inf),
)


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    #: Whether a smaller value is the better one (colours the heat map).
    lower_is_better: bool
    description: str


METRICS = (
    Metric("goodput_mbps", "Mbit/s", False, "delivered payload over the active time"),
    Metric("jain_long", "", False, "Jain's index of the flows' goodput over the run"),
    Metric("jain_20s", "", False, "mean Jain index of the 20 s slices"),
    Metric("timeouts_per_flow", "", True, "retransmission timeouts per TCP flow"),
    Metric("qdelay_p50_ms", "ms", True, "median queueing delay at the congested ports"),
    Metric("qdelay_p99_ms", "ms", True, "99th percentile queueing delay there"),
    Metric("drops", "packets", True, "packets lost in the network per run"),
    *(
        Metric(f"fct_{stat}_{cls}_ms", "ms", True, f"{stat} completion time of {cls} transfers")
        for cls, _, _ in SIZE_CLASSES
        for stat in ("mean", "p99")
    ),
)


def run_metrics(run: Run) -> dict[str, float | None]:
    """Every metric of one run; None where the run has nothing to measure it on."""
    s = run.summary
    tcp_flows = sum(1 for p in run.tables["flows"].column("protocol").to_pylist() if p != "udp")
    goodput = s.get("active_goodput_bps")
    m: dict[str, float | None] = {
        "goodput_mbps": None if goodput is None else goodput / 1e6,
        "jain_long": s.get("jain_index"),
        "jain_20s": s.get("jain_short_mean"),
        "timeouts_per_flow": s["timeouts"] / tcp_flows if tcp_flows else None,
        "drops": float(s["drops"]),
    }
    delays = queue_delay_samples(run.tables.get("queue_delay"))
    for q, name in ((50, "qdelay_p50_ms"), (99, "qdelay_p99_ms")):
        m[name] = histogram_percentile(delays, q) * 1e3 if delays else None
    m.update(completion_times(run.tables.get("transfers")))
    return m


def histogram_percentile(buckets: list[tuple[float, float, int]], q: float) -> float:
    """The q-th percentile of a histogram, interpolated linearly within its bucket."""
    total = sum(n for _, _, n in buckets)
    rank = q / 100 * total
    seen = 0
    for lo, hi, n in buckets:
        if n and seen + n >= rank:
            return lo + (hi - lo) * ((rank - seen) / n)
        seen += n
    return buckets[-1][1]


def completion_times(table: pa.Table | None) -> dict[str, float | None]:
    """Mean and p99 completion time (ms) of the finished transfers of each size class."""
    out: dict[str, float | None] = {}
    d = table.to_pydict() if table is not None else {"size_bytes": [], "start_s": [], "end_s": []}
    for cls, lo, hi in SIZE_CLASSES:
        fct = [
            (end - start) * 1e3
            for size, start, end in zip(d["size_bytes"], d["start_s"], d["end_s"], strict=True)
            if end is not None and size is not None and lo <= size < hi
        ]
        out[f"fct_mean_{cls}_ms"] = float(np.mean(fct)) if fct else None
        out[f"fct_p99_{cls}_ms"] = float(np.percentile(fct, 99)) if fct else None
    return out


def cells(exp: dict, runs: list[Run], quick: bool) -> list[dict]:
    """One row per (workload, scheme, metric): the estimate, or the reason it is n/a."""
    by_config: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in runs:
        by_config[(r.params["workload"], r.params["scheme"])].append(run_metrics(r))
    rows = []
    for params in full_grid(exp, quick):
        key = (params["workload"], params["scheme"])
        config_reason = na_reason(exp, params)
        for metric in METRICS:
            values = [m[metric.name] for m in by_config.get(key, [])]
            measured = [v for v in values if v is not None]
            reason = config_reason or (None if measured else no_value_reason(metric))
            est = mean_ci(measured) if reason is None else None
            row = {
                "workload": key[0],
                "scheme": key[1],
                "metric": metric.name,
                "unit": metric.unit,
                "mean": None if est is None else est.mean,
                "ci95_lo": None if est is None else est.ci_lo,
                "ci95_hi": None if est is None else est.ci_hi,
                "seeds": 0 if est is None else est.n,
                "na_reason": reason,
            }
            rows.append(row)
    baseline = {(r["workload"], r["metric"]): r["mean"] for r in rows if r["scheme"] == BASELINE}
    for r in rows:
        r["vs_droptail"] = ratio(r["mean"], baseline.get((r["workload"], r["metric"])))
    return rows


def ratio(value: float | None, base: float | None) -> float | None:
    """value / base; 1 when both are 0, infinite when only the base is."""
    if value is None or base is None:
        return None
    if base == 0:
        return 1.0 if value == 0 else math.inf
    return value / base


def no_value_reason(metric: Metric) -> str:
    """Why a metric has no value in a cell that ran."""
    if metric.name.startswith("fct_"):
        return "no transfer of this size class finished (bulk flows have no completion time)"
    if metric.name == "jain_20s":
        return "no 20 s slice in which flows were active throughout"
    if metric.name.startswith("qdelay"):
        return "no packet queued at the measured ports"
    return "not measured in this workload"


def table(rows: list[dict]) -> pa.Table:
    columns = [
        "workload", "scheme", "metric", "unit", "mean", "ci95_lo", "ci95_hi", "seeds",
        "vs_droptail", "na_reason",
    ]  # fmt: skip
    types = {"seeds": pa.int64(), "unit": pa.string(), "na_reason": pa.string()}
    return pa.table({c: pa.array([r[c] for r in rows], type=types.get(c)) for c in columns})


def markdown(rows: list[dict]) -> str:
    """A table per metric: schemes down, workloads across, each cell the mean and its ratio to
    drop-tail, or n/a (the reasons listed under the table)."""
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    cell = {(r["workload"], r["scheme"], r["metric"]): r for r in rows}
    lines = []
    for metric in METRICS:
        unit = f" ({metric.unit})" if metric.unit else ""
        better = "lower" if metric.lower_is_better else "higher"
        lines += [
            f"#### `{metric.name}`{unit}: {metric.description} ({better} is better)",
            "",
            "| scheme | " + " | ".join(workloads) + " |",
            "|---|" + "---|" * len(workloads),
        ]
        reasons: dict[str, int] = {}
        for s in schemes:
            texts = []
            for w in workloads:
                r = cell[(w, s, metric.name)]
                if r["na_reason"] is not None:
                    n = reasons.setdefault(r["na_reason"], len(reasons) + 1)
                    texts.append(f"n/a [{n}]")
                else:
                    texts.append(value_text(r))
            lines.append(f"| {s} | " + " | ".join(texts) + " |")
        lines.append("")
        lines += [f"[{n}] {reason}  " for reason, n in reasons.items()]
        lines.append("")
    return "\n".join(lines)


def value_text(r: dict) -> str:
    """`mean ± half-interval (× ratio)`."""
    text = f"{r['mean']:.3g}"
    if r["ci95_lo"] is not None:
        text += f" ± {(r['ci95_hi'] - r['ci95_lo']) / 2:.2g}"
    if r["vs_droptail"] is not None and r["scheme"] != BASELINE and math.isfinite(r["vs_droptail"]):
        text += f" (×{r['vs_droptail']:.2f})"
    return text


def heatmap(rows: list[dict], metric: Metric):
    """A figure writer: schemes × workloads, coloured by log2 of the ratio to drop-tail (green
    better, red worse), each cell labelled with the ratio, or n/a."""
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    schemes = list(dict.fromkeys(r["scheme"] for r in rows))
    cell = {(r["workload"], r["scheme"]): r for r in rows if r["metric"] == metric.name}
    name = f"heatmap_{metric.name}"

    def write(directory) -> list[str]:
        grid = np.full((len(schemes), len(workloads)), np.nan)
        with plt.rc_context({**STYLE, "axes.grid": False}):
            fig, ax = plt.subplots(figsize=(1.3 * len(workloads) + 2.5, 0.38 * len(schemes) + 1.6))
            for i, s in enumerate(schemes):
                for j, w in enumerate(workloads):
                    r = cell[(w, s)]
                    x = r["vs_droptail"]
                    if x is not None:
                        sign = -1 if metric.lower_is_better else 1
                        grid[i, j] = sign * float(np.clip(np.log2(max(x, 1e-9)), -2, 2))
                    text = "n/a" if r["na_reason"] else ("–" if x is None else f"{x:.2f}")
                    ax.text(j, i, text, ha="center", va="center", fontsize=7)
            ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn", vmin=-2, vmax=2, aspect="auto")
            ax.set_facecolor("0.85")
            ax.set_xticks(range(len(workloads)), workloads, rotation=20, fontsize=8)
            ax.set_yticks(range(len(schemes)), schemes, fontsize=8)
            unit = f", {metric.unit}" if metric.unit else ""
            ax.set_title(
                f"{metric.name}{unit}: ratio to drop-tail (green: better, grey: n/a)", fontsize=9
            )
            fig.tight_layout()
            return save(fig, directory, name)

    return write


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:
    rows = cells(exp, runs, quick)
    return Analysis(
        quantities={},
        tables={"matrix": table(rows)},
        figures=[heatmap(rows, m) for m in METRICS],
        notes=markdown(rows),
    )
