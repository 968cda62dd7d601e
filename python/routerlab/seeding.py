"""Seeds of replicates: one scheme for sweeps and reproductions.

Replicate *i* of a campaign — a sweep's campaign seed, an experiment's id — runs with the first
63 bits of ``sha256("CAMPAIGN/i")`` in every configuration: configurations are compared on
common random numbers, as ns-3's run number (`RngRun`) and OMNeT++'s repetitions do, and
adding replicates keeps the earlier ones.
"""

from __future__ import annotations

import hashlib


def replicate_seed(campaign: str | int, replicate: int) -> int:
    """The seed of replicate ``replicate`` of ``campaign``, whatever the configuration."""
    digest = hashlib.sha256(f"{campaign}/{replicate}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
