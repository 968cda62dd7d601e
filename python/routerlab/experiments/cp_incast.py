"""Analysis of cp-incast: incast goodput vs N per setup and scheme (TCP, DCTCP, CP, CP+DCTCP
and our arms), the collapse and gain ratios at the largest N, timeouts per round, the mean
loss-detection time, and what CP's port did: cuts, header drops, time over the 13.1×
condition, time the data waited behind headers.

The judged setup is `three-hosts` (the input stays under the slides' condition); quantities
of the `star` stress case carry a `_star` suffix."""

from __future__ import annotations

import math
from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .incast import incast_goodput
from .plots import errorbar, figure
from .stages import stage_counter
from .stats import add_row, mean_ci

JUDGED = "three-hosts"
PORT = "switch->r0"

#: Links-table columns of the bottleneck port -> their name in the goodput table.
PORT_COLUMNS = {
    "cuts": "cuts_per_run",
    "header_drops": "header_drops_per_run",
    "cp_overload_s": "overload_s_per_run",
}


def detection_s(run: Run) -> float:
    """Mean loss-detection time over the run's retransmitted segments (NaN if none): each
    flow's mean weighted by the segments it is over."""
    f = run.tables["flows"].to_pydict()
    pairs = [
        (d, n)
        for d, n in zip(f["loss_detection_s"], f["retransmitted_segments"], strict=True)
        if d is not None
    ]
    n = sum(r for _, r in pairs)
    return sum(d * r for d, r in pairs) / n if n else math.nan


def run_metrics(r: Run) -> dict[str, float]:
    links = r.tables["links"].to_pydict()
    port = links["link"].index(PORT)
    m = {name: float(links[c][port]) for c, name in PORT_COLUMNS.items()}
    starved = stage_counter(r, PORT, "data_starved_us", stage="cp") if "stages" in r.tables else 0
    m |= {
        "goodput": incast_goodput(r),
        "timeouts_per_round": r.summary["timeouts"] / r.params["rounds"],
        "syn_timeouts": float(r.summary["syn_timeouts"]),
        "detection_s": detection_s(r),
        "data_starved_ms_per_run": starved / 1e3,
    }
    return m


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    line = float(exp["constants"]["line_rate_bps"])
    # (setup, scheme) -> seed -> n -> metrics
    per: dict[tuple[str, str], dict[int, dict[int, dict[str, float]]]] = defaultdict(
        lambda: defaultdict(dict)
    )
    for r in runs:
        per[r.params["setup"], r.params["scheme"]][r.seed][r.params["n"]] = run_metrics(r)
    setups = [s for s in exp["grid"]["setup"] if any(k[0] == s for k in per)]
    schemes = [s for s in exp["grid"]["scheme"] if any(k[1] == s for k in per)]
    seeds = sorted(per[setups[0], schemes[0]])
    ns = sorted(per[setups[0], schemes[0]][seeds[0]])
    nmin, nmax = ns[0], ns[-1]

    def at(scheme, n, metric, setup=JUDGED):
        return [per[setup, scheme][s][n][metric] for s in seeds]

    def ratio(a, b, n, metric="goodput", setup=JUDGED):
        return mean_ci(
            x / y
            for x, y in zip(at(a, n, metric, setup), at(b, n, metric, setup), strict=True)
            if y > 0 and not math.isnan(x) and not math.isnan(y)
        )

    rows = defaultdict(list)
    per_n = {}
    for setup in setups:
        for scheme in schemes:
            for n in ns:
                per_n[setup, scheme, n] = est = mean_ci(at(scheme, n, "goodput", setup))
                extra = {
                    m: mean_ci(at(scheme, n, m, setup)).mean
                    for m in (
                        "timeouts_per_round",
                        "syn_timeouts",
                        "detection_s",
                        "data_starved_ms_per_run",
                        *PORT_COLUMNS.values(),
                    )
                }
                extra["detection_ms"] = extra.pop("detection_s") * 1e3
                key = {"setup": setup, "scheme": scheme, "n": n}
                add_row(rows, key, est, "goodput_mbps", 1e-6, extra)

    quantities = {
        "collapse_ratio_tcp-200ms": mean_ci(
            a / b
            for a, b in zip(
                at("tcp-200ms", nmax, "goodput"), at("tcp-200ms", nmin, "goodput"), strict=True
            )
        ),
        "goodput_frac_nmax_cp": mean_ci(g / line for g in at("cp", nmax, "goodput")),
        "cp_gain_nmax": ratio("cp", "tcp-200ms", nmax),
        "cp_dctcp_over_cp_nmax": ratio("cp-dctcp", "cp", nmax),
        "detection_ratio_nmax_cp_over_tcp": ratio("cp", "tcp-200ms", nmax, "detection_s"),
    }
    for scheme in ("cp", "tcp-200ms"):
        quantities[f"timeouts_per_round_nmax_{scheme}"] = mean_ci(
            at(scheme, nmax, "timeouts_per_round")
        )
    if "star" in setups:
        quantities["goodput_frac_nmax_cp_star"] = mean_ci(
            g / line for g in at("cp", nmax, "goodput", "star")
        )

    def draw(setup):
        def d(ax):
            for scheme in schemes:
                errorbar(ax, ns, [per_n[setup, scheme, n].scaled(1e-6) for n in ns], scheme)
            ax.set_xlabel("connections N")
            ax.set_ylabel("goodput (Mbps)")
            ax.set_ylim(0, line * 1.05e-6)
            ax.legend(fontsize=7)

        return d

    def per_n_mean(setup, metric, scale, fmt):
        return ", ".join(
            f"N={n}: {mean_ci(at('cp', n, metric, setup)).mean * scale:{fmt}}" for n in ns
        )

    notes = " ".join(
        f"{setup}: CP's header drops per run by N: "
        + per_n_mean(setup, "header_drops_per_run", 1, ".0f")
        + "; time the data waited behind headers (ms per run): "
        + per_n_mean(setup, "data_starved_ms_per_run", 1, ".1f")
        + "; time the input exceeded 13.1 × the output (ms per run, 100 µs windows): "
        + per_n_mean(setup, "overload_s_per_run", 1e3, ".1f")
        + "."
        for setup in setups
    )
    return Analysis(
        quantities=quantities,
        tables={"goodput": pa.table(dict(rows))},
        figures=[
            figure(draw(setup), f"goodput_vs_n_{setup}", f"{exp['id']}: incast goodput, {setup}")
            for setup in setups
        ],
        notes=notes,
    )
