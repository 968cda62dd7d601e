"""What every super-packet analysis reads: the SPManager's and the SP senders' counters from
the `stages` table, summed over a run's routers and hosts."""

from __future__ import annotations

import numpy as np

from ..reproduction import Run
from .stages import stage_counters


def partial_share(run: Run) -> float | None:
    """The share of admitted super-packets that lost a packet at an SP router after their
    admission (the paper's "not absolute guarantees", measured); None without SPs."""
    c = stage_counters(run, "sp-manager")
    return c["sps_partially_dropped"] / c["sps_admitted"] if c["sps_admitted"] else None


def mean_or_none(xs: list[float]) -> float | None:
    """The mean, or None for a configuration without super-packets."""
    return sum(xs) / len(xs) if xs else None


def flow_groups(run: Run) -> dict[int, str]:
    """Each flow's workload name."""
    f = run.tables["flows"]
    return dict(zip(f.column("flow_id").to_pylist(), f.column("group").to_pylist(), strict=True))


def mean_sp_length(run: Run) -> float | None:
    """Mean length of the super-packets the senders sent (length ≥ 2); None if none."""
    c = stage_counters(run, "sp-sender")
    return c["sp_packets_sent"] / c["sps_sent"] if c["sps_sent"] else None


#: The SP senders' length bins (packets sent in SPs of that length; 1: singles), as counted.
LENGTH_BINS = ("1", "2_3", "4_7", "8_15", "16_31", "32_63")


def length_shares(run: Run) -> dict[str, float] | None:
    """The share of the SP senders' packets sent in SPs of each length bin (singles as length
    1): the SP length distribution, singles included; None without SP senders."""
    c = stage_counters(run, "sp-sender")
    counts = {b: c.get(f"packets_in_length_{b}", 0) for b in LENGTH_BINS}
    total = sum(counts.values())
    return {b: n / total for b, n in counts.items()} if total else None


def transfer_times(run: Run) -> np.ndarray:
    """Each transfer's time from its start to its last byte acknowledged, in the transfers
    table's order; an unfinished one counts to the run's end."""
    t = run.tables["transfers"]
    start = np.asarray(t.column("start_s"), dtype=float)
    end = np.asarray(t.column("end_s").to_pylist(), dtype=float)  # None -> nan
    return np.where(np.isnan(end), float(run.summary["sim_seconds"]), end) - start
