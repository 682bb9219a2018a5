"""First come, first served (SPEC section 4): strictly arrival order, no backfilling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from schedlab.engine.protocol import ClusterView, StepPolicy
from schedlab.schedulers.registry import register_policy


@dataclass(frozen=True)
class FcfsParams:
    """FCFS has no parameters."""


@register_policy
class Fcfs(StepPolicy):
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
        super().setup(view)
        self._queue = []
        self._head = 0
        self._known = 0  # jobs 0 .. _known - 1 are queued
        self._procs = view.procs  # a reference: in a pool the list grows as jobs arrive

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        """Queue the new jobs, then start from the head while it fits (`engine.protocol.Steps`)."""
        queue = self._queue
        if submitted > self._known:
            queue.extend(range(self._known, submitted))
            self._known = submitted
        head = self._head
        procs = self._procs
        out: list[int] = []
        end = len(queue)
        while head < end and procs[queue[head]] <= free:
            j = queue[head]
            free -= procs[j]
            out.append(j)
            head += 1
        if head > 4096 and head * 2 > end:  # drop the consumed prefix now and then
            del queue[:head]
            head = 0
        self._head = head
        return out
