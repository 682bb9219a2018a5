"""First come, first served on nodes: start the queue head on `place` while it fits.

The head that does not fit blocks every later job. Between two job ends the nodes only fill
up (a pass starts jobs, nothing gives resources back), so a head that did not fit still does
not: a pass with only new arrivals behind a blocked head costs nothing.
"""

from __future__ import annotations

from typing import ClassVar

from schedlab.engine.decisions import WakeAt
from schedlab.engine.nodeloop import NodeView, Place
from schedlab.platform.placement import place
from schedlab.schedulers.fcfs import FcfsParams
from schedlab.schedulers.nodes.registry import register_node_policy

_NOTHING: list[Place | WakeAt] = []  # shared empty answer: the engine only iterates it


@register_node_policy
class NodeFcfs:
    """Arrival order; the head blocks the rest (tests/reference_nodes.py, FCFS)."""

    name: ClassVar[str] = "fcfs"
    preempts: ClassVar[bool] = False
    Params: ClassVar[type] = FcfsParams

    def __init__(self, params: FcfsParams | None = None) -> None:
        self.params = params or FcfsParams()

    def setup(self, view: NodeView) -> None:
        self._view = view
        self._queue: list[int] = []
        self._head = 0
        self._blocked = -1  # the head that did not fit, while no job has ended since

    def on_submit(self, job: int) -> None:
        self._queue.append(job)

    def on_finish(self, job: int) -> None:
        self._blocked = -1

    def schedule(self, now: float, view: NodeView) -> list[Place | WakeAt]:
        queue = self._queue
        head = self._head
        end = len(queue)
        if head == end or queue[head] == self._blocked:
            return _NOTHING
        requests = view.requests
        rule = view.rule
        state = view.state
        work = None  # a copy of the state, made at the first start
        out: list[Place | WakeAt] = []
        while head < end:
            j = queue[head]
            alloc = place(state if work is None else work, requests[j], rule)
            if alloc is None:
                self._blocked = j
                break
            if work is None:
                work = state.copy()
            work.allocate(alloc)
            out.append(Place(j, alloc))
            head += 1
        if head > 4096 and head * 2 > end:  # drop the consumed prefix now and then
            del queue[:head]
            head = 0
        self._head = head
        return out
