"""A campaign's directory: what ran, and each run's files.

    DIR/manifest.json          the sweep, its configurations, the runs done and the runs failed
    DIR/sweep.toml, base.toml  the sweep file and base scenario as given (when from files)
    DIR/scenarios/configNNNN.toml   each configuration's exact scenario
    DIR/runs/KEY/              one run: the files of `routerlab run` plus params.json
    DIR/tables/*.parquet       every run together (written when the sweep ends)
    DIR/figures/*.png, *.svg   and DIR/report.html

Every write is atomic (a temporary file or directory renamed into place), and a run enters the
manifest only after its directory is complete, so the manifest never lists a run whose data is
missing. A run's directory is the proof that it ran: resuming trusts the directories, so runs
finished after the manifest's last write are not run again either.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

from .. import _core
from ..output import AtomicDir, remove_stale_temporaries, write_text_atomic
from ..runner import RunResult, write_files
from .spec import SweepError

#: The manifest's format tag.
FORMAT = "routerlab-campaign/2"


def write_json_atomic(path: Path, obj) -> None:
    write_text_atomic(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")


class Store:
    """The directory of one campaign."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.manifest: dict = {}

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def run_dir(self, key: str) -> Path:
        return self.root / "runs" / key

    def read_manifest(self) -> dict:
        if not self.manifest_path.is_file():
            return {}
        return json.loads(self.manifest_path.read_text())

    def done_keys(self) -> set[str]:
        """Runs whose directory is complete (only complete ones are ever renamed into place)."""
        runs = self.root / "runs"
        if not runs.is_dir():
            return set()
        return {d.name for d in runs.iterdir() if (d / "summary.json").is_file()}

    def open(self, describe: dict, configs: list[dict], total: int, files: dict[str, str]) -> None:
        """Start (or resume) the campaign: keep what an earlier manifest recorded of runs done
        or failed, and write the sweep's own files."""
        (self.root / "scenarios").mkdir(parents=True, exist_ok=True)
        for d in (self.root, self.root / "runs", self.root / "scenarios"):
            remove_stale_temporaries(d)
        old = self.read_manifest()
        if old and old.get("format") == "routerlab-campaign/1":
            raise SweepError(
                f"{self.root} holds a campaign of an older routerlab, whose replicates have "
                "other seeds (use another directory)"
            )
        if old and old.get("format") != FORMAT:
            raise SweepError(f"{self.manifest_path}: not a routerlab campaign manifest")
        done = self.done_keys()
        for name, text in files.items():
            write_text_atomic(self.root / name, text)
        self.manifest = {
            "format": FORMAT,
            "sweep": describe,
            "routerlab_version": _core.version(),
            "git_commit": _core.git_commit(),
            "python": platform.python_version(),
            "configs": configs,
            "total_runs": total,
            "runs": {k: v for k, v in old.get("runs", {}).items() if k in done},
            "failed": old.get("failed", {}),
        }

    def record_run(self, key: str, entry: dict, result: RunResult, text: str) -> None:
        """Write one run's directory (atomically), then enter it in the manifest (in memory;
        `flush` writes the manifest)."""
        with AtomicDir(self.run_dir(key), force=True, clean=False) as d:  # cleaned in open
            write_files(result, d.path, text)
            (d.path / "params.json").write_text(json.dumps(entry, indent=2, sort_keys=True) + "\n")
            d.commit()
        self.adopt(key, entry)

    def record_failure(self, key: str, entry: dict, error: str) -> None:
        self.manifest["failed"][key] = {**entry, "error": error}

    def adopt(self, key: str, entry: dict) -> None:
        """A run found complete on disk but missing from the manifest (the sweep was stopped
        before the manifest's last write)."""
        self.manifest["runs"][key] = entry
        self.manifest["failed"].pop(key, None)

    def flush(self) -> None:
        write_json_atomic(self.manifest_path, self.manifest)
