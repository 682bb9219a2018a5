"""The general kernel: pools, actors, deliveries and durations from work (DESIGN 3b).

One loop carries clusters, grids and moldable applications. Its pieces, one module each:

* **Jobs** (`engine.jobs`): a global id each (their position in the workload; spawned jobs
  are appended), their state in one `JobTable`. Roots stream from one sorted array; a
  dependant is released when its parent ends, after its think time (SWF fields 17 and 18).
  Only what is in flight sits in the heap.
* **Lifecycle** (`engine.lifecycle`): run segments, with durations from work, allocation and
  node power through the job's speed-up model; ends, node releases, payloads, dependants.
* **Pools** (`engine.pools`): batch queues with node groups, one policy instance, a
  `ClusterView` with append-only local job numbering, t_max, mu_rec, mu_env, placement.
* **Actors** (`engine.actors`) receive released jobs, messages and news of their jobs, and
  return decisions: Dispatch, Send, Spawn (pilots), RunIn (payloads), End, WakeAt.
* **Decisions** (`engine.apply`) of policies and actors are validated and applied there, one
  method per kind.
* **Events** (`engine.events`): their kinds and the tie rule of one instant.

Every actor is asked once at the first instant (to set its wake-ups, deploy pilots...). An
instant is a sequence of rounds (`engine.events`); more than ``max_rounds`` rounds is a
livelock (`PolicyError`).

A one-pool run whose jobs are delivered straight to the pool gives exactly what the inlined
loop of `engine.fastpath` gives (a test compares them on every scenario and golden trace).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from heapq import heappop, heappush
from typing import Any

from schedlab.engine.actors import Actor, JobEvent, listened_events, watched_pools
from schedlab.engine.apply import Decisions
from schedlab.engine.events import EventKind, JobState, Rank, gc_paused
from schedlab.engine.jobs import JobSpecs, JobTable, KernelRun
from schedlab.engine.lifecycle import Lifecycle
from schedlab.engine.pools import Pool
from schedlab.engine.protocol import Policy
from schedlab.errors import PolicyError
from schedlab.platform.pool import PoolSpec

__all__ = ["JobSpecs", "Kernel", "KernelRun"]

_INF = math.inf
_TRANSIT = int(JobState.TRANSIT)
_RELEASED = int(JobState.RELEASED)
_END, _RELEASE = int(EventKind.END), int(EventKind.RELEASE)
_ARRIVE, _ADMIT = int(EventKind.ARRIVE), int(EventKind.ADMIT)
_WAKE_POOL = int(EventKind.WAKE_POOL)
_ENDS, _DELIVERIES, _WAKES = int(Rank.ENDS), int(Rank.DELIVERIES), int(Rank.WAKES)
MAX_ROUNDS = 1000


class Kernel:
    """Runs jobs through pools and actors (module docstring); ``run()`` returns the outcome.

    ``pools``: specs with their policy instances (same order: the pool index);
    ``actors``: actor instances (their index is their address). ``observers`` read the
    state after every instant (``after_step(now, kernel)``, ``finish(kernel)``);
    ``tracer`` (the invariant checker) is told of every run segment and node change.
    Actors read the kernel as an `engine.actors.PlatformView`: ``now``, ``pools`` and the
    per-job columns of `jobs` it names (``procs``, ``state``, ``where``...).
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
        self.n = len(jobs)
        self.kill_on_overrun = kill_on_overrun
        self.observers = list(observers)
        self.tracer = tracer
        self.progress = progress
        self.max_rounds = max_rounds
        self.actors = list(actors)
        self.pools = [
            Pool(i, spec, policy, kill_on_overrun) for i, (spec, policy) in enumerate(pools)
        ]
        table = self.jobs = JobTable(jobs)
        for p in self.pools:
            p.view.attributes = {k: [] for k in jobs.attributes}
        # what actors and observers read (engine.actors.PlatformView), by global id: the
        # table's own lists, which grow in place as jobs are spawned
        self.procs = table.procs
        self.requested_time = table.requested_time
        self.user = table.user
        self.state = table.state
        self.where = table.where
        self.tag = table.tag
        self.node_power = table.node_power
        self.alloc_procs = table.alloc_procs
        self.submitted_at = table.submitted_at
        self.started_at = table.started_at
        self.finished_at = table.finished_at
        self.killed = table.killed
        self.now = 0.0
        self._roots = [j for j, parent in enumerate(jobs.parent) if parent < 0]
        # jobs still to be released to each actor (an agent stops asking when none is left)
        self.unreleased = [0] * len(self.actors)
        for a in jobs.target_actor:
            if 0 <= a < len(self.actors):
                self.unreleased[a] += 1
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
        self._listens = [listened_events(actor) for actor in self.actors]
        self.decisions = Decisions(self)
        self.life = Lifecycle(self)

    # -- what observers read (the same names as engine.fastpath.Simulator) --------------
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
        return self.jobs.attributes

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> KernelRun:
        """Simulate until nothing remains; the cyclic GC is paused meanwhile (as the
        inlined loop does: the loop makes no cycles and allocates many small tuples)."""
        with gc_paused():
            return self._run()

    def _start(self) -> None:
        """The first instant: every policy set up, every actor set up and asked once."""
        release_at = self.jobs.release_at
        first = min((release_at[j] for j in self._roots), default=0.0)
        self.now = first
        for pool in self.pools:
            pool.view.now = first
            pool.policy.setup(pool.view)
        for i, actor in enumerate(self.actors):
            actor.setup(i, self)
            self._mark_actor(i)  # every actor has a pass at the first instant (wake-ups)
            for p in watched_pools(actor):  # pools whose starts and ends it hears
                self._watchers[p].append(i)

    def _run(self) -> KernelRun:
        clock = time.perf_counter()
        self._start()
        heap = self._heap
        roots = self._roots
        release_at = self.jobs.release_at
        gen = self.jobs.gen
        complete = self.life.complete
        decisions = self.decisions
        pool_kinds = decisions.pool_kinds
        actor_kinds = decisions.actor_kinds
        nroots = len(roots)
        ri = 0
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
                while heap and heap[0][0] == now and heap[0][1] == _ENDS:
                    ev = heappop(heap)
                    if ev[4] == _END:
                        if ev[5] == gen[ev[2]]:
                            complete(ev[2], now)
                    else:
                        self.life.release_nodes(ev[2], now)
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
                        self.arrive(h[2], h[5], now)
                    elif kind == _ADMIT:
                        pool = self.pools[h[5]]
                        pool.received -= 1
                        pool.admit(h[2], self.jobs, now)
                        self.mark_pool(pool.index)
                    else:  # a message
                        self.actors[h[5]].on_message(h[6])
                        self._mark_actor(h[5])
                # 3. wake-ups
                while heap and heap[0][0] == now and heap[0][1] == _WAKES:
                    ev = heappop(heap)
                    if ev[4] == _WAKE_POOL:
                        self.mark_pool(ev[5])
                    else:
                        self._mark_actor(ev[5])
                # 4. actors, then 5. pools, that had an event, in index order
                if self._dirty_actors:
                    dirty = self._dirty_actors
                    self._dirty_actors = []
                    if len(dirty) > 1:
                        dirty.sort()
                    for a in dirty:
                        self._actor_dirty[a] = False
                        for order in self.actors[a].schedule(now):
                            actor_kinds.get(type(order), decisions.unknown_of_actor)(a, order, now)
                if self._dirty_pools:
                    dirty = self._dirty_pools
                    self._dirty_pools = []
                    if len(dirty) > 1:
                        dirty.sort()
                    for i in dirty:
                        self._pool_dirty[i] = False
                        pool = self.pools[i]
                        pool.view.free_procs = pool.free_total
                        for d in pool.policy.schedule(now, pool.view):
                            pool_kinds.get(type(d), decisions.unknown_of_pool)(pool, d, now)
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
        self.jobs.check_all_ended(self.done, [p.name for p in self.pools])
        for obs in observers:
            obs.finish(self)
        return self.jobs.outcome(
            pool_names=[p.name for p in self.pools],
            total_procs=self.total_procs,
            wall_time=wall,
            instants=instants,
            rounds=rounds_total,
            spawned=self.spawned,
        )

    # -- bookkeeping helpers ------------------------------------------------------------
    def push(
        self, t: float, rank: int, order: int, kind: int, a: Any = None, b: Any = None
    ) -> None:
        """An event of ``kind`` (an `EventKind`) at ``t``: ``rank`` (its `Rank`, `RANK`) and
        ``order`` place it among those of its instant (`engine.events`)."""
        self._seq += 1
        heappush(self._heap, (t, rank, order, self._seq, kind, a, b))

    def wake_order(self) -> int:
        """The order of a wake-up among those of its instant: the order it was asked."""
        return self._seq

    def mark_pool(self, i: int) -> None:
        """Pool i schedules in the next round of this instant."""
        if not self._pool_dirty[i]:
            self._pool_dirty[i] = True
            self._dirty_pools.append(i)

    def _mark_actor(self, a: int) -> None:
        if not self._actor_dirty[a]:
            self._actor_dirty[a] = True
            self._dirty_actors.append(a)

    def notify(self, j: int, event: JobEvent) -> None:
        """Tell job j's owner, and every actor watching its pool, of ``event``."""
        owner = self.jobs.owner[j]
        if owner >= 0 and self._listens[owner][event]:
            self.actors[owner].on_job_event(j, event)
            self._mark_actor(owner)
        where = self.where[j]
        if where >= 0 and self._watchers[where] and self.jobs.host[j] < 0:
            for a in self._watchers[where]:  # a site agent hears every start and end
                if a != owner and self._listens[a][event]:
                    self.actors[a].on_job_event(j, event)
                    self._mark_actor(a)

    # -- deliveries -----------------------------------------------------------------------
    def _deliver_release(self, j: int, now: float) -> None:
        """Job j is released now (a root's submit time, or its parent's end + think)."""
        t = self.jobs
        self.submitted_at[j] = now
        self.released += 1
        actor = t.target_actor[j]
        if actor >= 0:
            self.unreleased[actor] -= 1
            self.state[j] = _RELEASED
            t.holder[j] = actor
            self.actors[actor].on_arrival(j)
            self._mark_actor(actor)
        else:
            self.state[j] = _TRANSIT
            self.arrive(j, t.target_pool[j], now)

    def arrive(self, j: int, p: int, now: float) -> None:
        """Job j reaches pool p; its policy sees it after the receive delay."""
        pool = self.pools[p]
        self.where[j] = p
        if pool.mu_rec > 0:
            pool.received += 1
            self.push(now + pool.receive_delay(), _DELIVERIES, j, _ADMIT, p)
        else:
            pool.admit(j, self.jobs, now)
            self.mark_pool(p)
