"""`routerlab bench`: the record it prints, and that it measures the same work `run` does.
(Speed itself is measured by the command, never asserted by a test.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import ROOT, SMALL_DUMBBELL, routerlab
from routerlab import bench


def test_bench_json_is_one_record_per_scenario_with_the_documented_keys(tmp_path: Path):
    p = routerlab("bench", "--scenario", "dumbbell-1g", "--repeat", "2", "--json", check=True)
    records = json.loads(p.stdout)  # stdout is the JSON alone; progress went to stderr
    assert "dumbbell-1g: run 2/2" in p.stderr
    assert "bench: machine: " in p.stderr and "bench: dependent load, before → after" in p.stderr
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
    assert "a path ending in .toml" in p.stderr
    assert routerlab("bench", "--repeat", "0").returncode == 2


def test_bench_measures_any_scenario_file_as_it_runs(tmp_path: Path):
    # Named like a benchmark scenario: reported under its path, never judged by that target.
    f = tmp_path / "dumbbell-1g.toml"
    f.write_text(SMALL_DUMBBELL)
    p = routerlab("bench", "--scenario", str(f), "--repeat", "1", "--json", check=True)
    (r,) = json.loads(p.stdout)
    assert r["scenario"] == str(f) and r["sim_seconds"] == 0.2
    out = tmp_path / "out"
    routerlab("run", str(f), "--out", str(out), "-q", check=True)
    summary = json.loads((out / "summary.json").read_text())
    assert (r["events"], r["packet_hops"]) == (summary["events"], summary["packet_hops"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dumbbell-1g.toml", "out"]
    text = routerlab("bench", "--scenario", str(f), "--repeat", "1", check=True).stdout
    assert str(f) in text and "targets" not in text


def test_bench_checks_a_scenario_file_before_running_anything(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL_DUMBBELL.replace("seed = 1", "seed = 1\nspeed = 2"))
    p = routerlab("bench", "--scenario", "dumbbell-1g", "--scenario", str(bad))
    assert p.returncode == 2
    assert f"{bad}: invalid scenario" in p.stderr and "run.speed" in p.stderr
    assert "run 1/" not in p.stderr  # nothing ran, not even the valid one
    p = routerlab("bench", "--scenario", str(tmp_path / "missing.toml"))
    assert p.returncode == 2 and "No such file" in p.stderr


def test_the_median_run_is_reported_whole():
    runs = [{"wall_seconds": w, "events": i} for i, w in enumerate([3.0, 1.0, 2.0, 5.0])]
    assert bench.median_run(runs[:3]) == {"wall_seconds": 2.0, "events": 2}
    assert bench.median_run(runs) == {"wall_seconds": 2.0, "events": 2}  # lower middle


def test_the_benchmark_scenarios_are_the_documented_three_and_valid():
    assert list(bench.scenarios())[:3] == ["dumbbell-1g", "dumbbell-10g-1000", "fattree-k8"]
    p = routerlab("validate", *map(str, bench.scenarios().values()))
    assert p.returncode == 0, p.stdout + p.stderr


def _fake_run(name: str, wall: float, hops_per_s: float) -> dict:
    return {
        "scenario": name,
        "wall_seconds": wall,
        "packet_hops_per_s": hops_per_s,
        "sim_peak_bytes": 2e6,
    }


def test_runs_are_interleaved_in_rounds_and_each_median_is_whole():
    order = []

    def measure(path: Path, name: str) -> dict:
        assert name == path.stem
        order.append(path.stem)
        n = len(order)
        return _fake_run(path.stem, wall=[3.0, 1.0, 2.0][(n - 1) // 2], hops_per_s=n)

    names = ["dumbbell-1g", "fattree-k8"]
    results = bench.run(bench.resolve(names), 3, lambda _: None, measure=measure)
    # Round by round, every scenario once: the same minutes for all of them.
    assert order == names * 3
    assert [r["scenario"] for r in results] == names
    # The median by loop time is the third round's, reported whole, all runs beside it.
    assert [r["wall_seconds"] for r in results] == [2.0, 2.0]
    assert [r["packet_hops_per_s"] for r in results] == [5, 6]
    assert [len(r["runs"]) for r in results] == [3, 3]


def test_targets_are_judged_on_the_reported_medians():
    one_g = _fake_run("dumbbell-1g", 0.5, 10e6)
    one_g["runs"] = [_fake_run("dumbbell-1g", 0.5, v) for v in (10e6, 11e6, 9e6)]
    many = _fake_run("dumbbell-10g-1000", 0.6, 7.9e6)
    many["runs"] = [_fake_run("dumbbell-10g-1000", 0.6, v) for v in (7.9e6, 9.9e6, 8.1e6)]
    fat = _fake_run("fattree-k8", 2.0, 3.4e6)
    lines = bench.target_lines([one_g, many, fat])
    assert lines[:3] == [
        "dumbbell-1g: 0.50 <= 0.7 s: met",
        "dumbbell-1g: 10.00 >= 6.4 M packet-hops/s: met",
        "dumbbell-1g: 2.00 <= 20 MB heap: met",
    ]
    assert lines[3] == "fattree-k8: 3.40 >= 3.5 M packet-hops/s: NOT met"
    # 7.9 / 10 = 0.79 of the medians; per round 0.79, 0.90, 0.90.
    assert lines[4].startswith(
        "dumbbell-10g-1000: 0.79 >= 0.8 of dumbbell-1g's packet-hops/s: NOT met"
    )
    assert "per round: median 0.90, range 0.79–0.90" in lines[4]
    # A missed scaling target says where to read why; a met one does not.
    assert lines[5:] == [bench.SCALING_HINT]
    section = bench.SCALING_HINT.split('"')[1]
    headings = (ROOT / "docs" / "performance.md").read_text().splitlines()
    assert f"## {section}" in headings, "the hint names a section the docs do not have"
    many["packet_hops_per_s"] = 8.0e6
    assert bench.target_lines([one_g, many])[-1].endswith(
        ": met (per round: median 0.90, range 0.79–0.90)"
    )
    # Without dumbbell-1g measured, there is nothing to judge the scaling target against.
    assert bench.target_lines([many]) == []
    # The targets are the development machine's: judged only when asked for.
    table = {"sim_seconds": 1, "events": 1, "packet_hops": 1, "setup_seconds": 0.1}
    table |= {"events_per_s": 1e6, "peak_rss_bytes": 1e8}
    rows = [table | r for r in (one_g, many, fat)]
    assert "targets" not in bench.format_report(rows)
    assert "targets" in bench.format_report(rows, judge=True)


def test_the_machine_and_the_probe_then_the_table_then_the_targets():
    p = routerlab("bench", "--scenario", "dumbbell-1g", "--repeat", "1", "--targets", check=True)
    lines = p.stdout.splitlines()
    assert lines[0].startswith("machine: ") and "logical CPUs; caches " in lines[0]
    sizes = [f"{bench._kib(f'{kib}K')} " for kib in bench.PROBE_KIB]
    assert lines[1].startswith("dependent load, before → after the rounds: " + sizes[0])
    assert all(size in lines[1] for size in sizes) and lines[1].endswith(" ns")
    assert lines[2] == "" and lines[3].startswith("scenario ")
    assert lines[4].startswith("dumbbell-1g ")
    assert lines[6] == "targets (docs/performance.md):"
    assert [line.split(":")[0].strip() for line in lines[7:]] == ["dumbbell-1g"] * 3
    assert "<= 0.7 s" in lines[7] and ">= 6.4 M packet-hops/s" in lines[8]


def test_the_machine_line_reads_the_kernels_cache_list(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Example CPU @ 3.00GHz\nflags\t: fpu\n")
    listed = {
        "index0": ("1", "Data", "48K"),
        "index1": ("1", "Instruction", "32K"),
        "index2": ("2", "Unified", "2048K"),
        "index3": ("3", "Unified", "491520K"),
    }
    for index, values in listed.items():
        (tmp_path / "cache" / index).mkdir(parents=True)
        for name, value in zip(("level", "type", "size"), values, strict=True):
            (tmp_path / "cache" / index / name).write_text(value + "\n")
    line = bench.machine_line(tmp_path / "cache", cpuinfo)
    assert line.startswith("Example CPU @ 3.00GHz, ")
    assert "; caches L1d 48 KiB, L1i 32 KiB, L2 2 MiB, L3 480 MiB; load average " in line
    # Where the kernel lists nothing, the line says so rather than failing.
    bare = bench.machine_line(tmp_path / "none", tmp_path / "no-cpuinfo")
    assert bare.startswith("unknown CPU, ") and "caches not listed" in bare


def test_the_probe_times_a_load_at_each_size():
    asked = []
    times = bench.probe_caches(lambda kib: asked.append(kib) or kib / 1000)
    assert asked == list(bench.PROBE_KIB) and times == {k: k / 1000 for k in bench.PROBE_KIB}
    line = bench.probe_line({1024: 9.6, 8192: 52.0}, {1024: 10.4, 8192: 141.2})
    assert line == "dependent load, before → after the rounds: 1 MiB 10 → 10 ns, 8 MiB 52 → 141 ns"
    # The extension's probe: some time per load, and a clear refusal of a nonsense size.
    from routerlab import _core

    # (The bound leaves room for the process to be descheduled for most of a second.)
    assert 0 < _core.load_latency_ns(16, 100_000) < 10_000
    with pytest.raises(ValueError, match="must be positive"):
        _core.load_latency_ns(0)
