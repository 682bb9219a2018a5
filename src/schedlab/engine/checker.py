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
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, Kill, Start, Suspend
from schedlab.engine.protocol import ClusterView, Policy
from schedlab.errors import InvariantError

if TYPE_CHECKING:
    from schedlab.engine.simulator import RawRun, Simulator

_EPS = 1e-6


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
            if type(d) is Start:
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
