"""routerlab's TCP against ns-3's stored numbers (`crosscheck/reference/ns3.json`, written by
`make crosscheck`): the rows of docs/crosscheck.md where the two agree must go on agreeing, so
that TCP fidelity cannot quietly regress. Each point is run here (a few seconds in all) and
compared with ns-3 by the crosscheck's own code and tolerances."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

CROSSCHECK = Path(__file__).resolve().parent.parent / "crosscheck"
sys.path.insert(0, str(CROSSCHECK))

import grid  # noqa: E402
import records  # noqa: E402
import routerlab_side  # noqa: E402

INCAST = ["goodput_mbps", "drops", "fct_mean_ms", "fct_p99_ms"]

# (point, metrics): rows within tolerance of ns-3, to be kept so.
AGREED = [
    ("dumbbell-newreno-20", ["goodput_mbps", "jain", "drops"]),
    ("dumbbell-newreno-100", ["goodput_mbps", "jain", "drops"]),
    # ns-3's NewReno grows per ACK (RFC 5681 eq. 3), Linux and routerlab by bytes acknowledged.
    ("dumbbell-newreno-100/ns3-reno-increase", ["goodput_mbps", "jain", "drops"]),
    ("dumbbell-cubic-20", ["goodput_mbps", "jain"]),
    ("dumbbell-cubic-20/ns3-rfc6937-prr", ["goodput_mbps", "jain", "drops"]),
    ("dumbbell-dctcp-20", ["goodput_mbps", "jain", "drops"]),
    ("incast-40-256pkts-200ms", INCAST),
    ("incast-120-64pkts-200ms", INCAST),
    ("incast-120-256pkts-200ms", INCAST),
    ("incast-120-256pkts-200ms/delay-spread", INCAST),
    # ns-3 growing the window on the ACK that ends a timeout's recovery as Linux does.
    ("incast-40-64pkts-200ms/ns3-linux-loss-exit", INCAST),
    (
        "incast-120-64pkts-200ms/delay-spread/ns3-linux-loss-exit",
        ["goodput_mbps", "drops", "fct_p99_ms"],
    ),
    ("incast-40-256pkts-1ms", INCAST),
    ("incast-40-256pkts-1ms/ns3-linux-rtt", INCAST),
    ("incast-120-64pkts-1ms/ns3-linux-rtt", ["drops", "fct_mean_ms", "fct_p99_ms"]),
    ("incast-120-256pkts-1ms/ns3-linux-rtt", INCAST),
    ("incast-120-64pkts-1ms/no-timestamps/delay-spread/ns3-tcp", INCAST),
]


def ns3_means(point: str) -> dict[str, float]:
    stored = json.loads((CROSSCHECK / "reference" / "ns3.json").read_text())
    runs = [r["metrics"] for r in stored if r["point"] == point]
    assert len(runs) == grid.PERTURBATIONS, f"{point}: the reference has {len(runs)} runs"
    return records.mean_metrics(runs)


@pytest.mark.parametrize(("point", "keys"), AGREED, ids=[p for p, _ in AGREED])
def test_routerlab_agrees_with_ns3_where_it_did(point: str, keys: list[str]):
    p = grid.point(point)
    ours = records.mean_metrics(
        [records.metrics(p, routerlab_side.run(point, k)) for k in range(grid.PERTURBATIONS)]
    )
    ns3 = ns3_means(point)
    for key in keys:
        assert records.within(key, ns3[key], ours[key]), (
            f"{point} {key}: routerlab {ours[key]:.4g} against ns-3 {ns3[key]:.4g}"
        )


def test_the_reference_covers_the_whole_grid():
    stored = json.loads((CROSSCHECK / "reference" / "ns3.json").read_text())
    have = {(r["point"], r["k"]) for r in stored}
    want = {(p.name, k) for p in grid.points() for k in range(grid.PERTURBATIONS)}
    assert have == want


def test_within_applies_the_tolerances():
    assert records.within("goodput_mbps", 100.0, 104.9)
    assert not records.within("goodput_mbps", 100.0, 105.1)
    assert records.within("jain", 0.90, 0.95) and not records.within("jain", 0.90, 0.96)
    assert records.within("drops", 100.0, 129.0) and not records.within("drops", 100.0, 131.0)
    assert records.within("timeouts", 1.0, 100.0) is None, "reported, not judged"
    assert records.within("fct_mean_ms", float("nan"), 1.0) is None


def test_a_routerlab_only_variation_replays_ns3s_perturbations():
    """A point compared with another point's ns-3 runs (`ns3_same_as`) must draw the same start
    times and delays as that point did in ns-3, or the comparison mixes two trajectories."""
    variations = [p for p in grid.points() if p.ns3_same_as]
    assert variations
    for p in variations:
        base = grid.point(p.ns3_same_as)
        for k in range(grid.PERTURBATIONS):
            if p.kind == "dumbbell":
                assert p.starts(k) == base.starts(k), p.name
            else:
                assert p.opens(k) == base.opens(k), p.name
                assert p.access_delays_us(k) == base.access_delays_us(k), p.name


def test_trace_finds_every_drop_the_port_counted(tmp_path: Path):
    """`pcap_trace.py` matches what each sender sent against what left the switch port: the drops it
    finds are the port's own count, each in a round of the run and a segment of its block."""
    import pcap_trace

    name = "incast-40-64pkts-1ms"
    p = grid.point(name)
    pcap_trace.run_routerlab(p, 0, tmp_path / "routerlab")
    drops, rounds = pcap_trace.trace(tmp_path / "routerlab" / "pcap", p)
    table = pq.read_table(tmp_path / "routerlab" / "links.parquet").to_pydict()
    port = table["drops"][table["link"].index("switch->r0")]
    assert port > 0 and len(drops) == port == sum(r.drops for r in rounds)
    assert len(rounds) == p.rounds
    segments = -(-p.block_bytes // 1448)
    assert all(0 <= d.round < p.rounds and 0 <= d.segment < segments for d in drops)
    assert all(d.sent_us >= 0 for d in drops)
