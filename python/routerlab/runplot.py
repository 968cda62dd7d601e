"""One run at a glance: what a researcher looks at first, from what the run recorded.

Six panels: per-flow goodput, congestion windows and smoothed RTTs over time, queue lengths
over time, the CDF of completion times, and the summary. A panel whose data the run did not
record says which `[output]` setting records it. `routerlab plot DIR` writes the figure into
DIR/figures (run.png, run.svg); `Result.plot()` returns it (a notebook shows it).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from . import display  # noqa: E402
from .experiments.plots import STYLE  # noqa: E402
from .output import AtomicDir  # noqa: E402

#: Flows drawn as lines in the time series (the first ones by id); more would be a smear.
MAX_LINES = 20

#: Lines beyond this many get no legend (it would hide the plot).
LEGEND_MAX = 8

#: Up to this many flows, goodput is a bar per flow; beyond, the flows sorted by goodput.
MAX_BARS = 64

#: Characters per line of the summary panel.
SUMMARY_WIDTH = 48

#: The tables a run directory may hold that the figure reads.
TABLES = ("flows", "transfers", "timeseries", "queues")


class RunPlotError(Exception):
    """A directory that is not a run's result."""


def load_tables(directory: Path) -> tuple[dict, dict[str, pd.DataFrame]]:
    """A run directory's summary and its tables (an absent optional table is empty)."""
    directory = Path(directory)
    if not (directory / "summary.json").is_file() or not (directory / "flows.parquet").is_file():
        raise RunPlotError(
            f"{directory} is not a run's result directory (no summary.json and flows.parquet; "
            "routerlab run writes one)"
        )
    summary = json.loads((directory / "summary.json").read_text())
    tables = {}
    for name in TABLES:
        path = directory / f"{name}.parquet"
        tables[name] = pd.read_parquet(path) if path.is_file() else pd.DataFrame()
    return summary, tables


def overview(summary: dict, tables: dict[str, pd.DataFrame], title: str):
    """The six-panel figure (a matplotlib Figure; the caller closes or shows it)."""
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(2, 3, figsize=(15, 8))
        a = axes.flatten()
        _goodput(a[0], tables["flows"])
        _series(a[1], tables["timeseries"], "cwnd_bytes", 1e-3, "congestion window (KB)")
        _series(a[2], tables["timeseries"], "srtt_s", 1e3, "smoothed RTT (ms)")
        _queues(a[3], tables["queues"])
        _fct_cdf(a[4], tables["transfers"])
        _summary(a[5], summary)
        fig.suptitle(title, fontsize=11)
        fig.tight_layout()
    return fig


def plot_dir(directory: Path) -> list[Path]:
    """Write DIR/figures/run.png and run.svg (the figures directory replaced atomically)."""
    directory = Path(directory)
    summary, tables = load_tables(directory)
    fig = overview(summary, tables, f"{directory.name} (seed {summary.get('seed')})")
    with AtomicDir(directory / "figures", force=True) as d, plt.rc_context(STYLE):
        fig.savefig(d.path / "run.png", metadata={"Software": None})
        fig.savefig(d.path / "run.svg", metadata={"Date": None, "Creator": None})  # ids salted
        d.commit()
    plt.close(fig)
    return [directory / "figures" / "run.png", directory / "figures" / "run.svg"]


def _not_recorded(ax, what: str, setting: str) -> None:
    _empty(ax, what, f"not recorded:\nset {setting}")


def _empty(ax, title: str, text: str) -> None:
    ax.set_title(title, fontsize=10)
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10)
    ax.set_axis_off()


def _goodput(ax, flows: pd.DataFrame) -> None:
    ax.set_title("goodput per flow", fontsize=10)
    if flows.empty:
        ax.text(0.5, 0.5, "no flows", ha="center", va="center")
        return
    mbps = flows["goodput_bps"] / 1e6
    if len(flows) <= MAX_BARS:
        ax.bar(flows["flow_id"], mbps, width=0.8)
        ax.set_xlabel("flow")
    else:
        ax.plot(range(len(mbps)), sorted(mbps), drawstyle="steps-post")
        ax.set_xlabel(f"flows, sorted by goodput ({len(flows)})")
    ax.set_ylabel("goodput (Mbps)")


def _series(ax, ts: pd.DataFrame, column: str, scale: float, label: str) -> None:
    if ts.empty:
        _not_recorded(ax, label, '[output] timeseries = "10ms"')
        return
    ids = sorted(ts["flow_id"].unique())
    shown = ids[:MAX_LINES]
    for fid in shown:
        f = ts[ts["flow_id"] == fid]
        ax.plot(f["t_s"], f[column] * scale, linewidth=0.8)
    more = f" (first {len(shown)} of {len(ids)} flows)" if len(ids) > len(shown) else ""
    ax.set_title(f"{label.split(' (')[0]} over time{more}", fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(label)


def _queues(ax, queues: pd.DataFrame) -> None:
    if queues.empty:
        _not_recorded(ax, "queue length", '[output] queues = "1ms"')
        return
    peaks = queues.groupby("link")["queue_packets"].max()
    busiest = sorted(peaks[peaks > 0].index, key=lambda link: (-int(peaks[link]), link))
    shown = sorted(busiest[:MAX_LINES])
    for link in shown:
        q = queues[queues["link"] == link]
        ax.plot(q["t_s"], q["queue_packets"], linewidth=0.8, label=link)
    more = (
        f", {len(shown)} of {len(peaks)} links (those that queued)"
        if len(peaks) > len(shown)
        else ""
    )
    ax.set_title(f"queue length over time{more}", fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    if 0 < len(shown) <= LEGEND_MAX:
        ax.legend(fontsize=7)
    elif not shown:
        ax.text(0.5, 0.5, "every queue stayed empty", ha="center", va="center")


def _fct_cdf(ax, transfers: pd.DataFrame) -> None:
    done = transfers.dropna(subset=["end_s"]) if not transfers.empty else transfers
    if done.empty:
        _empty(
            ax,
            "completion times",
            "no transfer completed: bulk flows never do;\n"
            "flows of a size, incast, web and on-off workloads do",
        )
        return
    fct = sorted((done["end_s"] - done["start_s"]) * 1e3)
    n = len(fct)
    ax.plot(fct, [(i + 1) / n for i in range(n)], drawstyle="steps-post")
    ax.set_title(f"completion times ({n} of {len(transfers)} transfers completed)", fontsize=10)
    ax.set_xlabel("completion time (ms)")
    ax.set_ylabel("fraction of transfers")
    if fct[0] > 0 and fct[-1] / fct[0] > 100:
        ax.set_xscale("log")
        ax.set_xlabel("completion time (ms, log scale)")


def _summary(ax, summary: dict) -> None:
    ax.set_axis_off()
    ax.set_title("summary", fontsize=10)
    lines = []
    for k, v in display.run_rows(summary):
        lines += textwrap.wrap(f"{k}: {v}", SUMMARY_WIDTH, subsequent_indent="  ")
    ax.text(0.0, 1.0, "\n".join(lines), ha="left", va="top", fontsize=9, family="monospace")
