"""Conservative backfilling on nodes (issue 24): every waiting job holds a reservation, a set
of nodes over a time window, kept exact rather than as a pooled count.

The semantics are those of the node-level reference (tests/reference_nodes.py, its
docstring), decision for decision:

* The *plan* is a forward simulation of the node state from now: running jobs release their
  nodes at their requested ends; reservations start in order of (time, job), each on its
  *planned allocation* if that exact allocation still fits the simulated state, else on
  ``place(simulated state, job)``, and hold their nodes for their requested time; ends come
  before starts at equal times. A plan is feasible if every reservation gets nodes.
* ``earliest_fit(j)``: the earliest candidate time (now, the requested ends of running jobs,
  the starts and ends of the other reservations, j's current reservation) whose plan with j
  there is feasible; that plan is adopted (its allocations become the planned ones).
* One instant: compression after an early end (each waiting job, in job order, gets its
  earliest fit: never later), then each new job gets its earliest fit (its
  ``reservation_at``), then every job whose reservation is now starts on its planned nodes.

Why the fast `NodePlan.earliest_fit` gives the reference's answer. The plan is *consistent*:
simulating it gives every reservation its planned allocation. That holds after each
adoption, after a reservation is removed (the simulated states only gain free resources, and
`NodeState.can_allocate` is monotone in them), and as time passes (jobs start on their
planned nodes at their reservations and end no later than their requested ends). Hence:

1. compression tries only times before a job's current reservation; if none works the job
   stays, and its plan is the adopted one: nothing to simulate;
2. a candidate time is skipped when a pooled bound already fails: over ``[t, t + req_j)``
   the running jobs and the other reservations hold at least their requested cores, GPUs
   and memory in total (whatever nodes they get), and j needs its own on top, within the
   cluster's totals (`_pooled_bounds`);
3. the trial plan up to (t, j) is the adopted plan, so its state is replayed from the
   planned allocations without calling ``place`` (`_Sweep`), once for all the candidate
   times of a fit, in increasing order;
4. j must get nodes at t on that state, which is checked before anything is copied, in
   constant time: the sweep keeps count of j's room node by node as it goes;
5. after j the trial state differs from the adopted plan's only by j's nodes: once the
   simulation is past ``t + req_j`` and every reservation so far kept its planned nodes,
   every later one keeps them too, and the trial stops there, feasible.

The simulations run on `_Scratch`, `NodeState`'s rules on Python arrays (numpy scalars
make the many small updates slow). Measured (one core, shared): 2,000 jobs on 64 nodes of
32 cores (8 with 4 GPUs) at an offered load of 0.9 run at about 100 jobs/s with node
requests, memory, GPUs and exclusive jobs, and 300 to 600 jobs/s with plain requests; 3,000
jobs of the 500-node workload of benchmarks/bench_nodes.py at about 200 jobs/s. The cost
grows with the queue: compression re-fits every waiting job at every early end (SPEC 4).

Set ``NodePlan.audit`` (tests do) to recompute every answer the slow, literal way and assert
that both agree.
"""

from __future__ import annotations

import bisect
import math
from array import array
from collections.abc import Iterable, Sequence
from heapq import heapify, heappop, heappush
from typing import ClassVar

import numpy as np

from schedlab.engine.decisions import WakeAt
from schedlab.engine.nodeloop import NodeView, Place
from schedlab.platform.placement import (
    Allocation,
    NodeState,
    Request,
    eligible_nodes,
    fitting_nodes,
    place,
)
from schedlab.schedulers.conservative import ConservativeParams
from schedlab.schedulers.nodes.registry import register_node_policy

__all__ = ["NodeConservative", "NodePlan", "Snapshot"]

_INF = math.inf
_NAN = math.nan

# The reservations (job -> time) and their planned nodes (job -> allocation) at one moment.
Snapshot = tuple[dict[int, float], dict[int, Allocation]]

# A pending release of the plan simulation: (time, tie-breaker, allocation). Running jobs
# break ties by their index, reservations by n + index: unique, so allocations are never
# compared (the order of releases at one time does not change the state anyway).
_Release = tuple[float, int, Allocation]


def lower_bounds(state: NodeState, request: Request) -> tuple[float, float, float]:
    """Cores, GPUs and memory (MiB) that ``request`` holds in total on any nodes it may get:
    exact for a shared job, at least this for an exclusive one (it holds whole nodes, each at
    least as big as the smallest node that can take one node's share)."""
    if request.nodes is None:
        return float(request.cores_per_node), 0.0, 0.0
    k = request.nodes
    cores = request.cores_per_node
    gpus = request.gpus_per_node
    if request.exclusive:
        fits = (
            (state.cap_cores >= request.cores_per_node)
            & (state.cap_memory >= request.mem_per_node)
            & (state.cap_gpus >= request.gpus_per_node)
            & eligible_nodes(state, request.partition)
        )
        if fits.any():
            cores = int(state.cap_cores[fits].min())
            gpus = int(state.cap_gpus[fits].min())
    return float(k * cores), float(k * gpus), k * request.mem_per_node


class _Pooled:
    """Lower bounds of the cores, GPUs and memory held over time by the running jobs and the
    reservations, as a step function: ``used[i]`` on ``[times[i], times[i + 1])``."""

    __slots__ = ("times", "used")

    def __init__(self, times: np.ndarray, used: np.ndarray) -> None:
        self.times = times
        self.used = used


class _Scratch:
    """A node state for plan simulations: `NodeState`'s rules on Python arrays, because the
    simulations make many small `allocate` and `release` calls, which numpy scalars make
    slow; `place` wraps the same buffers as a `NodeState` (no copy), and only when `fits`
    says there is a place. `allocate` does not check: the callers allocate what
    `can_allocate` accepted, or a planned allocation of a consistent plan (which
    `NodePlan.audit` verifies)."""

    __slots__ = ("cores", "eligible", "exclusive", "gpus", "jobs", "like", "memory")

    def __init__(self, state: NodeState) -> None:
        self.like = state
        self.cores = array("q", state.free_cores.astype(np.int64).tobytes())
        self.memory = array("d", state.free_memory.astype(np.float64).tobytes())
        self.gpus = array("q", state.free_gpus.astype(np.int64).tobytes())
        self.jobs = array("q", state.running.astype(np.int64).tobytes())
        self.exclusive = array("b", state.held_exclusive.astype(np.int8).tobytes())
        # partition -> which nodes are in it (shared by the copies: it never changes)
        self.eligible: dict[int, list[bool]] = {}

    def copy(self) -> _Scratch:
        new = object.__new__(_Scratch)
        new.like = self.like
        new.eligible = self.eligible
        new.cores = self.cores[:]
        new.memory = self.memory[:]
        new.gpus = self.gpus[:]
        new.jobs = self.jobs[:]
        new.exclusive = self.exclusive[:]
        return new

    def can_allocate(self, alloc: Allocation) -> bool:
        """As `NodeState.can_allocate`."""
        cores, memory, gpus, jobs, exclusive = (
            self.cores, self.memory, self.gpus, self.jobs, self.exclusive
        )  # fmt: skip
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            if exclusive[i] or (alloc.exclusive and jobs[i]):
                return False
            if cores[i] < c or memory[i] < m or gpus[i] < g:
                return False
        return len(alloc.nodes) > 0

    def allocate(self, alloc: Allocation) -> None:
        cores, memory, gpus, jobs = self.cores, self.memory, self.gpus, self.jobs
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            cores[i] -= c
            memory[i] -= m
            gpus[i] -= g
            jobs[i] += 1
            if alloc.exclusive:
                self.exclusive[i] = 1

    def release(self, alloc: Allocation) -> None:
        cores, memory, gpus, jobs = self.cores, self.memory, self.gpus, self.jobs
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            cores[i] += c
            memory[i] += m
            gpus[i] += g
            jobs[i] -= 1
            if alloc.exclusive:
                self.exclusive[i] = 0

    def eligible_for(self, partition: int) -> list[bool] | None:
        """Which nodes a job of ``partition`` may take (None: all of them)."""
        if partition < 0:
            return None
        eligible = self.eligible.get(partition)
        if eligible is None:
            eligible = self.eligible[partition] = eligible_nodes(self.like, partition).tolist()
        return eligible

    def closed(self, partition: int) -> Sequence[int]:
        """Which nodes a job of ``partition`` may not take now: held exclusively, or
        outside its partition."""
        eligible = self.eligible_for(partition)
        if eligible is None:
            return self.exclusive
        return [held or not ok for ok, held in zip(eligible, self.exclusive)]

    def fits(self, request: Request) -> bool:
        """Whether `place` would find nodes for ``request`` here (most trials fail, and
        this says so without building a `NodeState`)."""
        cores = self.cores
        closed = self.closed(request.partition)
        if request.nodes is None:
            return sum(c for c, shut in zip(cores, closed) if not shut) >= request.cores_per_node
        c, m, g = request.cores_per_node, request.mem_per_node, request.gpus_per_node
        alone = request.exclusive
        found = 0
        nodes = zip(cores, self.memory, self.gpus, closed, self.jobs)
        for free_c, free_m, free_g, shut, busy in nodes:
            if free_c >= c and free_m >= m and free_g >= g and not shut and not (alone and busy):
                found += 1
                if found == request.nodes:
                    return True
        return False

    def place(self, request: Request, rule: str, fits: bool = False) -> Allocation | None:
        """`place` on this state (``fits``: the caller knows `fits` is true)."""
        if not (fits or self.fits(request)):
            return None
        state = object.__new__(NodeState)
        for name in NodeState.__slots__:  # capacities and partitions: shared, never written
            setattr(state, name, getattr(self.like, name))
        state.free_cores = np.frombuffer(self.cores, dtype=np.int64)
        state.free_memory = np.frombuffer(self.memory, dtype=np.float64)
        state.free_gpus = np.frombuffer(self.gpus, dtype=np.int64)
        state.running = np.frombuffer(self.jobs, dtype=np.int64)
        state.held_exclusive = np.frombuffer(self.exclusive, dtype=np.int8).view(bool)
        return place(state, request, rule)


class _Sweep:
    """The adopted plan's simulation, advanced in (time, job) order up to an insertion point
    (a trial "j at t"): the node state there and the releases still pending.

    It also keeps j's *room* on that state: how many nodes could take one node's share of
    j's node request, or how many cores j's plain request could spread over; j can be placed
    iff its room covers its request (`place` is complete). The room is kept per node and
    brought up to date only on the nodes touched since the last look, so a candidate time
    costs no scan of the nodes."""

    def __init__(self, plan: NodePlan, t: float, j: int) -> None:
        view = plan.view
        self.plan = plan
        self.state = _Scratch(view.state)
        self.request = request = plan.requests[j]
        self.eligible = self.state.eligible_for(request.partition)  # None: every node
        if request.nodes is None:
            self.need = request.cores_per_node
            shut = view.state.held_exclusive | ~eligible_nodes(view.state, request.partition)
            contribution = np.where(shut, 0, view.state.free_cores)
        else:
            self.need = request.nodes
            contribution = fitting_nodes(view.state, request).astype(np.int64)
        self.contribution: list[int] = contribution.tolist()  # each node's part of the room
        self.room = sum(self.contribution)
        self.touched: set[int] = set()  # nodes whose part may have changed
        self.releases: list[_Release] = []
        for k in view.running:
            alloc = view.allocation[k]
            assert alloc is not None
            self.releases.append((view.expected_end[k], k, alloc))
        heapify(self.releases)
        self.pos = 0  # position in plan.order of the first reservation not yet simulated
        self.advance(t, j)

    def _part(self, i: int) -> int:
        """Node i's part of j's room (class docstring)."""
        state, request = self.state, self.request
        if state.exclusive[i] or (self.eligible is not None and not self.eligible[i]):
            return 0
        if request.nodes is None:
            return state.cores[i]
        return int(
            state.cores[i] >= request.cores_per_node
            and state.memory[i] >= request.mem_per_node
            and state.gpus[i] >= request.gpus_per_node
            and not (request.exclusive and state.jobs[i])
        )

    def fits(self) -> bool:
        """Whether j can be placed on the sweep's state."""
        contribution = self.contribution
        for i in self.touched:
            part = self._part(i)
            self.room += part - contribution[i]
            contribution[i] = part
        self.touched.clear()
        return self.room >= self.need

    def advance(self, t: float, j: int) -> None:
        """Simulate every reservation before (t, j) (skipping j's own), then the releases
        due by t."""
        plan = self.plan
        order, planned, req, n = plan.order, plan.planned, plan.req, plan.n
        state, releases, touched = self.state, self.releases, self.touched
        key = (t, j)
        pos = self.pos
        while pos < len(order) and order[pos] < key:
            tk, k = order[pos]
            pos += 1
            if k == j:
                continue
            while releases and releases[0][0] <= tk:
                freed = heappop(releases)[2]
                state.release(freed)
                touched.update(freed.nodes)
            alloc = planned[k]
            state.allocate(alloc)
            touched.update(alloc.nodes)
            heappush(releases, (tk + req[k], n + k, alloc))
        self.pos = pos
        while releases and releases[0][0] <= t:
            freed = heappop(releases)[2]
            state.release(freed)
            touched.update(freed.nodes)


class NodePlan:
    """The waiting jobs' reservations (start times) and planned allocations, on nodes.

    ``at[j]`` is job j's reservation, ``planned[j]`` its planned allocation, ``order`` the
    reservations as sorted ``(time, job)`` pairs. Only `earliest_fit`, `reserve`, `remove`,
    `restore` and `pop_due` change them; each keeps the plan consistent (module docstring).
    """

    audit: ClassVar[bool] = False  # recompute every answer literally and compare (tests)

    def __init__(self, view: NodeView) -> None:
        self.view = view
        self.req = view.requested_time
        self.requests = view.requests
        self.rule = view.rule
        self.n = view.jobs
        self.at: dict[int, float] = {}
        self.planned: dict[int, Allocation] = {}
        self.order: list[tuple[float, int]] = []
        state = view.state
        self._lower = np.array(
            [lower_bounds(state, r) for r in view.requests], dtype=np.float64
        ).reshape(-1, 3)
        memory = float(state.cap_memory.sum())
        self._capacity = np.array(
            [float(state.cap_cores.sum()), float(state.cap_gpus.sum()), memory]
        )
        self._pooled: _Pooled | None = None  # None: to rebuild
        # what the fits cost (benchmarks): trial simulations, and reservations they visited
        self.trials = 0
        self.visited = 0

    # -- changes --------------------------------------------------------------------------
    def reserve(self, j: int, t: float, alloc: Allocation) -> None:
        """Put back a reservation known to keep the plan consistent (see `restore`)."""
        assert j not in self.at
        self.at[j] = t
        self.planned[j] = alloc
        bisect.insort(self.order, (t, j))
        self._pooled = None

    def remove(self, j: int) -> None:
        """Cancel job j's reservation; its nodes are forgotten with it."""
        t = self.at.pop(j)
        del self.planned[j]
        del self.order[bisect.bisect_left(self.order, (t, j))]
        self._pooled = None

    def snapshot(self) -> Snapshot:
        """The reservations and their planned nodes, to `restore` later in the instant."""
        return dict(self.at), dict(self.planned)

    def restore(self, snapshot: Snapshot, jobs: Iterable[int] | None = None) -> None:
        """Make the plan the snapshot's reservations (of ``jobs`` only, if given), with
        their times and nodes.

        Consistent when the snapshot was a consistent plan of the same instant: a subset of
        a consistent plan is consistent."""
        at, planned = snapshot
        if jobs is None:
            jobs = at
        self.at = {j: at[j] for j in jobs}
        self.planned = {j: planned[j] for j in jobs}
        self.order = sorted((t, j) for j, t in self.at.items())
        self._pooled = None

    def running_changed(self) -> None:
        """A running job ended before its requested end: the pooled bounds are stale."""
        self._pooled = None

    def pop_due(self, now: float) -> list[tuple[int, Allocation]]:
        """Take out every reservation at ``now`` (in job order) with its planned nodes.

        The pooled bounds stay valid: the job holds the same amounts over the same window,
        as a running job now."""
        if self.audit:
            self._check_consistent(now)
        order = self.order
        count = 0
        while count < len(order) and order[count][0] == now:
            count += 1
        due = [(j, self.planned.pop(j)) for _, j in order[:count]]
        for j, _ in due:
            del self.at[j]
        del order[:count]
        return due

    def next_time(self) -> float:
        return self.order[0][0] if self.order else _INF

    # -- earliest fit ---------------------------------------------------------------------
    def earliest_fit(self, j: int, now: float) -> float:
        """Give job j its earliest feasible candidate time and adopt that plan (module
        docstring); a job that has a reservation never moves later."""
        expected = self._literal_earliest_fit(j, now) if self.audit else None
        old = self.at.get(j, _INF)
        sweep: _Sweep | None = None
        result = old
        for t in self._candidates(j, now, old):
            if sweep is None:
                sweep = _Sweep(self, t, j)
            else:
                sweep.advance(t, j)
            if not sweep.fits():
                continue
            alloc = self.planned.get(j)  # sticky: j's planned nodes first, if it has some
            if alloc is None or not sweep.state.can_allocate(alloc):
                alloc = sweep.state.place(self.requests[j], self.rule, fits=True)
            assert alloc is not None
            trial = self._trial(j, t, alloc, sweep)
            if trial is not None:
                self._adopt(j, t, *trial)
                result = t
                break
        assert result < _INF, "unreachable: after every other job ends the cluster is empty"
        if expected is not None:
            assert (result, self.planned) == expected, f"fast and literal fits differ (job {j})"
        return result

    def _trial(
        self, j: int, t: float, alloc: Allocation, sweep: _Sweep
    ) -> tuple[Allocation, dict[int, Allocation]] | None:
        """The plan with j at t on ``alloc``, simulated from the sweep's state: the planned
        allocations that had to change, or None if some reservation gets no nodes."""
        self.trials += 1
        state = sweep.state.copy()
        releases = list(sweep.releases)
        req, n, requests, rule = self.req, self.n, self.requests, self.rule
        state.allocate(alloc)
        end = t + req[j]
        heappush(releases, (end, n + j, alloc))
        changed: dict[int, Allocation] = {}
        order, planned = self.order, self.planned
        for pos in range(sweep.pos, len(order)):
            tk, k = order[pos]
            if k == j:
                continue
            if tk >= end and not changed:
                break  # from here on the adopted plan's allocations all fit (docstring, 5)
            self.visited += 1
            while releases and releases[0][0] <= tk:
                state.release(heappop(releases)[2])
            other = planned[k]
            if not state.can_allocate(other):
                moved = state.place(requests[k], rule)
                if moved is None:
                    return None
                other = changed[k] = moved
            state.allocate(other)
            heappush(releases, (tk + req[k], n + k, other))
        return alloc, changed

    def _adopt(self, j: int, t: float, alloc: Allocation, changed: dict[int, Allocation]) -> None:
        old = self.at.get(j)
        if old is not None:
            del self.order[bisect.bisect_left(self.order, (old, j))]
        self.at[j] = t
        self.planned[j] = alloc
        self.planned.update(changed)
        bisect.insort(self.order, (t, j))
        self._pooled = None

    def _candidates(self, j: int, now: float, old: float) -> list[float]:
        """The candidate times before ``old``, in increasing order, that pass the pooled
        bound (module docstring, 2)."""
        pooled = self._pooled_bounds()
        times, used = pooled.times, pooled.used
        req = self.req[j]
        if old < _INF:  # j's own reservation is not "another": take it out of the bounds
            a, b = np.searchsorted(times, (old, old + req), side="left")
            used = used.copy()
            used[a:b] -= self._lower[j]
        bad = np.any(used > self._capacity - self._lower[j], axis=1)
        count = np.zeros(len(bad) + 1, dtype=np.int64)
        np.cumsum(bad, out=count[1:])
        later = times[(times > now) & (times < old)]
        cands = np.concatenate(([now], later)) if now < old else later
        first = np.maximum(np.searchsorted(times, cands, side="right") - 1, 0)
        last = np.searchsorted(times, cands + req, side="left")
        ok = count[last] == count[first]
        return [float(t) for t in cands[ok]]

    def _pooled_bounds(self) -> _Pooled:
        if self._pooled is None:
            view = self.view
            jobs = list(view.running) + list(self.at)
            starts = [-_INF] * len(view.running) + list(self.at.values())
            ends = [view.expected_end[k] for k in view.running]
            ends += [t + self.req[k] for k, t in self.at.items()]
            lower = self._lower[np.asarray(jobs, dtype=np.int64)].reshape(-1, 3)
            times = np.asarray(starts + ends, dtype=np.float64)
            deltas = np.concatenate((lower, -lower))
            order = np.argsort(times, kind="stable")
            times = times[order]
            level = np.cumsum(deltas[order], axis=0)
            unique = np.unique(times)
            last = np.searchsorted(times, unique, side="right") - 1
            self._pooled = _Pooled(unique, level[last] if len(unique) else level)
        return self._pooled

    # -- the literal definition (audits) -------------------------------------------------
    def simulate(self, now: float, at: dict[int, float]) -> dict[int, Allocation] | None:
        """The plan of reservations ``at`` simulated from ``now`` as the module docstring
        defines it, from scratch: each reservation's allocation, or None if not feasible."""
        view = self.view
        state = view.state.copy()
        releases: list[_Release] = []
        for k in view.running:
            alloc = view.allocation[k]
            assert alloc is not None and view.expected_end[k] > now
            heappush(releases, (view.expected_end[k], k, alloc))
        out: dict[int, Allocation] = {}
        for t, k in sorted((t, k) for k, t in at.items()):
            while releases and releases[0][0] <= t:
                state.release(heappop(releases)[2])
            alloc = self.planned.get(k)
            if alloc is None or not state.can_allocate(alloc):
                alloc = place(state, self.requests[k], self.rule)
                if alloc is None:
                    return None
            state.allocate(alloc)
            out[k] = alloc
            heappush(releases, (t + self.req[k], self.n + k, alloc))
        return out

    def _literal_earliest_fit(self, j: int, now: float) -> tuple[float, dict[int, Allocation]]:
        """What `earliest_fit` must answer: every candidate tried in turn, from scratch."""
        self._check_consistent(now)
        others = {k: t for k, t in self.at.items() if k != j}
        times = {now}
        times.update(self.view.expected_end[k] for k in self.view.running)
        for k, t in others.items():
            times.update((t, t + self.req[k]))
        if j in self.at:
            times.add(self.at[j])
        for t in sorted(x for x in times if x >= now):
            trial = dict(others)
            trial[j] = t
            plan = self.simulate(now, trial)
            if plan is not None:
                return t, plan
        raise AssertionError("unreachable: after every other job ends the cluster is empty")

    def _check_consistent(self, now: float) -> None:
        assert self.simulate(now, self.at) == self.planned, "the plan is not consistent"
        assert self.order == sorted((t, j) for j, t in self.at.items())


@register_node_policy
class NodeConservative:
    """Conservative backfilling on nodes: a reservation (nodes over a time window) for every
    job, compressed on early ends; no job starts later than its reservation at submission."""

    name: ClassVar[str] = "conservative"
    Params: ClassVar[type] = ConservativeParams

    def __init__(self, params: ConservativeParams | None = None) -> None:
        self.params = params or self.Params()

    def setup(self, view: NodeView) -> None:
        self.view = view
        self.plan = NodePlan(view)
        self.first_reservation = [_NAN] * view.jobs  # the reservation given at submission
        self._arrivals: list[int] = []  # submitted this instant, not yet reserved
        self._ended_early = False
        self._wake_at = _NAN  # last wake-up asked for

    def job_columns(self) -> dict[str, np.ndarray]:
        """Extra per-job column, as on processors: the reservation given at submission."""
        return {"reservation_at": np.asarray(self.first_reservation, dtype=np.float64)}

    def on_submit(self, job: int) -> None:
        self._arrivals.append(job)

    def on_finish(self, job: int) -> None:
        if self.view.now < self.view.expected_end[job]:
            self._ended_early = True
            self.plan.running_changed()

    def schedule(self, now: float, view: NodeView) -> list[Place | WakeAt]:
        if self._ended_early:
            self._ended_early = False
            if self.params.compress:
                self._compress(now)
        for j in self._arrivals:
            self._arrive(now, j)
        self._arrivals.clear()
        return self._start_due(now)

    def _compress(self, now: float) -> None:
        """Every waiting job, in job order, to its earliest fit (never later)."""
        plan = self.plan
        for j in sorted(plan.at):
            plan.earliest_fit(j, now)

    def _arrive(self, now: float, j: int) -> None:
        self.first_reservation[j] = self.plan.earliest_fit(j, now)

    def _start_due(self, now: float) -> list[Place | WakeAt]:
        """Start every job whose reservation is now, on its planned nodes; ask to be woken
        at the next reservation (it may fall where no job event happens)."""
        out: list[Place | WakeAt] = [Place(j, alloc) for j, alloc in self.plan.pop_due(now)]
        nxt = self.plan.next_time()
        if nxt != self._wake_at and nxt != _INF:
            self._wake_at = nxt
            out.append(WakeAt(nxt))
        return out
