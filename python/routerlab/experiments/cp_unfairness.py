"""Analysis of cp-unfairness: the outcast case (mean goodput of a few-group flow over a
many-group flow's, timeouts per group) and the high-loss case (aggregate goodput, timeouts per
flow, Jain's index), TCP against CP."""

from __future__ import annotations

import math
from collections import defaultdict
from statistics import fmean

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stages import stage_counters
from .stats import add_row, mean_ci


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    line = float(exp["constants"]["line_rate_bps"])
    starved = float(exp["constants"]["starved_frac"])
    # (case, scheme) -> seed -> metrics; outcast cases are named outcast-<near link delay>.
    per: dict[tuple[str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    for r in runs:
        f = r.tables["flows"].to_pydict()
        rows = list(zip(f["group"], f["goodput_bps"], f["timeouts"], strict=True))
        fair = line / len(rows)
        m = {
            "goodput_frac": sum(g for _, g, _ in rows) / line,
            "timeouts_per_flow": fmean(t for _, _, t in rows),
            "starved_share": fmean(g < starved * fair for _, g, _ in rows),
            "jain": r.summary["jain_index"],
            "data_starved_ms": stage_counters(r, "cp").get("data_starved_us", 0) / 1e3,
        }
        if r.params["case"].startswith("outcast"):
            for grp in ("few", "many"):
                m[f"goodput_{grp}"] = fmean(g for n, g, _ in rows if n == grp)
                m[f"timeouts_{grp}"] = fmean(t for n, _, t in rows if n == grp)
            m["few_over_many"] = (
                m["goodput_few"] / m["goodput_many"] if m["goodput_many"] else math.inf
            )
        per[r.params["case"], r.params["scheme"]][r.seed] = m
    # Outcast cases by the delay in their name (outcast-<µs>us), then high-loss.
    phases = sorted({k[0] for k in per if k[0].startswith("outcast")}, key=lambda c: int(c[8:-2]))
    cases = [*phases, "high-loss"]
    schemes = [s for s in exp["grid"]["scheme"] if (phases[0], s) in per]
    seeds = sorted(per[phases[0], schemes[0]])

    def at(case, scheme, metric):
        return [per[case, scheme][s][metric] for s in seeds]

    def worst(scheme):
        """Per seed: the few/many ratio at the phase worst for the few flows."""
        return [min(per[c, scheme][s]["few_over_many"] for c in phases) for s in seeds]

    def over_phases(scheme, metric):
        return [fmean(per[c, scheme][s][metric] for c in phases) for s in seeds]

    def ratio(case, metric, scheme="cp"):
        return mean_ci(
            a / b if b else math.nan
            for a, b in zip(at(case, scheme, metric), at(case, "tcp", metric), strict=True)
        )

    table = defaultdict(list)
    for case in cases:
        for scheme in schemes:
            extra = {
                k: mean_ci(at(case, scheme, k)).mean
                for k in ("timeouts_per_flow", "starved_share", "jain", "data_starved_ms")
            }
            for k in ("goodput_few", "goodput_many", "timeouts_few", "timeouts_many"):
                has = case in phases
                extra[k] = mean_ci(at(case, scheme, k)).mean if has else None
            est = mean_ci(at(case, scheme, "goodput_frac"))
            add_row(table, {"case": case, "scheme": scheme}, est, "goodput_frac_of_line", 1, extra)

    quantities = {
        "few_over_many_worst_tcp": mean_ci(worst("tcp")),
        "few_over_many_worst_cp": mean_ci(worst("cp")),
        "timeouts_few_cp": mean_ci(over_phases("cp", "timeouts_few")),
        "high_loss_goodput_ratio_cp_over_tcp": ratio("high-loss", "goodput_frac"),
        "high_loss_timeouts_ratio_cp_over_tcp": ratio("high-loss", "timeouts_per_flow"),
        "high_loss_starved_ratio_cp_over_tcp": ratio("high-loss", "starved_share"),
    }
    if "cp-data-share" in schemes:
        quantities["high_loss_goodput_ratio_cp_data_share_over_tcp"] = ratio(
            "high-loss", "goodput_frac", "cp-data-share"
        )
        quantities["few_over_many_worst_cp_data_share"] = mean_ci(worst("cp-data-share"))

    def draw(ax):
        width = 0.2
        for i, (scheme, grp) in enumerate((s, g) for s in schemes for g in ("few", "many")):
            vals = [mean_ci(at(c, scheme, f"goodput_{grp}")).mean / 1e6 for c in phases]
            ax.bar(
                [x + i * width for x in range(len(phases))], vals, width, label=f"{scheme} {grp}"
            )
        ax.set_xticks([x + 1.5 * width for x in range(len(phases))], [c[8:] for c in phases])
        ax.set_xlabel("delay of the few flows' link (sets the arrival phase)")
        ax.set_ylabel("mean goodput per flow (Mbps)")
        ax.set_yscale("log")
        ax.legend(fontsize=8)

    def mean_of(case, scheme, metric):
        return mean_ci(at(case, scheme, metric)).mean

    notes = (
        "Outcast, per phase (few / many Mbps per flow, TCP | CP): "
        + "; ".join(
            f"{c[8:]}: {mean_of(c, 'tcp', 'goodput_few') / 1e6:.0f}/"
            f"{mean_of(c, 'tcp', 'goodput_many') / 1e6:.0f} | "
            f"{mean_of(c, 'cp', 'goodput_few') / 1e6:.0f}/"
            f"{mean_of(c, 'cp', 'goodput_many') / 1e6:.0f}"
            for c in phases
        )
        + ". High loss: goodput "
        f"{mean_of('high-loss', 'tcp', 'goodput_frac'):.2f} (TCP) vs "
        f"{mean_of('high-loss', 'cp', 'goodput_frac'):.2f} (CP) of line rate; starved flows "
        f"{mean_of('high-loss', 'tcp', 'starved_share'):.2f} vs "
        f"{mean_of('high-loss', 'cp', 'starved_share'):.2f}; timeouts per flow "
        f"{mean_of('high-loss', 'tcp', 'timeouts_per_flow'):.1f} vs "
        f"{mean_of('high-loss', 'cp', 'timeouts_per_flow'):.1f}. With far more flows than "
        "the pipe and buffer hold, CP's flows at their minimum window keep being cut: cut "
        "headers and retransmissions take much of the link (see docs/experiments.md)."
    )
    return Analysis(
        quantities=quantities,
        tables={"unfairness": pa.table(dict(table))},
        figures=[figure(draw, "outcast", f"{exp['id']}: outcast, 2 vs 12 flows, 1 Gbps")],
        notes=notes,
    )
