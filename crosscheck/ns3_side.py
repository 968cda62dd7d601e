"""The ns-3 side of the crosscheck: each grid point (`grid.py`) as an ns-3 3.44 simulation,
driven through the `ns3` wheel (cppyy). The simulation itself is C++, compiled once per process
by cppyy, so that no Python runs per packet.

Run by `run.py` in its own virtual environment (the wheel is large and pins its own
interpreter's packages): it reads a JSON list of runs on stdin, `[{"point": name, "k": k}]`,
and prints one JSON object per run on stdout (`records.py` turns them into metrics); a job with
`"pcap": DIR` also captures the incast's ports there (`pcap_trace.py`).

Configured explicitly, because ns-3's defaults differ from Linux's and ours
(docs/crosscheck.md): no queue discs (ns-3 installs FqCoDel on every device) but on a DCTCP
bottleneck, device queues of the point's size, 1 Gbps access queues of 1000 packets, SegmentSize
1448 with timestamps, SACK (on the `…/ns3-linux-rtt` points a `TcpSocketBase` that takes RTT
samples as Linux does; on the `…/ns3-linux-cwr` points one that enters fast recovery from CWR as
Linux does), PRR (`TcpPrrRecovery`, or on the `…/ns3-rfc6937-prr` points the same
counting each delivered byte once, as RFC 6937 does), window scaling, initial window 10, no
delayed ACKs (DelAckCount 1), MinRto as the point says, ClockGranularity 1 ns (ours is 0),
ConnTimeout 1 s (ns-3: 3 s), DataRetries 100, 16 MiB buffers; CUBIC with ns-3's defaults
(HyStart on), DCTCP with g = 1/16 and marking by a RED queue disc at K (QW = 1, MinTh = MaxTh);
a RED bottleneck as a RED queue disc on ns-2's defaults (MinTh 5, MaxTh 15, LInterm 10, QW
0.002, Gentle, Wait, UseHardDrop), its LinkBandwidth and LinkDelay the bottleneck's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import grid

CPP = (Path(__file__).parent / "ns3_scenarios.cc").read_text()

_compiled = False


def _compile():
    global _compiled
    if not _compiled:
        import cppyy
        from ns import ns  # noqa: F401  (loads the libraries and headers)

        cppyy.cppdef(CPP)
        _compiled = True
    import cppyy

    return cppyy.gbl.xc


def run(point_name: str, k: int, pcap_dir: str = "") -> dict:
    """One run of a grid point under perturbation k: the raw counters (see `Report`); an incast
    also captures its ports into `pcap_dir`, if given (`pcap_trace.py`)."""
    xc = _compile()
    xc.SetPcapDir(pcap_dir)
    p = grid.point(point_name)
    if p.kind == "dumbbell":
        out = xc.Dumbbell(
            p.flows,
            p.cc,
            p.bottleneck_mbps,
            p.buffer_pkts,
            -1 if p.mark_pkts is None else p.mark_pkts,
            p.access_delay_ms,
            p.bottleneck_delay_ms,
            p.duration_s,
            p.min_rto_ms,
            p.timestamps,
            p.hystart,
            p.red,
            p.ecn,
            p.ns3_prr == "rfc6937",
            p.ns3_cwr == "linux",
            p.starts(k),
        )
    else:
        out = xc.Incast(
            p.senders,
            p.buffer_pkts,
            p.min_rto_ms,
            p.block_bytes,
            p.rounds,
            p.rate_gbps,
            p.link_delay_us,
            p.first_round_s,
            p.duration_s,
            p.timestamps,
            p.ns3_rtt == "linux",
            p.ns3_prr == "rfc6937",
            p.ns3_loss_exit == "linux",
            p.opens(k),
            p.access_delays_us(k),
        )
    return json.loads(str(out))


def main() -> None:
    for job in json.load(sys.stdin):
        raw = run(job["point"], job["k"], job.get("pcap", ""))
        print(json.dumps({"point": job["point"], "k": job["k"], "raw": raw}), flush=True)


if __name__ == "__main__":
    main()
