"""Deadline-aware conservative backfilling, DBF (N'Takpe & Suter, ComPAS 2016; SPEC 4).

Conservative backfilling with two kinds of jobs. A **priority** job gets a *definitive*
reservation, as in CBF: it never starts later than that. A **non-priority** job has a
deadline (the ``deadline_time`` attribute of the workload, see `workload.deadlines`) and a
*provisional* reservation that may move as long as the job still ends, by its requested time,
no later than its deadline.

* A non-priority job arriving is placed as CBF would place it, after every current
  reservation. If it cannot end by its deadline there, it is treated as a priority job from
  then on (paper 000: rather than refusing it).
* A priority job T_p arriving runs Algorithm 1 of the paper: cancel every provisional
  reservation; the non-priority jobs whose deadline would be missed if T_p were placed before
  them go to L_TMP; L_TMP is placed first, in submit order; if one of them still misses its
  deadline, every non-priority job submitted before the latest such job joins L_TMP and
  L_TMP is placed again; then T_p is placed; L_TMP becomes definitive (priority list); the
  other non-priority jobs are placed again in submit order.
* When a job ends before its requested time every waiting reservation, definitive or not,
  is compressed in arrival order (CBF); a job only ever moves earlier.

Decisions where the paper is silent (docs/model.md):

* "Would be violated if T_p were placed before them" is tested literally: T_p is placed
  where it would go once the provisional reservations are cancelled, then the non-priority
  jobs are placed after it in submit order; those that end after their deadline form L_TMP.
* Strict deadlines. Placing L_TMP again can, through first-fit anomalies, still miss a
  deadline after the paper's second step. L_TMP then keeps the provisional reservations it
  had (they fit together, since they did with every other job, and each met its deadline).
  Likewise, if one of the remaining non-priority jobs misses its deadline once placed after
  L_TMP and T_p, it joins L_TMP and the placement is redone. So every non-priority job
  accepted at submission ends by its deadline, and Algorithm 1 ends after at most as many
  rounds as there are non-priority jobs.
* Jobs of one instant are handled one by one in submit order, as the paper assumes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.platform import Profile
from schedlab.schedulers.registry import register_policy

_INF = math.inf
_NAN = math.nan

# What a job was for DBF (the ``dbf_class`` column)
PRIORITY = 0  # priority from its submission (no deadline)
NON_PRIORITY = 1  # non-priority, accepted; started while still non-priority
PROMOTED = 2  # non-priority whose deadline could not be met at submission: priority
MIGRATED = 3  # non-priority, accepted, later made definitive by Algorithm 1 (L_TMP)
CLASS_NAMES = ("priority", "non_priority", "promoted", "migrated")


@dataclass(frozen=True)
class DbfParams:
    """``compress``: re-place reservations when a job ends early (True in SPEC 4)."""

    compress: bool = True


@register_policy
class DeadlineBackfilling:
    """DBF: conservative backfilling that delays non-priority jobs up to their deadlines."""

    name: ClassVar[str] = "dbf"
    Params: ClassVar[type] = DbfParams

    def __init__(self, params: DbfParams | None = None) -> None:
        self.params = params or DbfParams()

    # -- set-up and outputs -------------------------------------------------------------
    def setup(self, view: ClusterView) -> None:
        n = view.jobs
        self._view = view
        self._req = list(view.requested_time)
        self._procs = list(view.procs)
        slack = view.attributes.get("deadline_time")
        submit = view.submit_at
        if slack is None:
            self._deadline = [_INF] * n
        else:
            self._deadline = [submit[j] + s if s == s else _INF for j, s in enumerate(slack)]
        self.profile = Profile(view.total_procs, origin=submit[0] if n else 0.0)
        self._waiting: list[int] = []  # every reserved, not started job; arrival order
        self._non_priority: list[int] = []  # provisional reservations; arrival order
        self._arrivals: list[int] = []
        self.reserved_at = [_NAN] * n  # current reservation (start)
        self.definitive_at = [_NAN] * n  # reservation when it became definitive
        self.job_class = [PRIORITY] * n
        self._expected_end = [0.0] * n
        self._due: list[tuple[float, int]] = []  # (reservation, job), lazily invalidated
        self._ended_early = False
        self._wake_at = _NAN
        self.algorithm1_runs = 0  # priority arrivals that found non-priority jobs
        self.fallbacks = 0  # times L_TMP kept its provisional reservations

    def job_columns(self) -> dict[str, np.ndarray]:
        """Per job: definitive reservation (NaN if it started as non-priority) and class."""
        return {
            "reservation_at": np.asarray(self.definitive_at, dtype=np.float64),
            "dbf_class": np.asarray(CLASS_NAMES, dtype=object)[
                np.asarray(self.job_class, dtype=np.int64)
            ],
        }

    # -- hooks --------------------------------------------------------------------------
    def on_submit(self, job: int) -> None:
        self._arrivals.append(job)

    def on_finish(self, job: int) -> None:
        now = self._view.now
        end = self._expected_end[job]
        if now < end:
            self.profile.release(now, end, self._procs[job])
            self._ended_early = True

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        self.profile.advance(now)
        if self._ended_early:
            self._ended_early = False
            if self.params.compress and self._waiting:
                self._compress(now)
        if self._arrivals:
            for j in self._arrivals:
                self._waiting.append(j)
                if self._deadline[j] == _INF:
                    self._place_priority(now, j)
                else:
                    self._arrive_non_priority(now, j)
            self._arrivals.clear()
        return self._start_due(now)

    # -- placement primitives -------------------------------------------------------------
    def _place(self, now: float, j: int) -> float:
        """Reserve job j at its earliest start; returns that start (heap entry if it moved)."""
        req = self._req[j]
        p = self._procs[j]
        start = self.profile.earliest_start(p, req, now)
        self.profile.reserve(start, start + req, p)
        if start != self.reserved_at[j]:
            self.reserved_at[j] = start
            heappush(self._due, (start, j))
        return start

    def _reserve_at(self, j: int, start: float) -> None:
        """Reserve job j at ``start`` (a start known to fit)."""
        self.profile.reserve(start, start + self._req[j], self._procs[j])
        if start != self.reserved_at[j]:
            self.reserved_at[j] = start
            heappush(self._due, (start, j))

    def _unplace(self, j: int) -> None:
        """Cancel job j's reservation in the profile (``reserved_at`` is kept as a hint)."""
        start = self.reserved_at[j]
        self.profile.release(start, start + self._req[j], self._procs[j])

    def _misses(self, j: int) -> bool:
        return self.reserved_at[j] + self._req[j] > self._deadline[j]

    # -- the two kinds of arrivals ----------------------------------------------------------
    def _arrive_non_priority(self, now: float, j: int) -> None:
        self._place(now, j)
        if self._misses(j):
            self._unplace(j)
            self.job_class[j] = PROMOTED
            self._place_priority(now, j)
        else:
            self.job_class[j] = NON_PRIORITY
            self._non_priority.append(j)

    def _make_definitive(self, j: int) -> None:
        self.definitive_at[j] = self.reserved_at[j]

    def _place_priority(self, now: float, tp: int) -> None:
        """Algorithm 1 of paper 000 for priority job ``tp`` (see the module docstring)."""
        np_jobs = self._non_priority
        if not np_jobs:
            self._place(now, tp)
            self._make_definitive(tp)
            return
        self.algorithm1_runs += 1
        snapshot = [self.reserved_at[j] for j in np_jobs]
        for j in np_jobs:  # 1: cancel every provisional reservation
            self._unplace(j)
        # 2: which would miss their deadline if tp were placed before them?
        self._place(now, tp)
        for j in np_jobs:
            self._place(now, j)
        late = [j for j in np_jobs if self._misses(j)]
        if not late:
            self._make_definitive(tp)  # 8 and 10 place exactly as this trial did
            return
        for j in np_jobs:
            self._unplace(j)
        self._unplace(tp)
        provisional = dict(zip(np_jobs, snapshot))
        in_tmp = set(late)
        while True:
            tmp = [j for j in np_jobs if j in in_tmp]  # submit order
            self._place_tmp(now, tmp, in_tmp, provisional)
            tmp = [j for j in np_jobs if j in in_tmp]
            self._place(now, tp)  # 8
            rest = [j for j in np_jobs if j not in in_tmp]
            for j in rest:  # 10
                self._place(now, j)
            late = [j for j in rest if self._misses(j)]
            if not late:
                break
            for j in rest:
                self._unplace(j)
            self._unplace(tp)
            for j in tmp:
                self._unplace(j)
            in_tmp.update(late)
        for j in tmp:  # 9: L_TMP becomes definitive
            self.job_class[j] = MIGRATED
            self._make_definitive(j)
        self._make_definitive(tp)
        self._non_priority = rest

    def _place_tmp(
        self, now: float, tmp: list[int], in_tmp: set[int], provisional: dict[int, float]
    ) -> None:
        """Steps 3-7: place L_TMP in submit order, widening it once if a deadline is missed.

        ``in_tmp`` is updated with the jobs step 5 adds. If a deadline is still missed,
        L_TMP keeps its provisional reservations (strict deadlines, module docstring).
        """
        for j in tmp:  # 3
            self._place(now, j)
        missed = [j for j in tmp if self._misses(j)]
        if not missed:
            return
        latest = max(missed)  # 4-5: every non-priority job submitted before it joins
        for j in tmp:
            self._unplace(j)
        for j in self._non_priority:
            if j < latest:
                in_tmp.add(j)
        tmp = [j for j in self._non_priority if j in in_tmp]
        for j in tmp:  # 6
            self._place(now, j)
        if not any(self._misses(j) for j in tmp):
            return
        self.fallbacks += 1
        for j in tmp:
            self._unplace(j)
        for j in tmp:
            self._reserve_at(j, provisional[j])

    # -- compression and starts (as in CBF) ---------------------------------------------------
    def _compress(self, now: float) -> None:
        """Re-place every waiting job, in arrival order, at its earliest start (SPEC 4)."""
        reserved_at = self.reserved_at
        due = self._due
        for j in self.profile.compress(self._waiting, reserved_at, self._procs, self._req, now):
            heappush(due, (reserved_at[j], j))

    def _start_due(self, now: float) -> list[Decision]:
        """Start every job whose reservation is now; ask to be woken for the next one."""
        due = self._due
        reserved_at = self.reserved_at
        out: list[Decision] = []
        while due and due[0][0] <= now:
            t, j = heappop(due)
            if reserved_at[j] != t:
                continue  # stale: the job moved since
            out.append(Start(j))
            reserved_at[j] = _NAN
            self._expected_end[j] = now + self._req[j]
        if out:
            out.sort(key=lambda d: d[0])
            self._waiting = [j for j in self._waiting if reserved_at[j] == reserved_at[j]]
            self._non_priority = [j for j in self._non_priority if reserved_at[j] == reserved_at[j]]
        while due and reserved_at[due[0][1]] != due[0][0]:
            heappop(due)
        if due and due[0][0] != self._wake_at:
            self._wake_at = due[0][0]
            out.append(WakeAt(self._wake_at))
        return out
