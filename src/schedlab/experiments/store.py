"""The results store: one folder per finished run, written so that nothing is ever half there.

Layout of a results folder DIR::

    DIR/runs/<run_id>/config.json        the run's configuration (RunConfig.to_dict + label)
    DIR/runs/<run_id>/summary.json       the metrics (deterministic: no timings)
    DIR/runs/<run_id>/jobs.parquet       the per-job table
    DIR/runs/<run_id>/timeseries.parquet queue length and busy processors over time (only
                                         for policies that preempt: else rebuilt from jobs)
    DIR/runs/<run_id>/meta.json          wall time, versions, skipped records (not part of
                                         the results proper)
    DIR/failed/<run_id>.json             a run that raised: configuration, error, traceback
    DIR/catalog.parquet                  one row per run (done or failed), for pandas/pyarrow
    DIR/.lock                            held by the sweep writing DIR; says who (pid, host)

A run's folder is filled under DIR/tmp/ and renamed into DIR/runs/ in one step, so a run is
either complete or absent, whatever moment the process is killed at; a finished run is never
written again. Files are not fsync'ed one by one (that cost more than the runs themselves on
sweeps of small runs); instead, opening a folder for writing checks every finished run and
moves aside the few a power failure could have left incomplete, so they run again. The
catalog is derived data, rebuilt (atomically) from runs/ and failed/. Reading a damaged run
raises a ConfigError that names its file (a sweep over the folder repairs it).

The lock is an flock on DIR/.lock, and the file holds the holder's pid, host and start time,
emptied on a clean close. A sweep killed outright leaves that record behind: the kernel lock
died with the process, so the next writer takes the folder over and says so
(``takeover_note``); a lock still held names the process holding it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig, canonical_json
from schedlab.outputs import FILE_MODE

RUNS = "runs"
FAILED = "failed"
TMP = "tmp"
CATALOG = "catalog.parquet"
LOCK = ".lock"
_REPAIR = (
    "a complete file; this one is damaged (cut short by a crash?): run `schedlab sweep` "
    "on this folder again to repair it (damaged runs are run again)"
)

# Lock file descriptors this process holds. Why flock and not POSIX record locks (lockf):
# a record lock belongs to the process, so a second store in the same process would not be
# refused, and closing any descriptor of .lock (e.g. to read who holds it) would silently
# drop it. An flock belongs to the open file description, which fork() shares with the
# child: the hook below closes the child's copy right after every os.fork (pool workers,
# user code alike), so no child keeps a folder locked after its parent is gone (a program
# exec'ed never gets it: the descriptor is close-on-exec). Closing a copy never unlocks the
# parent's lock; flock(LOCK_UN) in a child would, and is never done.
_HELD_LOCKS: set[int] = set()


def _close_inherited_locks() -> None:
    for fd in _HELD_LOCKS:
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD_LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_inherited_locks)


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
        os.fchmod(fd, FILE_MODE)  # as every other file of the folder, not mkstemp's 0600
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


def _pid_running(pid: int) -> bool:
    """Whether a process with this pid exists on this machine (signal 0 checks, sends nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, as another user's process
        return True
    return True


def _lock_record(fd: int) -> dict[str, Any] | None:
    """The holder record in a lock file, None if empty; unreadable content gives {}."""
    data = os.pread(fd, 4096, 0)
    if not data.strip():
        return None
    try:
        record = json.loads(data)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def _describe_holder(record: dict[str, Any]) -> str:
    return (
        f"pid {record.get('pid', '?')} on {record.get('host', '?')}, "
        f"started {record.get('started_at', '?')}"
    )


class ResultStore:
    """Reads and writes one results folder (see the module docstring for the layout)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self._lock_fd: int | None = None
        self._lock_pid: int | None = None
        # set by open_for_writing for the caller to show (the library never prints): the
        # lock left by a writer that did not close the folder, and the damaged runs removed
        self.takeover_note: str | None = None
        self.repaired_runs: list[str] = []

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
        """Create the folders, take the lock, and clear what killed writers left behind."""
        for sub in (RUNS, FAILED, TMP):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            self._clear_leftovers()
        except BaseException:
            self.close()
            raise

    def _clear_leftovers(self) -> None:
        """Half-written temporary folders, damaged runs, unreadable failure records."""
        for leftover in (self.root / TMP).iterdir():
            shutil.rmtree(leftover, ignore_errors=True) if leftover.is_dir() else leftover.unlink()
        self.repaired_runs = sorted(
            run_id for run_id in self.done_ids() if not self._complete(self.run_dir(run_id))
        )
        for run_id in self.repaired_runs:
            shutil.rmtree(self.run_dir(run_id), ignore_errors=True)
        for record in self.failed_dir.glob("*.json"):
            try:  # an unreadable failure record goes: a failed run is run again anyway
                json.loads(record.read_bytes())
            except ValueError:
                record.unlink()

    def _lock(self) -> None:
        """flock DIR/.lock (see _HELD_LOCKS for why flock) and write who holds it."""
        path = self.root / LOCK
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refusal(_lock_record(fd)) from None
            previous = _lock_record(fd)
            record = {
                "pid": os.getpid(),
                "host": os.uname().nodename,
                "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
        except BaseException:
            os.close(fd)  # also releases the lock if it was taken
            raise
        self._lock_fd, self._lock_pid = fd, os.getpid()
        _HELD_LOCKS.add(fd)
        self.takeover_note = None if previous is None else self._takeover(previous)

    def _refusal(self, holder: dict[str, Any] | None) -> ConfigError:
        allowed = "a results folder no other running sweep is writing"
        if holder and isinstance(holder.get("pid"), int):
            here = holder.get("host") == os.uname().nodename
            if here and not _pid_running(holder["pid"]):
                allowed += (
                    f" (its lock is held although the sweep that took it, "
                    f"{_describe_holder(holder)}, has ended: processes it started still "
                    f"run; `fuser -v {self.root / LOCK}` lists them)"
                )
            else:
                allowed += f" (the sweep {_describe_holder(holder)} is writing it)"
        return ConfigError("--out", str(self.root), allowed)

    def _takeover(self, previous: dict[str, Any]) -> str:
        """What to tell the user when the lock record of a writer gone without closing is found."""
        where = f"{self.root}: took over the lock of a sweep that did not finish"
        if not isinstance(previous.get("pid"), int):
            return f"{where} (unreadable lock record); its unfinished runs will run again"
        holder = _describe_holder(previous)
        if previous.get("host") != os.uname().nodename:
            state = "its host is another machine, and the lock was free"
        elif _pid_running(previous["pid"]):
            state = "a process with that pid runs, but it is another one: the lock was free"
        else:
            state = "no longer running"
        return f"{where} ({holder}; {state}); its unfinished runs will run again"

    @staticmethod
    def _complete(folder: Path) -> bool:
        """Every file there and whole: JSON that parses, Parquet that ends with its magic."""
        try:
            for name in ("config.json", "summary.json", "meta.json"):
                if not isinstance(json.loads((folder / name).read_bytes()), dict):
                    return False
            parquets = ["jobs.parquet"]
            meta = json.loads((folder / "meta.json").read_bytes())
            if meta.get("timeseries_recorded", True):
                parquets.append("timeseries.parquet")
            for name in parquets:
                with open(folder / name, "rb") as fh:
                    fh.seek(-4, os.SEEK_END)
                    if fh.read(4) != b"PAR1":
                        return False
        except (OSError, ValueError):
            return False
        return True

    def close(self) -> None:
        """Release the lock; the empty lock file then says that the folder was closed cleanly.

        In a forked child (which never holds the lock: its copy was closed at fork) this
        only forgets the descriptor, which may by now number another file."""
        fd, self._lock_fd = self._lock_fd, None
        if fd is None or self._lock_pid != os.getpid():
            return
        _HELD_LOCKS.discard(fd)
        try:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

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
            "meta.json": _json_bytes(outcome.meta or {}),
        }
        if outcome.timeseries is not None:  # (else rebuilt from jobs.parquet when read)
            files["timeseries.parquet"] = outcome.timeseries
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

    def _damaged(self, run_id: str, path: Path) -> ConfigError:
        return ConfigError(f"run {run_id} in results folder {self.root}", str(path), _REPAIR)

    def _read_json(self, run_id: str, path: Path, *, missing_is_damage: bool = True) -> Any:
        """A JSON file of the store; a damaged one raises a ConfigError naming it."""
        try:
            data = json.loads(path.read_bytes())
        except FileNotFoundError:
            if missing_is_damage and path.parent.is_dir():  # a run folder short of a file
                raise self._damaged(run_id, path) from None
            raise
        except ValueError:  # JSONDecodeError, UnicodeDecodeError: cut short or garbled
            raise self._damaged(run_id, path) from None
        if not isinstance(data, dict):
            raise self._damaged(run_id, path)
        return data

    def _read_parquet(self, run_id: str, name: str) -> Any:
        import pandas as pd
        import pyarrow as pa

        path = self.run_dir(run_id) / name
        try:
            return pd.read_parquet(path)
        except PermissionError:
            raise
        except FileNotFoundError:
            if not path.parent.is_dir():
                raise
            raise self._damaged(run_id, path) from None
        except (OSError, ValueError, pa.ArrowException):  # truncated, corrupt pages
            raise self._damaged(run_id, path) from None

    def config(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self._read_json(run_id, self.run_dir(run_id) / "config.json")
        return data

    def summary(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self._read_json(run_id, self.run_dir(run_id) / "summary.json")
        return data

    def meta(self, run_id: str) -> dict[str, Any]:
        data: dict[str, Any] = self._read_json(run_id, self.run_dir(run_id) / "meta.json")
        return data

    def failure(self, run_id: str) -> dict[str, Any]:
        path = self.failed_dir / f"{run_id}.json"
        data: dict[str, Any] = self._read_json(run_id, path, missing_is_damage=False)
        return data

    def jobs(self, run_id: str) -> Any:
        """Per-job table of a finished run (pandas DataFrame)."""
        return self._read_parquet(run_id, "jobs.parquet")

    def timeseries(self, run_id: str) -> Any:
        """Queue length and busy processors over time of a finished run (DataFrame).

        Runs whose series was not recorded (``timeseries_recorded: false`` in meta.json: a
        policy that never suspends a job) get it rebuilt, exactly, from the per-job table.
        """
        if self.meta(run_id).get("timeseries_recorded", True):
            return self._read_parquet(run_id, "timeseries.parquet")
        import pandas as pd

        from schedlab.metrics.occupancy import timeseries_from_jobs

        return pd.DataFrame(timeseries_from_jobs(self.jobs(run_id)))

    def iter_records(self) -> Iterator[dict[str, Any]]:
        """One flat record per run, done runs first then failures, each sorted by id."""
        for run_id in sorted(self.done_ids()):
            config = self.config(run_id)
            record = self._config_columns(run_id, config, self.run_dir(run_id) / "config.json")
            record["status"] = "done"
            record.update(self.summary(run_id))
            meta = self.meta(run_id)
            record["wall_time"] = meta.get("wall_time")
            yield record
        for run_id in sorted(self.failed_ids() - self.done_ids()):
            failure = self.failure(run_id)
            path = self.failed_dir / f"{run_id}.json"
            if not isinstance(failure.get("config"), dict):
                raise self._damaged(run_id, path)
            record = self._config_columns(run_id, failure["config"], path)
            record["status"] = "failed"
            record["error"] = failure.get("error")
            yield record

    def catalog(self) -> Any:
        """All runs as a pandas DataFrame (the same content as catalog.parquet)."""
        import pandas as pd

        return pd.DataFrame(list(self.iter_records()))

    def _config_columns(self, run_id: str, config: dict[str, Any], path: Path) -> dict[str, Any]:
        try:
            return _config_columns(run_id, config)
        except (KeyError, TypeError, ValueError):  # JSON, but not a run's configuration
            raise self._damaged(run_id, path) from None

    def write_catalog(self) -> Path:
        """Rebuild catalog.parquet from the run folders, atomically.

        A column with an integer beyond int64 (a seed can be any Python int) is written as
        decimal strings, whole (arrow.python_array): ``catalog()`` keeps the Python ints."""
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
