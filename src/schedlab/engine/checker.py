"""Invariant checks (SPEC section 1), on for every test run and behind ``--check``.

The checker wraps the policy, so it sees every event and decision without adding a single
instruction to the engine's hot loop when checking is off. Live, after every instant:
processors in use never exceed P and equal what the engine believes. At the end, on the
recorded run segments: no start before submit, every job ends exactly once, processors in
use never exceed P at any time, and work is conserved (the last attempt of every job that
was not killed ran exactly its run time, summed over its suspensions).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, Kill, Start, Suspend
from schedlab.engine.events import JobState
from schedlab.engine.protocol import ClusterView, Policy
from schedlab.errors import InvariantError

if TYPE_CHECKING:
    from schedlab.engine.fastpath import RawRun, Simulator

_EPS = 1e-6
_DONE_STATE = int(JobState.DONE)


class CheckedPolicy:
    """A transparent proxy around a policy that records what it does, for the checker."""

    name: ClassVar[str] = "checked"

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[misc]
        self.busy = 0
        self.finish_count: dict[int, int] = {}
        self.segments: list[tuple[float, float, int, int]] = []  # start, end, procs, job
        self._open: dict[int, tuple[float, int]] = {}  # job -> (segment start, procs)
        self._view: ClusterView | None = None

    def __getattr__(self, item: str) -> object:
        return getattr(self.inner, item)

    def setup(self, view: ClusterView) -> None:
        self._view = view
        self.inner.setup(view)

    def on_submit(self, job: int) -> None:
        self.inner.on_submit(job)

    def _close(self, job: int, now: float) -> None:
        start, p = self._open.pop(job)
        self.busy -= p
        self.segments.append((start, now, p, job))

    def on_finish(self, job: int) -> None:
        assert self._view is not None
        self.finish_count[job] = self.finish_count.get(job, 0) + 1
        if self.finish_count[job] > 1:
            raise InvariantError(f"job index {job} ended twice (t={self._view.now})")
        self._close(job, self._view.now)
        self.inner.on_finish(job)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        decisions = self.inner.schedule(now, view)
        procs = view.procs
        for d in decisions:
            if type(d) is Start and 0 <= d.job < len(procs):  # (the engine refuses others)
                p = procs[d.job] if d.procs is None else d.procs
                self._open[d.job] = (now, p)
                self.busy += p
            elif isinstance(d, (Suspend, Kill)) and d.job in self._open:
                self._close(d.job, now)
        return decisions


class InvariantChecker:
    """Step observer + end-of-run audit; raises InvariantError naming the job and rule."""

    def __init__(self, checked: CheckedPolicy) -> None:
        self.checked = checked

    def after_step(self, now: float, sim: Simulator) -> None:
        busy = sim.total_procs - sim.free_procs
        if sim.free_procs < 0 or busy > sim.total_procs:
            raise InvariantError(f"t={now}: {busy} processors in use on {sim.total_procs}")
        if busy != self.checked.busy:
            raise InvariantError(
                f"t={now}: engine counts {busy} busy processors, running jobs hold "
                f"{self.checked.busy}"
            )

    def finish(self, sim: Simulator) -> None:
        pass

    def audit(self, sim: Simulator, raw: RawRun) -> None:
        """Checks on the whole run, once it ended."""
        submit = sim.submit_at
        for j in range(sim.n):
            if not raw.started_at[j] >= submit[j]:
                raise InvariantError(
                    f"job index {j} started at {raw.started_at[j]} before its submit {submit[j]}"
                )
            if not raw.finished_at[j] >= raw.started_at[j]:
                raise InvariantError(f"job index {j} ended before it started")
            run = sim.run_time[j]
            done = raw.executed_time[j]
            if not raw.killed[j] and abs(done - run) > _EPS * max(1.0, run):
                raise InvariantError(
                    f"job index {j}: work not conserved, ran {done} s of its {run} s"
                )
            if raw.killed[j] and done > run + _EPS * max(1.0, run):
                raise InvariantError(f"job index {j}: ran {done} s, longer than its {run} s")
        segs = self.checked.segments
        if segs:
            starts = np.array([s[0] for s in segs])
            ends = np.array([s[1] for s in segs])
            procs = np.array([s[2] for s in segs], dtype=np.int64)
            times = np.concatenate([ends, starts])
            deltas = np.concatenate([-procs, procs])
            # at equal times, releases (negative) come first: an end frees for a start
            order = np.lexsort((deltas, times))
            in_use = np.cumsum(deltas[order])
            worst = int(in_use.max())
            if worst > sim.total_procs:
                at = float(times[order][int(in_use.argmax())])
                raise InvariantError(
                    f"{worst} processors in use at t={at} on a {sim.total_procs}-processor machine"
                )
        if math.isnan(float(np.sum(raw.finished_at))):
            raise InvariantError("a job never ended")


class KernelChecker:
    """Invariants of the general kernel (pools, node groups, dependants, actors).

    Live, after every instant: in every pool and node group, processors in use plus free
    ones equal the group's count and none is negative. At the end, on the recorded
    occupancy intervals and run segments: never more processors in use than a group has at
    any time (nodes held after an end, mu_env, included); a job only on its pool's groups;
    no start before release; a dependant never starts before its parent ended plus its think
    time; each job ends exactly once; no run segment longer than its pool's t_max allows;
    every duration is the model's value for the processors and power given, so that work is
    conserved across suspensions and evictions (a completed job did exactly its work, in work
    units, over the segments of its last attempt; a killed one no more).
    """

    def __init__(self) -> None:
        self.in_use: dict[tuple[int, int], int] = {}
        self.intervals: list[tuple[int, int, float, float, int]] = []  # pool, group, from, to, k
        self._alloc_at: dict[int, float] = {}
        self.work: dict[int, float] = {}  # work units of the current attempt, per job
        self.segments: dict[int, list[tuple[float, float]]] = {}
        self.pool_time: dict[tuple[int, int], float] = {}  # (job, pool) -> seconds run

    # -- hooks the kernel calls ---------------------------------------------------------
    def allocated(
        self, j: int, pool: int, groups: list[tuple[int, int]], now: float, k: Any
    ) -> None:
        counts = k.pools[pool].counts
        for g, n in groups:
            if not 0 <= g < len(counts) or n <= 0:
                raise InvariantError(f"job {j} got {n} processors of group {g} of pool {pool}")
            self.in_use[(pool, g)] = self.in_use.get((pool, g), 0) + n
        self._alloc_at[j] = now

    def released(
        self, j: int, pool: int, groups: list[tuple[int, int]], now: float, k: Any
    ) -> None:
        start = self._alloc_at.pop(j)
        for g, n in groups:
            self.in_use[(pool, g)] -= n
            self.intervals.append((pool, g, start, now, n))

    def requeued(self, j: int, k: Any) -> None:
        self.work[j] = 0.0

    def segment(self, j: int, start: float, end: float, k: Any, overhead: float = 0.0) -> None:
        """A run segment [start, end) whose first ``overhead`` s restarted from a
        checkpoint (no work)."""
        if end < start:
            raise InvariantError(f"job {j}: a run segment from {start} to {end}")
        self.segments.setdefault(j, []).append((start, end))
        if k.jobs.host[j] < 0:  # (payloads run in their host's time; pilots are capped too)
            key = (j, k.where[j])
            spent = self.pool_time.get(key, 0.0) + end - start
            self.pool_time[key] = spent
            t_max = k.pools[k.where[j]].t_max
            if spent > t_max * (1 + _EPS) + _EPS:
                raise InvariantError(f"job {j} ran {spent} s in a pool whose t_max is {t_max}")
        if k.jobs.open_ended[j]:
            return
        q = k.alloc_procs[j]
        expected = k.jobs.model[j].time_factor(q) / k.node_power[j]
        if abs(k.jobs.factor[j] - expected) > _EPS * expected:
            raise InvariantError(
                f"job {j} ran at {k.jobs.factor[j]} s per work unit on {q} processors of power "
                f"{k.node_power[j]}; its model gives {expected}"
            )
        if not 0.0 <= overhead <= end - start:
            raise InvariantError(
                f"job {j}: {overhead} s of restart overhead in a segment of {end - start} s"
            )
        self.work[j] = self.work.get(j, 0.0) + (end - start - overhead) / expected

    def after_instant(self, now: float, k: Any) -> None:
        for pool in k.pools:
            for g, (count, free) in enumerate(zip(pool.counts, pool.free)):
                used = self.in_use.get((pool.index, g), 0)
                if free < 0 or used > count or used + free != count:
                    raise InvariantError(
                        f"t={now}: pool {pool.name!r} group {g}: {used} processors in use and "
                        f"{free} free of {count}"
                    )

    # -- the end ------------------------------------------------------------------------
    def audit(self, k: Any) -> None:
        by_group: dict[tuple[int, int], list[tuple[float, float, int]]] = {}
        for pool, g, start, end, n in self.intervals:
            by_group.setdefault((pool, g), []).append((start, end, n))
        for (pool, g), spans in by_group.items():
            times = np.array([s[1] for s in spans] + [s[0] for s in spans])
            deltas = np.array([-s[2] for s in spans] + [s[2] for s in spans], dtype=np.int64)
            order = np.lexsort((deltas, times))
            worst = int(np.cumsum(deltas[order]).max())
            count = k.pools[pool].counts[g]
            if worst > count:
                raise InvariantError(
                    f"pool {k.pools[pool].name!r} group {g}: {worst} processors in use at once "
                    f"of {count}"
                )
        if k.done != len(k.state):
            raise InvariantError(f"{k.done} job ends counted for {len(k.state)} jobs")
        for j in range(len(k.state)):
            if k.state[j] != _DONE_STATE:
                raise InvariantError(f"job {j} never ended")
            if not k.started_at[j] >= k.submitted_at[j]:
                raise InvariantError(
                    f"job {j} started at {k.started_at[j]} before its release {k.submitted_at[j]}"
                )
            if not k.finished_at[j] >= k.started_at[j]:
                raise InvariantError(f"job {j} ended before it started")
            parent = k.jobs.parent[j] if j < k.n else -1
            if parent >= 0:
                ready = k.finished_at[parent] + max(k.jobs.think[j], 0.0)
                if k.submitted_at[j] < ready - _EPS * max(1.0, abs(ready)):
                    raise InvariantError(
                        f"job {j} was released at {k.submitted_at[j]}, before its parent "
                        f"{parent} ended (+ think time) at {ready}"
                    )
            if k.jobs.open_ended[j]:
                continue
            done = self.work.get(j, 0.0)
            work = k.jobs.work[j]
            tol = _EPS * max(1.0, work)
            if not k.killed[j] and abs(done - work) > tol:
                raise InvariantError(f"job {j}: work not conserved, did {done} of its {work}")
            if k.killed[j] and done > work + tol:
                raise InvariantError(f"job {j}: did {done} work units, more than its {work}")
