"""`routerlab reproduce`: verdicts, statistics, seeding, the experiment files, and the quick
variant of every experiment.

The experiments' tests follow the reproduction contract (docs/reproduce.md): they check that
each experiment runs and writes a well-formed verdict for every claim, and then only what must
be true of a correct implementation — a mechanism's defining behaviour, an invariant, or the
direction of an effect that theory and the paper agree on. None reads a verdict ("holds",
"differs") or pins today's number: a fix that makes a paper's claim hold must never fail them."""

from __future__ import annotations

import csv
import itertools
import json
import math
import os
import re
import shutil
from html import escape
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from browser import chromium, load
from helpers import ROOT, interrupt_while_writing, routerlab
from routerlab import reproduction
from routerlab.experiments import incast, models, small_packet, taq_epochs
from routerlab.experiments.stats import Estimate, mean_ci, percentile_ci
from routerlab.report import write_report
from routerlab.reproduction.verdict import (
    ClaimError,
    build_verdict,
    judge,
    ours_text,
    paper_text,
    verdict_of,
    write_verdict,
)

META = {"quick": True, "routerlab_version": "test", "git_commit": "abc", "seeds": [1, 2, 3]}


def claim(**kw) -> dict:
    c = {
        "id": "c1",
        "statement": "s",
        "source": "Fig. 1",
        "paper": "≥ 0.8",
        "quantity": "q",
        "criterion": "ci_lo >= 0.8",
        "tolerance": "one-sided at 0.8",
        "unit": "of the line rate",
    }
    c.update(kw)
    return c


# --- verdicts -------------------------------------------------------------------------------


def test_a_claim_that_meets_its_criterion_holds_and_one_that_misses_differs(tmp_path: Path):
    exp = {"id": "x", "claim": [claim(id="meets", quantity="a"), claim(id="misses", quantity="b")]}
    est = {"a": Estimate(0.9, 0.85, 0.95, 5), "b": Estimate(0.9, 0.75, 1.05, 5)}
    v = build_verdict(exp, est, {**META, "quick": False})
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
    for key in ("criterion", "tolerance", "unit"):
        without = claim()
        del without[key]
        with pytest.raises(ClaimError, match=f"lacks.*{key}"):
            build_verdict({"id": "x", "claim": [without]}, {"q": Estimate(1, 1, 1, 3)}, META)
    with pytest.raises(ClaimError, match="no claims"):
        build_verdict({"id": "x", "claim": []}, {}, META)
    with pytest.raises(ClaimError, match="does not parse"):
        build_verdict(
            {"id": "x", "claim": [claim(criterion="ci_lo >=")]}, {"q": Estimate(1, 1, 1, 3)}, META
        )


def test_the_verdict_prints_the_papers_number_and_ours_in_the_claims_unit(tmp_path: Path):
    exp = {
        "id": "x",
        "claim": [
            claim(id="one", paper="≈ 900 Mbps", paper_value=0.9),
            claim(id="range", paper="800–900 Mbps", paper_value=[0.8, 0.9]),
            claim(id="words", paper="near line rate"),
        ],
    }
    v = build_verdict(exp, {"q": Estimate(0.84, 0.83, 0.85, 5)}, META)
    assert [c["paper_value"] for c in v["claims"]] == [0.9, [0.8, 0.9], None]
    write_verdict(tmp_path, v)
    md = (tmp_path / "verdict.md").read_text()
    assert "≈ 900 Mbps — 0.9 of the line rate" in md
    assert "800–900 Mbps — 0.8–0.9 of the line rate" in md
    assert "| near line rate |" in md
    assert md.count("0.84 [0.83, 0.85] of the line rate") == 3
    for bad in ("0.9", [0.9, 0.8], [1], True, float("nan")):
        with pytest.raises(ClaimError, match="paper_value"):
            build_verdict(
                {"id": "x", "claim": [claim(paper_value=bad)]}, {"q": Estimate(1, 1, 1, 3)}, META
            )


def test_a_quick_run_does_not_judge_a_claim_its_interval_cannot_resolve():
    est = {"q": Estimate(0.82, 0.75, 0.9, 3)}  # 0.8 lies inside the interval
    exp = {"id": "x", "claim": [claim(criterion="ci_lo >= 0.8")]}
    assert build_verdict(exp, est, META)["claims"][0]["verdict"] == "not judged (quick)"
    full = {**META, "quick": False}
    assert build_verdict(exp, est, full)["claims"][0]["verdict"] == "differs"
    # An interval wholly on one side is judged, quick or not.
    for e, expected in (
        (Estimate(0.9, 0.85, 0.95, 3), "holds"),
        (Estimate(0.5, 0.4, 0.6, 3), "differs"),
    ):
        assert build_verdict(exp, {"q": e}, META)["claims"][0]["verdict"] == expected


def test_a_claim_not_to_be_judged_quick_is_judged_only_in_a_full_run():
    est = {"q": Estimate(0.9, 0.85, 0.95, 3)}  # wholly above 0.8: a quick run would judge it
    exp = {"id": "x", "claim": [claim(criterion="ci_lo >= 0.8", judge_quick=False)]}
    assert build_verdict(exp, est, META)["claims"][0]["verdict"] == "not judged (quick)"
    # A full run judges it exactly as it judges any claim: the flag only concerns quick runs.
    full = build_verdict(exp, est, {**META, "quick": False})["claims"][0]["verdict"]
    assert full == verdict_of("ci_lo >= 0.8", est["q"], quick=False)
    with pytest.raises(ClaimError, match="judge_quick"):
        build_verdict({"id": "x", "claim": [claim(judge_quick="no")]}, est, META)


def test_a_differing_claim_carries_its_explanation_and_what_shows_it(tmp_path: Path):
    exp = {
        "id": "x",
        "grid": {"scheme": ["tcp", "cp", "cp-no-sender"]},
        "claim": [
            claim(id="shown", explanation="the sender's buffering", shown_by="cp-no-sender"),
            claim(id="unverified", explanation="a guess"),
            claim(id="bare", tolerance="±10 % of the paper's 0.85"),
            claim(id="holds", explanation="not needed", criterion="ci_lo >= 0"),
        ],
    }
    v = build_verdict(exp, {"q": Estimate(0.5, 0.4, 0.6, 3)}, META)
    by_id = {c["id"]: c for c in v["claims"]}
    assert by_id["shown"]["explanation_status"] == "shown"
    assert by_id["shown"]["shown_by"] == "cp-no-sender"
    assert by_id["unverified"]["explanation_status"] == "unverified"
    assert by_id["bare"]["explanation_status"] == "unexplained"
    assert by_id["bare"]["tolerance"] == "±10 % of the paper's 0.85"
    assert by_id["holds"]["explanation_status"] is None
    write_verdict(tmp_path, v)
    md = (tmp_path / "verdict.md").read_text()
    assert "the sender's buffering (shown by: `cp-no-sender`)" in md
    assert "a guess (unverified" in md and "*bare* — not yet explained" in md
    # shown_by must name an arm of the experiment, and come with an explanation.
    for bad, message in (
        (claim(explanation="e", shown_by="nope"), "no arm"),
        (claim(shown_by="cp"), "without an explanation"),
    ):
        with pytest.raises(ClaimError, match=message):
            build_verdict({**exp, "claim": [bad]}, {"q": Estimate(1, 1, 1, 3)}, META)


LAYOUT = """JSON.stringify({
  right: document.querySelector("table.verdicts").getBoundingClientRect().right,
  view: window.innerWidth,
  scroll: document.documentElement.scrollWidth,
  items: document.querySelectorAll(".notes li").length,
  code: document.querySelectorAll(".notes code").length,
  raw: document.querySelector(".notes").textContent.includes("**"),
})"""


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (Debian: chromium)")
def test_the_reproduction_report_reads_at_1400_pixels_without_scrolling(tmp_path: Path):
    """Long statements, criteria and numbers wrap inside the page; the notes are HTML."""
    long = "a claim stated at length, " * 12
    exp = {
        "id": "x",
        "claim": [
            claim(
                id=f"claim-{i}",
                statement=long,
                paper="≈ 900 Mbps at N = 1, " * 4,
                criterion="ci_lo * 65536 > 64 * 1500 and ci_hi <= 16 and mean >= 0.000001",
                why="the reasoning, " * 10,
                tolerance="`±10 %` of the **paper's** number",
                explanation="the cause, with `code`",
            )
            for i in range(6)
        ],
    }
    v = build_verdict(exp, {"q": Estimate(123456.789, 0.1234, 987654.3, 3)}, META)
    v["notes"] = "Notes with **bold**, `code` and a list:\n\n- one\n- two"
    write_verdict(tmp_path, v, v["notes"])
    html = (write_report(tmp_path)).read_text()
    assert escape(paper_text(v["claims"][0])) in html and escape(ours_text(v["claims"][0])) in html
    page = load(write_report(tmp_path), width=1400, height=900, evaluate=LAYOUT)
    assert page.errors == []
    lay = page.value
    assert lay["right"] <= lay["view"] and lay["scroll"] <= lay["view"], lay
    assert lay["items"] >= 12 and lay["code"] >= 6 and not lay["raw"], lay


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


def test_an_epochs_length_is_the_time_since_the_flows_previous_epoch_ended():
    # Flow 1: epochs end at 1, 2 and (a row for two silent epochs) 4 s; flow 2 at 10 and 10.5 s.
    # Rows come unsorted, as no table promises an order.
    epochs = pa.table(
        {
            "flow_id": pa.array([2, 1, 1, 2, 1], pa.uint32()),
            "end_s": [10.5, 4.0, 1.0, 10.0, 2.0],
            "epochs": pa.array([1, 2, 1, 1, 1], pa.uint32()),
        }
    )
    run = reproduction.Run(config=0, params={}, seed=0, summary={}, tables={"flow_epochs": epochs})
    length, times = taq_epochs.epoch_lengths(run, warmup_s=0.0)
    assert sorted(zip(length.tolist(), times.tolist(), strict=True)) == [
        (0.5, 1),
        (1.0, 1),
        (1.0, 2),
    ]
    assert taq_epochs.median_epoch(run, warmup_s=0.0) == 1.0
    # The warm-up leaves out the epochs that ended in it.
    assert sorted(taq_epochs.epoch_lengths(run, warmup_s=3.0)[0].tolist()) == [0.5, 1.0]


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
tolerance = "one-sided"
unit = "of the line rate"
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
    assert reproduction.replicate_seed("tiny-b", 0) not in seeds4
    for expected in ("verdict.md", "goodput.parquet", "goodput.csv", "figures/goodput_vs_n.png"):
        assert (a / expected).is_file(), expected
    assert (a / "figures/goodput_vs_n.svg").read_text().startswith("<?xml")
    assert len(list((a / "scenarios").glob("config*.toml"))) == 4


def test_all_runs_every_experiment_but_the_matrix(exp_dir: Path, tmp_path: Path):
    p = routerlab("reproduce", "--list", check=True)
    assert [line.split()[0] for line in p.stdout.splitlines()] == ["matrix", "tiny-a", "tiny-b"]
    routerlab("reproduce", "all", "--seeds", "2", "--out", str(tmp_path / "all"), check=True)
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "experiments.md",
        "tiny-a",
        "tiny-b",
    ]


def test_the_results_document_is_generated_from_the_verdicts(exp_dir: Path, tmp_path: Path):
    """`reproduce all` writes the results document: each experiment's prose from its file,
    its claims from its verdict, stamped with the commit; `reproduce document` rewrites it."""
    (exp_dir / "tiny-a.toml").write_text(
        TINY.format(id="tiny-a")
        + "\n[doc]\nsummary = 'The setup of tiny-a.'\ndiscussion = 'What tiny-a found.'\n"
        + 'discussion_as_of = "0000000"\n'
    )
    out = tmp_path / "all"
    routerlab("reproduce", "all", "--seeds", "2", "--out", str(out), check=True)
    doc = (out / "experiments.md").read_text()
    v = json.loads((out / "tiny-a" / "verdict.json").read_text())
    assert f"commit {v['git_commit'][:7]}" in doc and "do not edit" in doc
    assert "### `tiny-a`" in doc and "### `tiny-b`" in doc and "matrix" not in doc
    assert "The setup of tiny-a." in doc and "What tiny-a found." in doc
    assert "written against the run at commit 0000000" in doc
    for c in v["claims"]:
        assert f"**{c['id']}**" in doc and c["criterion"] in doc
        assert ours_text(c) in doc, "ours, in the claim's unit"
    to = tmp_path / "docs" / "experiments.md"
    to.parent.mkdir()
    routerlab("reproduce", "document", "--out", str(out), "--to", str(to), check=True)
    assert to.read_text().split("\n")[5:] == doc.split("\n")[5:]  # the same, but the date
    p = routerlab("reproduce", "document", "--out", str(tmp_path / "none"))
    assert p.returncode == 2 and "no verdict.json" in p.stderr


def test_the_document_names_a_dirty_builds_commit_as_dirty():
    from routerlab.reproduction.document import short_commit

    assert short_commit("0123456789abcdef") == "0123456"
    assert short_commit("0123456789abcdef-dirty") == "0123456-dirty"


def test_the_document_takes_explanations_from_the_experiment_file_and_numbers_from_the_run():
    from routerlab.reproduction.document import with_current_prose
    from routerlab.reproduction.verdict import DIFFERS

    run = {"claims": [{"id": "a", "verdict": DIFFERS, "ours": 3.0, "explanation": None}]}
    run["claims"][0]["explanation_status"] = "unexplained"
    exp = {"claim": [{"id": "a", "explanation": "why", "shown_by": "arm"}]}
    (c,) = with_current_prose(run, exp)["claims"]
    assert (c["explanation"], c["shown_by"], c["explanation_status"]) == ("why", "arm", "shown")
    assert (c["verdict"], c["ours"]) == (run["claims"][0]["verdict"], 3.0), "the run's, untouched"
    (c,) = with_current_prose(run, {"claim": [{"id": "a", "explanation": "why"}]})["claims"]
    assert c["explanation_status"] == "unverified"
    assert run["claims"][0]["explanation"] is None, "the verdict read is not changed"


def test_a_rerun_replaces_the_results_in_the_default_directory(exp_dir: Path, tmp_path: Path):
    routerlab("reproduce", "tiny-a", "--seeds", "2", check=True, cwd=tmp_path)
    default = tmp_path / "results" / "reproduce" / "tiny-a"
    (default / "marker").write_text("earlier result")
    routerlab("reproduce", "tiny-a", "--seeds", "2", check=True, cwd=tmp_path)
    assert not (default / "marker").exists() and (default / "verdict.json").exists()


def test_every_experiment_states_every_transport_default_that_changed():
    """CHANGELOG.md names each transport default that changed (`transport.<option> = ...`);
    every experiment must state each of them, so that no changed default moves its numbers."""
    changelog = (ROOT / "CHANGELOG.md").read_text()
    changed = changelog.split("### Defaults changed")[1].split("\n### ")[0]
    options = sorted(set(re.findall(r"`transport\.([a-z_]+) =", changed)))
    assert "frto" in options and "timestamps" in options
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        if path.stem == reproduction.MATRIX_ID:
            continue  # the matrix shows today's model: it follows the defaults (docs/matrix.md)
        text = path.read_text()
        missing = [o for o in options if not re.search(rf"^\s*{o}\s*=", text, re.M)]
        assert not missing, f"{path.name} leaves {missing} to the defaults"


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
    # Fewer replicates than the contract's least is refused.
    (exp_dir / "tiny-a.toml").write_text(
        TINY.format(id="tiny-a").replace("\n[constants]", "seeds = 3\n[constants]")
    )
    p = routerlab("reproduce", "--list")
    assert p.returncode == 2 and "seeds" in p.stderr


def test_an_experiment_that_needs_more_replicates_says_so(exp_dir: Path, tmp_path: Path):
    text = TINY.format(id="tiny-a").replace("\n[constants]", "seeds = 12\n[constants]")
    (exp_dir / "tiny-a.toml").write_text(text)
    routerlab("reproduce", "tiny-a", "--out", str(tmp_path / "a"), "--jobs", "1", check=True)
    assert len(json.loads((tmp_path / "a" / "verdict.json").read_text())["seeds"]) == 12
    # --seeds and --quick still decide.
    routerlab("reproduce", "tiny-a", "--seeds", "2", "--out", str(tmp_path / "b"), check=True)
    assert len(json.loads((tmp_path / "b" / "verdict.json").read_text())["seeds"]) == 2


# --- every experiment, quick ----------------------------------------------------------------

VERDICTS = {"holds", "differs", "not judged (quick)"}


def quick_run(exp_id: str, tmp_path: Path) -> dict[str, dict]:
    """Run `exp_id --quick`, check that its verdict is well formed, and return its claims by id
    (each with `ours`, `ci95`, `criterion`, …)."""
    out = tmp_path / exp_id
    routerlab("reproduce", exp_id, "--quick", "--out", str(out), check=True)
    v = json.loads((out / "verdict.json").read_text())
    assert v["quick"] is True and len(v["seeds"]) == reproduction.QUICK_SEEDS
    ids = [c["id"] for c in reproduction.load(exp_id)["claim"]]
    assert [c["id"] for c in v["claims"]] == ids, "every claim of the file is judged"
    md = (out / "verdict.md").read_text()
    for c in v["claims"]:
        assert c["verdict"] in VERDICTS, c
        assert isinstance(c["ours"], (int, float)), c
        if c["ci95"] is not None:  # None: an exact quantity (no replicates to vary)
            lo, hi = c["ci95"]
            assert math.isnan(c["ours"]) or lo <= c["ours"] <= hi, c
        assert c["criterion"] in md
    assert list((out / "figures").glob("*.png")) and list((out / "figures").glob("*.svg"))
    return {c["id"]: c for c in v["claims"]}


def table(exp_id: str, name: str, tmp_path: Path, *keys: str) -> dict[tuple, dict]:
    """Rows of a table the quick run wrote, keyed by the given columns, numbers as floats."""

    def num(x: str):
        try:
            return float(x)
        except ValueError:
            return x

    with open(tmp_path / exp_id / f"{name}.csv") as f:
        return {
            tuple(r[k] for k in keys): {k: num(v) for k, v in r.items()} for r in csv.DictReader(f)
        }


def test_base_incast_collapses_with_a_200ms_minimum_rto_and_less_with_1ms(tmp_path: Path):
    quick_run("base-incast", tmp_path)
    rows = table("base-incast", "goodput", tmp_path, "min_rto", "n")
    top = max(int(n) for _, n in rows)
    g = {k: r["goodput_mbps"] for k, r in rows.items()}
    # Synchronized senders overflow the buffer and wait out whole minimum RTOs (theory and
    # every incast paper); a shorter minimum RTO waits less.
    assert g["200ms", str(top)] < 0.5 * g["200ms", "1"]
    assert g["1ms", str(top)] > g["200ms", str(top)]


def test_base_small_packet_short_term_fairness_falls_as_the_fair_share_shrinks(tmp_path: Path):
    quick_run("base-small-packet", tmp_path)
    rows = table("base-small-packet", "fairness", tmp_path, "timer", "n").values()
    for timer in {r["timer"] for r in rows}:
        arm = sorted((r for r in rows if r["timer"] == timer), key=lambda r: r["n"])
        assert arm[0]["fair_share_packets_per_rtt"] > arm[-1]["fair_share_packets_per_rtt"]
        assert arm[-1]["jain20"] < arm[0]["jain20"], timer


def test_base_loss_goodput_falls_as_loss_rises(tmp_path: Path):
    quick_run("base-loss", tmp_path)
    rows = table("base-loss", "goodput", tmp_path, "sack", "p")
    for sack in {k[0] for k in rows}:
        curve = sorted((r["p"], r["goodput_mbps"]) for k, r in rows.items() if k[0] == sack)
        assert all(a[1] > b[1] for a, b in pairwise(curve)), curve
        # The models fall the same way.
        model = sorted((r["p"], r["pftk_mbps"]) for k, r in rows.items() if k[0] == sack)
        assert all(a[1] > b[1] for a, b in pairwise(model)), model


def test_an_interrupted_reproduction_leaves_nothing_and_no_worker_tracebacks(tmp_path: Path):
    out = tmp_path / "out"
    # Interrupted 1.5 s after it started writing: the workers are simulating.
    args = ["reproduce", "base-small-packet", "--out", str(out)]
    status, err = interrupt_while_writing(args, tmp_path, 1.5)
    assert status == 130, err
    assert "Traceback" not in err and "interrupted" in err
    kept = tmp_path / "out.runs"
    assert list(tmp_path.iterdir()) == [kept], "no result and no temporary directory"
    assert f"kept in {kept}/" in err
    assert all((d / "summary.json").is_file() for d in kept.iterdir()), "only complete runs"


def test_a_reproduction_resumes_from_the_runs_kept_and_writes_the_same_files(
    exp_dir: Path, tmp_path: Path, monkeypatch
):
    a, b = tmp_path / "a", tmp_path / "b"
    routerlab("reproduce", "tiny-a", "--seeds", "3", "--out", str(a), check=True)
    assert not (tmp_path / "a.runs").exists(), "the runs go once the results are written"
    routerlab("reproduce", "tiny-a", "--seeds", "3", "--out", str(b), "--keep-runs", check=True)
    kept = sorted((tmp_path / "b.runs").iterdir())
    assert len(kept) == 4 * 3, "every configuration's every replicate"
    # Every run kept: nothing is simulated again.
    exp = reproduction.load("tiny-a")
    store = reproduction.RunStore(tmp_path / "b.runs")
    fresh = reproduction.run_all(exp, False, 3, jobs=1)

    def no_simulation(*args, **kwargs):
        raise AssertionError("a kept run was simulated again")

    with monkeypatch.context() as m:
        m.setattr("routerlab.sweeps.backends.run_batched", no_simulation)
        again = reproduction.run_all(exp, False, 3, store=store)
    assert [(r.config, r.seed, r.summary) for r in again] == [
        (r.config, r.seed, r.summary) for r in fresh
    ]
    for x, y in zip(again, fresh, strict=True):
        assert x.tables.keys() == y.tables.keys()
        assert all(x.tables[k].equals(y.tables[k]) for k in y.tables)
    # Half of them lost, as if interrupted: the rest are read back, and the files are the
    # same as an uninterrupted run's.
    for d in kept[::2]:
        shutil.rmtree(d)
    routerlab("reproduce", "tiny-a", "--seeds", "3", "--out", str(b), "--force", check=True)
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f"{f} differs after resuming"
    # Another build (or scenario, or seed) is another run.
    text = reproduction.render(exp, reproduction.grid(exp, False)[0])
    key = reproduction.run_key(text, 1)
    assert key != reproduction.run_key(text, 2) and key != reproduction.run_key(text + " ", 1)
    monkeypatch.setattr("routerlab.reproduction.runs.build_id", lambda: "another build")
    assert reproduction.run_key(text, 1) != key


def test_cp_incast_cp_goodput_above_tcp_and_no_timeout_without_header_drops_or_starvation(
    tmp_path: Path,
):
    quick_run("cp-incast", tmp_path)
    rows = table("cp-incast", "goodput", tmp_path, "setup", "scheme", "n")
    top = str(max(int(n) for _, _, n in rows))
    # CP turns a drop into a cut header and a PACK: the sender learns of every loss at once,
    # so at a large fan-in it is far ahead of TCP waiting out its minimum RTO.
    assert (
        rows["three-hosts", "cp", top]["goodput_mbps"]
        > rows["three-hosts", "tcp-200ms", top]["goodput_mbps"]
    )
    for (setup, scheme, n), r in rows.items():
        assert r["cuts_per_run"] == 0 or scheme.startswith("cp"), (setup, scheme, n)
        if scheme.startswith("cp") and r["timeouts_per_round"] > 0:
            # Every cut was announced by a PACK: a timeout needs a header dropped (a silent
            # loss again) or data held behind headers long enough to time out.
            assert r["header_drops_per_run"] > 0 or r["data_starved_ms_per_run"] > 0, (
                setup,
                scheme,
                n,
            )


def test_cp_reorder_cp_does_not_mistake_reordering_for_loss(tmp_path: Path):
    quick_run("cp-reorder", tmp_path)
    rows = table("cp-reorder", "schemes", tmp_path, "scheme")

    def spurious(scheme):
        return rows[(scheme,)]["spurious_per_flow"]

    # Spraying reorders; TCP's duplicate ACKs take it for loss, CP learns of losses from PACKs.
    assert spurious("tcp-spray") > 0
    assert spurious("cp-spray") < spurious("tcp-spray")


def test_cp_query_cp_avoids_the_timeouts_that_slow_tcp_queries(tmp_path: Path):
    quick_run("cp-query", tmp_path)
    rows = table("cp-query", "qct", tmp_path, "buffer_pkts", "scheme")
    buffers = sorted({b for b, _ in rows}, key=int)
    for b in buffers:
        assert rows[b, "cp"]["timeouts_per_query"] <= rows[b, "tcp"]["timeouts_per_query"], b
    # The smallest buffer overflows in every query: TCP waits out timeouts, CP does not.
    small = buffers[0]
    assert rows[small, "cp"]["timeouts_per_query"] < rows[small, "tcp"]["timeouts_per_query"]
    assert rows[small, "cp"]["p99_ms"] < rows[small, "tcp"]["p99_ms"]


def test_cp_unfairness_cp_has_fewer_timeouts_than_tcp(tmp_path: Path):
    quick_run("cp-unfairness", tmp_path)
    rows = table("cp-unfairness", "unfairness", tmp_path, "case", "scheme")
    outcast = [c for c, _ in rows if c.startswith("outcast")]
    assert outcast
    for case in outcast:
        # No header is dropped at the outcast port: every loss is announced, none timed out.
        tcp, cp = rows[case, "tcp"]["timeouts_per_flow"], rows[case, "cp"]["timeouts_per_flow"]
        assert cp <= tcp, (case, cp, tcp)


def test_plts_throughput_packet_spraying_reorders_more_than_ecmp(tmp_path: Path):
    quick_run("plts-throughput", tmp_path)
    rows = table("plts-throughput", "throughput", tmp_path, "scheme", "queue")
    for queue in ("droptail", "red-ecn"):
        # Per-packet paths of different queueing delays reorder a flow's segments; ECMP keeps
        # each flow on one path (its spurious retransmissions are go-back-N's after timeouts).
        assert (
            rows["spray-rr", queue]["spurious_per_flow"] > rows["ecmp", queue]["spurious_per_flow"]
        )

    def spurious(scheme):
        return rows[scheme, "droptail"]["spurious_per_flow"]

    # A round-robin counter that ACKs do not advance keeps each flow's cycle over the paths
    # whole, and one per flow keeps it wholly: each reorders less than one shared by all.
    assert spurious("spray-rr-flow") < spurious("spray-rr-data") < spurious("spray-rr")
    # Counting the packet in service tells an idle port from a busy one: CNT spreads flows
    # where counting only bytes waiting piles them onto the first port, and loads the core
    # more evenly (more throughput).
    assert (
        rows["spray-cnt", "droptail"]["throughput_of_ideal"]
        > rows["spray-cnt-waiting", "droptail"]["throughput_of_ideal"]
    )


def test_plts_balance_round_robin_evens_the_core_queues_more_than_ecmp(tmp_path: Path):
    quick_run("plts-balance", tmp_path)
    rows = table("plts-balance", "spread", tmp_path, "scheme")
    assert rows[("spray-rr",)]["mean_queue_spread"] < rows[("ecmp",)]["mean_queue_spread"]
    assert rows[("spray-rr",)]["mean_util_spread"] < rows[("ecmp",)]["mean_util_spread"]


def test_plts_latency_spraying_keeps_the_fabric_queues_shorter_than_ecmp(tmp_path: Path):
    quick_run("plts-latency", tmp_path)
    rows = table("plts-latency", "latency", tmp_path, "scheme")
    assert rows[("rr-droptail",)]["p90_ms"] < rows[("ecmp-droptail",)]["p90_ms"]


def test_plts_reorder_a_higher_dupthresh_and_the_ecn_agent_cut_fast_recoveries(tmp_path: Path):
    quick_run("plts-reorder", tmp_path)
    rows = table("plts-reorder", "reorder", tmp_path, "scheme")

    def fr(scheme):
        return rows[(scheme,)]["fast_recoveries_per_flow"]

    assert fr("rr-dupthresh-10") < fr("rr")
    assert fr("rr-agent-ecn") < fr("rr-red")
    # An agent that only watches changes nothing and sees every run reach the sender; the
    # percentile agent lets through only the longest runs.
    for metric in ("throughput_of_ideal", "fast_recoveries_per_flow", "spurious_per_flow"):
        assert rows[("rr-agent-watching",)][metric] == rows[("rr",)][metric], metric
    assert rows[("rr-agent-watching",)]["released_share"] == pytest.approx(1.0, abs=0.01)
    assert rows[("rr-agent-percentile",)]["released_share"] < 0.25
    assert math.isnan(rows[("rr",)]["released_share"])


def test_plts_failure_a_failed_core_link_costs_the_flows_into_its_pod(tmp_path: Path):
    quick_run("plts-failure", tmp_path)
    rows = table("plts-failure", "failure", tmp_path, "scheme", "failure", "flows")
    for scheme in {s for s, _, _ in rows}:
        hurt = rows[scheme, "core-link", "into_pod"]["throughput_of_ideal"]
        assert hurt < rows[scheme, "none", "into_pod"]["throughput_of_ideal"] * 1.02, scheme


def test_plts_patterns_smaller_packets_mean_more_spurious_retransmissions(tmp_path: Path):
    quick_run("plts-patterns", tmp_path)
    rows = table("plts-patterns", "patterns", tmp_path, "scheme", "pattern", "size")
    # Reordering is counted in segments: the same bytes in smaller packets reorder more of them.
    small = rows["spray-rr", "random", "576B"]["spurious_per_mb"]
    assert small > rows["spray-rr", "random", "1500B"]["spurious_per_mb"]


def test_taq_fairness_taq_is_fairer_than_drop_tail_in_the_small_packet_regime(tmp_path: Path):
    quick_run("taq-fairness", tmp_path)
    rows = table("taq-fairness", "fairness", tmp_path, "queue", "n")
    n = str(max(int(n) for _, n in rows))
    assert rows["taq", n]["jain20"] > rows["droptail", n]["jain20"]
    assert rows["taq-two-way", n]["jain20"] > rows["droptail", n]["jain20"]


def test_taq_fairness_capacity_taq_is_fairer_than_drop_tail_at_the_smallest_share(tmp_path: Path):
    quick_run("taq-fairness-capacity", tmp_path)
    rows = table("taq-fairness-capacity", "fairness", tmp_path, "capacity", "queue", "n")
    for cap in {c for c, _, _ in rows}:
        n = str(max(int(n) for c, _, n in rows if c == cap))
        assert rows[cap, "taq", n]["jain20"] > rows[cap, "droptail", n]["jain20"], cap


def test_points_of_equal_share_are_ordered_by_name_whatever_order_they_come_in():
    from routerlab.experiments.taq_fairness_capacity import by_share

    share = {"3mbps-30": 100e3, "300kbps-3": 100e3, "3mbps-60": 50e3}.get
    orders = [
        by_share(p, share) for p in itertools.permutations(["3mbps-30", "3mbps-60", "300kbps-3"])
    ]
    assert all(o == ["300kbps-3", "3mbps-30", "3mbps-60"] for o in orders)


def test_taq_model_loss_and_the_models_idle_share_rise_with_the_flows(tmp_path: Path):
    quick_run("taq-model", tmp_path)
    arms = table("taq-model", "model", tmp_path, "tcp", "n")
    rows = sorted((r for (tcp, _), r in arms.items() if tcp == "sack"), key=lambda r: r["n"])
    assert {tcp for tcp, _ in arms} == set(reproduction.load("taq-model")["grid"]["tcp"])
    assert all(a["loss_rate"] < b["loss_rate"] for a, b in pairwise(rows))
    # The model's share of epochs with nothing sent grows with the loss rate it is given.
    assert all(a["sent0_model"] < b["sent0_model"] for a, b in pairwise(rows))


def test_taq_short_taq_shortens_short_downloads(tmp_path: Path):
    quick_run("taq-short", tmp_path)
    rows = table("taq-short", "short", tmp_path, "queue")
    assert rows[("taq",)]["median_short_s"] < rows[("droptail",)]["median_short_s"]


def test_taq_hangs_taq_makes_minute_long_hangs_rarer(tmp_path: Path):
    quick_run("taq-hangs", tmp_path)
    rows = table("taq-hangs", "hangs", tmp_path, "queue", "users")
    assert (
        rows["taq", "200"]["share_hang_over_60s"] < rows["droptail", "200"]["share_hang_over_60s"]
    )


def test_taq_epochs_taq_times_epochs_at_the_senders_rtt(tmp_path: Path):
    quick_run("taq-epochs", tmp_path)
    rows = table("taq-epochs", "epochs", tmp_path, "queue", "n")
    # From the ACKs (two-way), or from the handshake and each packet's time in the queue (TAQ's
    # default one-way timing), the tracker measures the RTT: its epochs are the flows' RTTs.
    for n in {n for _, n in rows}:
        for q in ("taq", "taq-two-way"):
            assert 0.75 <= rows[q, n]["epoch_over_srtt"] <= 1.25, (q, n)


def test_taq_evolution_taq_smooths_the_maintained_flows(tmp_path: Path):
    quick_run("taq-evolution", tmp_path)
    rows = table("taq-evolution", "evolution", tmp_path, "queue", "n")
    for n in {n for _, n in rows}:
        assert rows["taq", n]["maintained_cv"] < rows["droptail", n]["maintained_cv"], n


def test_base_small_packet_capacity_the_short_term_index_falls_with_the_share_at_every_capacity(
    tmp_path: Path,
):
    quick_run("base-small-packet-capacity", tmp_path)
    rows = table("base-small-packet-capacity", "fairness", tmp_path, "capacity", "n")
    for cap in {c for c, _ in rows}:
        by_share = sorted(
            (r for (c, _), r in rows.items() if c == cap), key=lambda r: -r["fair_share_kbps"]
        )
        jain = [r["jain20"] for r in by_share]
        assert all(a > b for a, b in pairwise(jain)), (cap, jain)
        # One RTT of buffer keeps every capacity's link busy.
        assert all(r["utilization"] > 0.9 for r in by_share), cap


def test_taq_buffer_a_larger_drop_tail_buffer_is_fairer_and_the_needed_buffer_is_the_first_fair(
    tmp_path: Path,
):
    quick_run("taq-buffer", tmp_path)
    rows = table("taq-buffer", "fairness", tmp_path, "sender", "n", "buffer_s")
    buffers = sorted({b for _, _, b in rows}, key=float)
    for n in {n for _, n, _ in rows}:
        fair = [rows["default", n, b]["jain20"] for b in buffers]
        # At a buffer of one RTT the regime is unfair; a buffer many times larger is fairer.
        assert fair[0] < fair[-1], (n, fair)
    # Every run kept the 2 Mbps link busy: a larger buffer never idles it.
    assert all(r["utilization"] > 0.95 for r in rows.values())
    from routerlab.experiments.taq_buffer import buffer_needed

    assert buffer_needed({0.2: 0.5, 8: 0.91, 32: 0.95}, 0.9, 128) == 8
    assert buffer_needed({0.2: 0.5, 8: 0.7, 32: 0.95}, 0.9, 128) == 32
    assert buffer_needed({0.2: 0.5, 8: 0.7}, 0.9, 128) == 128


def test_taq_admission_runs_and_compares_every_arm_with_drop_tail(tmp_path: Path):
    quick_run("taq-admission", tmp_path)
    rows = table("taq-admission", "downloads", tmp_path, "queue", "objects")
    for (queue, objects), r in rows.items():
        assert r["count"] > 0, (queue, objects)
        assert r["median_s"] <= r["worst_s"], (queue, objects)
        # The two modes: a share of slow downloads, and the others' median below the whole's.
        assert 0 <= r["slow_share"] <= 1, (queue, objects)
        assert r["fast_median"] <= r["median_s"] + 1e-9, (queue, objects)


def test_sp_mss_larger_units_raise_throughput_and_admission_causes_the_sp_gain(tmp_path: Path):
    quick_run("sp-mss", tmp_path)
    rows = table("sp-mss", "throughput", tmp_path, "flow0", "rtts")
    for rtts in ("equal", "mixed"):
        # The same losses per packet with 6× the bytes per packet (Mathis: ∝ MSS).
        assert rows["jumbo", rtts]["gain"] > 1
    # Windows sent as one super-packet (T_buffer 4 ms) are admitted or refused whole, so flow
    # 0 loses whole windows far less often than packets: with the SPManager it beats the same
    # sender without one (mixed RTTs, no phase locking).
    full, sender = rows["sp-4ms", "mixed"], rows["sp-sender-4ms", "mixed"]
    assert full["flow0_mbps"] > 2 * sender["flow0_mbps"]
    # The SPManager with every flow regular changes no flow's lot by much: admission alone is
    # drop-tail with a smaller queue.
    assert rows["sp-router", "mixed"]["gain"] < 2
    # The SP length distribution counts every packet the SP sender sent once, singles as
    # length 1.
    for (arm, rtts), r in rows.items():
        if r["singles_share"] == "":
            continue
        shares = [v for k, v in r.items() if k.startswith("packets_in_length_")]
        assert sum(shares) == pytest.approx(1), (arm, rtts)
        assert r["packets_in_length_1"] == pytest.approx(r["singles_share"]), (arm, rtts)


def test_sp_incast_an_admitted_super_packet_is_never_partly_dropped(tmp_path: Path):
    quick_run("sp-incast", tmp_path)
    rows = table("sp-incast", "fct", tmp_path, "router", "packets")
    for (router, n), r in rows.items():
        if router in ("sp", "bloom"):
            # Algorithm 1 with the buffering sender: SPs (initial windows and the like) no
            # longer than maxSpLength, for which it keeps room — each admitted one arrives whole.
            # (The fixed-length sender's followers may come after their entry expired.)
            assert r["sp_partially_dropped"] == 0, (router, n)
        assert r["mean_fct_s"] <= r["worst_fct_s"]
    sweep = table("sp-incast", "sweep", tmp_path, "router", "packets", "jitter")
    for (router, n, jitter), r in sweep.items():
        # Every router's row of the sweep, drop-tail's too (its ratio to itself is 1), so that
        # what Algorithm 1's refusals add to drop-tail's timeouts can be read beside it.
        assert r["syn_timeouts_per_flow"] >= 0 and r["timeouts_per_flow"] >= 0
        if router == "regular":
            assert r["regular_over_mean"] == 1, (n, jitter)


def test_sp_short_long_super_packets_on_short_flows_shorten_them(tmp_path: Path):
    quick_run("sp-short-long", tmp_path)
    rows = table("sp-short-long", "short_long", tmp_path, "sp")
    assert rows[("sp-short",)]["short_mean_fct_s"] < rows[("regular",)]["short_mean_fct_s"]
    for (arm,), r in rows.items():
        assert r["sp_partially_dropped"] in (0, ""), arm  # "": no SPs in that arm
        # A flow stalled past two timeouts is stalled past one.
        assert r["short_long_stalled_share"] <= r["short_stalled_share"], arm


def test_sp_dos_a_per_host_cap_keeps_more_for_the_victims(tmp_path: Path):
    quick_run("sp-dos", tmp_path)
    rows = table("sp-dos", "dos", tmp_path, "defence", "attack")
    attacks = {a for _, a in rows if a != "none"}
    assert attacks
    for a in attacks:
        assert rows["host-cap", a]["victims_kept"] > rows["algorithm1", a]["victims_kept"], a
    # Without an attack the cap changes nothing for honest senders.
    assert rows["host-cap", "none"]["victims_mbps"] == rows["algorithm1", "none"]["victims_mbps"]


def test_ka_encoding_every_level_and_indicator_round_trips(tmp_path: Path):
    claims = quick_run("ka-encoding", tmp_path)
    assert claims["levels-round-trip"]["ours"] == 0
    assert claims["indicators-round-trip"]["ours"] == 0
    # Signalling a flow twice per RTT instead of on each of its ~170 packets fragments fewer.
    assert claims["spaced-overhead"]["ours"] < 0.5
    levels = table("ka-encoding", "levels", tmp_path, "length_bytes")
    rates = [r["rate_bps"] for _, r in sorted(levels.items(), key=lambda kv: int(kv[0][0]))]
    assert all(a != b for a, b in pairwise(rates)), "one rate per length"


def test_ka_light_explicit_rates_finish_flows_sooner_than_tcp(tmp_path: Path):
    quick_run("ka-light", tmp_path)
    rows = table("ka-light", "fct", tmp_path, "scheme", "packets")
    tcp, rcp, ka, old = (rows[s, "all"]["mean_fct_s"] for s in ("tcp", "rcp", "ka", "tcp-ns3"))
    # RCP starts at its rate; Kick-Ass learns it an RTT later; TCP probes in slow start.
    assert rcp < ka < tcp
    # TCP as ns-3 ran it then (one segment to start, a 64 KB window) is slower still.
    assert old > tcp


def test_ka_mixed_light_kick_ass_flows_finish_sooner_than_tcp(tmp_path: Path):
    claims = quick_run("ka-mixed-light", tmp_path)
    assert claims["ka-much-faster"]["ours"] > 1
    # TCP as ns-3 ran it then (one 536-byte segment to start, a 64 KB window) is slower still.
    assert claims["ka-much-faster-than-ns3-tcp"]["ours"] > claims["ka-much-faster"]["ours"]


def test_ka_legacy_light_kick_ass_flows_finish_sooner_behind_their_router(tmp_path: Path):
    claims = quick_run("ka-legacy-light", tmp_path)
    # Signalled by an uncongested Kick-Ass router upstream, they skip TCP's slow start (§III-D2).
    assert claims["ka-much-faster"]["ours"] > 1
    assert claims["ka-much-faster-than-ns3-tcp"]["ours"] > claims["ka-much-faster"]["ours"]


def test_ka_dynamics_explicit_rates_keep_the_queue_small(tmp_path: Path):
    quick_run("ka-dynamics", tmp_path)
    rows = table("ka-dynamics", "dynamics", tmp_path, "scheme")
    for (scheme,), r in rows.items():
        # RCP's rate drains the queue by design: a small fraction of the 1000-packet buffer.
        assert r["mean_queue_packets"] < 100, scheme


def test_ka_vs_endpoint_kick_ass_queues_less_than_cubic_on_drop_tail(tmp_path: Path):
    quick_run("ka-vs-endpoint", tmp_path)
    rows = table("ka-vs-endpoint", "endpoint", tmp_path, "load", "scheme")
    heavy = {s: r for (load, s), r in rows.items() if load == "heavy"}
    ka = [r for s, r in heavy.items() if s.startswith("ka")]
    cubic = [r for s, r in heavy.items() if s == "cubic"]
    assert ka and cubic
    assert max(r["median_queue_delay_s"] for r in ka) < cubic[0]["median_queue_delay_s"]
    # Every heavy-load run is reported minute by minute, its tail beside its median.
    minutes = table("ka-vs-endpoint", "minutes", tmp_path, "scheme", "seed", "minute")
    assert {s for s, _, _ in minutes} == {s for s in heavy}
    assert len({(s, seed) for s, seed, _ in minutes}) == len(heavy) * reproduction.QUICK_SEEDS
    for r in minutes.values():
        assert r["median_delay_s"] <= r["p99_delay_s"]
        assert 0 <= r["long_wait_share"] <= 1


def test_ka_legacy_bottleneck_kick_ass_flows_fall_back_while_the_legacy_router_congests(
    tmp_path: Path,
):
    claims = quick_run("ka-legacy-bottleneck", tmp_path)
    # The share of time in rate mode while TCP congests the legacy router, against after.
    assert claims["ka-falls-back"]["ours"] < claims["ka-returns"]["ours"]
    # Every period of every seed of every arm is reported; without a Kick-Ass router (R1
    # legacy) no rate ever comes, so the flows never leave TCP mode.
    periods = table("ka-legacy-bottleneck", "periods", tmp_path, "arm", "seed", "from_s")
    arms = {a for a, _, _ in periods}
    assert arms == {"default", "r1-legacy", "equal-access", "equal-access-r1-legacy", "spaced"}
    for (arm, _, _), r in periods.items():
        assert r["period"] in ("alone", "with-tcp")
        if arm.endswith("r1-legacy"):
            assert r["rate_mode"] == 0, r
    seeds = table("ka-legacy-bottleneck", "seeds", tmp_path, "arm", "seed")
    assert {a for a, _ in seeds} == arms - {"r1-legacy", "equal-access-r1-legacy"}


def test_ka_mixed_heavy_tcp_silences_the_router(tmp_path: Path):
    claims = quick_run("ka-mixed-heavy", tmp_path)
    # TCP keeps the queue past half: the router stops signalling (§II-C2) most of the time.
    assert claims["router-tcp-mode-with-tcp"]["ours"] > 0.5
    # Each gap and each TCP period of each seed is reported, alone or with TCP in turn.
    periods = table("ka-mixed-heavy", "periods", tmp_path, "arm", "seed", "from_s")
    runs = {(a, s) for a, s, _ in periods}
    assert {a for a, _ in runs} == {"default", "hysteresis"}
    for run in runs:
        rows = sorted((r for k, r in periods.items() if k[:2] == run), key=lambda r: r["from_s"])
        kinds = [r["period"] for r in rows]
        assert kinds == ["alone", "with-tcp"] * (len(kinds) // 2) + ["alone"] * (len(kinds) % 2)


def test_ka_sensitivity_reports_both_protocols_at_every_point(tmp_path: Path):
    quick_run("ka-sensitivity", tmp_path)
    rows = table("ka-sensitivity", "tracking", tmp_path, "point", "scheme")
    points = {p for p, _ in rows}
    assert points and all((p, s) in rows for p in points for s in ("rcp", "ka"))
    for key, r in rows.items():
        # N flows cannot share more than the link: the mean rate over C/N stays near or
        # under 1 (a few percent over for the IP-byte scaling of delivered payload).
        assert 0 < r["rate_over_share"] <= 1.05, key
        assert 0 < r["utilization"] <= 1.0, key


def test_experiments_ship_with_the_package_and_the_checkout_links_to_them(tmp_path: Path):
    from routerlab.reproduction import PACKAGED

    assert (ROOT / "experiments").resolve() == PACKAGED
    assert (PACKAGED / "base-incast.toml").is_file()
    # Away from a checkout (no experiments/ here, none named in the environment): the
    # package's own files, as an installed wheel has them.
    env = {k: v for k, v in os.environ.items() if k != "ROUTERLAB_EXPERIMENTS"}
    p = routerlab("reproduce", "--list", cwd=tmp_path, env=env, check=True)
    assert "base-incast" in p.stdout and "taq-epochs" in p.stdout
