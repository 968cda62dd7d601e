"""Analysis of ka-mixed-heavy: the Kick-Ass router's TCP mode while TCP cross traffic is
present, the Kick-Ass flows' mode and rates with and without it (Kick-Ass §III-D1, Fig. 5)."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis
from .ka_common import (
    end_state_row,
    flow_ids,
    mean_flow_rate,
    over_threshold_share,
    period_rows,
    queue_samples,
    rate_mode_share,
    shade,
    tcp_periods,
)
from .plots import figure
from .stats import mean_ci

LINK = "left->right"
SILENT_ABOVE = 500  # half the 1000-packet queue
SHARE_BPS = 150e6 / 64
PAYLOAD_TO_PACKET = 1500 / 1460
WITH_TCP_FROM, ALONE_FROM = 2.0, 5.0


def windows(run):
    """(with-TCP windows, alone windows) of a run."""
    end = float(run.summary["sim_seconds"])
    periods = tcp_periods(20.0, 20.0, 40.0, end)
    with_tcp = [(a + WITH_TCP_FROM, b) for a, b in periods]
    gaps = [(0.0, 20.0)] + [(b, min(b + 20.0, end)) for _, b in periods if b < end]
    alone = [(a + ALONE_FROM, b) for a, b in gaps if b > a + ALONE_FROM]
    return with_tcp, alone


def tcp_rate(run, lo, hi) -> float:
    groups = [
        g for g in set(run.tables["flows"].column("group").to_pylist()) if g.startswith("tcp")
    ]
    rates = [mean_flow_rate(run, g, lo, hi) for g in groups if flow_ids(run, g)]
    # Only the period's own flows have samples with data in (lo, hi]; the others deliver 0.
    return max(rates)


def periods_of(r) -> list:
    """(kind, window, TCP flows' rate) of every period of run `r`, in time order."""
    with_tcp, alone = windows(r)
    out = [("with-tcp", w, tcp_rate(r, *w)) for w in with_tcp]
    out += [("alone", w, float("nan")) for w in alone]
    return sorted(out, key=lambda p: p[1][0])


def per_period_tables(runs, link: str, arm_key: str, router_arms=None) -> dict:
    """The `periods` and `seeds` tables: every period of every seed of every arm, and the end
    state of each run of the arms whose `link` has a Kick-Ass router (`router_arms`; None: all)
    — averages hide a seed or a period that went wrong."""
    periods, seeds = defaultdict(list), defaultdict(list)
    for r in sorted(runs, key=lambda r: (r.params.get(arm_key, "default"), r.seed)):
        arm = r.params.get(arm_key, "default")
        period_rows(periods, r, arm, periods_of(r), link, SILENT_ABOVE)
        if router_arms is None or arm in router_arms:
            end_state_row(seeds, r, arm, link, SILENT_ABOVE, last=5.0)
    return {"periods": pa.table(dict(periods)), "seeds": pa.table(dict(seeds))}


def ka_over_tcp(r) -> float:
    """The Kick-Ass flows' mean rate over the TCP flows' in the with-TCP windows of run `r`."""
    with_tcp, _ = windows(r)
    return float(np.mean([mean_flow_rate(r, "ka", *w) / tcp_rate(r, *w) for w in with_tcp]))


def mode_and_rates(r, q: dict) -> None:
    """The Kick-Ass flows' rate-mode shares and rates with and without TCP, into `q`."""
    with_tcp, alone = windows(r)
    q["rate_mode_alone"][r.seed] = np.mean([rate_mode_share(r, "ka", *w) for w in alone])
    q["rate_mode_with_tcp"][r.seed] = np.mean([rate_mode_share(r, "ka", *w) for w in with_tcp])
    q["ka_over_tcp_with_tcp"][r.seed] = ka_over_tcp(r)


def timeline(trace, silent_link: str, util_link: str, share_bps: float):
    """Fig. 5/7: a Kick-Ass flow's rate and a link's utilization over time, the periods when
    `silent_link`'s Kick-Ass router is in TCP mode shaded."""

    def draw(axes):
        ts = trace.tables["timeseries"]
        t = np.asarray(ts.column("t_s"), dtype=float)
        fid = np.asarray(ts.column("flow_id"))
        rate = np.asarray(ts.column("delivered_bps"), dtype=float)
        ka0 = flow_ids(trace, "ka")[0]
        st, sq = queue_samples(trace, silent_link)
        q = trace.tables["queues"]
        on = np.asarray([x == util_link for x in q.column("link").to_pylist()])
        util = np.asarray(q.column("utilization"), dtype=float)[on]
        ut = np.asarray(q.column("t_s"), dtype=float)[on]
        for ax in axes:
            shade(ax, st, sq > SILENT_ABOVE, color="0.85")
            ax.set_xlabel("time (s)")
        axes[0].plot(t[fid == ka0], rate[fid == ka0] / 1e6, lw=0.7)
        axes[0].axhline(share_bps / 1e6, ls=":", c="k", lw=0.8)
        axes[0].set_ylabel("a Kick-Ass flow's rate (Mbps)")
        axes[0].set_ylim(0, 4 * share_bps / 1e6)
        axes[1].plot(ut, util, lw=0.7)
        axes[1].set_ylabel(f"utilization of {util_link}")
        axes[1].set_ylim(0, 1.05)

    return draw


def timeline_analysis(
    exp, q, trace, silent_link, util_link, share_bps, caption, tables=None
) -> Analysis:
    """Estimates of every per-seed quantity in `q`, their table (and `tables`), and the
    timeline figure."""
    seeds = sorted(next(iter(q.values())))
    quantities = {k: mean_ci(v[s] for s in seeds) for k, v in q.items()}
    draw = timeline(trace, silent_link, util_link, share_bps)
    return Analysis(
        quantities=quantities,
        tables={"summary": summary_table(quantities), **(tables or {})},
        figures=[figure(draw, "timeline", f"{exp['id']}: {caption}", ncols=2, sharey=False)],
    )


def summary_table(quantities: dict) -> pa.Table:
    return pa.table(
        {
            "quantity": list(quantities),
            "mean": [e.mean for e in quantities.values()],
            "ci95_lo": [e.ci_lo for e in quantities.values()],
            "ci95_hi": [e.ci_hi for e in quantities.values()],
        }
    )


def analyze(exp: dict, runs: list, quick: bool) -> Analysis:  # noqa: ARG001
    q = defaultdict(dict)
    trace = None
    for r in runs:
        arm = r.params.get("router", "default")
        if arm != "default":
            # A control arm: the Kick-Ass flows' share with TCP, named after the arm.
            q[f"ka_over_tcp_with_tcp_{arm}"][r.seed] = ka_over_tcp(r)
            continue
        with_tcp, alone = windows(r)
        q["silent_with_tcp"][r.seed] = np.mean(
            [over_threshold_share(r, LINK, SILENT_ABOVE, *w) for w in with_tcp]
        )
        q["silent_alone"][r.seed] = np.mean(
            [over_threshold_share(r, LINK, SILENT_ABOVE, *w) for w in alone]
        )
        mode_and_rates(r, q)
        q["ka_rate_over_share_alone"][r.seed] = (
            np.mean([mean_flow_rate(r, "ka", *w) for w in alone]) * PAYLOAD_TO_PACKET / SHARE_BPS
        )
        if trace is None:
            trace = r
    caption = "shaded = router in TCP mode"
    tables = per_period_tables(runs, LINK, "router")
    return timeline_analysis(exp, q, trace, LINK, LINK, SHARE_BPS, caption, tables)
