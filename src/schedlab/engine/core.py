"""The state every part of a kernel run shares (`KernelCore`): the jobs, the pools and
actors, the event queue, who has to schedule this round, and the deliveries of jobs.

The kernel's loop (`engine.kernel.Kernel`), the decisions it applies (`engine.apply`) and the
life of its jobs (`engine.lifecycle`) all work on this state; it imports none of them.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from schedlab.engine.actors import Actor, JobEvent, listened_events
from schedlab.engine.events import ADMIT, DELIVERIES, RELEASED, TRANSIT
from schedlab.engine.jobs import JobSpecs, JobTable
from schedlab.engine.pools import Clock, Pool
from schedlab.engine.protocol import Policy
from schedlab.engine.queue import EventQueue
from schedlab.errors import ConfigError, PolicyError
from schedlab.platform.pool import PoolSpec

__all__ = ["MAX_ROUNDS", "KernelCore"]

MAX_ROUNDS = 1000


class KernelCore:
    """A kernel run's shared state and plumbing (module docstring).

    ``pools``: specs with their policy instances (same order: the pool index);
    ``actors``: actor instances (their index is their address). ``observers`` read the
    state after every instant (``after_step(now, kernel)``, ``finish(kernel)``);
    ``tracer`` (the invariant checker) is told of every run segment and node change.
    Actors read it as an `engine.actors.PlatformView`: ``now``, ``pools`` and the per-job
    columns of `jobs` it names (``procs``, ``state``, ``where``...).
    """

    # the state the compiled loop (`engine/_ckernel.c`) reads and writes at every instant:
    # slots, so that it reaches them at a fixed offset, as Python's own attribute access does
    __slots__ = (
        "now",
        "running",
        "done",
        "released",
        "_dirty_pools",
        "_dirty_actors",
        "__dict__",
        "__weakref__",
    )

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
        self.n = len(jobs)
        self.kill_on_overrun = kill_on_overrun
        self.observers = list(observers)
        self.tracer = tracer
        self.progress = progress
        self.max_rounds = max_rounds
        self.actors = list(actors)
        self.clock = Clock()  # what every pool's view reads as ``now``
        self.pools = [
            Pool(i, spec, policy, kill_on_overrun, self.clock)
            for i, (spec, policy) in enumerate(pools)
        ]
        # a pool whose policy is not a `Steps` one may suspend, evict or cancel its jobs
        table = self.jobs = JobTable(jobs, preemptive=any(p.step is None for p in self.pools))
        for p in self.pools:
            p.track_attributes(table.attributes)
        # what actors and observers read (engine.actors.PlatformView), by global id: the
        # table's own columns, which grow in place as jobs are spawned
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
        self._owner = table.owner  # (read at every job event)
        self._host = table.host
        self.now = 0.0
        roots = np.flatnonzero(np.frombuffer(table.parent, dtype=np.int64) < 0)
        _check_root_order(np.frombuffer(table.release_at, dtype=np.float64), roots)
        # the jobs released at their submit time, in id order (most runs: all of them)
        self._roots: Sequence[int] = (
            range(self.n) if len(roots) == self.n else array("q", roots.tolist())
        )
        # jobs still to be released to each actor (an agent stops asking when none is left)
        self.unreleased = [0] * len(self.actors)
        for a in table.target_actor:
            if 0 <= a < len(self.actors):
                self.unreleased[a] += 1
        self.spawned = 0
        self.running = 0
        self.done = 0
        self.released = 0
        # every event in flight (`engine.queue`): an event of kind k is pushed at the rank
        # ``RANK[k]`` (passed by its caller: the hot path looks nothing up); a wake-up's and a
        # message's order is the count of pushes when it was asked (``events.seq``)
        self.events = EventQueue()
        self._dirty_pools: list[Pool] = []  # (each with ``dirty`` set: `mark`)
        self._dirty_actors: list[int] = []
        self._actor_dirty = [False] * len(self.actors)
        self._watchers: list[list[int]] = [[] for _ in self.pools]  # pool -> actors
        self._listens = [listened_events(actor) for actor in self.actors]
        # False when no actor hears any job event: `notify` has nothing to do (a cluster, push)
        self.heard = any(any(events) for events in self._listens)

    def close(self) -> None:
        """Drop the run's state once its outcome and reports are taken. The kernel, its parts
        (`Lifecycle`, `Decisions`) and its actors refer to each other, so the per-job table
        would otherwise outlive the run until the cyclic collector's next pass, through the
        metrics (and raise a large grid's peak memory). The outcome's arrays stay valid: they
        keep the typed columns they were read from (`engine.kernel.Kernel.close` empties
        the parts as well)."""
        self.__dict__.clear()

    def watch_pools(self) -> list[int]:
        """A new list to which the kernel appends a pool's index whenever its queued,
        received or free count (`PoolState`) changes: an actor that ranks pools by depth or
        free processors reads only those since its last decision (and clears the list), not
        every pool."""
        log: list[int] = []
        for pool in self.pools:
            pool.change_logs = (*pool.change_logs, log)
        return log

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
    def attributes(self) -> dict[str, array[float]]:
        """Per-job attributes by global id (spawned jobs: NaN), for actors."""
        return self.jobs.attributes

    # -- bookkeeping helpers ------------------------------------------------------------
    def mark_pool(self, i: int) -> None:
        """Pool i schedules in the next round of this instant."""
        self.mark(self.pools[i])

    def mark(self, pool: Pool) -> None:
        """``pool`` schedules in the next round of this instant (once, however often told)."""
        if not pool.dirty:
            pool.dirty = True
            self._dirty_pools.append(pool)

    def enter(self, pool: Pool, j: int, now: float) -> None:
        """Job j enters ``pool``'s queue now (`Pool.admit`); the pool schedules this round."""
        pool.admit(j, self.jobs, now)
        self.mark(pool)

    def _mark_actor(self, a: int) -> None:
        if not self._actor_dirty[a]:
            self._actor_dirty[a] = True
            self._dirty_actors.append(a)

    def notify(self, j: int, event: JobEvent) -> None:
        """Tell job j's owner, and every actor watching its pool, of ``event``."""
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
        t = self.jobs
        self.submitted_at[j] = now
        self.released += 1
        actor = t.target_actor[j]
        if actor >= 0:
            self.unreleased[actor] -= 1
            self.state[j] = RELEASED
            t.holder[j] = actor
            self.actors[actor].on_arrival(j)
            self._mark_actor(actor)
            return
        p = t.target_pool[j]
        pool = self.pools[p]
        if pool.mu_rec > 0:
            self.state[j] = TRANSIT
            self.arrive(j, p, now)
        else:  # (`arrive`, inlined: every job of a cluster run comes this way)
            self.where[j] = p
            self.enter(pool, j, now)

    def arrive(self, j: int, p: int, now: float) -> None:
        """Job j reaches pool p; its policy sees it after the receive delay."""
        pool = self.pools[p]
        self.where[j] = p
        if pool.mu_rec > 0:
            pool.received += 1
            for log in pool.change_logs:
                log.append(p)
            delay = pool.mu_rec if pool.rec is None else pool.rec.sample(pool.service_rng)
            self.events.push(now + delay, DELIVERIES, j, ADMIT, p)
        else:
            self.enter(pool, j, now)


def _check_root_order(release_at: np.ndarray, roots: np.ndarray) -> None:
    """The loops stream roots in id order: their release times must not decrease (nor be
    NaN), or time would run backwards. ConfigError naming the first pair out of order."""
    times = release_at[roots]
    bad = np.flatnonzero(~(times[1:] >= times[:-1]))
    if bad.size:
        a, b = int(roots[bad[0]]), int(roots[bad[0] + 1])
        raise ConfigError(
            "JobSpecs.release_at",
            f"job {b} at {float(release_at[b])!r} after job {a} at {float(release_at[a])!r}",
            "release times of the jobs without a parent in id order (non-decreasing)",
        )
