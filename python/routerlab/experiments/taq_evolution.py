"""Analysis of taq-evolution: each flow's epoch-to-epoch transitions, from the tracker's
`flow_epochs` table, put in the four categories of the paper's Fig. 9 — maintained (sending in
both epochs), dropped (sending, then silent), arriving (silent, then sending), stalled (silent
in both) — and their shares of all flow-epochs after the warm-up."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa

from ..reproduction import Analysis, Run
from .plots import figure
from .stats import mean_ci

CATEGORIES = ("maintained", "dropped", "arriving", "stalled")
SILENT = ("timeout_silence", "extended_silence")
#: Width of the time bins of the evolution figure, seconds.
BIN_S = 5.0


def categorized(run: Run, warmup_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(epoch end times, category index, epochs) of the run's transitions after the warm-up,
    idle epochs left out."""
    t = run.tables["flow_epochs"]
    end = np.asarray(t.column("end_s"))
    frm = np.asarray(t.column("from_state").to_pylist())
    to = np.asarray(t.column("to_state").to_pylist())
    epochs = np.asarray(t.column("epochs"))
    keep = (end > warmup_s) & (frm != "idle") & (to != "idle")
    was_silent = np.isin(frm[keep], SILENT)
    is_silent = np.isin(to[keep], SILENT)
    # maintained 0, dropped 1, arriving 2, stalled 3
    cat = was_silent * 2 + is_silent
    return end[keep], cat, epochs[keep]


def shares(cat: np.ndarray, epochs: np.ndarray) -> np.ndarray:
    """Share of flow-epochs in each category."""
    total = np.bincount(cat, weights=epochs, minlength=len(CATEGORIES))
    return total / max(total.sum(), 1)


def binned(end, cat, epochs, start: float) -> tuple[np.ndarray, np.ndarray]:
    """(bin starts, category shares per bin) over the whole BIN_S bins after `start`."""
    bins = np.arange(start, start + BIN_S * np.floor((end.max() - start) / BIN_S), BIN_S)
    index = np.digitize(end, bins) - 1
    keep = (index >= 0) & (end < bins[-1] + BIN_S)
    counts = np.zeros((len(CATEGORIES), len(bins)))
    np.add.at(counts, (cat[keep], index[keep]), epochs[keep])
    return bins, counts / np.maximum(counts.sum(axis=0), 1)


def analyze(exp: dict, runs: list[Run], quick: bool) -> Analysis:  # noqa: ARG001
    warmup = float(exp["constants"]["warmup_s"])
    # share[(queue, n)][seed] = array of category shares; the first seed's runs for the figure;
    # cv[(queue, n)][seed]: how much the maintained share varies from bin to bin
    share: dict[tuple, dict[int, np.ndarray]] = defaultdict(dict)
    cv: dict[tuple, dict[int, float]] = defaultdict(dict)
    timeline: dict[tuple, tuple] = {}
    for r in runs:
        key = r.params["queue"], r.params["n"]
        end, cat, epochs = categorized(r, warmup)
        share[key][r.seed] = shares(cat, epochs)
        maintained = binned(end, cat, epochs, warmup)[1][0]
        cv[key][r.seed] = float(maintained.std() / max(maintained.mean(), 1e-9))
        if key not in timeline or r.seed < timeline[key][0]:
            timeline[key] = (r.seed, end, cat, epochs)
    seeds = sorted(next(iter(share.values())))

    def at(q, n, c):
        return [share[q, n][s][CATEGORIES.index(c)] for s in seeds]

    def diff(c, taq="taq"):
        pairs = zip(at(taq, 180, c), at("droptail", 180, c), strict=True)
        return mean_ci(a - b for a, b in pairs)

    quantities = {
        "stalled_share_taq_180": mean_ci(at("taq", 180, "stalled")),
        "stalled_taq_minus_droptail_180": diff("stalled"),
        "maintained_taq_minus_droptail_180": diff("maintained"),
        **(
            {
                "maintained_taq_own_readings_minus_droptail_180": diff(
                    "maintained", "taq-own-readings"
                )
            }
            if ("taq-own-readings", 180) in share
            else {}
        ),
        "maintained_cv_taq_minus_droptail_180": mean_ci(
            cv["taq", 180][s] - cv["droptail", 180][s] for s in seeds
        ),
    }

    rows = defaultdict(list)
    for q, n in sorted(share):
        rows["queue"].append(q)
        rows["n"].append(n)
        for c in CATEGORIES:
            mean_ci(at(q, n, c)).append_to(rows, c)
        mean_ci(cv[q, n][s] for s in seeds).append_to(rows, "maintained_cv")
        rows["seeds"].append(len(seeds))

    queues = [q for q in ("droptail", "sfq", "red", "taq") if (q, 180) in timeline]

    def draw(axes):
        for ax, q in zip(axes, queues, strict=True):
            bins, frac = binned(*timeline[q, 180][1:], warmup)
            ax.stackplot(bins, frac, labels=CATEGORIES, step="post")
            ax.set_title(q, fontsize=9)
            ax.set_xlabel("time (s)")
        axes[0].set_ylabel("share of flow-epochs")
        axes[-1].legend(fontsize="small", loc="lower right")

    return Analysis(
        quantities=quantities,
        tables={"evolution": pa.table(dict(rows))},
        figures=[
            figure(
                draw,
                "evolution_180",
                f"{exp['id']}: 180 flows on 600 Kbps, one seed",
                ncols=len(queues),
            )
        ],
    )
