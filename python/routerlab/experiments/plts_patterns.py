"""Analysis of plts-patterns: per scheme, traffic pattern and packet size, the flows' mean
throughput as a share of the ideal (line rate less headers for that MSS), Jain's index and
spurious retransmissions per MB delivered; ratios between schemes within a pattern and
between packet sizes within a scheme; under hot-spot traffic, the flows into the hot hosts
(those receiving more than one flow) apart from the others."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure, yerr
from .stats import add_row, mean_ci


def hot_flows(dsts: list[str]) -> np.ndarray:
    """Which flows end at a host that receives more than one (a hot spot's)."""
    counts: dict[str, int] = defaultdict(int)
    for d in dsts:
        counts[d] += 1
    return np.asarray([counts[d] > 1 for d in dsts], dtype=bool)


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    rate = float(exp["constants"]["line_rate_bps"])
    per: dict[tuple[str, str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    for r in runs:
        mss = exp["variants"]["size"][r.params["size"]]["packet_mss"]
        f = r.tables["flows"].to_pydict()
        goodput = np.asarray(f["goodput_bps"])
        delivered_mb = max(sum(f["bytes_delivered"]) / 1e6, 1e-9)
        key = (r.params["scheme"], r.params["pattern"], r.params["size"])
        ideal = rate * mss / (mss + 40)
        hot = hot_flows(f["dst"])
        per[key][r.seed] = {
            "throughput": float(goodput.mean()) / ideal,
            "hot_throughput": float(goodput[hot].mean()) / ideal if hot.any() else float("nan"),
            "cold_throughput": float(goodput[~hot].mean()) / ideal,
            "jain": r.summary["jain_index"],
            "spurious_per_mb": sum(f["spurious_retransmissions"]) / delivered_mb,
        }
    grid = exp["grid"]
    keys = [k for k in per]
    seeds = sorted(per[keys[0]])

    def at(scheme, pattern, size, metric="throughput"):
        return [per[scheme, pattern, size][s][metric] for s in seeds]

    def ratio(a, b, metric="throughput"):
        return mean_ci(x / y for x, y in zip(at(*a, metric), at(*b, metric), strict=True))

    rows = defaultdict(list)
    est = {}
    for scheme in [s for s in grid["scheme"] if any(k[0] == s for k in keys)]:
        for pattern in grid["pattern"]:
            for size in grid["size"]:
                est[scheme, pattern, size] = e = mean_ci(at(scheme, pattern, size))
                extra = {
                    m: mean_ci(at(scheme, pattern, size, m)).mean
                    for m in ("jain", "spurious_per_mb")
                }
                add_row(
                    rows,
                    {"scheme": scheme, "pattern": pattern, "size": size},
                    e,
                    "throughput_of_ideal",
                    1.0,
                    extra,
                )

    def rr_share(size, scheme="spray-rr"):
        return [
            x / y
            for x, y in zip(
                at(scheme, "random", size), at("spray-rr-flow", "random", size), strict=True
            )
        ]

    quantities = {
        "rr_over_ecmp_random_1500B": ratio(
            ("spray-rr", "random", "1500B"), ("ecmp", "random", "1500B")
        ),
        "rr_over_ecmp_stride_1500B": ratio(
            ("spray-rr", "stride", "1500B"), ("ecmp", "stride", "1500B")
        ),
        "rr_flow_over_ecmp_hotspot_1500B": ratio(
            ("spray-rr-flow", "hotspot", "1500B"), ("ecmp", "hotspot", "1500B")
        ),
        "rr_flow_over_ecmp_hotspot_hot_1500B": ratio(
            ("spray-rr-flow", "hotspot", "1500B"), ("ecmp", "hotspot", "1500B"), "hot_throughput"
        ),
        "rr_flow_over_ecmp_hotspot_cold_1500B": ratio(
            ("spray-rr-flow", "hotspot", "1500B"), ("ecmp", "hotspot", "1500B"), "cold_throughput"
        ),
        "rr_spurious_per_mb_576_over_1500": ratio(
            ("spray-rr", "random", "576B"), ("spray-rr", "random", "1500B"), "spurious_per_mb"
        ),
        # The arm that shows why the shared counter loses: a counter per destination.
        "rr_dst_minus_rr_share_of_rr_flow_1500": mean_ci(
            a - b for a, b in zip(rr_share("1500B", "spray-rr-dst"), rr_share("1500B"), strict=True)
        ),
        "rr_share_of_rr_flow_9000_minus_1500": mean_ci(
            a - b for a, b in zip(rr_share("9000B"), rr_share("1500B"), strict=True)
        ),
    }

    schemes = sorted({k[0] for k in est}, key=grid["scheme"].index)
    if "spray-rr-data" in schemes:
        quantities["rr_data_share_of_rr_flow_9000_minus_1500"] = mean_ci(
            a - b
            for a, b in zip(
                rr_share("9000B", "spray-rr-data"), rr_share("1500B", "spray-rr-data"), strict=True
            )
        )

    def draw(axes):
        for ax, pattern in zip(axes, grid["pattern"], strict=True):
            width = 0.8 / len(schemes)
            x = np.arange(len(grid["size"]))
            for i, scheme in enumerate(schemes):
                es = [est[scheme, pattern, size].scaled(100) for size in grid["size"]]
                ax.bar(x + i * width, [e.mean for e in es], width, yerr=yerr(es), label=scheme)
            ax.set_xticks(x + width * (len(schemes) - 1) / 2, grid["size"])
            ax.set_title(pattern)
            ax.set_ylim(0, 105)
        axes[0].set_ylabel("throughput (% of ideal)")
        axes[0].legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"patterns": pa.table(dict(rows))},
        figures=[figure(draw, "throughput", f"{exp['id']}: by pattern and packet size", ncols=3)],
    )
