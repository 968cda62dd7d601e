"""Statistics for verdicts: means with Student-t confidence intervals, bootstrap intervals for
percentiles. Everything is deterministic (the bootstrap uses a fixed generator seed), so a rerun
writes the same verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Seed of the bootstrap's generator: fixed, so intervals are reproducible.
BOOTSTRAP_SEED = 20140402
#: Bootstrap resamples.
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A mean (or percentile) with its 95 % confidence interval and sample size."""

    mean: float
    ci_lo: float | None
    ci_hi: float | None
    n: int

    def scaled(self, k: float) -> Estimate:
        """The same estimate in another unit."""
        lo = None if self.ci_lo is None else self.ci_lo * k
        hi = None if self.ci_hi is None else self.ci_hi * k
        return Estimate(self.mean * k, lo, hi, self.n)

    def columns(self, name: str, scale: float = 1.0) -> dict:
        """Table columns `name`, `name_ci95_lo`, `name_ci95_hi` (the interval's ends may be
        None), in the unit `scale` converts to."""
        e = self.scaled(scale)
        return {name: e.mean, f"{name}_ci95_lo": e.ci_lo, f"{name}_ci95_hi": e.ci_hi}

    def append_to(self, rows: dict, name: str, scale: float = 1.0) -> None:
        """Append the estimate's columns (see `columns`) to a column table (a dict of lists)."""
        for column, value in self.columns(name, scale).items():
            rows[column].append(value)

    def as_dict(self) -> dict:
        return {
            "mean": self.mean,
            "ci95": None if self.ci_lo is None else [self.ci_lo, self.ci_hi],
            "n": self.n,
        }


def add_row(
    rows: dict, keys: dict, est: Estimate, name: str, scale: float = 1.0, extra: dict | None = None
) -> None:
    """Append one row to a column table (a dict of lists): the `keys`, the estimate's columns
    (see `Estimate.columns`), the `extra` columns, and its sample size as `seeds`."""
    for column, value in {**keys, **est.columns(name, scale), **(extra or {})}.items():
        rows[column].append(value)
    rows["seeds"].append(est.n)


def queue_delay_samples(table) -> list[tuple[float, float, int]]:
    """A `queue_delay` table's histogram pooled over the ports it measured, bucket by bucket:
    (lower, upper, count), ascending."""
    if table is None or table.num_rows == 0:
        return []
    pooled: dict[tuple[float, float], int] = {}
    d = table.to_pydict()
    for lo, hi, n in zip(d["lower_s"], d["upper_s"], d["count"], strict=True):
        pooled[(lo, hi)] = pooled.get((lo, hi), 0) + n
    return [(lo, hi, n) for (lo, hi), n in sorted(pooled.items())]


def mean_ci(values, level: float = 0.95) -> Estimate:
    """Sample mean with a Student-t interval (none for fewer than 2 values or zero spread)."""
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    n = len(x)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    m = float(x.mean())
    if n < 2:
        return Estimate(m, None, None, n)
    sd = float(x.std(ddof=1))
    # Imported here, not at the top: scipy.special costs every `routerlab` command ~0.1 s of
    # start-up, and only verdicts and sweep tables need it (scipy.stats would cost seconds).
    from scipy.special import stdtrit  # Student t quantile

    half = float(stdtrit(n - 1, 0.5 + level / 2)) * sd / math.sqrt(n)
    return Estimate(m, m - half, m + half, n)


def percentile_ci(values, q: float, level: float = 0.95) -> Estimate:
    """The q-th percentile (0–100) with a percentile-bootstrap interval."""
    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    n = len(x)
    if n == 0:
        return Estimate(float("nan"), None, None, 0)
    point = float(np.percentile(x, q))
    if n < 2:
        return Estimate(point, None, None, n)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    idx = rng.integers(0, n, size=(BOOTSTRAP_RESAMPLES, n))
    boots = np.percentile(x[idx], q, axis=1)
    lo, hi = np.percentile(boots, [50 * (1 - level), 50 * (1 + level)])
    return Estimate(point, float(lo), float(hi), n)


def pooled_percentile_ratio_ci(a_runs, b_runs, q: float, level: float = 0.95) -> Estimate:
    """The q-th percentile of the pooled samples of `a_runs` over that of `b_runs` (each a list
    of per-run sample arrays), with a cluster-bootstrap interval: whole runs are resampled,
    because samples taken within one run are correlated (one ECMP path, one queue)."""
    a = [np.asarray(x, dtype=float) for x in a_runs if len(x)]
    b = [np.asarray(x, dtype=float) for x in b_runs if len(x)]
    if not a or not b:
        return Estimate(float("nan"), None, None, 0)
    point = float(np.percentile(np.concatenate(a), q) / np.percentile(np.concatenate(b), q))
    n = min(len(a), len(b))
    if n < 2:
        return Estimate(point, None, None, n)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    boots = np.empty(BOOTSTRAP_RESAMPLES)
    for i in range(BOOTSTRAP_RESAMPLES):
        pa_ = np.concatenate([a[j] for j in rng.integers(0, len(a), len(a))])
        pb_ = np.concatenate([b[j] for j in rng.integers(0, len(b), len(b))])
        boots[i] = np.percentile(pa_, q) / np.percentile(pb_, q)
    lo, hi = np.percentile(boots, [50 * (1 - level), 50 * (1 + level)])
    return Estimate(point, float(lo), float(hi), n)
