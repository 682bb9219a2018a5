"""Centralized push meta-schedulers (Caron et al., LIP RR-2005-13, sections 2 and 7; SPEC 5).

One actor receives every meta-job of the global stream and sends it at once to a queue
(a pool); the job description travels as a control message, so the dispatch takes the
target pool's ``message_time``. Jobs needing more processors than a pool has never go there.

* ``push`` (`CentralizedPush`): the least loaded queue according to an **information
  system** that holds each queue's depth: jobs waiting in it (admitted, not started) plus
  those received but not yet admitted (mu_rec); not those still in transit. With
  ``refresh`` (Δt, seconds) = 0 the depth is exact, read at each decision. With Δt > 0 the
  information is refreshed at k x Δt and **frozen** in between: the meta-scheduler does not
  update its copy after dispatching, so every meta-job arriving within one period goes to
  the same queue (Figure 8's plateau). The refresh is lazy: at an arrival at time t, if the
  copy is older than the last k x Δt <= t, a new one is read (the state at t, which is the
  state at k x Δt whenever nothing changed in between); no periodic event is ever made.
  Smallest depth first; ties to the lowest site, then the lowest queue (pool index)
  (``tie = "site"``, SPEC 5). ``tie = "free"`` breaks ties by the most free processors
  the information system knows of (then site, queue): what a grid admin ranking on the
  published free CPUs would do. At low load most depths are 0 and the rule decides where
  the jobs go (docs/reproductions.md, the paper's makespan).
* ``push_random``: a uniformly drawn queue (seeded from the context's seed).
* ``push_round_robin``: the queues in turn, in pool order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from heapq import heapify, heappop, heappush
from typing import Any, ClassVar

import numpy as np

from schedlab.engine.actors import Actor, BaseActor, JobEvent, PlatformView
from schedlab.engine.decisions import ActorDecision, Dispatch
from schedlab.errors import ConfigError, PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.registry import BaseMetaScheduler, register_meta_scheduler
from schedlab.validators import MAX_TIME, is_number

__all__ = [
    "CentralizedPush",
    "PushParams",
    "PushRandom",
    "PushRoundRobin",
]

# a job released at k x Δt minus a rounding error still belongs to period k
_EPOCH_EPS = 1e-9
# the shortest refresh period Δt > 0 (s): the period number of an instant (now / Δt, at most
# 1e15 / 1e-6) stays a finite float and an exact enough int
MIN_REFRESH = 1e-6


class _Dispatcher(BaseActor):
    """The one actor of a push meta-scheduler: every arrival is dispatched at once.

    Subclasses choose the pool (`_choose`); this class keeps the arrivals, the eligible
    pools of each size and the transfer delays.
    """

    name: ClassVar[str] = "push"
    listens: ClassVar[frozenset[JobEvent]] = frozenset()

    def __init__(self, context: GridContext) -> None:
        self.context = context
        self._arrived: list[int] = []
        self._platform: PlatformView | None = None
        self._eligible: dict[int, list[int]] = {}  # processors -> pools that can hold them
        self._index = -1

    def setup(self, index: int, platform: PlatformView) -> None:
        if len(platform.pools) != self.context.pools:
            raise PolicyError(
                f"meta-scheduler {self.name!r} was built for {self.context.pools} pools, the "
                f"platform has {len(platform.pools)}"
            )
        self._index = index
        self._platform = platform
        self._arrived = []
        self._eligible = {}

    def on_arrival(self, job: int) -> None:
        self._arrived.append(job)

    def _pools_for(self, job: int) -> list[int]:
        """Pools with at least the job's processors (cached per size)."""
        assert self._platform is not None
        procs = self._platform.procs[job]
        pools = self._eligible.get(procs)
        if pools is None:
            pools = [p.index for p in self._platform.pools if p.total >= procs]
            self._eligible[procs] = pools
        if not pools:
            largest = max(p.total for p in self._platform.pools)
            raise PolicyError(
                f"meta-scheduler {self.name!r}: job {job} needs {procs} processors, the "
                f"largest queue has {largest}"
            )
        return pools

    def _choose(self, job: int, pools: list[int], now: float) -> int:
        raise NotImplementedError

    def _dispatched(self, job: int, pool: int, delay: float) -> None:
        """Hook: the job was sent to ``pool`` with ``delay`` (the least-depth copy)."""

    def schedule(self, now: float) -> list[ActorDecision]:
        if not self._arrived:
            return []
        out: list[ActorDecision] = []
        delays = self.context.message_time
        for job in self._arrived:
            pool = self._choose(job, self._pools_for(job), now)
            delay = float(delays[pool])
            out.append(Dispatch(job, pool, delay))
            self._dispatched(job, pool, delay)
        self._arrived.clear()
        return out


class _LeastDepth(_Dispatcher):
    """The smallest depth per the information system (module docstring)."""

    name: ClassVar[str] = "push"

    def __init__(self, context: GridContext, refresh: float, tie: str = "site") -> None:
        super().__init__(context)
        self.refresh = refresh
        self.by_free = tie == "free"
        self._free_copy: list[int] = []
        self.refreshes: list[float] = []  # when a frozen copy was read (Δt > 0)
        self._copy: list[int] = []
        self._epoch = -1  # the k of the copy's period [k Δt, (k + 1) Δt)
        self._extra: list[int] = []  # Δt = 0: this pass's dispatches that arrive at once
        self._order: list[tuple[int, int]] = []  # (site, pool) of each pool: the tie rule
        self._ranked: list[int] = []  # Δt > 0: pools by the frozen copy's key (made lazily)
        self._best_of: dict[int, int] = {}  # Δt > 0: processors -> its pool, this period
        # Δt = 0: the exact keys in heaps (`_least`), updated from the kernel's log of the
        # pools whose counts changed instead of read from every pool
        self._log: list[int] | None = None
        self._moved: list[int] = []  # pools whose _extra changed since the last decision
        self._bumped: list[int] = []  # pools whose _extra is above 0 in this pass
        self._depth: list[int] = []  # each pool's depth as the heaps know it
        self._negfree: list[int] = []  # minus its free processors (tie = "free"; else 0)
        self._site: list[int] = []
        # per class: (depth, -free or 0, site, pool), the key of the minimum below
        self._heaps: list[list[tuple[int, int, int, int]]] = []
        self._members: list[list[int]] = []  # per class: its pools
        self._in_classes: list[list[int]] = []  # per pool: the classes holding it
        self._class_of: dict[int, int] = {}  # processors -> class of its eligible pools
        self._class_by_pools: dict[tuple[int, ...], int] = {}

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self.refreshes = []
        self._copy = []
        self._free_copy = []
        self._epoch = -1
        self._extra = [0] * len(platform.pools)
        sites = self.context.pool_sites
        self._order = [(sites[p], p) for p in range(len(platform.pools))]
        self._ranked = []
        self._best_of = {}
        self._log = None
        self._moved = []
        self._bumped = []
        self._heaps, self._members, self._class_of, self._class_by_pools = [], [], {}, {}
        if self.refresh == 0:
            self._log = platform.watch_pools()
            self._depth = self._depths()
            n = len(platform.pools)
            self._negfree = [-f for f in self._free()] if self.by_free else [0] * n
            self._site = [sites[p] for p in range(len(platform.pools))]
            self._in_classes = [[] for _ in platform.pools]

    def _key_of_copy(self, p: int) -> tuple[int, int, tuple[int, int]]:
        """The frozen copy's ranking of pool p: depth, then (tie = "free") most free
        processors, then site and queue."""
        free = -self._free_copy[p] if self.by_free else 0
        return (self._copy[p], free, self._order[p])

    def _depths(self) -> list[int]:
        assert self._platform is not None
        return [p.queued + p.received for p in self._platform.pools]

    def _choose(self, job: int, pools: list[int], now: float) -> int:
        if self.refresh > 0:
            epoch = math.floor(now / self.refresh + _EPOCH_EPS)
            if epoch > self._epoch:  # the copy predates the last k x Δt <= now
                self._copy = self._depths()
                if self.by_free:
                    self._free_copy = self._free()
                self._epoch = epoch
                self.refreshes.append(now)
                self._ranked = []
                self._best_of = {}
            # the copy is frozen for the period: rank the pools once, and answer each job
            # size once (the first ranked pool that holds it: the minimum over its pools,
            # every key being distinct), instead of a minimum over every pool per job
            procs = self._platform.procs[job]  # type: ignore[union-attr]
            best = self._best_of.get(procs)
            if best is None:
                if not self._ranked:
                    self._ranked = sorted(range(len(self._copy)), key=self._key_of_copy)
                eligible = set(pools)
                best = next(p for p in self._ranked if p in eligible)
                self._best_of[procs] = best
            return best
        return self._least(job, pools)  # Δt = 0: the exact information

    def _least(self, job: int, pools: list[int]) -> int:
        """The smallest exact depth among ``pools``, ties to the most free processors (tie =
        "free"), then the lowest site, then pool: the top of its class's heap (the classes:
        the distinct sets of eligible pools), once the pools whose counts changed since the
        last decision are pushed at their new key. Entries of an older key are dropped when
        they surface. The same choice as the minimum over ``pools``, in O(changes x log
        pools) instead of O(pools)."""
        log = self._log
        assert log is not None and self._platform is not None
        if log or self._moved:
            self._refresh_depths(log)
        procs = self._platform.procs[job]
        c = self._class_of.get(procs)
        if c is None:
            c = self._class_by_pools.get(tuple(pools))
            if c is None:
                c = len(self._heaps)
                self._class_by_pools[tuple(pools)] = c
                self._members.append(list(pools))
                self._heaps.append(self._heap_of(pools))
                for p in pools:
                    self._in_classes[p].append(c)
            self._class_of[procs] = c
        heap = self._heaps[c]
        depth, negfree = self._depth, self._negfree
        while True:
            d, f, _, p = heap[0]
            if d == depth[p] and f == negfree[p]:
                return p
            heappop(heap)

    def _heap_of(self, pools: list[int]) -> list[tuple[int, int, int, int]]:
        depth, negfree, site = self._depth, self._negfree, self._site
        heap = [(depth[p], negfree[p], site[p], p) for p in pools]
        heapify(heap)
        return heap

    def _refresh_depths(self, log: list[int]) -> None:
        """Push the pools of the kernel's log and of this pass's dispatches at their key."""
        assert self._platform is not None
        states = self._platform.pools
        depth, negfree, site, extra = self._depth, self._negfree, self._site, self._extra
        by_free = self.by_free
        heaps, in_classes = self._heaps, self._in_classes
        changed = set(log)
        changed.update(self._moved)
        log.clear()
        self._moved.clear()
        for p in changed:
            state = states[p]
            d = state.queued + state.received + extra[p]
            f = -state.free_total if by_free else 0
            if d == depth[p] and f == negfree[p]:
                continue
            depth[p] = d
            negfree[p] = f
            entry = (d, f, site[p], p)
            for c in in_classes[p]:
                heap = heaps[c]
                heappush(heap, entry)
                if len(heap) > 4 * len(self._members[c]) + 64:  # mostly stale: rebuild
                    heaps[c] = self._heap_of(self._members[c])

    def _free(self) -> list[int]:
        """Free processors per pool, as the information system reads them."""
        assert self._platform is not None
        return [p.free_total for p in self._platform.pools]

    def _dispatched(self, job: int, pool: int, delay: float) -> None:
        # with no transfer delay the job reaches its queue within this very pass: the exact
        # information (Δt = 0) counts it for the next arrivals of this instant; a frozen copy
        # is never updated
        if self.refresh == 0 and delay == 0:
            self._extra[pool] += 1
            self._moved.append(pool)
            self._bumped.append(pool)

    def schedule(self, now: float) -> list[ActorDecision]:
        out = super().schedule(now)
        if self.refresh == 0:
            for p in self._bumped:
                self._extra[p] = 0
            self._moved.extend(self._bumped)  # (re-read at the next decision)
            self._bumped.clear()
        return out


class _Random(_Dispatcher):
    name: ClassVar[str] = "push_random"

    def __init__(self, context: GridContext) -> None:
        super().__init__(context)
        self._rng = np.random.default_rng(context.seed)

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self._rng = np.random.default_rng(self.context.seed)

    def _choose(self, job: int, pools: list[int], now: float) -> int:
        return pools[int(self._rng.integers(len(pools)))]


class _RoundRobin(_Dispatcher):
    name: ClassVar[str] = "push_round_robin"

    def __init__(self, context: GridContext) -> None:
        super().__init__(context)
        self._next = 0

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self._next = 0

    def _choose(self, job: int, pools: list[int], now: float) -> int:
        """The first eligible pool at or after the turn's position (cyclic)."""
        n = self.context.pools
        start = self._next
        pool = min(pools, key=lambda p: (p - start) % n)
        self._next = (pool + 1) % n
        return pool


# -- the registered meta-schedulers ---------------------------------------------------------


@dataclass(frozen=True)
class PushParams:
    """``refresh``: Δt, the period of the information system in seconds (0: always exact);
    ``tie``: among equal depths, the lowest site ("site", SPEC 5) or the most free
    processors ("free")."""

    refresh: float = 0.0
    tie: str = "site"

    def __post_init__(self) -> None:
        refresh = self.refresh
        if not (is_number(refresh) and (refresh == 0 or MIN_REFRESH <= refresh <= MAX_TIME)):
            raise ConfigError(
                "push parameter refresh",
                refresh,
                f"seconds >= 0 (0: exact), else in [{MIN_REFRESH:g}, {MAX_TIME:g}]",
            )
        if self.tie not in ("site", "free"):
            raise ConfigError("push parameter tie", self.tie, "site, free")


@dataclass(frozen=True)
class NoParams:
    """No parameters."""


class _PushBase(BaseMetaScheduler):
    """What the push meta-schedulers share: one actor (``_actor_class``), nothing counted."""

    Params: ClassVar[type] = NoParams
    _actor_class: ClassVar[type[_Dispatcher]]

    def __init__(self, params: Any = None) -> None:
        self.params = params or self.Params()
        self.actor: _Dispatcher | None = None

    def _build(self, context: GridContext) -> _Dispatcher:
        return self._actor_class(context)

    def actors(self, context: GridContext) -> list[Actor]:
        self.actor = self._build(context)
        return [self.actor]


@register_meta_scheduler
class CentralizedPush(_PushBase):
    """Least known depth through a periodically refreshed information system."""

    name: ClassVar[str] = "push"
    Params: ClassVar[type] = PushParams

    def _build(self, context: GridContext) -> _Dispatcher:
        return _LeastDepth(context, float(self.params.refresh), self.params.tie)


@register_meta_scheduler
class PushRandom(_PushBase):
    """A uniformly drawn queue among those large enough (seeded by the context)."""

    name: ClassVar[str] = "push_random"
    _actor_class = _Random


@register_meta_scheduler
class PushRoundRobin(_PushBase):
    """The queues in turn (pool order), skipping those too small for the job."""

    name: ClassVar[str] = "push_round_robin"
    _actor_class = _RoundRobin
