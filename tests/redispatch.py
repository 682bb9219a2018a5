"""A hand-made actor for kernel tests: arrivals to pool 0, evicted jobs to pool 1, at once
(an eviction followed by a restart elsewhere, without any dispatcher's logic)."""

from __future__ import annotations

from typing import ClassVar

from schedlab.engine.actors import JobEvent, PlatformView
from schedlab.engine.decisions import ActorDecision, Dispatch


class Redispatch:
    """Sends arrivals to pool 0 and evicted jobs to pool 1, at once."""

    name: ClassVar[str] = "redispatch"
    listens: ClassVar[frozenset[JobEvent]] = frozenset({JobEvent.EVICTED})

    def setup(self, index: int, platform: PlatformView) -> None:
        self.out: list[ActorDecision] = []

    def on_arrival(self, job: int) -> None:
        self.out.append(Dispatch(job, 0))

    def on_message(self, message: object) -> None:
        pass

    def on_job_event(self, job: int, event: JobEvent) -> None:
        if event is JobEvent.EVICTED:
            self.out.append(Dispatch(job, 1))

    def schedule(self, now: float) -> list[ActorDecision]:
        out, self.out = self.out, []
        return out
