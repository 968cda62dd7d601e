"""A reproduction's finished runs kept on disk, so that an interrupted one resumes.

    DIR.runs/KEY/summary.json    one run's summary
    DIR.runs/KEY/TABLE.arrow     its tables (Arrow IPC: read back exactly as written)

DIR is the reproduction's output directory. KEY hashes the build (the extension module's own
bytes), the scenario's text and the seed, so a run is reused only for the very same
simulation: a rebuilt routerlab, a changed experiment file or another seed runs anew. A run's
directory appears complete or not at all (`AtomicDir`). Once the experiment's results are
written the store is removed, unless kept (`--keep-runs`): a rerun, after changing an
analysis say, then reads every run back instead of simulating it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa

from .. import _core
from ..output import AtomicDir, remove_stale_temporaries


@functools.cache
def build_id() -> str:
    """The running build: a hash of the extension module's bytes."""
    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()


def run_key(text: str, seed: int) -> str:
    """The key of one simulation: this build, this scenario text, this seed."""
    h = hashlib.sha256(f"{build_id()}\0{seed}\0".encode())
    h.update(text.encode())
    return h.hexdigest()[:24]


def store_of(out: Path) -> Path:
    """Where the runs of the reproduction written to ``out`` are kept."""
    out = Path(out)
    return out.with_name(out.name + ".runs")


class RunStore:
    """The finished runs of one reproduction (see the module's docstring)."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(self.root)

    def load(self, key: str) -> tuple[dict, dict[str, pa.Table]] | None:
        """A finished run's summary and tables, or None if it is not here."""
        d = self.root / key
        if not (d / "summary.json").is_file():
            return None
        summary = json.loads((d / "summary.json").read_text())
        tables = {}
        for f in sorted(d.glob("*.arrow")):
            with pa.memory_map(str(f)) as source:
                tables[f.stem] = pa.ipc.open_file(source).read_all()
        return summary, tables

    def save(self, key: str, summary: dict, tables: dict[str, pa.Table]) -> None:
        """Keep one finished run (atomically: complete, or not at all)."""
        with AtomicDir(self.root / key, force=True, clean=False) as d:
            for name, t in tables.items():
                with pa.OSFile(str(d.path / f"{name}.arrow"), "wb") as sink:
                    with pa.ipc.new_file(sink, t.schema) as writer:
                        writer.write_table(t)
            # Last: a directory with a summary is a complete run (`load`).
            (d.path / "summary.json").write_text(json.dumps(summary, sort_keys=True))
            d.commit()

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
