"""The traffic of one emulated host, run inside its namespace by the emulator: a server thread
per flow it receives, a client thread per flow it sends, with the kernel's own TCP.

``python -m routerlab.emulation.app PLAN.json OUT.json``. Times in the plan are absolute
``CLOCK_MONOTONIC`` seconds (the router's clock is the same one). A client opens its
connection at its start time with its congestion control (``TCP_CONGESTION``), writes its
size (or, for a bulk flow, until its stop or the run's end), closes, and reads the kernel's
``tcp_info`` of the connection just before. A server counts the bytes of its one connection,
hashes them (a client sends byte ``k`` of its flow as ``k mod 251``, so that what arrived can be
checked intact), and notes when the first and last arrived. At the end the host's own
counters (``/proc/net/netstat``, ``/proc/net/snmp``: per namespace) are read too.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import socket
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
    keep = ("IpExt.InCEPkts", "TcpExt.TCPTimeouts", "Tcp.RetransSegs", "TcpExt.TCPSackRecovery")
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


def serve(flow: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("0.0.0.0", flow["port"]))
    listener.listen(1)
    listener.settimeout(max(0.1, until - time.monotonic()))
    ready.wait()
    got, first, last, digest = 0, None, None, hashlib.sha256()
    try:
        conn, _ = listener.accept()
        conn.settimeout(0.5)
        while time.monotonic() < until:
            try:
                data = conn.recv(CHUNK)
            except TimeoutError:
                continue
            if not data:
                break
            now = time.monotonic()
            first = first if first is not None else now
            last = now
            got += len(data)
            digest.update(data)
        conn.close()
    except TimeoutError:
        pass
    out[flow["flow"]] = {
        "received": got,
        "first": first,
        "last": last,
        "sha256": digest.hexdigest(),
    }


def send(flow: dict, until: float, out: dict, ready: threading.Barrier) -> None:
    ready.wait()
    sleep_until(flow["start"])
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, flow["cc"].encode())
    end = min(until, flow["stop"] or until)
    sent, opened, info = 0, time.monotonic(), {}
    try:
        s.settimeout(max(0.05, end - time.monotonic()))
        s.connect((flow["dst"], flow["port"]))
        size = flow["size"]
        while (size is None or sent < size) and (left := end - time.monotonic()) > 0:
            # A write that cannot finish by the end (the window full) is cut off there.
            s.settimeout(left)
            n = CHUNK if size is None else min(CHUNK, size - sent)
            try:
                s.sendall(pattern(sent, n))
            except TimeoutError:
                break
            sent += n
            info = tcp_info(s)
        info = tcp_info(s)
    except OSError as e:
        info = {**info, "error": str(e)}
    finally:
        s.close()
    out[flow["flow"]] = {"sent": sent, "opened": opened, **info}


def main(plan_path: str, out_path: str) -> None:
    with open(plan_path) as f:
        plan = json.load(f)
    until = plan["until"]
    results: dict = {}
    threads = []
    ready = threading.Barrier(len(plan["servers"]) + len(plan["clients"]) + 1)
    for flow in plan["servers"]:
        threads.append(threading.Thread(target=serve, args=(flow, until, results, ready)))
    for flow in plan["clients"]:
        threads.append(threading.Thread(target=send, args=(flow, until, results, ready)))
    for t in threads:
        t.start()
    ready.wait()
    print("ready", flush=True)
    for t in threads:
        t.join()
    results = {str(k): v for k, v in results.items()}
    results["host"] = host_counters()
    with open(out_path, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
