"""A local process pool that survives its workers dying.

`multiprocessing.Pool` loses a task whose worker dies (an abort on a failed allocation, a
signal): the caller waits for it forever. Here each worker holds one batch at a time and the
parent knows which, so a death is pinned on its batch. A batch of several runs is then split
and its runs retried one by one in fresh workers (the others in it may be innocent); a single
run that kills its worker is reported as a `WorkerDied` in place of its results, and the pool
goes on.

Workers are started with the ``spawn`` method (no fork of a parent holding threads) and ignore
SIGINT: the parent alone handles Ctrl-C, and stops them.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections import deque
from collections.abc import Callable, Iterator
from multiprocessing.connection import wait

#: Seconds a worker is given to exit after being told to stop, before it is killed.
STOP_GRACE_S = 2.0


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


def _serve(conn, fn) -> None:
    """A worker's loop: (offset, batch) in, (offset, fn(batch)) out, until None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        job = conn.recv()
        if job is None:
            return
        offset, batch = job
        try:
            result = fn(batch)
        except Exception as e:  # the task failed, not the worker: the caller decides
            result = e
        conn.send((offset, result))


class _Worker:
    def __init__(self, ctx, fn):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, fn), daemon=True)
        self.proc.start()
        child.close()
        self.job: tuple[int, list] | None = None

    def give(self, job: tuple[int, list]) -> None:
        self.job = job
        self.conn.send(job)

    def take(self):
        """The worker's result, or None when it died instead of sending one."""
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(STOP_GRACE_S)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run_pool(fn: Callable[[list], list], work: list[tuple[int, list]], jobs: int) -> Iterator:
    """Run ``fn`` on each (offset, batch) of ``work`` in ``jobs`` processes; yields (offset,
    batch, fn's result or a `WorkerDied`) as batches finish. Closing the generator stops the
    workers at once."""
    ctx = mp.get_context("spawn")
    todo = deque(work)
    workers: list[_Worker] = []
    try:
        while todo or any(w.job for w in workers):
            for w in workers:
                if w.job is None and todo:
                    w.give(todo.popleft())
            while todo and len(workers) < jobs:  # started as work needs them
                workers.append(_Worker(ctx, fn))
                workers[-1].give(todo.popleft())
            busy = [w for w in workers if w.job is not None]
            ready = wait([w.conn for w in busy] + [w.proc.sentinel for w in busy])
            for w in busy:
                if w.conn not in ready and w.proc.sentinel not in ready:
                    continue
                offset, batch = w.job
                result = w.take() if w.conn in ready else None
                if result is not None:
                    w.job = None
                    yield offset, batch, result[1]
                    continue
                workers.remove(w)
                w.proc.join()
                w.conn.close()
                if len(batch) > 1:  # pin the death on one run: retry each alone
                    todo.extendleft(reversed([(offset + i, [x]) for i, x in enumerate(batch)]))
                else:
                    yield offset, batch, WorkerDied(w.proc.exitcode)
    finally:
        for w in workers:
            if w.job is not None:  # stopped early: don't wait for its run
                w.proc.kill()
            w.stop()
