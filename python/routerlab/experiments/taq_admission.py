"""Analysis of taq-admission: web object download times (from the client's first SYN, so
waiting for admission counts) for small and large objects, per queue; the ratios drop-tail over
TAQ with admission control of the median and the worst case (TAQ §5.5, Fig. 12); and, as the
times can split into two modes (those that waited out a 30 s admission wait and those that did
not), the share of downloads that took at least `slow_mode_s` and the median of the others."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import mean_ci

#: The arm the paper's claims are judged on: TAQ with admission control, default T_wait.
JUDGED = "taq-ac"


def download_times(run: Run, c: dict) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, download times) of the objects started in [warm-up, end − tail]; unfinished
    ones with their time so far."""
    t = run.tables["transfers"]
    end_of_run = float(run.summary["sim_seconds"])
    start = np.asarray(t.column("start_s"), dtype=float)
    end = np.asarray(t.column("end_s").to_pylist(), dtype=float)  # None -> nan
    size = np.asarray(t.column("size_bytes"), dtype=float)
    keep = (start >= c["warmup_s"]) & (start <= end_of_run - c["tail_s"])
    took = np.where(np.isnan(end), end_of_run - start, end - start)
    return size[keep], took[keep]


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    # stat[(queue, class, "median"|"worst")][seed]; pooled times for the figure
    stat: dict[tuple, dict[int, float]] = defaultdict(dict)
    pooled: dict[tuple, list[np.ndarray]] = defaultdict(list)
    for r in runs:
        q = r.params["queue"]
        size, took = download_times(r, c)
        for cls, mask in (("small", size < c["small_bytes"]), ("large", size >= c["small_bytes"])):
            x = took[mask]
            stat[q, cls, "median"][r.seed] = float(np.median(x))
            stat[q, cls, "worst"][r.seed] = float(x.max())
            slow = x >= c["slow_mode_s"]
            stat[q, cls, "slow_share"][r.seed] = float(slow.mean())
            fast = x[~slow]
            stat[q, cls, "fast_median"][r.seed] = float(np.median(fast)) if len(fast) else np.nan
            pooled[q, cls].append(x)
    seeds = sorted(next(iter(stat.values())))

    def ratio(cls, what, arm=JUDGED):
        return mean_ci(stat["droptail", cls, what][s] / stat[arm, cls, what][s] for s in seeds)

    quantities = {
        f"{cls}_{what}_ratio": ratio(cls, what)
        for cls in ("small", "large")
        for what in ("median", "worst")
    }
    if ("taq-ac-30s", "small", "slow_share") in stat:
        quantities["small_slow_share_taq-ac-30s"] = mean_ci(
            stat["taq-ac-30s", "small", "slow_share"][s] for s in seeds
        )
    if ("taq-ac-own-readings", "small", "worst") in stat:
        quantities["small_worst_ratio_own_readings"] = ratio(
            "small", "worst", "taq-ac-own-readings"
        )

    rows = defaultdict(list)
    for q, cls in sorted(pooled):
        rows["queue"].append(q)
        rows["objects"].append(cls)
        for what in ("median", "worst"):
            mean_ci(stat[q, cls, what][s] for s in seeds).append_to(rows, f"{what}_s")
            if q != "droptail":
                ratio(cls, what, q).append_to(rows, f"droptail_over_{what}")
            else:
                for suffix in ("", "_ci95_lo", "_ci95_hi"):
                    rows[f"droptail_over_{what}{suffix}"].append(None)
        for what in ("slow_share", "fast_median"):
            mean_ci(stat[q, cls, what][s] for s in seeds).append_to(rows, what)
        rows["count"].append(int(sum(len(x) for x in pooled[q, cls])))
        rows["seeds"].append(len(seeds))

    def draw(axes):
        for ax, cls in zip(axes, ("small", "large"), strict=True):
            for q in ("droptail", "taq", "taq-ac", "taq-ac-hold", "taq-ac-30s"):
                if (q, cls) not in pooled:
                    continue
                x = np.sort(np.concatenate(pooled[q, cls]))
                ax.plot(x, np.arange(1, len(x) + 1) / len(x), label=q)
            ax.set_xscale("log")
            ax.set_xlabel("object download time (s)")
            ax.set_title(f"{cls} objects", fontsize=9)
        axes[0].set_ylabel("CDF")
        axes[0].legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"downloads": pa.table(dict(rows))},
        figures=[figure(draw, "download_cdf", f"{exp['id']}: 60 web clients on 1 Mbps", ncols=2)],
    )
