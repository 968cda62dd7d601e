"""The bytes every emulated flow sends: byte ``k`` of a flow is ``k mod 251`` (a prime, so that
no power-of-two slice repeats in step with it), so that a receiver's bytes can be checked
intact by their digest alone."""

from __future__ import annotations

import hashlib

#: Bytes a client writes at a time.
CHUNK = 64 * 1024

PATTERN = bytes(k % 251 for k in range(251 * 263))  # any 64 KiB slice from any phase fits


def pattern(offset: int, n: int) -> bytes:
    """Bytes ``offset`` to ``offset + n`` of every flow's stream (byte k is k mod 251)."""
    start = offset % 251
    return PATTERN[start : start + n]


def stream_digest(size: int) -> str:
    """The SHA-256 of a flow's first ``size`` bytes."""
    h, done = hashlib.sha256(), 0
    while done < size:
        n = min(CHUNK, size - done)
        h.update(pattern(done, n))
        done += n
    return h.hexdigest()
