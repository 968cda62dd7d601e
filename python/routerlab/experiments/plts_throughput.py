"""Analysis of plts-throughput: per forwarding scheme and queue policy, the flows' mean
throughput as a share of the ideal (line rate less headers), Jain's index over the flows,
spurious retransmissions and timeouts; the paper's comparisons between schemes (Fig. 3a) and
the flows' throughput by rank for PLTS-RR and ECMP (Fig. 4b)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure, yerr
from .stats import add_row, mean_ci

#: The PLTS policies of the paper (the per-flow RR reading runs beside them, beyond it).
PAPER_PLTS = ("spray-rnd", "spray-cnt", "spray-rr")


def ideal_bps(exp: dict) -> float:
    """Line rate less IPv4 and TCP headers: what one flow alone could deliver."""
    c = exp["constants"]
    return float(c["line_rate_bps"]) * c["mss"] / (c["mss"] + 40)


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    ideal = ideal_bps(exp)
    # (scheme, queue) -> seed -> metric; and the flows' sorted throughput for Fig. 4b.
    per: dict[tuple[str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    ranked: dict[tuple[str, str], list[np.ndarray]] = defaultdict(list)
    for r in runs:
        f = r.tables["flows"].to_pydict()
        share = np.asarray(f["goodput_bps"]) / ideal
        n = len(share)
        key = (r.params["scheme"], r.params["queue"])
        per[key][r.seed] = {
            "throughput": float(share.mean()),
            "jain": r.summary["jain_index"],
            "spurious_per_flow": sum(f["spurious_retransmissions"]) / n,
            "timeouts_per_flow": sum(f["timeouts"]) / n,
        }
        ranked[key].append(np.sort(share))
    schemes = [s for s in exp["grid"]["scheme"] if any(k[0] == s for k in per)]
    queues = [q for q in exp["grid"]["queue"] if any(k[1] == q for k in per)]
    seeds = sorted(per[schemes[0], queues[0]])

    def at(scheme, metric, queue="droptail"):
        return [per[scheme, queue][s][metric] for s in seeds]

    rows = defaultdict(list)
    est = {}
    for scheme in schemes:
        for queue in queues:
            est[scheme, queue] = e = mean_ci(at(scheme, "throughput", queue))
            extra = {
                m: mean_ci(at(scheme, m, queue)).mean
                for m in ("jain", "spurious_per_flow", "timeouts_per_flow")
            }
            add_row(rows, {"scheme": scheme, "queue": queue}, e, "throughput_of_ideal", 1.0, extra)

    def ratio(a, b, metric="throughput", qa="droptail", qb="droptail"):
        return [x / y for x, y in zip(at(a, metric, qa), at(b, metric, qb), strict=True)]

    rr_readings = [s for s in schemes if s.startswith("spray-rr")]
    quantities = {f"throughput_{s}": est[s, "droptail"] for s in rr_readings} | {
        "min_plts_over_ecmp": mean_ci(
            min(vals) for vals in zip(*(ratio(s, "ecmp") for s in PAPER_PLTS), strict=True)
        ),
        "cnt_over_rnd": mean_ci(ratio("spray-cnt", "spray-rnd")),
        "throughput_spray-cnt": est["spray-cnt", "droptail"],
        "throughput_mptcp": est["mptcp", "droptail"],
        "rr_over_mptcp": mean_ci(ratio("spray-rr", "mptcp")),
        "rr_red_over_droptail": mean_ci(ratio("spray-rr", "spray-rr", qa="red-ecn")),
        "rr_red_slow_over_droptail": mean_ci(ratio("spray-rr", "spray-rr", qa="red-ecn-slow")),
        "jain_rr_minus_ecmp": mean_ci(
            a - b for a, b in zip(at("spray-rr", "jain"), at("ecmp", "jain"), strict=True)
        ),
    }
    if "spray-cnt-rotate" in schemes:
        quantities["cnt_rotate_minus_rr"] = mean_ci(
            a - b
            for a, b in zip(
                at("spray-cnt-rotate", "throughput"), at("spray-rr", "throughput"), strict=True
            )
        )

    def draw_bars(ax):
        width = 0.8 / len(queues)
        for i, queue in enumerate(queues):
            x = [j + (i - (len(queues) - 1) / 2) * width for j in range(len(schemes))]
            e = [est[s, queue].scaled(100) for s in schemes]
            ax.bar(x, [v.mean for v in e], width, yerr=yerr(e), capsize=3, label=queue)
        ax.set_xticks(range(len(schemes)), schemes, fontsize=8)
        ax.set_ylabel("throughput (% of ideal)")
        ax.set_ylim(0, 105)
        ax.legend()

    def draw_ranked(ax):
        for scheme in ("ecmp", "spray-cnt", "spray-rr", "spray-rr-data", "mptcp"):
            if (scheme, "droptail") in ranked:
                mean_by_rank = np.mean(ranked[scheme, "droptail"], axis=0) * 100
                ax.plot(range(1, len(mean_by_rank) + 1), mean_by_rank, marker="o", label=scheme)
        ax.set_xlabel("flow, by rank (mean over seeds of the k-th smallest)")
        ax.set_ylabel("throughput (% of ideal)")
        ax.set_ylim(0, 105)
        ax.legend()

    notes = "PLTS-RR's readings (drop-tail): " + ", ".join(
        f"{s} {est[s, 'droptail'].mean:.1%}" for s in rr_readings
    )
    if ("mptcp-distinct", "droptail") in est:
        notes += (
            f". MPTCP with oracle-distinct subflow paths: "
            f"{est['mptcp-distinct', 'droptail'].mean:.1%} "
            f"(hashed: {est['mptcp', 'droptail'].mean:.1%})"
        )
    notes += "."
    title = f"{exp['id']}: k=6 fat-tree, 27 flows, 100 Mbps"
    return Analysis(
        quantities=quantities,
        tables={"throughput": pa.table(dict(rows))},
        figures=[
            figure(draw_bars, "throughput", title),
            figure(draw_ranked, "fairness", f"{exp['id']}: per-flow throughput (drop-tail)"),
        ],
        notes=notes,
    )
