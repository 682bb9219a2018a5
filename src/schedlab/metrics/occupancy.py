"""Queue length and busy processors over time, rebuilt from the per-job table.

A run simulated without ``timeseries=True`` still has every job's submit, start and end, so
the step functions that ``TimeSeriesObserver`` records can be rebuilt after the fact: at
each instant t, ``queued`` = jobs submitted by t and not started by t, ``running`` = jobs
started by t and not ended by t, ``busy_procs`` = the processors of those. The rebuilt
series equals the recorded one as a step function for every run whose jobs start once and
run to their end (no suspension, no requeue); a preempted job counts as running from its
(last) start to its end, where the observer counts it as queued while suspended.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["timeseries_from_jobs"]


def _count_by(times: np.ndarray, at: np.ndarray) -> np.ndarray:
    """How many of ``times`` (sorted) are <= each of ``at``."""
    return np.searchsorted(times, at, side="right")


def _sum_by(times: np.ndarray, weights: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Sum of ``weights`` whose ``times`` are <= each of ``at`` (exact integers)."""
    order = np.argsort(times, kind="stable")
    cumulative = np.concatenate(([0], np.cumsum(weights[order], dtype=np.int64)))
    return cumulative[np.searchsorted(times[order], at, side="right")]


def timeseries_from_jobs(jobs: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Columns ``time``, ``queued``, ``running``, ``busy_procs`` (as ``TimeSeriesObserver``)
    from a per-job table with ``submitted_at``, ``started_at``, ``finished_at`` and
    ``procs`` (or ``cores_held``, on node types): one row per distinct event time, the
    state after it. A job that never started (NaN) stays queued to the end."""
    submitted = np.asarray(jobs["submitted_at"], dtype=np.float64)
    started = np.asarray(jobs["started_at"], dtype=np.float64)
    finished = np.asarray(jobs["finished_at"], dtype=np.float64)
    # on node types a job holds ``cores_held`` (every core of an exclusive job's nodes)
    held = jobs["cores_held"] if "cores_held" in jobs else jobs["procs"]
    procs = np.asarray(held, dtype=np.int64)
    ran = np.isfinite(started)
    ended = ran & np.isfinite(finished)
    events = np.concatenate((submitted[np.isfinite(submitted)], started[ran], finished[ended]))
    times = np.unique(events)
    starts, ends = started[ran], finished[ended]
    n_started = _count_by(np.sort(starts), times)
    n_ended = _count_by(np.sort(ends), times)
    queued = _count_by(np.sort(submitted), times) - n_started
    busy = _sum_by(starts, procs[ran], times) - _sum_by(ends, procs[ended], times)
    return {
        "time": times,
        "queued": queued.astype(np.int64),
        "running": (n_started - n_ended).astype(np.int64),
        "busy_procs": busy.astype(np.int64),
    }
