"""The emulator's namespaces: one per host and one for the network between them, joined by veth
pairs, named with the run's id so that a run touches nothing but what it made.

Host ``i`` lives in namespace ``rlemu-ID-hI`` with interface ``reIDhI`` and address
``10.0.x.y`` (host 0 is 10.0.0.1, as in the simulator's pcap files), in a /16 with every other
host's address bound to the router's MAC (no ARP); the router's namespace ``rlemu-ID-r`` holds
the other ends, ``reIDrI``, with no address: only the emulator's raw sockets read them. Segment
offloads are off on the hosts' interfaces (one frame per segment), so that the network sees the
packets a NIC would send.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass, field

PREFIX = "rlemu-"


class EmulationError(Exception):
    """The emulator cannot run here, or a step of setting it up failed; the message says why."""


def host_address(host: int) -> str:
    """The address of host ``host``: 10.0.0.1 upwards, as the simulator numbers them."""
    n = 0x0A000001 + host
    return ".".join(str(n >> s & 0xFF) for s in (24, 16, 8, 0))


def _ip(*args: str, stdin: str | None = None) -> str:
    r = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise EmulationError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def check_can_run() -> None:
    """Refuse clearly where namespaces cannot be made: not root, or no ``ip``."""
    if os.geteuid() != 0:
        raise EmulationError(
            "emulation needs root (CAP_NET_ADMIN) to make network namespaces: run it as root"
        )
    if shutil.which("ip") is None:
        raise EmulationError(
            "emulation needs iproute2's `ip` command (Debian: apt install iproute2)"
        )


def available_congestion_control() -> set[str]:
    with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
        return set(f.read().split())


def mac_of(ns: str, dev: str) -> bytes:
    out = _ip("-n", ns, "-br", "link", "show", dev).split()
    return bytes.fromhex(out[2].replace(":", ""))


@dataclass
class Namespaces:
    """The namespaces and veth pairs of one run (``create`` makes them, ``remove`` undoes it)."""

    run_id: str
    hosts: int
    made: list[str] = field(default_factory=list)

    @property
    def router(self) -> str:
        return f"{PREFIX}{self.run_id}-r"

    def host(self, i: int) -> str:
        return f"{PREFIX}{self.run_id}-h{i}"

    def host_if(self, i: int) -> str:
        return f"re{self.run_id}h{i}"

    def router_if(self, i: int) -> str:
        return f"re{self.run_id}r{i}"

    def create(self, sysctls: dict[str, str]) -> None:
        """Make every namespace and link; ``sysctls`` are set in each host's namespace."""
        for ns in [self.router] + [self.host(i) for i in range(self.hosts)]:
            _ip("netns", "add", ns)
            self.made.append(ns)
        batch = []
        for i in range(self.hosts):
            h, r = self.host_if(i), self.router_if(i)
            batch.append(
                f"link add {h} netns {self.host(i)} type veth peer name {r} netns {self.router}"
            )
        _ip("-batch", "-", stdin="\n".join(batch) + "\n")
        _ip(
            "-n",
            self.router,
            "-batch",
            "-",
            stdin="".join(f"link set {self.router_if(i)} up\n" for i in range(self.hosts)),
        )
        for i in range(self.hosts):
            ns, dev = self.host(i), self.host_if(i)
            own = mac_of(self.router, self.router_if(i)).hex(":")
            cmds = [
                f"addr add {host_address(i)}/16 dev {dev}",
                f"link set {dev} gso_max_segs 1 gso_max_size 1500",
                f"link set {dev} up",
                "link set lo up",
            ]
            cmds += [
                f"neigh add {host_address(j)} lladdr {own} dev {dev} nud permanent"
                for j in range(self.hosts)
                if j != i
            ]
            _ip("-n", ns, "-batch", "-", stdin="\n".join(cmds) + "\n")
            for key, value in sysctls.items():
                path = "/proc/sys/" + key.replace(".", "/")
                run_in(ns, ["sh", "-c", f"echo {value} > {path}"], check=True)

    def attachments(self) -> list[tuple[int, str, bytes, bytes]]:
        """``(host, router-side interface, host MAC, router-side MAC)`` per host."""
        return [
            (
                i,
                self.router_if(i),
                mac_of(self.host(i), self.host_if(i)),
                mac_of(self.router, self.router_if(i)),
            )
            for i in range(self.hosts)
        ]

    def remove(self) -> None:
        """Kill what runs in the run's namespaces and delete them (their veths go with them)."""
        for ns in reversed(self.made):
            remove_namespace(ns)
        self.made.clear()


def run_in(ns: str, argv: list[str], check: bool = False) -> subprocess.CompletedProcess:
    r = subprocess.run(
        ["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, check=False
    )
    if check and r.returncode != 0:
        raise EmulationError(f"in {ns}: {' '.join(argv)}: {r.stderr.strip()}")
    return r


def popen_in(ns: str, argv: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(["ip", "netns", "exec", ns, *argv], **kw)


def remove_namespace(ns: str) -> None:
    pids = subprocess.run(
        ["ip", "netns", "pids", ns], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def leftover_namespaces() -> list[str]:
    """Namespaces an emulation made and did not remove (a run killed outright)."""
    out = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def cleanup() -> list[str]:
    """Remove every namespace an emulation left behind; returns their names."""
    gone = leftover_namespaces()
    for ns in gone:
        remove_namespace(ns)
    return gone
