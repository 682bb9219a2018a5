"""Slow, plain node-level reference simulator (issue 24): FCFS, EASY and conservative
backfilling when jobs are placed on nodes with cores, memory and GPUs.

It follows tests/reference.py (the processor-level oracle) step for step and changes only
what "fits" means: a job fits when `schedlab.platform.placement.place` finds it nodes.
Speed is not a goal; every step is written out.

Conventions kept from tests/reference.py and SPEC sections 1 and 4
-------------------------------------------------------------------
* Jobs are parallel lists indexed 0..n-1, sorted by (submit time, trace position); queue
  order is index order.
* With ``kill_on_overrun`` (default) a job holds its nodes for ``min(run, req)`` and is killed
  iff ``run > req``; without it the caller has already raised ``req`` to ``>= run``.
* "Requested end" of a running job = its start + ``req``: every plan (shadow time,
  reservations) releases running jobs then, never earlier.
* One instant: completions (index order; each releases its nodes), then submissions (index
  order), then one scheduling pass. Resources are held on ``[start, end)``: at equal times,
  ends come before starts.

The node semantics (exact: nodes, never a pooled count)
-------------------------------------------------------
``place(state, request, rule)`` is complete (it finds an allocation whenever one exists), so
whether a job fits a node state never depends on the rule, only where it goes.

**FCFS.** Start the head of the queue on ``place(now)`` while it fits; stop at the first job
that does not.

**EASY.** The FCFS part as above. If the head ``h`` still does not fit:

1. *Shadow time.* Copy the node state. Take the running jobs (including those just started)
   by requested end; for each distinct requested end ``e``, in increasing order, release every
   running job ending at ``e`` on the copy, then try ``place(copy, h)``. The first ``e`` where
   it succeeds is the shadow time ``s``; the copy at that point is ``L``, the node state at
   the shadow time.
2. *Backfilling*, over the rest of the queue in order. Candidate ``j`` gets ``A = place(now,
   j)`` on the current state (which already holds the jobs backfilled before it). If ``A`` is
   None, ``j`` waits. If ``now + req_j <= s`` (it ends, by its requested time, no later than
   the shadow time), ``j`` starts on ``A``. Otherwise ``j`` would still hold ``A`` at ``s``:
   it starts on ``A`` iff ``place(L + A, h)`` succeeds, i.e. the head can still be placed at
   the shadow time on what the running jobs, the long backfilled jobs and ``j`` leave; then
   ``L := L + A``. (``A`` always fits ``L``: ``L`` only has more free than the current state.)

   The head's reservation at the shadow time is therefore "the nodes ``place`` gives it on
   ``L``", recomputed after every long backfill, rather than one node set fixed before the
   scan. A fixed set cannot reduce to the processor model: with nodes 0-1 free now, 2-3 busy
   until ``s`` and a head of 3 nodes, a fixed first-fit reservation {0, 1, 2} would refuse a
   long 1-node candidate that the processor model starts (3 + 1 <= 4 free at ``s``): it can
   take node 0 and leave {1, 2, 3} to the head. "Can the head still be placed" is exact on
   nodes (it never overcommits one, and memory and GPUs count per node) and is the processor
   rule "uses no more than the extra processors" when nodes have one core.

**Conservative.** Every waiting job ``j`` has a reservation ``res_j`` (a start time) and a
planned allocation. The *plan* is a forward simulation of the node state from now: running
jobs release their nodes at their requested ends; reservations start in order of (time,
index), each on its planned allocation if that exact allocation still fits the simulated
state, else on ``place(simulated state, j)``, and hold their nodes for ``req_j``; ends come
before starts at equal times. A plan is *feasible* if every reservation gets nodes; the
planned allocations are then those the plan gave. Each reservation is thus a set of nodes
over a time window, and the plan never overcommits a node at any time.

* ``earliest_fit(j)``: the earliest candidate time ``t >= now`` at which the plan with
  ``res_j = t`` (others unchanged) is feasible; the candidates are ``now``, the requested
  ends of running jobs, the start and end of every other reservation, and ``j``'s current
  reservation if it has one. That plan is then adopted (its allocations become the planned
  ones).
* One instant: (1) completions; (2) if a job ended before its requested end, compression:
  each waiting job in index order gets ``res_j := earliest_fit(j)``; (3) each job submitted
  now, in index order, gets ``res_j := earliest_fit(j)`` (this is its
  ``reservation_at_submit``); (4) every waiting job whose reservation is now starts, in index
  order, on its planned allocation. Reservations are wake-up instants (as in
  tests/reference.py).

Why allocations are "sticky but movable": an allocation fixed for good when a reservation is
made cannot reduce to the processor model (finding nodes for intervals that arrive out of
time order is online interval colouring; e.g. with node 0 free now, nodes 1-2 busy until 5
and a 2-node job reserved at 5 on {0, 1}, a 1-node job of 10 s submitted now fits by count
(one node free at every instant) but on no single node unless the reservation moves to
{1, 2}). Re-placing every reservation from scratch reduces, but is not monotone on
multi-resource nodes: freeing a node early can make first fit put a CPU job on the GPU node a
later reservation counted on. Trying each reservation's planned allocation first keeps the
current plan feasible when jobs end early (every planned allocation still fits a state with
more free), so ``t = res_j`` is always feasible and compression never moves a job later: no
job starts later than its reservation at submission, as SPEC section 4 promises. The start
time is the promise; the nodes are a plan.

Reduction to the processor model: with nodes of one core (memory inf, no GPUs) and plain
requests, any allocation of the right size is as good as any other, so a plan is feasible iff
the count of busy processors never exceeds P, and every decision above equals
tests/reference.py's. The same holds for plain requests on nodes of several cores (memory
and GPUs unconstrained): the cores are then a pool of the total.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from fractions import Fraction

from schedlab.platform.placement import (
    Allocation,
    NodeState,
    Request,
    never_fits_reason,
    place,
)

POLICIES = ("fcfs", "easy", "conservative")
Capacities = Sequence[tuple[int, float, int]]


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def reference_simulate_nodes(
    submit: list[float],
    run: list[float],
    req: list[float],
    requests: list[Request],
    capacities: Capacities,
    policy: str,
    rule: str = "first_fit",
    kill_on_overrun: bool = True,
    partitions: Sequence[int] | None = None,
) -> dict[str, list]:
    """Simulate ``policy`` on nodes of the given ``(cores, memory MiB, gpus)`` capacities.

    Returns a dict with ``start``, ``end`` (floats), ``killed`` (bools) and ``allocation``
    (one `Allocation` per job); for ``policy == "conservative"`` also
    ``reservation_at_submit``. The node invariants are checked at every instant.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; expected one of {POLICIES}")
    _validate(submit, run, req, requests, capacities, kill_on_overrun, partitions)
    n = len(submit)
    duration = [min(run[j], req[j]) for j in range(n)]
    killed = [kill_on_overrun and run[j] > req[j] for j in range(n)]
    sim = _Sim(submit, duration, req, requests, capacities, rule, partitions)
    if policy == "conservative":
        sim.run_conservative()
    else:
        sim.run_queue_policy(policy)
    end = [sim.start[j] + duration[j] for j in range(n)]
    result: dict[str, list] = {
        "start": list(sim.start),
        "end": end,
        "killed": killed,
        "allocation": list(sim.alloc),
    }
    if policy == "conservative":
        result["reservation_at_submit"] = list(sim.reservation_at_submit)
    return result


def processor_capacities(P: int) -> list[tuple[int, float, int]]:
    """The processor model as nodes: P nodes of one core, memory and GPUs unconstrained."""
    return [(1, math.inf, 0)] * P


def check_node_schedule(
    capacities: Capacities,
    requests: Sequence[Request],
    start: Sequence[float],
    end: Sequence[float],
    allocation: Sequence[Allocation],
) -> None:
    """Assert that a schedule respects every node (raises AssertionError), independently of
    `NodeState`: each allocation matches its request; at every instant (ends before starts)
    no node has more cores, memory or GPUs in use than it has; an exclusive job is alone on
    its nodes. Memory is summed as exact fractions."""
    n = len(requests)
    if not (len(start) == len(end) == len(allocation) == n):
        raise AssertionError("start, end, allocation and requests differ in length")
    for j in range(n):
        _check_matches(j, requests[j], allocation[j], capacities)
        if not end[j] > start[j]:
            raise AssertionError(f"job {j} ends at {end[j]}, not after its start {start[j]}")
    events = sorted([(end[j], 0, j) for j in range(n)] + [(start[j], 1, j) for j in range(n)])
    usage = _Usage(capacities)
    for t, kind, j in events:
        if kind == 0:
            usage.remove(j, allocation[j])
        else:
            usage.add(j, allocation[j], t)


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def _validate(submit, run, req, requests, capacities, kill_on_overrun, partitions=None):
    n = len(submit)
    if not (len(run) == len(req) == len(requests) == n):
        raise ValueError("submit, run, req and requests must have the same length")
    state = NodeState(capacities, partitions)  # validates the capacities
    for j in range(n):
        if j > 0 and submit[j] < submit[j - 1]:
            raise ValueError(f"jobs must be sorted by submit time (job {j})")
        if not run[j] > 0 or not req[j] > 0:
            raise ValueError(f"job {j}: run and req must be > 0")
        reason = never_fits_reason(state, requests[j])
        if reason is not None:
            raise ValueError(f"job {j} never fits the cluster: {reason}")
        if not kill_on_overrun and req[j] < run[j]:
            raise ValueError(
                f"job {j}: with kill_on_overrun=False the caller must raise req to >= run"
            )


def _check_matches(j: int, request: Request, alloc: Allocation, capacities: Capacities):
    """The allocation gives the request what it asked for, on distinct existing nodes."""
    nodes = list(alloc.nodes)
    k = len(nodes)
    if not (len(alloc.cores) == len(alloc.memory) == len(alloc.gpus) == k) or k == 0:
        raise AssertionError(f"job {j}: malformed allocation {alloc}")
    if len(set(nodes)) != k or not all(0 <= i < len(capacities) for i in nodes):
        raise AssertionError(f"job {j}: nodes not distinct or out of range: {nodes}")
    if alloc.exclusive != request.exclusive:
        raise AssertionError(f"job {j}: exclusive flag differs from the request")
    if request.nodes is None:
        if sum(alloc.cores) != request.cores_per_node or min(alloc.cores) < 1:
            raise AssertionError(f"job {j}: {alloc.cores} cores for {request.cores_per_node}")
        if any(m != 0 for m in alloc.memory) or any(g != 0 for g in alloc.gpus):
            raise AssertionError(f"job {j}: a plain request holds memory or GPUs")
        return
    if k != request.nodes:
        raise AssertionError(f"job {j}: {k} nodes for {request.nodes}")
    for i, c, m, g in zip(nodes, alloc.cores, alloc.memory, alloc.gpus):
        want_c, want_g = request.cores_per_node, request.gpus_per_node
        if request.exclusive:  # holds the whole node's cores and GPUs
            want_c, want_g = capacities[i][0], capacities[i][2]
        if (c, m, g) != (want_c, request.mem_per_node, want_g):
            raise AssertionError(f"job {j}: node {i} holds {(c, m, g)}, asked {request}")


class _Usage:
    """What is in use on each node, summed from scratch (ints and exact fractions)."""

    def __init__(self, capacities: Capacities) -> None:
        self.capacities = [(int(c), float(m), int(g)) for c, m, g in capacities]
        size = len(self.capacities)
        self.cores = [0] * size
        self.memory = [Fraction(0)] * size
        self.gpus = [0] * size
        self.jobs: list[set[int]] = [set() for _ in range(size)]
        self.exclusive_holder: list[int | None] = [None] * size

    def add(self, j: int, alloc: Allocation, t: float) -> None:
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            cap_c, cap_m, cap_g = self.capacities[i]
            if self.exclusive_holder[i] is not None:
                raise AssertionError(f"t={t}: job {j} joins node {i}, held exclusively")
            if alloc.exclusive and self.jobs[i]:
                raise AssertionError(f"t={t}: exclusive job {j} on busy node {i}")
            self.cores[i] += c
            self.memory[i] += Fraction(m)
            self.gpus[i] += g
            self.jobs[i].add(j)
            if alloc.exclusive:
                self.exclusive_holder[i] = j
            if self.cores[i] > cap_c or self.gpus[i] > cap_g:
                raise AssertionError(f"t={t}: node {i} over its cores or GPUs")
            if not math.isinf(cap_m) and self.memory[i] > Fraction(cap_m):
                raise AssertionError(f"t={t}: node {i} over its memory")

    def remove(self, j: int, alloc: Allocation) -> None:
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            self.cores[i] -= c
            self.memory[i] -= Fraction(m)
            self.gpus[i] -= g
            self.jobs[i].remove(j)
            if self.exclusive_holder[i] == j:
                self.exclusive_holder[i] = None

    def matches(self, state: NodeState) -> None:
        """The incremental `NodeState` agrees exactly with this sum from scratch."""
        for i, (cap_c, cap_m, cap_g) in enumerate(self.capacities):
            if int(state.free_cores[i]) != cap_c - self.cores[i]:
                raise AssertionError(f"node {i}: free cores drifted")
            if int(state.free_gpus[i]) != cap_g - self.gpus[i]:
                raise AssertionError(f"node {i}: free GPUs drifted")
            if int(state.running[i]) != len(self.jobs[i]):
                raise AssertionError(f"node {i}: running count drifted")
            if bool(state.held_exclusive[i]) != (self.exclusive_holder[i] is not None):
                raise AssertionError(f"node {i}: exclusive flag drifted")
            free_m = float(state.free_memory[i])
            if math.isinf(cap_m):
                if not math.isinf(free_m):
                    raise AssertionError(f"node {i}: unconstrained memory became finite")
            elif Fraction(free_m) != Fraction(cap_m) - self.memory[i]:
                raise AssertionError(f"node {i}: free memory is not exact")


# --------------------------------------------------------------------------------------------
# The simulator
# --------------------------------------------------------------------------------------------


class _Sim:
    def __init__(self, submit, duration, req, requests, capacities, rule, partitions=None):
        self.submit = submit
        self.duration = duration
        self.req = req
        self.requests = requests
        self.capacities = capacities
        self.rule = rule
        n = len(submit)
        self.start: list = [None] * n
        self.end: list = [None] * n  # actual end, known once a job starts
        self.alloc: list = [None] * n
        self.reservation_at_submit: list = [None] * n
        self.state = NodeState(capacities, partitions)
        self.usage = _Usage(capacities)
        self.waiting: list[int] = []  # index order
        self.running: list[int] = []

    def place(self, state: NodeState, j: int) -> Allocation | None:
        return place(state, self.requests[j], self.rule)

    def begin(self, j: int, now: float, alloc: Allocation) -> None:
        """Start job j now on ``alloc`` (already taken on ``self.state``)."""
        self.waiting.remove(j)
        self.running.append(j)
        self.start[j] = now
        self.end[j] = now + self.duration[j]
        self.alloc[j] = alloc
        self.usage.add(j, alloc, now)

    def complete(self, now: float) -> bool:
        """(1) Completions at ``now``, in index order. True if one ended before its
        requested end."""
        early = False
        for j in sorted(self.running):
            if self.end[j] == now:
                self.running.remove(j)
                self.state.release(self.alloc[j])
                self.usage.remove(j, self.alloc[j])
                early |= self.end[j] < self.start[j] + self.req[j]
        return early

    def check(self) -> None:
        """The invariant at every event: no node over capacity (`_Usage.add` checks it as
        jobs start), and the incremental state equals the sum from scratch."""
        self.usage.matches(self.state)
        self.state.check()

    # ---------------------------------------------------------------- FCFS and EASY

    def run_queue_policy(self, policy: str) -> None:
        n = len(self.submit)
        next_sub = 0
        while next_sub < n or self.running or self.waiting:
            candidates = [self.end[j] for j in self.running]
            if next_sub < n:
                candidates.append(self.submit[next_sub])
            assert candidates, "waiting jobs but no future event"
            now = min(candidates)
            self.complete(now)
            while next_sub < n and self.submit[next_sub] == now:
                self.waiting.append(next_sub)
                next_sub += 1
            started = self.fcfs_pass() if policy == "fcfs" else self.easy_pass(now)
            for j, alloc in started:
                self.begin(j, now, alloc)
            self.check()

    def fcfs_pass(self) -> list[tuple[int, Allocation]]:
        """Start from the head while it fits (allocations taken on ``self.state``)."""
        started = []
        for j in self.waiting:
            alloc = self.place(self.state, j)
            if alloc is None:
                break
            self.state.allocate(alloc)
            started.append((j, alloc))
        return started

    def easy_pass(self, now: float) -> list[tuple[int, Allocation]]:
        """One EASY pass (module docstring), allocations taken on ``self.state``."""
        started = self.fcfs_pass()
        queue = self.waiting[len(started) :]
        if not queue:
            return started
        head = queue[0]

        # (1) Shadow time: release running jobs by requested end, a time at a time.
        running_now = [(self.start[j] + self.req[j], j, self.alloc[j]) for j in self.running]
        running_now += [(now + self.req[j], j, alloc) for j, alloc in started]
        at_shadow = self.state.copy()
        shadow = None
        for t in sorted({e for e, _, _ in running_now}):
            for e, _, alloc in running_now:
                if e == t:
                    at_shadow.release(alloc)
            if self.place(at_shadow, head) is not None:
                shadow = t
                break
        assert shadow is not None, "the head fits no state, not even the empty cluster"

        # (2) Backfilling, in queue order.
        for j in queue[1:]:
            alloc = self.place(self.state, j)
            if alloc is None:
                continue
            if now + self.req[j] <= shadow:
                self.state.allocate(alloc)
                started.append((j, alloc))
                continue
            trial = at_shadow.copy()
            assert trial.can_allocate(alloc), "the state at the shadow time has less free"
            trial.allocate(alloc)
            if self.place(trial, head) is not None:
                self.state.allocate(alloc)
                started.append((j, alloc))
                at_shadow = trial
        return started

    # ---------------------------------------------------------------- conservative

    def run_conservative(self) -> None:
        n = len(self.submit)
        self.reservation: dict[int, float] = {}
        self.planned: dict[int, Allocation] = {}
        next_sub = 0
        while next_sub < n or self.running or self.waiting:
            candidates = [self.end[j] for j in self.running]
            candidates += [self.reservation[j] for j in self.waiting]
            if next_sub < n:
                candidates.append(self.submit[next_sub])
            now = min(candidates)
            assert all(self.reservation[j] >= now for j in self.waiting), "a reservation missed"

            # (1) completions; (2) compression if one ended early.
            if self.complete(now):
                for j in list(self.waiting):
                    old = self.reservation[j]
                    new = self.earliest_fit(now, j)
                    assert new <= old, f"compression moved job {j} later ({old} -> {new})"

            # (3) submissions, each given its reservation.
            while next_sub < n and self.submit[next_sub] == now:
                j = next_sub
                next_sub += 1
                self.waiting.append(j)
                self.reservation_at_submit[j] = self.earliest_fit(now, j)

            # (4) start every job whose reservation is now, on its planned allocation.
            plan = self.plan(now, self.reservation)
            assert plan is not None, "the adopted plan is no longer feasible"
            for j in list(self.waiting):
                if self.reservation[j] == now:
                    self.state.allocate(plan[j])
                    del self.reservation[j]
                    self.begin(j, now, plan.pop(j))
            self.planned = plan
            self.check()

    def plan(self, now: float, reservation: dict[int, float]) -> dict[int, Allocation] | None:
        """Allocations of every reservation in the forward simulation from ``now`` (module
        docstring), or None if some reservation gets no nodes."""
        state = self.state.copy()
        releases: list[tuple[float, int, Allocation]] = []  # (time, tie-breaker, allocation)
        for j in self.running:
            assert self.start[j] + self.req[j] > now
            heapq.heappush(releases, (self.start[j] + self.req[j], j, self.alloc[j]))
        out: dict[int, Allocation] = {}
        for t, j in sorted((t, j) for j, t in reservation.items()):
            while releases and releases[0][0] <= t:  # ends before starts at equal times
                state.release(heapq.heappop(releases)[2])
            alloc = self.planned.get(j)
            if alloc is None or not state.can_allocate(alloc):
                alloc = self.place(state, j)
                if alloc is None:
                    return None
            state.allocate(alloc)
            out[j] = alloc
            heapq.heappush(releases, (t + self.req[j], len(self.submit) + j, alloc))
        return out

    def earliest_fit(self, now: float, j: int) -> float:
        """Give job j the earliest candidate time whose plan is feasible; adopt that plan."""
        others = {k: t for k, t in self.reservation.items() if k != j}
        times = {now}
        times.update(self.start[k] + self.req[k] for k in self.running)
        for k, t in others.items():
            times.update((t, t + self.req[k]))
        if j in self.reservation:
            times.add(self.reservation[j])
        for t in sorted(x for x in times if x >= now):
            trial = dict(others)
            trial[j] = t
            plan = self.plan(now, trial)
            if plan is not None:
                self.reservation = trial
                self.planned = plan
                return t
        raise AssertionError("unreachable: after every other job ends the cluster is empty")
