"""Deadline-aware conservative backfilling, DBF (N'Takpé and Suter, ComPAS 2016; SPEC 4).

Conservative backfilling with two kinds of jobs. A **priority** job gets a *definitive*
reservation, as in CBF: it never starts later than that. A **non-priority** job has a
deadline (the ``deadline_time`` attribute of the workload, see `workload.deadlines`) and a
*provisional* reservation that may move as long as the job still ends, by its requested time,
no later than its deadline.

* A non-priority job arriving is placed as CBF would place it, after every current
  reservation. If it cannot end by its deadline there, it is treated as a priority job from
  then on (the paper: rather than refusing it).
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
from typing import ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.schedulers.conservative import ConservativeBackfilling, ConservativeParams
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
class DbfParams(ConservativeParams):
    """``compress``: re-place reservations when a job ends early (True in SPEC 4)."""


@register_policy
class DeadlineBackfilling(ConservativeBackfilling):
    """DBF: conservative backfilling that delays non-priority jobs up to their deadlines.

    Everything but the arrivals is conservative backfilling's (the profile, compression,
    starts at reservations and wake-ups); ``first_reservation`` holds the *definitive*
    reservation here, NaN for a job that started while still non-priority.
    """

    name: ClassVar[str] = "dbf"
    Params: ClassVar[type] = DbfParams

    def __init__(self, params: DbfParams | None = None) -> None:
        self.params = params or DbfParams()

    # -- set-up and outputs -------------------------------------------------------------
    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self._slack = view.attributes.get("deadline_time")  # a reference (grows in a pool)
        self._submit = view.submit_at
        self._deadline: list[float] = []  # absolute; inf for priority jobs
        self._non_priority: list[int] = []  # provisional reservations; arrival order
        self.job_class: list[int] = []
        self.algorithm1_runs = 0  # priority arrivals that found non-priority jobs
        self.fallbacks = 0  # times L_TMP kept its provisional reservations

    def job_columns(self) -> dict[str, np.ndarray]:
        """Per job: definitive reservation (NaN if it started as non-priority) and class."""
        return {
            "reservation_at": np.asarray(self.first_reservation, dtype=np.float64),
            "dbf_class": np.asarray(CLASS_NAMES, dtype=object)[
                np.asarray(self.job_class, dtype=np.int64)
            ],
        }

    def on_submit(self, job: int) -> None:
        super().on_submit(job)
        slack = _NAN if self._slack is None else self._slack[job]
        self._deadline.append(self._submit[job] + slack if slack == slack else _INF)
        self.job_class.append(PRIORITY)

    # -- placement helpers ----------------------------------------------------------------
    def _reserve_at(self, j: int, start: float) -> None:
        """Reserve job j at ``start`` (a start known to fit)."""
        self.profile.reserve(start, start + self._req[j], self._procs[j])
        self.reserved_at[j] = start
        if start < self._next_due:
            self._next_due = start

    def _unplace(self, j: int) -> None:
        """Cancel job j's reservation in the profile (``reserved_at`` is kept as a hint)."""
        start = self.reserved_at[j]
        self.profile.release(start, start + self._req[j], self._procs[j])

    def _misses(self, j: int) -> bool:
        return self.reserved_at[j] + self._req[j] > self._deadline[j]

    def _make_definitive(self, j: int) -> None:
        self.first_reservation[j] = self.reserved_at[j]

    # -- the two kinds of arrivals ----------------------------------------------------------
    def _arrive(self, now: float, j: int) -> None:
        if self._deadline[j] == _INF:
            self._place_priority(now, j)
            return
        self._place(now, j)
        if self._misses(j):
            self._unplace(j)
            self.job_class[j] = PROMOTED
            self._place_priority(now, j)
        else:
            self.job_class[j] = NON_PRIORITY
            self._non_priority.append(j)

    def _place_priority(self, now: float, tp: int) -> None:
        """Algorithm 1 of N'Takpé and Suter for priority job ``tp`` (see the module docstring)."""
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

    def _start_due(self, now: float) -> list[Decision]:
        """CBF's starts; a started job also leaves the non-priority list."""
        out = super()._start_due(now)
        if self._non_priority and any(type(d) is not WakeAt for d in out):
            reserved_at = self.reserved_at
            self._non_priority = [j for j in self._non_priority if reserved_at[j] == reserved_at[j]]
        return out
