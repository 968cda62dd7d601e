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


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    line = float(exp["constants"]["line_rate_bps"])
    goodput: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    timeouts: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    cuts: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    header_drops: dict[str, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in runs:
        scheme, n, rounds = r.params["scheme"], r.params["n"], r.params["rounds"]
        goodput[scheme][r.seed][n] = incast_goodput(r)
        timeouts[scheme][r.seed][n] = r.summary["timeouts"] / rounds
        links = r.tables["links"].to_pydict()
        port = links["link"].index("switch->r0")
        cuts[scheme][r.seed][n] = links["cuts"][port]
        header_drops[scheme][r.seed][n] = links["header_drops"][port]
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
            counts = {
                "timeouts_per_round": mean_ci(at(timeouts, scheme, n)).mean,
                "cuts_per_run": mean_ci(at(cuts, scheme, n)).mean,
                "header_drops_per_run": mean_ci(at(header_drops, scheme, n)).mean,
            }
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

    notes = (
        "CP's header buffer overflowed (header drops per run, by N): "
        + ", ".join(f"N={n}: {mean_ci(at(header_drops, 'cp', n)).mean:.0f}" for n in ns)
        + ". A header drop is a silent loss again (the 13.1× condition exceeded at that moment)."
    )
    return Analysis(
        quantities=quantities,
        tables={"goodput": pa.table(dict(rows))},
        figures=[
            figure(draw, "goodput_vs_n", f"{exp['id']}: incast goodput, 1 Gbps, 64-packet buffer")
        ],
        notes=notes,
    )
