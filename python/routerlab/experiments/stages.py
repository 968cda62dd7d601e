"""The `stages` table of a run: the named counters of router stages, queue disciplines and
host shims (SP's manager and senders, the Kick-Ass router, CP's port), read by the analyses."""

from __future__ import annotations

from collections import defaultdict

from ..reproduction import Run


def stage_counters(run: Run, stage: str) -> dict[str, int]:
    """Counters of every `stage` ("sp-manager", "sp-sender", …) in the run, summed."""
    out: dict[str, int] = defaultdict(int)
    t = run.tables.get("stages")
    if t is None:
        return out
    for s, name, value in zip(
        t.column("stage").to_pylist(),
        t.column("counter").to_pylist(),
        t.column("value").to_pylist(),
        strict=True,
    ):
        if s == stage:
            out[name] += value
    return out


def stage_counter(run: Run, at: str, name: str, stage: str = "ka-router") -> int:
    """One counter of a router stage at one port (stages.parquet)."""
    t = run.tables["stages"]
    return sum(
        v
        for a, st, c, v in zip(
            t.column("at").to_pylist(),
            t.column("stage").to_pylist(),
            t.column("counter").to_pylist(),
            t.column("value").to_pylist(),
            strict=True,
        )
        if a == at and st == stage and c == name
    )
