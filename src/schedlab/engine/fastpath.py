"""The fast path: the inlined run loop of one cluster of identical processors, jobs streamed
in submit order, rigid, without dependants (the general kernel, `engine.kernel`, gives the
same results there: tests/unit/test_engines_agree.py).

Only the next submission is considered at a time (the workload is already sorted), pending
completions wait in a heap keyed ``(time, job, generation)`` and wake-ups in a heap of times;
see ``events.py`` for the tie rule. A step applies all the events of one instant, calls the
policy once, and applies its validated decisions (DESIGN.md section 3).

The hot loop keeps everything in local variables and Python lists on purpose: this is where
a 243k-job trace spends its time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Any, NoReturn, Protocol

import numpy as np

from schedlab.engine.decisions import Decision, Kill, Start, Suspend, WakeAt
from schedlab.engine.events import DONE, PENDING, RUNNING, SUSPENDED, WAITING, JobState, gc_paused
from schedlab.engine.protocol import ClusterView, Policy, step_of
from schedlab.errors import PolicyError

_INF = math.inf


def _as_list(values: Sequence[Any], kind: type) -> list[Any]:
    """A Python list of ``kind`` (lists from ``ndarray.tolist()`` pass through untouched)."""
    if isinstance(values, list) and (not values or type(values[0]) is kind):
        return values
    return [kind(v) for v in values]


class StepObserver(Protocol):
    """Reads the state after every instant; never steers (time series, invariant checks)."""

    def after_step(self, now: float, sim: Simulator) -> None: ...

    def finish(self, sim: Simulator) -> None: ...


@dataclass(eq=False)
class RawRun:
    """Per-job outcome of one simulation, as numpy arrays indexed like the workload."""

    started_at: np.ndarray  # first start (s)
    finished_at: np.ndarray  # end (s)
    killed: np.ndarray  # bool: ended by kill_on_overrun or a Kill decision
    preemptions: np.ndarray  # int: times suspended
    suspended_time: np.ndarray  # s spent suspended between first start and end
    executed_time: np.ndarray  # s of run time executed by the last attempt (= run unless killed)
    wasted_time: np.ndarray  # s run by attempts lost to requeues (Suspend(keep_progress=False))
    total_procs: int
    wall_time: float
    instants: int
    # from the general kernel (engine.kernel); None from this loop, where they are the
    # workload's submit times and sizes, one pool, power 1
    submitted_at: np.ndarray | None = None  # release: dependants at their parent's end + think
    alloc_procs: np.ndarray | None = None  # processors actually allocated
    pool: np.ndarray | None = None  # pool index of each job
    node_power: np.ndarray | None = None  # slowest node power it ran on
    pool_names: list[str] | None = None


class Simulator:
    """Replays jobs (parallel lists, submit-ordered) through one policy on P processors.

    ``run_time`` is the actual run time, hidden from the policy; ``requested_time`` must be
    >= ``run_time`` when ``kill_on_overrun`` is False (the workload layer raises it).
    """

    def __init__(
        self,
        *,
        submit_at: Sequence[float],
        run_time: Sequence[float],
        requested_time: Sequence[float],
        procs: Sequence[int],
        user: Sequence[int] | None,
        total_procs: int,
        policy: Policy,
        kill_on_overrun: bool = True,
        observers: Iterable[StepObserver] = (),
        progress: Callable[[int, int], None] | None = None,
        attributes: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        n = len(submit_at)
        self.n = n
        self.total_procs = int(total_procs)
        self.submit_at = _as_list(submit_at, float)
        self.run_time = _as_list(run_time, float)
        self.requested_time = _as_list(requested_time, float)
        self.procs = _as_list(procs, int)
        self.user = _as_list(user, int) if user is not None else [-1] * n
        self.policy = policy
        self.kill_on_overrun = kill_on_overrun
        self.observers = list(observers)
        self.progress = progress  # called as progress(jobs ended, jobs) every few thousand instants
        nan = math.nan
        self.state = [PENDING] * n
        self.started_at = [nan] * n
        self.finished_at = [nan] * n
        self.killed = [False] * n
        self.segment_start_at = [nan] * n
        self.executed_time = [0.0] * n
        self.preemptions = [0] * n
        self.suspended_since = [nan] * n
        self.suspended_time = [0.0] * n
        self.wasted_time = [0.0] * n
        self.used_procs = [0] * n  # processors of the current run segment
        self.generation = [0] * n
        self.will_be_killed = [False] * n
        self.free_procs = self.total_procs
        self.running = 0
        self.done = 0
        self.submitted = 0
        self.now = 0.0
        self.view = ClusterView(
            total_procs=self.total_procs,
            submit_at=self.submit_at,
            requested_time=self.requested_time,
            procs=self.procs,
            user=self.user,
            free_procs=self.total_procs,
            segment_start_at=self.segment_start_at,
            executed_time=self.executed_time,
            kill_on_overrun=kill_on_overrun,
            attributes={k: _as_list(v, float) for k, v in (attributes or {}).items()},
        )
        self._heap: list[tuple[float, int, int]] = []
        self._wakes: list[float] = []
        self._stale = 0  # completions made stale by suspensions and kills, ever

    # -- the loop ---------------------------------------------------------------------
    def run(self) -> RawRun:
        """Simulate until every job has ended; returns the per-job outcome.

        The cyclic garbage collector is paused meanwhile: the loop allocates millions of
        short-lived tuples and creates no reference cycles, and the collector's passes over
        a large heap cost up to a third of the run on 200k-job traces.
        """
        with gc_paused():
            step = step_of(self.policy)
            if step is not None:
                return self._run_steps(step)
            return self._run()

    def _run(self) -> RawRun:
        clock = time.perf_counter()
        n = self.n
        submit_at = self.submit_at
        run_time = self.run_time
        requested_time = self.requested_time
        procs = self.procs
        state = self.state
        generation = self.generation
        started_at = self.started_at
        finished_at = self.finished_at
        killed = self.killed
        will_be_killed = self.will_be_killed
        used_procs = self.used_procs
        executed = self.executed_time
        segment_start_at = self.segment_start_at
        heap = self._heap
        wakes = self._wakes
        policy = self.policy
        on_submit = policy.on_submit
        on_finish = policy.on_finish
        schedule = policy.schedule
        view = self.view
        observers = self.observers
        progress = self.progress
        kill_on_overrun = self.kill_on_overrun
        policy.setup(view)
        nexti = 0
        instants = 0
        free = self.total_procs
        running = 0
        done = 0
        next_submit = submit_at[0] if n else _INF
        while True:
            if self._stale:
                while heap and heap[0][2] != generation[heap[0][1]]:
                    heappop(heap)  # the job was suspended or killed since
            now = heap[0][0] if heap else _INF
            if next_submit < now:
                now = next_submit
            if wakes and wakes[0] < now:
                now = wakes[0]
            if now == _INF:
                break
            instants += 1
            if progress is not None and not instants & 4095:
                progress(done, n)
            view.now = now
            # 1. completions, in job order
            while heap and heap[0][0] == now:
                _, j, gen = heappop(heap)
                if gen != generation[j]:
                    continue
                free += used_procs[j]
                state[j] = DONE
                finished_at[j] = now
                executed[j] += now - segment_start_at[j]
                killed[j] = will_be_killed[j]
                running -= 1
                done += 1
                on_finish(j)
            # 2. submissions, in job order
            while next_submit == now:
                state[nexti] = WAITING
                on_submit(nexti)
                nexti += 1
                next_submit = submit_at[nexti] if nexti < n else _INF
            # 3. wake-ups only cause the pass below
            while wakes and wakes[0] <= now:
                heappop(wakes)
            view.free_procs = free
            decisions = schedule(now, view)
            for d in decisions:
                # fast path: a waiting rigid job starts (nearly every decision of a run)
                j = d.job if type(d) is Start and d.procs is None else -1
                if 0 <= j < n and state[j] == WAITING:
                    p = procs[j]
                    if p <= free:
                        free -= p
                        state[j] = RUNNING
                        started_at[j] = now
                        segment_start_at[j] = now
                        used_procs[j] = p
                        running += 1
                        r = run_time[j]
                        if kill_on_overrun and r > requested_time[j]:
                            heappush(heap, (now + requested_time[j], j, generation[j]))
                            will_be_killed[j] = True
                        else:
                            heappush(heap, (now + r, j, generation[j]))
                        continue
                self.free_procs, self.running, self.done = free, running, done
                self._apply(now, d)
                free, running, done = self.free_procs, self.running, self.done
            view.free_procs = free
            if observers:
                self.free_procs, self.running, self.done = free, running, done
                self.submitted = nexti
                self.now = now
                for obs in observers:
                    obs.after_step(now, self)
        self.free_procs, self.running, self.done = free, running, done
        self.submitted = nexti
        return self._outcome(clock, instants)

    def _outcome(self, clock: float, instants: int, *, preempted: bool = True) -> RawRun:
        """The per-job outcome once no event remains (PolicyError if a job never ended).

        ``preempted`` False: no job was suspended (the `Steps` loop), so the preemption
        columns are zeros without reading their lists."""
        wall = time.perf_counter() - clock
        n = self.n
        if self.done != n:
            stuck = [j for j in range(n) if self.state[j] != DONE]
            raise PolicyError(
                f"policy {self.policy.name!r} left {len(stuck)} job(s) never finished "
                f"(first: job index {stuck[0]}) when no event remained"
            )
        for obs in self.observers:
            obs.finish(self)
        # (`np.fromiter` with the type and length given: a third of `np.array`'s time on a
        # list of a quarter of a million floats, which it scans first to infer their type)
        return RawRun(
            started_at=np.fromiter(self.started_at, np.float64, n),
            finished_at=np.fromiter(self.finished_at, np.float64, n),
            killed=np.fromiter(self.killed, bool, n),
            preemptions=(
                np.array(self.preemptions, dtype=np.int64) if preempted else np.zeros(n, np.int64)
            ),
            suspended_time=np.fromiter(self.suspended_time, np.float64, n)
            if preempted
            else np.zeros(n),
            executed_time=np.fromiter(self.executed_time, np.float64, n),
            wasted_time=np.fromiter(self.wasted_time, np.float64, n) if preempted else np.zeros(n),
            total_procs=self.total_procs,
            wall_time=wall,
            instants=instants,
        )

    def _run_steps(self, step: Callable[[float, int, int, list[int]], list[int]]) -> RawRun:
        """The loop for a `Steps` policy: one call per instant at most (none when no job
        ended and no processor is free), started jobs as indices; such a policy never
        suspends, kills or asks for a wake-up, so completions need no generation."""
        clock = time.perf_counter()
        n = self.n
        submit_at = self.submit_at
        run_time = self.run_time
        requested_time = self.requested_time
        procs = self.procs
        state = self.state
        started_at = self.started_at
        finished_at = self.finished_at
        killed = self.killed
        will_be_killed = self.will_be_killed
        used_procs = self.used_procs
        executed = self.executed_time
        segment_start_at = self.segment_start_at
        heap: list[tuple[float, int]] = []  # (end, job): ties end in job order
        policy = self.policy
        view = self.view
        observers = self.observers
        progress = self.progress
        kill_on_overrun = self.kill_on_overrun
        policy.setup(view)
        nexti = 0
        instants = 0
        free = self.total_procs
        running = 0
        done = 0
        next_submit = submit_at[0] if n else _INF
        ended: list[int] = []
        while True:
            now = heap[0][0] if heap else _INF
            if next_submit < now:
                now = next_submit
            if now == _INF:
                break
            instants += 1
            if progress is not None and not instants & 4095:
                progress(done, n)
            # 1. completions, in job order
            while heap and heap[0][0] == now:
                j = heappop(heap)[1]
                free += used_procs[j]
                state[j] = DONE
                finished_at[j] = now
                executed[j] = now - segment_start_at[j]
                killed[j] = will_be_killed[j]
                running -= 1
                done += 1
                ended.append(j)
            # 2. submissions, in job order
            while next_submit == now:
                state[nexti] = WAITING
                nexti += 1
                next_submit = submit_at[nexti] if nexti < n else _INF
            # 3. the pass, unless nothing can start
            if ended or free:
                view.now = now
                view.free_procs = free
                starts = step(now, free, nexti, ended)
                if ended:
                    ended = []
                for j in starts:
                    if not (0 <= j < n and state[j] == WAITING):
                        self._refuse(now, j, free)
                    p = procs[j]
                    if p > free:
                        self._refuse(now, j, free)
                    free -= p
                    state[j] = RUNNING
                    started_at[j] = now
                    segment_start_at[j] = now
                    used_procs[j] = p
                    running += 1
                    r = run_time[j]
                    if kill_on_overrun and r > requested_time[j]:
                        heappush(heap, (now + requested_time[j], j))
                        will_be_killed[j] = True
                    else:
                        heappush(heap, (now + r, j))
                view.free_procs = free
            if observers:
                self.free_procs, self.running, self.done = free, running, done
                self.submitted = nexti
                self.now = now
                for obs in observers:
                    obs.after_step(now, self)
        self.free_procs, self.running, self.done = free, running, done
        self.submitted = nexti
        return self._outcome(clock, instants, preempted=False)

    def _refuse(self, now: float, j: int, free: int) -> NoReturn:
        """PolicyError for a start the engine cannot apply (a `Steps` policy's answer)."""
        self.free_procs = free
        self._apply(now, Start(j))
        raise AssertionError("unreachable: the start was valid")  # pragma: no cover

    # -- decisions --------------------------------------------------------------------
    def _apply(self, now: float, d: Decision) -> None:
        """Validate and apply one decision (all but the engine's inlined fast path)."""
        state = self.state
        policy_name = self.policy.name
        if isinstance(d, Start | Suspend | Kill) and not 0 <= d.job < self.n:
            # (a negative number would index from the end and start another job)
            raise PolicyError(
                f"policy {policy_name!r}: {type(d).__name__}(job {d.job}) at t={now}: no such job"
            )
        if isinstance(d, Start):
            j = d.job
            st = state[j]
            if st != WAITING and st != SUSPENDED:
                raise PolicyError(
                    f"policy {policy_name!r}: Start(job {j}) at t={now}: job is "
                    f"{JobState(st).name.lower()}, only waiting or suspended jobs start"
                )
            p = self.procs[j] if d.procs is None else d.procs
            if p > self.free_procs or p <= 0:
                raise PolicyError(
                    f"policy {policy_name!r}: Start(job {j}) at t={now} needs {p} "
                    f"processors but only {self.free_procs} are free"
                )
            self.free_procs -= p
            self._start(now, j, p, st)
        elif isinstance(d, Suspend):
            j = d.job
            if state[j] != RUNNING:
                raise PolicyError(
                    f"policy {policy_name!r}: Suspend(job {j}) at t={now}: job is not running"
                )
            self.free_procs += self.used_procs[j]
            self._suspend(now, j, d.keep_progress)
        elif isinstance(d, Kill):
            j = d.job
            st = state[j]
            if st == RUNNING:
                self.free_procs += self.used_procs[j]
                self.executed_time[j] += now - self.segment_start_at[j]
                self.running -= 1
                self._stale += 1
            elif st != WAITING and st != SUSPENDED:
                raise PolicyError(
                    f"policy {policy_name!r}: Kill(job {j}) at t={now}: job already ended "
                    "or not submitted"
                )
            self._close_suspension(now, j)
            self.generation[j] += 1
            state[j] = DONE
            self.finished_at[j] = now
            if math.isnan(self.started_at[j]):
                self.started_at[j] = now
            self.killed[j] = True
            self.done += 1
        elif isinstance(d, WakeAt):
            t = float(d.time)
            if t > now:
                heappush(self._wakes, t)
        else:
            raise PolicyError(f"policy {policy_name!r} returned {d!r}, not a decision")

    def _start(self, now: float, j: int, p: int, previous_state: int) -> None:
        if previous_state == WAITING:
            self.started_at[j] = now
        else:
            self._close_suspension(now, j)
        self.state[j] = RUNNING
        self.used_procs[j] = p
        self.segment_start_at[j] = now
        self.running += 1
        executed = self.executed_time[j]
        remaining = self.run_time[j] - executed
        if self.kill_on_overrun:
            budget = self.requested_time[j] - executed
            if remaining > budget:
                heappush(self._heap, (now + budget, j, self.generation[j]))
                self.will_be_killed[j] = True
                return
        self.will_be_killed[j] = False
        heappush(self._heap, (now + remaining, j, self.generation[j]))

    def _suspend(self, now: float, j: int, keep_progress: bool) -> None:
        self._stale += 1
        self.state[j] = SUSPENDED
        self.generation[j] += 1
        self.running -= 1
        self.preemptions[j] += 1
        self.suspended_since[j] = now
        ran = self.executed_time[j] + (now - self.segment_start_at[j])
        if keep_progress:
            self.executed_time[j] = ran
        else:
            self.wasted_time[j] += ran
            self.executed_time[j] = 0.0

    def _close_suspension(self, now: float, j: int) -> None:
        since = self.suspended_since[j]
        if since == since:  # not NaN
            self.suspended_time[j] += now - since
            self.suspended_since[j] = math.nan
