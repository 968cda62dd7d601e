"""The local process pool (`routerlab.sweeps.pool`): a run that kills its worker is reported as
failed, pinned on that run alone, and the rest go on; a sweep records it and finishes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import SMALL_DUMBBELL
from helpers import routerlab as cli
from routerlab.sweeps import backends
from routerlab.sweeps.pool import WorkerDied, run_pool

DOOMED = 5


def square_or_abort(batch: list[int]) -> list[int]:
    """Squares, except that item DOOMED aborts the process (as a failed allocation does)."""
    if DOOMED in batch:
        os.abort()
    return [x * x for x in batch]


def raise_on_doomed(batch: list[int]) -> list[int]:
    if DOOMED in batch:
        raise ValueError("no")
    return [x * x for x in batch]


def outcomes(fn, items: list[int], jobs: int, size: int) -> dict[int, object]:
    """item -> its result, or the exception standing in for its batch."""
    got: dict[int, object] = {}
    for offset, batch, result in run_pool(fn, backends.batches(items, size), jobs):
        assert items[offset : offset + len(batch)] == batch
        for i, x in enumerate(batch):
            assert x not in got, "an item came back twice"
            got[x] = result if isinstance(result, BaseException) else result[i]
    return got


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_that_kills_its_worker_fails_alone_and_the_others_finish(jobs: int):
    items = list(range(12))
    got = outcomes(square_or_abort, items, jobs, size=4)
    assert set(got) == set(items)
    died = got.pop(DOOMED)
    assert isinstance(died, WorkerDied) and "SIGABRT" in str(died)
    assert got == {x: x * x for x in items if x != DOOMED}  # its batch-mates were retried


def test_an_exception_is_the_batch_result_and_the_worker_lives_on():
    got = outcomes(raise_on_doomed, list(range(8)), jobs=1, size=2)
    assert isinstance(got[DOOMED], ValueError) and isinstance(got[DOOMED - 1], ValueError)
    assert got[7] == 49


def test_closing_early_stops_the_workers():
    results = run_pool(square_or_abort, backends.batches([1, 2, 3, 4], 1), jobs=2)
    next(results)
    results.close()  # no hang, no stray process: the finally block kills and joins


HOOK = """
import os
if os.environ.get("ROUTERLAB_TEST_ABORT_ON"):
    import routerlab.runner as runner
    import routerlab.sweeps.campaign as campaign
    real = runner.simulate
    def simulate(text, *args, **kwargs):
        if os.environ["ROUTERLAB_TEST_ABORT_ON"] in text:
            os.abort()
        return real(text, *args, **kwargs)
    runner.simulate = campaign.simulate = simulate
"""


def hooked(tmp_path: Path, abort_on: str) -> dict:
    """An environment whose routerlab processes abort any run whose scenario holds `abort_on`
    (sitecustomize on PYTHONPATH): a stand-in for a run that dies in native code."""
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(HOOK)
    path = os.environ.get("PYTHONPATH", "")
    return {
        **os.environ,
        "PYTHONPATH": f"{tmp_path / 'hook'}{os.pathsep}{path}",
        "ROUTERLAB_TEST_ABORT_ON": abort_on,
    }


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_sweep_with_an_aborting_run_records_it_failed_and_finishes(tmp_path: Path, jobs: str):
    env = hooked(tmp_path, "17pkts")
    (tmp_path / "base.toml").write_text(SMALL_DUMBBELL)
    f = tmp_path / "s.toml"
    f.write_text(
        '[sweep]\nbase = "base.toml"\nseeds = 2\nbatch = 4\n'
        '[grid]\n"topology.bottleneck.queue.limit" = ["10pkts", "17pkts", "80pkts"]\n'
    )
    out = tmp_path / "out"
    r = cli("sweep", str(f), "--out", str(out), "--jobs", jobs, env=env)
    assert r.returncode == 1, r.stderr
    assert "4 of 6 runs done, 2 failed" in r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    failed = manifest["failed"].values()
    assert [e["params"] for e in failed] == [{"topology.bottleneck.queue.limit": "17pkts"}] * 2
    assert all("WorkerDied" in e["error"] and "SIGABRT" in e["error"] for e in failed)


def test_a_reproduction_whose_run_kills_its_worker_fails_cleanly(tmp_path: Path):
    env = hooked(tmp_path, "[topology]")  # every run
    out = tmp_path / "exp"
    r = cli("reproduce", "base-small-packet", "--quick", "--out", str(out), env=env)
    assert r.returncode == 1, r.stderr
    assert "a run failed (configuration 0" in r.stderr and "SIGABRT" in r.stderr
    assert "Traceback" not in r.stderr and not out.exists()
