"""Analysis of plts-failure: per scheme, with and without the failed core link, the mean
throughput (share of ideal) of the flows into the affected pod and of the others; how much
each scheme loses to the failure; the fast recoveries of the flows that never touch the pod
and the drops in the whole fabric; and the queues on the core links that take the traffic
shifted off the failed link, against those on the other core links."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure, yerr
from .plts_throughput import ideal_bps
from .stats import add_row, mean_ci

#: Flows by where they meet the failed pod: ending in it, starting in it, neither, any.
GROUPS = ("into_pod", "others", "out_of_pod", "elsewhere", "all")


def core_link_queues(links: pa.Table, pod: int, k: int) -> tuple[float, float]:
    """Mean bytes waiting (time average) per core link that carries traffic shifted off the
    failed link c0 – a<pod>_0, outside the pod: aggregation switch 0 of every other pod with
    c1 … c(k/2 − 1), both ways (what c0 carried to and from the pod now crosses them); and the
    same per other aggregation – core link of the other pods."""
    shifted = {f"c{c}" for c in range(1, k // 2)}
    hit, rest = [], []
    names = links["link"].to_pylist()
    for name, q in zip(names, links["mean_queue_bytes"].to_pylist(), strict=True):
        a, b = name.split("->")
        agg, core = (a, b) if b.startswith("c") else (b, a)
        if not (core.startswith("c") and agg.startswith("a")) or agg.startswith(f"a{pod}_"):
            continue
        (hit if agg.endswith("_0") and core in shifted else rest).append(q)
    return float(np.mean(hit)), float(np.mean(rest))


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
        shifted, other = core_link_queues(r.tables["links"], c["failed_pod"], c["k"])
        recoveries = np.asarray(f["fast_recoveries"], dtype=float)
        per[r.params["scheme"], r.params["failure"]][r.seed] = {
            "elsewhere_recoveries": float(recoveries[~out & ~into].mean()),
            "fabric_drops": float(sum(r.tables["links"]["drops"].to_pylist())),
            "shifted_link_queue": shifted,
            "other_link_queue": other,
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
        "elsewhere_fail_over_none_spray-rr-flow": mean_ci(kept("spray-rr-flow", "elsewhere")),
        "elsewhere_recoveries_fail_over_none_spray-rr-flow": mean_ci(
            (x + 1) / (y + 1)
            for x, y in zip(
                at("spray-rr-flow", "core-link", "elsewhere_recoveries"),
                at("spray-rr-flow", "none", "elsewhere_recoveries"),
                strict=True,
            )
        ),
        "fabric_drops_spray-rr-flow_core-link": mean_ci(
            at("spray-rr-flow", "core-link", "fabric_drops")
        ),
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

    queues = defaultdict(list)
    for scheme in schemes:
        for failure in failures:
            queues["scheme"].append(scheme)
            queues["failure"].append(failure)
            for key in ("shifted_link_queue", "other_link_queue"):
                queues[f"{key}_bytes"].append(float(np.mean(at(scheme, failure, key))))
            for key in ("elsewhere_recoveries", "fabric_drops"):
                queues[key].append(float(np.mean(at(scheme, failure, key))))

    return Analysis(
        quantities=quantities,
        tables={"failure": pa.table(dict(rows)), "reordering": pa.table(dict(queues))},
        figures=[figure(draw, "throughput", f"{exp['id']}: c0 - a1_0 down", ncols=2)],
    )
