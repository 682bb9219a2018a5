"""Dispatchers of Baranov and Tikhomirov (Computational Technologies 2017; SPEC 6): where a
global job runs, across clusters.

Each cluster's dispatcher receives the global jobs entering at it (attribute ``origin``) and
polls its peers at decision time: it reads their exact state and pays one control message from
its site to the chosen one as extra delay on the dispatch, on top of moving the job's input
(and, after an eviction, its checkpoint) from where the data are. The kernel gives every global
job to one actor, which runs all the dispatchers: since each reads the same exact state, they
act as one global queue ordered by priority (descending), then arrival; each job keeps its
origin's network view (docs/model.md, "Dispatchers across clusters").

``tdcs`` (the paper's algorithm). On every arrival, completion (any cluster), start, and
eviction or end of a global job (a horizon decrement) the queue is scanned in order; for
each job the **candidates** are the clusters that can hold it, under their planning
horizon H (global jobs dispatched there and not ended or evicted, in transit included;
None or 0: unlimited) and passing ``candidate_rule``:

* "queue" (default): every job waiting there or in transit to it has a strictly lower
  priority;
* "queue_and_running": the same over waiting, in-transit and running jobs;
* "fits_by_preemption": free processors plus those of strictly lower-priority running jobs
  are enough (less those of higher-or-equal jobs this dispatcher has in transit there).

Among the candidates it takes the smallest T_transfer + T_local_queue + T_run: T_transfer
the dispatch delay; T_run = requested time x reference speed (1) / the cluster's speed (its
slowest node power); T_local_queue = 0 if the job fits now, possibly by preemption (as in
"fits_by_preemption"), else the time until enough processors are free or held by
lower-priority work, given the requested ends of the higher-or-equal running jobs (last
start + requested time / node power: an upper bound). Ties: faster cluster, then lowest
index. A job with no candidate stays queued; the scan goes on with the next.

Baselines dispatch at once on arrival (and eviction), among the clusters that can hold the
job: ``round_robin`` (in turn), ``least_loaded`` (smallest (waiting + running processors) /
processors, waiting including jobs in transit; ties to the lowest index), ``random``
(uniform, seeded by the run's seed).

Ablations (issue 25: which of ``tdcs``'s ingredients gives its gain; docs/reproductions.md,
"Post-hoc analyses"): ``least_loaded_speed``, a baseline, the least (waiting + running
processors) / (processors x speed), ties to the faster; and ``tdcs`` with one ingredient
changed, each keeping the global queue and the horizon: ``tdcs_no_candidate_rule`` (every
cluster under its horizon is a candidate), ``tdcs_speed_blind`` (T_run = the requested time
everywhere, ties to the lowest index) and ``tdcs_step6_literal`` (the paper's step 6 word
for word: the "queue" rule, then the least data transfer time, ties to the faster).
"""

from __future__ import annotations

import math
from bisect import insort
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from schedlab.engine.actors import Actor, JobEvent, PlatformView
from schedlab.engine.decisions import ActorDecision, Dispatch
from schedlab.engine.events import JobState
from schedlab.errors import ConfigError, PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.registry import register_meta_scheduler
from schedlab.platform.network import Network
from schedlab.schedulers.pps import DEFAULT_CHECKPOINT_OVERHEAD, MAX_CHECKPOINT_OVERHEAD
from schedlab.validators import check_int, check_number, check_seconds

__all__ = [
    "CANDIDATE_RULES",
    "CONFIGURATIONS",
    "DEFAULT_CHECKPOINT_OVERHEAD",
    "MAX_CHECKPOINT_FACTOR",
    "PREEMPTION",
    "BaselineParams",
    "local_manager",
    "LeastLoaded",
    "LeastLoadedSpeed",
    "RandomDispatch",
    "RoundRobin",
    "Tdcs",
    "TdcsNoCandidateRule",
    "TdcsParams",
    "TdcsSpeedBlind",
    "TdcsStep6Literal",
    "TdcsVariantParams",
]

CANDIDATE_RULES = ("queue", "queue_and_running", "fits_by_preemption")
# A checkpoint moved after an eviction weighs at most this times the job's input: beyond,
# transfers of the generated inputs (up to 10 GB) would outlast any simulated clock.
MAX_CHECKPOINT_FACTOR = 1000.0
_DONE = int(JobState.DONE)
_RUNNING = int(JobState.RUNNING)
_INF = math.inf


class _Snapshot:
    """What a dispatcher reads of one cluster at one decision (exact state)."""

    __slots__ = ("waiting_max", "running_max", "waiting_procs", "running", "transit")

    def __init__(self) -> None:
        self.waiting_max = -_INF  # highest priority waiting or in transit there
        self.running_max = -_INF
        self.waiting_procs = 0
        self.running: list[tuple[float, int, float]] = []  # (priority, procs, requested end)
        self.transit: list[tuple[float, int]] = []  # our jobs on the way: (priority, procs)


class _Dispatchers:
    """The one kernel actor running every cluster's dispatcher (module docstring)."""

    name: ClassVar[str] = "tdcs"
    listens: ClassVar[frozenset[JobEvent]] = frozenset({JobEvent.EVICTED})
    watches: tuple[int, ...] = ()

    def __init__(self, context: GridContext, network: Network, checkpoint_factor: float) -> None:
        self.context = context
        self.network = network
        self.checkpoint_factor = checkpoint_factor
        self.queue_time: list[float] = []
        self.transfer_time: list[float] = []
        self.dispatches = 0

    # -- setup and bookkeeping ---------------------------------------------------------------
    def setup(self, index: int, platform: PlatformView) -> None:
        pools = platform.pools
        if len(pools) != self.context.pools:
            raise PolicyError(
                f"dispatcher {self.name!r} was built for {self.context.pools} pools, the "
                f"platform has {len(pools)}"
            )
        self._p = platform
        n = len(platform.procs)
        attrs = platform.attributes
        self._prio = list(attrs.get("priority", [0.0] * n))
        self._origin = [int(o) for o in attrs.get("origin", [0.0] * n)]
        self._input = list(attrs.get("input_size", [0.0] * n))
        stream = attrs.get("stream", [-1.0] * n)
        self._site = list(self.context.pool_sites)
        self._speed = [min(p.powers) for p in pools]
        self._locals: list[list[int]] = [[] for _ in pools]
        for j, s in enumerate(stream):
            if s >= 0:
                self._locals[int(s)].append(j)
        self._next_local = [0] * len(pools)
        self._in: list[dict[int, None]] = [{} for _ in pools]  # jobs maybe at each pool
        self._eligible: dict[int, list[int]] = {}
        self._at = [-1] * n  # pool our job was dispatched to (until it ends or is evicted)
        self._data = list(self._origin)  # site holding the job's data
        self._evicted = [False] * n
        self._count = [0] * len(pools)  # horizon: our jobs there, not ended or evicted
        self._started = [math.nan] * n  # last (re)start, heard through watches
        self._queue: list[tuple[float, int]] = []  # (-priority, job): the global queue
        self._since = [0.0] * n
        self.queue_time = [0.0] * n
        self.transfer_time = [0.0] * n
        self.dispatches = 0
        self._new: list[int] = []

    def on_arrival(self, job: int) -> None:
        if self._origin[job] >= self.network.sites:
            raise PolicyError(
                f"dispatcher {self.name!r}: job {job} enters at site {self._origin[job]}, the "
                f"platform has {self.network.sites}"
            )
        self._enqueue(job)

    def on_message(self, message: object) -> None:
        pass

    def on_job_event(self, job: int, event: JobEvent) -> None:
        if event is JobEvent.STARTED:
            self._started[job] = self._p.now
            return
        at = self._at[job]
        if at < 0:  # not ours (watched), or already counted
            return
        if event is JobEvent.EVICTED:
            self._evicted[job] = True
            self._data[job] = self._site[at]
            self._leave(job)
            self._enqueue(job)
        elif event in (JobEvent.ENDED, JobEvent.KILLED):
            self._leave(job)

    def _leave(self, job: int) -> None:
        self._count[self._at[job]] -= 1
        self._at[job] = -1

    def _enqueue(self, job: int) -> None:
        self._since[job] = self._p.now
        self._new.append(job)

    # -- reading the clusters --------------------------------------------------------------
    def _snapshots(self) -> list[_Snapshot]:
        """Each cluster's waiting/running jobs by priority, from the exact state."""
        p = self._p
        state, where, prio, procs = p.state, p.where, self._prio, p.procs
        req, power, alloc = p.requested_time, p.node_power, p.alloc_procs
        out = []
        for c in range(len(self._in)):
            local, nxt = self._locals[c], self._next_local[c]
            while nxt < len(local) and state[local[nxt]] != int(JobState.PENDING):
                self._in[c][local[nxt]] = None
                nxt += 1
            self._next_local[c] = nxt
            snap = _Snapshot()
            keep: dict[int, None] = {}
            for j in self._in[c]:
                st = state[j]
                if st == _DONE:
                    continue
                if where[j] != c:
                    if self._at[j] != c:
                        continue  # evicted: it left
                    snap.transit.append((prio[j], procs[j]))
                    snap.waiting_max = max(snap.waiting_max, prio[j])
                    snap.waiting_procs += procs[j]
                elif st == _RUNNING:
                    end = self._started[j] + req[j] / power[j]
                    snap.running.append((prio[j], alloc[j], end))
                    snap.running_max = max(snap.running_max, prio[j])
                else:
                    snap.waiting_max = max(snap.waiting_max, prio[j])
                    snap.waiting_procs += procs[j]
                keep[j] = None
            self._in[c] = keep
            out.append(snap)
        return out

    def _delay(self, job: int, c: int) -> float:
        """Control message from the job's origin plus its data's transfer to pool c."""
        site = self._site[c]
        return self.network.message_time(self._origin[job], site) + self.data_transfer_time(job, c)

    def data_transfer_time(self, job: int, c: int) -> float:
        """Seconds to move the job's input (and checkpoint, after an eviction) to pool c."""
        nbytes = self._input[job] * (1.0 + (self.checkpoint_factor if self._evicted[job] else 0))
        return self.network.transfer_time(self._data[job], self._site[c], nbytes)

    def _fits(self, job: int) -> list[int]:
        q = self._p.procs[job]
        pools = self._eligible.get(q)
        if pools is None:
            pools = self._eligible[q] = [p.index for p in self._p.pools if p.total >= q]
        if not pools:
            raise PolicyError(
                f"dispatcher {self.name!r}: job {job} needs {q} processors, the largest "
                f"cluster has {max(p.total for p in self._p.pools)}"
            )
        return pools

    def _dispatch(self, job: int, c: int, snaps: list[_Snapshot]) -> Dispatch:
        delay = self._delay(job, c)
        now = self._p.now
        self.queue_time[job] += now - self._since[job]
        self.transfer_time[job] += delay
        self._at[job] = c
        self._count[c] += 1
        self._in[c][job] = None
        self.dispatches += 1
        snap = snaps[c]
        pr, q = self._prio[job], self._p.procs[job]
        snap.transit.append((pr, q))
        snap.waiting_max = max(snap.waiting_max, pr)
        snap.waiting_procs += q
        return Dispatch(job, c, delay)

    def schedule(self, now: float) -> list[ActorDecision]:
        raise NotImplementedError


class _TdcsActor(_Dispatchers):
    """The paper's dispatcher (module docstring)."""

    name: ClassVar[str] = "tdcs"
    listens: ClassVar[frozenset[JobEvent]] = frozenset(JobEvent) - {JobEvent.SPAWNED}

    def __init__(
        self,
        context: GridContext,
        network: Network,
        checkpoint_factor: float,
        rule: str,
        horizon: int,
    ) -> None:
        super().__init__(context, network, checkpoint_factor)
        self.rule = rule
        self.horizon = horizon
        self.watches = tuple(range(context.pools))

    def _enqueue(self, job: int) -> None:
        self._since[job] = self._p.now
        insort(self._queue, (-self._prio[job], job))

    def local_queue_time(self, job: int, c: int, snap: _Snapshot) -> float:
        """T_local_queue (module docstring): 0 if it fits now, possibly by preemption."""
        pr, q = self._prio[job], self._p.procs[job]
        avail = self._p.pools[c].free_total
        higher = []
        for rp, rq, end in snap.running:
            if rp < pr:
                avail += rq
            else:
                higher.append((end, rq))
        for tp, tq in snap.transit:
            if tp >= pr:
                avail -= tq
        if avail >= q:
            return 0.0
        higher.sort()
        now = self._p.now
        ready = now
        for ready, rq in higher:  # noqa: B007 (the end at which it fits is kept)
            avail += rq
            if avail >= q:
                break
        return max(ready - now, 0.0)

    def _candidate(self, job: int, c: int, snap: _Snapshot) -> bool:
        if self.horizon and self._count[c] >= self.horizon:
            return False
        pr = self._prio[job]
        if self.rule == "queue":
            return snap.waiting_max < pr
        if self.rule == "queue_and_running":
            return snap.waiting_max < pr and snap.running_max < pr
        return self.local_queue_time(job, c, snap) == 0.0

    def estimate(self, job: int, c: int, snap: _Snapshot) -> float:
        """T_transfer + T_local_queue + T_run of ``job`` on pool ``c``."""
        t_run = self._p.requested_time[job] / self._speed[c]
        return self._delay(job, c) + self.local_queue_time(job, c, snap) + t_run

    def rank(self, job: int, c: int, snap: _Snapshot) -> tuple[float, float, int]:
        """The smallest rank among the candidates wins: the estimate, then the faster
        cluster, then the lowest index."""
        return (self.estimate(job, c, snap), -self._speed[c], c)

    def schedule(self, now: float) -> list[ActorDecision]:
        if not self._queue:
            return []
        snaps = self._snapshots()
        out: list[ActorDecision] = []
        left: list[tuple[float, int]] = []
        for key in self._queue:
            job = key[1]
            best = None
            for c in self._fits(job):
                if not self._candidate(job, c, snaps[c]):
                    continue
                rank = self.rank(job, c, snaps[c])
                if best is None or rank < best:
                    best = rank
            if best is None:
                left.append(key)
            else:
                out.append(self._dispatch(job, best[2], snaps))
        self._queue = left
        return out


class _NoCandidateRuleActor(_TdcsActor):
    """``tdcs_no_candidate_rule``: every cluster that can hold the job and is under its
    horizon is a candidate, whatever waits there; the rest is ``tdcs`` (module docstring)."""

    name: ClassVar[str] = "tdcs_no_candidate_rule"

    def _candidate(self, job: int, c: int, snap: _Snapshot) -> bool:
        return not (self.horizon and self._count[c] >= self.horizon)


class _SpeedBlindActor(_TdcsActor):
    """``tdcs_speed_blind``: ``tdcs`` as if every cluster ran at the reference speed: T_run
    = the requested time everywhere, and ties go to the lowest index (not the faster)."""

    name: ClassVar[str] = "tdcs_speed_blind"

    def rank(self, job: int, c: int, snap: _Snapshot) -> tuple[float, float, int]:
        t_run = self._p.requested_time[job]
        return (self._delay(job, c) + self.local_queue_time(job, c, snap) + t_run, 0.0, c)


class _Step6LiteralActor(_TdcsActor):
    """``tdcs_step6_literal``: the paper's step 6 read word for word. Candidates as
    ``tdcs`` under the "queue" rule; among them the least time to move the job's data
    there (input, and checkpoint after an eviction; no control message, no local queue,
    no run time), ties to the faster cluster, then the lowest index."""

    name: ClassVar[str] = "tdcs_step6_literal"

    def rank(self, job: int, c: int, snap: _Snapshot) -> tuple[float, float, int]:
        return (self.data_transfer_time(job, c), -self._speed[c], c)


class _Immediate(_Dispatchers):
    """A baseline: every arrival (or evicted job) is dispatched at once."""

    def __init__(self, context: GridContext, network: Network, checkpoint_factor: float) -> None:
        super().__init__(context, network, checkpoint_factor)

    def _choose(self, job: int, pools: list[int], snaps: list[_Snapshot]) -> int:
        raise NotImplementedError

    def schedule(self, now: float) -> list[ActorDecision]:
        if not self._new:
            return []
        snaps = self._snapshots()
        out: list[ActorDecision] = []
        for job in self._new:
            out.append(self._dispatch(job, self._choose(job, self._fits(job), snaps), snaps))
        self._new = []
        return out


class _RoundRobinActor(_Immediate):
    name: ClassVar[str] = "round_robin"

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self._turn = 0

    def _choose(self, job: int, pools: list[int], snaps: list[_Snapshot]) -> int:
        n = len(self._in)
        c = min(pools, key=lambda p: (p - self._turn) % n)
        self._turn = (c + 1) % n
        return c


class _LeastLoadedActor(_Immediate):
    name: ClassVar[str] = "least_loaded"

    def _choose(self, job: int, pools: list[int], snaps: list[_Snapshot]) -> int:
        view = self._p.pools

        def load(c: int) -> tuple[float, int]:
            running = view[c].total - view[c].free_total
            return ((snaps[c].waiting_procs + running) / view[c].total, c)

        return min(pools, key=load)


class _LeastLoadedSpeedActor(_Immediate):
    """``least_loaded_speed``: the least (waiting + running processors) / (processors x
    speed), the load measured against the cluster's capacity in work units per second;
    ties to the faster cluster, then the lowest index. Priority-blind like
    ``least_loaded``: the one thing it adds is the clusters' speeds."""

    name: ClassVar[str] = "least_loaded_speed"

    def _choose(self, job: int, pools: list[int], snaps: list[_Snapshot]) -> int:
        view, speed = self._p.pools, self._speed

        def load(c: int) -> tuple[float, float, int]:
            running = view[c].total - view[c].free_total
            return ((snaps[c].waiting_procs + running) / (view[c].total * speed[c]), -speed[c], c)

        return min(pools, key=load)


class _RandomActor(_Immediate):
    name: ClassVar[str] = "random"

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self._rng = np.random.default_rng(self.context.seed)

    def _choose(self, job: int, pools: list[int], snaps: list[_Snapshot]) -> int:
        return pools[int(self._rng.integers(len(pools)))]


# -- the registered meta-schedulers -----------------------------------------------------------


@dataclass(frozen=True)
class TdcsParams:
    """``candidate_rule``: "queue" (default), "queue_and_running" or "fits_by_preemption";
    ``horizon``: H, global jobs a cluster may hold (dispatched, not ended or evicted); 0 or
    None: unlimited. ``checkpoint_factor``: a checkpoint moved after an eviction weighs this
    times the job's input."""

    candidate_rule: str = "queue"
    horizon: int | None = None
    checkpoint_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.candidate_rule not in CANDIDATE_RULES:
            raise ConfigError("tdcs parameter candidate_rule", self.candidate_rule, CANDIDATE_RULES)
        h = self.horizon
        if h is not None:
            check_int("tdcs parameter horizon", h, allowed="an integer >= 1, or 0/None: unlimited")
        check_number(
            "tdcs parameter checkpoint_factor",
            self.checkpoint_factor,
            low=0,
            high=MAX_CHECKPOINT_FACTOR,
        )


@dataclass(frozen=True)
class TdcsVariantParams:
    """The ablations of ``tdcs`` (``tdcs_no_candidate_rule``, ``tdcs_speed_blind``,
    ``tdcs_step6_literal``): ``horizon`` and ``checkpoint_factor`` as for ``tdcs``; the
    candidate rule is fixed by the variant (none, or "queue")."""

    horizon: int | None = None
    checkpoint_factor: float = 1.0

    def __post_init__(self) -> None:
        if self.horizon is not None:
            check_int(
                "dispatcher parameter horizon",
                self.horizon,
                allowed="an integer >= 1, or 0/None: unlimited",
            )
        check_number(
            "dispatcher parameter checkpoint_factor",
            self.checkpoint_factor,
            low=0,
            high=MAX_CHECKPOINT_FACTOR,
        )


@dataclass(frozen=True)
class BaselineParams:
    """``checkpoint_factor``: a checkpoint moved after an eviction weighs this times the
    job's input."""

    checkpoint_factor: float = 1.0

    def __post_init__(self) -> None:
        check_number(
            "dispatcher parameter checkpoint_factor",
            self.checkpoint_factor,
            low=0,
            high=MAX_CHECKPOINT_FACTOR,
        )


class _Base:
    """What every dispatcher here shares: the actor it builds (on the platform's network,
    `GridContext.network`) and its records."""

    name: ClassVar[str] = ""
    params: TdcsParams | TdcsVariantParams | BaselineParams

    def __init__(self) -> None:
        self.actor: _Dispatchers | None = None

    def counters(self) -> dict[str, int]:
        return {"dispatches": self.actor.dispatches if self.actor else 0}

    def request_times(self) -> dict[str, list[float]]:
        return {}

    def records(self) -> dict[str, Any]:
        """Per job (global id): seconds in the global queue and in transfers."""
        a = self.actor
        return {"queue_time": a.queue_time, "transfer_time": a.transfer_time} if a else {}


@register_meta_scheduler
class Tdcs(_Base):
    """The paper's dispatcher: priority-ordered global queue, candidates, min estimated time."""

    name: ClassVar[str] = "tdcs"
    Params: ClassVar[type] = TdcsParams
    params: TdcsParams

    def __init__(self, params: TdcsParams | None = None) -> None:
        super().__init__()
        self.params = params or TdcsParams()

    def actors(self, context: GridContext) -> list[Actor]:
        p = self.params
        actor = _TdcsActor(
            context, context.links, p.checkpoint_factor, p.candidate_rule, p.horizon or 0
        )
        self.actor = actor
        return [actor]


class _TdcsVariant(_Base):
    """An ablation of ``tdcs``: its actor with one ingredient changed (`actor_class`)."""

    Params: ClassVar[type] = TdcsVariantParams
    params: TdcsVariantParams
    actor_class: ClassVar[type[_TdcsActor]] = _TdcsActor

    def __init__(self, params: TdcsVariantParams | None = None) -> None:
        super().__init__()
        self.params = params or TdcsVariantParams()

    def actors(self, context: GridContext) -> list[Actor]:
        p = self.params
        actor = self.actor_class(
            context, context.links, p.checkpoint_factor, "queue", p.horizon or 0
        )
        self.actor = actor
        return [actor]


@register_meta_scheduler
class TdcsNoCandidateRule(_TdcsVariant):
    """Ablation: ``tdcs`` without its candidate rule (every cluster under the horizon)."""

    name: ClassVar[str] = "tdcs_no_candidate_rule"
    actor_class: ClassVar[type[_TdcsActor]] = _NoCandidateRuleActor


@register_meta_scheduler
class TdcsSpeedBlind(_TdcsVariant):
    """Ablation: ``tdcs`` with T_run = the requested time on every cluster (no speeds)."""

    name: ClassVar[str] = "tdcs_speed_blind"
    actor_class: ClassVar[type[_TdcsActor]] = _SpeedBlindActor


@register_meta_scheduler
class TdcsStep6Literal(_TdcsVariant):
    """Ablation: the paper's step 6 word for word (least data transfer time, ties faster)."""

    name: ClassVar[str] = "tdcs_step6_literal"
    actor_class: ClassVar[type[_TdcsActor]] = _Step6LiteralActor


def _baseline(cls_name: str, actor_cls: type[_Immediate], doc: str) -> type[_Base]:
    def __init__(self: Any, params: BaselineParams | None = None) -> None:
        _Base.__init__(self)
        self.params = params or BaselineParams()

    def actors(self: Any, context: GridContext) -> list[Actor]:
        actor = actor_cls(context, context.links, self.params.checkpoint_factor)
        self.actor = actor
        return [actor]

    cls = type(
        cls_name,
        (_Base,),
        {
            "name": actor_cls.name,
            "Params": BaselineParams,
            "__init__": __init__,
            "actors": actors,
            "__doc__": doc,
        },
    )
    registered: type[_Base] = register_meta_scheduler(cls)
    return registered


RoundRobin = _baseline("RoundRobin", _RoundRobinActor, "Baseline: clusters in turn.")
LeastLoaded = _baseline(
    "LeastLoaded",
    _LeastLoadedActor,
    "Baseline: least (waiting + running processors) / processors.",
)
LeastLoadedSpeed = _baseline(
    "LeastLoadedSpeed",
    _LeastLoadedSpeedActor,
    "Ablation baseline: least (waiting + running processors) / (processors x speed).",
)
RandomDispatch = _baseline(
    "RandomDispatch", _RandomActor, "Baseline: a uniformly drawn cluster (seeded)."
)


# -- the runs of the paper (SPEC 6) ---------------------------------------------------------------
PREEMPTION = ("checkpoint", "suspend", "requeue", "cancel", "none")
# named configurations: dispatcher and, where it is fixed, the local managers' preemption
CONFIGURATIONS: dict[str, tuple[str, str | None]] = {
    "tdcs": ("tdcs", None),
    "tdcs_no_preemption": ("tdcs", "none"),
    "round_robin": ("round_robin", None),
    "least_loaded": ("least_loaded", None),
    "random": ("random", None),
    # ablations (issue 25): which of the dispatcher's ingredients gives its gain
    "least_loaded_speed": ("least_loaded_speed", None),
    "tdcs_no_candidate_rule": ("tdcs_no_candidate_rule", None),
    "tdcs_speed_blind": ("tdcs_speed_blind", None),
    "tdcs_step6_literal": ("tdcs_step6_literal", None),
}


def local_manager(
    preemption: str, overhead: float = DEFAULT_CHECKPOINT_OVERHEAD
) -> tuple[str, dict[str, Any]]:
    """The local resource manager of every cluster in a run of the paper: pps reading the
    ``priority`` attribute (a larger number preempts a strictly smaller one) with the
    ``preemption`` mode and, under checkpoints, the ``overhead`` of a restart (s)."""
    if preemption not in PREEMPTION:
        raise ConfigError("--preemption", preemption, PREEMPTION)
    seconds = check_seconds(
        "--checkpoint-overhead",
        overhead,
        high=MAX_CHECKPOINT_OVERHEAD,
        allowed=f"seconds >= 0, at most {MAX_CHECKPOINT_OVERHEAD:g} (a restart's cost)",
    )
    params: dict[str, Any] = {"priority": "attribute", "preemption": preemption}
    if preemption == "checkpoint":
        params["checkpoint_overhead"] = seconds
    return "pps", params
