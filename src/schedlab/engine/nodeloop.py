"""The node loop: one cluster of nodes with cores, memory and GPUs (issue 24), jobs placed on
nodes rather than counted against a processor total.

It is the inlined loop of `engine.fastpath` with a node state in place of a free-processor
count: pending completions wait in a heap keyed ``(time, job)``, submissions stream in submit
order, wake-ups wait in a heap of times, and one instant applies completions (job order:
each releases its nodes, then ``on_finish``), submissions (job order, ``on_submit``), due
wake-ups, and then calls the policy **once** (the tie rule of ``events.py``). The policy
answers with `Place` decisions (a job and the exact nodes and amounts it takes) and
`WakeAt`; the engine applies each `Place` in order after checking that the job waits, that
the allocation gives the job exactly what it asked for, and that it fits the nodes *now*
(after the decisions before it), and raises `PolicyError` naming the job and the rule
otherwise. Node policies are non-preemptive: a job runs once, for ``min(run, requested)``
when ``kill_on_overrun`` (killed iff its run time is longer), else for its run time.

Why a loop of its own: the processor loop's hot path is a free-count comparison; a node run
needs an allocation per start and per end. Runs without node types (``--procs``, SWF
headers) never come here, so they keep the fast path and its speed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from heapq import heappop, heappush
from typing import ClassVar, NamedTuple, Protocol, runtime_checkable

import numpy as np

from schedlab.engine.decisions import WakeAt
from schedlab.engine.events import gc_paused
from schedlab.errors import PolicyError
from schedlab.platform.placement import (
    Allocation,
    NodeState,
    Request,
    allocation_problem,
    never_fits_reason,
)

__all__ = [
    "NodePolicy",
    "NodeRun",
    "NodeSimulator",
    "NodeView",
    "Place",
    "audit_node_schedule",
    "simulate_nodes",
]

_NAN = math.nan


class Place(NamedTuple):
    """Start ``job`` now on exactly ``allocation`` (the node path's `Start`)."""

    job: int
    allocation: Allocation


@dataclass(eq=False)
class NodeView:
    """The cluster and the jobs as a node policy may see them (never the actual run times).

    Only the engine writes it. ``state`` is the live node state; a policy plans on a copy
    (`NodeState.copy`) and never changes it. ``expected_end[j]`` is the start plus requested
    time once ``j`` started (NaN before); ``allocation[j]`` is set when it starts and kept
    after it ends; ``running`` holds the running jobs (an insertion-ordered set).
    """

    state: NodeState
    rule: str
    requests: list[Request]
    submit_at: list[float]
    requested_time: list[float]
    user: list[int]
    attributes: Mapping[str, list[float]] = field(default_factory=dict)
    now: float = 0.0
    expected_end: list[float] = field(default_factory=list)
    allocation: list[Allocation | None] = field(default_factory=list)
    running: dict[int, None] = field(default_factory=dict)

    @property
    def jobs(self) -> int:
        return len(self.submit_at)


@runtime_checkable
class NodePolicy(Protocol):
    """A policy of the node loop: the shape of `engine.protocol.Policy`, on a `NodeView`."""

    name: ClassVar[str]

    def setup(self, view: NodeView) -> None: ...

    def on_submit(self, job: int) -> None: ...

    def on_finish(self, job: int) -> None: ...

    def schedule(self, now: float, view: NodeView) -> Sequence[Place | WakeAt]: ...


@dataclass(eq=False)
class NodeRun:
    """Per-job outcome of a node run, indexed like the workload."""

    started_at: np.ndarray
    finished_at: np.ndarray
    killed: np.ndarray
    allocation: list[Allocation | None]
    instants: int
    wall_time: float


class NodeSimulator:
    """Replays jobs (parallel lists, submit-ordered) through one node policy on the nodes of
    ``capacities`` (``(cores, memory MiB, gpus)`` each). ``check`` verifies the node state
    after every instant and, at the end, the whole schedule (`audit_node_schedule`)."""

    def __init__(
        self,
        *,
        submit_at: Sequence[float],
        run_time: Sequence[float],
        requested_time: Sequence[float],
        requests: Sequence[Request],
        capacities: Sequence[tuple[int, float, int]],
        policy: NodePolicy,
        rule: str = "first_fit",
        user: Sequence[int] | None = None,
        kill_on_overrun: bool = True,
        attributes: Mapping[str, Sequence[float]] | None = None,
        check: bool = False,
        partitions: Sequence[int] | None = None,
    ) -> None:
        n = len(submit_at)
        if not (len(run_time) == len(requested_time) == len(requests) == n):
            raise ValueError("submit_at, run_time, requested_time and requests differ in length")
        self.n = n
        self.submit_at = [float(t) for t in submit_at]
        self.run_time = [float(t) for t in run_time]
        self.requested_time = [float(t) for t in requested_time]
        self.requests = list(requests)
        self.capacities = [(int(c), float(m), int(g)) for c, m, g in capacities]
        self.partitions = None if partitions is None else [int(p) for p in partitions]
        self.state = NodeState(self.capacities, self.partitions)
        checked: set[Request] = set()  # jobs share requests: each is checked once
        for j, request in enumerate(self.requests):  # the caller skips these beforehand
            if request in checked:
                continue
            reason = never_fits_reason(self.state, request)
            if reason is not None:
                raise ValueError(f"job {j} can never run on these nodes: {reason}")
            checked.add(request)
        self.policy = policy
        self.kill_on_overrun = kill_on_overrun
        self.check = check
        self.view = NodeView(
            state=self.state,
            rule=rule,
            requests=self.requests,
            submit_at=self.submit_at,
            requested_time=self.requested_time,
            user=[int(u) for u in user] if user is not None else [-1] * n,
            attributes={k: [float(x) for x in v] for k, v in (attributes or {}).items()},
            expected_end=[_NAN] * n,
            allocation=[None] * n,
        )

    def run(self) -> NodeRun:
        clock = time.perf_counter()
        with gc_paused():
            started, finished, killed, instants = self._loop()
        if self.check:
            audit_node_schedule(
                self.capacities, self.requests, self.submit_at, started, finished,
                self.view.allocation, self.partitions,
            )  # fmt: skip
        return NodeRun(
            started_at=np.array(started, dtype=np.float64),
            finished_at=np.array(finished, dtype=np.float64),
            killed=np.array(killed, dtype=bool),
            allocation=self.view.allocation,
            instants=instants,
            wall_time=time.perf_counter() - clock,
        )

    def _loop(self) -> tuple[list[float], list[float], list[bool], int]:
        n = self.n
        view, state, policy = self.view, self.state, self.policy
        submit, run, req = self.submit_at, self.run_time, self.requested_time
        kill = self.kill_on_overrun
        allocation = view.allocation
        expected_end = view.expected_end
        running = view.running
        started = [_NAN] * n
        finished = [_NAN] * n
        killed = [False] * n
        waiting = [False] * n
        ends: list[tuple[float, int]] = []
        wakes: list[float] = []
        policy.setup(view)
        next_job = 0
        instants = 0
        done = 0
        while done < n:
            now = math.inf
            if ends:
                now = ends[0][0]
            if next_job < n and submit[next_job] < now:
                now = submit[next_job]
            if wakes and wakes[0] < now:
                now = wakes[0]
            if now == math.inf:
                waiting_jobs = [j for j in range(n) if waiting[j]]
                raise PolicyError(
                    policy.name,
                    f"{len(waiting_jobs)} jobs wait (first: job {waiting_jobs[0]}) but nothing "
                    "is running and no wake-up is pending: the policy never starts them",
                )
            view.now = now
            instants += 1
            while ends and ends[0][0] == now:
                _, j = heappop(ends)
                alloc = allocation[j]
                assert alloc is not None
                state.release(alloc)
                del running[j]
                finished[j] = now
                done += 1
                policy.on_finish(j)
            while next_job < n and submit[next_job] == now:
                waiting[next_job] = True
                policy.on_submit(next_job)
                next_job += 1
            while wakes and wakes[0] <= now:
                heappop(wakes)
            for decision in policy.schedule(now, view):
                if isinstance(decision, Place):
                    j, alloc = decision.job, decision.allocation
                    self._validate(j, alloc, waiting)
                    state.allocate(alloc)
                    waiting[j] = False
                    allocation[j] = alloc
                    started[j] = now
                    expected_end[j] = now + req[j]
                    running[j] = None
                    held = run[j]
                    if kill and run[j] > req[j]:
                        held = req[j]
                        killed[j] = True
                    heappush(ends, (now + held, j))
                elif isinstance(decision, WakeAt):
                    if not decision.time > now:
                        raise PolicyError(
                            policy.name, f"wake-up at {decision.time!r}, not after now ({now})"
                        )
                    heappush(wakes, decision.time)
                else:
                    raise PolicyError(
                        policy.name, f"{decision!r} is not a node decision (Place or WakeAt)"
                    )
            if self.check:
                state.check()
        return started, finished, killed, instants

    def _validate(self, j: int, alloc: Allocation, waiting: list[bool]) -> None:
        name = self.policy.name
        if not 0 <= j < self.n or not waiting[j]:
            raise PolicyError(name, f"job {j} placed but it is not waiting")
        problem = allocation_problem(self.requests[j], alloc, self.capacities, self.partitions)
        if problem is not None:
            raise PolicyError(name, f"job {j}: {problem}")
        if not self.state.can_allocate(alloc):
            raise PolicyError(
                name, f"job {j} placed on nodes {alloc.nodes} that cannot take it now"
            )


def simulate_nodes(
    submit: Sequence[float],
    run: Sequence[float],
    req: Sequence[float],
    requests: Sequence[Request],
    capacities: Sequence[tuple[int, float, int]],
    policy: NodePolicy | str,
    rule: str = "first_fit",
    kill_on_overrun: bool = True,
    user: Sequence[int] | None = None,
    attributes: Mapping[str, Sequence[float]] | None = None,
    check: bool = True,
    partitions: Sequence[int] | None = None,
) -> NodeRun:
    """Run ``policy`` (an instance; `schedlab.schedulers.nodes.simulate_nodes` also takes a
    registered name) on the nodes of ``capacities``; with ``kill_on_overrun`` False, ``req``
    must already be at least ``run`` (as the workload layer raises it)."""
    if isinstance(policy, str):
        raise TypeError(
            "engine.nodeloop.simulate_nodes takes a policy instance; "
            "schedlab.schedulers.nodes.simulate_nodes takes a name"
        )
    return NodeSimulator(
        submit_at=submit,
        run_time=run,
        requested_time=req,
        requests=requests,
        capacities=capacities,
        policy=policy,
        rule=rule,
        user=user,
        kill_on_overrun=kill_on_overrun,
        attributes=attributes,
        check=check,
        partitions=partitions,
    ).run()


def audit_node_schedule(
    capacities: Sequence[tuple[int, float, int]],
    requests: Sequence[Request],
    submit: Sequence[float],
    start: Sequence[float],
    end: Sequence[float],
    allocation: Sequence[Allocation | None],
    partitions: Sequence[int] | None = None,
) -> None:
    """AssertionError unless the schedule respects every node, computed from scratch and
    independently of `NodeState`: each job started once, not before its submission, and
    ended after its start; its allocation matches its request (on nodes of its partition,
    given ``partitions``, each node's mask as `NodeState` holds it); at every instant (ends before
    starts) no node has more cores, memory or GPUs in use than it has, and an exclusive job
    is alone on its nodes. Memory is summed as exact fractions."""
    n = len(requests)
    events: list[tuple[float, int, int]] = []
    for j in range(n):
        alloc = allocation[j]
        if alloc is None or not start[j] >= submit[j] or not end[j] > start[j]:
            raise AssertionError(
                f"job {j}: submitted {submit[j]}, started {start[j]}, ended {end[j]}"
            )
        problem = allocation_problem(requests[j], alloc, capacities, partitions)
        if problem is not None:
            raise AssertionError(f"job {j}: {problem}")
        events.append((end[j], 0, j))
        events.append((start[j], 1, j))
    events.sort()
    size = len(capacities)
    cores = [0] * size
    gpus = [0] * size
    memory = [Fraction(0)] * size
    jobs_on = [0] * size
    exclusive_on = [False] * size
    limit_memory = [None if math.isinf(m) else Fraction(m) for _, m, _ in capacities]
    for t, kind, j in events:
        alloc = allocation[j]
        assert alloc is not None
        sign = 1 if kind == 1 else -1
        for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
            if sign == 1 and (exclusive_on[i] or (alloc.exclusive and jobs_on[i])):
                raise AssertionError(f"t={t}: job {j} shares node {i} with an exclusive job")
            cores[i] += sign * c
            gpus[i] += sign * g
            memory[i] += sign * Fraction(m)
            jobs_on[i] += sign
            if alloc.exclusive:
                exclusive_on[i] = sign == 1
            cap_c, _, cap_g = capacities[i]
            limit = limit_memory[i]
            if cores[i] > cap_c or gpus[i] > cap_g or (limit is not None and memory[i] > limit):
                raise AssertionError(f"t={t}: node {i} over its cores, memory or GPUs")
