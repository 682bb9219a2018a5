"""Fair share by user: the waiting job whose user has used the least goes first.

A user's usage is processors x requested time of every job of theirs started so far,
charged at the start (known at once, no bookkeeping at the end). The order is fixed at the
start of each pass, ties by arrival; jobs start in that order while they fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedlab.engine.decisions import Decision, Start
from schedlab.engine.protocol import ClusterView


@dataclass(frozen=True)
class UserFairShareParams:
    """``greedy``: when a job does not fit, still start later ones that fit (no reservation:
    wide jobs may starve). False: the first job that does not fit blocks the rest."""

    greedy: bool = False


class UserFairShare:
    """Waiting jobs by their user's usage so far (least first), ties by arrival."""

    name: ClassVar[str] = "user-fairshare"
    Params: ClassVar[type] = UserFairShareParams

    def __init__(self, params: UserFairShareParams | None = None) -> None:
        self.params = params or UserFairShareParams()

    def setup(self, view: ClusterView) -> None:
        self.waiting: list[int] = []
        self.usage: dict[int, float] = {}  # user -> processor-seconds charged

    def on_submit(self, job: int) -> None:
        self.waiting.append(job)

    def on_finish(self, job: int) -> None:
        pass  # usage was charged at the start

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        usage, user, procs = self.usage, view.user, view.procs
        self.waiting.sort(key=lambda j: (usage.get(user[j], 0.0), j))
        free = view.free_procs
        out: list[Decision] = []
        left: list[int] = []
        for k, j in enumerate(self.waiting):
            if procs[j] > free:
                if not self.params.greedy:
                    left.extend(self.waiting[k:])
                    break
                left.append(j)
                continue
            free -= procs[j]
            usage[user[j]] = usage.get(user[j], 0.0) + procs[j] * view.requested_time[j]
            out.append(Start(j))
        self.waiting = left
        return out
