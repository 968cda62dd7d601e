"""Closed-form TCP throughput models, in bits per second."""

from __future__ import annotations

import math


def mathis(p: float, mss_bytes: float, rtt_s: float) -> float:
    """Mathis, Semke, Mahdavi, Ott (CCR 1997): MSS/RTT · sqrt(3/(2p))."""
    return mss_bytes * 8 / rtt_s * math.sqrt(1.5 / p)


def pftk(p: float, mss_bytes: float, rtt_s: float, t0_s: float, b: float = 1.0) -> float:
    """Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), eq. 32 without the window limit:
    MSS / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²))."""
    denom = rtt_s * math.sqrt(2 * b * p / 3) + t0_s * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (
        1 + 32 * p * p
    )
    return mss_bytes * 8 / denom
