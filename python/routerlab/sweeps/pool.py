"""A local process pool that survives its workers dying.

`multiprocessing.Pool` loses a task whose worker dies (an abort on a failed allocation, a
signal): the caller waits for it forever. Here each worker holds one batch at a time and the
parent knows which, so a death is pinned on its batch. A batch of several runs is then split
and its runs retried one by one in fresh workers (the others in it may be innocent); a single
run that kills its worker is reported as a `WorkerDied` in place of its results, and the pool
goes on.

Workers are fresh interpreters (``python -c``, no fork of a parent holding threads) that import
routerlab and nothing of the caller: unlike multiprocessing's ``spawn``, they never re-run the
caller's main module, so a script without an ``if __name__ == "__main__":`` guard, code fed
through stdin and a notebook all work. They ignore SIGINT: the parent alone handles Ctrl-C, and
stops them. Workers that die before returning anything, again and again, stop the pool with an
error instead of being replaced forever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait

#: Seconds a worker is given to exit after being told to stop, before it is killed.
STOP_GRACE_S = 2.0

#: Workers in a row that may die while starting (before they can run anything): then the
#: pool gives up.
MAX_STARTUP_DEATHS = 3

#: What a worker sends once it has imported what it runs.
_READY = "ready"

#: What a worker interpreter runs: serve the pipes whose descriptors follow.
_WORKER_MAIN = "import sys; from routerlab.sweeps.pool import _serve_fds; _serve_fds(*sys.argv[1:])"


class WorkerDied(Exception):
    """The worker process running a run ended without returning its result."""

    def __init__(self, exitcode: int | None):
        self.exitcode = exitcode
        super().__init__(f"its worker process died ({_describe_exit(exitcode)})")


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class PoolError(RuntimeError):
    """The pool cannot run: its workers die before doing anything."""


def _serve_fds(read_fd: str, write_fd: str) -> None:
    """A worker interpreter's entry point: the function to run comes first, then batches."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn_in = Connection(int(read_fd), writable=False)
    conn_out = Connection(int(write_fd), readable=False)
    fn = conn_in.recv()
    conn_out.send(_READY)
    while True:  # (offset, batch) in, (offset, fn(batch)) out, until None
        job = conn_in.recv()
        if job is None:
            return
        offset, batch = job
        try:
            result = fn(batch)
        except Exception as e:  # the task failed, not the worker: the caller decides
            result = e
        conn_out.send((offset, result))


class _Worker:
    """A worker interpreter and the two pipes to it; the pipe from it doubles as the sign of
    its death (end of file)."""

    def __init__(self, fn: Callable):
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        env = dict(os.environ)
        # The caller's import path (a checkout, a notebook's additions), not its main module.
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_MAIN, str(to_child), str(from_child)],
            pass_fds=(to_child, from_child),
            env=env,
            stdin=subprocess.DEVNULL,
        )
        os.close(to_child)
        os.close(from_child)
        self.send = Connection(from_parent, readable=False)
        self.conn = Connection(to_parent, writable=False)
        self.job: tuple[int, list] | None = None
        self.started = False
        self.send.send(fn)  # pickled by reference: the worker imports its module

    def give(self, job: tuple[int, list]) -> None:
        self.job = job
        self.send.send(job)

    def take(self):
        """The worker's next message (`_READY`, then results), or None when it died."""
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def exitcode(self) -> int | None:
        """How it ended (negative: the signal that killed it), once it has."""
        return self.proc.wait()

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        try:
            self.send.send(None)
        except OSError:
            pass
        try:
            self.proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.send.close()
        self.conn.close()


def run_pool(fn: Callable[[list], list], work: list[tuple[int, list]], jobs: int) -> Iterator:
    """Run ``fn`` on each (offset, batch) of ``work`` in ``jobs`` processes; yields (offset,
    batch, fn's result or a `WorkerDied`) as batches finish. Closing the generator stops the
    workers at once."""
    todo = deque(work)
    workers: list[_Worker] = []
    startup_deaths = 0
    try:
        while todo or any(w.job for w in workers):
            for w in workers:
                if w.job is None and todo:
                    w.give(todo.popleft())
            while todo and len(workers) < jobs:  # started as work needs them
                workers.append(_Worker(fn))
                workers[-1].give(todo.popleft())
            busy = [w for w in workers if w.job is not None]
            ready = wait([w.conn for w in busy])
            for w in busy:
                if w.conn not in ready:
                    continue
                offset, batch = w.job
                message = w.take()
                if message == _READY:
                    w.started, startup_deaths = True, 0
                    continue
                if message is not None:
                    w.job = None
                    yield offset, batch, message[1]
                    continue
                workers.remove(w)
                code = w.exitcode()
                w.stop()
                if not w.started:  # the worker, not the run: try the batch in another
                    startup_deaths += 1
                    if startup_deaths >= MAX_STARTUP_DEATHS:
                        raise PoolError(
                            f"{startup_deaths} worker processes in a row died while starting "
                            f"(the last: {_describe_exit(code)}); their messages are above"
                        )
                    todo.appendleft((offset, batch))
                elif len(batch) > 1:  # pin the death on one run: retry each alone
                    todo.extendleft(reversed([(offset + i, [x]) for i, x in enumerate(batch)]))
                else:
                    yield offset, batch, WorkerDied(code)
    finally:
        for w in workers:
            w.stop(kill=w.job is not None)  # stopped early: don't wait for its run
