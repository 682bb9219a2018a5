"""Event kinds and the tie rule that orders events of one instant (SPEC section 1).

At one instant the engine applies, in this order:

1. every completion (a job reaching its end, or its requested time under kill_on_overrun),
   in job order;
2. every submission, in job order;
3. wake-ups a policy asked for (they carry no job, they only cause a pass);

and only then calls the policy's ``schedule`` once. "Job order" is the order of the
workload: submit time, then position in the trace. Completions come first so that a job
submitted at the very instant another ends sees the processors it frees, as in a real
batch system whose scheduler runs after the resource manager has noticed the end.

The completion heap is keyed ``(time, job, generation)``: ``job`` is the job's index in the
submit-ordered workload, so popping the heap yields completions in job order; the
generation number makes completions of suspended or killed jobs stale.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum


class EventKind(IntEnum):
    """Kinds of event, valued by their rank among the events of one instant."""

    FINISH = 0
    SUBMIT = 1
    WAKE = 2


class JobState(IntEnum):
    """Life cycle of a job inside one simulation."""

    PENDING = 0  # not yet submitted (released)
    WAITING = 1  # submitted, never started (in a pool: admitted to its queue)
    RUNNING = 2
    SUSPENDED = 3  # preempted, waits to resume (or restart, under requeue)
    DONE = 4
    RELEASED = 5  # (kernel) released to an actor, or handed back by Evict: not in a pool
    TRANSIT = 6  # (kernel) dispatched: travelling to a pool or within its receive delay


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
