"""First come, first served (SPEC section 4): strictly arrival order, no backfilling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from schedlab.engine.decisions import Decision, Start
from schedlab.engine.protocol import ClusterView
from schedlab.schedulers.registry import register_policy


@dataclass(frozen=True)
class FcfsParams:
    """FCFS has no parameters."""


@register_policy
class Fcfs:
    """Start queued jobs in arrival order while the head fits; the head blocks the rest."""

    name: ClassVar[str] = "fcfs"
    preempts: ClassVar[bool] = False  # never suspends a job: sweeps rebuild its time series
    Params: ClassVar[type] = FcfsParams

    def __init__(self, params: FcfsParams | None = None) -> None:
        self.params = params or FcfsParams()
        self._queue: list[int] = []
        self._head = 0
        self._procs: Sequence[int] = []

    def setup(self, view: ClusterView) -> None:
        self._queue = []
        self._head = 0
        self._procs = view.procs  # a reference: in a pool the list grows as jobs arrive

    def on_submit(self, job: int) -> None:
        self._queue.append(job)

    def on_finish(self, job: int) -> None:
        pass

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        queue = self._queue
        head = self._head
        free = view.free_procs
        procs = self._procs
        out: list[Decision] = []
        end = len(queue)
        while head < end and procs[queue[head]] <= free:
            j = queue[head]
            free -= procs[j]
            out.append(Start(j))
            head += 1
        if head > 4096 and head * 2 > end:  # drop the consumed prefix now and then
            del queue[:head]
            head = 0
        self._head = head
        return out
