"""How results show themselves: the numbers a person reads first, as text (the CLI's summary,
`repr`) and as a small HTML table (Jupyter's `_repr_html_`)."""

from __future__ import annotations

from html import escape


def rate_text(bps: float) -> str:
    """A rate in the largest unit it reaches: `840.21 Mbps`."""
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.2f} {unit}"
    return f"{bps:.0f} bps"


def run_rows(s: dict) -> list[tuple[str, str]]:
    """A run's outcome (`summary.json`) as (name, value) rows: flows and transfers, goodput,
    Jain's index, drops, retransmissions, timeouts."""
    rows = [("flows", _flows(s))]
    if s.get("transfers"):
        rows.append(("transfers", f"{s['transfers']} ({s['transfers_completed']} completed)"))
    rows.append(("goodput", _goodput(s)))
    if s.get("jain_index") is not None:
        rows.append(("jain index", f"{s['jain_index']:.3f}"))
    rows += [
        ("drops", f"{s['drops']}"),
        ("retransmissions", f"{s['retransmissions']}" + _loss_probes(s)),
        ("timeouts", f"{s['timeouts']}" + _spurious_timeouts(s) + _syn_timeouts(s)),
    ]
    return rows


def _flows(s: dict) -> str:
    """Flows, and how many finished — unless none could: connections kept open for their
    transfers (incast's), or long-lived flows with no size (bulk)."""
    n, done = s["flows"], s["flows_completed"]
    if done == 0 and s.get("transfers"):
        return f"{n} (connections kept open for their transfers)"
    if done == 0 and s.get("transfers") == 0:
        return f"{n} (long-lived: they run to the end)"
    return f"{n} ({done} completed)"


def _goodput(s: dict) -> str:
    """Goodput over the run, and over the time data moved if the run idled long after."""
    text = f"{rate_text(s['goodput_bps'])} over the {s['sim_seconds']:g} s run"
    active, rate = s.get("active_seconds"), s.get("active_goodput_bps")
    if rate is not None and active < 0.95 * s["sim_seconds"]:
        text += f"; {rate_text(rate)} over the {active:.3g} s data moved"
    return text


def _spurious_timeouts(s: dict) -> str:
    """How many of the data timeouts F-RTO found spurious and undid, when there were any."""
    n = s.get("spurious_timeouts", 0)
    return f" ({n} found spurious and undone)" if n else ""


def _loss_probes(s: dict) -> str:
    """The tail loss probes sent (a new segment or the last one again), when there were any."""
    n = s.get("loss_probes", 0)
    return f"; {n} tail loss probe{'s' if n != 1 else ''} sent" if n else ""


def _syn_timeouts(s: dict) -> str:
    """The SYN timeouts beside the data timeouts, when there were any."""
    n = s.get("syn_timeouts", 0)
    return f" (and {n} SYN timeout{'s' if n != 1 else ''})" if n else ""


def text(title: str, rows: list[tuple[str, str]]) -> str:
    """`title` and aligned rows, one per line."""
    width = max((len(k) for k, _ in rows), default=0)
    return "\n".join([title, *(f"  {k:<{width}}  {v}" for k, v in rows)])


def html(title: str, rows: list[tuple[str, str]]) -> str:
    """`title` over a two-column table."""
    body = "".join(
        f"<tr><th style='text-align:left'>{escape(k)}</th><td>{escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<div><strong>{escape(title)}</strong><table>{body}</table></div>"
