"""Least queued: every meta-job goes to the queue with the fewest jobs waiting per processor.

One actor receives the global stream. For each job it reads the pools' live state (jobs
waiting in the queue or within its receive delay, plus the jobs it sent there in the same
pass), divides by the pool's processors, takes the smallest (ties: the lowest pool) among
the pools wide enough for the job, and sends the job there after one control message to
that pool's site. Jobs still travelling from an earlier pass are not counted: it reads
the pools exactly, as push with a refresh period of 0 does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedlab import BaseActor, BaseMetaScheduler, Dispatch, GridContext, JobEvent, PlatformView


@dataclass(frozen=True)
class LeastQueuedParams:
    """``per_processor``: compare waiting jobs per processor of the pool (True), or the
    raw counts (False)."""

    per_processor: bool = True


class _LeastQueuedActor(BaseActor):
    """The dispatching actor (module docstring)."""

    name: ClassVar[str] = "least-queued"
    listens: ClassVar[frozenset[JobEvent]] = frozenset()  # no news of its jobs needed

    def __init__(self, context: GridContext, per_processor: bool) -> None:
        self.delay = context.message_time  # seconds of one message to each pool's site
        self.per_processor = per_processor
        self.arrived: list[int] = []
        self.sent = 0

    def setup(self, index: int, platform: PlatformView) -> None:
        self.platform = platform

    def on_arrival(self, job: int) -> None:
        self.arrived.append(job)

    def schedule(self, now: float) -> list[Dispatch]:
        pools = self.platform.pools
        size = self.platform.procs
        pending = [0] * len(pools)  # sent in this pass, not arrived yet
        out = []
        for job in self.arrived:
            best, least = -1, 0.0
            for pool in pools:
                if pool.total < size[job]:
                    continue
                waiting = pool.queued + pool.received + pending[pool.index]
                depth = waiting / pool.total if self.per_processor else float(waiting)
                if best < 0 or depth < least:
                    best, least = pool.index, depth
            pending[best] += 1
            out.append(Dispatch(job, best, self.delay[best]))
        self.sent += len(out)
        self.arrived.clear()
        return out


class LeastQueued(BaseMetaScheduler):
    """The fewest jobs waiting per processor, read exactly at each arrival."""

    name: ClassVar[str] = "least-queued"
    Params: ClassVar[type] = LeastQueuedParams

    def __init__(self, params: LeastQueuedParams | None = None) -> None:
        self.params = params or LeastQueuedParams()
        self.actor: _LeastQueuedActor | None = None

    def actors(self, context: GridContext) -> list[BaseActor]:
        self.actor = _LeastQueuedActor(context, self.params.per_processor)
        return [self.actor]

    def counters(self) -> dict[str, int]:
        return {"dispatches": self.actor.sent if self.actor else 0}
