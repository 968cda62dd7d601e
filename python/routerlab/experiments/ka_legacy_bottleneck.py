"""Analysis of ka-legacy-bottleneck: Kick-Ass flows behind an upstream Kick-Ass router, TCP
cross traffic congesting a legacy router downstream (Kick-Ass §III-D2, Fig. 6 and 7)."""

from __future__ import annotations

from collections import defaultdict

from . import Analysis
from .ka_common import over_threshold_share
from .ka_mixed_heavy import SILENT_ABOVE, mode_and_rates, timeline_analysis

KA_LINK, LEGACY_LINK = "R1->R2", "R2->D"
SHARE_BPS = 100e6 / 64  # alone, the Kick-Ass link is the bottleneck


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    q = defaultdict(dict)
    for r in runs:
        mode_and_rates(r, q)
        end = float(r.summary["sim_seconds"])
        q["r1_silent_share"][r.seed] = over_threshold_share(r, KA_LINK, SILENT_ABOVE, 0.0, end)
    trace = min(runs, key=lambda r: r.seed)
    caption = "shaded = Kick-Ass router silent"
    return timeline_analysis(exp, q, trace, KA_LINK, LEGACY_LINK, SHARE_BPS, caption)
