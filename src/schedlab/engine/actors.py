"""Actors: the components of a platform that are not batch policies (DESIGN 3b).

Meta-schedulers, matchers, site agents, pilots and dispatchers all implement one small
protocol. The kernel calls their hooks as events happen and, once per round of an instant
in which they had an event, ``schedule``; they answer with decisions the kernel validates
(`Dispatch`, `Send`, `Spawn`, `RunIn`, `End`, `WakeAt`). Which job runs and where it runs
stay separate: an actor picks the pool, the pool's policy picks what runs when.

Actors read the platform through a `PlatformView` (the kernel itself, read-only by
contract): pools with their node groups and queue depths, jobs with their sizes, requested
times and states. Actual run times are never shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import ClassVar, Protocol, runtime_checkable

from schedlab.engine.decisions import ActorDecision, Dispatch

__all__ = [
    "Actor",
    "BaseActor",
    "DirectDispatch",
    "JobEvent",
    "PlatformView",
    "PoolState",
    "Selective",
    "listened_events",
    "watched_pools",
]


class JobEvent(IntEnum):
    """What happened to a job an actor dispatched, spawned or ran (``on_job_event``)."""

    SPAWNED = 0  # a Spawn created it (its id is now known)
    STARTED = 1  # it started, or resumed, in its pool (or inside its host)
    ENDED = 2  # it completed (or an open-ended job was ended)
    KILLED = 3  # it was killed (over its requested time, t_max, or by a policy)
    EVICTED = 4  # its pool handed it back (Evict): it may be dispatched again


class PoolState(Protocol):
    """What an actor may read of one pool (a batch queue); read-only by contract."""

    index: int
    name: str
    total: int  # processors
    free_total: int  # free now (nodes held after ends, mu_env, are not free)
    queued: int  # admitted jobs waiting to start or resume
    received: int  # jobs arrived, still within the receive delay (mu_rec)
    running: int
    powers: list[float]  # node power of each group, in placement order
    counts: list[int]  # processors of each group
    free: list[int]  # free processors of each group
    t_max: float


class PlatformView(Protocol):
    """What actors may read (read-only by contract): the time, the pools, and per-job facts
    by global id (the workload's jobs, then the spawned ones). Actual run times are never
    shown."""

    now: float
    tag: list[object]  # what a Spawn attached (None for other jobs)
    unreleased: list[int]  # jobs of the workload still to be released to each actor

    # (typed arrays in the kernel, so read-only sequences here)
    @property
    def state(self) -> Sequence[int]:
        """`engine.events.JobState` values."""

    @property
    def where(self) -> Sequence[int]:
        """The pool (-1: none, or in transit)."""

    @property
    def procs(self) -> Sequence[int]:
        """The requested size."""

    @property
    def requested_time(self) -> Sequence[float]:
        """The user's estimate at the job's size, on power 1 (s)."""

    @property
    def user(self) -> Sequence[int]: ...

    @property
    def node_power(self) -> Sequence[float]:
        """A running job's slowest node (NaN before its start)."""

    @property
    def alloc_procs(self) -> Sequence[int]:
        """Processors a running job holds."""

    @property
    def pools(self) -> Sequence[PoolState]: ...

    @property
    def attributes(self) -> Mapping[str, Sequence[float]]:
        """Per-job attributes of the workload (e.g. ``org``, the organisation number; NaN
        for spawned jobs)."""

    def watch_pools(self) -> list[int]:
        """A new list the kernel appends a pool's index to whenever its ``queued``,
        ``received`` or ``free_total`` changes, from this call on (the caller clears it as it
        reads it): an actor that ranks pools updates only those."""


@runtime_checkable
class Actor(Protocol):
    """A meta-scheduler, matcher, agent or dispatcher (module docstring).

    ``setup`` is called once with the actor's own index (the address `Send` uses) and the
    platform. ``on_arrival(job)``: a job released to this actor (its stream, a dependant, a
    job sent back). ``on_message``: a `Send` for it arrived. ``on_job_event``: something
    happened to a job it dispatched, spawned or ran. ``schedule(now)`` returns decisions.
    An actor may set ``listens`` (a set of `JobEvent`) to be told only of those; an event
    it is not told of does not make it schedule. An actor may set ``watches`` (pool indices,
    read after ``setup``) to hear of every job that starts or ends in those pools, its own or
    not (a site agent re-evaluating its queue). ``SPAWNED`` reaches the spawning actor while
    the Spawn is applied, whatever ``listens`` says (it is how it learns the pilot's id).
    """

    name: ClassVar[str]

    def setup(self, index: int, platform: PlatformView) -> None: ...

    def on_arrival(self, job: int) -> None: ...

    def on_message(self, message: object) -> None: ...

    def on_job_event(self, job: int, event: JobEvent) -> None: ...

    def schedule(self, now: float) -> list[ActorDecision]: ...


@runtime_checkable
class Selective(Protocol):
    """What an actor may add to `Actor` (optional; `BaseActor` has both): ``listens``, the
    `JobEvent` kinds it is told of (default: all), and ``watches``, the pools whose every start
    and end it hears, its own jobs or not (read right after ``setup``; default: none)."""

    listens: frozenset[JobEvent]
    watches: Sequence[int]


class BaseActor:
    """An actor that does nothing: inherit it and define only the hooks you need.

    It hears every job event (``listens``), watches no pool (``watches``), and its hooks
    ignore what they are told; ``schedule`` must be defined by the subclass.
    """

    name: ClassVar[str] = "actor"
    listens: ClassVar[frozenset[JobEvent]] = frozenset(JobEvent)
    watches: Sequence[int] = ()

    def setup(self, index: int, platform: PlatformView) -> None:
        pass

    def on_arrival(self, job: int) -> None:
        pass

    def on_message(self, message: object) -> None:
        pass

    def on_job_event(self, job: int, event: JobEvent) -> None:
        pass


def listened_events(actor: object) -> list[bool]:
    """Which job events ``actor`` is told of, by `JobEvent` value (its optional ``listens``;
    default: all)."""
    listens = getattr(actor, "listens", JobEvent)
    return [e in listens for e in JobEvent]


def watched_pools(actor: object) -> Sequence[int]:
    """The pools whose every start and end ``actor`` hears (its optional ``watches``, read
    right after its ``setup``; default: none)."""
    return tuple(getattr(actor, "watches", ()))


class DirectDispatch(BaseActor):
    """The trivial meta-scheduler: every job that arrives goes to one pool, at once.

    With it a one-pool platform behaves exactly like a job stream fed to the pool directly;
    the M/M/c validation runs through it to exercise the actor path (SPEC 5, Validation).
    """

    name: ClassVar[str] = "direct"
    listens: ClassVar[frozenset[JobEvent]] = frozenset()

    def __init__(self, pool: int = 0, delay: float = 0.0) -> None:
        self.pool = pool
        self.delay = delay
        self._arrived: list[int] = []

    def setup(self, index: int, platform: PlatformView) -> None:
        self._arrived = []

    def on_arrival(self, job: int) -> None:
        self._arrived.append(job)

    def schedule(self, now: float) -> list[ActorDecision]:
        out: list[ActorDecision] = [Dispatch(j, self.pool, self.delay) for j in self._arrived]
        self._arrived.clear()
        return out
