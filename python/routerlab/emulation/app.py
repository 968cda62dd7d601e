"""The traffic of one emulated host, run inside its namespace by the emulator: a server thread
per flow it receives, a client thread per flow it sends, with the kernel's own TCP.

``python -m routerlab.emulation.app PLAN.json OUT.json``. Times in the plan are absolute
``CLOCK_MONOTONIC`` seconds (the router's clock is the same one). A client opens its
connection at its start time with its congestion control (``TCP_CONGESTION``), writes its
size (or, for a bulk flow, until its stop or the run's end), closes, and reads the kernel's
``tcp_info`` of the connection just before. An incast's receiver (the aggregator) takes one
persistent connection from each sender, and at each round's start asks every sender for a
block with one byte on its connection; a sender answers after a uniform random wait in
``[0, jitter)`` with its block, and the round ends when the last block has arrived (a
partition–aggregate read). A server counts the bytes of its one connection,
hashes them (a client sends byte ``k`` of its flow as ``k mod 251``, so that what arrived can be
checked intact), and notes when the first and last arrived. At the end the host's own
counters (``/proc/net/netstat``, ``/proc/net/snmp``: per namespace) are read too.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import random
import selectors
import socket
import struct
import sys
import threading
import time

from .stream import CHUNK, pattern


def host_counters() -> dict:
    """This namespace's IP and TCP counters that say what its stack saw."""
    counters = {}
    for path in ("/proc/net/netstat", "/proc/net/snmp"):
        with open(path) as f:
            lines = f.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2], strict=False):
            kind = names.split(":")[0]
            for n, v in zip(names.split()[1:], values.split()[1:], strict=False):
                counters[f"{kind}.{n}"] = int(v)
    keep = (
        "IpExt.InCEPkts",
        "TcpExt.TCPTimeouts",
        "Tcp.RetransSegs",
        "TcpExt.TCPSackRecovery",
        "TcpExt.TCPLossProbes",
        "TcpExt.TCPLossProbeRecovery",
        "TcpExt.TCPSpuriousRTOs",
        "TcpExt.TCPDSACKRecv",
    )
    return {k: counters.get(k) for k in keep}


class TcpInfo(ctypes.Structure):
    """``struct tcp_info`` (include/uapi/linux/tcp.h) up to ``tcpi_total_rto_time`` (Linux 6.7)."""

    _fields_ = [
        (n, ctypes.c_uint8)
        for n in (
            "state",
            "ca_state",
            "retransmits",
            "probes",
            "backoff",
            "options",
            "wscale",
            "app_limited",
        )
    ]
    _fields_ += [
        (n, ctypes.c_uint32)
        for n in (
            "rto ato snd_mss rcv_mss unacked sacked lost retrans fackets last_data_sent "
            "last_ack_sent last_data_recv last_ack_recv pmtu rcv_ssthresh rtt rttvar "
            "snd_ssthresh snd_cwnd advmss reordering rcv_rtt rcv_space total_retrans"
        ).split()
    ]
    _fields_ += [
        (n, ctypes.c_uint64)
        for n in ("pacing_rate", "max_pacing_rate", "bytes_acked", "bytes_received")
    ]
    _fields_ += [
        (n, ctypes.c_uint32)
        for n in (
            "segs_out",
            "segs_in",
            "notsent_bytes",
            "min_rtt",
            "data_segs_in",
            "data_segs_out",
        )
    ]
    _fields_ += [
        (n, ctypes.c_uint64)
        for n in ("delivery_rate", "busy_time", "rwnd_limited", "sndbuf_limited")
    ]
    _fields_ += [(n, ctypes.c_uint32) for n in ("delivered", "delivered_ce")]
    _fields_ += [(n, ctypes.c_uint64) for n in ("bytes_sent", "bytes_retrans")]
    _fields_ += [
        (n, ctypes.c_uint32)
        for n in ("dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd", "rcv_wnd", "rehash")
    ]
    _fields_ += [
        ("total_rto", ctypes.c_uint16),
        ("total_rto_recoveries", ctypes.c_uint16),
        ("total_rto_time", ctypes.c_uint32),
    ]


def tcp_info(s: socket.socket) -> dict:
    raw = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, ctypes.sizeof(TcpInfo))
    buf = bytearray(ctypes.sizeof(TcpInfo))
    buf[: len(raw)] = raw
    i = TcpInfo.from_buffer(buf)
    known = len(raw) >= ctypes.sizeof(TcpInfo)  # older kernels lack the RTO totals
    return {
        "retransmissions": i.total_retrans,
        "timeouts": i.total_rto if known else None,
        "bytes_acked": i.bytes_acked,
        "delivered_ce": i.delivered_ce,
        "srtt_s": i.rtt * 1e-6,
    }


def sleep_until(t: float) -> None:
    while (left := t - time.monotonic()) > 0:
        time.sleep(min(left, 0.05))


def _no_nagle(s: socket.socket) -> socket.socket:
    """Nagle off (TCP_NODELAY), as the simulator's TCP runs: a short segment goes out with the
    data before it instead of waiting for their ACK (docs/tcp.md)."""
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def _accept(listener: socket.socket) -> socket.socket:
    conn, _ = listener.accept()
    return _no_nagle(conn)


def _listener(port: int, backlog: int = 1) -> socket.socket:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", port))
    listener.listen(backlog)
    return listener


def _connect(dst: str, port: int, cc: str, until: float) -> socket.socket:
    """A connection to ``dst:port`` with congestion control ``cc``, tried until ``until``."""
    s = _no_nagle(socket.socket())
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    s.settimeout(max(0.05, until - time.monotonic()))
    s.connect((dst, port))
    return s


def _write(s: socket.socket, offset: int, size: int | None, end: float) -> int:
    """Write the stream's bytes from ``offset`` on, ``size`` of them (None: until ``end``);
    a write that cannot finish by ``end`` (the window full) is cut off there. Returns how many
    were written."""
    done = 0
    while (size is None or done < size) and (left := end - time.monotonic()) > 0:
        s.settimeout(left)
        n = CHUNK if size is None else min(CHUNK, size - done)
        try:
            s.sendall(pattern(offset + done, n))
        except TimeoutError:
            break
        done += n
    return done


def _read_to_end(conn: socket.socket, until: float) -> dict:
    """Read a connection to its end (or ``until``): how much, when the first and last bytes
    came, and their digest."""
    got, first, last, digest = 0, None, None, hashlib.sha256()
    while (left := until - time.monotonic()) > 0:
        conn.settimeout(min(0.5, left))
        try:
            data = conn.recv(CHUNK)
        except TimeoutError:
            continue
        except OSError:
            break
        if not data:
            break
        last = time.monotonic()
        first = first if first is not None else last
        got += len(data)
        digest.update(data)
    conn.close()
    return {"received": got, "first": first, "last": last, "sha256": digest.hexdigest()}


def serve(flow: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    listener = _listener(flow["port"])
    listener.settimeout(max(0.1, until - time.monotonic()))
    ready.wait()
    try:
        conn = _accept(listener)
    except TimeoutError:
        out[flow["flow"]] = {"received": 0, "sha256": hashlib.sha256().hexdigest()}
        return
    out[flow["flow"]] = _read_to_end(conn, until)


def send(flow: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    ready.wait()
    sleep_until(flow["start"])
    end = min(until, flow["stop"] or until)
    sent, opened, info = 0, time.monotonic(), {}
    try:
        s = _connect(flow["dst"], flow["port"], flow["cc"], end)
        try:
            sent = _write(s, 0, flow["size"], end)
        finally:
            info = tcp_info(s)
            s.close()
    except OSError as e:
        info = {**info, "error": str(e)}
    out[flow["flow"]] = {"sent": sent, "opened": opened, **info}


def aggregate(ic: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    """An incast's receiver: the rounds, each block's end, what each connection delivered."""
    listener = _listener(ic["port"], len(ic["senders"]))
    ready.wait()
    n = len(ic["senders"])
    conns: dict[int, socket.socket] = {}
    listener.settimeout(max(0.1, until - time.monotonic()))
    try:
        while len(conns) < n:
            c = _accept(listener)
            (index,) = struct.unpack("!I", c.recv(4, socket.MSG_WAITALL))
            conns[index] = c
    except (TimeoutError, OSError):
        pass
    got = dict.fromkeys(conns, 0)
    digests = {i: hashlib.sha256() for i in conns}
    rounds = []
    sel = selectors.DefaultSelector()
    for i, c in conns.items():
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ, i)
    sleep_until(ic["start"])
    for _ in range(ic["rounds"] if len(conns) == n else 0):
        start = time.monotonic()
        if start >= until:
            break
        for c in conns.values():
            c.send(b"R")
        left = dict.fromkeys(conns, ic["block"])
        ends: dict[int, float] = {}
        while left and time.monotonic() < until:
            for key, _ in sel.select(timeout=0.1):
                i = key.data
                try:
                    data = key.fileobj.recv(CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    left.pop(i, None)
                    continue
                got[i] += len(data)
                digests[i].update(data)
                if i in left:
                    left[i] -= len(data)
                    if left[i] <= 0:
                        del left[i]
                        ends[i] = time.monotonic()
        rounds.append({"start": start, "ends": {str(i): t for i, t in ends.items()}})
        if left:
            break
        sleep_until(time.monotonic() + ic["gap"])
    for c in conns.values():
        c.close()
    out[f"incast{ic['incast']}"] = {
        "rounds": rounds,
        "received": {str(i): v for i, v in got.items()},
        "sha256": {str(i): d.hexdigest() for i, d in digests.items()},
    }


def respond(rs: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    """An incast's sender: its connection, and a block for every request."""
    ready.wait()
    sleep_until(rs["open"])
    rng = random.Random(rs["seed"])
    sent, info = 0, {}
    try:
        s = _connect(rs["dst"], rs["port"], rs["cc"], until)
        try:
            s.sendall(struct.pack("!I", rs["index"]))
            while time.monotonic() < until:
                s.settimeout(max(0.05, until - time.monotonic()))
                if s.recv(1) == b"":
                    break
                if rs["jitter"] > 0:
                    time.sleep(rng.uniform(0, rs["jitter"]))
                sent += _write(s, sent, rs["block"], until)
                info = tcp_info(s)
        finally:
            s.close()
    except OSError as e:
        info = {**info, "error": str(e)}
    out[f"incast{rs['incast']}.{rs['index']}"] = {"sent": sent, **info}


def on_off_serve(oo: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    """An on-off client's server: its flows one after another, each read to its end."""
    listener = _listener(oo["port"])
    ready.wait()
    flows = []
    while (left := until - time.monotonic()) > 0:
        listener.settimeout(left)
        try:
            conn = _accept(listener)
        except (TimeoutError, OSError):
            break
        flows.append(_read_to_end(conn, until))
    out[f"onoff{oo['on_off']}.{oo['client']}.server"] = flows


def on_off_send(oo: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    """An on-off client: off, a flow, its delivery (the server's close), off again."""
    ready.wait()
    flows, at = [], oo["start"]
    for off, size in oo["draws"]:
        at += off
        if at >= until or (oo["stop"] is not None and at >= oo["stop"]):
            break
        sleep_until(at)
        opened = time.monotonic()
        info: dict = {}
        try:
            s = _connect(oo["dst"], oo["port"], oo["cc"], until)
            try:
                _write(s, 0, size, until)
                s.shutdown(socket.SHUT_WR)
                s.settimeout(max(0.05, until - time.monotonic()))
                s.recv(1)  # the server's close: everything was delivered
                info = tcp_info(s)
            finally:
                s.close()
        except OSError as e:
            info = {**info, "error": str(e)}
        flows.append({"opened": opened, "size": size, **info})
        at = time.monotonic()
    out[f"onoff{oo['on_off']}.{oo['client']}.client"] = flows


def _guarded(target, errors: list):
    """`target` as a thread body whose failure is reported, not lost: the network's outcomes
    (`OSError`) are handled where they happen, so anything else is a fault of this program.
    A failure before the start breaks the barrier, so that nothing waits for it."""

    def run(job, until, results, ready):
        try:
            target(job, until, results, ready)
        except threading.BrokenBarrierError:
            pass  # another job failed first, and said so
        except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the run
            errors.append(f"{target.__name__}: {type(e).__name__}: {e}")
            ready.abort()

    return run


def main(plan_path: str, out_path: str) -> None:
    with open(plan_path) as f:
        plan = json.load(f)
    until = plan["until"]
    results: dict = {}
    errors: list[str] = []
    threads = []
    jobs = [(serve, f) for f in plan["servers"]] + [(send, f) for f in plan["clients"]]
    jobs += [(aggregate, a) for a in plan.get("aggregators", [])]
    jobs += [(respond, r) for r in plan.get("responders", [])]
    jobs += [(on_off_serve, o) for o in plan.get("on_off_servers", [])]
    jobs += [(on_off_send, o) for o in plan.get("on_off_clients", [])]
    ready = threading.Barrier(len(jobs) + 1)
    for target, job in jobs:
        body = _guarded(target, errors)
        threads.append(threading.Thread(target=body, args=(job, until, results, ready)))
    for t in threads:
        t.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait()
    print("ready", flush=True)
    for t in threads:
        t.join()
    results = {str(k): v for k, v in results.items()}
    results["host"] = host_counters()
    results["errors"] = errors
    with open(out_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
