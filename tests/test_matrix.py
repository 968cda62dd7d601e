"""The mechanism matrix (`routerlab reproduce matrix`, docs/matrix.md): every cell is a number
from a completed run or "n/a" with a reason, the metrics compute what they name, and the
directions that theory and the mechanisms' papers agree on hold. No test reads today's numbers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import ROOT, routerlab
from routerlab import reproduction
from routerlab.experiments import matrix

SEEDS = 2


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("matrix") / "out"
    routerlab(
        "reproduce", "matrix", "--quick", "--seeds", str(SEEDS), "--out", str(out), check=True
    )
    return out


@pytest.fixture(scope="module")
def cells(quick: Path) -> dict[tuple[str, str, str], dict]:
    rows = pq.read_table(quick / "matrix.parquet").to_pylist()
    keyed = {(r["workload"], r["scheme"], r["metric"]): r for r in rows}
    assert len(keyed) == len(rows), "one row per cell"
    return keyed


def test_every_cell_is_a_number_from_a_completed_run_or_na_with_a_reason(quick, cells):
    exp = reproduction.load("matrix")
    configs = reproduction.full_grid(exp, quick=True)
    names = [m.name for m in matrix.METRICS]
    assert set(cells) == {(p["workload"], p["scheme"], m) for p in configs for m in names}
    ran = reproduction.grid(exp, quick=True)
    assert len(list((quick / "scenarios").glob("config*.toml"))) == len(ran)
    ran_keys = {(p["workload"], p["scheme"]) for p in ran}
    for p in configs:
        reason = reproduction.na_reason(exp, p)
        for m in names:
            c = cells[(p["workload"], p["scheme"], m)]
            if c["na_reason"] is not None:
                assert c["na_reason"].strip() and c["mean"] is None and c["seeds"] == 0, c
                if reason is not None:
                    assert c["na_reason"] == reason
            else:
                assert (p["workload"], p["scheme"]) in ran_keys, c
                assert math.isfinite(c["mean"]) and 1 <= c["seeds"] <= SEEDS, c
                if c["seeds"] == SEEDS:
                    assert c["ci95_lo"] <= c["mean"] <= c["ci95_hi"], c
    # Whatever a run's workload, it has goodput, drops and timeouts.
    for w, s in ran_keys:
        for m in ("goodput_mbps", "drops", "timeouts_per_flow"):
            assert cells[(w, s, m)]["na_reason"] is None, (w, s, m)
    # An n/a configuration is one a `[[na]]` entry names, for a reason.
    assert any(reproduction.na_reason(exp, p) for p in configs)


def test_the_matrix_is_written_as_tables_and_a_heat_map_per_metric(quick, cells):
    verdict = json.loads((quick / "verdict.json").read_text())
    assert verdict["claims"] == [], "the matrix makes no paper's claims"
    md = (quick / "verdict.md").read_text()
    for m in matrix.METRICS:
        assert f"`{m.name}`" in md
        for ext in ("png", "svg"):
            assert (quick / "figures" / f"heatmap_{m.name}.{ext}").is_file()
    for (w, s, m), c in cells.items():
        if s == matrix.BASELINE and c["na_reason"] is None:
            assert c["vs_droptail"] == 1.0, (w, m)
    assert (quick / "matrix.csv").is_file()


def test_ecmp_is_drop_tails_own_forwarding(cells):
    """The `ecmp` scheme is drop-tail's scenario under another name: the same seeds give the
    same numbers, cell for cell."""
    for (w, s, m), c in cells.items():
        if s == "ecmp" and c["na_reason"] is None:
            assert c["mean"] == cells[(w, matrix.BASELINE, m)]["mean"], (w, m)


def test_spraying_spreads_a_permutation_better_than_hashing(cells):
    """Per-packet spraying uses every equal-cost path where ECMP hashes flows onto colliding
    ones (the PLTS paper's premise): more goodput on the fat-tree permutation."""
    sprayed = cells[("fat-tree", "plts-rr", "goodput_mbps")]["mean"]
    assert sprayed > cells[("fat-tree", "ecmp", "goodput_mbps")]["mean"]


def test_dctcp_keeps_the_queue_shorter_than_drop_tail(cells):
    """DCTCP's senders back off from marks at K, far below the buffer drop-tail fills: its
    median queueing delay is lower where long flows keep the queue busy."""
    for w in ("short-long", "partial"):
        dctcp = cells[(w, "dctcp", "qdelay_p50_ms")]["mean"]
        assert dctcp < cells[(w, matrix.BASELINE, "qdelay_p50_ms")]["mean"], w


def test_quick_constants_shrink_only_the_quick_runs():
    exp = reproduction.load("matrix")
    p = {"workload": "incast", "scheme": "droptail"}
    full, small = reproduction.render(exp, p), reproduction.render(exp, p, quick=True)
    assert f"rounds = {exp['constants']['incast_rounds']}\n" in full
    assert f"rounds = {exp['quick']['constants']['incast_rounds']}\n" in small


def test_na_entries_need_a_reason_and_grid_keys(tmp_path: Path, monkeypatch):
    text = (ROOT / "experiments" / "matrix.toml").read_text()
    d = tmp_path / "experiments"
    d.mkdir()
    monkeypatch.setenv("ROUTERLAB_EXPERIMENTS", str(d))
    reason = 'reason = "needs equal-cost paths: every flow of this workload has one path"'
    for broken, complaint in (
        (text.replace(reason, ""), "a reason is required"),
        (text.replace(reason, reason + '\nqueue = "red"'), "names no grid key"),
    ):
        (d / "matrix.toml").write_text(broken)
        with pytest.raises(reproduction.ExperimentError, match=complaint):
            reproduction.load("matrix")


def test_queueing_delay_percentiles_interpolate_within_buckets():
    buckets = [(0.0, 1.0, 50), (1.0, 2.0, 50)]
    assert matrix.histogram_percentile(buckets, 50) == pytest.approx(1.0)
    assert matrix.histogram_percentile(buckets, 99) == pytest.approx(1.98)
    delays = pa.table(
        {
            "link": ["a->b", "c->d", "c->d"],
            "lower_s": [0.0, 0.0, 1.0],
            "upper_s": [1.0, 1.0, 2.0],
            "count": pa.array([20, 30, 50], type=pa.uint64()),
        }
    )
    assert matrix.queue_delay_samples(delays) == buckets, "ports pooled bucket by bucket"


def test_completion_times_by_size_class_count_finished_transfers_only():
    t = pa.table(
        {
            "size_bytes": [50_000, 60_000, 500_000, 2_000_000],
            "start_s": [0.0, 1.0, 0.0, 0.0],
            "end_s": [0.010, 1.030, 0.100, None],
        }
    )
    fct = matrix.completion_times(t)
    assert fct["fct_mean_short_ms"] == pytest.approx(20.0)
    assert fct["fct_mean_medium_ms"] == pytest.approx(100.0)
    assert fct["fct_mean_long_ms"] is None and fct["fct_p99_long_ms"] is None
    assert 20.0 < fct["fct_p99_short_ms"] <= 30.0


def test_ratios_to_drop_tail_of_zero_baselines():
    assert matrix.ratio(0.0, 0.0) == 1.0
    assert matrix.ratio(2.0, 0.0) == math.inf
    assert matrix.ratio(3.0, 2.0) == 1.5
    assert matrix.ratio(None, 2.0) is None


def test_the_html_report_has_a_matrix_section(quick):
    from routerlab.report import write_report

    page = write_report(quick).read_text()
    assert "<h2>Matrix</h2>" in page and "<h2>Verdicts</h2>" not in page
    assert "goodput_mbps" in page and "heatmap_goodput_mbps" in page


def test_the_matrix_runs_on_a_dask_cluster_with_the_same_numbers(quick, tmp_path: Path):
    out = tmp_path / "dask"
    routerlab(
        "reproduce", "matrix", "--quick", "--seeds", str(SEEDS), "--backend", "dask",
        "--jobs", "2", "--out", str(out), check=True,
    )  # fmt: skip
    assert (out / "matrix.csv").read_bytes() == (quick / "matrix.csv").read_bytes()
