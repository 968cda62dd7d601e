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

from helpers import ROOT, interrupt_while_writing, routerlab
from routerlab.output import TIMESERIES_SCHEMA

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


def test_flow_epochs_classify_every_flow_the_same_on_any_queue(tmp_path: Path):
    states = {
        "slow_start",
        "normal",
        "loss_recovery",
        "timeout_silence",
        "timeout_recovery",
        "extended_silence",
        "idle",
    }
    for queue in ('{ kind = "droptail", limit = "40pkts" }', '{ kind = "taq", limit = "40pkts" }'):
        sc = tmp_path / "epochs.toml"
        text = SMALL.replace('{ kind = "droptail", limit = "40pkts" }', queue)
        sc.write_text(text + '\n[output]\nflow_epochs = ["left->right"]\n')
        runs = [tmp_path / f"{i}" for i in range(2)]
        for out in runs:
            routerlab("run", str(sc), "--out", str(out), "--force", check=True)
        data = (runs[0] / "flow_epochs.parquet").read_bytes()
        assert data == (runs[1] / "flow_epochs.parquet").read_bytes(), "deterministic"
        e = pq.read_table(runs[0] / "flow_epochs.parquet").to_pydict()
        assert set(e["flow_id"]) == set(range(12)), queue
        assert set(e["link"]) == {"left->right"}
        assert set(e["from_state"]) | set(e["to_state"]) <= states
        # Each flow's epochs follow one another: a row starts in the state the last one ended.
        last: dict[int, str] = {}
        rows = zip(e["flow_id"], e["from_state"], e["to_state"], e["end_s"], strict=True)
        for f, a, b, t in rows:
            assert last.get(f, a) == a, (queue, f, t)
            last[f] = b
        # The 30 KB flows finish and fall idle; the long ones keep sending.
        assert all(last[f] == "idle" for f in range(6, 12)), last
        assert sum(e["drops"]) > 0 and max(e["end_s"]) <= 3.0 + 1e-9


def test_time_series_is_written_when_asked(tmp_path: Path):
    sc = tmp_path / "ts.toml"
    sc.write_text(SMALL + '\n[output]\ntimeseries = "100ms"\ntimeseries_flows = [0, 7]\n')
    out = tmp_path / "out"
    routerlab("run", str(sc), "--out", str(out), check=True)
    ts = pq.read_table(out / "timeseries.parquet").to_pydict()
    assert len(ts["t_s"]) == 2 * 30, "samples at 0.1 … 3.0 s for two flows"
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
    # At 0.1 s flow 0 is sending (in whatever recovery state); flow 7 starts at 0.3 s, so it
    # has no RTT estimate nor ssthresh yet: nulls, not zeros. Nothing here signals a rate.
    assert ts["state"][0] in {"open", "disorder", "recovery", "loss"}
    assert ts["state"][1] == "idle"
    assert ts["srtt_s"][0] > 0 and ts["srtt_s"][1] is None and ts["ssthresh_bytes"][1] is None
    assert set(ts["rate_mode"]) == {None} and set(ts["signalled_rate_bps"]) == {None}
    assert pq.read_schema(out / "timeseries.parquet").equals(TIMESERIES_SCHEMA)
    links = pq.read_table(out / "links.parquet").to_pydict()
    i = links["link"].index("left->right")
    assert 0 < links["mean_queue_packets"][i] <= 40


def test_default_output_dir_is_results_slash_stem(scenario: Path, tmp_path: Path):
    routerlab("run", str(scenario), check=True, cwd=tmp_path)
    assert (tmp_path / "results" / "small" / "summary.json").exists()


def test_a_rerun_replaces_the_result_in_the_default_directory(scenario: Path, tmp_path: Path):
    routerlab("run", str(scenario), check=True, cwd=tmp_path)
    marker = tmp_path / "results" / "small" / "marker"
    marker.write_text("earlier result")
    routerlab("run", str(scenario), check=True, cwd=tmp_path)
    assert not marker.exists(), "replaced"
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
    ("pairs = 6", 'pairs = "six"', 'topology.pairs: string "six" where a whole number is expected'),
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


def test_validate_prints_every_problem_of_a_file_not_only_the_first(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        SMALL.replace('rate = "100Mbps", delay = "2ms"', 'rate = "-1Gbps", delay = "fast"')
    )
    p = routerlab("validate", str(bad))
    assert p.returncode == 2
    assert 'topology.bottleneck.rate: "-1Gbps" is not a rate' in p.stderr, p.stderr
    assert 'topology.bottleneck.delay: "fast" is not a duration' in p.stderr, p.stderr


def test_validate_accepts_a_good_scenario_and_the_examples(scenario: Path):
    p = routerlab("validate", str(scenario), *map(str, sorted((ROOT / "examples").glob("*.toml"))))
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(": ok") == 1 + len(list((ROOT / "examples").glob("*.toml")))


def test_missing_file_is_an_error(tmp_path: Path):
    p = routerlab("run", str(tmp_path / "nope.toml"))
    assert p.returncode == 2
    assert "nope.toml" in p.stderr


def test_unreadable_files_and_outputs_are_errors_with_their_path_not_tracebacks(
    scenario: Path, tmp_path: Path
):
    """A UTF-16 or binary file, an empty one, one without a topology, and an output directory
    that cannot be created: each exits 2 with a message naming the file or the field."""
    utf16 = tmp_path / "utf16.toml"
    utf16.write_bytes("[run]\n".encode("utf-16"))
    for verb in ("run", "validate"):
        p = routerlab(verb, str(utf16))
        assert p.returncode == 2 and "utf16.toml: not a UTF-8 text file" in p.stderr, p.stderr
        assert "Traceback" not in p.stderr
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    no_topology = tmp_path / "no_topology.toml"
    no_topology.write_text('[run]\nduration = "1s"\n')
    for path, message in ((empty, "run: missing"), (no_topology, "topology: missing")):
        p = routerlab("run", str(path))
        assert p.returncode == 2 and message in p.stderr, p.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    p = routerlab("run", str(scenario), "--out", str(blocker / "sub" / "out"))
    assert p.returncode == 2 and "cannot create the output directory" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize(
    "verb", [[], ["run"], ["validate"], ["reproduce"], ["bench"], ["sweep"], ["report"]]
)
def test_help_on_every_verb(verb):
    p = routerlab(*verb, "--help", check=True)
    assert "usage: routerlab" in p.stdout


def test_a_run_leaves_the_slow_imports_to_the_commands_that_need_them(scenario: Path, tmp_path):
    # Every command, and every benchmark subprocess's setup_seconds, pays for what
    # `import routerlab` imports, and every `routerlab run` for what its results take; scipy
    # (verdicts, sweep tables) and pandas (data frames, reports) are imported where they are
    # used, and the result tables are built without pyarrow's list conversion (which imports
    # pandas).
    slow = ("scipy", "pandas", "polars", "matplotlib")
    code = (
        "import sys; from routerlab.cli import main; "
        f"main(['run', {str(scenario)!r}, '--out', {str(tmp_path / 'out')!r}, '-q']); "
        f"print([m for m in {slow!r} if m in sys.modules])"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert p.stdout.strip() == "[]"
    assert (tmp_path / "out" / "flows.parquet").exists()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_leaves_no_result_and_exits_nonzero(tmp_path: Path, sig):
    long = tmp_path / "long.toml"
    long.write_text(SMALL.replace('duration = "3s"', 'duration = "100000s"'))
    out = tmp_path / "out"
    # Interrupted once the run has started writing (its temporary directory exists).
    status, err = interrupt_while_writing(["run", str(long), "--out", str(out)], tmp_path, 0.3, sig)
    assert status == 130, err
    assert f"interrupted; {out}/ not written" in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [long], "no temporary directory left behind"


def test_an_interrupt_after_the_result_is_in_place_says_so_and_exits_0(
    tmp_path: Path, monkeypatch, capsys
):
    from routerlab import cli, output

    def interrupted(*args):
        raise KeyboardInterrupt  # lands while the summary is printed, after the commit

    sc = tmp_path / "s.toml"
    sc.write_text(SMALL)
    out = tmp_path / "out"
    monkeypatch.setattr(cli, "print_summary", interrupted)
    monkeypatch.setattr(output, "COMMITTED", [])
    monkeypatch.setattr(output, "ABANDONED", [])
    monkeypatch.setattr(signal, "signal", lambda *a: None)  # main's SIGTERM handler: not here
    assert cli.main(["run", str(sc), "--out", str(out)]) == 0
    assert f"interrupted after the result was written: {out}/" in capsys.readouterr().err
    assert (out / "flows.parquet").exists()


def test_a_killed_runs_temporary_is_deleted_by_the_next_write_there(tmp_path: Path):
    long = tmp_path / "long.toml"
    long.write_text(SMALL.replace('duration = "3s"', 'duration = "100000s"'))
    short = tmp_path / "short.toml"
    short.write_text(SMALL)
    out = tmp_path / "out"
    # SIGKILL: nothing in the process can clean up.
    interrupt_while_writing(["run", str(long), "--out", str(out)], tmp_path, 0.1, signal.SIGKILL)
    stale = [f for f in tmp_path.iterdir() if f.name.startswith(".out.tmp-")]
    assert len(stale) == 1
    # A temporary of a live process (this one) is left alone.
    live = tmp_path / f".out.tmp-{os.getpid()}-0123abcd"
    live.mkdir()
    routerlab("run", str(short), "--out", str(out), "-q", check=True)
    assert not stale[0].exists() and live.exists()
    assert (out / "flows.parquet").exists()


def test_pcap_capture_reads_back_with_the_right_packets_and_tcp_fields(tmp_path: Path):
    from pcapreader import checksum, read

    sc = tmp_path / "cap.toml"
    sc.write_text(
        """
[run]
duration = "500ms"
[topology]
kind = "dumbbell"
pairs = 1
access = { rate = "1Gbps", delay = "100us", mtu = 9000 }
bottleneck = { rate = "100Mbps", delay = "2ms", queue = { kind = "droptail", limit = "20pkts" } }
[[workload]]
kind = "fixed"
size = "200KB"
[[workload]]
kind = "cbr"
src = "s0"
dst = "r0"
rate = "2Mbps"
packet_size = "3000B"
[output]
pcap = ["left->right"]
pcap_snaplen = 96
"""
    )
    out = tmp_path / "out"
    routerlab("run", str(sc), "--out", str(out), check=True)
    header, recs = read(out / "pcap" / "left_to_right.pcap")
    assert header["linktype"] == 101 and header["nanosecond"] and header["snaplen"] == 96
    links = pq.read_table(out / "links.parquet").to_pydict()
    sent = links["tx_packets"][links["link"].index("left->right")]
    assert len(recs) == sent, "every packet that left the port, once"
    assert all(r.ip["version"] == 4 and r.ip["header_ok"] for r in recs)
    assert all(len(r.data) <= 96 and r.orig_len == r.ip["total_len"] for r in recs)
    assert [r.t for r in recs] == sorted(r.t for r in recs)
    tcp = [r for r in recs if r.tcp is not None]
    syn = tcp[0]
    assert syn.tcp["flags"] & 0x02 and not syn.tcp["flags"] & 0x10, "the SYN comes first"
    opts = syn.tcp["options"]
    assert syn.tcp["seq"] == 0 and (opts["mss"], opts["sack_permitted"]) == (1460, True)
    assert opts["timestamps"][1] == 0, "a SYN echoes nothing"
    assert (syn.ip["src"], syn.ip["dst"]) == ("10.0.0.1", "10.0.0.2")
    data = [r for r in tcp if r.tcp["payload_len"] > 0]
    assert sum(r.tcp["payload_len"] for r in data) >= 200_000
    # Every segment carries timestamps (12 bytes): a full one carries the MSS less them.
    assert data[0].tcp["seq"] == 1 and data[1].tcp["seq"] == 1 + 1448
    assert all(r.tcp["header_len"] >= 32 and "timestamps" in r.tcp["options"] for r in tcp)
    # The first data segment echoes the SYN-ACK's clock, which is the SYN's or later.
    assert data[0].tcp["options"]["timestamps"][1] >= opts["timestamps"][0]
    # TCP checksums verify over the pseudo-header (the zero payload adds nothing to the sum).
    r = data[0]
    seg_len = r.ip["total_len"] - 20
    pseudo = bytes(r.data[12:20]) + b"\0\x06" + seg_len.to_bytes(2, "big")
    psum = sum(int.from_bytes(pseudo[i : i + 2], "big") for i in range(0, 12, 2))
    assert checksum(bytes(r.data[20 : 20 + r.tcp["header_len"]]), psum) == 0
    # The 3000-byte UDP datagrams crossed the 1500-byte MTU as fragments.
    frags = [r for r in recs if r.ip["proto"] == 17]
    assert frags and all(r.ip["total_len"] <= 1500 for r in frags)
    first = [r for r in frags if r.ip["frag_offset"] == 0]
    assert all(r.ip["mf"] for r in first)
    assert {r.ip["frag_offset"] for r in frags} == {0, 185, 370}


def test_csv_flow_list_relative_to_the_scenario(tmp_path: Path):
    (tmp_path / "flows.csv").write_text("src,dst,start_s,size_bytes\ns0,r1,0.1,5000\ns2,r3,0.2,\n")
    sc = tmp_path / "csv.toml"
    sc.write_text(SMALL + '\n[[workload]]\nkind = "csv"\nname = "listed"\nfile = "flows.csv"\n')
    out = tmp_path / "out"
    routerlab("run", str(sc), "--out", str(out), check=True, cwd="/")
    flows = pq.read_table(out / "flows.parquet").to_pydict()
    listed = [i for i, g in enumerate(flows["group"]) if g == "listed"]
    assert [flows["src"][i] for i in listed] == ["s0", "s2"]
    assert [flows["size_bytes"][i] for i in listed] == [5000, None]


CP_INCAST = """
[run]
duration = "200ms"

[topology]
kind = "star"
senders = {n}
access = {{ rate = "1Gbps", delay = "25us" }}
bottleneck = {{ rate = "1Gbps", delay = "25us", queue = {{ kind = "cp", data = {{ {data} }} }} }}

[transport]
cp = true

[[workload]]
kind = "incast"
block = "64KB"
rounds = 2
start = "1ms"
"""


@pytest.mark.parametrize("n", [8, 40])
def test_run_warns_when_cp_input_exceeds_its_header_buffers_condition(tmp_path: Path, n: int):
    # 8 senders at line rate cannot bring 13.1 × the output rate; 40 synchronized ones do.
    scenario = tmp_path / "cp.toml"
    scenario.write_text(CP_INCAST.format(n=n, data='kind = "droptail", limit = "64pkts"'))
    p = routerlab("run", str(scenario), "--out", str(tmp_path / "out"), check=True)
    links = pq.read_table(tmp_path / "out" / "links.parquet").to_pylist()
    port = next(r for r in links if r["link"] == "switch->r0")
    assert all(r["cp_overload_s"] == 0 for r in links if r is not port)
    if n == 8:
        assert port["cp_overload_s"] == 0 and "warning" not in p.stderr
    else:
        assert port["cp_overload_s"] > 0 and port["header_drops"] > 0
        assert "warning: CP on switch->r0: input exceeded 13.1x the output rate" in p.stderr


def test_super_packets_on_the_wire_and_in_the_stages_table(tmp_path: Path):
    # SP senders on every flow and the SPManager at the bottleneck: the capture shows the
    # paper's marks (first flag and length in the ToS byte, one identifier per SP), and the
    # manager's counters agree with the senders'. Two runs give the same bytes.
    from pcapreader import read

    sc = tmp_path / "sp.toml"
    text = SMALL.replace('limit = "40pkts" }', 'limit = "40pkts" }, sp = {}')
    sc.write_text(text + '\n[transport]\nsp = true\n\n[output]\npcap = ["left->right"]\n')
    runs = [tmp_path / f"{i}" for i in range(2)]
    for out in runs:
        routerlab("run", str(sc), "--out", str(out), check=True)
    assert (runs[0] / "stages.parquet").read_bytes() == (runs[1] / "stages.parquet").read_bytes()
    st = pq.read_table(runs[0] / "stages.parquet").to_pydict()
    c = {}
    for stage, counter, value in zip(st["stage"], st["counter"], st["value"], strict=True):
        c[stage, counter] = c.get((stage, counter), 0) + value
    assert set(st["stage"]) == {"sp-manager", "sp-sender"}
    assert {a for a, s in zip(st["at"], st["stage"], strict=True) if s == "sp-manager"} == {
        "left->right",
        "right->left",
    }, "both switch ends of the bottleneck"
    assert (
        c["sp-manager", "sps_admitted"] + c["sp-manager", "sps_refused"]
        == c["sp-sender", "sps_sent"]
    )
    assert c["sp-sender", "sps_sent"] > 0
    _, recs = read(runs[0] / "pcap" / "left_to_right.pcap")
    sps: dict[tuple, list[int]] = {}
    for r in recs:
        tos = r.ip["tos"]
        if tos & 0x3F:  # part of a super-packet
            sps.setdefault((r.ip["src"], r.ip["id"], tos & 0x3F), []).append(tos & 0x80)
    assert sps, "super-packets crossed the bottleneck"
    # Every admitted SP that crossed whole starts with its first flag and has `length` packets.
    whole = [(k, flags) for k, flags in sps.items() if len(flags) == k[2]]
    assert whole and all(flags[0] and not any(flags[1:]) for _, flags in whole)


# --- the work a scenario implies is bounded before anything is built -----------------------


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (("pairs = 6", "pairs = 5000000"), "topology.pairs"),
        (("flows = 6", "flows = 1000000000"), "workload[1].flows"),
    ],
)
def test_an_absurd_scenario_is_refused_at_once_with_its_field_and_estimate(
    tmp_path: Path, change, path
):
    sc = tmp_path / "absurd.toml"
    sc.write_text(SMALL.replace(*change))
    t0 = time.monotonic()
    r = routerlab("validate", str(sc), "--max-memory", "16GB")
    assert r.returncode == 2, r.stderr
    assert f"{path}: this scenario needs about" in r.stderr
    assert "over the limit of 14.9 GiB" in r.stderr and "--max-memory" in r.stderr
    assert "Traceback" not in r.stderr
    assert time.monotonic() - t0 < 10, "refused before building anything"


def test_the_limits_are_flags_and_validate_reports_the_estimate(tmp_path: Path):
    sc = tmp_path / "dense.toml"  # 3.6 × 10^6 timeseries rows: about 1.4 GiB in memory
    sc.write_text(SMALL.replace("[[workload]]", '[output]\ntimeseries = "10us"\n[[workload]]', 1))
    tight = routerlab("validate", str(sc), "--max-memory", "1GB")
    assert tight.returncode == 2 and "output.timeseries: this scenario needs about" in tight.stderr
    roomy = routerlab("validate", str(sc), "--max-memory", "4GB", check=True)
    assert "ok (about 1." in roomy.stdout and "GiB of memory" in roomy.stdout
    out = routerlab("validate", str(sc), "--max-output", "1MB")
    assert out.returncode == 2 and "would write about" in out.stderr
    assert "--max-output" in out.stderr
    env = {**os.environ, "ROUTERLAB_MAX_MEMORY": "1GB"}
    assert routerlab("validate", str(sc), env=env).returncode == 2
    # `run` is held to the same limit, before anything is written.
    out_dir = tmp_path / "out"
    ran = routerlab("run", str(sc), "--max-memory", "1GB", "--out", str(out_dir))
    assert ran.returncode == 2 and "output.timeseries:" in ran.stderr and not out_dir.exists()
    bad = routerlab("validate", str(sc), "--max-memory", "lots")
    assert bad.returncode == 2 and "'lots' is not a size in bytes" in bad.stderr


def test_a_step_returns_within_its_time_however_many_events_it_may_take():
    from routerlab import _core

    run = _core.Run(SMALL.replace('duration = "3s"', 'duration = "100000s"'), None, None)
    t0 = time.perf_counter()
    assert run.step(10**15, 0.05) is False
    assert time.perf_counter() - t0 < 0.5
    assert run.events > 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_run_returns_within_a_second(tmp_path: Path, sig):
    long = tmp_path / "long.toml"
    long.write_text(
        SMALL.replace('duration = "3s"', 'duration = "100000s"').replace("pairs = 6", "pairs = 400")
    )
    args = ["run", str(long), "--out", str(tmp_path / "out")]
    status, err = interrupt_while_writing(args, tmp_path, 1.0, sig)  # a second into the run
    assert status == 130, err
    assert interrupt_while_writing.took < 1.0


def test_a_packet_too_large_for_a_middle_link_is_dropped_and_counted():
    # The links between switches differ in MTU, so validation checks only the path's ends;
    # the 576-byte link in the middle drops every full segment (DF set), and says so.
    import routerlab

    r = routerlab.run(
        """
[run]
duration = "100ms"
[topology]
kind = "explicit"
node = [ { name = "a", kind = "host" }, { name = "s1", kind = "switch" },
         { name = "s2", kind = "switch" }, { name = "s3", kind = "switch" },
         { name = "b", kind = "host" } ]
link = [
  { between = ["a", "s1"], rate = "1Gbps", delay = "10us" },
  { between = ["s1", "s2"], rate = "1Gbps", delay = "10us" },
  { between = ["s2", "s3"], rate = "1Gbps", delay = "10us", mtu = 576 },
  { between = ["s3", "b"], rate = "1Gbps", delay = "10us" },
]
[[workload]]
kind = "bulk"
src = "a"
dst = "b"
"""
    )
    links = r.links.set_index("link")
    assert links.loc["s2->s3", "drops"] > 0 and links.loc["s2->s3", "tx_packets"] > 0
    assert r.summary["drops"] == links["drops"].sum() and r.summary["goodput_bps"] == 0


@pytest.mark.parametrize(
    ("verb", "path", "says"),
    [
        ("run", "examples/sweeps/buffers.toml", "a sweep file (it has `sweep`), not a scenario"),
        ("validate", "experiments/base-loss.toml", "routerlab reproduce base-loss"),
        ("sweep", "examples/dumbbell.toml", "routerlab run examples/dumbbell.toml"),
    ],
)
def test_a_file_given_to_the_wrong_command_is_named_for_what_it_is(verb, path, says, tmp_path):
    out = ["--out", str(tmp_path / "out")] if verb != "validate" else []
    p = routerlab(verb, path, *out, cwd=ROOT)
    assert p.returncode == 2
    assert says in p.stderr
    assert "unknown key" not in p.stderr
    assert not (tmp_path / "out").exists()


# --- routerlab plot ------------------------------------------------------------------------


def test_plot_draws_a_run_and_says_what_it_did_not_record(scenario: Path, tmp_path: Path):
    bare, full = tmp_path / "bare", tmp_path / "full"
    routerlab("run", str(scenario), "--out", str(bare), "-q", check=True)
    recorded = tmp_path / "recorded.toml"
    recorded.write_text(SMALL + '\n[output]\ntimeseries = "10ms"\nqueues = "10ms"\n')
    routerlab("run", str(recorded), "--out", str(full), "-q", check=True)
    for out in (bare, full):
        p = routerlab("plot", str(out), check=True)
        assert p.stdout.split() == [str(out / "figures" / f"run.{x}") for x in ("png", "svg")]
    bare_svg = (bare / "figures" / "run.svg").read_text()
    assert 'timeseries = "10ms"' in bare_svg and 'queues = "1ms"' in bare_svg
    full_svg = (full / "figures" / "run.svg").read_text()
    assert "not recorded" not in full_svg and "congestion window over time" in full_svg
    # The mice complete: their completion times are drawn, in both.
    assert "6 of 6 transfers completed" in bare_svg
    routerlab("plot", str(full), "-q", check=True)  # drawn again: the same bytes
    assert (full / "figures" / "run.svg").read_text() == full_svg


def test_plot_refuses_a_directory_that_is_not_a_run(tmp_path: Path):
    p = routerlab("plot", str(tmp_path))
    assert p.returncode == 2 and "not a run's result directory" in p.stderr


def test_a_result_plots_itself_for_a_notebook(scenario: Path):
    import routerlab as rl

    fig = rl.run(scenario).plot()
    assert len(fig.axes) == 6 and "goodput per flow" in fig.axes[0].get_title()
