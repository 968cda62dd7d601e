"""What a result column is, for people: its name in words, its unit, and the scale from the
stored value (SI base units: bits per second, seconds, bytes) to the unit shown.

Figures and report tables show `goodput (Mbps)` with values in Mbps where the data has
`goodput_bps` in bits per second; the data itself keeps base units. Columns not listed are
labelled by their suffix (`_bps`, `_s`, `_bytes`) or shown as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    label: str
    unit: str = ""
    scale: float = 1.0

    def title(self) -> str:
        """`label (unit)`, or the label alone for a count or a ratio."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


#: Summary and per-flow columns whose name alone would not say it right.
KNOWN: dict[str, Quantity] = {
    "goodput_bps": Quantity("goodput", "Mbps", 1e-6),
    "active_goodput_bps": Quantity("goodput while data moved", "Mbps", 1e-6),
    "jain_index": Quantity("Jain's index"),
    "jain_short_mean": Quantity("Jain's index, mean of the slices"),
    "drops": Quantity("drops", "packets"),
    "timeouts": Quantity("timeouts"),
    "syn_timeouts": Quantity("SYN timeouts"),
    "retransmissions": Quantity("retransmissions", "segments"),
    "flows_completed": Quantity("flows completed"),
    "transfers_completed": Quantity("transfers completed"),
    "sim_seconds": Quantity("simulated time", "s"),
    "active_seconds": Quantity("time data moved", "s"),
    "packet_hops": Quantity("packet hops"),
}

#: By suffix: (suffix, unit, scale).
SUFFIXES = (
    ("_bps", "Mbps", 1e-6),
    ("_ms", "ms", 1.0),
    ("_s", "s", 1.0),
    ("_bytes", "KB", 1e-3),
    ("_pkts", "packets", 1.0),
)


def quantity(column: str) -> Quantity:
    """How to show `column`: its words, unit and scale."""
    return _described(column) or Quantity(_words(column) if "." not in column else column)


def described(column: str) -> bool:
    """Whether `column` is a result this module knows how to show (listed, or by suffix)."""
    return _described(column) is not None


def _described(column: str) -> Quantity | None:
    if column in KNOWN:
        return KNOWN[column]
    for suffix, unit, scale in SUFFIXES:
        if column.endswith(suffix) and len(column) > len(suffix):
            return Quantity(_words(column[: -len(suffix)]), unit, scale)
    return None


def _words(name: str) -> str:
    return name.replace("_", " ")


def number(value) -> str:
    """A value for a table: whole numbers with thousands separators, others with four
    significant digits, never in exponent notation unless tiny (below 0.0001)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:,.1f}"
    if magnitude >= 1e-4:
        digits = max(0, 3 - math.floor(math.log10(magnitude)))
        return f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return f"{value:.3g}"
