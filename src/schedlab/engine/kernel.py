"""The general kernel: pools, actors, deliveries and durations from work (DESIGN 3b).

One loop carries clusters, grids and moldable applications. Its pieces, one module each:

* **Jobs** (`engine.jobs`): a global id each (their position in the workload; spawned jobs
  are appended), their state in one `JobTable`. Roots stream from one sorted array; a
  dependant is released when its parent ends, after its think time (SWF fields 17 and 18).
  Only what is in flight sits in the event queue (`engine.queue`).
* **Lifecycle** (`engine.lifecycle`): run segments, with durations from work, allocation and
  node power through the job's speed-up model; ends, node releases, payloads, dependants.
* **Pools** (`engine.pools`): batch queues with node groups, one policy instance, a
  `ClusterView` with append-only local job numbering, t_max, mu_rec, mu_env, placement.
* **Actors** (`engine.actors`) receive released jobs, messages and news of their jobs, and
  return decisions: Dispatch, Send, Spawn (pilots), RunIn (payloads), End, WakeAt.
* **Decisions** (`engine.apply`) of policies and actors are validated and applied there, one
  method per kind.
* **Events** (`engine.events`): their kinds and the tie rule of one instant.
* **The loop** (`Kernel._loop`, below) runs in C where it was compiled
  (`engine.compiled_loop`, `engine/_ckernel.c`): the same steps, the same results.

Every actor is asked once at the first instant (to set its wake-ups, deploy pilots...). An
instant is a sequence of rounds (`engine.events`); more than ``max_rounds`` rounds is a
livelock (`PolicyError`).

A one-pool run whose jobs are delivered straight to the pool gives exactly what the inlined
loop of `engine.fastpath` gives (a test compares them on every scenario and golden trace).
"""

from __future__ import annotations

import math
import time
from functools import cached_property
from operator import attrgetter
from typing import Any, NoReturn

from schedlab.engine.actors import JobEvent, watched_pools
from schedlab.engine.apply import Decisions
from schedlab.engine.compiled_loop import USING_C_LOOP, compiled_loop, runs_compiled
from schedlab.engine.core import KernelCore
from schedlab.engine.decisions import Start
from schedlab.engine.durations import RIGID
from schedlab.engine.events import (
    ADMIT,
    ARRIVE,
    DELIVERIES,
    END,
    ENDS,
    RELEASE,
    WAKE_POOL,
    WAKES,
    gc_paused,
)
from schedlab.engine.jobs import JobSpecs, KernelRun
from schedlab.engine.lifecycle import Lifecycle
from schedlab.engine.pools import Pool
from schedlab.errors import PolicyError

__all__ = ["JobSpecs", "Kernel", "KernelRun"]

_INF = math.inf
_INDEX = attrgetter("index")  # (pools marked in one round run in index order)


class Kernel(KernelCore):
    """Runs jobs through pools and actors (module docstring; the state: `KernelCore`);
    ``run()`` returns the outcome."""

    # the loop in C (`engine/_ckernel.c`) when it was compiled, else `_loop` (the same
    # results); a test sets it to False to compare the two
    compiled_loop: bool = USING_C_LOOP

    @cached_property
    def life(self) -> Lifecycle:
        """Run segments and ends of this run's jobs (`engine.lifecycle`)."""
        return Lifecycle(self)

    @cached_property
    def decisions(self) -> Decisions:
        """What applies the decisions of this run's policies and actors (`engine.apply`)."""
        return Decisions(self, self.life)

    def close(self) -> None:
        """`KernelCore.close`, and the parts emptied first: `Decisions` holds bound methods
        of its own (a cycle), so through it the job table would still wait for the cyclic
        collector, past the metrics (a third of a million-job grid's peak memory)."""
        for part in ("life", "decisions"):
            made = self.__dict__.get(part)  # (a cached property: only if it was used)
            if made is not None:
                made.__dict__.clear()
        super().close()

    def run(self) -> KernelRun:
        """Simulate until nothing remains; the cyclic GC is paused meanwhile (as the
        inlined loop does: the loop makes no cycles and allocates many small tuples)."""
        with gc_paused():
            return self._run()

    def _start(self) -> None:
        """The first instant: every policy set up, every actor set up and asked once."""
        release_at = self.jobs.release_at
        roots = self._roots
        if isinstance(roots, range):  # (every job a root: the column itself, at C speed)
            first = min(release_at[: len(roots)], default=0.0)
        else:
            first = min((release_at[j] for j in roots), default=0.0)
        self.now = self.clock.now = first
        for pool in self.pools:
            pool.policy.setup(pool.view)
        for i, actor in enumerate(self.actors):
            actor.setup(i, self)
            self._mark_actor(i)  # every actor has a pass at the first instant (wake-ups)
            for p in watched_pools(actor):  # pools whose starts and ends it hears
                self._watchers[p].append(i)

    def _run(self) -> KernelRun:
        clock = time.perf_counter()
        self._start()
        if runs_compiled(self):
            instants, rounds_total = compiled_loop(self, self._loop_parts())
        else:
            instants, rounds_total = self._loop()
        wall = time.perf_counter() - clock
        self.jobs.check_all_ended(self.done, [p.name for p in self.pools])
        for obs in self.observers:
            obs.finish(self)
        return self.jobs.outcome(
            pool_names=[p.name for p in self.pools],
            total_procs=self.total_procs,
            wall_time=wall,
            instants=instants,
            rounds=rounds_total,
            spawned=self.spawned,
        )

    # -- the loop -------------------------------------------------------------------------
    # ``_loop`` is the loop in Python; `engine/_ckernel.c` is the same loop in C, run when it
    # was compiled (`engine.compiled_loop`). Both call the methods below for what is not on
    # a cluster's hot path (actors, messages, observers, a livelock); the C loop makes a
    # classic policy's pass itself (`_pool_pass` is the Python loop's).
    def _loop(self) -> tuple[int, int]:
        """Simulate every instant (module docstring); returns (instants, rounds)."""
        events = self.events
        next_time, pop_at, order_at, pop = (
            events.next_time,
            events.pop_at,
            events.order_at,
            events.pop,
        )
        shared = self.clock
        roots = self._roots
        release_at = self.jobs.release_at
        gen = self.jobs.gen
        complete = self.life.complete
        release_nodes = self.life.release_nodes
        deliver = self._deliver_release
        start_local = self.decisions.start_local
        nroots = len(roots)
        ri = 0
        root_at = release_at[roots[0]] if nroots else _INF  # the next root's release time
        instants = 0
        rounds_total = 0
        progress = self.progress
        after_instant = self._after_instant if self.tracer is not None or self.observers else None
        max_rounds = self.max_rounds
        while True:
            now = next_time()
            if root_at < now:
                now = root_at
            if now == _INF:
                break
            instants += 1
            if progress is not None and not instants & 4095:
                progress(self.done, len(self.state))
            self.now = shared.now = now
            rounds = 0
            while True:
                rounds += 1
                if rounds > max_rounds:
                    self._livelock(now)
                # 1. completions and node releases, in job order (an event: kind, order, a, b)
                while (ev := pop_at(now, ENDS)) is not None:
                    if ev[0] == END:
                        if ev[2] == gen[ev[1]]:  # (else a stale end: the segment stopped)
                            complete(ev[1], now)
                    else:
                        release_nodes(ev[1], now)
                # 2. releases, arrivals, admissions (job order, roots merged in), messages
                while True:
                    order = order_at(now, DELIVERIES)  # (-1: none left at this instant)
                    if root_at == now and (order < 0 or roots[ri] < order):
                        deliver(roots[ri], now)
                        ri += 1
                        root_at = release_at[roots[ri]] if ri < nroots else _INF
                        continue
                    if order < 0:
                        break
                    kind, j, a, b = pop()
                    if kind == RELEASE:
                        deliver(j, now)
                    elif kind == ARRIVE:
                        self.arrive(j, a, now)
                    elif kind == ADMIT:
                        pool = self.pools[a]
                        pool.received -= 1
                        self.enter(pool, j, now)
                    else:
                        self._message(a, b)
                # 3. wake-ups
                while (ev := pop_at(now, WAKES)) is not None:
                    if ev[0] == WAKE_POOL:
                        self.mark_pool(ev[2])
                    else:
                        self._mark_actor(ev[2])
                # 4. actors, then 5. pools, that had an event, in index order
                if self._dirty_actors:
                    self._actors_pass(now)
                if self._dirty_pools:
                    marked = self._dirty_pools
                    self._dirty_pools = []
                    if len(marked) > 1:
                        marked.sort(key=_INDEX)
                    for pool in marked:
                        pool.dirty = False
                        step = pool.step
                        if step is None:
                            self._pool_pass(pool, now)
                            continue
                        # a `Steps` policy: not called when nothing can start
                        view = pool.view
                        free = view.free_procs = pool.free_total
                        ended = pool.ended
                        if ended:
                            pool.ended = []
                        elif not free:
                            continue
                        for local in step(now, free, len(pool.gids), ended):
                            start_local(pool, local, None, now)
                        view.free_procs = pool.free_total
                if (
                    not self._dirty_pools
                    and not self._dirty_actors
                    and root_at != now
                    and next_time() != now
                ):
                    break
            rounds_total += rounds
            if after_instant is not None:
                after_instant(now)
        return instants, rounds_total

    def _loop_parts(self) -> dict[str, Any]:
        """What the C loop is given (`engine.compiled_loop`): the state it works on, and the
        methods it calls for what it does not do itself."""
        life, decisions = self.life, self.decisions
        return {
            "events": self.events,
            "roots": self._roots,
            "table": self.jobs,
            "pools": self.pools,
            "clock": self.clock,
            "rigid": RIGID,
            "started": JobEvent.STARTED,
            "start_type": Start,
            "kill_on_overrun": bool(self.kill_on_overrun),
            "heard": bool(self.heard),
            "traced": self.tracer is not None,
            "max_rounds": int(self.max_rounds),
            "complete": life.complete,
            "release_nodes": life.release_nodes,
            "deliver": self._deliver_release,
            "arrive": self.arrive,
            "start_local": decisions.start_local,
            "notify": self.notify,
            "message": self._message,
            "mark_actor": self._mark_actor,
            "actors_pass": self._actors_pass,
            "by_pool": decisions.by_pool,
            "livelock": self._livelock,
            "after_instant": (
                self._after_instant if self.tracer is not None or self.observers else None
            ),
            "progress": self.progress,
        }

    def _actors_pass(self, now: float) -> None:
        """The actors that had an event this round decide, in index order."""
        decisions = self.decisions
        actor_kinds, unknown = decisions.actor_kinds, decisions.unknown_of_actor
        dirty = self._dirty_actors
        self._dirty_actors = []
        if len(dirty) > 1:
            dirty.sort()
        for a in dirty:
            self._actor_dirty[a] = False
            for decision in self.actors[a].schedule(now):
                actor_kinds.get(type(decision), unknown)(a, decision, now)

    def _pool_pass(self, pool: Pool, now: float) -> None:
        """A pool whose policy speaks the classic protocol schedules (``schedule``)."""
        decisions = self.decisions
        pool_kinds, unknown = decisions.pool_kinds, decisions.unknown_of_pool
        view = pool.view
        view.free_procs = pool.free_total
        for d in pool.policy.schedule(now, view):
            pool_kinds.get(type(d), unknown)(pool, d, now)
        view.free_procs = pool.free_total

    def _message(self, a: int, message: object) -> None:
        """A message reaches actor a: it hears it now and decides this round."""
        self.actors[a].on_message(message)
        self._mark_actor(a)

    def _after_instant(self, now: float) -> None:
        """The tracer and the observers read the state the instant left."""
        if self.tracer is not None:
            self.tracer.after_instant(now, self)
        for obs in self.observers:
            obs.after_step(now, self)

    def _livelock(self, now: float) -> NoReturn:
        raise PolicyError(
            f"livelock at t={now}: more than {self.max_rounds} rounds of zero-delay "
            "decisions in one instant (actors or policies keep answering each other without "
            "time passing)"
        )
