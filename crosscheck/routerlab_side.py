"""The routerlab side of the crosscheck: each grid point (`grid.py`) as a routerlab scenario,
run in-process; the result is reduced to the same raw counters the ns-3 side reports
(`ns3_side.Report`), so that `records.py` computes every metric the same way for both.

Every TCP option is written out (none is left to a default), as the ns-3 side sets every
attribute.
"""

from __future__ import annotations

import grid

import routerlab

TRANSPORT = """
[transport]
cc = {cc}
ecn = {ecn}
mss = 1460
init_cwnd = 10
sack = true
timestamps = {timestamps}
rtt_model = "{rtt_model}"
recovery = "prr"
sack_rtt = false
grow_at_recovery_exit = true
timeout_reduces_again = true
frto = false
limited_transmit_beyond_pipe = {lt_beyond_pipe}
nextseg_rule3 = false
partial_ack_resend = {partial_ack_resend}
head_resend_restarts_rto = false
rack = false
tlp = false
dsack = false
sack_fin = false
cwnd_validation = "{cwnd_validation}"
ssthresh_base = "{ssthresh_base}"
lost_retransmit_detection = {lost_retransmit_detection}
slow_start_after_idle = false
delayed_ack = false
min_rto = "{min_rto}"
rto_granularity = "0s"
initial_rto = "1s"
syn_rto = "1s"
rcv_buf = "16MiB"
"""

CC = {
    "newreno": '{{ kind = "newreno", increase = "{reno_increase}" }}',
    "cubic": '{{ kind = "cubic", hystart = {hystart}, model = "{cubic_model}" }}',
    "dctcp": '{{ kind = "dctcp", g = 0.0625, alpha_init = 1.0, min_cwnd = 2 }}',
}


def transport(p: grid.Dumbbell | grid.Incast, cc: str) -> str:
    hystart = str(getattr(p, "hystart", True)).lower()
    return TRANSPORT.format(
        cc=CC[cc].format(
            hystart=hystart,
            cubic_model=getattr(p, "cubic_model", "rfc9438"),
            reno_increase=p.reno_increase,
        ),
        min_rto=f"{p.min_rto_ms:g}ms",
        timestamps=str(p.timestamps).lower(),
        rtt_model=p.rtt_model,
        cwnd_validation=p.cwnd_validation,
        ssthresh_base=p.ssthresh_base,
        lost_retransmit_detection=str(p.lost_retransmit_detection).lower(),
        lt_beyond_pipe=str(p.lt_beyond_pipe).lower(),
        partial_ack_resend=str(p.partial_ack_resend).lower(),
        ecn=str(getattr(p, "ecn", False)).lower(),  # DCTCP negotiates ECN whatever this says
    )


def red_queue(p: grid.Dumbbell) -> str:
    """The RED bottleneck, every parameter written out."""
    wait, min_queue = (True, 2) if p.red_rules == "ns2" else (False, 0)
    return (
        f'{{ kind = "red", limit = "{p.buffer_pkts}pkts", min_th = "5pkts", max_th = "15pkts", '
        f"max_p = 0.1, w_q = 0.002, gentle = true, harddrop = true, ecn = {str(p.ecn).lower()}, "
        f"wait = {str(wait).lower()}, early_min_queue = {min_queue} }}"
    )


def scenario(p: grid.Dumbbell | grid.Incast, k: int) -> str:
    """The routerlab scenario of point `p` under perturbation `k`."""
    ms = lambda x: f"{x:g}ms"  # noqa: E731
    if p.kind == "dumbbell":
        mark = f', ecn_threshold = "{p.mark_pkts}pkts"' if p.mark_pkts is not None else ""
        queue = f'{{ kind = "droptail", limit = "{p.buffer_pkts}pkts"{mark} }}'
        if p.red:
            queue = red_queue(p)
        bottleneck = f'rate = "{p.bottleneck_mbps:g}Mbps", delay = "{ms(p.bottleneck_delay_ms)}"'
        starts = ", ".join(f'"{t:.9f}s"' for t in p.starts(k))
        return f"""
[run]
duration = "{p.duration_s:g}s"
[topology]
kind = "dumbbell"
pairs = {p.flows}
access = {{ rate = "1Gbps", delay = "{ms(p.access_delay_ms)}", framing = 2 }}
bottleneck = {{ {bottleneck}, framing = 2, queue = {queue} }}
{transport(p, p.cc)}
[[workload]]
kind = "bulk"
start = [{starts}]
jitter = "0s"
"""
    opens = ", ".join(f'"{t:.9f}s"' for t in p.opens(k))
    delays = ", ".join(f'"{d:g}us"' for d in p.access_delays_us(k))
    link = f'rate = "{p.rate_gbps:g}Gbps", delay = "{p.link_delay_us:g}us", framing = 2'
    return f"""
[run]
duration = "{p.duration_s:g}s"
[topology]
kind = "star"
senders = {p.senders}
access = {{ {link} }}
bottleneck = {{ {link}, queue = {{ kind = "droptail", limit = "{p.buffer_pkts}pkts" }} }}
sender_delays = [{delays}]
{transport(p, "newreno")}
[[workload]]
kind = "incast"
block = "{p.block_bytes}B"
rounds = {p.rounds}
start = "{p.first_round_s:g}s"
jitter = "0s"
connect = "first"
open = [{opens}]
"""


def run(point_name: str, k: int) -> dict:
    """One run: the raw counters in the ns-3 side's form."""
    p = grid.point(point_name)
    r = routerlab.run(scenario(p, k), seed=1 + k, progress=False)
    flows = r.flows
    links = r.links
    port = "left->right" if p.kind == "dumbbell" else "switch->r0"
    drops = int(links.loc[links["link"] == port, "drops"].iloc[0])
    raw = {
        "end": r.summary["sim_seconds"],
        "drops": drops,
        "flows": [
            {
                "start": float(f.start_s),
                "rx": int(f.bytes_delivered),
                "retx": int(f.retransmissions),
                "timeouts": int(f.timeouts),
                "syn_timeouts": int(f.syn_timeouts),
                "recoveries": int(f.fast_recoveries),
            }
            for f in flows.itertuples()
        ],
        "fcts": [],
        "first_round": -1.0,
        "last_end": -1.0,
        "rounds_done": 0,
    }
    if p.kind == "incast":
        t = r.table("transfers")
        # Rounds in order, as the ns-3 side records them (`records.slow_rounds` reads them so).
        done = t[t["end_s"].notna()].sort_values(["seq", "end_s"])
        raw["fcts"] = [float(x) for x in (done["end_s"] - done["start_s"])]
        raw["first_round"] = float(t["start_s"].min())
        raw["last_end"] = float(done["end_s"].max()) if len(done) else -1.0
        per_round = done.groupby("seq").size()
        raw["rounds_done"] = int((per_round == p.senders).sum())
    return raw
