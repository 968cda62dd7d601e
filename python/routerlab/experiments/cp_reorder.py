"""Analysis of cp-reorder: per scheme (TCP or CP, ECMP or random spraying), mean per-flow
goodput, spurious retransmissions (segments the receiver got twice) and their share of all
retransmissions, timeouts; goodput ratios between schemes."""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure, yerr
from .stats import add_row, mean_ci


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    line = float(exp["constants"]["line_rate_bps"])
    # scheme -> seed -> metric
    per: dict[str, dict[int, dict[str, float]]] = defaultdict(dict)
    for r in runs:
        f = r.tables["flows"].to_pydict()
        n = len(f["flow_id"])
        retx, spurious = sum(f["retransmissions"]), sum(f["spurious_retransmissions"])
        per[r.params["scheme"]][r.seed] = {
            "goodput_frac": sum(f["goodput_bps"]) / n / line,
            "spurious_per_flow": spurious / n,
            "spurious_share": spurious / retx if retx else 0.0,
            "retransmissions_per_flow": retx / n,
            "fast_recoveries_per_flow": sum(f["fast_recoveries"]) / n,
            "timeouts_per_flow": sum(f["timeouts"]) / n,
        }
    schemes = [s for s in exp["grid"]["scheme"] if s in per]
    seeds = sorted(per[schemes[0]])

    def at(scheme, metric):
        return [per[scheme][s][metric] for s in seeds]

    rows = defaultdict(list)
    goodput = {}
    for scheme in schemes:
        goodput[scheme] = est = mean_ci(at(scheme, "goodput_frac"))
        extra = {
            m: mean_ci(at(scheme, m)).mean
            for m in (
                "retransmissions_per_flow",
                "spurious_per_flow",
                "spurious_share",
                "fast_recoveries_per_flow",
                "timeouts_per_flow",
            )
        }
        add_row(rows, {"scheme": scheme}, est, "goodput_frac_of_line", 1.0, extra)

    def ratio(a, b):
        return mean_ci(
            x / y for x, y in zip(at(a, "goodput_frac"), at(b, "goodput_frac"), strict=True)
        )

    quantities = {
        "spurious_share_tcp-spray": mean_ci(at("tcp-spray", "spurious_share")),
        "spurious_per_flow_cp-spray": mean_ci(at("cp-spray", "spurious_per_flow")),
        "goodput_ratio_cp-spray_over_tcp-spray": ratio("cp-spray", "tcp-spray"),
        "goodput_ratio_cp-spray_over_tcp-ecmp": ratio("cp-spray", "tcp-ecmp"),
    }

    def draw_goodput(ax):
        x = range(len(schemes))
        est = [goodput[s] for s in schemes]
        ax.bar(x, [e.mean for e in est], yerr=yerr(est), capsize=3)
        ax.set_xticks(list(x), schemes, rotation=20, fontsize=8)
        ax.set_ylabel("mean per-flow goodput / line rate")
        ax.set_ylim(0, 1.05)

    def draw_spurious(ax):
        x = range(len(schemes))
        total = [mean_ci(at(s, "retransmissions_per_flow")).mean for s in schemes]
        spur = [mean_ci(at(s, "spurious_per_flow")).mean for s in schemes]
        ax.bar(x, total, label="retransmissions", color="lightgrey")
        ax.bar(x, spur, label="of which spurious", color="tab:red")
        ax.set_xticks(list(x), schemes, rotation=20, fontsize=8)
        ax.set_ylabel("per flow, whole run")
        ax.legend()

    notes = (
        "Without CP, the same sender (no ordering-based loss inference) on spraying: goodput "
        f"{goodput['tcp-spray-dt-high'].mean:.2f} of line rate, "
        f"{mean_ci(at('tcp-spray-dt-high', 'timeouts_per_flow')).mean:.2f} timeouts and "
        f"{mean_ci(at('tcp-spray-dt-high', 'spurious_per_flow')).mean:.1f} spurious "
        "retransmissions per flow."
    )
    return Analysis(
        quantities=quantities,
        tables={"schemes": pa.table(dict(rows))},
        figures=[
            figure(draw_goodput, "goodput", f"{exp['id']}: k=4 fat-tree, permutation, 1 Gbps"),
            figure(draw_spurious, "retransmissions", f"{exp['id']}: retransmissions per flow"),
        ],
        notes=notes,
    )
