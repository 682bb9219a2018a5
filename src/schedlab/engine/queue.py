"""The kernel's event queue: every event in flight, popped in the order of `engine.events`.

An event's key is (time, rank, order, seq): its instant, its rank within the instant
(`engine.events.Rank`), its order among those of its rank (a job id, the order a wake-up
or a message was asked in), and seq, the count of pushes, so that no two keys are equal
and the order of pops does not depend on how the queue is laid out. A pop returns the item
``(kind, order, a, b)`` given at the push.

``EventQueue`` is the C type of ``_cevents`` (an optional extension, built by setup.py when
a compiler is there) whenever it was compiled: a grid's queue holds tens of thousands of
events, and comparing Python tuples in `heapq` was a tenth of its run. ``PyEventQueue``,
below, is the fallback and the oracle the C type is tested against (same API, same
order). ``SCHEDLAB_PURE_PYTHON`` set to anything but "" or "0" forces it, as for the
profile (`schedlab.platform`).
"""

from __future__ import annotations

import math
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

from schedlab.compiled import pure_python_forced

__all__ = ["CEventQueue", "EventQueue", "PyEventQueue", "USING_C_QUEUE"]

Item = tuple[int, int, Any, Any]  # (kind, order, a, b)


class PyEventQueue:
    """The event queue in Python (module docstring): `heapq` over key tuples."""

    __slots__ = ("_heap", "seq")

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int, int, Item]] = []
        self.seq = 0  # the number of events pushed so far

    def __len__(self) -> int:
        return len(self._heap)

    def push(
        self, t: float, rank: int, order: int, kind: int, a: Any = None, b: Any = None
    ) -> None:
        """An event of ``kind`` at ``t``, placed by ``rank`` and ``order`` in its instant."""
        self.seq += 1
        heappush(self._heap, (float(t), rank, order, self.seq, (kind, order, a, b)))

    def next_time(self) -> float:
        """The time of the next event (inf when none is left)."""
        return self._heap[0][0] if self._heap else math.inf

    def pop_at(self, now: float, rank: int) -> Item | None:
        """The next event's item, removed, if it is an event of ``rank`` at ``now``."""
        heap = self._heap
        if heap and heap[0][0] == now and heap[0][1] == rank:
            return heappop(heap)[4]
        return None

    def order_at(self, now: float, rank: int) -> int:
        """The next event's order if it is an event of ``rank`` at ``now``, else -1."""
        heap = self._heap
        if heap and heap[0][0] == now and heap[0][1] == rank:
            return heap[0][2]
        return -1

    def pop(self) -> Item:
        """The next event's item, removed."""
        if not self._heap:
            raise IndexError("pop from an empty event queue")
        return heappop(self._heap)[4]


def _load_c_queue() -> type[PyEventQueue] | None:
    try:
        from schedlab.engine._cevents import EventQueue as c_queue
    except ImportError:  # not compiled (no compiler at install time)
        return None
    return c_queue


CEventQueue = _load_c_queue()
USING_C_QUEUE = CEventQueue is not None and not pure_python_forced()

if TYPE_CHECKING:
    EventQueue = PyEventQueue
else:
    EventQueue = CEventQueue if USING_C_QUEUE else PyEventQueue
