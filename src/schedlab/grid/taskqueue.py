"""The DIRAC task queue and the messages of its matcher (`grid.dirac`; Caron et al., LIP
RR-2005-13, sections 3 and 7): jobs grouped in job classes, classes in creation order, FIFO
within a class; a request carries a resource description, a reply the job matched."""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

__all__ = ["Reply", "Request", "Resource", "TaskQueue"]


class Resource(NamedTuple):
    """A resource description, as a request carries it to the matcher.

    ``procs``: the most processors a job may use (a queue's size, a pilot's processors);
    ``power``: NCU/s of the nodes a job would run on; ``seconds``: the time it may run
    (inf: not limited by the description); ``free``: free processors of the queue when it
    asked (information only).
    """

    pool: int
    procs: int
    power: float
    seconds: float
    free: int


class Request(NamedTuple):
    """A request to the matcher: ``take`` a job (static agents, pilots) or only ask whether
    one fits (pilot agents' probes); ``pilot`` is the asking pilot (-1: an agent)."""

    kind: str
    resource: Resource
    pilot: int = -1
    take: bool = True


class Reply(NamedTuple):
    """The matcher's answer: ``job`` taken (or, for a probe, the head that fits), -1 for
    none; ``procs`` the processors that job asks for."""

    request: Request
    job: int
    procs: int = 0


class TaskQueue:
    """Jobs grouped by class (a hashable requirement tuple), classes in creation order,
    FIFO within a class (`grid.dirac`'s module docstring).

    ``work`` (per job, e.g. the requested NCU) is also kept sorted per class, so that
    `count_within` answers "how many jobs of this class need at most this much" in
    O(log n): a pilot agent's probe asks it of every class at each probe, and counting by
    scanning the queues made a large grid quadratic.
    """

    def __init__(self, work: Sequence[float] | None = None) -> None:
        self._classes: dict[tuple[int, int], deque[int]] = {}  # dicts keep insertion order
        self._work = work
        self._sorted: dict[tuple[int, int], list[float]] = {}  # class -> its jobs' work
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def add(self, job: int, key: tuple[int, int]) -> None:
        self._queue_of(key, job).append(job)

    def put_back(self, job: int, key: tuple[int, int]) -> None:
        """Return a job that was taken to the head of its class (a pilot died meanwhile)."""
        self._queue_of(key, job).appendleft(job)

    def _queue_of(self, key: tuple[int, int], job: int) -> deque[int]:
        """Class ``key``'s FIFO (made if new), ``job``'s work counted in."""
        queue = self._classes.get(key)
        if queue is None:
            queue = self._classes[key] = deque()
            self._sorted[key] = []
        if self._work is not None:
            insort(self._sorted[key], self._work[job])
        self._size += 1
        return queue

    def first(self, fits: Callable[[int], bool]) -> tuple[tuple[int, int], int] | None:
        """FRFS: the first class in creation order whose head fits, and that head."""
        for key, queue in self._classes.items():
            if fits(queue[0]):
                return key, queue[0]
        return None

    def take(self, key: tuple[int, int]) -> int:
        """Remove and return the head of class ``key`` (deleted when emptied)."""
        queue = self._classes[key]
        job = queue.popleft()
        if not queue:
            del self._classes[key]
            del self._sorted[key]
        elif self._work is not None:
            work = self._sorted[key]
            del work[bisect_left(work, self._work[job])]
        self._size -= 1
        return job

    def count_within(self, key: tuple[int, int], most: float) -> int:
        """How many jobs of class ``key`` need at most ``most`` work (0 for no such class);
        only for a queue given the jobs' ``work``."""
        if self._work is None:
            raise ValueError("count_within needs a TaskQueue built with the jobs' work")
        work = self._sorted.get(key)
        return bisect_right(work, most) if work is not None else 0

    def queues(self) -> Iterator[tuple[tuple[int, int], deque[int]]]:
        """(class, its live FIFO) in creation order: read, never modify."""
        yield from self._classes.items()

    def classes(self) -> Iterator[tuple[tuple[int, int], list[int]]]:
        """(class, jobs) in creation order (for tests and inspection)."""
        for key, queue in self._classes.items():
            yield key, list(queue)
