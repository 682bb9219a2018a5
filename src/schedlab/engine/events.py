"""Event kinds and the tie rule that orders the events of one instant (SPEC section 1).

Both loops apply the events of one instant before any scheduling pass, in three **ranks**:

1. ``ENDS``: completions (a job reaching its end, or the limit that kills it) and, in the
   kernel, node releases (a batch system noticing an end mu_env after it), in job order;
2. ``DELIVERIES``: submissions; in the kernel every delivery of a job (its release to an
   actor or a pool, its arrival at a pool after a transfer, its admission into the queue
   after mu_rec), in job order, then messages between actors, in the order they were sent;
3. ``WAKES``: wake-ups a policy or an actor asked for (they carry no job, they only cause a
   pass).

"Job order" is the order of the workload: submit time, then position in the trace (a
spawned job comes after every job of the workload, in the order of the spawns). Completions
come first so that a job submitted at the very instant another ends sees the processors it
frees, as in a real batch system whose scheduler runs after the resource manager has noticed
the end.

The inlined single-cluster loop (`engine.fastpath`) keeps completions in a heap keyed
``(time, job, generation)`` and streams submissions; after its events it calls the policy
once. The kernel (`engine.kernel`) keys its heap ``(time, rank, order, seq, kind, ...)``:
``order`` is the job's id for job events and ``MESSAGE_ORDER + seq`` for messages, so a pop
yields this rule, and ``seq`` (one counter per push) breaks what remains in push order. The
generation number carried by an end makes the pending end of a stopped segment stale.

In the kernel, an instant is a sequence of **rounds**: a round applies every event due now in
rank order, then asks every actor that had an event to ``schedule`` (in actor order), then
every pool that had one (in pool order). Decisions with zero delay act in the same instant, in
the next round at the latest; the instant ends when a round leaves nothing due now.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum

__all__ = [
    "ADMIT",
    "ARRIVE",
    "DELIVERIES",
    "DONE",
    "END",
    "ENDS",
    "MESSAGE",
    "MESSAGE_ORDER",
    "NODES",
    "PENDING",
    "RANK",
    "RELEASE",
    "RELEASED",
    "RUNNING",
    "SUSPENDED",
    "TRANSIT",
    "WAITING",
    "WAKES",
    "WAKE_ACTOR",
    "WAKE_POOL",
    "EventKind",
    "JobState",
    "Rank",
    "gc_paused",
]


class Rank(IntEnum):
    """The three ranks of the events of one instant (module docstring)."""

    ENDS = 0
    DELIVERIES = 1
    WAKES = 2


class EventKind(IntEnum):
    """What a kernel event does when it is popped."""

    END = 0  # a run segment stops: the job completes or is killed at its limit
    NODES = 1  # mu_env after an end: its nodes are free and its policy is told
    RELEASE = 2  # a dependant is released (its parent's end + think time)
    ARRIVE = 3  # a dispatched job reaches its pool after its transfer
    ADMIT = 4  # an arrived job enters its pool's queue after mu_rec
    MESSAGE = 5  # a Send reaches its actor
    WAKE_POOL = 6  # a pool's policy asked for a pass
    WAKE_ACTOR = 7  # an actor asked for a pass


# the rank of each kind
RANK: dict[EventKind, Rank] = {
    EventKind.END: Rank.ENDS,
    EventKind.NODES: Rank.ENDS,
    EventKind.RELEASE: Rank.DELIVERIES,
    EventKind.ARRIVE: Rank.DELIVERIES,
    EventKind.ADMIT: Rank.DELIVERIES,
    EventKind.MESSAGE: Rank.DELIVERIES,
    EventKind.WAKE_POOL: Rank.WAKES,
    EventKind.WAKE_ACTOR: Rank.WAKES,
}
# the order of a message among the deliveries of its instant: after every job's
MESSAGE_ORDER = 1 << 62


class JobState(IntEnum):
    """Life cycle of a job inside one simulation."""

    PENDING = 0  # not yet submitted (released)
    WAITING = 1  # submitted, never started (in a pool: admitted to its queue)
    RUNNING = 2
    SUSPENDED = 3  # preempted, waits to resume (or restart, under requeue)
    DONE = 4
    RELEASED = 5  # (kernel) released to an actor, or handed back by Evict: not in a pool
    TRANSIT = 6  # (kernel) dispatched: travelling to a pool or within its receive delay


# The values as plain ints, for the loops' hot paths (they compare and hash faster than
# enum members, and are what the heap entries and the per-job state lists hold).
END, NODES, RELEASE, ARRIVE, ADMIT, MESSAGE, WAKE_POOL, WAKE_ACTOR = map(int, EventKind)
ENDS, DELIVERIES, WAKES = map(int, Rank)
PENDING, WAITING, RUNNING, SUSPENDED, DONE, RELEASED, TRANSIT = map(int, JobState)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a simulation loop: the loops allocate
    millions of short-lived tuples and make no reference cycles, and the collector's passes
    over a large heap cost up to a third of a run on 200k-job traces."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
