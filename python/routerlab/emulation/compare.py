"""``routerlab compare``: one scenario, one seed, simulated and emulated — the simulator's TCP
model against the kernel's, through the same router code — in one table and one figure.

Writes into DIR: ``sim/`` and ``emu/`` (each run's own results), ``compare.csv`` and
``compare.md`` (per metric: simulated, emulated, and their ratio emulated/simulated) and
``compare.png`` (the ratios).
"""

from __future__ import annotations

import math
from pathlib import Path

from ..output import AtomicDir, write_text_atomic
from ..runner import execute, prepare, write_files
from . import emulate

#: The metrics compared, in order: (name, what it is).
METRICS = [
    ("goodput_bps", "payload delivered × 8 / run length"),
    ("jain_index", "Jain's index of the flows' goodputs"),
    ("drops", "packets the network dropped"),
    ("retransmissions", "segments the senders resent"),
    ("timeouts", "retransmission timeouts"),
    ("fct_mean_s", "mean completion time of the flows that completed"),
    ("fct_p99_s", "99th percentile of those completion times"),
    (
        "transfer_mean_s",
        "mean time of the transfers that ended (incast blocks: from the round's start)",
    ),
    ("transfer_p99_s", "99th percentile of those times"),
]


def _p99(xs: list[float]) -> float | None:
    return xs[min(len(xs) - 1, math.ceil(0.99 * len(xs)) - 1)] if xs else None


def _fcts(flows: dict) -> list[float]:
    return sorted(x for x in flows.get("fct_s", []) if x is not None)


def metrics(summary: dict, flows: dict, transfers: dict | None = None) -> dict:
    """The compared metrics of one run, from its summary and its flows and transfers tables
    (each a dict of lists)."""
    fct = _fcts(flows)
    t = transfers or {}
    took = sorted(
        e - s
        for s, e in zip(t.get("start_s", []), t.get("end_s", []), strict=True)
        if e is not None
    )
    return {
        "goodput_bps": summary.get("goodput_bps"),
        "jain_index": summary.get("jain_index"),
        "drops": summary.get("drops"),
        "retransmissions": summary.get("retransmissions"),
        "timeouts": summary.get("timeouts"),
        "fct_mean_s": sum(fct) / len(fct) if fct else None,
        "fct_p99_s": _p99(fct),
        "transfer_mean_s": sum(took) / len(took) if took else None,
        "transfer_p99_s": _p99(took),
    }


def rows(sim: dict, emu: dict) -> list[dict]:
    out = []
    for name, _ in METRICS:
        s, e = sim[name], emu[name]
        ratio = e / s if s not in (None, 0) and e is not None else None
        out.append({"metric": name, "simulated": s, "emulated": e, "ratio": ratio})
    return out


def _fmt(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, int):
        return str(x)
    return f"{x:.4g}"


def markdown(table: list[dict], scenario: str, emulation: dict | None = None) -> str:
    lines = [
        f"Simulated and emulated: `{scenario}` (same scenario and seed)",
        "",
        "| metric | simulated | emulated | emulated / simulated |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['metric']} | {_fmt(r['simulated'])} | {_fmt(r['emulated'])} | {_fmt(r['ratio'])} |"
        for r in table
    ]
    if emulation is not None:
        lines += ["", timing_line(emulation)]
    return "\n".join(lines) + "\n"


def timing_line(emulation: dict) -> str:
    """Whether the emulated run kept its timing bound, with its worst host's errors: a run
    that did not is less certain than its table looks."""
    errors = [t for t in emulation["timing_error"] if t["median_s"] is not None]
    bound = emulation["timing_bound_s"]
    worst = (
        f"worst host: median {max(t['median_s'] for t in errors) * 1e6:.0f} µs, "
        f"p99 {max(t['p99_s'] for t in errors) * 1e3:.2f} ms"
        if errors
        else "no datagram timed"
    )
    kept = "kept" if emulation["timing_within_bound"] else "did NOT keep"
    return (
        f"The emulated run {kept} its timing bound (median {bound['median'] * 1e6:.0f} µs, "
        f"p99 {bound['p99'] * 1e3:.0f} ms; {worst})."
    )


def figure(table: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in table if r["ratio"] is not None]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.bar([r["metric"] for r in shown], [r["ratio"] for r in shown], color="#4C72B0")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylabel("emulated / simulated")
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def compare(path: Path, out: Path, force: bool = False, seed: int | None = None) -> list[dict]:
    """Simulate and emulate the scenario at ``path``; write both and their comparison into
    ``out``; return the comparison's rows."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    path = Path(path)
    text = path.read_text()
    base_dir = path.resolve().parent
    prepared = prepare(text, seed=seed, base_dir=base_dir, name=str(path))
    with AtomicDir(out, force=force) as d:
        sim = execute(prepared, progress=False)
        (d.path / "sim").mkdir()
        write_files(sim, d.path / "sim", text)
        emu_summary = emulate(path, d.path / "emu", seed=seed)
        emu_flows = pacsv.read_csv(d.path / "emu" / "flows.csv").to_pydict()
        emu_transfers = d.path / "emu" / "transfers.parquet"
        emu_t = pq.read_table(emu_transfers).to_pydict() if emu_transfers.exists() else None
        sim_t = sim.transfers.to_pydict() if sim.transfers is not None else None
        table = rows(
            metrics(sim.summary, sim.flows.to_pydict(), sim_t),
            metrics(emu_summary, emu_flows, emu_t),
        )
        header = "metric,simulated,emulated,ratio\n"
        body = "".join(
            ",".join(
                "" if r[k] is None else str(r[k])
                for k in ("metric", "simulated", "emulated", "ratio")
            )
            + "\n"
            for r in table
        )
        write_text_atomic(d.path / "compare.csv", header + body)
        md = markdown(table, path.name, emu_summary["emulation"])
        write_text_atomic(d.path / "compare.md", md)
        figure(table, d.path / "compare.png", f"{path.name}: emulated / simulated")
        d.commit()
    return table
