"""Where runs execute: a local process pool, or a Dask cluster.

Work is handed over in *batches* (lists of runs) so that many short runs cost one task each
batch, not one each: a scheduler's overhead per task (milliseconds on Dask) would otherwise
dominate runs that take milliseconds themselves. Results come back as batches finish, in any
order, tagged with the batch's place in the list; the caller makes the order deterministic.

The function run on each batch must be importable by the workers (a module-level function of
routerlab), and catch its own errors: a batch's result is a list, one entry per run. Where the
task itself fails (it raised, or its worker died), the exception stands in for that list.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from ..progress import bar
from ..progress import wanted as progress_wanted
from .pool import run_pool

#: Backends by name.
BACKENDS = ("local", "dask")
#: Batches per worker that automatic batching aims for: enough to balance uneven run times,
#: so batching starts only with hundreds of runs per worker.
BATCHES_PER_WORKER = 16
#: Most runs in one automatic batch (a batch's results travel back together).
MAX_AUTO_BATCH = 32


class BackendError(Exception):
    """A backend that cannot be used as asked (unknown name, no Dask installed, …)."""


def batch_size(runs: int, workers: int, requested: int | None = None) -> int:
    """Runs per task: as asked, else enough that each worker gets about BATCHES_PER_WORKER."""
    if requested:
        return requested
    return max(1, min(MAX_AUTO_BATCH, runs // (workers * BATCHES_PER_WORKER)))


def workers(backend: str, jobs: int | None, client=None) -> int:
    """How many runs execute at once."""
    if jobs:
        return jobs
    if backend == "dask" and client is not None:
        return max(1, sum(client.nthreads().values()))
    return os.cpu_count() or 1


def batches(items: list, size: int) -> list[tuple[int, list]]:
    """(index of the first item, the items) for each batch of ``size``."""
    return [(i, items[i : i + size]) for i in range(0, len(items), size)]


def progress_bar(total: int, desc: str, progress: bool | None, leave: bool = True):
    """A bar of runs done / total with ETA on stderr (None: only when someone is watching: a
    terminal or a notebook), or None when not shown."""
    if not progress_wanted(progress):
        return None
    return bar(total=total, desc=desc, unit="run", leave=leave)


def run_batched(
    fn: Callable[[list], list],
    items: list,
    backend: str = "local",
    jobs: int | None = None,
    client=None,
    scheduler: str | None = None,
    batch: int | None = None,
) -> Iterator[tuple[int, list, object]]:
    """Cut ``items`` into batches and run ``fn`` on each; yields (index of the batch's first
    item, the batch, fn's result or the exception that ended the task) as batches finish.

    local: ``jobs`` worker processes (default: every core; also for 1), so that a run that kills
    its process (an abort, a signal) is reported as a `pool.WorkerDied` and the rest go on. dask: on
    ``client`` (a ``distributed.Client``), or a new client of the scheduler at ``scheduler``, or
    else a new ``LocalCluster`` with ``jobs`` single-threaded worker processes; a client made
    here is closed at the end. Close the generator (``contextlib.closing``) to stop early: the
    workers are stopped too."""
    if backend not in BACKENDS:
        raise BackendError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    owned = False
    if backend == "dask":
        client, owned = dask_client(client, scheduler, jobs)
    try:
        size = batch_size(len(items), workers(backend, jobs, client), batch)
        work = batches(items, size)
        if backend == "local":
            results = run_pool(fn, work, jobs or os.cpu_count() or 1)
        else:
            results = _dask(fn, work, client)
        with contextlib.closing(results):
            yield from results
    finally:
        if owned:
            close_client(client)


def dask_client(client=None, scheduler: str | None = None, jobs: int | None = None):
    """(client, whether we made it): the one given, one for the scheduler's address, or one of
    a new local cluster."""
    if client is not None:
        return client, False
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BackendError(
            "the dask backend needs dask.distributed: pip install 'routerlab[dask]'"
        ) from None
    if scheduler:
        return connect(Client, scheduler), True
    cluster = LocalCluster(
        n_workers=jobs or os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
    )
    return Client(cluster), True


# How long to try to reach a scheduler named by address before giving up.
SCHEDULER_TIMEOUT_S = 10.0


def connect(Client, scheduler: str):
    """A client of the scheduler at ``scheduler``; `BackendError` in one line if it cannot be
    reached within `SCHEDULER_TIMEOUT_S` (a wrong address, a scheduler not running)."""
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise BackendError(
            f"cannot reach the Dask scheduler at {scheduler} within {SCHEDULER_TIMEOUT_S:g} s "
            f"({reason})"
        ) from None


def close_client(client) -> None:
    """Close a client made by `dask_client`, and its local cluster if it has one."""
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


def _dask(fn, work: list[tuple[int, list]], client) -> Iterator[tuple[int, list, object]]:
    from distributed import as_completed

    futures = {}
    try:
        for offset, batch in work:
            futures[client.submit(fn, batch, pure=False)] = (offset, batch)
        for fut in as_completed(list(futures)):
            try:
                result = fut.result()
            except Exception as e:  # the task itself failed: a worker died, say
                result = e
            yield (*futures[fut], result)
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
