"""Writing results: atomically, so that nothing half-written ever looks complete.

A run writes into a hidden temporary directory next to its destination and moves it into place
only when every file is written. An existing destination is swapped out in one step (Linux's
``renameat2(RENAME_EXCHANGE)``; elsewhere two renames) and deleted only after the new one is in
place, so an interrupted run never damages an earlier result.

Temporaries are named ``.NAME.tmp-PID-RANDOM`` (``.old-`` for a replaced result): a process
killed outright (SIGKILL, power loss) leaves its own behind, and the next write to the same
place deletes those whose process no longer exists.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

#: Destinations committed, and destinations begun but abandoned (an exception, Ctrl-C), by this
#: process: how an interrupt is reported depends on which it hit.
COMMITTED: list[Path] = []
ABANDONED: list[Path] = []


class OutputExists(Exception):
    """The destination exists, is not empty, and ``--force`` was not given."""


def _dir_nonempty(path: Path) -> bool:
    return path.is_dir() and any(path.iterdir())


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE). False if unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    rc = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return rc == 0


_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?:tmp|old)-(?P<pid>\d+)-[0-9a-f]{8}")


def _temporary_name(final: Path, kind: str) -> Path:
    return final.parent / f".{final.name}.{kind}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def remove_stale_temporaries(directory: Path, name: str | None = None) -> list[Path]:
    """Delete the temporaries in ``directory`` (of ``name`` only, if given) left by processes
    that no longer exist; returns what was deleted."""
    removed = []
    try:
        entries = list(Path(directory).iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = _TEMPORARY.fullmatch(entry.name)
        if m is None or (name is not None and m["name"] != name) or _alive(int(m["pid"])):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed


class AtomicDir:
    """A directory that appears at ``final`` complete, or not at all.

    Use as a context manager; write into ``.path``; call ``commit()`` when everything is written.
    Leaving the block without committing (an exception, Ctrl-C) deletes the temporary directory.
    Entering it deletes the stale temporaries of the same destination (unless ``clean`` is
    false: a caller writing many siblings cleans their directory once instead).
    """

    def __init__(self, final: Path, force: bool = False, clean: bool = True):
        self.final = Path(final)
        self.force = force
        self.clean = clean
        self.path = _temporary_name(self.final, "tmp")
        self._committed = False

    def check(self) -> None:
        if _dir_nonempty(self.final) and not self.force:
            raise OutputExists(f"{self.final} exists and is not empty (use --force to replace it)")
        if self.final.exists() and not self.final.is_dir():
            raise OutputExists(f"{self.final} exists and is not a directory")

    def __enter__(self) -> AtomicDir:
        self.check()
        self.final.parent.mkdir(parents=True, exist_ok=True)
        if self.clean:
            remove_stale_temporaries(self.final.parent, self.final.name)
        self.path.mkdir()
        return self

    def commit(self) -> None:
        self.check()
        if self.final.exists():
            if _exchange(self.path, self.final):
                shutil.rmtree(self.path)  # now holds the old result
            else:
                old = _temporary_name(self.final, "old")
                os.rename(self.final, old)
                os.rename(self.path, self.final)
                shutil.rmtree(old)
        else:
            os.rename(self.path, self.final)
        self._committed = True
        COMMITTED.append(self.final)

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._committed:
            ABANDONED.append(self.final)
            if self.path.exists():
                shutil.rmtree(self.path, ignore_errors=True)


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one rename: readers see the old or the new file."""
    tmp = _temporary_name(path, "tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


# Arrow types of the result tables' columns, in the order the tables are written.
FLOW_SCHEMA = pa.schema(
    [
        ("flow_id", pa.uint32()),
        ("group", pa.string()),
        ("protocol", pa.string()),
        ("src", pa.string()),
        ("dst", pa.string()),
        ("size_bytes", pa.uint64()),
        ("start_s", pa.float64()),
        ("fct_s", pa.float64()),
        ("bytes_acked", pa.uint64()),
        ("bytes_delivered", pa.uint64()),
        ("goodput_bps", pa.float64()),
        ("retransmissions", pa.uint64()),
        ("spurious_retransmissions", pa.uint64()),
        ("fast_recoveries", pa.uint64()),
        ("timeouts", pa.uint64()),
        ("spurious_timeouts", pa.uint64()),
        ("loss_probes", pa.uint64()),
        ("syn_timeouts", pa.uint64()),
        ("loss_detection_s", pa.float64()),
        ("retransmitted_segments", pa.uint64()),
        ("max_silence_s", pa.float64()),
        ("rate_mode_switches", pa.uint64()),
        ("rate_mode_s", pa.float64()),
    ]
)

TRANSFER_SCHEMA = pa.schema(
    [
        ("transfer_id", pa.uint32()),
        ("flow_id", pa.uint32()),
        ("group", pa.string()),
        ("seq", pa.uint32()),
        ("size_bytes", pa.uint64()),
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
    ]
)

QUEUE_SCHEMA = pa.schema(
    [
        ("t_s", pa.float64()),
        ("link", pa.string()),
        ("queue_packets", pa.uint64()),
        ("queue_bytes", pa.uint64()),
        ("utilization", pa.float64()),
    ]
)

FAIRNESS_SCHEMA = pa.schema(
    [
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
        ("jain_index", pa.float64()),
        ("flows", pa.uint32()),
        ("silent_flows", pa.uint32()),
    ]
)

LATENCY_SCHEMA = pa.schema(
    [
        ("probe", pa.uint32()),
        ("t_s", pa.float64()),
        ("latency_s", pa.float64()),
        ("flow_id", pa.uint32()),
    ]
)

QUEUE_DELAY_SCHEMA = pa.schema(
    [
        ("link", pa.string()),
        ("lower_s", pa.float64()),
        ("upper_s", pa.float64()),
        ("count", pa.uint64()),
    ]
)

FLOW_EPOCH_SCHEMA = pa.schema(
    [
        ("link", pa.string()),
        ("flow_id", pa.uint32()),
        ("end_s", pa.float64()),
        ("from_state", pa.string()),
        ("to_state", pa.string()),
        ("packets", pa.uint32()),
        ("drops", pa.uint32()),
        ("epochs", pa.uint32()),
    ]
)

STAGE_SCHEMA = pa.schema(
    [
        ("at", pa.string()),
        ("stage", pa.string()),
        ("counter", pa.string()),
        ("value", pa.uint64()),
    ]
)

# Optional tables: name in the results dict -> schema (written as NAME.parquet when present).
OPTIONAL_TABLES = {
    "timeseries": None,  # filled in below
    "queues": QUEUE_SCHEMA,
    "fairness": FAIRNESS_SCHEMA,
    "latency": LATENCY_SCHEMA,
    "queue_delay": QUEUE_DELAY_SCHEMA,
    "flow_epochs": FLOW_EPOCH_SCHEMA,
    "stages": STAGE_SCHEMA,
}

LINK_SCHEMA = pa.schema(
    [
        ("link", pa.string()),
        ("rate_bps", pa.uint64()),
        ("tx_packets", pa.uint64()),
        ("tx_bytes", pa.uint64()),
        ("utilization", pa.float64()),
        ("drops", pa.uint64()),
        ("cuts", pa.uint64()),
        ("header_drops", pa.uint64()),
        ("cp_overload_s", pa.float64()),
        ("ecn_marks", pa.uint64()),
        ("queue_high_water_packets", pa.uint64()),
        ("mean_queue_packets", pa.float64()),
        ("mean_queue_bytes", pa.float64()),
    ]
)

TIMESERIES_SCHEMA = pa.schema(
    [
        ("t_s", pa.float64()),
        ("flow_id", pa.uint32()),
        ("cwnd_bytes", pa.uint64()),
        ("ssthresh_bytes", pa.uint64()),
        ("srtt_s", pa.float64()),
        ("rto_s", pa.float64()),
        ("in_flight_bytes", pa.uint64()),
        ("send_rate_bps", pa.float64()),
        ("delivered_bps", pa.float64()),
        ("state", pa.string()),
        ("signalled_rate_bps", pa.float64()),
        ("rate_mode", pa.bool_()),
    ]
)
OPTIONAL_TABLES["timeseries"] = TIMESERIES_SCHEMA


def pcap_file_name(link: str) -> str:
    """A file name for a link's capture: `a->b` becomes `a_to_b.pcap`."""
    return link.replace("->", "_to_") + ".pcap"


# The Arrow types of the simulator's column formats (`crates/routerlab-py/src/columns.rs`).
COLUMN_FORMATS = {
    "f64": pa.float64(),
    "u64": pa.uint64(),
    "u32": pa.uint32(),
    "bool": pa.bool_(),
    "str": pa.string(),
}


def column(c: tuple) -> pa.Array:
    """A column as the simulator hands it over — ``(format, length, validity, values,
    offsets)``, Arrow's buffers as bytes — wrapped without a copy. (Not ``pa.array`` on a
    list: pyarrow imports pandas the first time it converts one, 0.45 s of every run.)"""
    fmt, n, validity, values, offsets = c
    buffers = [None if validity is None else pa.py_buffer(validity)]
    if offsets is not None:
        buffers.append(pa.py_buffer(offsets))
    buffers.append(pa.py_buffer(values))
    return pa.Array.from_buffers(COLUMN_FORMATS[fmt], n, buffers)


def table(columns: dict, schema: pa.Schema) -> pa.Table:
    """A result table from the simulator's columns, in the schema's order; each column's
    type must be the schema's (a Rust field and its schema entry changed apart is a bug)."""
    arrays = []
    for f in schema:
        a = column(columns[f.name])
        if a.type != f.type:
            raise TypeError(f"result column {f.name}: the simulator gives {a.type}, not {f.type}")
        arrays.append(a)
    return pa.Table.from_arrays(arrays, schema=schema)


def write_table(directory: Path, name: str, t: pa.Table, csv: bool = True) -> list[str]:
    """Write ``name.parquet`` (and ``name.csv``); returns the file names written."""
    pq.write_table(t, directory / f"{name}.parquet", compression="zstd")
    files = [f"{name}.parquet"]
    if csv:
        pacsv.write_csv(t, directory / f"{name}.csv")
        files.append(f"{name}.csv")
    return files
