"""Analysis of incast experiments: goodput per run from the rounds' transfers, then goodput vs
N per minimum RTO, the collapse ratio, its onset, and the gain of a short RTO."""

from __future__ import annotations

import math
from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .stats import add_row, mean_ci


def incast_goodput(run: Run) -> float:
    """Every delivered block's bytes × 8 over the time from the first block's start to the last
    round's end — or to the end of the run if some block never arrived."""
    t = run.tables["transfers"].to_pydict()
    if not t["start_s"]:
        return math.nan
    start = min(t["start_s"])
    done = [(s, e) for s, e in zip(t["size_bytes"], t["end_s"], strict=True) if e is not None]
    end = max(e for _, e in done) if len(done) == len(t["end_s"]) else run.summary["sim_seconds"]
    return sum(s for s, _ in done) * 8 / (end - start)


def onset(goodput_by_n: dict[int, float], factor: float = 0.5) -> float:
    """The smallest N whose goodput is below `factor` × the goodput at the smallest N (NaN if
    none is)."""
    ns = sorted(goodput_by_n)
    ref = goodput_by_n[ns[0]]
    return next((float(n) for n in ns if goodput_by_n[n] < factor * ref), math.nan)


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    const = exp["constants"]
    line = float(const["line_rate_bps"])
    # goodput[min_rto][seed][n]
    goodput: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        goodput[r.params["min_rto"]][r.seed][r.params["n"]] = incast_goodput(r)
    rtos = sorted(goodput, key=lambda s: -_seconds(s))  # 200ms first
    seeds = sorted(next(iter(goodput.values())))
    ns = sorted(next(iter(next(iter(goodput.values())).values())))
    nmin, nmax = ns[0], ns[-1]
    slow, fast = rtos[0], rtos[-1]

    rows = defaultdict(list)
    per_n = {}
    for rto in rtos:
        for n in ns:
            est = mean_ci(goodput[rto][s][n] for s in seeds)
            per_n[rto, n] = est
            add_row(rows, {"min_rto": rto, "n": n}, est, "goodput_mbps", 1e-6)
    runs_rows = defaultdict(list)
    for rto in rtos:
        for s in seeds:
            for n in ns:
                runs_rows["min_rto"].append(rto)
                runs_rows["seed"].append(s)
                runs_rows["n"].append(n)
                runs_rows["goodput_mbps"].append(goodput[rto][s][n] / 1e6)

    quantities = {
        f"goodput_frac_nmin_{slow}": mean_ci(goodput[slow][s][nmin] / line for s in seeds),
        f"collapse_ratio_{slow}": mean_ci(
            goodput[slow][s][nmax] / goodput[slow][s][nmin] for s in seeds
        ),
        f"onset_n_{slow}": mean_ci(onset(goodput[slow][s]) for s in seeds),
        "rto_gain_nmax": mean_ci(goodput[fast][s][nmax] / goodput[slow][s][nmax] for s in seeds),
    }
    fits_n = int(const["buffer_pkts"]) * 1500 / int(const["block_bytes"])

    def draw(ax):
        for rto in rtos:
            errorbar(ax, ns, [per_n[rto, n].scaled(1e-6) for n in ns], f"NewReno, min RTO {rto}")
        ax.axvline(fits_n, color="grey", linestyle=":", label="N·block = buffer")
        ax.set_xscale("log")
        ax.set_xticks(ns, [str(n) for n in ns])
        ax.minorticks_off()
        ax.set_xlabel("senders N")
        ax.set_ylabel("goodput (Mbps)")
        ax.set_ylim(0, line * 1.05e-6)
        ax.legend()

    return Analysis(
        quantities=quantities,
        tables={"goodput": pa.table(dict(rows)), "runs": pa.table(dict(runs_rows))},
        figures=[
            figure(
                draw, "goodput_vs_n", f"{exp['id']}: incast goodput, 1 Gbps, {nmin}–{nmax} senders"
            )
        ],
    )


def _seconds(duration: str) -> float:
    units = {"ms": 1e-3, "us": 1e-6, "s": 1.0}
    for u in ("ms", "us", "s"):
        if duration.endswith(u):
            return float(duration[: -len(u)]) * units[u]
    raise ValueError(duration)
