"""Emulation: a scenario's network — the simulator's own router code — on real packets between
Linux hosts running the kernel's TCP (``routerlab emulate``).

Every host is a network namespace with one veth interface; the network between them (switches,
links, queues, stages, forwarding) is one process in a namespace of its own, moving the hosts'
frames through the scenario's ports against the monotonic clock (`routerlab-emu`). Each host
runs its flows with the kernel's TCP and the scenario's congestion control (``TCP_CONGESTION``);
what the run measured is written in the simulator's format (``summary.json``, ``flows.*``,
``links.*``), with the emulator's own timing error in the summary.

Everything a run makes is named with its id and removed when it ends, however it ends (Ctrl-C
included); ``routerlab emulate --cleanup`` removes what a run killed outright left.
"""

from __future__ import annotations

import json
import math
import pickle
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from .. import _core
from ..output import (
    FLOW_SCHEMA,
    LINK_SCHEMA,
    TRANSFER_SCHEMA,
    AtomicDir,
    pcap_file_name,
    table,
    write_json,
    write_table,
)
from ..progress import bar as progress_bar
from ..progress import wanted as progress_wanted
from .netns import (
    EmulationError,
    Namespaces,
    available_congestion_control,
    check_can_run,
    cleanup,
    host_address,
    popen_in,
)
from .stream import stream_digest

__all__ = ["EmulationError", "TIMING_BOUND_S", "cleanup", "emulate", "plan"]

#: How late the emulator may deliver a datagram, against its ideal schedule, before its run is
#: marked as outside the bound in the summary (our choice: the median within 100 µs and the
#: 99th percentile within 1 ms, under a 1500-byte packet's time at 100 Mbit/s and ten of them).
TIMING_BOUND_S = {"median": 100e-6, "p99": 1e-3}

#: Seconds between starting the processes and the run's time zero: time for every process to
#: start and every server to listen.
LEAD_S = 1.5

#: Seconds past the run's end a host process has to finish.
GRACE_S = 3.0


def plan(text: str, seed: int | None = None, base_dir: Path | None = None) -> dict:
    """What the scenario's hosts run; EmulationError with every reason it cannot be emulated."""
    try:
        return _core.emulation_plan(text, seed=seed, base_dir=base_dir)
    except ValueError as e:
        reasons = e.args[0] if e.args and isinstance(e.args[0], list) else [str(e)]
        raise EmulationError("cannot be emulated:\n  " + "\n  ".join(reasons)) from None


def _connections(p: dict) -> list[dict]:
    """Every kind of connection the plan has, each with its TCP settings (``cc``, ``ecn``,
    ``sack``): the flows, the incasts, the on-off workloads."""
    return p["flows"] + p["incasts"] + p["on_offs"]


def _check_congestion_control(p: dict) -> None:
    have = available_congestion_control()
    missing = sorted({c["cc"] for c in _connections(p)} - have)
    if missing:
        listed = " ".join(sorted(have))
        raise EmulationError(
            f"the kernel offers no {', '.join(missing)} congestion control "
            f"(/proc/sys/net/ipv4/tcp_available_congestion_control lists {listed}); routerlab "
            f"never loads a kernel module: `modprobe tcp_{missing[0]}` as root makes it available"
        )


def _host_plans(p: dict, t0: float, until: float, seed: int) -> list[dict]:
    plans = [
        {
            "until": until,
            "servers": [],
            "clients": [],
            "aggregators": [],
            "responders": [],
            "on_off_servers": [],
            "on_off_clients": [],
        }
        for _ in range(p["hosts"])
    ]
    for i, f in enumerate(p["flows"]):
        port = 5000 + i
        plans[f["dst"]]["servers"].append({"flow": i, "port": port})
        plans[f["src"]]["clients"].append(
            {
                "flow": i,
                "dst": host_address(f["dst"]),
                "port": port,
                "start": t0 + f["start_s"],
                "size": f["size_bytes"],
                "stop": None if f["stop_s"] is None else t0 + f["stop_s"],
                "cc": f["cc"],
            }
        )
    for k, ic in enumerate(p["incasts"]):
        port = 4000 + k
        plans[ic["receiver"]]["aggregators"].append(
            {
                "incast": k,
                "port": port,
                "senders": ic["senders"],
                "block": ic["block_bytes"],
                "rounds": ic["rounds"],
                "start": t0 + ic["start_s"],
                "gap": ic["gap_s"],
            }
        )
        for i, (sender, opens) in enumerate(zip(ic["senders"], ic["opens_s"], strict=True)):
            plans[sender]["responders"].append(
                {
                    "incast": k,
                    "index": i,
                    "dst": host_address(ic["receiver"]),
                    "port": port,
                    "open": t0 + opens,
                    "block": ic["block_bytes"],
                    "jitter": ic["jitter_s"],
                    "seed": f"{seed}/{k}/{i}",
                    "cc": ic["cc"],
                }
            )
    for k, oo in enumerate(p["on_offs"]):
        for c, ((src, dst), draws) in enumerate(zip(oo["clients"], oo["draws"], strict=True)):
            port = 6000 + 100 * k + c
            plans[dst]["on_off_servers"].append({"on_off": k, "client": c, "port": port})
            plans[src]["on_off_clients"].append(
                {
                    "on_off": k,
                    "client": c,
                    "dst": host_address(dst),
                    "port": port,
                    "start": t0 + oo["start_s"],
                    "stop": None if oo["stop_s"] is None else t0 + oo["stop_s"],
                    "draws": draws,
                    "cc": oo["cc"],
                }
            )
    return plans


def _sysctls(p: dict) -> dict[str, str]:
    conns = _connections(p)
    ecn = any(f["ecn"] for f in conns)
    sack = all(f["sack"] for f in conns)
    return {
        "net.ipv4.tcp_ecn": "1" if ecn else "0",
        "net.ipv4.tcp_sack": "1" if sack else "0",
        "net.ipv6.conf.all.disable_ipv6": "1",
    }


def _follow(t0: float, duration: float, router: subprocess.Popen, progress: bool | None) -> None:
    """A progress bar over the run's time until the network process ends (if wanted)."""
    if not progress_wanted(progress):
        return
    bar = progress_bar(
        total=round(duration, 3),
        unit="s",
        unit_scale=False,
        desc="emulating",
        bar_format="{desc} {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} s [{elapsed}<{remaining}]",
        leave=False,
    )
    try:
        while router.poll() is None:
            bar.n = round(min(max(time.monotonic() - t0, 0.0), duration), 3)
            bar.refresh()
            time.sleep(0.2)
    finally:
        bar.close()


def _run(
    p: dict, text: str, seed, base_dir, work: Path, ns: Namespaces, progress: bool | None
) -> tuple[dict, list[dict], float]:
    """Run the processes; returns the network's report, each host's results and time zero."""
    ns.create(_sysctls(p))
    t0 = time.monotonic() + LEAD_S
    duration = p["duration_s"]
    with open(work / "router.in", "wb") as f:
        pickle.dump(
            {
                "text": text,
                "seed": seed,
                "base_dir": base_dir,
                "attachments": ns.attachments(),
                "duration_s": duration,
                "t0": t0,
            },
            f,
        )
    py = [sys.executable, "-m"]
    router = popen_in(
        ns.router,
        [*py, "routerlab.emulation.router", str(work / "router.in"), str(work / "router.out")],
    )
    hosts = []
    for i, hp in enumerate(_host_plans(p, t0, t0 + duration, p["seed"])):
        if not any(v for k, v in hp.items() if k != "until"):
            hosts.append(None)
            continue
        (work / f"h{i}.in").write_text(json.dumps(hp))
        cmd = [*py, "routerlab.emulation.app", str(work / f"h{i}.in"), str(work / f"h{i}.out")]
        hosts.append(popen_in(ns.host(i), cmd, stdout=subprocess.DEVNULL))
    _follow(t0, duration, router, progress)
    deadline = t0 + duration + GRACE_S
    for proc in [router, *[h for h in hosts if h]]:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
    if router.returncode != 0 or not (work / "router.out").exists():
        raise EmulationError(f"the network process failed (exit {router.returncode})")
    with open(work / "router.out", "rb") as f:
        report = pickle.load(f)
    results = []
    for i, h in enumerate(hosts):
        out = work / f"h{i}.out"
        if h is not None and (h.returncode != 0 or not out.exists()):
            raise EmulationError(f"host {i}'s traffic process failed (exit {h.returncode})")
        results.append(json.loads(out.read_text()) if h is not None else {})
        if errors := results[-1].pop("errors", []):
            raise EmulationError(f"host {i}'s traffic failed: {'; '.join(errors)}")
    return report, results, t0


def _flow_rows(p: dict, hosts: list[dict], t0: float) -> list[dict]:
    rows = []
    duration = p["duration_s"]
    for i, f in enumerate(p["flows"]):
        sent = hosts[f["src"]].get(str(i), {})
        got = hosts[f["dst"]].get(str(i), {})
        received = got.get("received", 0)
        done = (
            f["size_bytes"] is not None
            and received >= f["size_bytes"]
            and got.get("last") is not None
        )
        fct = got["last"] - t0 - f["start_s"] if done else None
        span = fct if fct is not None else max(duration - f["start_s"], 0.0)
        rows.append(
            {
                "flow_id": i,
                "group": f["group"],
                "protocol": "tcp",
                "src": p["host_names"][f["src"]],
                "dst": p["host_names"][f["dst"]],
                "size_bytes": f["size_bytes"],
                "start_s": f["start_s"],
                "fct_s": fct,
                "bytes_acked": sent.get("bytes_acked"),
                "bytes_delivered": received,
                "goodput_bps": received * 8 / span if span > 0 else 0.0,
                "retransmissions": sent.get("retransmissions"),
                "timeouts": sent.get("timeouts"),
                "intact": _intact(got.get("received", 0), got.get("sha256")),
            }
        )
    for k, ic in enumerate(p["incasts"]):
        agg = hosts[ic["receiver"]].get(f"incast{k}", {})
        for i, sender in enumerate(ic["senders"]):
            sent = hosts[sender].get(f"incast{k}.{i}", {})
            received = agg.get("received", {}).get(str(i), 0)
            span = max(duration - ic["opens_s"][i], 0.0)
            rows.append(
                {
                    "flow_id": len(rows),
                    "group": ic["group"],
                    "protocol": "tcp",
                    "src": p["host_names"][sender],
                    "dst": p["host_names"][ic["receiver"]],
                    "start_s": ic["opens_s"][i],
                    "bytes_acked": sent.get("bytes_acked"),
                    "bytes_delivered": received,
                    "goodput_bps": received * 8 / span if span > 0 else 0.0,
                    "retransmissions": sent.get("retransmissions"),
                    "timeouts": sent.get("timeouts"),
                    "intact": _intact(received, agg.get("sha256", {}).get(str(i))),
                    "incast": (k, i),
                }
            )
    for k, oo in enumerate(p["on_offs"]):
        for c, (src, dst) in enumerate(oo["clients"]):
            sent = hosts[src].get(f"onoff{k}.{c}.client", [])
            got = hosts[dst].get(f"onoff{k}.{c}.server", [])
            for n, flow in enumerate(sent):
                g = got[n] if n < len(got) else {}
                received = g.get("received", 0)
                done = received >= flow["size"] and g.get("last") is not None
                fct = g["last"] - flow["opened"] if done else None
                rows.append(
                    {
                        "flow_id": len(rows),
                        "group": oo["group"],
                        "protocol": "tcp",
                        "src": p["host_names"][src],
                        "dst": p["host_names"][dst],
                        "size_bytes": flow["size"],
                        "start_s": flow["opened"] - t0,
                        "fct_s": fct,
                        "bytes_acked": flow.get("bytes_acked"),
                        "bytes_delivered": received,
                        "goodput_bps": received * 8 / fct if fct else 0.0,
                        "retransmissions": flow.get("retransmissions"),
                        "timeouts": flow.get("timeouts"),
                        "intact": _intact(received, g.get("sha256")),
                    }
                )
    return rows


def _transfer_rows(p: dict, hosts: list[dict], t0: float, flows: list[dict]) -> list[dict]:
    """Every incast block (from its round's start, the request, to its last byte) and every
    on-off flow."""
    flow_of = {f["incast"]: f["flow_id"] for f in flows if "incast" in f}
    rows = []
    for k, ic in enumerate(p["incasts"]):
        agg = hosts[ic["receiver"]].get(f"incast{k}", {})
        for r, rnd in enumerate(agg.get("rounds", [])):
            for i in range(len(ic["senders"])):
                end = rnd["ends"].get(str(i))
                rows.append(
                    {
                        "transfer_id": len(rows),
                        "flow_id": flow_of[(k, i)],
                        "group": ic["group"],
                        "seq": r,
                        "size_bytes": ic["block_bytes"],
                        "start_s": rnd["start"] - t0,
                        "end_s": None if end is None else end - t0,
                    }
                )
    return rows + _on_off_transfers(p, flows, len(rows))


def _on_off_transfers(p: dict, flows: list[dict], first_id: int) -> list[dict]:
    """An on-off flow is one transfer: its size, from its start to its last byte."""
    groups = {oo["group"] for oo in p["on_offs"]}
    seq: dict[str, int] = {}
    rows = []
    for f in flows:
        if f["group"] not in groups:
            continue
        key = f"{f['group']}/{f['src']}/{f['dst']}"
        n = seq.get(key, 0)
        seq[key] = n + 1
        fct = f["fct_s"]
        rows.append(
            {
                "transfer_id": first_id + len(rows),
                "flow_id": f["flow_id"],
                "group": f["group"],
                "seq": n,
                "size_bytes": f["size_bytes"],
                "start_s": f["start_s"],
                "end_s": None if fct is None else f["start_s"] + fct,
            }
        )
    return rows


def _intact(received: int, sha256: str | None) -> bool:
    """Whether the bytes a connection delivered are the stream's first ones, unchanged."""
    return received == 0 or sha256 == stream_digest(received)


def _summary(
    p: dict, rows: list[dict], links: pa.Table, report: dict, hosts: list[dict], run_id: str
) -> dict:
    duration = p["duration_s"]
    delivered = sum(r["bytes_delivered"] for r in rows)
    lateness = [
        {"host": p["host_names"][h], "datagrams": n, "median_s": med, "p99_s": p99}
        for h, n, med, p99 in report["lateness"]
    ]
    within = all(
        (x["median_s"] is None or x["median_s"] <= TIMING_BOUND_S["median"])
        and (x["p99_s"] is None or x["p99_s"] <= TIMING_BOUND_S["p99"])
        for x in lateness
    )
    return {
        "sim_seconds": duration,
        "goodput_bps": delivered * 8 / duration if duration > 0 else 0.0,
        "drops": int(sum(links.column("drops").to_pylist())) + report["no_route_drops"],
        "jain_index": _core.jain_index([r["goodput_bps"] for r in rows]),
        "flows": len(rows),
        "flows_completed": sum(r.get("fct_s") is not None for r in rows),
        "retransmissions": sum(r["retransmissions"] or 0 for r in rows),
        "timeouts": sum(r["timeouts"] or 0 for r in rows),
        "emulation": {
            "run_id": run_id,
            "timing_error": lateness,
            "read_delay": dict(zip(("median_s", "p99_s"), report["read_late"], strict=True)),
            "timing_bound_s": TIMING_BOUND_S,
            "timing_within_bound": within,
            "frames_in": report["frames_in"],
            "frames_out": report["frames_out"],
            "frames_ignored": report["ignored"],
            "flows_not_intact": [r["flow_id"] for r in rows if not r["intact"]],
            "hosts": {p["host_names"][i]: h.get("host") for i, h in enumerate(hosts) if h},
        },
    }


def _interrupt(signum, frame):  # noqa: ARG001
    raise KeyboardInterrupt


def emulate(
    path: Path,
    out: Path,
    force: bool = False,
    seed: int | None = None,
    progress: bool | None = False,
) -> dict:
    """Emulate the scenario at ``path``; write its results into ``out``; return the summary.
    ``progress``: a bar over the run's time (None: only on a terminal)."""
    path = Path(path)
    text = path.read_text()
    base_dir = path.parent.resolve()
    p = plan(text, seed, base_dir)
    check_can_run()
    _check_congestion_control(p)
    run_id = secrets.token_hex(3)
    ns = Namespaces(run_id, p["hosts"])
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="routerlab-emu-") as tmp,
            AtomicDir(out, force=force) as d,
        ):
            report, hosts, t0 = _run(p, text, seed, base_dir, Path(tmp), ns, progress)
            rows = _flow_rows(p, hosts, t0)
            flows = pa.Table.from_pylist(
                [{f.name: r.get(f.name) for f in FLOW_SCHEMA} for r in rows], schema=FLOW_SCHEMA
            )
            links = table(report["links"], LINK_SCHEMA)
            summary = _summary(p, rows, links, report, hosts, run_id)
            (d.path / "scenario.toml").write_text(text)
            if report["pcaps"]:
                (d.path / "pcap").mkdir()
                for link_name, data in report["pcaps"]:
                    (d.path / "pcap" / pcap_file_name(link_name)).write_bytes(data)
            write_json(d.path / "summary.json", summary)
            write_table(d.path, "flows", flows)
            write_table(d.path, "links", links)
            transfers = _transfer_rows(p, hosts, t0, rows)
            if transfers:
                write_table(
                    d.path,
                    "transfers",
                    pa.Table.from_pylist(transfers, schema=TRANSFER_SCHEMA),
                    csv=False,
                )
            d.commit()
            return summary
    finally:
        ns.remove()
        signal.signal(signal.SIGTERM, previous)


def fmt_seconds(s: float | None) -> str:
    if s is None or math.isnan(s):
        return "-"
    return f"{s * 1e6:.0f} µs" if s < 1e-2 else f"{s:.3f} s"
