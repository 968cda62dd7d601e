"""Analysis of small-packet-regime fairness (TAQ Fig. 2 and 8): short-term (slice) and long-term
Jain indices and utilization against the per-flow fair share."""

from __future__ import annotations

import math
from collections import defaultdict

import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import errorbar, figure
from .stats import mean_ci

#: The short-term index below which fairness counts as fallen (the knee's definition).
KNEE_JAIN = 0.9
#: The paper's knee, in packets per RTT (TAQ §2.2): drawn on the figure.
PAPER_KNEE_PACKETS = 3


def bottleneck_utilization(run: Run, link: str = "left->right") -> float:
    links = run.tables["links"].to_pydict()
    return links["utilization"][links["link"].index(link)]


def point_share_bps(point: dict) -> float:
    """The fair share of a capacity-and-flows point (a `[variants.point.*]` table with
    `capacity_bps` and `n`)."""
    return point["capacity_bps"] / point["n"]


def point_capacity(name: str) -> str:
    """The capacity a point is named after: `300kbps-20k` → `300kbps`."""
    return name.split("-")[0]


def capacities_by_rate(points: dict) -> list[str]:
    """The capacities points are named after, slowest first."""
    rate = {point_capacity(name): p["capacity_bps"] for name, p in points.items()}
    return sorted(rate, key=rate.__getitem__)


def silent_fraction(run: Run) -> float:
    """Mean over the slices of the share of flows that received nothing in the slice."""
    f = run.tables["fairness"].to_pydict()
    shares = [s / n for s, n in zip(f["silent_flows"], f["flows"], strict=True) if n]
    return sum(shares) / len(shares) if shares else math.nan


def fair_share_axes(ax, shares_kbps: list[float]) -> None:
    """The x axis of a fairness-vs-fair-share figure (log scale, ticks at the shares run) and a
    y axis for indices and shares from 0 to 1."""
    ax.set_xscale("log")
    ax.set_xticks(shares_kbps, [f"{v:.3g}" for v in shares_kbps])
    ax.minorticks_off()
    ax.set_xlabel("per-flow fair share (Kbps)")
    ax.set_ylim(0, 1.05)
    ax.legend(loc="lower right")


def knee(share_to_jain: dict[float, float], threshold: float = KNEE_JAIN) -> float:
    """The fair share where the index first drops below `threshold`, going from large shares to
    small, interpolated linearly in log(share); NaN if it never does."""
    shares = sorted(share_to_jain, reverse=True)
    prev = None
    for s in shares:
        j = share_to_jain[s]
        if j < threshold:
            if prev is None:
                return s
            s0, j0 = prev
            frac = (j0 - threshold) / (j0 - j)
            return math.exp(math.log(s0) + frac * (math.log(s) - math.log(s0)))
        prev = (s, j)
    return math.nan


#: The arm the claims are judged on (base-small-packet's `timer` grid key); runs without the key
#: are that arm.
JUDGED_TIMER = "ns2"


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    c = exp["constants"]
    packet_bits = c["packet_bytes"] * 8

    def share_bps(n: int) -> float:
        return c["capacity_bps"] / n

    def share_packets(n: int) -> float:
        return share_bps(n) * c["rtt_with_queue_s"] / packet_bits

    # metric[timer][name][seed][n]
    metric: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for r in runs:
        m, n = metric[r.params.get("timer", JUDGED_TIMER)], r.params["n"]
        m["jain20"][r.seed][n] = r.summary["jain_short_mean"]
        m["jain_long"][r.seed][n] = r.summary["jain_index"]
        m["utilization"][r.seed][n] = bottleneck_utilization(r)
        m["silent"][r.seed][n] = silent_fraction(r)
    timers = [JUDGED_TIMER] + sorted(t for t in metric if t != JUDGED_TIMER)

    def seeds_and_ns(m: dict) -> tuple[list[int], list[int]]:
        seeds = sorted(m["jain20"])
        return seeds, sorted(m["jain20"][seeds[0]])

    def arm_quantities(m: dict) -> dict:
        seeds, ns = seeds_and_ns(m)
        return {
            "jain20_at_max_share": mean_ci(m["jain20"][s][ns[0]] for s in seeds),
            "jain20_at_min_share": mean_ci(m["jain20"][s][ns[-1]] for s in seeds),
            "knee_packets_per_rtt": mean_ci(
                knee({share_packets(n): m["jain20"][s][n] for n in ns}) for s in seeds
            ),
            "silent_fraction_at_min_share": mean_ci(m["silent"][s][ns[-1]] for s in seeds),
            "jain_long_min": mean_ci(min(m["jain_long"][s][n] for n in ns) for s in seeds),
            "utilization_min": mean_ci(min(m["utilization"][s][n] for n in ns) for s in seeds),
        }

    # The judged arm's quantities by their names; another arm's with its name appended.
    quantities = {}
    for t in timers:
        suffix = "" if t == JUDGED_TIMER else f"_{t}"
        quantities |= {f"{k}{suffix}": v for k, v in arm_quantities(metric[t]).items()}

    rows = defaultdict(list)
    est = {}
    for t in timers:
        m = metric[t]
        seeds, ns = seeds_and_ns(m)
        for n in ns:
            rows["timer"].append(t)
            rows["n"].append(n)
            rows["fair_share_kbps"].append(share_bps(n) / 1e3)
            rows["fair_share_packets_per_rtt"].append(share_packets(n))
            for name in ("jain20", "jain_long", "utilization", "silent"):
                e = mean_ci(m[name][s][n] for s in seeds)
                est[t, name, n] = e
                e.append_to(rows, name)
            rows["seeds"].append(len(seeds))

    labels = {
        "jain20": "Jain index, 20 s slices",
        "jain_long": "Jain index, whole run",
        "utilization": "utilization",
        "silent": "flows silent for a whole slice",
    }
    _, ns = seeds_and_ns(metric[JUDGED_TIMER])

    def draw(ax):
        x = [share_bps(n) / 1e3 for n in ns]
        for name, label in labels.items():
            errorbar(ax, x, [est[JUDGED_TIMER, name, n] for n in ns], label)
        for t in timers[1:]:
            errorbar(ax, x, [est[t, "jain20", n] for n in ns], f"Jain index, 20 s slices ({t})")
        knee_kbps = PAPER_KNEE_PACKETS * packet_bits / c["rtt_with_queue_s"] / 1e3
        ax.axvline(
            knee_kbps,
            color="grey",
            linestyle=":",
            label=f"{PAPER_KNEE_PACKETS} packets per RTT (paper's knee)",
        )
        fair_share_axes(ax, x)

    capacity = c["capacity_bps"] / 1e6
    return Analysis(
        quantities=quantities,
        tables={"fairness": pa.table(dict(rows))},
        figures=[
            figure(
                draw,
                "fairness_vs_share",
                f"{exp['id']}: drop-tail, {capacity:g} Mbps, {ns[0]}–{ns[-1]} flows",
            )
        ],
    )
