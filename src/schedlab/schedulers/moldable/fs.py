"""The FS family of online schedulers for multi-level applications (Lanore and Klein; SPEC 7).

FS is a two-step list scheduler run at every instant with a release or a completion:

1. *Allocation.* ``A(t)`` is the set of released, not-started tasks. Each task T gets its
   fair share of the N nodes, ``q_FS(T) = floor(w(T) / sum(w(A(t))) x N)``, at least 1 (at
   most N by construction), where ``w(T)`` is its sequential time (``time_on(T, 1)``).
   ``share_of="present"`` sums over the running tasks too (their whole sequential time):
   another reading of the paper's "tâches disponibles", measured in docs/reproductions.md.
2. *List scheduling.* ``A(t)`` is sorted by ``p(q_FS)`` (the task's time on its share)
   descending, ties by arrival order (local index), and every task that fits the free nodes
   starts on its share; a task that does not fit is skipped and the scan goes on.

Variants (names of the paper): **X** (``extra_nodes``): while nodes stay free after the
decision, one more node goes to the task, among those started by this decision, with the
longest current time (recomputed after each node). **delta** (FS0.5): the scheduler may only
start tasks at t if no running task ends in (t, t + delta]; otherwise it starts nothing and
asks to be woken at the first such end. **kmP** (``delta_mode="proportional"``): delta = k x
the smallest ``p(q_FS)`` over ``A(t)``.

Corner cases, decided here (the paper is silent):

- *The delta test is done once per pass, before any start*, against the tasks running when
  the pass begins: tasks started by the pass itself never block the rest of the same
  decision (the decision is one act; a short task started now must not veto its siblings).
- *A task ending exactly at t + delta blocks* (the interval is closed on the right, as the
  paper's "(t, t + delta]"). *A task ending at t itself has ended*: the engine applies ends
  before it asks the policy (``on_finish`` comes first), so it frees its nodes and never
  blocks. A task still running whose computed end is <= t (a rounding difference between
  the view's time and the engine's) is about to end, so it blocks, and its end event, not a
  wake-up, brings the next pass.
- *kmP uses the smallest time at the share* over ``A(t)`` (the task that would leave the
  smallest gap), which is the paper's reason for the variant: delta must not exceed what
  the shortest available task would fill. With ``delta_mode="proportional"`` the ``delta``
  field is ignored; with ``"fixed"``, ``k`` is.
- *Rounding of q_FS*: ``w x N / sum(w)`` with a 1e-9 tolerance, so a share that is an
  integer up to floating-point error (2.9999999999) counts as that integer.
- *X ties* (equal current times) go to the task that arrived first (lowest local index).
- *Passes happen only at instants with a release or a completion* (plus the wake-ups this
  policy asked for): a spurious call with no news returns no decision. A pass with no free
  node or no available task decides nothing and asks for no wake-up: the next end or
  release brings the next pass. A blocked pass asks for the same wake-up only once.
- *Rigid tasks* (no speed-up model) keep their own size, get no extra node, and count in
  the fair-share sum with their area (size x time); q_FS is only for moldable tasks.

Durations always come from the view (``time_on``), never computed here; with requested
times equal to the actual ones (HLW) ``now + time_on(T, q)`` is the task's exact end.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import ClassVar, Literal

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError
from schedlab.schedulers.registry import ParamsPolicy, register_policy
from schedlab.validators import check_number

__all__ = [
    "DELTA_MODES",
    "SHARE_OF",
    "FairShare",
    "FairShare05",
    "FairShare05Params",
    "FairShare05X",
    "FairShare05XParams",
    "FairShare05mPX",
    "FairShare05mPXParams",
    "FsParams",
]

_INF = float("inf")
_EPS = 1e-9  # tolerance of the floor in q_FS (module docstring)
_NOTHING: list[Decision] = []  # shared empty answer: the engine only iterates it
DELTA_MODES = ("fixed", "proportional")
SHARE_OF = ("available", "present")


@dataclass(frozen=True)
class FsParams:
    """Settings of FS (SPEC 7).

    ``delta`` (s, >= 0): synchronisation time of FS0.5 (``delta_mode="fixed"``); 0 is plain
    FS. ``delta_mode``: "fixed" (delta as given) or "proportional" (kmP: delta = ``k`` x
    the smallest time of an available task on its fair share). ``k`` (>= 0): that factor.
    ``extra_nodes``: the X variant (nodes left free go, one at a time, to the longest task
    started by the decision). ``share_of``: the tasks the fair share divides the nodes among:
    "available" (SPEC 7: A(t), released and not started) or "present" (also the running
    ones, a reading of the paper's "tâches disponibles" that the reproduction measures too).
    """

    delta: float = 0.0
    delta_mode: Literal["fixed", "proportional"] = "fixed"
    k: float = 0.5
    extra_nodes: bool = False
    share_of: Literal["available", "present"] = "available"

    def __post_init__(self) -> None:
        for option, value in (("delta", self.delta), ("k", self.k)):
            check_number(f"fs {option}", value, low=0, allowed="a finite number >= 0")
        if self.delta_mode not in DELTA_MODES:
            raise ConfigError("fs delta_mode", self.delta_mode, DELTA_MODES)
        if not isinstance(self.extra_nodes, bool):
            raise ConfigError("fs extra_nodes", self.extra_nodes, "true or false")
        if self.share_of not in SHARE_OF:
            raise ConfigError("fs share_of", self.share_of, SHARE_OF)


@dataclass(frozen=True)
class FairShare05Params(FsParams):
    """FS0.5: delta = 0.5 x w1 = 0.5 s (w1 = 1 s, the sequential time of a tau1 task)."""

    delta: float = 0.5


@dataclass(frozen=True)
class FairShare05XParams(FsParams):
    """FS0.5X: delta = 0.5 s and extra nodes."""

    delta: float = 0.5
    extra_nodes: bool = True


@dataclass(frozen=True)
class FairShare05mPXParams(FsParams):
    """FS0.5mPX: delta = 0.5 x the smallest available task's time on its share, extra
    nodes (every improvement of the paper)."""

    delta_mode: Literal["fixed", "proportional"] = "proportional"
    k: float = 0.5
    extra_nodes: bool = True


@register_policy
class FairShare(ParamsPolicy[FsParams]):
    """FS: fair-share allocation, longest first list scheduling (Lanore and Klein)."""

    name: ClassVar[str] = "fs"
    # written for moldable jobs (`schedlab run` notes when a workload has none)
    moldable: ClassVar[bool] = True
    Params: ClassVar[type] = FsParams

    def setup(self, view: ClusterView) -> None:
        self._view = view
        self._available: list[int] = []  # released, not started: A(t), arrival order
        self._end: dict[int, float] = {}  # running task -> its end (now + time_on)
        self._dirty = False  # a release or a completion since the last pass
        self._wake_at = _INF  # the wake-up asked for by the last blocked pass
        self._proportional = self.params.delta_mode == "proportional"
        self._present = self.params.share_of == "present"
        # per task (grown by on_submit): w (a rigid task: its area), moldable or not, and
        # the last share asked of the view with its time (shares change rarely: a cache)
        self._work: list[float] = []
        self._moldable: list[bool] = []
        self._last_q: list[int] = []
        self._last_time: list[float] = []

    def on_submit(self, job: int) -> None:
        view = self._view
        moldable = view.is_moldable(job)
        q = 1 if moldable else view.procs[job]
        t = view.time_on(job, q)
        self._work.append(t if moldable else q * t)
        self._moldable.append(moldable)
        self._last_q.append(q)
        self._last_time.append(t)
        self._available.append(job)
        self._dirty = True

    def on_finish(self, job: int) -> None:
        self._end.pop(job, None)
        self._dirty = True

    # -- the pass -------------------------------------------------------------------------
    def _time_on(self, j: int, q: int) -> float:
        """The view's time of task j on q nodes (cached for the last q asked)."""
        if self._last_q[j] != q:
            self._last_q[j] = q
            self._last_time[j] = self._view.time_on(j, q)
        return self._last_time[j]

    def _shares(self, view: ClusterView, available: list[int]) -> tuple[list[int], list[float]]:
        """q_FS and p(q_FS) of each available task (same order as ``available``)."""
        n_procs = view.total_procs
        work = self._work
        moldable = self._moldable
        procs = view.procs
        total = sum([work[j] for j in available])
        if self._present:  # running tasks count too (share_of="present")
            total += sum([work[j] for j in self._end])
        last_q = self._last_q
        last_time = self._last_time
        shares: list[int] = []
        times: list[float] = []
        for j in available:
            if moldable[j]:
                q = int(work[j] * n_procs / total + _EPS) if total > 0 else 1
                q = 1 if q < 1 else (n_procs if q > n_procs else q)
            else:
                q = procs[j]
            shares.append(q)
            times.append(last_time[j] if last_q[j] == q else self._time_on(j, q))
        return shares, times

    def _blocked_until(self, now: float, delta: float) -> float:
        """The first end in (now, now + delta] of a running task (<= now: a running task
        that ends now by rounding); inf when none blocks."""
        limit = now + delta
        first = _INF
        for end in self._end.values():
            if end <= limit and end < first:
                first = end
        return first

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        if not self._dirty and now < self._wake_at:
            return _NOTHING  # no release, no completion, not our wake-up
        self._dirty = False
        pending_wake = self._wake_at
        self._wake_at = _INF
        available = self._available
        if not available:
            return _NOTHING
        params = self.params
        free = view.free_procs
        if free == 0:
            return _NOTHING  # nothing can start; an end will bring the next pass
        shares, times = self._shares(view, available)
        delta = params.k * min(times) if self._proportional else params.delta
        if delta > 0.0:
            first = self._blocked_until(now, delta)
            if first < _INF:
                # wait: re-asked at the first such end (its end event asks too)
                if first > now:
                    self._wake_at = first
                    if first != pending_wake:
                        return [WakeAt(first)]
                return _NOTHING
        # longest time on the share first, ties by arrival (local index)
        order = sorted(range(len(available)), key=lambda i: (-times[i], available[i]))
        started: list[int] = []  # positions in ``available``, in FS order
        for i in order:
            q = shares[i]
            if q <= free:
                free -= q
                started.append(i)
                if free == 0:
                    break
        if not started:
            return _NOTHING
        if params.extra_nodes and free > 0:
            free = self._extra_nodes(view, available, started, shares, times, free)
        out: list[Decision] = []
        end = self._end
        for i in started:
            j = available[i]
            out.append(Start(j, shares[i]))
            end[j] = now + times[i]
        gone = set(started)
        self._available = [j for i, j in enumerate(available) if i not in gone]
        return out

    @staticmethod
    def _extra_nodes(
        view: ClusterView,
        available: list[int],
        started: list[int],
        shares: list[int],
        times: list[float],
        free: int,
    ) -> int:
        """X: one node at a time to the started moldable task with the longest current
        time (ties: first arrived); updates ``shares``/``times``; returns nodes left."""
        heap = [(-times[i], available[i], i) for i in started if view.is_moldable(available[i])]
        if not heap:
            return free
        heapq.heapify(heap)
        while free > 0:
            _, j, i = heap[0]
            q = shares[i] + 1
            shares[i] = q
            times[i] = view.time_on(j, q)  # (not cached: each q is asked once)
            heapq.heapreplace(heap, (-times[i], j, i))
            free -= 1
        return free


@register_policy
class FairShare05(FairShare):
    """FS0.5: FS that starts nothing while a running task ends within 0.5 s."""

    name: ClassVar[str] = "fs0.5"
    Params: ClassVar[type] = FairShare05Params


@register_policy
class FairShare05X(FairShare):
    """FS0.5X: FS0.5 that gives the nodes left free to the longest tasks started."""

    name: ClassVar[str] = "fs0.5x"
    Params: ClassVar[type] = FairShare05XParams


@register_policy
class FairShare05mPX(FairShare):
    """FS0.5mPX: FS with delta = 0.5 x the shortest available task, and extra nodes."""

    name: ClassVar[str] = "fs0.5mpx"
    Params: ClassVar[type] = FairShare05mPXParams
