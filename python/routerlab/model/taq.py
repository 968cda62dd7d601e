"""The TAQ paper's idealized Markov model of TCP in small packet regimes (§3.1, Fig. 4: the
partial model), solved for its stationary distribution given the loss probability p.

One step of the chain is one epoch (an RTT). States, for a largest window W_max (6 in the
paper): S_n, a window of n segments (n = 2 … W_max); S_1, the retransmission after a
timeout; b_0, the empty epoch of a simple timeout (T_0 = 2 RTT: b_0 then S_1); b*, the
aggregated wait of repeated timeouts. Every packet is lost independently with probability p.

- S_n → S_{n+1} with (1 − p)^n, eq. (1) (S_Wmax stays at W_max: the window is capped);
- S_n → S_{⌊n/2⌋} with n·p·(1 − p)^(n−1)·(1 − p), eq. (2), for n ≥ 4: exactly one loss,
  recovered by fast retransmit (three duplicate ACKs need at least four segments in flight),
  and the retransmission not lost;
- S_n → timeout with the rest, eq. (3): to b_0 from n ≥ 4 (a simple timeout: the backoff was
  reset by new data ACKed since the last one), to b* from n = 2, 3 (the timer may still be
  backed off);
- b_0 → S_1 with 1;
- b* → b* with 2p, b* → S_1 with 1 − 2p, eqs. (9)–(10): the expected wait in b* is
  1/(1 − 2p) epochs, eq. (8);
- S_1 → S_2 with 1 − p, S_1 → b* with p.

The model is defined for 0 ≤ p < 1/2 (at 1/2 the expected wait diverges). The expanded model
of Fig. 5, whose derivation the paper omits, is not built.
"""

from __future__ import annotations

import numpy as np

#: The paper's largest window (§3.1, "W_max = 6").
W_MAX = 6
#: Fast retransmit needs this many segments in a window (three duplicate ACKs plus the lost one).
MIN_FAST_RETRANSMIT_WINDOW = 4


class ModelError(ValueError):
    """A parameter outside the model's domain."""


def check_p(p: float) -> None:
    if not (0.0 <= p < 0.5):
        raise ModelError(f"p = {p} is outside [0, 0.5), where the model is defined")


def states(w_max: int = W_MAX) -> list[str]:
    """State names in matrix order: S1 … S{w_max}, b0, b*."""
    return [f"S{n}" for n in range(1, w_max + 1)] + ["b0", "b*"]


def transition_matrix(p: float, w_max: int = W_MAX) -> np.ndarray:
    """The one-epoch transition matrix P (rows: from, columns: to) in `states` order."""
    check_p(p)
    if w_max < MIN_FAST_RETRANSMIT_WINDOW:
        raise ModelError(f"w_max = {w_max}: the model needs at least {MIN_FAST_RETRANSMIT_WINDOW}")
    n_states = w_max + 2
    b0, bstar = w_max, w_max + 1

    def s(n: int) -> int:  # the index of S_n
        return n - 1

    P = np.zeros((n_states, n_states))
    P[s(1), s(2)] = 1 - p
    P[s(1), bstar] = p
    for n in range(2, w_max + 1):
        grow = (1 - p) ** n
        P[s(n), s(min(n + 1, w_max))] += grow
        fast = n * p * (1 - p) ** (n - 1) * (1 - p) if n >= MIN_FAST_RETRANSMIT_WINDOW else 0.0
        P[s(n), s(n // 2)] += fast
        P[s(n), b0 if n >= MIN_FAST_RETRANSMIT_WINDOW else bstar] += 1 - grow - fast
    P[b0, s(1)] = 1.0
    P[bstar, bstar] = 2 * p
    P[bstar, s(1)] = 1 - 2 * p
    return P


def stationary(p: float, w_max: int = W_MAX) -> np.ndarray:
    """The stationary distribution π (π P = π, Σ π = 1). At p = 0 every flow ends in S_Wmax."""
    P = transition_matrix(p, w_max)
    n = len(P)
    # π (P − I) = 0 with one equation replaced by the normalization.
    A = (P - np.eye(n)).T
    A[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi = np.linalg.solve(A, rhs)
    return np.clip(pi, 0.0, None) / np.clip(pi, 0.0, None).sum()


def expected_idle_epochs(p: float) -> float:
    """Expected epochs in b* before the retransmission, eq. (8): 1/(1 − 2p)."""
    check_p(p)
    return 1.0 / (1.0 - 2.0 * p)


def summary(p: float, w_max: int = W_MAX) -> dict[str, float]:
    """The shares the paper plots (Fig. 6): '0 sent' (b0 and b*), '1 sent' (S1), '2 sent' (S2);
    the time in timeout states (b0, b*, S1) and the mean window outside them."""
    pi = stationary(p, w_max)
    names = states(w_max)
    at = dict(zip(names, pi, strict=True))
    windows = [(n, at[f"S{n}"]) for n in range(2, w_max + 1)]
    in_windows = sum(x for _, x in windows)
    return {
        "p": p,
        "sent_0": float(at["b0"] + at["b*"]),
        "sent_1": float(at["S1"]),
        "sent_2": float(at["S2"]),
        "timeout_share": float(at["b0"] + at["b*"] + at["S1"]),
        "mean_window": float(sum(n * x for n, x in windows) / in_windows) if in_windows else 0.0,
        "expected_idle_epochs": expected_idle_epochs(p),
    }


def sweep(ps, w_max: int = W_MAX) -> dict[str, list[float]]:
    """`summary` over a list of p, as columns."""
    rows = [summary(p, w_max) for p in ps]
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def draw(ax_dist, ax_share, ps, w_max: int = W_MAX) -> None:
    """The stationary distribution at each of `ps` (bars per state) and the share of time in
    timeout states with the expected idle time against p (the paper's takeaway: timeouts take
    over beyond p ≈ 0.1)."""
    names = states(w_max)
    width = 0.8 / len(ps)
    x = np.arange(len(names))
    for i, p in enumerate(ps):
        ax_dist.bar(x + i * width, stationary(p, w_max), width, label=f"p = {p:g}")
    ax_dist.set_xticks(x + width * (len(ps) - 1) / 2, names)
    ax_dist.set_ylabel("stationary probability")
    ax_dist.legend(fontsize="small")
    grid = np.linspace(0.0, 0.45, 91)
    ax_share.plot(grid, [summary(p, w_max)["timeout_share"] for p in grid], label="in b0, b*, S1")
    ax_share.plot(grid, [summary(p, w_max)["sent_0"] for p in grid], label="silent (b0, b*)")
    ax_share.set_xlabel("loss probability p")
    ax_share.set_ylabel("share of epochs")
    ax_share.set_ylim(0, 1)
    idle = ax_share.twinx()
    idle.plot(grid, [expected_idle_epochs(p) for p in grid], color="grey", linestyle="--")
    idle.set_ylabel("expected idle epochs in b*, 1/(1 − 2p)", color="grey")
    ax_share.legend(fontsize="small", loc="upper left")


def write(directory, ps, w_max: int = W_MAX) -> None:
    """stationary.csv (a row per p), summary.csv (a row per p of `summary`) and the figure
    taq-model.png / .svg into `directory`."""
    from pathlib import Path

    import pyarrow as pa

    from ..experiments.plots import figure
    from ..output import write_table

    directory = Path(directory)
    names = states(w_max)
    dist = {"p": [float(p) for p in ps]}
    for i, name in enumerate(names):
        dist[name] = [float(stationary(p, w_max)[i]) for p in ps]
    write_table(directory, "stationary", pa.table(dist))
    write_table(directory, "summary", pa.table(sweep(ps, w_max)))
    figure(
        lambda axes: draw(axes[0], axes[1], ps, w_max),
        "taq-model",
        f"TAQ idealized model, W_max = {w_max}",
        ncols=2,
        sharey=False,
    )(directory)
