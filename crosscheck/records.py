"""Metrics of a crosscheck run, computed the same way from either simulator's raw counters,
and the comparison of their means with the tolerances of issue 40 (docs/crosscheck.md)."""

from __future__ import annotations

import math
from statistics import fmean

import grid

# Metric → (relative tolerance, absolute tolerance); None: reported, not judged.
TOLERANCE: dict[str, tuple[float, float] | None] = {
    "goodput_mbps": (0.05, 0.0),
    "jain": (0.0, 0.05),
    "drops": (0.30, 0.0),
    "retransmissions": None,
    "timeouts": None,
    "syn_timeouts": None,
    "recoveries": None,
    "slow_rounds": None,
    "fct_mean_ms": (0.25, 0.0),
    "fct_p99_ms": (0.25, 0.0),
}


def normalize_ns3(raw: dict) -> dict:
    """ns-3's counters in routerlab's form: a SYN retransmission doubles the RTO as a timeout
    does, and the first SYN is counted too."""
    out = dict(raw)
    out["flows"] = []
    for f in raw["flows"]:
        syn_timeouts = max(f["syns"] - 1, 0)
        out["flows"].append(
            {
                "start": f["start"],
                "rx": f["rx"],
                "retx": f["retx"],
                "timeouts": max(f["rto_doublings"] - syn_timeouts, 0),
                "syn_timeouts": syn_timeouts,
                "recoveries": f["recoveries"],
            }
        )
    return out


def jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else float("nan")


def percentile(xs: list[float], q: float) -> float:
    """The q-quantile by the nearest-rank rule."""
    if not xs:
        return float("nan")
    ys = sorted(xs)
    return ys[max(0, math.ceil(q * len(ys)) - 1)]


def metrics(p: grid.Dumbbell | grid.Incast, raw: dict) -> dict[str, float]:
    """One run's metrics."""
    flows = raw["flows"]
    m = {
        "drops": float(raw["drops"]),
        "retransmissions": float(sum(f["retx"] for f in flows)),
        "timeouts": float(sum(f["timeouts"] for f in flows)),
        "syn_timeouts": float(sum(f["syn_timeouts"] for f in flows)),
        "recoveries": float(sum(f.get("recoveries", math.nan) for f in flows)),
    }
    if p.kind == "dumbbell":
        t = p.duration_s
        m["goodput_mbps"] = sum(f["rx"] for f in flows) * 8 / t / 1e6
        m["jain"] = jain([f["rx"] * 8 / (t - f["start"]) for f in flows])
        m["fct_mean_ms"] = m["fct_p99_ms"] = m["slow_rounds"] = float("nan")
    else:
        span = raw["last_end"] - raw["first_round"]
        delivered = raw["rounds_done"] * p.senders * p.block_bytes
        m["goodput_mbps"] = delivered * 8 / span / 1e6 if span > 0 else float("nan")
        m["jain"] = float("nan")
        m["fct_mean_ms"] = fmean(raw["fcts"]) * 1e3 if raw["fcts"] else float("nan")
        m["fct_p99_ms"] = percentile(raw["fcts"], 0.99) * 1e3
        m["slow_rounds"] = float(slow_rounds(raw["fcts"], p.senders, p.min_rto_ms / 1e3))
    return m


def slow_rounds(fcts: list[float], senders: int, min_rto_s: float) -> int:
    """Rounds whose slowest block took at least the minimum RTO: those that waited for a
    timeout. `fcts` lists each round's blocks in turn (both sides record them so)."""
    rounds = [fcts[i : i + senders] for i in range(0, len(fcts) - senders + 1, senders)]
    return sum(1 for r in rounds if max(r) >= min_rto_s)


def mean_metrics(runs: list[dict[str, float]]) -> dict[str, float]:
    keys = runs[0].keys()
    return {k: fmean(r[k] for r in runs) for k in keys}


def within(metric: str, ns3: float, ours: float) -> bool | None:
    """Is ours within the metric's tolerance of ns-3's? None: not judged or not applicable."""
    tol = TOLERANCE.get(metric)
    if tol is None or math.isnan(ns3) or math.isnan(ours):
        return None
    rel, absolute = tol
    return abs(ours - ns3) <= rel * abs(ns3) + absolute
