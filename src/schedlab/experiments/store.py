"""The results store: one folder per finished run, written so that nothing is ever half there.

Layout of a results folder DIR::

    DIR/runs/<run_id>/config.json        the run's configuration (RunConfig.to_dict + label)
    DIR/runs/<run_id>/summary.json       the metrics (deterministic: no timings)
    DIR/runs/<run_id>/jobs.parquet       the per-job table
    DIR/runs/<run_id>/timeseries.parquet queue length and busy processors over time
    DIR/runs/<run_id>/meta.json          wall time, versions (not part of the results proper)
    DIR/failed/<run_id>.json             a run that raised: configuration, error, traceback
    DIR/catalog.parquet                  one row per run (done or failed), for pandas/pyarrow
    DIR/.lock                            held by the sweep that is writing DIR

A run's folder is filled under DIR/tmp/ and renamed into DIR/runs/ in one step, so a run is
either complete or absent, whatever moment the process is killed at; a finished run is never
written again. Files are not fsync'ed one by one (that cost more than the runs themselves on
sweeps of small runs); instead, opening a folder for writing checks every finished run and
moves aside the few a power failure could have left incomplete, so they run again. The
catalog is derived data, rebuilt (atomically) from runs/ and failed/.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig, canonical_json

RUNS = "runs"
FAILED = "failed"
TMP = "tmp"
CATALOG = "catalog.parquet"


@dataclass
class RunOutcome:
    """What a worker sends back: everything the store writes for one run."""

    run_id: str
    config: dict[str, Any]
    summary: dict[str, Any] | None = None
    jobs: bytes | None = None  # Parquet file content
    timeseries: bytes | None = None  # Parquet file content
    meta: dict[str, Any] | None = None
    error: str | None = None
    traceback: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, sort_keys=True, indent=2, allow_nan=True) + "\n").encode()


class ResultStore:
    """Reads and writes one results folder (see the module docstring for the layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock_fd: int | None = None

    # -- paths ------------------------------------------------------------------------
    @property
    def runs_dir(self) -> Path:
        return self.root / RUNS

    @property
    def failed_dir(self) -> Path:
        return self.root / FAILED

    def run_dir(self, run_id: str) -> Path:
        return self.runs_dir / run_id

    # -- writing ----------------------------------------------------------------------
    def open_for_writing(self) -> None:
        """Create the folders, take the lock, and clear what killed writers left in tmp/."""
        for sub in (RUNS, FAILED, TMP):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise ConfigError(
                "--out", str(self.root), "a results folder no other running sweep is writing"
            ) from None
        self._lock_fd = fd
        for leftover in (self.root / TMP).iterdir():
            shutil.rmtree(leftover, ignore_errors=True) if leftover.is_dir() else leftover.unlink()
        for run_id in self.done_ids():
            if not self._complete(self.run_dir(run_id)):
                shutil.rmtree(self.run_dir(run_id), ignore_errors=True)

    @staticmethod
    def _complete(folder: Path) -> bool:
        """Every file there and whole: JSON that parses, Parquet that ends with its magic."""
        try:
            for name in ("config.json", "summary.json", "meta.json"):
                json.loads((folder / name).read_text())
            for name in ("jobs.parquet", "timeseries.parquet"):
                with open(folder / name, "rb") as fh:
                    fh.seek(-4, os.SEEK_END)
                    if fh.read(4) != b"PAR1":
                        return False
        except (OSError, ValueError):
            return False
        return True

    def close(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> ResultStore:
        self.open_for_writing()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, outcome: RunOutcome) -> None:
        """Record one outcome: a complete run folder, or a failure record."""
        if not outcome.ok:
            record = {
                "run_id": outcome.run_id,
                "config": outcome.config,
                "error": outcome.error,
                "traceback": outcome.traceback,
            }
            _write_atomic(self.failed_dir / f"{outcome.run_id}.json", _json_bytes(record))
            return
        final = self.run_dir(outcome.run_id)
        if final.exists():
            return  # finished results are never written again
        tmp = Path(tempfile.mkdtemp(dir=self.root / TMP, prefix=f"{outcome.run_id}-"))
        files = {
            "config.json": _json_bytes(outcome.config),
            "summary.json": _json_bytes(outcome.summary),
            "jobs.parquet": outcome.jobs or b"",
            "timeseries.parquet": outcome.timeseries or b"",
            "meta.json": _json_bytes(outcome.meta or {}),
        }
        for name, data in files.items():
            (tmp / name).write_bytes(data)
        os.chmod(tmp, 0o755)
        os.rename(tmp, final)  # the commit point: the run appears complete, or not at all
        (self.failed_dir / f"{outcome.run_id}.json").unlink(missing_ok=True)

    # -- reading ----------------------------------------------------------------------
    def done_ids(self) -> set[str]:
        if not self.runs_dir.is_dir():
            return set()
        return {p.name for p in self.runs_dir.iterdir() if p.is_dir()}

    def failed_ids(self) -> set[str]:
        if not self.failed_dir.is_dir():
            return set()
        return {p.stem for p in self.failed_dir.glob("*.json")}

    def is_done(self, run_id: str) -> bool:
        return self.run_dir(run_id).is_dir()

    def config(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.run_dir(run_id) / "config.json").read_text())
        return data

    def summary(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.run_dir(run_id) / "summary.json").read_text())
        return data

    def meta(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.run_dir(run_id) / "meta.json").read_text())
        return data

    def failure(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.failed_dir / f"{run_id}.json").read_text())
        return data

    def jobs(self, run_id: str) -> Any:
        """Per-job table of a finished run (pandas DataFrame)."""
        import pandas as pd

        return pd.read_parquet(self.run_dir(run_id) / "jobs.parquet")

    def timeseries(self, run_id: str) -> Any:
        """Queue length and busy processors over time of a finished run (DataFrame)."""
        import pandas as pd

        return pd.read_parquet(self.run_dir(run_id) / "timeseries.parquet")

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """One flat record per run, done runs first then failures, each sorted by id."""
        for run_id in sorted(self.done_ids()):
            config = self.config(run_id)
            record = _config_columns(run_id, config)
            record["status"] = "done"
            record.update(self.summary(run_id))
            meta = self.meta(run_id)
            record["wall_time"] = meta.get("wall_time")
            yield record
        for run_id in sorted(self.failed_ids() - self.done_ids()):
            failure = self.failure(run_id)
            record = _config_columns(run_id, failure["config"])
            record["status"] = "failed"
            record["error"] = failure["error"]
            yield record

    def catalog(self) -> Any:
        """All runs as a pandas DataFrame (the same content as catalog.parquet)."""
        import pandas as pd

        return pd.DataFrame(list(self.iter_records()))

    def write_catalog(self) -> Path:
        """Rebuild catalog.parquet from the run folders, atomically."""
        from schedlab.experiments.arrow import parquet_bytes

        records = list(self.iter_records())
        columns: dict[str, None] = {}
        for record in records:  # union of the keys, in first-seen order
            columns.update(dict.fromkeys(record))
        data = parquet_bytes(
            {key: [r.get(key) for r in records] for key in columns}, compression="snappy"
        )
        path = self.root / CATALOG
        _write_atomic(path, data)
        return path


def _config_columns(run_id: str, config: dict[str, Any]) -> dict[str, Any]:
    """Catalog columns that describe a run's configuration."""
    run = RunConfig.from_dict(config)
    return {
        "run_id": run_id,
        "workload": run.workload_label,
        "workload_source": run.workload,
        "policy": run.policy,
        "policy_label": config.get("policy_label", run.policy),
        "params": canonical_json(run.params),
        "load_factor": run.load_factor,
        "seed": run.seed,
        "procs_override": run.procs,
        "kill_on_overrun": run.kill_on_overrun,
        "transforms": canonical_json([list(t) for t in run.transforms]),
    }
