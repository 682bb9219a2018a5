"""DBF on nodes (issue 24): deadline-aware conservative backfilling whose reservations are
sets of nodes over time windows, on the plan of node conservative backfilling.

The rules are the processor DBF's (`schedlab.schedulers.dbf`, its docstring, and
docs/model.md), with "place job j after every current reservation" meaning the node plan's
``earliest_fit(j)`` (`schedlab.schedulers.nodes.conservative`):

* a **priority** job (no ``deadline_time``) gets a *definitive* reservation: it never starts
  later (the ``reservation_at`` column);
* a **non-priority** job gets a *provisional* reservation at its earliest fit; if it cannot
  end there by its deadline it is *promoted* and placed as a priority job;
* a priority job arriving runs Algorithm 1: cancel every provisional reservation; L_TMP (the
  non-priority jobs that miss their deadline once the job is placed before them, tested
  literally) is placed first, widened once (steps 4-6), and made definitive (*migrated*);
  then the job; then the other non-priority jobs again in submit order; one of them missing
  its deadline there joins L_TMP and the placement is redone; strict deadlines: if L_TMP
  still misses one, it keeps the provisional reservations it had;
* compression after an early end re-fits every waiting job, definitive or not, in job
  order; a job only ever moves earlier.

What the node plan adds. An earliest fit may move *other* reservations to other nodes (never
to other times): the planned nodes are a plan, the start times the promise. So "undo the
placements of this trial" means going back to a snapshot of the whole plan, times and nodes
(`NodePlan.restore`), not cancelling reservations one by one: the processor profile is the
same either way, the node plan is not. Likewise L_TMP's fallback takes back its provisional
reservations *with their nodes* and the other reservations' nodes of that moment: a part of
a feasible plan of the same instant, hence feasible. A cancelled reservation forgets its
nodes: placed again, the job gets what ``place`` gives it. Hence every accepted non-priority
job ends by its deadline here too, and on nodes of one core with plain requests (a pool of
processors) every decision is the processor DBF's.
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from schedlab.engine.decisions import WakeAt
from schedlab.engine.nodeloop import NodeView, Place
from schedlab.schedulers.dbf import (
    CLASS_NAMES,
    MIGRATED,
    NON_PRIORITY,
    PRIORITY,
    PROMOTED,
    DbfParams,
)
from schedlab.schedulers.nodes.conservative import NodeConservative, Snapshot
from schedlab.schedulers.nodes.registry import register_node_policy

__all__ = ["NodeDbf"]

_INF = math.inf


@register_node_policy
class NodeDbf(NodeConservative):
    """DBF on nodes: conservative backfilling that delays non-priority jobs up to their
    deadlines; ``first_reservation`` holds the *definitive* reservation (NaN for a job that
    started while still non-priority)."""

    name: ClassVar[str] = "dbf"
    Params: ClassVar[type] = DbfParams

    def setup(self, view: NodeView) -> None:
        super().setup(view)
        slack = view.attributes.get("deadline_time")
        self._deadline: list[float] = []  # absolute; inf for priority jobs
        for j in range(view.jobs):
            s = math.nan if slack is None else slack[j]
            self._deadline.append(view.submit_at[j] + s if s == s else _INF)
        self._non_priority: list[int] = []  # provisional reservations; submit order
        self.job_class = [PRIORITY] * view.jobs
        self.algorithm1_runs = 0  # priority arrivals that found non-priority jobs
        self.fallbacks = 0  # times L_TMP kept its provisional reservations

    def job_columns(self) -> dict[str, np.ndarray]:
        """Per job, as on processors: the definitive reservation (NaN if the job started as
        non-priority) and the class."""
        return {
            "reservation_at": np.asarray(self.first_reservation, dtype=np.float64),
            "dbf_class": np.asarray(CLASS_NAMES, dtype=object)[
                np.asarray(self.job_class, dtype=np.int64)
            ],
        }

    # -- helpers ---------------------------------------------------------------------------
    def _misses(self, j: int) -> bool:
        return self.plan.at[j] + self.view.requested_time[j] > self._deadline[j]

    def _make_definitive(self, j: int) -> None:
        self.first_reservation[j] = self.plan.at[j]

    def _place_all(self, now: float, jobs: list[int]) -> list[int]:
        """Fit ``jobs`` one by one in this order; those that miss their deadline."""
        for j in jobs:
            self.plan.earliest_fit(j, now)
        return [j for j in jobs if self._misses(j)]

    # -- the two kinds of arrivals ---------------------------------------------------------
    def _arrive(self, now: float, j: int) -> None:
        if self._deadline[j] == _INF:
            self._place_priority(now, j)
            return
        plan = self.plan
        before = plan.snapshot()
        plan.earliest_fit(j, now)
        if self._misses(j):
            plan.restore(before)
            self.job_class[j] = PROMOTED
            self._place_priority(now, j)
        else:
            self.job_class[j] = NON_PRIORITY
            self._non_priority.append(j)

    def _place_priority(self, now: float, tp: int) -> None:
        """Algorithm 1 of N'Takpé and Suter for priority job ``tp`` (module docstring)."""
        plan = self.plan
        np_jobs = self._non_priority
        if not np_jobs:
            plan.earliest_fit(tp, now)
            self._make_definitive(tp)
            return
        self.algorithm1_runs += 1
        provisional = plan.snapshot()  # the plan before step 1, nodes included
        for j in np_jobs:  # 1: cancel every provisional reservation
            plan.remove(j)
        base = plan.snapshot()  # running jobs and definitive reservations
        # 2: which would miss their deadline if tp were placed before them?
        late = self._place_all(now, [tp, *np_jobs])
        if not late:
            self._make_definitive(tp)  # 8 and 10 place exactly as this trial did
            return
        plan.restore(base)
        in_tmp = set(late)
        while True:
            tmp = self._place_tmp(now, in_tmp, base, provisional)
            plan.earliest_fit(tp, now)  # 8
            rest = [j for j in np_jobs if j not in in_tmp]
            late = self._place_all(now, rest)  # 10
            if not late:
                break
            plan.restore(base)
            in_tmp.update(late)
        for j in tmp:  # 9: L_TMP becomes definitive
            self.job_class[j] = MIGRATED
            self._make_definitive(j)
        self._make_definitive(tp)
        self._non_priority = rest

    def _place_tmp(
        self,
        now: float,
        in_tmp: set[int],
        base: Snapshot,
        provisional: Snapshot,
    ) -> list[int]:
        """Steps 3-7 on the base plan: place L_TMP in submit order, widening it once if a
        deadline is missed (``in_tmp`` is updated); if one is still missed, L_TMP keeps its
        provisional reservations (strict deadlines). Returns L_TMP in submit order."""
        plan = self.plan
        tmp = [j for j in self._non_priority if j in in_tmp]
        missed = self._place_all(now, tmp)  # 3
        if not missed:
            return tmp
        latest = max(missed)  # 4-5: every non-priority job submitted before it joins
        in_tmp.update(j for j in self._non_priority if j < latest)
        tmp = [j for j in self._non_priority if j in in_tmp]
        plan.restore(base)
        if not self._place_all(now, tmp):  # 6
            return tmp
        self.fallbacks += 1
        plan.restore(provisional, [*base[0], *tmp])
        return tmp

    def _start_due(self, now: float) -> list[Place | WakeAt]:
        """Conservative's starts; a started job also leaves the non-priority list."""
        out = super()._start_due(now)
        if self._non_priority and any(type(d) is Place for d in out):
            self._non_priority = [j for j in self._non_priority if j in self.plan.at]
        return out
