"""What the Kick-Ass analyses share: flow completion times by size, the explicit-rate senders'
mode in the time series, and the Kick-Ass routers' counters."""

from __future__ import annotations

import numpy as np

from ..reproduction import Run
from .stages import stage_counter

#: The segment size of every Kick-Ass experiment (1500-byte packets).
SEGMENT_BYTES = 1460
#: Size bins in packets (lower bounds; the last ends at 2000). The Pareto law of mean 100
#: packets and shape 1.8 starts at 44 packets (its scale), so the first bin is 44-99.
SIZE_BINS = (1, 100, 200, 500, 1000)


def completed_fcts(run: Run, group: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(sizes in packets, FCTs in s) of the flows that completed, optionally of one group."""
    f = run.tables["flows"]
    fct = np.asarray(f.column("fct_s").to_pylist(), dtype=float)
    size = np.asarray(f.column("size_bytes").to_pylist(), dtype=float)
    keep = ~np.isnan(fct) & ~np.isnan(size)
    if group is not None:
        keep &= np.asarray([g == group for g in f.column("group").to_pylist()])
    return np.ceil(size[keep] / SEGMENT_BYTES), fct[keep]


#: Flows of at least this many packets are "large" (the top two size bins), where Fig. 3's and
#: Fig. 4's curves lie furthest apart.
LARGE_PACKETS = 500


def mean_large_fct(sizes: np.ndarray, fcts: np.ndarray) -> float:
    """Mean FCT of the flows of at least LARGE_PACKETS packets (NaN if none completed)."""
    large = fcts[sizes >= LARGE_PACKETS]
    return float(large.mean()) if len(large) else float("nan")


def size_bin(packets: np.ndarray) -> np.ndarray:
    """The index of each size's bin in SIZE_BINS."""
    return np.searchsorted(SIZE_BINS, packets, side="right") - 1


def bin_label(i: int) -> str:
    hi = SIZE_BINS[i + 1] - 1 if i + 1 < len(SIZE_BINS) else 2000
    return f"{SIZE_BINS[i]}-{hi}"


def draw_fct_by_size(ax, by_bin: dict[str, dict[int, list[float]]], seeds: list[int]) -> None:
    """One curve per label: the mean FCT of each size bin, averaged over the seeds (Fig. 3, 4)."""
    x = np.arange(len(SIZE_BINS))
    for label, per_seed in by_bin.items():
        y = [np.nanmean([per_seed[s][i] for s in seeds]) for i in range(len(SIZE_BINS))]
        ax.plot(x, y, marker="o", label=label)
    ax.set_xticks(x, [bin_label(i) for i in range(len(SIZE_BINS))])
    ax.set_yscale("log")
    ax.set_xlabel("flow size (packets)")
    ax.set_ylabel("mean FCT (s)")
    ax.legend(fontsize="small")


def mean_fct_by_bin(sizes: np.ndarray, fcts: np.ndarray) -> list[float]:
    """Mean FCT of each size bin (NaN for an empty bin)."""
    b = size_bin(sizes)
    return [
        float(fcts[b == i].mean()) if (b == i).any() else float("nan")
        for i in range(len(SIZE_BINS))
    ]


def flow_ids(run: Run, group: str) -> list[int]:
    f = run.tables["flows"]
    return [
        i
        for i, g in zip(f.column("flow_id").to_pylist(), f.column("group").to_pylist(), strict=True)
        if g == group
    ]


def _rows(run: Run, group: str, lo: float, hi: float):
    ts = run.tables["timeseries"]
    t = np.asarray(ts.column("t_s"), dtype=float)
    keep = (t > lo) & (t <= hi) & np.isin(np.asarray(ts.column("flow_id")), flow_ids(run, group))
    return ts, keep


def mean_flow_rate(run: Run, group: str, lo: float, hi: float) -> float:
    """The group's flows' mean delivered rate (bit/s) over (lo, hi]."""
    ts, keep = _rows(run, group, lo, hi)
    return float(np.asarray(ts.column("delivered_bps"), dtype=float)[keep].mean())


def mean_signalled_rate(run: Run, group: str, lo: float, hi: float) -> float:
    """The group's flows' mean last-signalled rate (bit/s) over (lo, hi]; NaN if none heard."""
    ts, keep = _rows(run, group, lo, hi)
    rate = np.asarray(ts.column("signalled_rate_bps").to_pylist(), dtype=float)[keep]
    rate = rate[~np.isnan(rate)]
    return float(rate.mean()) if len(rate) else float("nan")


def rate_mode_share(run: Run, group: str, lo: float, hi: float) -> float:
    """Share of the group's samples in (lo, hi] in which the sender followed a signalled rate."""
    ts, keep = _rows(run, group, lo, hi)
    mode = np.asarray([m is True for m in ts.column("rate_mode").to_pylist()])
    return float(mode[keep].mean())


def queue_samples(run: Run, link: str) -> tuple[np.ndarray, np.ndarray]:
    """(times, queue lengths in packets) of one sampled link."""
    q = run.tables["queues"]
    sel = np.asarray([x == link for x in q.column("link").to_pylist()])
    return np.asarray(q.column("t_s"), dtype=float)[sel], np.asarray(
        q.column("queue_packets"), dtype=float
    )[sel]


def over_threshold_share(run: Run, link: str, packets: float, lo: float, hi: float) -> float:
    """Share of the queue samples in (lo, hi] above `packets`: the Kick-Ass router is silent."""
    t, q = queue_samples(run, link)
    keep = (t > lo) & (t <= hi)
    return float((q[keep] > packets).mean())


def tcp_periods(first: float, length: float, every: float, end: float) -> list[tuple[float, float]]:
    """The cross-traffic periods [first + k·every, … + length) that start before `end`."""
    out, t = [], first
    while t < end:
        out.append((t, min(t + length, end)))
        t += every
    return out


def shade(ax, t: np.ndarray, on: np.ndarray, **kw) -> None:
    """Shade the spans of `t` where `on` holds (the paper's shaded router-TCP-mode periods)."""
    start = None
    for x, flag in zip(t, on, strict=True):
        if flag and start is None:
            start = x
        elif not flag and start is not None:
            ax.axvspan(start, x, lw=0, **kw)
            start = None
    if start is not None:
        ax.axvspan(start, t[-1], lw=0, **kw)


def link_bps(run: Run, link: str) -> float:
    """A link's rate (bit/s), as the run's links table gives it."""
    links = run.tables["links"]
    rates = dict(
        zip(links.column("link").to_pylist(), links.column("rate_bps").to_pylist(), strict=True)
    )
    return float(rates[link])


def period_rows(rows: dict, run: Run, arm: str, periods: list, link: str, silent_above: float):
    """One row per period of one run into `rows` (a column table): which arm and seed, the
    period (`with-tcp` or `alone`, its window), the share of the Kick-Ass flows' samples in rate
    mode, the share of `link`'s queue samples over `silent_above` (its Kick-Ass router silent),
    the Kick-Ass flows' mean delivered and last-signalled rates, and `tcp_mbps` (given per period:
    NaN when alone)."""
    for kind, (lo, hi), tcp_bps in periods:
        rows["arm"].append(arm)
        rows["seed"].append(run.seed)
        rows["period"].append(kind)
        rows["from_s"].append(lo)
        rows["to_s"].append(hi)
        rows["rate_mode"].append(rate_mode_share(run, "ka", lo, hi))
        rows["router_silent"].append(over_threshold_share(run, link, silent_above, lo, hi))
        rows["ka_mbps"].append(mean_flow_rate(run, "ka", lo, hi) / 1e6)
        rows["signalled_mbps"].append(mean_signalled_rate(run, "ka", lo, hi) / 1e6)
        rows["tcp_mbps"].append(tcp_bps / 1e6)


def end_state_row(rows: dict, run: Run, arm: str, link: str, silent_above: float, last: float):
    """One row per run: the Kick-Ass router's rate and signal length when the run ended, whether
    its queue kept it silent then, and the Kick-Ass flows' rate-mode share over the last `last`
    seconds — a rate locked at its floor shows here."""
    end = float(run.summary["sim_seconds"])
    rows["arm"].append(arm)
    rows["seed"].append(run.seed)
    rows["rate_kbps_at_end"].append(stage_counter(run, link, "rate_kbps_at_end"))
    rows["signal_len_at_end"].append(stage_counter(run, link, "signal_len_at_end"))
    rows["silent_at_end"].append(over_threshold_share(run, link, silent_above, end - 0.5, end) > 0)
    rows["rate_mode_last"].append(rate_mode_share(run, "ka", end - last, end))
