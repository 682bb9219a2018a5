"""Metrics of grid runs (Caron et al., LIP RR-2005-13, section 4.4; SPEC 3), from the per-job
table of a platform run.

For a job submitted at t (to the meta-scheduler for a meta-job, to its site for a local job),
admitted into its queue at tl, started at r and ended at d: global wait r - t, local wait
r - tl, execution d - r, response d - t; makespan = max d - min t over the jobs counted.
Jobs queued, running and done over time are counted from the per-job instants with sorted
searches (no live observer): a job counts as queued on [submit, start), running on
[start, end), done from its end on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "GROUP_KEYS",
    "busy_procs",
    "grid_by",
    "grid_summary",
    "matcher_requests",
    "state_counts",
    "time_grid",
]

GROUP_KEYS = ("site", "org", "stream")  # what per-group metrics and series can be split by
_METRICS = (  # of all jobs (`_group_metrics` with no prefix)
    "makespan",
    "mean_wait_time",
    "mean_local_wait_time",
    "mean_execution_time",
    "mean_response_time",
)
Columns = Mapping[str, np.ndarray]


def state_counts(
    submitted: np.ndarray,
    started: np.ndarray,
    finished: np.ndarray,
    times: np.ndarray,
) -> dict[str, np.ndarray]:
    """Jobs queued (submitted, not started), running and done at each of ``times``."""
    sub = np.sort(submitted)
    sta = np.sort(started)
    fin = np.sort(finished)
    n_sub = np.searchsorted(sub, times, side="right")
    n_sta = np.searchsorted(sta, times, side="right")
    n_fin = np.searchsorted(fin, times, side="right")
    return {
        "queued": (n_sub - n_sta).astype(np.int64),
        "running": (n_sta - n_fin).astype(np.int64),
        "done": n_fin.astype(np.int64),
    }


def _group_metrics(c: Columns, mask: np.ndarray, prefix: str, out: dict[str, Any]) -> None:
    sub = c["submitted_at"][mask]
    fin = c["finished_at"][mask]
    if prefix:
        out[f"{prefix}jobs"] = int(mask.sum())
    out[f"{prefix}makespan"] = float(fin.max() - sub.min())
    out[f"{prefix}mean_wait_time"] = float(c["wait_time"][mask].mean())
    out[f"{prefix}mean_local_wait_time"] = float(c["local_wait_time"][mask].mean())
    out[f"{prefix}mean_execution_time"] = float(c["run_time"][mask].mean())
    out[f"{prefix}mean_response_time"] = float(c["response_time"][mask].mean())


def grid_summary(
    c: Columns, *, procs: int, counters: Mapping[str, int], wall_time: float
) -> dict[str, Any]:
    """The paper's metrics for all jobs, and separately for meta-jobs (``global_``) and local
    jobs (``local_``), then the meta-scheduler's counters (matcher requests, pilots). A run
    of no job (runs refuse such streams up front) has NaN metrics: undefined, not 0."""
    n = len(c["job_id"])
    out: dict[str, Any] = {"jobs": n, "procs": procs}
    groups = {"": np.ones(n, dtype=bool)}
    groups["global_"] = c["stream"] == "global"
    groups["local_"] = c["stream"] == "local"
    for prefix, mask in groups.items():
        if mask.any():
            _group_metrics(c, mask, prefix, out)
    if not n:
        for key in _METRICS:
            out[key] = math.nan
    makespan = out["makespan"]
    busy = float(np.dot(c["run_time"], c["procs"]))
    if not n:
        out["utilization"] = math.nan
    else:
        out["utilization"] = busy / (procs * makespan) if makespan > 0 else 0.0
    out["killed"] = int(np.count_nonzero(c["killed"]))
    out.update(counters)
    out.setdefault("matcher_requests", 0)
    out.setdefault("wasted_pilots", 0)
    out["wall_time"] = wall_time
    return out


def check_group_key(key: str, keys: Sequence[str] = GROUP_KEYS) -> str:
    """``key`` if per-group metrics can be split by it, else ConfigError naming ``--by``."""
    if key not in keys:
        raise ConfigError("--by", key, ", ".join(keys))
    return key


def grid_by(c: Columns, key: str, keys: Sequence[str] = GROUP_KEYS) -> pd.DataFrame:
    """The paper's metrics per ``key`` (one of ``keys``): one row per value, with the jobs,
    makespan, mean wait (global), local wait, execution and response times, and killed
    jobs. A job counts at the site that ran it."""
    import pandas as pd

    check_group_key(key, keys)
    rows = []
    for value in sorted(set(c[key].tolist()), key=str):
        mask = c[key] == value
        row: dict[str, Any] = {key: value, "jobs": int(mask.sum())}
        _group_metrics(c, mask, "", row)
        row["killed"] = int(np.count_nonzero(c["killed"][mask]))
        rows.append(row)
    return pd.DataFrame(rows)


def time_grid(c: Columns, bins: int) -> np.ndarray:
    """``bins`` evenly spaced instants from the first submission to the last end."""
    start = float(np.min(c["submitted_at"])) if len(c["job_id"]) else 0.0
    end = float(np.max(c["finished_at"])) if len(c["job_id"]) else 0.0
    return np.linspace(start, end, bins)


def matcher_requests(
    request_times: Mapping[str, Sequence[float]], times: np.ndarray
) -> dict[str, np.ndarray]:
    """Matcher requests per time bin (the bin that starts at each of ``times``), by kind."""
    edges = np.append(times, times[-1] + 1e-9) if len(times) else times
    out: dict[str, np.ndarray] = {}
    for kind, values in sorted(request_times.items()):
        hist, _ = np.histogram(np.asarray(values, dtype=np.float64), bins=edges)
        out[kind] = hist
    return out


def busy_procs(c: Columns, times: np.ndarray) -> np.ndarray:
    """Processors running jobs at each of ``times`` (a pilot's own time before and between
    its payloads is not counted: pilots are not rows of the table)."""
    started = np.asarray(c["started_at"], dtype=np.float64)
    finished = np.asarray(c["finished_at"], dtype=np.float64)
    procs = np.asarray(c["procs"], dtype=np.int64)
    ran = np.isfinite(started)
    starts = np.argsort(started[ran], kind="stable")
    ends = np.argsort(finished[ran], kind="stable")
    begun = np.concatenate(([0], np.cumsum(procs[ran][starts])))
    over = np.concatenate(([0], np.cumsum(procs[ran][ends])))
    n_start = np.searchsorted(started[ran][starts], times, side="right")
    n_end = np.searchsorted(finished[ran][ends], times, side="right")
    return (begun[n_start] - over[n_end]).astype(np.int64)
