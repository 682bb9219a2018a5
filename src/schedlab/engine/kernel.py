"""The general kernel: pools, actors, deliveries and durations from work (DESIGN 3b).

One loop carries clusters, grids and moldable applications. Its pieces:

* **Jobs** have a global id (their position in the workload; spawned jobs are appended).
  Durations come from work, allocation and node power through the job's speed-up model
  (`engine.durations`); progress is kept in work units, so a job resumes right on other
  nodes. Roots stream from one sorted array; a dependant is released when its parent ends,
  after its think time (SWF fields 17 and 18). Only what is in flight sits in the heap.
* **Pools** are batch queues (`platform.pool.PoolSpec`): node groups, one policy instance,
  a `ClusterView` with append-only local job numbering, t_max, mu_rec, mu_env, placement.
* **Actors** (`engine.actors`) receive released jobs, messages and news of their jobs, and
  return decisions: Dispatch, Send, Spawn (pilots), RunIn (payloads), End, WakeAt.

Every actor is asked once at the first instant (to set its wake-ups, deploy pilots...). An
instant is a sequence of **rounds** (docs/model.md, "One instant"). A round applies every
event due now (completions and node releases first, in job order; then releases, arrivals,
admissions and messages, jobs in job order before messages; then wake-ups), asks every actor
that had an event to ``schedule`` (in actor order) and applies its decisions, then asks
every pool that had an event (in pool order) and applies the policy's decisions. Decisions
with zero delay act in the same instant: a dispatch reaches its pool in the same round, a
message or the news of a start in the next round. An instant ends when a round leaves
nothing due now; more than ``max_rounds`` rounds is a livelock (`PolicyError`).

A one-pool run whose jobs are delivered straight to the pool gives exactly what the inlined
loop of `engine.simulator` gives (a test compares them on every scenario and golden trace).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import Any

import numpy as np

from schedlab.engine.actors import Actor, JobEvent
from schedlab.engine.decisions import (
    Dispatch,
    End,
    Evict,
    Kill,
    RunIn,
    Send,
    Spawn,
    Start,
    Suspend,
    WakeAt,
)
from schedlab.engine.durations import RIGID, SpeedupModel
from schedlab.engine.events import JobState, gc_paused
from schedlab.engine.protocol import ClusterView, Policy
from schedlab.errors import PolicyError
from schedlab.platform.pool import PoolSpec
from schedlab.platform.service import Constant, service_time

__all__ = ["JobSpecs", "Kernel", "KernelRun"]

_INF = math.inf
_NAN = math.nan
_PENDING = int(JobState.PENDING)
_WAITING = int(JobState.WAITING)
_RUNNING = int(JobState.RUNNING)
_SUSPENDED = int(JobState.SUSPENDED)
_DONE = int(JobState.DONE)
_RELEASED = int(JobState.RELEASED)
_TRANSIT = int(JobState.TRANSIT)

# event kinds; rank 0 before rank 1 before rank 2 at one instant (module docstring)
_END, _NODES, _RELEASE, _ARRIVE, _ADMIT, _MESSAGE, _WAKE_POOL, _WAKE_ACTOR = range(8)
_MESSAGE_ORDER = 1 << 62  # messages after every job event of their rank
MAX_ROUNDS = 1000


@dataclass
class JobSpecs:
    """The jobs of a run, by global id, as parallel lists (built once, read by the kernel).

    ``release_at`` is the submit time of a root (ignored for dependants, released at their
    parent's end + ``think``); ``work`` and ``requested_work`` are in work units (module
    `engine.durations`); ``procs`` the requested size; ``target_actor`` >= 0 sends a released
    job to that actor, else it goes straight to pool ``target_pool``.
    """

    release_at: list[float]
    work: list[float]
    requested_work: list[float]
    procs: list[int]
    user: list[int]
    speedup: list[SpeedupModel]
    parent: list[int]
    think: list[float]
    target_actor: list[int]
    target_pool: list[int]
    attributes: dict[str, list[float]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.release_at)

    @classmethod
    def rigid(
        cls,
        *,
        submit_at: Sequence[float],
        run_time: Sequence[float],
        requested_time: Sequence[float],
        procs: Sequence[int],
        user: Sequence[int] | None = None,
        parent: Sequence[int] | None = None,
        think: Sequence[float] | None = None,
        speedup: Sequence[SpeedupModel] | None = None,
        target_actor: int = -1,
        target_pool: int = 0,
        attributes: Mapping[str, Sequence[float]] | None = None,
    ) -> JobSpecs:
        """Jobs of one stream, all sent to one actor (or pool); work from run times.

        A moldable job's run and requested times are those at its requested size, as in a
        trace; its work (the time on one processor) is derived through its model.
        """
        n = len(submit_at)
        models: list[SpeedupModel] = list(speedup) if speedup is not None else [RIGID] * n
        sizes = [int(p) for p in procs]
        factors = [m.time_factor(p) for m, p in zip(models, sizes)]
        return cls(
            release_at=[float(t) for t in submit_at],
            work=[float(r) / f for r, f in zip(run_time, factors)],
            requested_work=[float(r) / f for r, f in zip(requested_time, factors)],
            procs=sizes,
            user=[int(u) for u in user] if user is not None else [-1] * n,
            speedup=models,
            parent=[int(p) for p in parent] if parent is not None else [-1] * n,
            think=[float(t) for t in think] if think is not None else [0.0] * n,
            target_actor=[target_actor] * n,
            target_pool=[target_pool] * n,
            attributes={k: [float(v) for v in vs] for k, vs in (attributes or {}).items()},
        )


@dataclass(eq=False)
class KernelRun:
    """Per-job outcome (numpy arrays by global id) plus what the run counted."""

    submitted_at: np.ndarray  # release (roots: submit; dependants: parent end + think)
    admitted_at: np.ndarray  # entry into the last pool's queue
    started_at: np.ndarray
    finished_at: np.ndarray
    killed: np.ndarray
    preemptions: np.ndarray
    evictions: np.ndarray
    suspended_time: np.ndarray  # s between first start and end not running
    executed_work: np.ndarray  # work units done by the attempt that counted
    wasted_time: np.ndarray  # s run by attempts lost to requeues
    overhead_time: np.ndarray  # s spent restarting from checkpoints (no work done)
    alloc_procs: np.ndarray  # processors of the last run segment
    pool: np.ndarray  # last pool (-1: never reached one)
    node_power: np.ndarray  # slowest node power of the last run segment
    host: np.ndarray  # the job it ran inside (payloads), else -1
    pool_names: list[str]
    total_procs: int
    wall_time: float
    instants: int
    rounds: int
    spawned: int


# every per-job list of the kernel and what a newly spawned job starts with (_new_job)
_NEW_JOB_DEFAULTS: tuple[tuple[str, Any], ...] = (
    ("procs", 0),
    ("user", -1),
    ("state", _PENDING),
    ("where", -1),
    ("tag", None),
    ("node_power", _NAN),
    ("alloc_procs", 0),
    ("requested_time", 0.0),
    ("_work", _INF),
    ("_req_work", _INF),
    ("_model", RIGID),
    ("_think", 0.0),
    ("_target_actor", -1),
    ("_target_pool", -1),
    ("_children", None),
    ("_parent", -1),
    ("_release_at", _NAN),
    ("submitted_at", _NAN),
    ("admitted_at", _NAN),
    ("started_at", _NAN),
    ("finished_at", _NAN),
    ("killed", False),
    ("_will_kill", False),
    ("_gen", 0),
    ("_local", -1),
    ("_seg_start", _NAN),
    ("_factor", 1.0),
    ("_done_work", 0.0),
    ("_attempt_time", 0.0),
    ("_pool_time", 0.0),
    ("_groups", None),
    ("preemptions", 0),
    ("evictions", 0),
    ("_suspended_since", _NAN),
    ("suspended_time", 0.0),
    ("wasted_time", 0.0),
    ("overhead_time", 0.0),
    ("_overhead", 0.0),
    ("_seg_over", 0.0),
    ("_owner", -1),
    ("_holder", -1),
    ("_host", -1),
    ("_host_used", 0),
    ("_open_ended", False),
    ("_requested_s", 0.0),
)


class _Pool:
    """A pool's running state: free processors per group, its policy, its view."""

    __slots__ = (
        "index",
        "spec",
        "name",
        "powers",
        "counts",
        "free",
        "free_total",
        "total",
        "slowest",
        "t_max",
        "mu_rec",
        "mu_env",
        "rec",
        "env",
        "env_upper",
        "service_rng",
        "single",
        "rng",
        "policy",
        "on_end",
        "view",
        "gids",
        "queued",
        "received",
        "running",
        "held",
    )

    def __init__(self, index: int, spec: PoolSpec, policy: Policy, kill_on_overrun: bool) -> None:
        order = spec.placement_order()
        self.index = index
        self.spec = spec
        self.name = spec.name
        self.powers = [spec.groups[g][0] for g in order]
        self.counts = [spec.groups[g][1] for g in order]
        self.free = list(self.counts)
        self.total = sum(self.counts)
        self.free_total = self.total
        self.slowest = min(self.powers)
        self.t_max = float(spec.t_max)
        rec, env = service_time(spec.mu_rec), service_time(spec.mu_env)
        # constants stay plain floats (the common, fast case); distributions are drawn
        self.rec = None if isinstance(rec, Constant) else rec
        self.env = None if isinstance(env, Constant) else env
        self.mu_rec = rec.upper if self.rec is None else 1.0  # (> 0: draw one)
        self.mu_env = env.upper if self.env is None else 1.0
        self.env_upper = env.upper  # what the policy plans with, beyond the requested time
        self.service_rng = np.random.default_rng([spec.seed, 7, index])
        self.single = len(self.powers) == 1
        self.rng = np.random.default_rng(spec.seed) if spec.placement == "random" else None
        self.policy = policy
        # optional: told at a job's end even while mu_env holds its nodes (a preemptive
        # policy must not pick an ended job as a victim before on_finish)
        self.on_end = getattr(policy, "on_end", None)
        self.gids: list[int] = []  # local job number -> global id
        self.queued = 0
        self.received = 0
        self.running = 0
        self.held = 0  # processors of ended jobs not released yet (mu_env)
        self.view = ClusterView(
            total_procs=self.total,
            submit_at=[],
            requested_time=[],
            procs=[],
            user=[],
            free_procs=self.total,
            segment_start_at=[],
            executed_time=[],
            kill_on_overrun=kill_on_overrun,
            attributes={},
            speedup=[],
            global_id=self.gids,
            parent=[],
        )

    def allocate(self, q: int) -> tuple[list[tuple[int, int]], float]:
        """Take ``q`` processors (placement order); the groups used and the slowest power."""
        free = self.free
        self.free_total -= q
        if self.single:
            free[0] -= q
            return [(0, q)], self.powers[0]
        groups: list[int] | range = range(len(free))
        if self.rng is not None:
            groups = self.rng.permutation(len(free)).tolist()
        taken: list[tuple[int, int]] = []
        power = _INF
        left = q
        for g in groups:
            f = free[g]
            if f <= 0:
                continue
            k = f if f < left else left
            free[g] = f - k
            taken.append((g, k))
            if self.powers[g] < power:
                power = self.powers[g]
            left -= k
            if not left:
                break
        return taken, power

    def release(self, groups: list[tuple[int, int]]) -> None:
        free = self.free
        for g, k in groups:
            free[g] += k
            self.free_total += k


class Kernel:
    """Runs jobs through pools and actors (module docstring); ``run()`` returns the outcome.

    ``pools``: specs with their policy instances (same order: the pool index);
    ``actors``: actor instances (their index is their address). ``observers`` read the
    state after every instant (``after_step(now, kernel)``, ``finish(kernel)``);
    ``tracer`` (the invariant checker) is told of every run segment and node change.
    """

    def __init__(
        self,
        *,
        jobs: JobSpecs,
        pools: Sequence[tuple[PoolSpec, Policy]],
        actors: Sequence[Actor] = (),
        kill_on_overrun: bool = True,
        observers: Iterable[Any] = (),
        tracer: Any = None,
        progress: Callable[[int, int], None] | None = None,
        max_rounds: int = MAX_ROUNDS,
    ) -> None:
        if not pools:
            raise PolicyError("a platform needs at least one pool")
        self.specs = jobs
        self.kill_on_overrun = kill_on_overrun
        self.observers = list(observers)
        self.tracer = tracer
        self.progress = progress
        self.max_rounds = max_rounds
        self.actors = list(actors)
        self.pools = [
            _Pool(i, spec, policy, kill_on_overrun) for i, (spec, policy) in enumerate(pools)
        ]
        for p in self.pools:
            p.view.attributes = {k: [] for k in jobs.attributes}
        n = len(jobs)
        self.n = n
        nan = _NAN
        # what actors may read (engine.actors.PlatformView), by global id
        self.procs = list(jobs.procs)
        self.requested_time = [
            w * m.time_factor(p) for w, m, p in zip(jobs.requested_work, jobs.speedup, jobs.procs)
        ]
        self.user = list(jobs.user)
        self.state = [_PENDING] * n
        self.where = [-1] * n
        self.tag: list[object] = [None] * n
        self.node_power = [nan] * n
        self.alloc_procs = [0] * n
        self.now = 0.0
        # the rest of each job's state
        self._work = list(jobs.work)
        self._req_work = list(jobs.requested_work)
        self._model = list(jobs.speedup)
        self._think = list(jobs.think)
        self._target_actor = list(jobs.target_actor)
        self._target_pool = list(jobs.target_pool)
        self._attrs = {k: list(v) for k, v in jobs.attributes.items()}
        self._parent = list(jobs.parent)
        self._children: list[list[int] | None] = [None] * n
        for j, parent in enumerate(jobs.parent):
            if parent >= 0:
                kids = self._children[parent]
                if kids is None:
                    self._children[parent] = [j]
                else:
                    kids.append(j)
        self._roots = [j for j, parent in enumerate(jobs.parent) if parent < 0]
        # jobs still to be released to each actor (an agent stops asking when none is left)
        self.unreleased = [0] * len(self.actors)
        for a in jobs.target_actor:
            if 0 <= a < len(self.actors):
                self.unreleased[a] += 1
        self._release_at = list(jobs.release_at)
        self.submitted_at = [nan] * n
        self.admitted_at = [nan] * n
        self.started_at = [nan] * n
        self.finished_at = [nan] * n
        self.killed = [False] * n
        self._will_kill = [False] * n
        self._gen = [0] * n
        self._local = [-1] * n
        self._seg_start = [nan] * n
        self._factor = [1.0] * n  # seconds per work unit of the current segment
        self._done_work = [0.0] * n  # work done before the current segment (this attempt)
        self._attempt_time = [0.0] * n  # seconds run by the current attempt
        self._pool_time = [0.0] * n  # seconds run in the current pool visit (t_max)
        self._groups: list[list[tuple[int, int]] | None] = [None] * n
        self.preemptions = [0] * n
        self.evictions = [0] * n
        self._suspended_since = [nan] * n
        self.suspended_time = [0.0] * n
        self.wasted_time = [0.0] * n
        self.overhead_time = [0.0] * n
        self._overhead = [0.0] * n  # s to pay at the next (re)start: reading a checkpoint
        self._seg_over = [0.0] * n  # s of the current segment that restart (no work)
        self._owner = [-1] * n
        self._holder = [-1] * n  # actor a released job was handed to
        self._host = [-1] * n
        self._host_used = [0] * n
        self._payloads: dict[int, list[int]] = {}  # host -> its running payloads
        self._open_ended = [False] * n
        self._requested_s = [0.0] * n  # open-ended jobs: their limit in seconds
        self.spawned = 0
        self.running = 0
        self.done = 0
        self.released = 0
        self._heap: list[tuple[Any, ...]] = []
        self._seq = 0
        self._dirty_pools: list[int] = []
        self._pool_dirty = [False] * len(self.pools)
        self._dirty_actors: list[int] = []
        self._actor_dirty = [False] * len(self.actors)
        self._watchers: list[list[int]] = [[] for _ in self.pools]  # pool -> actors
        # which job events each actor wants (its optional ``listens``; default: all)
        self._listens = [
            [e in getattr(actor, "listens", JobEvent) for e in JobEvent] for actor in self.actors
        ]

    # -- what observers read (the same names as engine.simulator.Simulator) -------------
    @property
    def total_procs(self) -> int:
        return sum(p.total for p in self.pools)

    @property
    def free_procs(self) -> int:
        return sum(p.free_total for p in self.pools)

    @property
    def submitted(self) -> int:
        return self.released

    @property
    def attributes(self) -> dict[str, list[float]]:
        """Per-job attributes by global id (spawned jobs: NaN), for actors."""
        return self._attrs

    @property
    def jobs(self) -> int:
        """Jobs known so far (the workload's plus the spawned ones)."""
        return len(self.state)

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> KernelRun:
        """Simulate until nothing remains; the cyclic GC is paused meanwhile (as the
        inlined loop does: the loop makes no cycles and allocates many small tuples)."""
        with gc_paused():
            return self._run()

    def _run(self) -> KernelRun:
        clock = time.perf_counter()
        heap = self._heap
        roots = self._roots
        release_at = self._release_at
        nroots = len(roots)
        ri = 0
        first = min((release_at[j] for j in roots), default=0.0)
        self.now = first
        for p in self.pools:
            p.view.now = first
            p.policy.setup(p.view)
        for i, actor in enumerate(self.actors):
            actor.setup(i, self)
            self._mark_actor(i)  # every actor has a pass at the first instant (wake-ups)
            for p in getattr(actor, "watches", ()):  # pools whose starts and ends it hears
                self._watchers[p].append(i)
        instants = 0
        rounds_total = 0
        progress = self.progress
        observers = self.observers
        max_rounds = self.max_rounds
        while True:
            now = heap[0][0] if heap else _INF
            if ri < nroots and release_at[roots[ri]] < now:
                now = release_at[roots[ri]]
            if now == _INF:
                break
            instants += 1
            if progress is not None and not instants & 4095:
                progress(self.done, len(self.state))
            self.now = now
            for p in self.pools:
                p.view.now = now
            rounds = 0
            while True:
                rounds += 1
                if rounds > max_rounds:
                    raise PolicyError(
                        f"livelock at t={now}: more than {max_rounds} rounds of zero-delay "
                        "decisions in one instant (actors or policies keep answering each "
                        "other without time passing)"
                    )
                # 1. completions and node releases, in job order
                while heap and heap[0][0] == now and heap[0][1] == 0:
                    ev = heappop(heap)
                    if ev[4] == _END:
                        if ev[5] == self._gen[ev[2]]:
                            self._complete(ev[2], now)
                    else:
                        self._release_nodes(ev[2], now)
                # 2. releases, arrivals, admissions (job order, roots merged in), messages
                while True:
                    h = heap[0] if heap and heap[0][0] == now and heap[0][1] == 1 else None
                    if (
                        ri < nroots
                        and release_at[roots[ri]] == now
                        and (h is None or roots[ri] < h[2])
                    ):
                        self._deliver_release(roots[ri], now)
                        ri += 1
                        continue
                    if h is None:
                        break
                    heappop(heap)
                    kind = h[4]
                    if kind == _RELEASE:
                        self._deliver_release(h[2], now)
                    elif kind == _ARRIVE:
                        self._arrive(h[2], h[5], now)
                    elif kind == _ADMIT:
                        pool = self.pools[h[5]]
                        pool.received -= 1
                        self._admit(h[2], pool, now)
                    else:  # message
                        actor = h[5]
                        self.actors[actor].on_message(h[6])
                        self._mark_actor(actor)
                # 3. wake-ups
                while heap and heap[0][0] == now and heap[0][1] == 2:
                    ev = heappop(heap)
                    if ev[4] == _WAKE_POOL:
                        self._mark_pool(ev[5])
                    else:
                        self._mark_actor(ev[5])
                # 4. actors, then 5. pools, that had an event
                if self._dirty_actors:
                    dirty = self._dirty_actors
                    self._dirty_actors = []
                    if len(dirty) > 1:
                        dirty.sort()
                    for a in dirty:
                        self._actor_dirty[a] = False
                        for d in self.actors[a].schedule(now):
                            self._apply_actor(a, d, now)
                if self._dirty_pools:
                    dirty = self._dirty_pools
                    self._dirty_pools = []
                    if len(dirty) > 1:
                        dirty.sort()
                    for i in dirty:
                        self._pool_dirty[i] = False
                        pool = self.pools[i]
                        pool.view.free_procs = pool.free_total
                        for decision in pool.policy.schedule(now, pool.view):
                            self._apply_pool(pool, decision, now)
                        pool.view.free_procs = pool.free_total
                more = (heap and heap[0][0] == now) or (
                    ri < nroots and release_at[roots[ri]] == now
                )
                if not more and not self._dirty_actors and not self._dirty_pools:
                    break
            rounds_total += rounds
            if self.tracer is not None:
                self.tracer.after_instant(now, self)
            for obs in observers:
                obs.after_step(now, self)
        wall = time.perf_counter() - clock
        total = len(self.state)
        if self.done != total:
            stuck = [j for j in range(total) if self.state[j] != _DONE]
            j = stuck[0]
            where = self.where[j]
            place = f"in pool {self.pools[where].name!r}" if where >= 0 else "in no pool"
            raise PolicyError(
                f"{len(stuck)} job(s) never finished when no event remained (first: job "
                f"{j}, {JobState(self.state[j]).name.lower()} {place})"
            )
        for obs in observers:
            obs.finish(self)
        return KernelRun(
            submitted_at=np.array(self.submitted_at),
            admitted_at=np.array(self.admitted_at),
            started_at=np.array(self.started_at),
            finished_at=np.array(self.finished_at),
            killed=np.array(self.killed, dtype=bool),
            preemptions=np.array(self.preemptions, dtype=np.int64),
            evictions=np.array(self.evictions, dtype=np.int64),
            suspended_time=np.array(self.suspended_time),
            executed_work=np.array(self._done_work),
            wasted_time=np.array(self.wasted_time),
            overhead_time=np.array(self.overhead_time),
            alloc_procs=np.array(self.alloc_procs, dtype=np.int64),
            pool=np.array(self.where, dtype=np.int64),
            node_power=np.array(self.node_power),
            host=np.array(self._host, dtype=np.int64),
            pool_names=[p.name for p in self.pools],
            total_procs=self.total_procs,
            wall_time=wall,
            instants=instants,
            rounds=rounds_total,
            spawned=self.spawned,
        )

    # -- bookkeeping helpers ------------------------------------------------------------
    def _push(
        self, t: float, rank: int, order: int, kind: int, a: Any = None, b: Any = None
    ) -> None:
        self._seq += 1
        heappush(self._heap, (t, rank, order, self._seq, kind, a, b))

    def _mark_pool(self, i: int) -> None:
        if not self._pool_dirty[i]:
            self._pool_dirty[i] = True
            self._dirty_pools.append(i)

    def _mark_actor(self, a: int) -> None:
        if not self._actor_dirty[a]:
            self._actor_dirty[a] = True
            self._dirty_actors.append(a)

    def _notify(self, j: int, event: JobEvent) -> None:
        owner = self._owner[j]
        if owner >= 0 and self._listens[owner][event]:
            self.actors[owner].on_job_event(j, event)
            self._mark_actor(owner)
        where = self.where[j]
        if where >= 0 and self._watchers[where] and self._host[j] < 0:
            for a in self._watchers[where]:  # a site agent hears every start and end
                if a != owner and self._listens[a][event]:
                    self.actors[a].on_job_event(j, event)
                    self._mark_actor(a)

    # -- deliveries -----------------------------------------------------------------------
    def _deliver_release(self, j: int, now: float) -> None:
        """Job j is released now (a root's submit time, or its parent's end + think)."""
        self.submitted_at[j] = now
        self.released += 1
        actor = self._target_actor[j]
        if actor >= 0:
            self.unreleased[actor] -= 1
            self.state[j] = _RELEASED
            self._holder[j] = actor
            self.actors[actor].on_arrival(j)
            self._mark_actor(actor)
        else:
            self.state[j] = _TRANSIT
            self._arrive(j, self._target_pool[j], now)

    def _arrive(self, j: int, p: int, now: float) -> None:
        """Job j reaches pool p; its policy sees it after the receive delay."""
        pool = self.pools[p]
        self.where[j] = p
        if pool.mu_rec > 0:
            pool.received += 1
            delay = pool.mu_rec if pool.rec is None else pool.rec.sample(pool.service_rng)
            self._push(now + delay, 1, j, _ADMIT, p)
        else:
            self._admit(j, pool, now)

    def _admit(self, j: int, pool: _Pool, now: float) -> None:
        """Job j enters pool's queue: a new local number, the view grows, on_submit."""
        view = pool.view
        local = len(pool.gids)
        pool.gids.append(j)
        self._local[j] = local
        self.admitted_at[j] = now
        self.state[j] = _WAITING if self._done_work[j] == 0.0 else _SUSPENDED
        self._pool_time[j] = 0.0
        view.submit_at.append(now)  # type: ignore[attr-defined]
        model = self._model[j]
        if self._open_ended[j]:
            req = self._requested_s[j]
        else:
            req = self._req_work[j] * model.time_factor(self.procs[j]) / pool.slowest
        # what the batch system plans with: at most t_max, on the slowest nodes, plus the
        # release delay during which the nodes stay busy after the end (an upper bound)
        if req > pool.t_max:
            req = pool.t_max
        view.requested_time.append(req + pool.env_upper if pool.env_upper else req)  # type: ignore[attr-defined]
        view.procs.append(self.procs[j])  # type: ignore[attr-defined]
        view.user.append(self.user[j])  # type: ignore[attr-defined]
        view.segment_start_at.append(_NAN)  # type: ignore[union-attr]
        view.executed_time.append(0.0)  # type: ignore[union-attr]
        view.speedup.append(model)  # type: ignore[union-attr]
        parent = self._parent[j]
        view.parent.append(  # type: ignore[union-attr]
            self._local[parent] if parent >= 0 and self.where[parent] == pool.index else -1
        )
        for name, values in view.attributes.items():
            values.append(self._attrs[name][j])  # type: ignore[attr-defined]
        pool.queued += 1
        pool.policy.on_submit(local)
        self._mark_pool(pool.index)

    # -- starting and stopping ----------------------------------------------------------
    def _begin(self, j: int, q: int, power: float, now: float) -> None:
        """Start (or resume) job j now on q processors of ``power``: schedule its end."""
        if self.started_at[j] != self.started_at[j]:
            self.started_at[j] = now
        else:
            since = self._suspended_since[j]
            if since == since:
                self.suspended_time[j] += now - since
                self._suspended_since[j] = _NAN
        self.state[j] = _RUNNING
        self.alloc_procs[j] = q
        self.node_power[j] = power
        self._seg_start[j] = now
        self.running += 1
        if self._open_ended[j]:
            limit = self._requested_s[j] - self._pool_time[j]
            cap = _INF
            where = self.where[j]
            if where >= 0 and self._host[j] < 0:
                cap = self.pools[where].t_max - self._pool_time[j]
            self._will_kill[j] = True
            self._push(now + (limit if limit < cap else cap), 0, j, _END, self._gen[j])
            return
        factor = self._model[j].time_factor(q) / power
        self._factor[j] = factor
        done = self._done_work[j]
        remaining = (self._work[j] - done) * factor
        stop = remaining
        if self.kill_on_overrun:
            budget = (self._req_work[j] - done) * factor
            if budget < stop:
                stop = budget
        over = self._overhead[j]
        if over:  # restarting from a checkpoint: the first seconds do no work
            self._overhead[j] = 0.0
            self._seg_over[j] = over
            stop += over
            remaining += over
        if self._host[j] < 0:
            cap = self.pools[self.where[j]].t_max - self._pool_time[j]
            if cap < stop:
                stop = cap
        self._will_kill[j] = stop < remaining
        self._push(now + stop, 0, j, _END, self._gen[j])

    def _stop_segment(self, j: int, now: float) -> float:
        """Close job j's running segment: count its work and time; returns the seconds."""
        ran = now - self._seg_start[j]
        over = self._seg_over[j]
        used = 0.0
        if over:
            used = ran if ran < over else over
            self.overhead_time[j] += used
            self._seg_over[j] = 0.0
            if used < over:  # stopped while restarting: the rest is still to pay
                self._overhead[j] += over - used
        if not self._open_ended[j]:
            self._done_work[j] += (ran - used) / self._factor[j]
        self._attempt_time[j] += ran
        self._pool_time[j] += ran
        self.running -= 1
        if self.tracer is not None:
            self.tracer.segment(j, self._seg_start[j], now, self, used)
        return ran

    def _free_nodes(self, j: int, pool: _Pool) -> None:
        groups = self._groups[j]
        if groups is not None:
            pool.release(groups)
            self._groups[j] = None
            if self.tracer is not None:
                self.tracer.released(j, pool.index, groups, self.now, self)

    def _complete(self, j: int, now: float) -> None:
        """Job j reaches its end (or the limit that kills it)."""
        self._stop_segment(j, now)
        self.state[j] = _DONE
        self.finished_at[j] = now
        self.killed[j] = self._will_kill[j]
        self.done += 1
        self._gen[j] += 1
        host = self._host[j]
        if host >= 0:
            self._host_used[host] -= self.alloc_procs[j]
            payloads = self._payloads[host]
            payloads.remove(j)
            if not payloads:
                del self._payloads[host]
        else:
            pool = self.pools[self.where[j]]
            pool.running -= 1
            if self._host_used[j]:
                self._kill_payloads(j, now)
            if pool.mu_env > 0:
                if pool.on_end is not None:
                    pool.on_end(self._local[j])
                pool.held += self.alloc_procs[j]
                delay = pool.mu_env if pool.env is None else pool.env.sample(pool.service_rng)
                self._push(now + delay, 0, j, _NODES)
            else:
                self._free_nodes(j, pool)
                pool.policy.on_finish(self._local[j])
                self._mark_pool(pool.index)
        self._notify(j, JobEvent.KILLED if self.killed[j] else JobEvent.ENDED)
        self._release_children(j, now)

    def _release_nodes(self, j: int, now: float) -> None:
        """The batch system notices job j's end (mu_env after it): nodes free, policy told."""
        pool = self.pools[self.where[j]]
        pool.held -= self.alloc_procs[j]
        self._free_nodes(j, pool)
        pool.policy.on_finish(self._local[j])
        self._mark_pool(pool.index)

    def _kill_payloads(self, host: int, now: float) -> None:
        """The host ended or was killed: its payloads are killed with it."""
        for k in list(self._payloads.get(host, ())):
            self._will_kill[k] = True
            self._complete(k, now)

    def _release_children(self, j: int, now: float) -> None:
        kids = self._children[j] if j < self.n else None
        if kids:
            for c in kids:
                think = self._think[c]
                self._push(now + (think if think > 0 else 0.0), 1, c, _RELEASE)

    # -- pool decisions -----------------------------------------------------------------
    def _apply_pool(self, pool: _Pool, d: Any, now: float) -> None:
        name = getattr(pool.policy, "name", "?")
        kind = type(d)
        if kind is Start:
            local = d.job
            if not 0 <= local < len(pool.gids):
                raise PolicyError(f"policy {name!r}: Start(job {local}) at t={now}: no such job")
            j = pool.gids[local]
            st = self.state[j]
            if (st != _WAITING and st != _SUSPENDED) or self.where[j] != pool.index:
                state = JobState(st).name.lower() if self.where[j] == pool.index else "gone"
                raise PolicyError(
                    f"policy {name!r}: Start(job {local}) at t={now}: job is {state}, only "
                    "waiting or suspended jobs start"
                )
            q = self.procs[j] if d.procs is None else d.procs
            if q != self.procs[j] and self._model[j] is RIGID:
                raise PolicyError(
                    f"policy {name!r}: Start(job {local}, procs={q}) at t={now}: a rigid job "
                    f"runs on its own {self.procs[j]} processors"
                )
            if q <= 0 or q > pool.free_total:
                raise PolicyError(
                    f"policy {name!r}: Start(job {local}) at t={now} needs {q} processors but "
                    f"only {pool.free_total} are free"
                )
            groups, power = pool.allocate(q)
            self._groups[j] = groups
            pool.queued -= 1
            pool.running += 1
            pool.view.segment_start_at[local] = now  # type: ignore[index]
            if self.tracer is not None:
                self.tracer.allocated(j, pool.index, groups, now, self)
            self._begin(j, q, power, now)
            self._notify(j, JobEvent.STARTED)
        elif kind is Suspend or kind is Evict:
            local = d.job
            j = pool.gids[local] if 0 <= local < len(pool.gids) else -1
            st = self.state[j] if j >= 0 and self.where[j] == pool.index else -1
            what = "Suspend" if kind is Suspend else "Evict"
            if kind is Evict:
                if st not in (_RUNNING, _WAITING, _SUSPENDED):
                    raise PolicyError(
                        f"policy {name!r}: Evict(job {local}) at t={now}: job is not in the pool"
                    )
                if self._owner[j] < 0:
                    raise PolicyError(
                        f"policy {name!r}: Evict(job {local}) at t={now}: no actor dispatched "
                        "it, so none can take it back"
                    )
            elif st != _RUNNING:
                raise PolicyError(
                    f"policy {name!r}: {what}(job {local}) at t={now}: job is not running"
                )
            if st == _RUNNING:
                if self._host_used[j]:
                    raise PolicyError(
                        f"policy {name!r}: {what}(job {local}) at t={now}: payloads run in it"
                    )
                self._gen[j] += 1
                ran = self._stop_segment(j, now)
                pool.view.executed_time[local] += ran  # type: ignore[index]
                self._free_nodes(j, pool)
                pool.running -= 1
                self.preemptions[j] += 1
                self._suspended_since[j] = now
                overhead = d.overhead
                if not (0.0 <= overhead < _INF):
                    raise PolicyError(
                        f"policy {name!r}: {what}(job {local}) at t={now}: overhead "
                        f"{overhead!r}; allowed: seconds >= 0"
                    )
                if overhead:
                    self._overhead[j] = overhead  # the checkpoint is read once per restart
                if kind is Suspend and not d.keep_progress:
                    self.wasted_time[j] += self._attempt_time[j]
                    self._attempt_time[j] = 0.0
                    self._done_work[j] = 0.0
                    self._overhead[j] = 0.0  # restarts from scratch: no checkpoint
                    pool.view.executed_time[local] = 0.0  # type: ignore[index]
                    if self.tracer is not None:
                        self.tracer.requeued(j, self)
            else:
                pool.queued -= 1  # a waiting job leaves the queue (Evict only)
            if kind is Suspend:
                self.state[j] = _SUSPENDED
                pool.queued += 1
            else:
                self.state[j] = _RELEASED
                self._holder[j] = self._owner[j]
                self.where[j] = -1
                self.evictions[j] += 1
                self._notify(j, JobEvent.EVICTED)
        elif kind is Kill:
            local = d.job
            j = pool.gids[local] if 0 <= local < len(pool.gids) else -1
            st = self.state[j] if j >= 0 and self.where[j] == pool.index else -1
            if st == _RUNNING:
                self._stop_segment(j, now)
                self._free_nodes(j, pool)
                pool.running -= 1
                if self._host_used[j]:
                    self._kill_payloads(j, now)
                # a running job cancelled is preempted: its attempt's time is lost work
                # (wasted_time), as with a requeue
                self.preemptions[j] += 1
                self.wasted_time[j] += self._attempt_time[j]
                self._attempt_time[j] = 0.0
            elif st in (_WAITING, _SUSPENDED):
                pool.queued -= 1
            else:
                raise PolicyError(
                    f"policy {name!r}: Kill(job {local}) at t={now}: job already ended or not "
                    "submitted"
                )
            since = self._suspended_since[j]
            if since == since:
                self.suspended_time[j] += now - since
                self._suspended_since[j] = _NAN
            self._gen[j] += 1
            self.state[j] = _DONE
            self.finished_at[j] = now
            if self.started_at[j] != self.started_at[j]:
                self.started_at[j] = now
            self.killed[j] = True
            self.done += 1
            self._notify(j, JobEvent.KILLED)
            self._release_children(j, now)
        elif kind is WakeAt:
            t = float(d.time)
            if t > now:
                self._push(t, 2, self._seq, _WAKE_POOL, pool.index)
        else:
            raise PolicyError(f"policy {name!r} returned {d!r}, not a decision")

    # -- actor decisions ----------------------------------------------------------------
    def _held_by(self, a: int, j: int, what: str, now: float) -> None:
        if not 0 <= j < len(self.state):
            raise PolicyError(f"actor {self._actor_name(a)}: {what}: no job {j} (t={now})")
        if self.state[j] != _RELEASED or self._holder[j] != a:
            raise PolicyError(
                f"actor {self._actor_name(a)}: {what} at t={now}: job {j} is "
                f"{JobState(self.state[j]).name.lower()}, not released to this actor"
            )

    def _actor_name(self, a: int) -> str:
        return f"{getattr(self.actors[a], 'name', '?')!r} (#{a})"

    def _apply_actor(self, a: int, d: Any, now: float) -> None:
        kind = type(d)
        if kind is Dispatch:
            j = d.job
            self._held_by(a, j, f"Dispatch(job {j})", now)
            if not 0 <= d.pool < len(self.pools):
                raise PolicyError(f"actor {self._actor_name(a)}: Dispatch to no pool {d.pool}")
            pool = self.pools[d.pool]
            if self.procs[j] > pool.total and self._model[j] is RIGID:
                raise PolicyError(
                    f"actor {self._actor_name(a)}: Dispatch(job {j}) to pool {pool.name!r}: "
                    f"it needs {self.procs[j]} processors, the pool has {pool.total}"
                )
            self._owner[j] = a
            self._holder[j] = -1
            self.state[j] = _TRANSIT
            delay = float(d.delay)
            if delay > 0:
                self._push(now + delay, 1, j, _ARRIVE, d.pool)
            elif delay == 0:
                self._arrive(j, d.pool, now)
            else:
                raise PolicyError(f"actor {self._actor_name(a)}: Dispatch with delay {delay} < 0")
        elif kind is Send:
            if not 0 <= d.actor < len(self.actors):
                raise PolicyError(f"actor {self._actor_name(a)}: Send to no actor {d.actor}")
            delay = float(d.delay)
            if not delay >= 0:
                raise PolicyError(f"actor {self._actor_name(a)}: Send with delay {delay} < 0")
            self._push(now + delay, 1, _MESSAGE_ORDER + self._seq, _MESSAGE, d.actor, d.message)
        elif kind is Spawn:
            self._spawn(a, d, now)
        elif kind is RunIn:
            self._run_in(a, d, now)
        elif kind is End:
            j = d.job
            if not (0 <= j < len(self.state)) or self.state[j] != _RUNNING or self._owner[j] != a:
                raise PolicyError(
                    f"actor {self._actor_name(a)}: End(job {j}) at t={now}: not a running job "
                    "of this actor"
                )
            if not self._open_ended[j]:
                raise PolicyError(
                    f"actor {self._actor_name(a)}: End(job {j}) at t={now}: only open-ended "
                    "jobs (spawned pilots) are ended; a job with work ends when it is done"
                )
            if self._host_used[j]:
                raise PolicyError(
                    f"actor {self._actor_name(a)}: End(job {j}) at t={now}: payloads still "
                    "run in it"
                )
            self._will_kill[j] = False
            self._complete(j, now)
        elif kind is WakeAt:
            t = float(d.time)
            if t > now:
                self._push(t, 2, self._seq, _WAKE_ACTOR, a)
        else:
            raise PolicyError(f"actor {self._actor_name(a)} returned {d!r}, not a decision")

    def _new_job(self) -> int:
        """Append one job to every per-job list; returns its id."""
        j = len(self.state)
        for name, value in _NEW_JOB_DEFAULTS:
            getattr(self, name).append(value)
        for values in self._attrs.values():
            values.append(_NAN)
        return j

    def _spawn(self, a: int, d: Spawn, now: float) -> None:
        if not 0 <= d.pool < len(self.pools):
            raise PolicyError(f"actor {self._actor_name(a)}: Spawn in no pool {d.pool}")
        pool = self.pools[d.pool]
        if not (isinstance(d.procs, int) and 1 <= d.procs <= pool.total):
            raise PolicyError(
                f"actor {self._actor_name(a)}: Spawn of {d.procs} processors in pool "
                f"{pool.name!r} of {pool.total}"
            )
        if not (d.requested_time > 0):
            raise PolicyError(
                f"actor {self._actor_name(a)}: Spawn with requested time {d.requested_time}"
            )
        j = self._new_job()
        self.spawned += 1
        self.procs[j] = d.procs
        self.user[j] = -1
        self.state[j] = _RELEASED
        self.where[j] = -1
        self.tag[j] = d.tag
        self.node_power[j] = _NAN
        self.alloc_procs[j] = 0
        self.requested_time[j] = float(d.requested_time)
        self._requested_s[j] = float(d.requested_time)
        self._open_ended[j] = True
        self._holder[j] = a
        self._owner[j] = a
        self.submitted_at[j] = now
        self.released += 1
        self.actors[a].on_job_event(j, JobEvent.SPAWNED)
        self._apply_actor(a, Dispatch(j, d.pool, d.delay), now)

    def _run_in(self, a: int, d: RunIn, now: float) -> None:
        j, host = d.job, d.host
        self._held_by(a, j, f"RunIn(job {j}, host {host})", now)
        if (
            not (0 <= host < len(self.state))
            or self.state[host] != _RUNNING
            or self._owner[host] != a
        ):
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}, host {host}) at t={now}: the host "
                "is not a running job of this actor"
            )
        if self._host[host] >= 0:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn: host {host} is itself a payload"
            )
        q = self.procs[j] if d.procs is None else d.procs
        if q != self.procs[j] and self._model[j] is RIGID:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}, procs={q}): a rigid job runs on "
                f"its own {self.procs[j]} processors"
            )
        if q <= 0 or self._host_used[host] + q > self.alloc_procs[host]:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}) at t={now} needs {q} processors; "
                f"host {host} has {self.alloc_procs[host] - self._host_used[host]} unused"
            )
        self._host_used[host] += q
        self._payloads.setdefault(host, []).append(j)
        self._host[j] = host
        self._owner[j] = a
        self._holder[j] = -1
        self.where[j] = self.where[host]
        self.admitted_at[j] = now
        self._begin(j, q, self.node_power[host], now)
        self._notify(j, JobEvent.STARTED)
