"""Trace one incast point of the crosscheck packet by packet in both simulators, to find where
they part when their counters differ: every packet lost at the switch port, with its flow, its
round and its segment's place in the block, and per round the losses and timeouts.

Both simulators capture every sender's port and the switch's port towards the receiver
(routerlab through `[output] pcap`, ns-3 through its point-to-point pcap); a packet a sender
sent that never leaves the switch port was dropped there (each port is FIFO, so a flow's
packets are matched in order). A timeout is a flow's send after a silence of at least half the
minimum RTO inside a round.

    python crosscheck/pcap_trace.py POINT [--k 0] [--ns3-python .venv-ns3/bin/python] [--out DIR]

Writes DIR/routerlab/ (its results, the captures in pcap/), DIR/ns3/ (the captures) and
DIR/drops.csv (simulator, round, flow, segment, sent_us: microseconds after the round's start),
and prints the rounds side by side.
Without `--ns3-python` only routerlab runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import struct
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import grid  # noqa: E402
import routerlab_side  # noqa: E402

PPP = 9  # ns-3's point-to-point captures: a 2-byte PPP header before IPv4


def data_segments(path: Path) -> list[tuple[float, bytes, int]]:
    """(time, source address, sequence number) of every captured TCP segment with payload."""
    raw = path.read_bytes()
    nano = struct.unpack("<I", raw[:4])[0] == 0xA1B23C4D
    skip = 2 if struct.unpack("<I", raw[20:24])[0] == PPP else 0
    out, off = [], 24
    while off < len(raw):
        sec, frac, incl, _ = struct.unpack("<IIII", raw[off : off + 16])
        ip = raw[off + 16 + skip : off + 16 + incl]
        off += 16 + incl
        ihl = (ip[0] & 0x0F) * 4
        tcp = ip[ihl:]
        payload = struct.unpack("!H", ip[2:4])[0] - ihl - (tcp[12] >> 4) * 4
        if payload > 0:
            t = sec + frac / (1e9 if nano else 1e6)
            out.append((t, ip[12:16], struct.unpack("!I", tcp[4:8])[0]))
    return out


@dataclass
class Drop:
    round: int
    flow: int
    segment: int  # the segment's place in its block, from 0
    sent_us: float  # after the round's start


@dataclass
class Round:
    start: float
    drops: int
    flows_losing: int
    timeouts: int


def trace(directory: Path, p: grid.Incast) -> tuple[list[Drop], list[Round]]:
    """The drops and rounds of one run, from the captures in `directory`."""
    sent = {i: data_segments(directory / f"s{i}_to_switch.pcap") for i in range(p.senders)}
    flow_of = {segs[0][1]: i for i, segs in sent.items() if segs}
    forwarded = defaultdict(list)
    for _, src, seq in data_segments(directory / "switch_to_r0.pcap"):
        if src in flow_of:
            forwarded[flow_of[src]].append(seq)
    mss = 1448 if p.timestamps else 1460
    first = {i: min(seq for _, _, seq in segs) for i, segs in sent.items() if segs}
    starts: dict[int, float] = {}
    lost: list[tuple[float, int, int]] = []  # (time, flow, offset in the stream)
    timeouts: dict[int, int] = defaultdict(int)
    for i, segs in sent.items():
        out = iter(forwarded[i])
        nxt = next(out, None)
        last = None
        for t, _, seq in segs:
            offset = (seq - first[i]) % 2**32
            r = offset // p.block_bytes
            starts[r] = min(starts.get(r, t), t)
            if seq == nxt:
                nxt = next(out, None)
            else:
                lost.append((t, i, offset))
            if last is not None and last[1] == r and t - last[0] >= p.min_rto_ms / 2e3:
                timeouts[r] += 1
            last = (t, r)
    block = p.block_bytes
    drops = [
        Drop(o // block, i, (o % block) // mss, (t - starts[o // block]) * 1e6)
        for t, i, o in sorted(lost)
    ]
    rounds = []
    for r in sorted(starts):
        mine = [d for d in drops if d.round == r]
        rounds.append(Round(starts[r], len(mine), len({d.flow for d in mine}), timeouts[r]))
    return drops, rounds


def run_routerlab(p: grid.Incast, k: int, directory: Path) -> None:
    ports = ['"switch->r0"'] + [f'"s{i}->switch"' for i in range(p.senders)]
    scenario = routerlab_side.scenario(p, k) + (
        f"\n[output]\npcap = [{', '.join(ports)}]\npcap_max_packets = 200000\n"
    )
    directory.mkdir(parents=True, exist_ok=True)
    toml = directory.parent / "routerlab.toml"
    toml.write_text(scenario)
    subprocess.run(
        [sys.executable, "-m", "routerlab", "run", str(toml), "--seed", str(1 + k)]
        + ["--out", str(directory), "--force", "--quiet"],
        check=True,
    )


def run_ns3(python: str, name: str, k: int, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    job = [{"point": grid.ns3_point(name), "k": k, "pcap": str(directory.resolve())}]
    subprocess.run(
        [python, str(HERE / "ns3_side.py")],
        input=json.dumps(job),
        text=True,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("point", help="an incast point of grid.py, e.g. incast-40-256pkts-200ms")
    ap.add_argument("--k", type=int, default=0, help="the perturbation (default 0)")
    ap.add_argument("--ns3-python", help="the ns-3 venv's interpreter (omit: routerlab only)")
    ap.add_argument("--out", default="results/trace", help="where to write (default results/trace)")
    a = ap.parse_args()
    p = grid.point(a.point)
    if p.kind != "incast":
        ap.error(f"{a.point}: only incast points can be traced")
    out = Path(a.out)
    run_routerlab(p, a.k, out / "routerlab")
    runs = {"routerlab": out / "routerlab" / "pcap"}
    if a.ns3_python:
        runs["ns3"] = out / "ns3"
        run_ns3(a.ns3_python, a.point, a.k, runs["ns3"])
    traced = {sim: trace(d, p) for sim, d in runs.items()}
    with open(out / "drops.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["simulator", "round", "flow", "segment", "sent_us"])
        for sim, (drops, _) in traced.items():
            w.writerows([sim, d.round, d.flow, d.segment, round(d.sent_us, 3)] for d in drops)
    print(f"{a.point}, perturbation {a.k}: per round, drops (flows losing) and timeouts")
    print("round " + "".join(f"{sim:>28}" for sim in traced))
    for r in range(max(len(rounds) for _, rounds in traced.values())):
        cells = []
        for _, rounds in traced.values():
            x = rounds[r] if r < len(rounds) else None
            cells.append(f"{x.drops:>10} ({x.flows_losing:>3}) {x.timeouts:>8}" if x else " " * 28)
        print(f"{r:>5} " + "".join(f"{c:>28}" for c in cells))
    print(f"→ {out}/drops.csv")


if __name__ == "__main__":
    main()
