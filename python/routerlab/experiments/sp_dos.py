"""Analysis of sp-dos: the victims' goodput under an attacker that sends only first packets of
super-packets, relative to no attack, per defence and attack rate; how much reservation the
attack held (beyond the paper; its §7 names the attack)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .plots import figure
from .sp_common import flow_groups
from .stages import stage_counters
from .stats import mean_ci


def victims_goodput(run) -> float:
    group = flow_groups(run)
    f = run.tables["flows"]
    ids, goodput = f.column("flow_id").to_pylist(), f.column("goodput_bps").to_pylist()
    return float(sum(g for i, g in zip(ids, goodput, strict=True) if group[i] == "victims"))


def rate_bps(attack: str) -> float:
    if attack == "none":
        return 0.0
    scale = {"Kbps": 1e3, "Mbps": 1e6}
    return float(attack[:-4]) * scale[attack[-4:]]


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    good: dict[tuple, dict[int, float]] = defaultdict(dict)  # (defence, attack) -> seed -> bps
    counters: dict[tuple, list[dict]] = defaultdict(list)
    for r in runs:
        key = (r.params["defence"], r.params["attack"])
        good[key][r.seed] = victims_goodput(r)
        counters[key].append(stage_counters(r, "sp-manager"))
    seeds = sorted(next(iter(good.values())))
    defences = sorted({k[0] for k in good})
    attacks = sorted({k[1] for k in good}, key=rate_bps)

    def kept(defence, attack):
        return mean_ci(good[defence, attack][s] / good[defence, "none"][s] for s in seeds)

    quantities = {}
    if "1Mbps" in attacks:
        quantities["victims_1mbps_algorithm1"] = kept("algorithm1", "1Mbps")
        quantities["victims_1mbps_host_cap"] = kept("host-cap", "1Mbps")
        quantities["victims_1mbps_bloom_host_cap"] = kept("bloom-host-cap", "1Mbps")

    rows = defaultdict(list)
    for d in defences:
        for a in attacks:
            rows["defence"].append(d)
            rows["attack"].append(a)
            mean_ci(good[d, a][s] / 1e6 for s in seeds).append_to(rows, "victims_mbps")
            kept(d, a).append_to(rows, "victims_kept")
            cs = counters[d, a]
            rows["sps_admitted"].append(float(np.mean([c["sps_admitted"] for c in cs])))
            rows["reserved_peak"].append(float(np.mean([c["reserved_peak"] for c in cs])))
            rows["regular_refused"].append(float(np.mean([c["regular_refused"] for c in cs])))
            rows["released_by_expiry"].append(float(np.mean([c["released_by_expiry"] for c in cs])))
            rows["seeds"].append(len(seeds))

    def draw(ax):
        x = [rate_bps(a) / 1e6 for a in attacks]
        for d in defences:
            y = [np.mean([good[d, a][s] / good[d, "none"][s] for s in seeds]) for a in attacks]
            ax.plot(x, y, marker="o", label=d)
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xlabel("attacker's rate of bogus first packets (Mbps)")
        ax.set_ylabel("victims' goodput kept")
        ax.set_ylim(0, 1.05)
        ax.legend(fontsize="small")

    return Analysis(
        quantities=quantities,
        tables={"dos": pa.table(dict(rows))},
        figures=[figure(draw, "victims_kept", f"{exp['id']}: bogus first packets, 10 victims")],
    )
