"""`routerlab bench`: the record it prints, and that it measures the same work `run` does.
(Speed itself is measured by the command, never asserted by a test.)"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROOT, routerlab
from routerlab import bench


def test_bench_json_is_one_record_per_scenario_with_the_documented_keys(tmp_path: Path):
    p = routerlab("bench", "--scenario", "dumbbell-1g", "--repeat", "2", "--json", check=True)
    records = json.loads(p.stdout)  # stdout is the JSON alone; progress went to stderr
    assert "dumbbell-1g: run 2/2" in p.stderr
    assert [list(r) for r in records] == [list(bench.KEYS)]
    r = records[0]
    assert r["scenario"] == "dumbbell-1g" and r["sim_seconds"] == 10
    assert r["events_per_s"] == r["events"] / r["wall_seconds"]
    assert r["packet_hops_per_s"] == r["packet_hops"] / r["wall_seconds"]
    assert 0 < r["sim_peak_bytes"] < r["peak_rss_bytes"]
    assert r["setup_seconds"] > 0
    # The same work as `routerlab run` of the scenario: the runs are deterministic.
    scenario = ROOT / "python" / "routerlab" / "benchmarks" / "dumbbell-1g.toml"
    out = tmp_path / "out"
    routerlab("run", str(scenario), "--out", str(out), "-q", check=True)
    summary = json.loads((out / "summary.json").read_text())
    assert (r["events"], r["packet_hops"]) == (summary["events"], summary["packet_hops"])
    # One packet-hop per data segment and ACK per link: 50 flows over three links each way.
    assert r["packet_hops"] > 3 * 2 * summary["goodput_bps"] * 10 / 8 / 1500 * 0.95


def test_bench_refuses_an_unknown_scenario_before_running():
    p = routerlab("bench", "--scenario", "dumbbell-2g")
    assert p.returncode == 2
    assert "no benchmark scenario 'dumbbell-2g'" in p.stderr and "dumbbell-1g" in p.stderr
    assert routerlab("bench", "--repeat", "0").returncode == 2


def test_the_median_run_is_reported_whole():
    runs = [{"wall_seconds": w, "events": i} for i, w in enumerate([3.0, 1.0, 2.0, 5.0])]
    assert bench.median_run(runs[:3]) == {"wall_seconds": 2.0, "events": 2}
    assert bench.median_run(runs) == {"wall_seconds": 2.0, "events": 2}  # lower middle


def test_the_benchmark_scenarios_are_the_documented_three_and_valid():
    assert list(bench.scenarios())[:3] == ["dumbbell-1g", "dumbbell-10g-1000", "fattree-k8"]
    p = routerlab("validate", *map(str, bench.scenarios().values()))
    assert p.returncode == 0, p.stdout + p.stderr
