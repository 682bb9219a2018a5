"""Reference schedulers of Lanore and Klein (ComPAS 2013; SPEC 7): rand, Ref4 and RefN.

**rand** gives each released task, in release order, a node count drawn uniformly in
[1, N] (a seeded numpy Generator: the same seed gives the same schedule) and reserves it at
the earliest start where that many nodes are free for its whole time, given every
reservation made so far: a list schedule with reservations in the shared availability
profile (`schedlab.platform.Profile`), never compressed. Tasks start at their reservation;
a wake-up is asked for the next one.

**Ref4 / RefN** generalise HLW's default schedule, a parallel loop over the tau0 tasks with
dynamic distribution: the nodes are cut into worker *slots* (Ref4: 4 slots of floor(N/4)
nodes; RefN: N slots of 1 node) and each slot runs one tau0 chain at a time. A chain is a
root task and the tasks its ends release (``view.parent``, followed back to the root, is
stored per task at ``on_submit``). When a task ends and its child is released in the same
instant (zero think time: the engine admits the child before it asks the policy), the
child starts at once on the same slot, on all the slot's nodes. When a chain ends (a task
ends and no child of it was released that instant), the slot takes the next waiting chain
in release order.

Corner cases, decided here:

- *Fewer nodes than slots* (Ref4 with N < 4, so floor(N/4) = 0): min(slots, N) slots of
  max(1, N // slots) nodes, i.e. N slots of one node, the same as RefN. Nodes left over by
  the floor (N mod slots) stay idle, as in the paper's Ref4.
- *Free slots* take waiting chains lowest slot first; chains wait in release order.
- *A task released after its parent's slot moved on* (a think time > 0) waits as a new
  chain; *several children of one task released together*: the first (lowest local index)
  keeps the slot, the others wait as new chains.
- *Rigid tasks* (no speed-up model) run at their own size on a slot (PolicyError if wider
  than a slot); rand gives them their own size instead of a draw.
- rand: a task whose reservation is due but whose nodes are not free yet (only possible
  if the view's time and the engine's differ by rounding) starts at the next end.
"""

from __future__ import annotations

import heapq
from collections import deque
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.errors import PolicyError
from schedlab.platform import Profile
from schedlab.schedulers.registry import ParamsPolicy, register_policy
from schedlab.validators import check_int

__all__ = [
    "RandParams",
    "RandomReference",
    "Ref4",
    "RefN",
    "RefNParams",
    "SlotParams",
]

_NAN = float("nan")
_NOTHING: list[Decision] = []


# -- rand -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RandParams:
    """``seed`` (integer >= 0) of the node-count draws."""

    seed: int = 0

    def __post_init__(self) -> None:
        check_int("rand seed", self.seed)


@register_policy
class RandomReference(ParamsPolicy[RandParams]):
    """rand: a random node count per task, reserved at its earliest start."""

    name: ClassVar[str] = "rand"
    # written for moldable jobs (`schedlab run` notes when a workload has none)
    moldable: ClassVar[bool] = True
    Params: ClassVar[type] = RandParams

    def setup(self, view: ClusterView) -> None:
        self._view = view
        self._rng = np.random.default_rng(self.params.seed)
        self._profile: Profile | None = None  # made at the first pass (origin: that time)
        self._arrivals: list[int] = []  # released since the last pass, arrival order
        self._due: list[tuple[float, int]] = []  # (reserved start, task), a heap
        self._late: list[int] = []  # due, waiting for nodes a rounding kept busy
        self.alloc: list[int] = []  # per task: nodes drawn (0 until reserved)
        self.reserved_at: list[float] = []  # per task: reserved start
        self._end: list[float] = []  # per task: reserved end
        self._wake_at = _NAN  # last wake-up asked for

    def job_columns(self) -> dict[str, np.ndarray]:
        """Extra per-job column: the start each task was reserved at."""
        return {"reservation_at": np.asarray(self.reserved_at, dtype=np.float64)}

    def on_submit(self, job: int) -> None:
        self.alloc.append(0)
        self.reserved_at.append(_NAN)
        self._end.append(_NAN)
        self._arrivals.append(job)

    def on_finish(self, job: int) -> None:
        # an early end (requested time above the actual one) gives its nodes back to later
        # reservations; earlier reservations do not move (no compression)
        now = self._view.now
        end = self._end[job]
        if self._profile is not None and now < end:
            self._profile.release(now, end, self.alloc[job])

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        profile = self._profile
        if profile is None:
            profile = self._profile = Profile(view.total_procs, origin=now)
        profile.advance(now)
        if self._arrivals:
            n_procs = view.total_procs
            rng = self._rng
            for j in self._arrivals:
                # a rigid task keeps its size (and draws nothing)
                q = int(rng.integers(1, n_procs + 1)) if view.is_moldable(j) else view.procs[j]
                d = view.time_on(j, q)
                start = profile.earliest_start(q, d, now)
                profile.reserve(start, start + d, q)
                self.alloc[j] = q
                self.reserved_at[j] = start
                self._end[j] = start + d
                heapq.heappush(self._due, (start, j))
            self._arrivals.clear()
        due = self._due
        out: list[Decision] = []
        free = view.free_procs
        ready = self._late  # due at an earlier pass but not free then (rounding): first
        self._late = []
        while due and due[0][0] <= now:
            ready.append(heapq.heappop(due)[1])
        for j in ready:
            q = self.alloc[j]
            if q <= free:
                free -= q
                out.append(Start(j, q))
            else:
                self._late.append(j)  # its nodes are not free yet: the next end
        if due and due[0][0] != self._wake_at:
            self._wake_at = due[0][0]
            out.append(WakeAt(self._wake_at))
        return out


# -- Ref4 and RefN ------------------------------------------------------------------------
@dataclass(frozen=True)
class SlotParams:
    """``slots`` (integer >= 0): worker slots, each of floor(N / slots) nodes running one
    tau0 chain at a time; 0 means one slot per node (RefN)."""

    slots: int = 4

    def __post_init__(self) -> None:
        check_int("ref slots", self.slots)


@dataclass(frozen=True)
class RefNParams(SlotParams):
    """RefN: one slot per node."""

    slots: int = 0


@register_policy
class Ref4(ParamsPolicy[SlotParams]):
    """Ref4: HLW's parallel loop, one tau0 chain per slot of floor(N/4) nodes."""

    name: ClassVar[str] = "ref4"
    # written for moldable jobs (`schedlab run` notes when a workload has none)
    moldable: ClassVar[bool] = True
    Params: ClassVar[type] = SlotParams

    def setup(self, view: ClusterView) -> None:
        n_procs = view.total_procs
        wanted = self.params.slots or n_procs
        self.slot_count = min(wanted, n_procs)
        self.slot_procs = max(1, n_procs // wanted)
        self._view = view
        self._parent = view.parent  # a reference: grows as tasks arrive
        self.chain: list[int] = []  # per task: local index of its chain's first task
        self.slot: list[int] = []  # per task: the slot it ran on (-1 before its start)
        # Slots are made when first used, so that N slots of RefN on a huge N cost nothing:
        # slots below _fresh have been used; the idle ones among them are in _idle (a heap);
        # every slot from _fresh up is idle. The lowest idle slot is thus min(_idle, _fresh).
        self._fresh = 0
        self._idle: list[int] = []
        self._ended: dict[int, int] = {}  # slot -> the task that ended there this instant
        self._handoff: dict[int, int] = {}  # slot -> that task's released child
        self._ended_slots: list[int] = []
        self._waiting: deque[int] = deque()  # first tasks of waiting chains, release order

    def job_columns(self) -> dict[str, np.ndarray]:
        """Extra per-job column: the worker slot each task ran on."""
        return {"slot": np.asarray(self.slot, dtype=np.int64)}

    def on_submit(self, job: int) -> None:
        parent = self._parent[job] if self._parent is not None else -1
        self.chain.append(self.chain[parent] if parent >= 0 else job)
        self.slot.append(-1)
        if parent >= 0:
            s = self.slot[parent]
            if s >= 0 and self._ended.get(s) == parent and s not in self._handoff:
                self._handoff[s] = job  # the chain goes on, on its slot
                return
        self._waiting.append(job)

    def on_finish(self, job: int) -> None:
        s = self.slot[job]
        self._ended[s] = job
        self._ended_slots.append(s)

    def _start(self, j: int, s: int, view: ClusterView, out: list[Decision]) -> None:
        self.slot[j] = s
        if view.is_moldable(j):
            out.append(Start(j, self.slot_procs))
            return
        if view.procs[j] > self.slot_procs:
            raise PolicyError(
                f"policy {self.name!r}: rigid job {j} needs {view.procs[j]} processors, "
                f"more than a slot's {self.slot_procs}"
            )
        out.append(Start(j))

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        out: list[Decision] = []
        idle = self._idle
        for s in self._ended_slots:
            child = self._handoff.pop(s, -1)
            if child >= 0:
                self._start(child, s, view, out)
            else:
                heapq.heappush(idle, s)
            del self._ended[s]
        self._ended_slots.clear()
        waiting = self._waiting
        while waiting:  # idle slots, lowest first
            if idle:
                s = heapq.heappop(idle)
            elif self._fresh < self.slot_count:
                s = self._fresh
                self._fresh += 1
            else:
                break
            self._start(waiting.popleft(), s, view, out)
        return out or _NOTHING


@register_policy
class RefN(Ref4):
    """RefN: HLW's parallel loop generalised to N slots of one node."""

    name: ClassVar[str] = "refn"
    Params: ClassVar[type] = RefNParams
