"""A campaign's figures: a result against an axis, one line per value of the other axes, each
point the mean over replicates with its 95 % interval.

The sweep's ``[[plot]]`` entries say which; without any, every headline result (goodput, Jain
index, drops, timeouts) is drawn against the first axis. Written as PNG and SVG into
``DIR/figures`` (replaced as a whole, atomically).
"""

from __future__ import annotations

import re
import sys

from ..experiments.plots import errorbar, figure
from ..experiments.stats import mean_ci
from ..output import AtomicDir
from ..quantities import quantity

#: Results drawn when the sweep names none.
DEFAULT_METRICS = ("goodput_bps", "jain_index", "drops", "timeouts")


def plot_specs(manifest: dict, columns: set[str]) -> list[dict]:
    """The sweep's plots, or the default ones; ``hue`` may be a list of axes."""
    plots = manifest["sweep"]["plots"]
    if plots:
        return plots
    axes = [a["name"] for a in manifest["sweep"]["axes"]]
    x = axes[0] if axes else "config"
    return [{"x": x, "y": m, "hue": axes[1:]} for m in DEFAULT_METRICS if m in columns]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _numeric(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def draw(campaign) -> list[str]:
    """Draw every plot of the campaign; returns the files written (relative to its dir)."""
    rows = campaign.arrow_table().to_pylist()
    if not rows:
        return []
    order = {a["name"]: a["values"] for a in campaign.manifest["sweep"]["axes"]}
    order["config"] = sorted({r["config"] for r in rows})
    writers = []
    for i, spec in enumerate(plot_specs(campaign.manifest, set(rows[0]))):
        if spec["y"] not in rows[0]:
            print(f"routerlab: plot {i}: no result column {spec['y']!r}; skipped", file=sys.stderr)
            continue
        writers.append(_writer(spec, rows, order))
    files = []
    with AtomicDir(campaign.root / "figures", force=True) as d:
        for w in writers:
            files += [f"figures/{f}" for f in w(d.path)]
        d.commit()
    return files


def _writer(spec: dict, rows: list[dict], order: dict):
    x, y = spec["x"], spec["y"]
    qy = quantity(y)
    hue = spec.get("hue") or []
    hue = [hue] if isinstance(hue, str) else list(hue)
    series: dict[str, dict] = {}
    for r in rows:
        if r[y] is None:  # e.g. no Jain's index in a run without flows
            continue
        name = ", ".join(f"{h}={r[h]}" for h in hue)
        series.setdefault(name, {}).setdefault(r[x], []).append(r[y] * qy.scale)
    xs = [v for v in order[x] if any(v in s for s in series.values())]
    numeric = _numeric(xs)

    def plot(ax) -> None:
        for name, points in series.items():
            present = [v for v in xs if v in points]
            positions = present if numeric else [xs.index(v) for v in present]
            errorbar(ax, positions, [mean_ci(points[v]) for v in present], label=name or None)
        if not numeric:
            ax.set_xticks(range(len(xs)), [str(v) for v in xs], rotation=20 if len(xs) > 4 else 0)
        ax.set_xlabel(x)
        ax.set_ylabel(qy.title())
        if spec.get("log_y"):
            ax.set_yscale("log")
        if hue:
            ax.legend(fontsize=8)

    name = _slug(f"{y}-vs-{x}" + (f"-by-{'-'.join(hue)}" if hue else ""))
    title = spec.get("title") or f"{qy.label} against {x}: mean over replicates"
    return figure(plot, name, title)
