"""Analysis of ka-legacy-bottleneck: Kick-Ass flows behind an upstream Kick-Ass router, TCP
cross traffic congesting a legacy router downstream (Kick-Ass §III-D2, Fig. 6 and 7), and the
arms that take its two unfair edges apart: R1's fragmentation (`r1-legacy`: R1 without
Kick-Ass; `spaced`: R1 signalling each flow at most twice per RTT, §V) and the topology
(`equal-access`: TCP also reaches R2 through a 100 Mbps link)."""

from __future__ import annotations

from collections import defaultdict

from ..reproduction import Analysis
from .ka_common import over_threshold_share
from .ka_mixed_heavy import (
    SILENT_ABOVE,
    ka_over_tcp,
    mode_and_rates,
    per_period_tables,
    timeline_analysis,
)

KA_LINK, LEGACY_LINK = "R1->R2", "R2->D"
SHARE_BPS = 100e6 / 64  # alone, the Kick-Ass link is the bottleneck
#: Arms whose R1 is a Kick-Ass router.
KA_ARMS = ("default", "equal-access", "spaced")
#: Ratios of one arm's Kick-Ass share with TCP over another's, same seeds: what R1's
#: fragmentation costs, with the paper's topology and with equal access; what spacing gains.
RATIOS = {
    "fragmentation_cost": ("default", "r1-legacy"),
    "fragmentation_cost_equal_access": ("equal-access", "equal-access-r1-legacy"),
    "spacing_gain": ("spaced", "default"),
}


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    q = defaultdict(dict)
    share = defaultdict(dict)
    for r in runs:
        arm = r.params.get("arm", "default")
        share[arm][r.seed] = ka_over_tcp(r)
        if arm != "default":
            q[f"ka_over_tcp_with_tcp_{arm.replace('-', '_')}"][r.seed] = share[arm][r.seed]
            continue
        mode_and_rates(r, q)
        end = float(r.summary["sim_seconds"])
        q["r1_silent_share"][r.seed] = over_threshold_share(r, KA_LINK, SILENT_ABOVE, 0.0, end)
    for name, (a, b) in RATIOS.items():
        if a in share and b in share:
            q[name] = {s: share[a][s] / share[b][s] for s in share[b]}
    default = [r for r in runs if r.params.get("arm", "default") == "default"]
    trace = min(default, key=lambda r: r.seed)
    caption = "shaded = Kick-Ass router silent"
    tables = per_period_tables(runs, KA_LINK, "arm", router_arms=KA_ARMS)
    return timeline_analysis(exp, q, trace, KA_LINK, LEGACY_LINK, SHARE_BPS, caption, tables)
