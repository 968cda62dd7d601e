"""The Python API (`routerlab.run`, `routerlab.sweep`), sweep files, backends (local pool and a
real Dask LocalCluster), resuming, failures, the campaign's store and its report."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import routerlab
from browser import chromium, load
from helpers import ROOT, SMALL_DUMBBELL
from helpers import routerlab as cli
from routerlab import reproduction, seeding, sweeps
from routerlab.sweeps import backends, spec

BASE = SMALL_DUMBBELL

GRID = {"topology.bottleneck.queue.limit": ["10pkts", "80pkts"]}
AXES = {"cc": {"newreno": {"transport.cc": "newreno"}, "cubic": {"transport.cc": "cubic"}}}


@pytest.fixture
def base(tmp_path: Path) -> Path:
    p = tmp_path / "base.toml"
    p.write_text(BASE)
    return p


def sweep_file(tmp_path: Path, base: Path, head: str = "", tail: str = "", seeds: int = 2) -> Path:
    """A sweep of `base` over GRID and AXES: `head` goes into [sweep], `tail` at the end."""
    p = tmp_path / "small.toml"
    p.write_text(
        f'[sweep]\nbase = "{base.name}"\nseeds = {seeds}\nseed = 7\n{head}\n'
        '[grid]\n"topology.bottleneck.queue.limit" = ["10pkts", "80pkts"]\n'
        '[axes.cc]\nnewreno = { "transport.cc" = "newreno" }\n'
        f'cubic = {{ "transport.cc" = "cubic" }}\n{tail}'
    )
    return p


# --- routerlab.run --------------------------------------------------------------------------


def test_run_takes_a_path_text_or_dict_and_returns_data_frames(base: Path):
    import tomllib

    by_path = routerlab.run(base)
    by_text = routerlab.run(BASE)
    by_dict = routerlab.run(tomllib.loads(BASE))
    assert by_path.summary == by_text.summary == by_dict.summary
    flows = by_path.flows
    assert isinstance(flows, pd.DataFrame)
    assert len(flows) == by_path.summary["flows"] == 4
    assert flows["bytes_acked"].sum() > 0
    # A table the scenario did not ask for is empty, with its columns.
    assert by_path.queues.empty and "queue_packets" in by_path.queues.columns
    assert by_path.timeseries.empty and "cwnd_bytes" in by_path.timeseries.columns
    other = routerlab.run(base, seed=99)
    assert other.summary["seed"] == 99 and other.summary != by_path.summary


def test_run_fills_queues_and_timeseries_when_asked_and_gives_polars(base: Path):
    r = routerlab.run(BASE + '\n[output]\nqueues = "10ms"\ntimeseries = "10ms"\n', polars=True)
    assert isinstance(r.flows, pl.DataFrame)
    assert r.queues.height >= 19 and r.queues["queue_packets"].max() > 0
    assert set(r.timeseries["flow_id"].unique().to_list()) == {0, 1, 2, 3}
    with pytest.raises(KeyError, match="no table 'nope'"):
        r.table("nope")


def test_a_result_and_a_campaign_show_a_summary_not_a_dump(tmp_path: Path, base: Path):
    r = routerlab.run(BASE + '\n[output]\nqueues = "10ms"\n')
    text, page = repr(r), r._repr_html_()
    goodput = f"{r.summary['goodput_bps'] / 1e6:.2f} Mbps"
    for shown in (goodput, "4 (long-lived", "tables", "queues"):
        assert shown in text and html.escape(shown) in page, shown
    assert len(text) < 600 and page.startswith("<div>")
    c = routerlab.sweep(base, grid=GRID, seeds=2, out=tmp_path / "c", report=False)
    text, page = repr(c), c._repr_html_()
    assert "4 of 4 (2 configurations × 2 seeds)" in text and "topology.bottleneck" in text
    assert html.escape(str(tmp_path / "c")) in page and len(text) < 600


def test_the_package_tells_type_checkers_it_is_typed():
    from importlib.resources import files

    assert files("routerlab").joinpath("py.typed").is_file()


def test_progress_shows_in_a_notebook_and_on_a_terminal_not_in_a_pipe(monkeypatch):
    from routerlab import progress

    class Kernel:
        config = {"IPKernelApp": {}}

    class IPython:
        @staticmethod
        def get_ipython():
            return Kernel()

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not progress.wanted(None) and progress.wanted(True)
    monkeypatch.setitem(sys.modules, "IPython", IPython)
    assert progress.in_notebook() and progress.wanted(None) and not progress.wanted(False)


def test_run_rejects_a_bad_scenario_with_the_field_path():
    with pytest.raises(routerlab.ScenarioInvalid) as e:
        routerlab.run(BASE.replace('"100Mbps"', '"fast"'))
    assert any("topology.bottleneck.rate" in p for p in e.value.problems)


# --- sweep specifications -------------------------------------------------------------------


def test_grid_paths_axes_and_constants_render_every_configuration(base: Path):
    s = spec.from_arguments(base, grid={**GRID, "run.duration": "0.1s"}, axes=AXES, seeds=3)
    configs = s.configs()
    assert [c.params for c in configs] == [
        {"topology.bottleneck.queue.limit": q, "cc": cc}
        for q in ("10pkts", "80pkts")
        for cc in ("newreno", "cubic")
    ]
    assert all('duration = "0.1s"' in c.text for c in configs)
    assert 'cc = "cubic"' in configs[1].text and 'limit = "80pkts"' in configs[3].text
    assert len({c.spec_hash for c in configs}) == 4


def test_the_key_ignores_how_the_sweep_is_written_and_seeds_derive_from_it(base: Path):
    # Setting a default explicitly gives the same normalized scenario, hence the same key.
    plain = spec.from_arguments(base).configs()[0]
    explicit = spec.from_arguments(base, grid={"transport.cc": "newreno"}).configs()[0]
    assert plain.spec_hash == explicit.spec_hash
    s = spec.from_arguments(base, seed=5)
    seeds = {s.run_seed(r) for r in range(50)}
    assert len(seeds) == 50  # replicates differ
    assert s.run_seed(3) == spec.from_arguments(base, seed=5).run_seed(3)
    assert s.run_seed(3) != spec.from_arguments(base, seed=6).run_seed(3)
    # One scheme with reproductions: a campaign seed is what an experiment's id is there.
    assert s.run_seed(3) == seeding.replicate_seed(5, 3)
    assert reproduction.replicate_seed("base-incast", 3) == seeding.replicate_seed("base-incast", 3)


def test_every_configuration_runs_replicate_r_with_the_same_seed(base: Path, tmp_path: Path):
    # Common random numbers: configurations are compared on the same draws.
    c = sweeps.sweep(
        base, grid=GRID, seeds=2, seed=7, out=tmp_path / "crn", jobs=1, progress=False, report=False
    )
    runs = c.manifest["runs"].values()
    for r in (0, 1):
        assert {e["seed"] for e in runs if e["replicate"] == r} == {seeding.replicate_seed(7, r)}


def test_a_campaign_of_the_older_seeding_is_refused_not_mixed(base: Path, tmp_path: Path):
    out = tmp_path / "old"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"format": "routerlab-campaign/1", "runs": {}}))
    with pytest.raises(sweeps.SweepError, match="other seeds"):
        sweeps.sweep(base, seeds=1, out=out, jobs=1, progress=False, report=False)


@pytest.mark.parametrize(
    "extra, message",
    [
        ("[colour]\nred = 1", "colour: unknown key"),
        ("x = 1", "sweep.x: unknown key"),
        ("[[plot]]\nx = 'cc'\ny = 'drops'\nz = 1", "plot[0].z: unknown key"),
        ('[grid]\n"topology.bottleneck.rate" = []', "grid.topology.bottleneck.rate: an empty list"),
        ('[grid]\n"workload.3.flows" = [1, 2]', "workload.3.flows: no element 3 in a list of 1"),
        ('[grid]\n"topology.bottleneck.rate" = ["1Gbps", "-1Gbps"]', "topology.bottleneck.rate"),
        ("[[plot]]\ny = 'drops'", "plot[0].x: missing"),
        ("[[plot]]\nx = 'nope'\ny = 'drops'", "plot[0].x: 'nope' is not an axis"),
        ("[axes.seed]\na = { 'run.duration' = '1s' }", "axis 'seed': the name is taken"),
    ],
)
def test_a_bad_sweep_is_refused_with_its_key_before_anything_runs(
    tmp_path: Path, base: Path, extra: str, message: str
):
    p = tmp_path / "bad.toml"
    p.write_text(f'[sweep]\nbase = "{base.name}"\n{extra}\n')
    out = tmp_path / "out"
    r = cli("sweep", str(p), "--out", str(out))
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "bad.toml" in r.stderr
    assert not out.exists()


def test_an_invalid_configuration_names_itself_and_the_field(tmp_path: Path, base: Path):
    with pytest.raises(sweeps.SweepError) as e:
        spec.from_arguments(base, grid={"topology.bottleneck.rate": ["1Gbps", "-1Gbps"]}).configs()
    assert 'configuration {"topology.bottleneck.rate": "-1Gbps"}' in str(e.value)
    assert "topology.bottleneck.rate:" in str(e.value)


def test_batches_cover_every_run_once():
    assert backends.batch_size(10, 2) == 1
    assert backends.batch_size(10_000, 2) == backends.MAX_AUTO_BATCH
    assert backends.batch_size(100, 2, requested=7) == 7
    items = list(range(23))
    parts = backends.batches(items, 5)
    assert [len(b) for _, b in parts] == [5, 5, 5, 5, 3]
    assert all(items[i] == b[0] for i, b in parts) and sum((b for _, b in parts), []) == items


# --- campaigns: local pool and Dask ---------------------------------------------------------


@pytest.fixture(scope="module")
def dask_client():
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def test_local_pool_and_dask_cluster_give_identical_tables(tmp_path: Path, base: Path, dask_client):
    kw = {"grid": GRID, "axes": AXES, "seeds": 2, "seed": 3, "report": False}
    local = routerlab.sweep(base, backend="local", jobs=2, out=tmp_path / "local", **kw)
    dask = routerlab.sweep(base, backend="dask", client=dask_client, out=tmp_path / "dask", **kw)
    serial = routerlab.sweep(base, jobs=1, batch=3, out=tmp_path / "serial", **kw)
    # By the scheduler's address, as `routerlab sweep --scheduler ADDRESS` connects.
    address = dask_client.scheduler.address
    by_address = routerlab.sweep(base, backend="dask", scheduler=address, out=tmp_path / "a", **kw)
    t = local.table()
    assert len(t) == 8 and not local.failures()
    assert t["goodput_bps"].gt(0).all()
    pd.testing.assert_frame_equal(t, dask.table())
    pd.testing.assert_frame_equal(t, serial.table())
    pd.testing.assert_frame_equal(t, by_address.table())
    pd.testing.assert_frame_equal(local.stats(), dask.stats())
    # Replicates differ (their seeds do), and the table says which seed each ran with.
    first = t[t["config"] == 0]
    assert first["seed"].nunique() == 2 and first["events"].nunique() == 2
    # Each row is what `routerlab run` gives for that configuration and seed.
    row = t.iloc[5]
    scenario = (local.root / "scenarios" / f"config{row['config']:04d}.toml").read_text()
    alone = routerlab.run(scenario, seed=int(row["seed"]))
    assert alone.summary["goodput_bps"] == row["goodput_bps"]
    assert alone.summary["drops"] == row["drops"]


def test_reproduce_runs_on_dask_with_the_same_verdict(tmp_path: Path, dask_client):
    from routerlab import reproduction

    local = reproduction.reproduce("taq-model", tmp_path / "l", quick=True, jobs=2, progress=False)
    dask = reproduction.reproduce(
        "taq-model", tmp_path / "d", quick=True, backend="dask", client=dask_client, progress=False
    )
    assert local == dask
    for name in ("verdict.md", "model.parquet", "model.csv"):
        assert (tmp_path / "l" / name).read_bytes() == (tmp_path / "d" / name).read_bytes()


def closed_port() -> int:
    """A local TCP port nothing listens on."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("command", ["sweep", "reproduce"])
def test_an_unreachable_scheduler_is_one_line_exit_2_and_leaves_nothing(
    tmp_path: Path, base: Path, monkeypatch, capsys, command: str
):
    from routerlab.cli import main

    monkeypatch.setattr(backends, "SCHEDULER_TIMEOUT_S", 1.0)
    out = tmp_path / "out"
    what = [str(sweep_file(tmp_path, base))] if command == "sweep" else ["taq-model", "--quick"]
    address = f"tcp://127.0.0.1:{closed_port()}"
    rc = main([command, *what, "--backend", "dask", "--scheduler", address, "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert len(err.splitlines()) == 1, err
    assert f"cannot reach the Dask scheduler at {address}" in err
    assert not out.exists()


def test_the_store_is_queryable_across_runs_and_stats_summarise_replicates(
    tmp_path: Path, base: Path
):
    import duckdb

    c = routerlab.sweep(base, grid=GRID, axes=AXES, seeds=3, out=tmp_path / "c", report=False)
    runs = tmp_path / "c" / "tables" / "runs.parquet"
    by_cc = duckdb.sql(
        f"select cc, avg(goodput_bps) as g from '{runs}' group by cc order by cc"
    ).fetchall()
    t = c.table()
    expect = t.groupby("cc")["goodput_bps"].mean().sort_index()
    assert [r[0] for r in by_cc] == list(expect.index)
    assert [r[1] for r in by_cc] == pytest.approx(list(expect.values))
    flows = duckdb.sql(
        f"select count(*) from '{tmp_path / 'c' / 'tables' / 'flows.parquet'}' where cc = 'cubic'"
    ).fetchall()[0][0]
    assert flows == 2 * 3 * 4  # configurations × replicates × flows
    s = c.stats()
    assert len(s) == 4 and s["runs"].eq(3).all()
    one = t[t["config"] == 2]["goodput_bps"]
    row = s[s["config"] == 2].iloc[0]
    assert row["goodput_bps"] == pytest.approx(one.mean())
    assert row["goodput_bps_ci95_lo"] < one.mean() < row["goodput_bps_ci95_hi"]
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    for key in manifest["runs"]:
        assert (tmp_path / "c" / "runs" / key / "summary.json").is_file()
    assert len(manifest["runs"]) == manifest["total_runs"] == 12


def test_a_sweep_killed_midway_completes_only_the_missing_runs(tmp_path: Path, base: Path):
    # One run at a time, each ~0.3 s, so that the kill lands between runs.
    f = sweep_file(tmp_path, base, head="batch = 1", tail='[base]\nrun.duration = "2s"\n', seeds=3)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "routerlab", "sweep", str(f), "--out", str(out), "--jobs", "1"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    runs = out / "runs"
    while not (runs.is_dir() and sum(1 for d in runs.iterdir() if not d.name.startswith(".")) >= 2):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {d.name: d.stat().st_ino for d in runs.iterdir() if not d.name.startswith(".")}
    assert 2 <= len(before) < 12
    manifest = json.loads((out / "manifest.json").read_text())
    assert set(manifest["runs"]) <= set(before)  # never a run whose data is missing
    again = cli("sweep", str(f), "--out", str(out), "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert f"{len(before)} done before, {12 - len(before)} to run" in again.stderr
    after = {d.name: d.stat().st_ino for d in runs.iterdir() if not d.name.startswith(".")}
    assert len(after) == 12
    assert all(after[k] == ino for k, ino in before.items())  # not run again
    whole = cli("sweep", str(f), "--out", str(tmp_path / "whole"), check=True)
    assert "0 done before, 12 to run" in whole.stderr
    pd.testing.assert_frame_equal(sweeps.load(out).table(), sweeps.load(tmp_path / "whole").table())


def test_ctrl_c_stops_the_pool_keeps_the_runs_done_and_the_rerun_finishes(
    tmp_path: Path, base: Path
):
    f = sweep_file(tmp_path, base, head="batch = 1", tail='[base]\nrun.duration = "2s"\n', seeds=3)
    out = tmp_path / "out"
    args = [sys.executable, "-m", "routerlab", "sweep", str(f), "--out", str(out), "--jobs", "2"]
    proc = subprocess.Popen(
        args,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    runs = out / "runs"
    deadline = time.monotonic() + 120
    while not (runs.is_dir() and any(not d.name.startswith(".") for d in runs.iterdir())):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted; the runs done are kept" in err
    manifest = json.loads((out / "manifest.json").read_text())
    done = {d.name for d in runs.iterdir() if not d.name.startswith(".")}
    assert set(manifest["runs"]) == done and len(done) < 12  # flushed on the way out
    assert not any(d.name.startswith(".") for d in runs.iterdir())  # no half-written run
    again = cli("sweep", str(f), "--out", str(out))
    assert again.returncode == 0 and f"{len(done)} done before" in again.stderr


def test_a_failing_run_is_reported_the_others_complete_and_it_is_retried_on_request(
    tmp_path: Path, base: Path
):
    grid = {"run.duration": ["0.1s", "300s"]}  # the long one takes ~0.5 s: over the limit
    out = tmp_path / "c"
    c = routerlab.sweep(base, grid=grid, seeds=2, out=out, timeout=0.1, report=False)
    failed = c.failures()
    assert [f["params"] for f in failed] == [{"run.duration": "300s"}] * 2
    assert all("RunTimeout: timed out after 0.1 s" in f["error"] for f in failed)
    assert list(c.table()["run.duration"]) == ["0.1s", "0.1s"]
    # Rerun: the failures are not retried unless asked.
    again = routerlab.sweep(base, grid=grid, seeds=2, out=out, timeout=0.1, report=False)
    assert len(again.failures()) == 2 and len(again.table()) == 2
    retried = routerlab.sweep(base, grid=grid, seeds=2, out=out, retry_failed=True, report=False)
    assert not retried.failures() and len(retried.table()) == 4
    assert json.loads((out / "manifest.json").read_text())["failed"] == {}
    # A failure belongs to its sweep: another grid in the same directory does not list it.
    routerlab.sweep(base, grid={"run.duration": ["0.1s", "300s"]}, seeds=3, out=out, timeout=0.1)
    narrower = routerlab.sweep(base, grid={"run.duration": "0.1s"}, seeds=3, out=out, report=False)
    assert narrower.failures() == [] and len(narrower.table()) == 3


def test_the_command_reports_failures_with_exit_status_1(tmp_path: Path, base: Path):
    f = tmp_path / "fail.toml"
    f.write_text(
        f'[sweep]\nbase = "{base.name}"\ntimeout = 0.1\n[grid]\n"run.duration" = ["0.1s", "300s"]\n'
    )
    r = cli("sweep", str(f), "--out", str(tmp_path / "o"), "--progress", "--jobs", "1")
    assert r.returncode == 1
    assert "RunTimeout" in r.stderr and "--retry-failed" in r.stderr
    assert "1 of 2 runs done, 1 failed" in r.stderr
    # The progress bar counts runs and failures.
    assert "2/2 [" in r.stderr and "1 failed]" in r.stderr


def test_another_campaign_seed_is_refused_in_the_same_directory(tmp_path: Path, base: Path):
    routerlab.sweep(base, seeds=1, seed=1, out=tmp_path / "c", report=False)
    with pytest.raises(sweeps.SweepError, match="holds a campaign with seed 1, not 2"):
        routerlab.sweep(base, seeds=1, seed=2, out=tmp_path / "c", report=False)


# --- the report -----------------------------------------------------------------------------


def test_sweep_command_writes_tables_figures_and_a_self_contained_report(
    tmp_path: Path, base: Path
):
    plot = '[[plot]]\nx = "topology.bottleneck.queue.limit"\ny = "goodput_bps"\nhue = "cc"\n'
    f = sweep_file(tmp_path, base, tail=plot)
    out = tmp_path / "out"
    cli("sweep", str(f), "--out", str(out), check=True)
    figs = sorted(p.name for p in (out / "figures").iterdir())
    assert figs == [
        "goodput_bps-vs-topology.bottleneck.queue.limit-by-cc.png",
        "goodput_bps-vs-topology.bottleneck.queue.limit-by-cc.svg",
    ]
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 1
    assert "<script" not in page and 'src="http' not in page and "href=" not in page
    assert '>campaign seed</th><td class="text">7<' in page
    for name in ("sweep.toml", "base.toml", "scenarios/config0003.toml"):
        assert html.escape((out / name).read_text()) in page  # the exact files
    seeds = sweeps.load(out).table()["seed"]
    assert all(str(s) in page for s in seeds)
    (out / "report.html").unlink()
    cli("report", str(out), check=True)
    assert (out / "report.html").read_text() == page


def test_report_of_a_reproduction_shows_its_verdicts(tmp_path: Path):
    cli("reproduce", "taq-model", "--quick", "--out", str(tmp_path / "r"), check=True)
    cli("report", str(tmp_path / "r"), check=True)
    page = (tmp_path / "r" / "report.html").read_text()
    verdict = json.loads((tmp_path / "r" / "verdict.json").read_text())
    for c in verdict["claims"]:
        css = "not-judged" if c["verdict"].startswith("not judged") else c["verdict"]
        assert c["id"] in page and f'class="text {css}"' in page
    assert "experiment.toml" in page and "data:image/png;base64," in page


def test_report_refuses_a_directory_that_is_neither(tmp_path: Path):
    r = cli("report", str(tmp_path))
    assert r.returncode == 2 and "neither a sweep's directory" in r.stderr


@pytest.mark.skipif(chromium() is None, reason="chromium is not installed (Debian: chromium)")
def test_the_report_renders_in_headless_chromium(tmp_path: Path, base: Path):
    c = routerlab.sweep(base, grid=GRID, axes=AXES, seeds=2, out=tmp_path / "c")
    page = load(c.root / "report.html")
    assert page.errors == []
    figures = [i for i in page.images if i["alt"]]
    assert len(figures) == 4  # the default plots: goodput, Jain index, drops, timeouts
    assert all(i["complete"] and i["width"] > 300 and i["height"] > 200 for i in figures)
    assert page.screenshot[:8] == b"\x89PNG\r\n\x1a\n" and len(page.screenshot) > 20_000
    (tmp_path / "report.png").write_bytes(page.screenshot)


INCAST = """
[run]
duration = "2s"
[topology]
kind = "star"
senders = 8
access = { rate = "1Gbps", delay = "25us" }
bottleneck = { rate = "1Gbps", delay = "25us", queue = { kind = "droptail", limit = "64pkts" } }
[[workload]]
kind = "incast"
block = "64KB"
rounds = 3
start = "1ms"
[output]
fairness_slice = "100ms"
"""


def test_a_summary_counts_an_incast_s_rounds_and_the_time_data_moved():
    r = routerlab.run(INCAST)
    s = r.summary
    # The connections stay open; their transfers (blocks) all complete well before the run ends.
    assert s["flows_completed"] == 0 and s["transfers"] == 8 * 3 == s["transfers_completed"]
    assert 0 < s["active_seconds"] < 0.5 * s["sim_seconds"]
    run_bytes = s["goodput_bps"] * s["sim_seconds"]
    assert s["active_goodput_bps"] == pytest.approx(run_bytes / s["active_seconds"], rel=1e-9)
    text = repr(r)
    assert "24 (24 completed)" in text and "s data moved" in text and "0 completed" not in text
    # A slice has an index exactly when it had flows, and the mean is over those.
    f = r.table("fairness")
    assert (f["jain_index"].isna() == (f["flows"] == 0)).all()
    assert s["jain_short_mean"] == pytest.approx(f["jain_index"].dropna().mean(), rel=1e-12)


def test_a_fairness_slice_before_any_flow_started_has_no_index():
    jittered = BASE.replace('kind = "bulk"', 'kind = "bulk"\njitter = "50ms"')
    assert jittered != BASE
    r = routerlab.run(jittered + '\n[output]\nfairness_slice = "20ms"\n', seed=3)
    f = r.table("fairness")
    assert f["flows"].iloc[0] < 4 and f["jain_index"].notna().sum() >= 2
    assert (f["jain_index"].isna() == (f["flows"] == 0)).all()
    assert r.summary["jain_short_mean"] == pytest.approx(f["jain_index"].dropna().mean(), rel=1e-12)


# --- the README's Python snippet, as users run it ------------------------------------------


def readme_snippet(out: Path) -> str:
    """The README's Python block as a user would paste it, writing its campaign to `out`."""
    text = (ROOT / "README.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'out="results/sweeps/mine"' in code and "routerlab.sweep(" in code
    return code.replace('out="results/sweeps/mine"', f"out={str(out)!r}") + (
        "\nprint('rows', len(c.table()))\n"
    )


def test_the_readme_snippet_runs_as_a_script_without_a_main_guard(tmp_path: Path):
    script = tmp_path / "snippet.py"
    script.write_text(readme_snippet(tmp_path / "mine"))
    r = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0 and "rows 10" in r.stdout, r.stderr[-2000:]


def test_the_readme_snippet_runs_from_stdin(tmp_path: Path):
    r = subprocess.run(
        [sys.executable, "-"],
        input=readme_snippet(tmp_path / "mine"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0 and "rows 10" in r.stdout, r.stderr[-2000:]


def test_the_readme_snippet_runs_in_a_jupyter_kernel(tmp_path: Path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(readme_snippet(tmp_path / "mine"))]
    nb.cells += [nbformat.v4.new_code_cell("r"), nbformat.v4.new_code_cell("c")]
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": ROOT}}
    ).execute()
    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.output_type == "stream")
    assert "rows 10" in printed, nb.cells[0].outputs
    # The sweep showed its progress, without a warning; the result and the campaign show
    # their summaries as HTML tables.
    stderr = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.get("name") == "stderr")
    widgets = [
        o
        for o in nb.cells[0].outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    assert ("10/10" in stderr or widgets) and "Warning" not in stderr, stderr
    for cell, shown in ((nb.cells[1], "goodput"), (nb.cells[2], "runs")):
        page = cell.outputs[0]["data"]["text/html"]
        assert page.startswith("<div>") and "<table>" in page and shown in page, page


def test_workers_that_cannot_start_stop_the_pool_instead_of_being_replaced(tmp_path: Path):
    # A function the workers cannot import (its module exists only in this process): every
    # worker dies while starting.
    import types

    from routerlab.sweeps.pool import MAX_STARTUP_DEATHS, PoolError, run_pool

    ghost = types.ModuleType("ghost_module_of_this_test")
    exec("def square(batch):\n    return [x * x for x in batch]\n", ghost.__dict__)
    sys.modules[ghost.__name__] = ghost
    try:
        with pytest.raises(PoolError, match=f"{MAX_STARTUP_DEATHS} worker processes in a row"):
            list(run_pool(ghost.square, backends.batches([1, 2, 3], 1), jobs=2))
    finally:
        del sys.modules[ghost.__name__]


def test_figures_and_tables_say_names_units_intervals_and_log_scales(tmp_path: Path, base: Path):
    from routerlab.experiments.plots import errorbar, figure
    from routerlab.experiments.stats import mean_ci
    from routerlab.quantities import number, quantity

    assert quantity("goodput_bps").title() == "goodput (Mbps)" and quantity("fct_s").unit == "s"
    assert [number(v) for v in (1.521e6, 1521000, 0.012345, 2.5e-6)] == [
        "1,521,000",
        "1,521,000",
        "0.01235",
        "2.5e-06",
    ]

    def draw(ax):
        errorbar(ax, [1, 10, 100], [mean_ci([1.0, 2.0])] * 3, label="a")
        ax.set_xscale("log")
        ax.set_xlabel("flows")

    figure(draw, "f", "a title")(tmp_path)
    svg = (tmp_path / "f.svg").read_text()
    assert "flows (log scale)" in svg and "95 % confidence intervals" in svg
    # A sweep's figure and report: words and units, no exponent notation in the tables.
    plot = '[[plot]]\nx = "topology.bottleneck.queue.limit"\ny = "goodput_bps"\nlog_y = true\n'
    out = tmp_path / "out"
    cli("sweep", str(sweep_file(tmp_path, base, tail=plot)), "--out", str(out), check=True)
    svg = next((out / "figures").glob("*.svg")).read_text()
    assert "goodput (Mbps) (log scale)" in svg and "95 % confidence intervals" in svg
    page = (out / "report.html").read_text()
    text = re.sub(r"base64,[A-Za-z0-9+/=]+", "", page)  # an image's base64 may hold any text
    assert "<th>goodput (Mbps)</th>" in text and "e+0" not in text
