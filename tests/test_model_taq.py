"""The TAQ paper's idealized Markov model (routerlab.model.taq) and `routerlab model taq`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from routerlab.model import taq

PS = [0.0, 0.01, 0.05, 0.1, 0.2, 0.3, 0.45, 0.499]


@pytest.mark.parametrize("w_max", [4, 6, 10])
def test_every_row_of_the_transition_matrix_sums_to_one(w_max: int):
    for p in PS:
        P = taq.transition_matrix(p, w_max)
        assert P.shape == (w_max + 2, w_max + 2)
        assert (P >= 0).all()
        np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


def test_transitions_follow_the_papers_equations():
    p = 0.1
    P = taq.transition_matrix(p)
    i = {name: k for k, name in enumerate(taq.states())}
    assert P[i["S3"], i["S4"]] == pytest.approx((1 - p) ** 3)  # eq. 1
    assert P[i["S5"], i["S2"]] == pytest.approx(5 * p * (1 - p) ** 5)  # eq. 2
    assert P[i["S6"], i["S3"]] == pytest.approx(6 * p * (1 - p) ** 6)
    assert P[i["S4"], i["b0"]] == pytest.approx(1 - (1 - p) ** 4 - 4 * p * (1 - p) ** 4)  # eq. 3
    assert P[i["S3"], i["b*"]] == pytest.approx(1 - (1 - p) ** 3)  # no fast retransmit below 4
    assert P[i["b*"], i["b*"]] == pytest.approx(2 * p)  # eq. 10
    assert P[i["S1"], i["S2"]] == pytest.approx(1 - p)
    assert P[i["b0"], i["S1"]] == 1.0


@pytest.mark.parametrize("p", [0.05, 0.15, 0.3])
def test_the_stationary_distribution_matches_a_monte_carlo_run_of_the_chain(p: float):
    P = taq.transition_matrix(p)
    rng = np.random.default_rng(20110606)
    steps = 400_000
    cumulative = P.cumsum(axis=1)
    u = rng.random(steps)
    state, visits = 5, np.zeros(len(P))
    for x in u:
        state = int(np.searchsorted(cumulative[state], x, side="right"))
        state = min(state, len(P) - 1)
        visits[state] += 1
    np.testing.assert_allclose(visits / steps, taq.stationary(p), atol=0.006)


@pytest.mark.parametrize("p", [0.0, 0.1, 0.25, 0.4])
def test_the_expected_idle_time_is_the_papers_series(p: float):
    # Eq. 8: Σ_k (2^k − 1) p^(k−1) (1 − p) = 1/(1 − 2p), the mean of the chain's geometric stay
    # in b* (stay with 2p).
    series = sum((2**k - 1) * p ** (k - 1) * (1 - p) for k in range(1, 400))
    assert taq.expected_idle_epochs(p) == pytest.approx(series, rel=1e-9)
    stay = taq.transition_matrix(p)[-1, -1]
    assert taq.expected_idle_epochs(p) == pytest.approx(1 / (1 - stay))


def test_timeouts_take_over_as_loss_grows():
    # The paper's takeaway (§3.2): beyond p ≈ 0.1 the timeout states dominate.
    shares = [taq.summary(p)["timeout_share"] for p in np.linspace(0, 0.45, 46)]
    assert all(b > a for a, b in zip(shares, shares[1:], strict=False))
    assert taq.summary(0.0)["timeout_share"] == 0.0
    assert taq.summary(0.05)["timeout_share"] < 0.2 < 0.5 < taq.summary(0.2)["timeout_share"]


@pytest.mark.parametrize("bad", [-0.1, 0.5, 0.7, float("nan")])
def test_p_outside_the_models_domain_is_rejected(bad: float):
    with pytest.raises(taq.ModelError, match="outside"):
        taq.stationary(bad)


def routerlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "routerlab", *args], capture_output=True, text=True, check=False
    )


def test_cli_prints_the_distribution_and_writes_tables_and_a_figure(tmp_path: Path):
    out = tmp_path / "taq"
    r = routerlab("model", "taq", "--p", "0.1", "0.3", "--out", str(out))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "b*" in lines[1]
    row = lines[2].split()
    assert float(row[0]) == 0.1
    np.testing.assert_allclose([float(x) for x in row[1:9]], taq.stationary(0.1), atol=1e-3)
    for name in ("stationary.csv", "summary.parquet", "taq-model.png", "taq-model.svg"):
        assert (out / name).stat().st_size > 0


def test_cli_rejects_p_at_one_half():
    r = routerlab("model", "taq", "--p", "0.5")
    assert r.returncode == 2
    assert "p = 0.5 is outside [0, 0.5)" in r.stderr
