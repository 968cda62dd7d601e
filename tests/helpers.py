"""Shared by the tests: running the ``routerlab`` command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: A small valid scenario (0.2 s of four bulk flows on a dumbbell) for tests that need one.
SMALL_DUMBBELL = """\
[run]
duration = "0.2s"
seed = 1

[topology]
kind = "dumbbell"
pairs = 4
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "2ms", queue = { kind = "droptail", limit = "50pkts" } }

[[workload]]
kind = "bulk"
flows = 4
"""


def routerlab(*args: str, check: bool = False, **kw) -> subprocess.CompletedProcess:
    """Run ``python -m routerlab ARGS`` in the repository (or ``cwd``); check: exit 0."""
    p = subprocess.run(
        [sys.executable, "-m", "routerlab", *args],
        capture_output=True,
        text=True,
        cwd=kw.pop("cwd", ROOT),
        **kw,
    )
    if check:
        assert p.returncode == 0, p.stderr
    return p


def interrupt_while_writing(
    args: list[str], parent: Path, settle: float, sig: int = signal.SIGINT
) -> tuple[int, str]:
    """Start ``routerlab ARGS`` writing into ``parent``, wait until its temporary output
    directory exists and then ``settle`` seconds more, send ``sig``; (exit status, stderr).
    The seconds from the signal to the exit are left in ``interrupt_while_writing.took``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "routerlab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        # A shell's background job starts with SIGINT ignored, and Python then leaves it
        # ignored: give the command the default disposition a terminal user's has.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not any(f.name.startswith(".out.tmp") for f in parent.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(settle)
    t0 = time.monotonic()
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    interrupt_while_writing.took = time.monotonic() - t0
    return proc.returncode, err
