"""The crosscheck's canonical scenarios: each point is configured once here and built twice,
as a routerlab scenario (`routerlab_side.py`) and as an ns-3 simulation (`ns3_side.py`), from
the same numbers, with the same start-time perturbations.

Choices shared by both sides (docs/crosscheck.md):
- links are point-to-point; ns-3's PPP header (2 bytes) is routerlab's `framing = 2`;
- a bottleneck buffer of L packets holds L packets waiting (the one in transmission aside);
- TCP as Linux runs it: SACK, timestamps (payload 1448 on a 1500-byte MTU), PRR, initial
  window 10, no delayed ACKs, minimum RTO as the point says, RTO = max(min RTO, SRTT +
  4·RTTVAR) (clock granularity 0), SYN timeout 1 s;
- perturbation k shifts every start (dumbbell flows, incast connections) by its own draw, the
  same numbers in both simulators.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

PERTURBATIONS = 5


@dataclass(frozen=True, kw_only=True)
class TcpChoices:
    """The TCP choices every point has, by keyword: the options both simulators share, the
    rules routerlab or ns-3 can take from the other, and which point's ns-3 runs it takes."""

    timestamps: bool = True
    rtt_model: str = "linux"  # routerlab only: "ns3" takes RTT samples as ns-3 does
    # routerlab only: when the window may grow; "none" grows it on every ACK, as ns-3's NewReno
    cwnd_validation: str = "last-send"
    # routerlab only: what a reduction scales; "pipe" as ns-3's `BytesInFlight`, "cwnd" as Linux
    ssthresh_base: str = "flight"
    # routerlab only: resend a retransmission found lost from later SACKs (Linux); ns-3 waits
    # for the timer (its `NextSeg` never picks a retransmitted segment again)
    lost_retransmit_detection: bool = True
    # routerlab only, NewReno: "per-ack" grows the window one step per ACK, as ns-3's
    # `TcpNewReno` does (RFC 5681 eq. 2 and 3); "bytes" by the bytes acknowledged, as Linux
    reno_increase: str = "bytes"
    # routerlab only: with SACK, limited transmit also sends RFC 3042's segments beyond cwnd,
    # on top of what SACKs free in the pipe (`limited_transmit_beyond_pipe`, routerlab's older
    # model); ns-3 and Linux let the pipe and cwnd alone govern it
    lt_beyond_pipe: bool = False
    # routerlab only: on a partial ACK in a SACK recovery, one segment out whatever the window
    # (the next presumed lost, new data, or the head), as ns-3's `ProcessAck` (`DoRetransmit`);
    # RFC 6675 and Linux only update the scoreboard
    partial_ack_resend: bool = False
    # ns-3 only: "rfc6937" is ns-3's PRR counting each delivered byte once, as RFC 6937 does
    # (ns-3's `TcpPrrRecovery` counts one more segment per duplicate ACK).
    ns3_prr: str = "ns3"
    ns3_same_as: str | None = None  # ns-3's runs are this point's (only routerlab changed)

    def perturbation_key(self) -> str:
        """What perturbation k is drawn from: the name of the point whose ns-3 runs this one
        is compared with, so that a point changing routerlab only replays ns-3's very starts
        and delays."""
        return self.ns3_same_as or self.name


@dataclass(frozen=True)
class Dumbbell(TcpChoices):
    """N long-lived flows through one bottleneck (1 Gbps access, 10 ms RTT by default)."""

    name: str
    flows: int
    cc: str  # "newreno", "cubic" or "dctcp"
    bottleneck_mbps: float = 250.0
    buffer_pkts: int = 100
    mark_pkts: int | None = None  # DCTCP: mark CE at or above this many packets waiting
    access_delay_ms: float = 1.0
    bottleneck_delay_ms: float = 3.0  # RTT = 2·(2·1 + 3) = 10 ms
    duration_s: float = 10.0
    min_rto_ms: float = 200.0
    hystart: bool = True  # CUBIC only
    cubic_model: str = "rfc9438"  # routerlab only: "linux" is Linux's arithmetic (ns-3 follows it)
    # ns-3 only: "linux" is ns-3's TCP entering fast recovery from CWR (after an ECN echo) as
    # Linux does (`LinuxCwrSocket`); ns-3's own waits for the retransmission timer there.
    ns3_cwr: str = "ns3"
    # A RED bottleneck on ns-2's defaults (min_th 5, max_th 15 packets, max_p 0.1, w_q 0.002,
    # gentle, hard drop, wait, no drop into a queue of fewer than 2), instead of drop-tail.
    red: bool = False
    ecn: bool = False  # RED marks, and the endpoints negotiate ECN (RFC 3168)
    red_rules: str = "ns2"  # routerlab only: "linux" is RED without wait and the spared queue
    kind: str = field(default="dumbbell", init=False)

    def starts(self, k: int) -> list[float]:
        """Flow i starts at i ms plus a perturbation in [0, 1 ms)."""
        rng = random.Random(f"{self.perturbation_key()}/{k}")
        return [round(i * 1e-3 + rng.random() * 1e-3, 9) for i in range(self.flows)]


@dataclass(frozen=True)
class Incast(TcpChoices):
    """N senders return a block each to one receiver through one switch port, in rounds that
    wait for the last block (partition–aggregate), over persistent connections."""

    name: str
    senders: int
    buffer_pkts: int
    min_rto_ms: float
    block_bytes: int = 20_000
    rounds: int = 10
    rate_gbps: float = 1.0
    link_delay_us: float = 25.0  # RTT = 4·25 µs = 100 µs
    delay_spread_us: float = 0.0  # each sender's access link: link_delay_us + U[0, spread)
    first_round_s: float = 0.1
    duration_s: float = 30.0  # a cap: the rounds end the run
    # ns-3 only: "linux" is ns-3's TCP taking RTT samples as Linux does (`LinuxRttSocket`).
    ns3_rtt: str = "ns3"
    # ns-3 only: "linux" is ns-3's TCP growing the window on the ACK that ends a timeout's
    # recovery by all it delivers, as Linux does (`LinuxLossExitSocket`); ns-3's own counts only
    # the segments above the recovery point there.
    ns3_loss_exit: str = "ns3"
    kind: str = field(default="incast", init=False)

    def access_delays_us(self, k: int) -> list[float]:
        """Sender i's access link delay under perturbation k: the link delay plus a draw in
        [0, delay_spread_us), so that the rounds themselves differ between perturbations."""
        rng = random.Random(f"{self.perturbation_key()}/{k}/delays")
        return [
            round(self.link_delay_us + rng.random() * self.delay_spread_us, 3)
            for _ in range(self.senders)
        ]

    def opens(self, k: int) -> list[float]:
        """Connection i opens at i·20 µs plus a perturbation in [0, 20 µs): spread, so that
        the handshakes do not overflow the buffer before the first round."""
        rng = random.Random(f"{self.perturbation_key()}/{k}")
        return [round(i * 20e-6 + rng.random() * 20e-6, 9) for i in range(self.senders)]


# routerlab on ns-3's rules (the `…/ns3-tcp` variations): its RTT samples and backoff, window
# growth on every ACK, the pipe scaled at a reduction, lost retransmissions left to the timer.
NS3_RULES = dict(
    rtt_model="ns3", cwnd_validation="none", ssthresh_base="pipe", lost_retransmit_detection=False
)


def points() -> list[Dumbbell | Incast]:
    """The grid of issue 40 (four dumbbells and eight incasts), then the variations that show
    where a difference comes from (docs/crosscheck.md): the same point with one option
    switched in both simulators, named `<point>/<change>`."""
    grid: list[Dumbbell | Incast] = [
        Dumbbell("dumbbell-newreno-20", 20, "newreno"),
        Dumbbell("dumbbell-newreno-100", 100, "newreno"),
        Dumbbell("dumbbell-cubic-20", 20, "cubic"),
        Dumbbell("dumbbell-dctcp-20", 20, "dctcp", mark_pkts=30),
    ]
    for n in (40, 120):
        for buf in (64, 256):
            for rto in (1.0, 200.0):
                grid.append(Incast(f"incast-{n}-{buf}pkts-{rto:g}ms", n, buf, rto))
    # ns-3 takes every RTT sample from the timestamp echo, in whole milliseconds.
    for n in (40, 120):
        for buf in (64, 256):
            grid.append(
                Incast(f"incast-{n}-{buf}pkts-1ms/no-timestamps", n, buf, 1.0, timestamps=False)
            )
    # ns-3's HyStart is Linux's before 5.7.
    grid.append(Dumbbell("dumbbell-cubic-20/no-hystart", 20, "cubic", hystart=False))
    # CUBIC in Linux's arithmetic, whole segments (ns-3 follows it); ns-3 unchanged.
    grid.append(
        Dumbbell(
            "dumbbell-cubic-20/linux-cubic",
            20,
            "cubic",
            cubic_model="linux",
            ns3_same_as="dumbbell-cubic-20",
        )
    )
    # RED with ECN on its default thresholds, far below the 117-packet BDP (issue 42): two
    # CUBIC flows, 100 Mbps, 14 ms RTT; without ECN; and routerlab's RED by Linux's rules.
    red = Dumbbell(
        "red-ecn-cubic-2",
        2,
        "cubic",
        bottleneck_mbps=100.0,
        bottleneck_delay_ms=5.0,
        red=True,
        ecn=True,
    )
    grid += [
        red,
        replace(red, name="red-ecn-cubic-2/no-ecn", ecn=False),
        replace(red, name="red-ecn-cubic-2/linux-rules", red_rules="linux", ns3_same_as=red.name),
    ]
    # ns-3 entering fast recovery from CWR as Linux does; routerlab unchanged.
    for p in [q for q in grid if q.name in ("dumbbell-dctcp-20", "red-ecn-cubic-2")]:
        grid.append(replace(p, name=f"{p.name}/ns3-linux-cwr", ns3_cwr="linux"))
    # ... and with ns-3's PRR counting as RFC 6937 does, on the RED points.
    for p in [q for q in grid if q.name in ("red-ecn-cubic-2", "red-ecn-cubic-2/no-ecn")]:
        grid.append(replace(p, name=f"{p.name}/ns3-rfc6937-prr", ns3_prr="rfc6937"))
    grid.append(
        replace(
            point_in(grid, "red-ecn-cubic-2/ns3-linux-cwr"),
            name="red-ecn-cubic-2/ns3-linux-cwr/ns3-rfc6937-prr",
            ns3_prr="rfc6937",
        )
    )
    # ... and with HyStart off in both: every drop there falls in the first slow start.
    grid.append(
        replace(
            point_in(grid, "red-ecn-cubic-2/ns3-linux-cwr/ns3-rfc6937-prr"),
            name="red-ecn-cubic-2/ns3-linux-cwr/ns3-rfc6937-prr/no-hystart",
            hystart=False,
        )
    )
    # Rounds that differ between perturbations: each sender's access link 0–5 µs longer.
    for q in [q for q in grid if q.kind == "incast"]:
        grid.append(replace(q, name=f"{q.name}/delay-spread", delay_spread_us=5.0))
    # routerlab taking RTT samples and ending the RTO's backoff as ns-3 does (its
    # `transport.rtt_model = "ns3"`); ns-3 unchanged, so its runs are the base point's.
    for p in [q for q in grid if q.kind == "incast" and q.min_rto_ms == 1.0] + [
        q for q in grid if q.name in ("dumbbell-newreno-100", "dumbbell-cubic-20")
    ]:
        grid.append(replace(p, name=f"{p.name}/ns3-rtt", rtt_model="ns3", ns3_same_as=p.name))
    # ns-3 taking RTT samples as Linux does; routerlab unchanged (the 1 ms incasts, where the
    # sampling decides the timeouts; also with the delay spread, whose rounds differ).
    for p in [q for q in grid if q.kind == "incast" and q.min_rto_ms == 1.0]:
        if p.rtt_model == "linux":
            grid.append(replace(p, name=f"{p.name}/ns3-linux-rtt", ns3_rtt="linux"))
    # routerlab growing NewReno's window on every ACK, as ns-3's `TcpNewReno::IncreaseWindow`
    # does whether or not the window limits sending; ns-3 unchanged.
    for p in [
        q
        for q in grid
        if q.name
        in (
            "dumbbell-newreno-20",
            "incast-120-64pkts-1ms/no-timestamps",
            "incast-40-256pkts-200ms/delay-spread",
        )
    ]:
        grid.append(
            replace(p, name=f"{p.name}/ns3-cwnd-growth", cwnd_validation="none", ns3_same_as=p.name)
        )
    # routerlab growing NewReno's window per ACK (RFC 5681 eq. 2 and 3), as ns-3's
    # `TcpNewReno::SlowStart` and `CongestionAvoidance` do, not by the bytes acknowledged as
    # Linux does; ns-3 unchanged.
    for p in [q for q in grid if q.name in ("dumbbell-newreno-20", "dumbbell-newreno-100")]:
        grid.append(
            replace(
                p, name=f"{p.name}/ns3-reno-increase", reno_increase="per-ack", ns3_same_as=p.name
            )
        )
    # routerlab's older limited transmit with SACK (two new segments per early duplicate ACK);
    # ns-3 unchanged.
    for p in [q for q in grid if q.name in ("dumbbell-newreno-100", "dumbbell-newreno-20")]:
        grid.append(
            replace(p, name=f"{p.name}/lt-beyond-pipe", lt_beyond_pipe=True, ns3_same_as=p.name)
        )
    # routerlab scaling the pipe at a reduction, as ns-3's `GetSsThresh(BytesInFlight())`; ns-3
    # unchanged.
    for p in [
        q for q in grid if q.name in ("dumbbell-newreno-20", "incast-40-256pkts-200ms/delay-spread")
    ]:
        grid.append(
            replace(p, name=f"{p.name}/ns3-ssthresh", ssthresh_base="pipe", ns3_same_as=p.name)
        )
    # routerlab with all of ns-3's rules above at once (RTT samples and backoff, window growth,
    # the pipe at a reduction) and without Linux's detection of lost retransmissions, which
    # ns-3 lacks; ns-3 unchanged.
    for name in (
        "incast-120-64pkts-1ms/no-timestamps",
        "incast-120-64pkts-1ms/no-timestamps/delay-spread",
        "incast-40-256pkts-200ms/delay-spread",
    ):
        p = point_in(grid, name)
        grid.append(replace(p, name=f"{name}/ns3-tcp", ns3_same_as=name, **NS3_RULES))
    # ns-3's PRR counting as RFC 6937 does, at the 200 ms incast whose rounds differ; routerlab
    # unchanged, and with all of ns-3's rules above.
    spread = point_in(grid, "incast-40-256pkts-200ms/delay-spread")
    prr = replace(spread, name=f"{spread.name}/ns3-rfc6937-prr", ns3_prr="rfc6937")
    grid.append(prr)
    grid.append(
        replace(
            point_in(grid, f"{spread.name}/ns3-tcp"),
            name=f"{prr.name}/ns3-tcp",
            ns3_same_as=prr.name,
        )
    )
    # ns-3 growing the window on the ACK that ends a timeout's recovery as Linux does
    # (`LinuxLossExitSocket`), at the 200 ms incasts, where every round after a timeout starts
    # from the windows that recovery left; routerlab unchanged, and on all of ns-3's rules above
    # with NewReno's window grown on every ACK as ns-3's (`…/ns3-tcp-per-ack`). At the point
    # with ns-3's PRR counting as RFC 6937 does, also without the per-ACK growth.
    bases = [
        q
        for q in grid
        if q.kind == "incast"
        and q.min_rto_ms == 200.0
        and q.name.count("/") <= 1
        and (q.name.count("/") == 0 or q.name.endswith("/delay-spread"))
    ]
    for q in bases + [prr]:
        exit_ = replace(q, name=f"{q.name}/ns3-linux-loss-exit", ns3_loss_exit="linux")
        grid.append(exit_)
        grid.append(
            replace(
                exit_,
                name=f"{exit_.name}/ns3-tcp-per-ack",
                reno_increase="per-ack",
                ns3_same_as=exit_.name,
                **NS3_RULES,
            )
        )
    grid.append(
        replace(
            point_in(grid, f"{prr.name}/ns3-tcp"),
            name=f"{prr.name}/ns3-linux-loss-exit/ns3-tcp",
            ns3_same_as=f"{prr.name}/ns3-linux-loss-exit",
        )
    )
    # ... and against ns-3's own rule there, NewReno grown per ACK too: the traced run of
    # docs/crosscheck.md (`pcap_trace.py`), where that rule alone sets the two apart.
    grid.append(
        replace(
            point_in(grid, f"{prr.name}/ns3-tcp"),
            name=f"{prr.name}/ns3-tcp-per-ack",
            reno_increase="per-ack",
        )
    )
    # routerlab resending on a partial ACK in a SACK recovery as ns-3's `ProcessAck` does, at
    # the 200 ms incasts whose rounds differ, where a block whose last segment is lost has it
    # resent within the recovery in ns-3 and by the timer in routerlab; against ns-3 unchanged
    # and with Linux's loss exit.
    spreads = [q for q in bases if q.name.endswith("/delay-spread")]
    for q in spreads + [point_in(grid, f"{q.name}/ns3-linux-loss-exit") for q in spreads]:
        grid.append(
            replace(
                q, name=f"{q.name}/ns3-partial-ack", partial_ack_resend=True, ns3_same_as=q.name
            )
        )
    # ns-3's PRR counting as RFC 6937 does; routerlab unchanged (CUBIC also in Linux's
    # arithmetic, which ns-3's follows).
    for p in [q for q in grid if q.name in ("dumbbell-newreno-20", "dumbbell-cubic-20")]:
        grid.append(replace(p, name=f"{p.name}/ns3-rfc6937-prr", ns3_prr="rfc6937"))
    grid.append(
        replace(
            point_in(grid, "dumbbell-cubic-20/linux-cubic"),
            name="dumbbell-cubic-20/linux-cubic/ns3-rfc6937-prr",
            ns3_prr="rfc6937",
            ns3_same_as="dumbbell-cubic-20/ns3-rfc6937-prr",
        )
    )
    return grid


def point_in(grid: list[Dumbbell | Incast], name: str) -> Dumbbell | Incast:
    return next(p for p in grid if p.name == name)


def ns3_point(name: str) -> str:
    """The point whose ns-3 runs stand for `name` (itself unless only routerlab changed)."""
    return point(name).ns3_same_as or name


def point(name: str) -> Dumbbell | Incast:
    for p in points():
        if p.name == name:
            return p
    raise KeyError(name)
