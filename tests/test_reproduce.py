"""`routerlab reproduce`: verdicts, statistics, seeding, the experiment files, and the quick
variants of the baseline experiments with the verdicts our runs give."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest

from helpers import interrupt_while_writing, routerlab
from routerlab import experiments
from routerlab.experiments import incast, models, small_packet
from routerlab.experiments.stats import Estimate, mean_ci, percentile_ci
from routerlab.experiments.verdict import ClaimError, build_verdict, judge, write_verdict

META = {"quick": True, "routerlab_version": "test", "git_commit": "abc", "seeds": [1, 2, 3]}


def claim(**kw) -> dict:
    c = {
        "id": "c1",
        "statement": "s",
        "source": "Fig. 1",
        "paper": "≥ 0.8",
        "quantity": "q",
        "criterion": "ci_lo >= 0.8",
    }
    c.update(kw)
    return c


# --- verdicts -------------------------------------------------------------------------------


def test_a_claim_that_meets_its_criterion_holds_and_one_that_misses_differs(tmp_path: Path):
    exp = {"id": "x", "claim": [claim(id="meets", quantity="a"), claim(id="misses", quantity="b")]}
    est = {"a": Estimate(0.9, 0.85, 0.95, 5), "b": Estimate(0.9, 0.75, 1.05, 5)}
    v = build_verdict(exp, est, META)
    assert [(c["id"], c["verdict"]) for c in v["claims"]] == [
        ("meets", "holds"),
        ("misses", "differs"),
    ]
    assert v["claims"][0]["ours"] == 0.9 and v["claims"][0]["ci95"] == [0.85, 0.95]
    assert v["seeds"] == [1, 2, 3] and v["experiment"] == "x"
    write_verdict(tmp_path, v, "a note")
    assert json.loads((tmp_path / "verdict.json").read_text()) == v
    md = (tmp_path / "verdict.md").read_text()
    assert "**holds**" in md and "**differs**" in md and "a note" in md


def test_a_claim_cannot_be_omitted_or_malformed():
    exp = {"id": "x", "claim": [claim(quantity="missing")]}
    with pytest.raises(ClaimError, match="no quantity 'missing'"):
        build_verdict(exp, {"q": Estimate(1.0, 1.0, 1.0, 3)}, META)
    without_criterion = claim()
    del without_criterion["criterion"]
    with pytest.raises(ClaimError, match="lacks"):
        build_verdict({"id": "x", "claim": [without_criterion]}, {"q": Estimate(1, 1, 1, 3)}, META)
    with pytest.raises(ClaimError, match="no claims"):
        build_verdict({"id": "x", "claim": []}, {}, META)
    with pytest.raises(ClaimError, match="does not parse"):
        build_verdict(
            {"id": "x", "claim": [claim(criterion="ci_lo >=")]}, {"q": Estimate(1, 1, 1, 3)}, META
        )


def test_criteria_see_the_interval_and_a_nan_never_holds():
    assert judge("ci_hi <= 0.3 and mean < 0.2", Estimate(0.1, 0.0, 0.3, 4))
    assert not judge("ci_hi <= 0.3", Estimate(0.1, 0.0, 0.31, 4))
    # Without an interval (one seed), the bounds are the mean.
    assert judge("ci_lo >= 0.5", Estimate(0.6, None, None, 1))
    assert not judge("ci_lo >= 0.5 or True", Estimate(math.nan, None, None, 0))


# --- statistics -----------------------------------------------------------------------------


def test_mean_ci_is_student_t():
    e = mean_ci([1, 2, 3, 4, 5])
    # sd = sqrt(2.5), t(0.975, 4) = 2.776445: half-width 2.776445 · 1.581139 / sqrt(5) = 1.963243.
    assert e.mean == 3 and e.n == 5
    assert e.ci_lo == pytest.approx(3 - 1.963243, abs=1e-6)
    assert e.ci_hi == pytest.approx(3 + 1.963243, abs=1e-6)
    # Two values: t(0.975, 1) = 12.7062; NaNs are ignored; one value has no interval.
    e = mean_ci([0.0, 2.0, math.nan])
    assert (e.ci_lo, e.ci_hi) == pytest.approx((1 - 12.7062, 1 + 12.7062), abs=1e-4)
    assert mean_ci([4.0]) == Estimate(4.0, None, None, 1)


def test_percentile_bootstrap_matches_the_order_statistic_theory():
    x = np.arange(1000.0)
    e = percentile_ci(x, 50)
    assert e.mean == pytest.approx(499.5)
    # The median's standard error is sqrt(q(1−q)/n) · n = 15.8 ranks: a 95 % interval of about
    # ±31 ranks.
    assert 40 <= e.ci_hi - e.ci_lo <= 90
    assert e.ci_lo < 499.5 < e.ci_hi
    assert percentile_ci(x, 50) == e, "the bootstrap is seeded"
    e99 = percentile_ci(x, 99)
    assert e99.mean == pytest.approx(989.01) and e99.ci_hi <= 999


def test_models_against_hand_computed_values():
    # Mathis: 1460 · 8 / 0.1 · sqrt(1.5 / 0.01) = 1.4305 Mbps.
    assert models.mathis(0.01, 1460, 0.1) == pytest.approx(1.4305e6, rel=1e-4)
    # PFTK at p = 0.01, b = 1, RTT 0.1, T0 0.2: denominator 0.1·0.08165 + 0.2·0.18371·0.01·1.0032.
    assert models.pftk(0.01, 1460, 0.1, 0.2) == pytest.approx(11680 / 0.0085336, rel=1e-4)
    assert models.pftk(0.001, 1460, 0.1, 0.2) < models.mathis(0.001, 1460, 0.1)


def test_analysis_helpers():
    assert incast.onset({1: 900.0, 2: 880.0, 4: 100.0, 8: 90.0}) == 4
    assert math.isnan(incast.onset({1: 900.0, 8: 800.0}))
    # The index drops below 0.9 between shares 4 (0.95) and 2 (0.75): a quarter of the way in
    # log scale.
    k = small_packet.knee({8.0: 0.99, 4.0: 0.95, 2.0: 0.75})
    assert k == pytest.approx(2 ** (2 - 0.25))
    assert math.isnan(small_packet.knee({8.0: 0.99, 4.0: 0.95}))


# --- experiment files, seeding, output ------------------------------------------------------

TINY = """
id = "{id}"
title = "a tiny incast"
sources = "test"
analysis = "incast"

[constants]
block_bytes = 16384
buffer_pkts = 16
line_rate_bps = 1e9

[grid]
n = [1, 4]
min_rto = ["200ms", "1ms"]

[scenario]
template = '''
[run]
duration = "5s"
[topology]
kind = "star"
senders = $n
access = {{ rate = "1Gbps", delay = "25us" }}
bottleneck = {{ rate = "1Gbps", delay = "25us", queue = {{ kind = "droptail", limit = "16pkts" }} }}
[transport]
min_rto = "$min_rto"
[[workload]]
kind = "incast"
block = "${{block_bytes}}B"
rounds = 3
jitter = "20us"
'''

[[claim]]
id = "fits"
statement = "one sender runs near line rate"
source = "test"
paper = "-"
quantity = "goodput_frac_nmin_200ms"
criterion = "ci_lo >= 0.5"
"""


@pytest.fixture
def exp_dir(tmp_path: Path, monkeypatch) -> Path:
    d = tmp_path / "experiments"
    d.mkdir()
    for name in ("tiny-a", "tiny-b", "matrix"):
        (d / f"{name}.toml").write_text(TINY.format(id=name))
    monkeypatch.setenv("ROUTERLAB_EXPERIMENTS", str(d))
    return d


def test_same_experiment_same_files_and_seeds_follow_the_replicate_count(
    exp_dir: Path, tmp_path: Path
):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    routerlab("reproduce", "tiny-a", "--seeds", "3", "--out", str(a), check=True)
    routerlab("reproduce", "tiny-a", "--seeds", "3", "--out", str(b), "--jobs", "1", check=True)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f"{f} differs between reruns"
    routerlab("reproduce", "tiny-a", "--seeds", "4", "--out", str(c), check=True)
    seeds3 = json.loads((a / "verdict.json").read_text())["seeds"]
    seeds4 = json.loads((c / "verdict.json").read_text())["seeds"]
    assert len(seeds3) == 3 and len(seeds4) == 4 and seeds4[:3] == seeds3
    assert len(set(seeds4)) == 4
    # Another experiment id gets other seeds.
    assert experiments.replicate_seed("tiny-b", 0) not in seeds4
    for expected in ("verdict.md", "goodput.parquet", "goodput.csv", "figures/goodput_vs_n.png"):
        assert (a / expected).is_file(), expected
    assert (a / "figures/goodput_vs_n.svg").read_text().startswith("<?xml")
    assert len(list((a / "scenarios").glob("config*.toml"))) == 4


def test_all_runs_every_experiment_but_the_matrix(exp_dir: Path, tmp_path: Path):
    p = routerlab("reproduce", "--list", check=True)
    assert [line.split()[0] for line in p.stdout.splitlines()] == ["matrix", "tiny-a", "tiny-b"]
    routerlab("reproduce", "all", "--seeds", "2", "--out", str(tmp_path / "all"), check=True)
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == ["tiny-a", "tiny-b"]


def test_refusals_come_before_anything_runs(exp_dir: Path, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep").write_text("earlier result")
    p = routerlab("reproduce", "tiny-a", "--out", str(out))
    assert p.returncode == 2 and "--force" in p.stderr
    assert (out / "keep").read_text() == "earlier result"
    p = routerlab("reproduce", "nope")
    assert p.returncode == 2 and "tiny-a" in p.stderr
    assert routerlab("reproduce", "tiny-a", "--seeds", "1").returncode == 2
    # A template that renders an invalid scenario is refused with the scenario's field path.
    (exp_dir / "tiny-a.toml").write_text(TINY.format(id="tiny-a").replace('"1ms"]', '"-1ms"]'))
    p = routerlab("reproduce", "tiny-a", "--out", str(tmp_path / "new"))
    assert p.returncode == 2 and "transport.min_rto" in p.stderr, p.stderr
    assert not (tmp_path / "new").exists()
    # A claim without a criterion makes the file unusable.
    (exp_dir / "tiny-a.toml").write_text(
        TINY.format(id="tiny-a").replace('criterion = "ci_lo >= 0.5"\n', "")
    )
    p = routerlab("reproduce", "--list")
    assert p.returncode == 2 and "tiny-a.toml" in p.stderr and "criterion" in p.stderr


# --- the baseline experiments, quick -------------------------------------------------------


def quick_verdicts(exp_id: str, tmp_path: Path) -> dict[str, str]:
    out = tmp_path / exp_id
    routerlab("reproduce", exp_id, "--quick", "--out", str(out), check=True)
    v = json.loads((out / "verdict.json").read_text())
    assert v["quick"] is True and len(v["seeds"]) == experiments.QUICK_SEEDS
    ids = [c["id"] for c in experiments.load(exp_id)["claim"]]
    assert [c["id"] for c in v["claims"]] == ids, "every claim of the file is judged"
    assert list((out / "figures").glob("*.png")) and list((out / "figures").glob("*.svg"))
    return {c["id"]: c["verdict"] for c in v["claims"]}


def quick_ours(exp_id: str, tmp_path: Path) -> dict[str, float]:
    """Our numbers of the quick run `quick_verdicts` wrote."""
    v = json.loads((tmp_path / exp_id / "verdict.json").read_text())
    return {c["id"]: c["ours"] for c in v["claims"]}


def quick_table(exp_id: str, table: str, tmp_path: Path, *keys: str) -> dict[tuple, dict]:
    """Rows of a table the quick run `quick_verdicts` wrote, keyed by the given columns."""
    with open(tmp_path / exp_id / f"{table}.csv") as f:
        return {tuple(r[k] for k in keys): r for r in csv.DictReader(f)}


def test_base_incast_collapses_with_200ms_and_far_less_with_1ms(tmp_path: Path):
    assert quick_verdicts("base-incast", tmp_path) == {
        "fits": "holds",
        "collapse": "holds",
        "onset": "holds",
        "short-rto": "holds",
    }


def test_base_small_packet_short_term_fairness_falls_below_three_packets_per_rtt(tmp_path: Path):
    assert quick_verdicts("base-small-packet", tmp_path) == {
        "short-term-high": "holds",
        "short-term-falls": "holds",
        "knee": "holds",
        "silent": "holds",
        "long-term": "holds",
        "utilization": "holds",
    }


def test_base_loss_follows_pftk_and_mathis(tmp_path: Path):
    # `timeouts` differs: at 5 % loss Mathis overestimates us by ≈ 16 %, not the ≥ 20 % the
    # criterion asked for (PFTK itself predicts 20 % there); see experiments/base-loss.toml.
    assert quick_verdicts("base-loss", tmp_path) == {
        "pftk": "holds",
        "mathis": "holds",
        "sqrt-slope": "holds",
        "timeouts": "differs",
    }


def test_an_interrupted_reproduction_leaves_nothing_and_no_worker_tracebacks(tmp_path: Path):
    out = tmp_path / "out"
    # Interrupted 1.5 s after it started writing: the workers are simulating.
    args = ["reproduce", "base-small-packet", "--out", str(out)]
    status, err = interrupt_while_writing(args, tmp_path, 1.5)
    assert status == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert list(tmp_path.iterdir()) == [], "no result and no temporary directory"


def test_cp_incast_cp_beats_tcp_but_header_drops_keep_it_below_line_rate(tmp_path: Path):
    # Our findings (experiments/cp-incast.toml, docs/experiments.md): CP is several times TCP's
    # goodput at large N with no timeouts while N ≤ 13, but its < 1-packet header buffer
    # overflows once many senders are synchronized, so it does not stay near line rate; and
    # with SACK, TCP at N = 12 recovers without timeouts too.
    assert quick_verdicts("cp-incast", tmp_path) == {
        "tcp-collapse": "holds",
        "cp-high": "differs",
        "cp-vs-tcp": "holds",
        "no-rto": "holds",
        "tcp-rto": "differs",
        "cp-dctcp": "holds",
    }
    # The measured 13.1× condition: never exceeded by 12 senders, exceeded by 48, where the
    # header buffer overflows.
    rows = quick_table("cp-incast", "goodput", tmp_path, "scheme", "n")
    for scheme in ("cp", "cp-dctcp"):
        assert float(rows[scheme, "12"]["overload_s_per_run"]) == 0
        assert float(rows[scheme, "48"]["overload_s_per_run"]) > 0
        assert float(rows[scheme, "48"]["header_drops_per_run"]) > 0


def test_cp_reorder_cp_has_no_spurious_retransmissions_under_spraying(tmp_path: Path):
    # TCP on random spraying: nearly every retransmission is spurious; CP: none. The goodput
    # gains hold in the full run (10 seeds: 1.45× TCP on spraying, 1.49× TCP on ECMP); with 3
    # seeds of 200 ms their intervals reach below the 1.2 of the criteria, so here we check
    # that the gains are there (means above 1.2), not the verdicts.
    verdicts = quick_verdicts("cp-reorder", tmp_path)
    assert verdicts["tcp-mistakes-reordering"] == "holds"
    assert verdicts["cp-no-spurious"] == "holds"
    ours = quick_ours("cp-reorder", tmp_path)
    assert ours["cp-spray-goodput"] > 1.2 and ours["packet-level-better"] > 1.2, ours


def test_cp_query_cp_cuts_the_99th_percentile_below_dctcp(tmp_path: Path):
    # Ours (experiments/cp-query.toml, docs/experiments.md): with a connection per query, DCTCP
    # loses the first window and waits for the 10 ms timeout in nearly every query, so its
    # completion times sit together near 13–14 ms — a shifted distribution, not the slides'
    # 12 % of queries beyond 15 ms; CP completes them in ≈ 8.7 ms.
    assert quick_verdicts("cp-query", tmp_path) == {
        "cp-p99-below-dctcp": "holds",
        "dctcp-slow-queries": "differs",
        "cp-no-slow-queries": "holds",
    }


def test_cp_unfairness_cp_removes_timeouts_but_not_the_port_bias(tmp_path: Path):
    # Ours (experiments/cp-unfairness.toml, docs/experiments.md): which input port of the
    # outcast switch is blacked out depends on the arrival phase; CP removes every timeout but
    # the drop-tail port bias stays; at high loss CP leaves fewer flows starved but loses
    # aggregate goodput to cut headers and retransmissions. The quick run's two phases and
    # 1 s do not show the outcast itself (the full run's six phases and 3 s do: 1.3 %), and
    # its fewer starved flows reach the criterion, which the full run's do not (57 %).
    assert quick_verdicts("cp-unfairness", tmp_path) == {
        "tcp-outcast": "differs",
        "cp-no-outcast": "differs",
        "cp-outcast-no-timeouts": "holds",
        "cp-high-loss-throughput": "differs",
        "cp-high-loss-timeouts": "differs",
        "cp-high-loss-starvation": "holds",
    }


def test_plts_throughput_spraying_beats_ecmp_but_reordering_keeps_it_below_the_paper(
    tmp_path: Path,
):
    # Ours (experiments/plts-throughput.toml, docs/experiments.md): with NewReno (dupthresh 3,
    # no SACK) every PLTS policy that reorders loses much of its gain to spurious fast
    # retransmits; PLTS-RR stays well above ECMP and shares more fairly; CNT falls below RND;
    # round robin per flow does not reorder and reaches line rate.
    verdicts = quick_verdicts("plts-throughput", tmp_path)
    assert verdicts["rr-fairer"] == "holds"
    assert verdicts["rnd-below-cnt"] == verdicts["rr-92"] == verdicts["cnt-81"] == "differs"
    rows = quick_table("plts-throughput", "throughput", tmp_path, "scheme", "queue")

    def share(scheme, queue="droptail"):
        return float(rows[scheme, queue]["throughput_of_ideal"])

    assert share("spray-rr") > 1.1 * share("ecmp")  # full run: 1.19×
    assert share("spray-rr-flow") > 0.95 and share("spray-rr-flow", "red-ecn") > 0.95
    assert float(rows["spray-rr-flow", "droptail"]["spurious_per_flow"]) == 0
    assert float(rows["spray-rr", "droptail"]["spurious_per_flow"]) > 100
    # MPTCP (full run: 86 %) well above ECMP and fair; RED/ECN costs it dearly (54 %).
    assert share("mptcp") > 1.15 * share("ecmp")
    assert float(rows["mptcp", "droptail"]["jain"]) > float(rows["ecmp", "droptail"]["jain"]) + 0.05
    assert share("mptcp", "red-ecn") < 0.8 * share("mptcp")


def test_plts_balance_round_robin_evens_the_core_links_into_a_pod(tmp_path: Path):
    # PLTS-RR's queues and utilizations across the 9 core links are far more even than
    # ECMP's, though not within the paper's 500 bytes (a packet or more apart at times).
    verdicts = quick_verdicts("plts-balance", tmp_path)
    assert verdicts["rr-utilization-even"] == "holds"
    assert verdicts["rr-queues-even"] == "differs"
    rows = quick_table("plts-balance", "spread", tmp_path, "scheme")
    rr, ecmp = (float(rows[(s,)]["mean_queue_spread"]) for s in ("spray-rr", "ecmp"))
    assert rr < 0.1 * ecmp, (rr, ecmp)


def test_plts_latency_round_robin_keeps_the_fabric_queues_empty(tmp_path: Path):
    # PLTS-RR's ToR-to-ToR latency is a small fraction of ECMP's (ours: 1/30 at p90, the
    # paper's 1/3); ECMP with RED/ECN has a far lower median than with drop-tail.
    verdicts = quick_verdicts("plts-latency", tmp_path)
    assert verdicts["rr-p90-third"] == verdicts["rr-p99-sixth"] == "holds"
    rows = quick_table("plts-latency", "latency", tmp_path, "scheme")
    p = {s: {q: float(rows[(s,)][f"p{q}_ms"]) for q in (50, 90)} for (s,) in rows}
    assert p["rr-droptail"][90] < 0.1 * p["ecmp-red"][90], p
    assert p["ecmp-red"][50] < 0.5 * p["ecmp-droptail"][50], p


def test_plts_reorder_remedies_cut_spurious_retransmits_but_not_the_throughput_gap(tmp_path: Path):
    # Ours (docs/experiments.md): a higher dupthresh or the percentile agent removes most
    # spurious fast retransmits under PLTS-RR, but the flows' throughput stays where it was —
    # the shared counter's uneven short-term split leaves tens of KB queued on the aggregation
    # → edge links, deep enough reordering for a fast recovery every few RTTs even at
    # dupthresh 10, on RTTs those queues inflate.
    verdicts = quick_verdicts("plts-reorder", tmp_path)
    assert verdicts["dupthresh-fewer-spurious"] == verdicts["agent-fewer-spurious"] == "holds"
    assert verdicts["ecn-agent-beats-ecmp"] == "holds"
    assert verdicts["dupthresh-closes-gap"] == "differs"
    rows = quick_table("plts-reorder", "reorder", tmp_path, "scheme")

    def get(scheme, column="throughput_of_ideal"):
        return float(rows[(scheme,)][column])

    assert get("rr-dupthresh-10", "fast_recoveries_per_flow") < 0.25 * get(
        "rr", "fast_recoveries_per_flow"
    )
    assert abs(get("rr-dupthresh-paths") / get("rr") - 1) < 0.1
    assert get("rr-agent-ecn", "fast_recoveries_per_flow") < 0.1 * get(
        "rr-red", "fast_recoveries_per_flow"
    )


def test_plts_failure_costs_spraying_more_than_ecmp(tmp_path: Path):
    # Ours (docs/experiments.md): with c0 - a1_0 down, round robin per flow loses about a
    # third of its throughput into the affected pod, ECMP a few percent; spraying stays above
    # ECMP overall.
    verdicts = quick_verdicts("plts-failure", tmp_path)
    # (rr-flow-hurt-into-pod holds in the full run; three 1 s runs leave its interval too wide.)
    assert verdicts["ecmp-degrades-less"] == "holds"
    assert verdicts["rr-still-above-ecmp"] == "holds"
    rows = quick_table("plts-failure", "failure", tmp_path, "scheme", "failure", "flows")

    def share(scheme, failure, flows="into_pod"):
        return float(rows[scheme, failure, flows]["throughput_of_ideal"])

    assert share("spray-rr-flow", "core-link") < 0.85 * share("spray-rr-flow", "none")
    assert share("ecmp", "core-link") > 0.85 * share("ecmp", "none")


def test_plts_patterns_spraying_leads_under_every_pattern_and_size(tmp_path: Path):
    # Ours (docs/experiments.md): RR ahead of ECMP on random and stride traffic, and (against
    # our hypothesis) on hot-spot traffic too; small packets multiply RR's spurious
    # retransmissions; jumbo frames help per-flow RR more than shared-counter RR.
    verdicts = quick_verdicts("plts-patterns", tmp_path)
    assert verdicts["rr-beats-ecmp-random"] == verdicts["rr-beats-ecmp-stride"] == "holds"
    assert verdicts["small-packets-reorder-more"] == "holds"
    assert verdicts["hotspot-no-help"] == verdicts["jumbo-helps-rr"] == "differs"
    rows = quick_table("plts-patterns", "patterns", tmp_path, "scheme", "pattern", "size")

    def share(scheme, pattern="random", size="1500B"):
        return float(rows[scheme, pattern, size]["throughput_of_ideal"])

    assert share("spray-rr-flow", size="9000B") > 0.9
    assert share("spray-rr-flow", "hotspot") > 1.2 * share("ecmp", "hotspot")


def test_taq_fairness_lifts_the_small_packet_regime_but_not_a_large_share(tmp_path: Path):
    # Ours (docs/experiments.md): TAQ's 20 s Jain index is far above drop-tail's once the fair
    # share is a few packets per RTT or less, with the link full; at 100 Kbps per flow, outside
    # the regime, it is a little below (flows pushed around the fair share). SFQ is not like
    # drop-tail here, against the paper: it is nearly as fair as TAQ.
    verdicts = quick_verdicts("taq-fairness", tmp_path)
    assert verdicts["taq-above-0.8"] == verdicts["taq-full-link"] == "holds"
    assert verdicts["taq-fairer-everywhere"] == verdicts["sfq-red-like-droptail"] == "differs"
    rows = quick_table("taq-fairness", "fairness", tmp_path, "queue", "n")

    def jain(queue, n):
        return float(rows[queue, str(n)]["jain20"])

    assert jain("taq", 100) > jain("droptail", 100) + 0.15
    assert jain("taq", 40) > jain("droptail", 40) + 0.1
    assert jain("taq", 10) < jain("droptail", 10)
    assert jain("sfq", 100) > jain("droptail", 100) + 0.15


def test_taq_model_tips_more_sharply_in_simulation_than_in_the_model(tmp_path: Path):
    # Ours (docs/experiments.md): the model's timeout share rises fast beyond p = 0.1, and the
    # simulated share of silent epochs rises faster still: they meet near p = 0.18 and part.
    verdicts = quick_verdicts("taq-model", tmp_path)
    assert verdicts == {"timeouts-take-over": "holds", "model-matches-simulation": "differs"}
    rows = quick_table("taq-model", "model", tmp_path, "n")

    def col(n, name):
        return float(rows[(str(n),)][name])

    assert col(50, "loss_rate") < col(120, "loss_rate") < col(200, "loss_rate")
    sim_rise = col(200, "sent0_simulated") - col(50, "sent0_simulated")
    model_rise = col(200, "sent0_model") - col(50, "sent0_model")
    assert sim_rise > 2 * model_rise > 0


def test_taq_short_flows_download_in_time_linear_in_their_length(tmp_path: Path):
    # Ours (docs/experiments.md; full run: every claim holds): under drop-tail short flows'
    # times are set by SYN and first-window timeouts; TAQ's NewFlow class makes them short and
    # a line in the flow's length. Three 400 s runs leave two of the intervals too wide.
    verdicts = quick_verdicts("taq-short", tmp_path)
    assert verdicts["taq-faster-short"] == "holds"
    rows = quick_table("taq-short", "short", tmp_path, "queue")

    def get(queue, column):
        return float(rows[(queue,)][column])

    assert get("taq", "median_short_s") < 0.2 * get("droptail", "median_short_s")
    assert get("taq", "r2_medians") > get("droptail", "r2_medians") + 0.4
    assert get("taq", "p90_over_p50_short") < get("droptail", "p90_over_p50_short")
    assert get("taq", "transfers") > 2 * get("droptail", "transfers")


def test_taq_hangs_drop_tail_hangs_every_user_and_taq_caps_the_long_hangs(tmp_path: Path):
    # Ours (docs/experiments.md): with 200 users of 4 connections on 1 Mbps, every drop-tail
    # user hangs for more than 20 s; TAQ does not prevent 20 s hangs but makes minute-long
    # ones rare.
    verdicts = quick_verdicts("taq-hangs", tmp_path)
    assert verdicts["dt-200-all-hang"] == "holds"
    rows = quick_table("taq-hangs", "hangs", tmp_path, "queue", "users")

    def share(queue, users, over):
        return float(rows[queue, str(users)][f"share_hang_over_{over}s"])

    assert share("taq", 200, 60) < 0.25 * share("droptail", 200, 60)
    assert share("taq", 400, 60) < share("droptail", 400, 60)
    assert float(rows["taq", "200"]["median_longest_hang_s"]) < float(
        rows["droptail", "200"]["median_longest_hang_s"]
    )


def test_taq_evolution_taq_smooths_flows_but_cannot_end_stalls_below_a_packet_per_rtt(
    tmp_path: Path,
):
    # Ours (docs/experiments.md): with 180 flows on 600 Kbps each flow's share is a third of a
    # packet per RTT, so most flow-epochs are silent under any queue; TAQ's evolution is far
    # smoother than drop-tail's and, at 60 flows, it roughly halves the stalled epochs.
    verdicts = quick_verdicts("taq-evolution", tmp_path)
    assert verdicts["taq-few-stalled"] == "differs"
    rows = quick_table("taq-evolution", "evolution", tmp_path, "queue", "n")

    def get(queue, n, col):
        return float(rows[queue, str(n)][col])

    assert get("taq", 180, "stalled") > 0.5
    assert get("taq", 60, "stalled") < get("droptail", 60, "stalled") - 0.1
    assert get("red", 60, "stalled") > get("taq", 60, "stalled") + 0.1
    for n in (60, 180):
        assert get("taq", n, "maintained_cv") < 0.6 * get("droptail", n, "maintained_cv")


def test_taq_admission_cuts_the_worst_small_downloads_and_slows_large_ones(tmp_path: Path):
    # Ours (docs/experiments.md): with the paper's few-second T_wait, TAQ with admission
    # control cuts the worst small-object download several-fold but slows large objects;
    # a 30 s T_wait makes small objects faster at the median and large ones in the worst case.
    quick_verdicts("taq-admission", tmp_path)
    rows = quick_table("taq-admission", "downloads", tmp_path, "queue", "objects")

    def ratio(queue, objects, what):
        return float(rows[queue, objects][f"droptail_over_{what}"])

    assert ratio("taq-ac", "small", "worst") > 2
    assert ratio("taq-ac", "large", "median") < 0.85
    assert ratio("taq-ac-30s", "small", "median") > 1.5
    assert ratio("taq-ac-30s", "large", "worst") > ratio("taq-ac", "large", "worst") + 0.5


def test_sp_mss_super_packets_gain_but_less_than_jumbo_frames(tmp_path: Path):
    # Ours (docs/experiments.md): the super-packet flow gains throughput, several-fold with
    # equal RTTs (phase-locked flows) and about 2× with mixed RTTs, always less than the
    # jumbo-frame flow (about half its gain with equal RTTs, a quarter with mixed ones).
    quick_verdicts("sp-mss", tmp_path)
    rows = quick_table("sp-mss", "throughput", tmp_path, "flow0", "rtts")

    def gain(arm, rtts):
        return float(rows[arm, rtts]["gain"])

    assert gain("sp", "mixed") > 1.5
    assert gain("sp", "equal") > 2
    for rtts in ("equal", "mixed"):
        assert gain("jumbo", rtts) > 5
        assert gain("sp", rtts) < gain("jumbo", rtts)
    assert float(rows["sp", "mixed"]["sp_partially_dropped"]) == 0, "no admitted SP lost a packet"


def test_sp_incast_super_packets_lengthen_the_mean_fct(tmp_path: Path):
    # Ours (docs/experiments.md): with Algorithm 1 the 50 simultaneous flows finish later on
    # average than with plain drop-tail, for 10- and 100-packet flows alike (whole windows are
    # refused, and regular packets — SYNs included — need 16 free slots); the Bloom variant
    # decides exactly as Algorithm 1 for these honest senders.
    verdicts = quick_verdicts("sp-incast", tmp_path)
    assert verdicts["mean-fct-10"] == verdicts["mean-fct-100"] == "differs"
    rows = quick_table("sp-incast", "fct", tmp_path, "router", "packets")
    for n in ("10", "100"):
        assert float(rows["sp", n]["regular_over_mean"]) < 0.9
        assert rows["bloom", n]["mean_fct_s"] == rows["sp", n]["mean_fct_s"]


def test_sp_short_long_protects_short_flows_at_no_cost_to_long_ones(tmp_path: Path):
    # The paper's claims hold (docs/experiments.md): SPs on the short flows only cut their mean
    # FCT several-fold, more than SPs on every flow, and the long flows lose under 1 %.
    verdicts = quick_verdicts("sp-short-long", tmp_path)
    assert verdicts["long-loss-under-1pct"] == "holds"
    rows = quick_table("sp-short-long", "short_long", tmp_path, "sp")

    def mean(arm):
        return float(rows[arm,]["short_mean_fct_s"])

    assert mean("regular") > 2 * mean("sp-short")
    assert mean("sp-all") > mean("sp-short")
    for arm in ("sp-all", "sp-short"):
        assert abs(float(rows[arm,]["long_loss"])) < 0.01


def test_sp_dos_first_packets_shut_the_router_and_a_host_cap_bounds_it(tmp_path: Path):
    # Beyond the paper (docs/experiments.md): 1 % of the link in bogus first packets starves
    # the victims under Algorithm 1; a per-host cap of one maximal SP keeps > 90 % of their
    # goodput.
    assert quick_verdicts("sp-dos", tmp_path) == {
        "first-packets-deny-service": "holds",
        "host-cap-bounds-it": "holds",
    }
    ours = quick_ours("sp-dos", tmp_path)
    assert ours["first-packets-deny-service"] < 0.05


def test_ka_encoding_codes_round_trip_and_fragmenting_costs_20_in_1500(tmp_path: Path):
    # Ours (docs/experiments.md): every level and indicator round-trips; the paper's function
    # and bounds give 183 levels, not its 187; one flow fragmented throughout pays 1.3 %.
    assert quick_verdicts("ka-encoding", tmp_path) == {
        "levels-round-trip": "holds",
        "level-count": "differs",
        "indicators-round-trip": "holds",
        "fragmentation-overhead": "holds",
    }
    assert quick_ours("ka-encoding", tmp_path)["level-count"] == 183


def test_ka_light_is_one_rtt_behind_rcp_and_ahead_of_tcp(tmp_path: Path):
    # Ours (docs/experiments.md): Kick-Ass's mean FCT is RCP's plus about one RTT; both beat
    # TCP (initial window 10), by 1.5× and 2.4×, short of the paper's order of magnitude.
    verdicts = quick_verdicts("ka-light", tmp_path)
    assert verdicts["ka-one-rtt-behind-rcp"] == "holds"
    rows = quick_table("ka-light", "fct", tmp_path, "scheme", "packets")
    tcp, rcp, ka = (float(rows[s, "all"]["mean_fct_s"]) for s in ("tcp", "rcp", "ka"))
    assert rcp < ka < tcp
    assert 0.05 < ka - rcp < 0.15
    assert tcp / ka > 1.3 and tcp / rcp > 2


def test_ka_mixed_light_leaves_tcp_unchanged(tmp_path: Path):
    # The paper's first claim holds; Kick-Ass's gain over TCP is 1.5×, not 10×.
    verdicts = quick_verdicts("ka-mixed-light", tmp_path)
    assert verdicts["tcp-unchanged"] == "holds"
    ours = quick_ours("ka-mixed-light", tmp_path)
    assert ours["ka-much-faster"] > 1.3


def test_ka_dynamics_track_the_fair_share_with_a_small_queue(tmp_path: Path):
    # Ours (docs/experiments.md): both track C/N with a small queue at full utilization; RCP
    # settles over about ten RTTs (its α = 0.1), not one.
    verdicts = quick_verdicts("ka-dynamics", tmp_path)
    for claim in ("rcp-fair-share", "ka-fair-share", "full-utilization", "small-queue"):
        assert verdicts[claim] == "holds", claim
    assert verdicts["rcp-settles-fast"] == "differs"
    assert quick_ours("ka-dynamics", tmp_path)["rcp-settles-fast"] > 5


def test_ka_vs_endpoint_keeps_the_queue_empty_where_cubic_fills_it(tmp_path: Path):
    # Ours (docs/experiments.md): under heavy load Kick-Ass's median queueing delay is under a
    # millisecond while CUBIC on drop-tail sees over a second at its 99th percentile; under
    # light load Kick-Ass's mean FCT is about 1.5× shorter than CUBIC's, with or without FQ-CoDel.
    verdicts = quick_verdicts("ka-vs-endpoint", tmp_path)
    assert verdicts["heavy-ka-queue-near-zero"] == verdicts["heavy-cubic-queue-over-1s"] == "holds"
    ours = quick_ours("ka-vs-endpoint", tmp_path)
    assert ours["light-fct-vs-cubic"] > 1.3 and ours["light-fq-codel-no-help"] > 1.3


def test_ka_legacy_bottleneck_sends_flows_to_tcp_mode_while_tcp_congests(tmp_path: Path):
    verdicts = quick_verdicts("ka-legacy-bottleneck", tmp_path)
    assert verdicts["ka-falls-back"] == "holds"
    ours = quick_ours("ka-legacy-bottleneck", tmp_path)
    assert ours["ka-falls-back"] < 0.2
    assert ours["ka-returns"] > 0.5


def test_ka_mixed_heavy_router_is_silent_while_tcp_is_present(tmp_path: Path):
    verdicts = quick_verdicts("ka-mixed-heavy", tmp_path)
    assert verdicts["router-tcp-mode-with-tcp"] == "holds"
    assert verdicts["ka-fair-share-alone"] == "holds"
    ours = quick_ours("ka-mixed-heavy", tmp_path)
    assert ours["router-back-without-tcp"] > 0.5
