"""Analysis of cp-incast: incast goodput vs N per scheme (TCP, DCTCP, CP, CP+DCTCP), the
collapse and gain ratios at the largest N, and timeouts per round where the slides' 13.1×
condition holds."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from . import Analysis, Run
from .incast import incast_goodput
from .plots import errorbar, figure
from .stats import add_row, mean_ci

#: The largest N at which N synchronized senders stay under 13.1 × the output rate.
CONDITION_N = 12

#: Links-table columns of the bottleneck port -> their name in the goodput table.
PORT_COLUMNS = {
    "cuts": "cuts_per_run",
    "header_drops": "header_drops_per_run",
    "cp_overload_s": "overload_s_per_run",
}


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    line = float(exp["constants"]["line_rate_bps"])
    goodput: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    timeouts: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    # The bottleneck port's CP counters: cuts, header drops, time over the 13.1× condition.
    port_counts = {c: defaultdict(lambda: defaultdict(dict)) for c in PORT_COLUMNS}
    for r in runs:
        scheme, n, rounds = r.params["scheme"], r.params["n"], r.params["rounds"]
        goodput[scheme][r.seed][n] = incast_goodput(r)
        timeouts[scheme][r.seed][n] = r.summary["timeouts"] / rounds
        links = r.tables["links"].to_pydict()
        port = links["link"].index("switch->r0")
        for c, table in port_counts.items():
            table[scheme][r.seed][n] = links[c][port]
    schemes = [s for s in exp["grid"]["scheme"] if s in goodput]
    seeds = sorted(goodput[schemes[0]])
    ns = sorted(goodput[schemes[0]][seeds[0]])
    nmin, nmax = ns[0], ns[-1]

    def at(table, scheme, n):
        return [table[scheme][s][n] for s in seeds]

    rows = defaultdict(list)
    per_n = {}
    for scheme in schemes:
        for n in ns:
            per_n[scheme, n] = est = mean_ci(at(goodput, scheme, n))
            counts = {"timeouts_per_round": mean_ci(at(timeouts, scheme, n)).mean}
            for c, name in PORT_COLUMNS.items():
                counts[name] = mean_ci(at(port_counts[c], scheme, n)).mean
            add_row(rows, {"scheme": scheme, "n": n}, est, "goodput_mbps", 1e-6, counts)

    quantities = {
        "collapse_ratio_tcp-200ms": mean_ci(
            a / b
            for a, b in zip(
                at(goodput, "tcp-200ms", nmax), at(goodput, "tcp-200ms", nmin), strict=True
            )
        ),
        "goodput_frac_nmax_cp": mean_ci(g / line for g in at(goodput, "cp", nmax)),
        "cp_gain_nmax": mean_ci(
            a / b
            for a, b in zip(at(goodput, "cp", nmax), at(goodput, "tcp-200ms", nmax), strict=True)
        ),
        "cp_dctcp_over_cp_nmax": mean_ci(
            a / b
            for a, b in zip(at(goodput, "cp-dctcp", nmax), at(goodput, "cp", nmax), strict=True)
        ),
    }
    if CONDITION_N in ns:
        for scheme in ("cp", "tcp-200ms"):
            quantities[f"timeouts_per_round_n{CONDITION_N}_{scheme}"] = mean_ci(
                at(timeouts, scheme, CONDITION_N)
            )

    def draw(ax):
        for scheme in schemes:
            errorbar(ax, ns, [per_n[scheme, n].scaled(1e-6) for n in ns], scheme)
        ax.axvline(13.1, color="grey", linestyle=":", label="input = 13.1 × output")
        ax.set_xlabel("senders N")
        ax.set_ylabel("goodput (Mbps)")
        ax.set_ylim(0, line * 1.05e-6)
        ax.legend()

    def per_n_mean(column, scale, fmt):
        return ", ".join(
            f"N={n}: {mean_ci(at(port_counts[column], 'cp', n)).mean * scale:{fmt}}" for n in ns
        )

    notes = (
        "CP's header buffer overflowed (header drops per run, by N): "
        + per_n_mean("header_drops", 1, ".0f")
        + ". A header drop is a silent loss again (the 13.1× condition exceeded at that moment)."
        + " Time the input exceeded 13.1 × the output (ms per run, 100 µs windows): "
        + per_n_mean("cp_overload_s", 1e3, ".1f")
        + "."
    )
    return Analysis(
        quantities=quantities,
        tables={"goodput": pa.table(dict(rows))},
        figures=[
            figure(draw, "goodput_vs_n", f"{exp['id']}: incast goodput, 1 Gbps, 64-packet buffer")
        ],
        notes=notes,
    )
