"""Figures for reproductions: matplotlib without a display, written as PNG and SVG with no
timestamps or random ids, so a rerun writes byte-identical files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: SVG element ids are hashed with this salt instead of a random one.
SVG_HASH_SALT = "routerlab"

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 100,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.hashsalt": SVG_HASH_SALT,
    # Text stays text in SVG (searchable, editable), not outlines.
    "svg.fonttype": "none",
}


def figure(
    draw: Callable, name: str, title: str, ncols: int = 1, sharey: bool = True
) -> Callable[[Path], list[str]]:
    """A figure writer for `Analysis.figures`: draws on one axes (or, with `ncols` > 1, on a
    row of axes, sharing their y axis unless told not to, passed as a list), saves NAME.png
    and NAME.svg."""

    def write(directory: Path) -> list[str]:
        with plt.rc_context(STYLE):
            if ncols == 1:
                fig, ax = plt.subplots()
                draw(ax)
                ax.set_title(title, fontsize=10)
            else:
                width, height = STYLE["figure.figsize"]
                size = (width * ncols / 2, height)
                fig, axes = plt.subplots(1, ncols, sharey=sharey, figsize=size)
                draw(list(axes))
                fig.suptitle(title, fontsize=10)
            for ax in fig.axes:
                say_log_scales(ax)
            if any(getattr(ax, ERRORBARS, False) for ax in fig.axes):
                fig.text(0.99, 0.005, CI_NOTE, ha="right", va="bottom", fontsize=7, color="0.35")
                fig.tight_layout(rect=(0, 0.03, 1, 1))
            else:
                fig.tight_layout()
            return save(fig, directory, name)

    return write


def save(fig, directory: Path, name: str) -> list[str]:
    """Write NAME.png and NAME.svg without timestamps (a rerun writes the same bytes), close
    the figure, and return the file names."""
    fig.savefig(directory / f"{name}.png", metadata={"Software": None})
    fig.savefig(directory / f"{name}.svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return [f"{name}.png", f"{name}.svg"]


#: Said under every figure with error bars.
CI_NOTE = "error bars: 95 % confidence intervals of the mean"

#: Set on an axes that `errorbar` drew on.
ERRORBARS = "_routerlab_errorbars"


def say_log_scales(ax: plt.Axes) -> None:
    """Append "(log scale)" to the label of each axis drawn on one, unless it says so."""
    for axis, label, setter in (
        (ax.xaxis, ax.get_xlabel(), ax.set_xlabel),
        (ax.yaxis, ax.get_ylabel(), ax.set_ylabel),
    ):
        scale = axis.get_scale()
        if scale in ("log", "symlog") and label and "log" not in label:
            setter(f"{label} ({'log' if scale == 'log' else 'symmetric log'} scale)")


def yerr(estimates) -> list[list[float]]:
    """Matplotlib's `yerr` for means with 95 % intervals: distances below and above (none
    where an estimate has no interval)."""
    lo = [e.mean - (e.ci_lo if e.ci_lo is not None else e.mean) for e in estimates]
    hi = [(e.ci_hi if e.ci_hi is not None else e.mean) - e.mean for e in estimates]
    return [lo, hi]


def errorbar(ax: plt.Axes, x, estimates, label: str, **kw) -> None:
    """Means with their 95 % intervals as error bars (the figure says so underneath)."""
    setattr(ax, ERRORBARS, True)
    y = [e.mean for e in estimates]
    ax.errorbar(x, y, yerr=yerr(estimates), label=label, capsize=3, marker="o", markersize=4, **kw)
