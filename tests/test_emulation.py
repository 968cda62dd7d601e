"""Emulation: the scenario's network on real packets between Linux hosts (``routerlab
emulate``). The runs need root and network namespaces (CI has both); elsewhere they are skipped
with the reason. What a scenario cannot be emulated for is said before anything is made."""

from __future__ import annotations

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from routerlab import emulation
from routerlab.emulation.netns import leftover_namespaces


def _namespaces_work() -> str | None:
    if os.geteuid() != 0:
        return "emulation needs root"
    if shutil.which("ip") is None:
        return "no `ip` command"
    probe = "rlemu-probe"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, check=False)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return None if made.returncode == 0 else "network namespaces cannot be made here"


WHY_NOT = _namespaces_work()
needs_netns = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


def dumbbell(
    queue: str, workload: str, transport: str = 'cc = "cubic"', duration: str = "3s"
) -> str:
    return f"""
[run]
duration = "{duration}"
[topology]
kind = "dumbbell"
pairs = 2
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "10Mbps", delay = "5ms", queue = {queue} }}
[transport]
{transport}
[[workload]]
{workload}
"""


def emulate(tmp_path: Path, text: str) -> tuple[dict, dict, dict]:
    scenario = tmp_path / "s.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    summary = emulation.emulate(scenario, out)
    run = summary["emulation"]["run_id"]
    assert [n for n in leftover_namespaces() if run in n] == [], "every namespace removed"
    import pyarrow.csv as pacsv

    flows = pacsv.read_csv(out / "flows.csv").to_pydict()
    links = pacsv.read_csv(out / "links.csv").to_pydict()
    return summary, flows, links


def link(links: dict, name: str) -> dict:
    i = links["link"].index(name)
    return {k: v[i] for k, v in links.items()}


@needs_netns
def test_a_transfer_through_a_drop_tail_arrives_intact_at_no_more_than_the_links_rate(tmp_path):
    size = 500_000
    text = dumbbell('{ kind = "droptail", limit = "20pkts" }', f'kind = "fixed"\nsize = "{size}B"')
    text += '[output]\npcap = ["left->right"]\npcap_snaplen = 64\n'
    s, flows, links = emulate(tmp_path, text)
    e = s["emulation"]
    assert flows["bytes_delivered"] == [size, size], "both flows complete"
    assert e["flows_not_intact"] == [], "every byte as sent, in order"
    # Every byte crossed the 10 Mbit/s bottleneck: no faster than its rate, but for how late
    # the emulator was (its own measured error).
    late = max(t["p99_s"] for t in e["timing_error"])
    both = 2 * size * 8 / 10e6
    assert (
        max(f + st for f, st in zip(flows["fct_s"], flows["start_s"], strict=True)) >= both - late
    )
    bottleneck = link(links, "left->right")
    assert bottleneck["utilization"] <= 1.0
    assert bottleneck["tx_bytes"] >= 2 * size
    assert all(t["datagrams"] > 0 and t["median_s"] is not None for t in e["timing_error"])
    # The capture, as the simulator writes one: a record per packet the link sent.
    pcap = (tmp_path / "out" / "pcap" / "left_to_right.pcap").read_bytes()
    records, at = 0, 24
    while at < len(pcap):
        (captured,) = struct.unpack_from("<I", pcap, at + 8)
        at += 16 + captured
        records += 1
    assert at == len(pcap) and records == bottleneck["tx_packets"]


@needs_netns
def test_an_ecn_marking_red_marks_and_the_receivers_see_the_marks(tmp_path):
    red = '{ kind = "red", limit = "100pkts", min_th = "5pkts", max_th = "15pkts", ecn = true }'
    text = dumbbell(red, 'kind = "bulk"', transport='cc = "cubic"\necn = true')
    s, _, links = emulate(tmp_path, text)
    marks = link(links, "left->right")["ecn_marks"]
    seen = sum(s["emulation"]["hosts"][r]["IpExt.InCEPkts"] for r in ("r0", "r1"))
    assert marks > 0
    assert 0 < seen <= marks, "every CE a receiver saw was a mark the queue made"


@needs_netns
def test_a_taq_queue_carries_unmodified_linux_tcp(tmp_path):
    taq = '{ kind = "taq", limit = "30pkts" }'
    s, flows, links = emulate(tmp_path, dumbbell(taq, 'kind = "bulk"', duration="4s"))
    assert all(b > 0 for b in flows["bytes_delivered"])
    assert s["emulation"]["flows_not_intact"] == []
    assert link(links, "left->right")["tx_packets"] > 1000


@needs_netns
def test_an_interrupted_run_leaves_nothing_behind(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        dumbbell('{ kind = "droptail", limit = "20pkts" }', 'kind = "bulk"', duration="30s")
    )
    cli = [
        sys.executable,
        "-m",
        "routerlab",
        "emulate",
        str(scenario),
        "--out",
        str(tmp_path / "o"),
    ]
    before = set(leftover_namespaces())  # another run's, if any, are not this test's
    proc = subprocess.Popen(cli, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    ours: set[str] = set()
    while len(ours) < 5 and time.monotonic() < deadline:  # the network and four hosts
        time.sleep(0.1)
        ours = set(leftover_namespaces()) - before
    assert len(ours) == 5, f"the run made its namespaces: {ours}"
    time.sleep(1.5)  # the hosts' processes and the network's are running
    pids = [
        p
        for ns in ours
        for p in subprocess.run(
            ["ip", "netns", "pids", ns], capture_output=True, text=True
        ).stdout.split()
    ]
    assert pids, "processes run in the namespaces"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert ours & set(leftover_namespaces()) == set(), "every namespace removed"
    assert not (tmp_path / "o").exists(), "no half-written result"
    assert [p for p in pids if _running(p)] == [], "no process of the run left"


@needs_netns
def test_an_incasts_rounds_follow_one_another_and_deliver_every_block(tmp_path):
    import pyarrow.parquet as pq

    incast = 'kind = "incast"\nsenders = ["s0", "s1"]\nreceiver = "r0"\nblock = "100KB"\nrounds = 5'
    s, flows, _ = emulate(tmp_path, dumbbell('{ kind = "droptail", limit = "20pkts" }', incast))
    t = pq.read_table(tmp_path / "out" / "transfers.parquet").to_pydict()
    assert len(t["seq"]) == 10 and all(e is not None for e in t["end_s"]), "5 rounds of 2 blocks"
    assert s["emulation"]["flows_not_intact"] == []
    assert flows["bytes_delivered"] == [500_000, 500_000]
    for r in range(5):
        start = min(st for st, q in zip(t["start_s"], t["seq"], strict=True) if q == r)
        ends = [e for e, q in zip(t["end_s"], t["seq"], strict=True) if q == r]
        assert all(e > start for e in ends)
        if r < 4:
            later = min(st for st, q in zip(t["start_s"], t["seq"], strict=True) if q == r + 1)
            assert later >= max(ends), "a round starts once the last block of the one before is in"
    # Two blocks of 100 kB cross 10 Mbit/s in no less than 160 ms.
    assert all(e - st >= 0.08 for st, e in zip(t["start_s"], t["end_s"], strict=True))


def _running(pid: str, wait: float = 5.0) -> bool:
    """Whether process ``pid`` still runs after up to ``wait`` seconds (a zombie, killed and
    waiting to be reaped, does not)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.1)
    return True


@needs_netns
def test_on_off_clients_send_one_flow_at_a_time_each_delivered_intact(tmp_path):
    on_off = 'kind = "on_off"\nsize = "20KB"\noff = "0.1s"'
    s, flows, _ = emulate(tmp_path, dumbbell('{ kind = "droptail", limit = "20pkts" }', on_off))
    assert s["emulation"]["flows_not_intact"] == []
    done = [f for f in flows["fct_s"] if f is not None]
    assert len(done) >= 2 * 10, "two clients, a flow every 0.1 s and some"
    by_client: dict[str, list[tuple[float, float]]] = {}
    for src, start, fct in zip(flows["src"], flows["start_s"], flows["fct_s"], strict=True):
        if fct is not None:
            by_client.setdefault(src, []).append((start, start + fct))
    for spans in by_client.values():
        for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
            assert start >= end + 0.1 - 0.01, "off for 0.1 s after each delivery"


def test_what_needs_modified_endpoints_is_refused_with_the_reason():
    ka = dumbbell(
        '{ kind = "droptail", limit = "20pkts" }', 'kind = "bulk"', transport='cc = "kick-ass"'
    )
    with pytest.raises(emulation.EmulationError, match="endpoint part"):
        emulation.plan(ka)
    web = (
        'kind = "web"\nclients = ["s0"]\nservers = ["r0"]\nobjects = 2\nsize = "10KB"\nthink = "1s"'
    )
    with pytest.raises(emulation.EmulationError, match="not emulated yet"):
        emulation.plan(dumbbell('{ kind = "droptail", limit = "20pkts" }', web))


def test_a_congestion_control_the_kernel_lacks_is_refused_for_every_kind_of_workload(
    monkeypatch,
):
    import routerlab.emulation as em

    monkeypatch.setattr(em, "available_congestion_control", lambda: {"reno"})
    incast = 'kind = "incast"\nsenders = ["s0", "s1"]\nreceiver = "r0"\nblock = "10KB"'
    for workload in ('kind = "bulk"', incast, 'kind = "on_off"\nsize = "10KB"\noff = "1s"'):
        p = emulation.plan(dumbbell('{ kind = "droptail", limit = "20pkts" }', workload))
        with pytest.raises(emulation.EmulationError, match="no cubic congestion control"):
            em._check_congestion_control(p)


def test_the_plan_lists_each_flow_with_its_linux_congestion_control():
    p = emulation.plan(
        dumbbell(
            '{ kind = "droptail", limit = "20pkts" }', 'kind = "bulk"', transport='cc = "newreno"'
        )
    )
    names = p["host_names"]
    assert p["hosts"] == 4 and sorted(names) == ["r0", "r1", "s0", "s1"]
    pairs = [(names[f["src"]], names[f["dst"]], f["cc"]) for f in p["flows"]]
    assert pairs == [("s0", "r0", "reno"), ("s1", "r1", "reno")]


def test_the_cli_refuses_without_root_or_with_a_bad_scenario(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[run]\nduration = -1\n")
    r = subprocess.run(
        [sys.executable, "-m", "routerlab", "emulate", str(bad)], capture_output=True, text=True
    )
    assert r.returncode == 2 and "duration" in r.stderr
    if os.geteuid() != 0:
        good = tmp_path / "good.toml"
        good.write_text(dumbbell('{ kind = "droptail", limit = "20pkts" }', 'kind = "bulk"'))
        r = subprocess.run(
            [sys.executable, "-m", "routerlab", "emulate", str(good)],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2 and "root" in r.stderr


def test_the_comparison_says_whether_the_emulation_kept_its_timing_bound():
    from routerlab.emulation.compare import timing_line

    emulation = {
        "timing_bound_s": {"median": 1e-4, "p99": 1e-3},
        "timing_within_bound": False,
        "timing_error": [
            {"host": "h0", "median_s": 4e-5, "p99_s": 3.6e-3},
            {"host": "h1", "median_s": None, "p99_s": None},
        ],
    }
    line = timing_line(emulation)
    assert "did NOT keep" in line and "p99 3.60 ms" in line and "median 40 µs" in line
    assert timing_line({**emulation, "timing_within_bound": True}).startswith(
        "The emulated run kept"
    )


def test_a_comparison_sets_each_metric_beside_its_counterpart():
    from routerlab.emulation.compare import METRICS, metrics, rows

    sim = metrics(
        {"goodput_bps": 10.0, "jain_index": 1.0, "drops": 4, "retransmissions": 5, "timeouts": 0},
        {"fct_s": [None, 2.0, 1.0]},
    )
    emu = metrics(
        {"goodput_bps": 9.0, "jain_index": 0.5, "drops": 8, "retransmissions": 5, "timeouts": 1},
        {"fct_s": [4.0]},
    )
    assert (sim["fct_mean_s"], sim["fct_p99_s"], emu["fct_mean_s"]) == (1.5, 2.0, 4.0)
    table = {r["metric"]: r for r in rows(sim, emu)}
    assert list(table) == [m for m, _ in METRICS]
    assert table["goodput_bps"]["ratio"] == 0.9 and table["drops"]["ratio"] == 2.0
    assert table["timeouts"]["ratio"] is None, "no ratio to zero"


@needs_netns
def test_compare_writes_both_runs_and_their_table(tmp_path):
    from routerlab.emulation.compare import compare

    scenario = tmp_path / "s.toml"
    scenario.write_text(
        dumbbell('{ kind = "droptail", limit = "20pkts" }', 'kind = "bulk"', duration="2s")
    )
    table = compare(scenario, tmp_path / "c")
    out = tmp_path / "c"
    for f in ("compare.csv", "compare.md", "compare.png", "sim/summary.json", "emu/summary.json"):
        assert (out / f).exists(), f
    goodput = next(r for r in table if r["metric"] == "goodput_bps")
    assert goodput["ratio"] == pytest.approx(goodput["emulated"] / goodput["simulated"])
    emulated = json.loads((out / "emu" / "summary.json").read_text())["emulation"]
    kept = "kept" if emulated["timing_within_bound"] else "did NOT keep"
    assert f"The emulated run {kept} its timing bound" in (out / "compare.md").read_text()
    run = json.loads((out / "emu" / "summary.json").read_text())["emulation"]["run_id"]
    assert [n for n in leftover_namespaces() if run in n] == []


def test_a_hosts_traffic_job_that_fails_is_reported_and_frees_the_others():
    """A job of a host's traffic process that fails (a fault of ours, not of the network)
    is recorded for the parent, which then fails the run; if it fails before the start, the
    barrier breaks, so that neither the other jobs nor the process wait for it."""
    import threading

    from routerlab.emulation.app import _guarded

    def broken(job, until, results, ready):
        raise ValueError("no such flow")

    def waiting(job, until, results, ready):
        ready.wait()
        results[job] = "ran"

    errors: list[str] = []
    ready = threading.Barrier(3)
    results: dict = {}
    threads = [
        threading.Thread(target=_guarded(t, errors), args=(j, 0.0, results, ready))
        for t, j in ((broken, "a"), (waiting, "b"))
    ]
    for t in threads:
        t.start()
    with pytest.raises(threading.BrokenBarrierError):
        ready.wait(timeout=5)
    for t in threads:
        t.join(timeout=5)
    assert errors == ["broken: ValueError: no such flow"], "the failure, and only it"
    assert results == {}
