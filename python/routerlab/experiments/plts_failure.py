"""Analysis of plts-failure: per scheme, with and without the failed core link, the mean
throughput (share of ideal) of the flows into the affected pod and of the others; how much
each scheme loses to the failure."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from . import Analysis, Run
from .plots import figure, yerr
from .plts_throughput import ideal_bps
from .stats import add_row, mean_ci

#: Flows by where they meet the failed pod: ending in it, starting in it, neither, any.
GROUPS = ("into_pod", "others", "out_of_pod", "elsewhere", "all")


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    ideal = ideal_bps(exp)
    pod_hosts = {f"h{c['failed_pod'] * c['hosts_per_pod'] + i}" for i in range(c["hosts_per_pod"])}
    per: dict[tuple[str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    for r in runs:
        f = r.tables["flows"].to_pydict()
        share = np.asarray(f["goodput_bps"]) / ideal
        into = np.asarray([d in pod_hosts for d in f["dst"]])
        out = np.asarray([s in pod_hosts for s in f["src"]])
        per[r.params["scheme"], r.params["failure"]][r.seed] = {
            "into_pod": float(share[into].mean()),
            "others": float(share[~into].mean()),
            "out_of_pod": float(share[out & ~into].mean()),
            "elsewhere": float(share[~out & ~into].mean()),
            "all": float(share.mean()),
        }
    schemes = [s for s in exp["grid"]["scheme"] if (s, "none") in per]
    failures = exp["grid"]["failure"]
    seeds = sorted(per[schemes[0], failures[0]])

    def at(scheme, failure, group):
        return [per[scheme, failure][s][group] for s in seeds]

    def kept(scheme, group):
        return [
            x / y
            for x, y in zip(at(scheme, "core-link", group), at(scheme, "none", group), strict=True)
        ]

    rows = defaultdict(list)
    est = {}
    for scheme in schemes:
        for failure in failures:
            for group in GROUPS:
                est[scheme, failure, group] = e = mean_ci(at(scheme, failure, group))
                add_row(
                    rows,
                    {"scheme": scheme, "failure": failure, "flows": group},
                    e,
                    "throughput_of_ideal",
                )

    quantities = {
        "into_pod_fail_over_none_spray-rr-flow": mean_ci(kept("spray-rr-flow", "into_pod")),
        "others_fail_over_none_spray-rr-flow": mean_ci(kept("spray-rr-flow", "others")),
        "into_pod_loss_ecmp_minus_rr_flow": mean_ci(
            (1 - a) - (1 - b)
            for a, b in zip(
                kept("ecmp", "into_pod"), kept("spray-rr-flow", "into_pod"), strict=True
            )
        ),
        "rr_over_ecmp_with_failure": mean_ci(
            x / y
            for x, y in zip(
                at("spray-rr", "core-link", "all"), at("ecmp", "core-link", "all"), strict=True
            )
        ),
    }

    def draw(axes):
        titles = {
            "into_pod": f"flows into pod {c['failed_pod']}",
            "elsewhere": f"flows neither into nor out of pod {c['failed_pod']}",
        }
        for ax, group in zip(axes, titles, strict=True):
            width = 0.8 / len(failures)
            x = np.arange(len(schemes))
            for i, failure in enumerate(failures):
                es = [est[s, failure, group].scaled(100) for s in schemes]
                ax.bar(x + i * width, [e.mean for e in es], width, yerr=yerr(es), label=failure)
            ax.set_xticks(x + width / 2, schemes, rotation=20)
            ax.set_title(titles[group])
            ax.set_ylim(0, 105)
        axes[0].set_ylabel("throughput (% of ideal)")
        axes[0].legend()

    return Analysis(
        quantities=quantities,
        tables={"failure": pa.table(dict(rows))},
        figures=[figure(draw, "throughput", f"{exp['id']}: c0 - a1_0 down", ncols=2)],
    )
