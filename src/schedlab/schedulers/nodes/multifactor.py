"""Multifactor priority on nodes: Slurm's priority/multifactor over node EASY in priority
order, with fair share charged in TRES billing units (``TRESBillingWeights``).

The factors, the ticks and the decay are those of `schedlab.schedulers.multifactor` (read
its docstring): age, job size and the classic fair share 2^(-U/S), recomputed every
``calc_period`` on a fixed grid of ticks, running jobs charged at every tick. What changes:

* usage is billing x seconds, the billing of a job being the weighted sum of what it holds
  (`fairshare.billing`: cores, memory, GPUs, nodes; ``tres_weights`` in slurm.conf syntax,
  ``max_tres`` for ``PriorityFlags=MAX_TRES``). The default ``CPU=1.0`` bills the cores
  held, the processor policy's processor-seconds;
* the job size factor is (cores requested - 1) / (cores of the cluster - 1), the processor
  policy's (procs - 1) / (P - 1) on cores;
* the pass is node EASY (`nodes.easy`) with the queue in priority order (ties by arrival):
  jobs start from the top while `place` finds them nodes; the first that does not is
  reserved at its shadow time on nodes, and the jobs after it, in priority order, start if
  they fit now and end by the shadow time or leave it placeable at the shadow time;
* the pass at the next tick (WakeAt) is asked for when some waiting job's cores, GPUs and
  whole nodes are free in all (the processor policy's "narrow enough for the free
  processors"); a pass where nothing fits starts nothing, so this only saves passes.

On single-core nodes with plain requests every number and decision is the processor
policy's (tests/unit/test_node_multifactor.py).
"""

from __future__ import annotations

import math
from bisect import insort
from dataclasses import dataclass, field
from typing import ClassVar

from schedlab.engine.decisions import WakeAt
from schedlab.engine.nodeloop import NodeView, Place
from schedlab.errors import ConfigError
from schedlab.platform.placement import Allocation, Request, place
from schedlab.schedulers.multifactor import MultifactorParams
from schedlab.schedulers.nodes.easy import NodeLedger
from schedlab.schedulers.nodes.fairshare import FairShare, billing, parse_tres_weights
from schedlab.schedulers.nodes.registry import register_node_policy

__all__ = ["NodeMultifactor", "NodeMultifactorParams"]


@dataclass(frozen=True)
class NodeMultifactorParams(MultifactorParams):
    """`MultifactorParams`, plus how usage is billed (Slurm's names in slurm.conf).

    ``tres_weights`` (TRESBillingWeights): e.g. ``"CPU=1.0,Mem=0.25G,GRES/gpu=2.0"``; keys
    CPU, Mem, GRES/gpu and Node, case-insensitive; Mem's weight per MiB, or per GiB with a G
    suffix (K, T, P too); a resource left out weighs 0. Default ``"CPU=1.0"``: the cores
    held. ``max_tres`` (PriorityFlags=MAX_TRES): bill the largest weighted resource instead
    of the sum. Both left out of stored run configurations at their defaults.
    """

    tres_weights: str = field(default="CPU=1.0", metadata={"omit_default": True})
    max_tres: bool = field(default=False, metadata={"omit_default": True})

    def __post_init__(self) -> None:
        super().__post_init__()
        parse_tres_weights(self.tres_weights, "multifactor tres_weights")
        if not isinstance(self.max_tres, bool):
            raise ConfigError("multifactor max_tres", self.max_tres, "true or false")


@register_node_policy
class NodeMultifactor:
    """Slurm-like multifactor priority with TRES-billed fair share, over node EASY."""

    name: ClassVar[str] = "multifactor"
    preempts: ClassVar[bool] = False
    Params: ClassVar[type] = NodeMultifactorParams

    def __init__(self, params: NodeMultifactorParams | None = None) -> None:
        self.params = params or NodeMultifactorParams()
        self._weights = parse_tres_weights(self.params.tres_weights)

    def setup(self, view: NodeView) -> None:
        self._view = view
        self._submit = view.submit_at
        self._req = view.requested_time
        self._user = view.user
        self._requests = view.requests
        self._size: list[float] = []  # job size factor, per job
        self._prio: list[float] = []  # priority, per job (waiting jobs: current)
        self._shape: list[int] = []  # per job: its request's number (equal requests, one)
        self._shapes: dict[Request, int] = {}
        self._queue: list[tuple[float, int]] = []  # (-priority, job), sorted: top first
        self._ledger = NodeLedger(view)
        self._cores = int(view.state.cap_cores.sum())
        self._share = FairShare(self.params.calc_period, self.params.decay_half_life)
        self._billing: dict[int, float] = {}  # running jobs' billing rates
        self._nofit: set[int] = set()  # shapes that do not fit, until a job ends
        self._ended = True
        self._wake = -math.inf  # the last wake-up asked for

    # -- reading ----------------------------------------------------------------------------
    def usage(self, user: int) -> float:
        """Decayed usage of ``user`` (billing-unit seconds) as of the last tick."""
        return self._share.usage(user)

    def fair_share(self, user: int) -> float:
        """The classic fair-share factor 2^(-U/S), equal shares among the users seen."""
        return self._share.factor(user)

    def priority(self, job: int) -> float:
        """The priority ``job`` has (or had when it started)."""
        return self._prio[job]

    def billing(self, alloc: Allocation) -> float:
        """Billing rate of a job holding ``alloc`` (units per second)."""
        return billing(alloc, self._weights, self.params.max_tres)

    # -- priorities -------------------------------------------------------------------------
    def _advance(self, now: float) -> None:
        tick = self._share.advance(now)
        if tick is not None:
            self._reprioritize(tick)

    def _priority(self, job: int, t: float, fair_share: float) -> float:
        p = self.params
        wait = t - self._submit[job]
        age = min(wait / p.max_age, 1.0) if wait > 0 else 0.0
        return (
            p.weight_age * age
            + p.weight_fairshare * fair_share
            + p.weight_job_size * self._size[job]
        )

    def _reprioritize(self, t: float) -> None:
        """Every waiting job's priority at tick time ``t``, re-sorted."""
        p = self.params
        w_age, w_fs, w_size, max_age = (
            p.weight_age,
            p.weight_fairshare,
            p.weight_job_size,
            p.max_age,
        )
        submit, size, user, prio = self._submit, self._size, self._user, self._prio
        factor = self._share.factor
        shares: dict[int, float] = {}
        queue = self._queue
        for k, (_, j) in enumerate(queue):
            u = user[j]
            f = shares.get(u)
            if f is None:
                f = shares[u] = factor(u)
            wait = t - submit[j]
            age = wait / max_age if wait > 0 else 0.0
            if age > 1.0:
                age = 1.0
            pr = w_age * age + w_fs * f + w_size * size[j]
            prio[j] = pr
            queue[k] = (-pr, j)
        queue.sort()

    # -- events -----------------------------------------------------------------------------
    def on_submit(self, job: int) -> None:
        now = self._view.now
        self._advance(now)
        request = self._requests[job]
        total = self._cores
        s = (request.total_cores - 1) / (total - 1) if total > 1 else 1.0
        self._size.append(1.0 - s if self.params.favor_small else s)
        self._shape.append(self._shapes.setdefault(request, len(self._shapes)))
        u = self._user[job]
        self._share.users_seen.add(u)
        self._prio.append(self._priority(job, now, self._share.factor(u)))
        insort(self._queue, (-self._prio[job], job))

    def on_finish(self, job: int) -> None:
        now = self._view.now
        self._advance(now)
        self._share.finish(self._user[job], self._billing.pop(job), now)
        self._ledger.finished(job, now)
        self._ended = True

    # -- the pass ---------------------------------------------------------------------------
    def _fits(self, job: int) -> Allocation | None:
        """Where ``job`` goes now, or None (then its request is ``nofit`` until a job ends)."""
        shape = self._shape[job]
        if shape in self._nofit:
            return None
        request = self._requests[job]
        ledger = self._ledger
        alloc = None
        if ledger.may_fit(request):
            alloc = place(ledger.work, request, self._view.rule)
        if alloc is None:
            self._nofit.add(shape)
        return alloc

    def _start(self, j: int, alloc: Allocation, now: float, out: list[Place | WakeAt]) -> None:
        self._ledger.take(j, alloc, now, now + self._req[j])
        rate = billing(alloc, self._weights, self.params.max_tres)
        self._billing[j] = rate
        self._share.start(self._user[j], rate, now)
        out.append(Place(j, alloc))

    def schedule(self, now: float, view: NodeView) -> list[Place | WakeAt]:
        self._advance(now)
        queue = self._queue
        out: list[Place | WakeAt] = []
        if not queue:
            return out
        ledger = self._ledger
        ledger.begin()
        if self._ended:
            self._nofit.clear()
            self._ended = False
        k = 0  # top part: start in priority order while the top fits
        while k < len(queue):
            j = queue[k][1]
            alloc = self._fits(j)
            if alloc is None:
                break
            self._start(j, alloc, now, out)
            k += 1
        if k:
            del queue[:k]
        if queue and ledger.free_cores:
            self._backfill(now, out)
        if queue and ledger.free_cores and self._some_may_fit():
            wake = self._share.next_tick()
            if wake != self._wake:
                self._wake = wake
                out.append(WakeAt(wake))
        return out

    def _some_may_fit(self) -> bool:
        """Whether the cores, GPUs and whole nodes of some waiting job are free in all."""
        ledger = self._ledger
        requests = self._requests
        free_cores, free_gpus, idle = ledger.free_cores, ledger.free_gpus, ledger.idle
        for _, j in self._queue:
            r = requests[j]
            n = r.nodes
            if n is None:
                if r.cores_per_node <= free_cores:
                    return True
            elif (
                n * r.cores_per_node <= free_cores
                and n * r.gpus_per_node <= free_gpus
                and (not r.exclusive or n <= idle)
            ):
                return True
        return False

    def _backfill(self, now: float, out: list[Place | WakeAt]) -> None:
        """EASY's two rules on nodes behind the reserved top job (`nodes.easy`)."""
        queue = self._queue
        req = self._req
        shape = self._shape
        nofit = self._nofit
        ledger = self._ledger
        reservation = ledger.reserve(self._requests[queue[0][1]], now)
        shadow = reservation.shadow
        refused: dict[int, int] = {}  # shape -> starts when a long job of it was refused
        starts = 0
        started: set[int] = set()
        for _, j in queue[1:]:
            if not ledger.free_cores:
                break
            sid = shape[j]
            if sid in nofit:
                continue
            long = now + req[j] > shadow
            if long and refused.get(sid) == starts:
                continue  # the same placement on the same state: refused again
            alloc = self._fits(j)
            if alloc is None:
                continue
            if long and not reservation.try_take(alloc):
                refused[sid] = starts
                continue
            self._start(j, alloc, now, out)
            starts += 1
            started.add(j)
        if started:
            queue[:] = [item for item in queue if item[1] not in started]
