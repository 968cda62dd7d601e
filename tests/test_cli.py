"""The ``routerlab`` command: results on disk, determinism, bad input, interruption."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
[run]
duration = "3s"
seed = 5

[topology]
kind = "dumbbell"
pairs = 6
access = { rate = "1Gbps", delay = "100us" }
bottleneck = { rate = "100Mbps", delay = "2ms", queue = { kind = "droptail", limit = "40pkts" } }

[[workload]]
kind = "bulk"

[[workload]]
kind = "fixed"
name = "mice"
size = "30KB"
flows = 6
start = "300ms"
jitter = "50ms"
"""


def routerlab(*args: str, check: bool = False, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(
        [sys.executable, "-m", "routerlab", *args],
        capture_output=True,
        text=True,
        cwd=kw.pop("cwd", ROOT),
        **kw,
    )
    if check:
        assert p.returncode == 0, p.stderr
    return p


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p


def test_run_writes_every_result_file(scenario: Path, tmp_path: Path):
    out = tmp_path / "out"
    p = routerlab("run", str(scenario), "--out", str(out), check=True)
    assert "goodput" in p.stdout and "jain index" in p.stdout
    names = sorted(f.name for f in out.iterdir())
    assert names == sorted(
        [
            "summary.json",
            "timing.json",
            "flows.parquet",
            "flows.csv",
            "links.parquet",
            "links.csv",
            "transfers.parquet",
            "scenario.toml",
            "scenario.normalized.json",
        ]
    )
    summary = json.loads((out / "summary.json").read_text())
    for key in [
        "scenario_hash",
        "seed",
        "routerlab_version",
        "git_commit",
        "sim_seconds",
        "events",
        "goodput_bps",
        "drops",
        "jain_index",
    ]:
        assert key in summary, key
    assert summary["seed"] == 5
    assert summary["sim_seconds"] == 3.0
    assert 50e6 < summary["goodput_bps"] <= 100e6
    timing = json.loads((out / "timing.json").read_text())
    assert timing["wall_seconds"] > 0 and timing["events_per_s"] > 0
    flows = pq.read_table(out / "flows.parquet").to_pydict()
    assert flows["flow_id"] == list(range(12))
    assert flows["group"] == ["bulk-0"] * 6 + ["mice"] * 6
    # Bulk flows have no size and no completion time; the 30 KB flows finish (one whose SYN is
    # tail-dropped at the full bottleneck waits for the 1 s SYN timeout).
    assert flows["size_bytes"][:6] == [None] * 6 and flows["fct_s"][:6] == [None] * 6
    assert flows["size_bytes"][6:] == [30_000] * 6
    assert all(f is not None and f > 0 for f in flows["fct_s"][6:])
    assert all(0.3 <= s < 0.35 for s in flows["start_s"][6:])
    # One transfer per 30 KB flow, from its first SYN to its last byte.
    tr = pq.read_table(out / "transfers.parquet").to_pydict()
    assert tr["flow_id"] == list(range(6, 12))
    assert tr["size_bytes"] == [30_000] * 6
    for k in range(6):
        assert tr["start_s"][k] == flows["start_s"][6 + k]
        assert abs(tr["end_s"][k] - tr["start_s"][k] - flows["fct_s"][6 + k]) < 1e-9


def test_same_seed_gives_byte_identical_results(scenario: Path, tmp_path: Path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    routerlab("run", str(scenario), "--out", str(a), check=True)
    routerlab("run", str(scenario), "--out", str(b), check=True)
    routerlab("run", str(scenario), "--out", str(c), "--seed", "6", check=True)
    for f in sorted(a.iterdir()):
        if f.name == "timing.json":
            continue
        assert f.read_bytes() == (b / f.name).read_bytes(), f.name
    assert (a / "flows.csv").read_bytes() != (c / "flows.csv").read_bytes()
    sa = json.loads((a / "summary.json").read_text())
    sc = json.loads((c / "summary.json").read_text())
    assert sa["scenario_hash"] == sc["scenario_hash"], "the hash excludes the seed"
    assert sc["seed"] == 6


def test_time_series_is_written_when_asked(tmp_path: Path):
    sc = tmp_path / "ts.toml"
    sc.write_text(SMALL + '\n[output]\ntimeseries = "100ms"\ntimeseries_flows = [0, 7]\n')
    out = tmp_path / "out"
    routerlab("run", str(sc), "--out", str(out), check=True)
    ts = pq.read_table(out / "timeseries.parquet").to_pydict()
    assert len(ts["t_s"]) == 2 * 29, "samples at 0.1 … 2.9 s for two flows"
    assert set(ts["flow_id"]) == {0, 7}
    assert set(ts["state"]) <= {
        "idle",
        "handshake",
        "open",
        "disorder",
        "recovery",
        "loss",
        "closed",
    }
    # At 0.1 s flow 0 is sending (in whatever recovery state); flow 7 starts at 0.3 s.
    assert ts["state"][0] in {"open", "disorder", "recovery", "loss"}
    assert ts["state"][1] == "idle"
    links = pq.read_table(out / "links.parquet").to_pydict()
    i = links["link"].index("left->right")
    assert 0 < links["mean_queue_packets"][i] <= 40


def test_default_output_dir_is_results_slash_stem(scenario: Path, tmp_path: Path):
    routerlab("run", str(scenario), check=True, cwd=tmp_path)
    assert (tmp_path / "results" / "small" / "summary.json").exists()


def test_existing_result_is_refused_without_force_and_replaced_with_it(
    scenario: Path, tmp_path: Path
):
    out = tmp_path / "out"
    routerlab("run", str(scenario), "--out", str(out), check=True)
    marker = out / "marker"
    marker.write_text("earlier result")
    p = routerlab("run", str(scenario), "--out", str(out))
    assert p.returncode == 2
    assert "--force" in p.stderr
    assert marker.exists(), "the earlier result is untouched"
    routerlab("run", str(scenario), "--out", str(out), "--force", check=True)
    assert not marker.exists()
    assert (out / "summary.json").exists()
    assert not [f for f in tmp_path.iterdir() if f.name.startswith(".")], "no temporaries left"


BAD_INPUTS = [
    # (replace this, with that, expected message start)
    ('rate = "100Mbps"', 'rate = "-1Gbps"', 'topology.bottleneck.rate: "-1Gbps" is not a rate'),
    ('kind = "fixed"', 'kind = "fixed"\nbogus = 1', "workload[1].bogus: unknown key"),
    ("pairs = 6", 'pairs = "six"', "topology.pairs: invalid type"),
    ('rate = "100Mbps"', 'rate = "0bps"', "topology.bottleneck.rate:"),
    ('limit = "40pkts"', 'limit = "0pkts"', "topology.bottleneck.queue.limit:"),
    ('duration = "3s"', 'duration = "0s"', "run.duration:"),
    ('duration = "3s"', 'duration = "-2s"', "run.duration:"),
    (
        'kind = "droptail"',
        'kind = "fifo9000"',
        'topology.bottleneck.queue.kind: unknown queue kind "fifo9000"',
    ),
    (
        "flows = 6",
        'flows = 6\nsrc = "s0"\ndst = "nobody"',
        'workload[1].dst: unknown host "nobody"',
    ),
]


@pytest.mark.parametrize("old,new,message", BAD_INPUTS)
def test_bad_input_is_reported_with_its_path_and_nothing_runs(tmp_path: Path, old, new, message):
    assert old in SMALL
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.replace(old, new, 1))
    out = tmp_path / "out"
    p = routerlab("run", str(bad), "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert message in p.stderr, p.stderr
    assert not out.exists()
    v = routerlab("validate", str(bad))
    assert v.returncode == 2 and message in v.stderr


def test_validate_accepts_a_good_scenario_and_the_examples(scenario: Path):
    p = routerlab("validate", str(scenario), *map(str, sorted((ROOT / "examples").glob("*.toml"))))
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(": ok") == 1 + len(list((ROOT / "examples").glob("*.toml")))


def test_missing_file_is_an_error(tmp_path: Path):
    p = routerlab("run", str(tmp_path / "nope.toml"))
    assert p.returncode == 2
    assert "nope.toml" in p.stderr


@pytest.mark.parametrize("verb", [[], ["run"], ["validate"]])
def test_help_on_every_verb(verb):
    p = routerlab(*verb, "--help", check=True)
    assert "usage: routerlab" in p.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_no_result_and_exits_nonzero(tmp_path: Path, sig):
    long = tmp_path / "long.toml"
    long.write_text(SMALL.replace('duration = "3s"', 'duration = "100000s"'))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "routerlab", "run", str(long), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    # Wait until the run has started writing (its temporary directory exists).
    deadline = time.monotonic() + 30
    while not any(f.name.startswith(".out.tmp") for f in tmp_path.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.3)
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [long], "no temporary directory left behind"
