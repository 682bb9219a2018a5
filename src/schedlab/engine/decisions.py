"""Decisions a policy returns from ``schedule``; the engine validates and applies them.

A policy never mutates the cluster: it says what it wants and the engine checks that it is
possible (DESIGN.md section 2). Each decision is a small immutable record.
"""

from __future__ import annotations

from typing import NamedTuple, Union


class Start(NamedTuple):
    """Start (or resume) waiting job ``job`` now on ``procs`` processors.

    ``procs`` None means the job's own rigid size; moldable policies pass their choice.
    """

    job: int
    procs: int | None = None


class Suspend(NamedTuple):
    """Preempt running job ``job`` now.

    ``keep_progress`` True is suspend/resume (or a checkpoint): the work done is kept and the
    job later resumes with its remaining run time. False is requeue: the job starts again
    from scratch when restarted. ``overhead``: seconds the restart costs before any work is
    done (reading a checkpoint; recorded as ``overhead_time``); ignored with a requeue.
    """

    job: int
    keep_progress: bool = True
    overhead: float = 0.0


class Kill(NamedTuple):
    """End running or waiting job ``job`` now and mark it killed (a running one counts a
    preemption, and the time of its attempt is lost: ``wasted_time``)."""

    job: int


class WakeAt(NamedTuple):
    """Ask for a scheduling pass at ``time`` even if no job event happens then."""

    time: float


class Evict(NamedTuple):
    """Take running or waiting job ``job`` out of the pool and hand it back to its actor.

    The work done is kept (in work units, so it resumes right on other nodes): a checkpoint of a
    global job that may restart anywhere (Baranov and Tikhomirov). Only jobs an actor dispatched
    can be evicted; the policy forgets the job itself (no ``on_finish``). ``overhead``: seconds
    its restart costs before any work is done (reading the checkpoint), wherever it restarts.
    """

    job: int
    overhead: float = 0.0


# -- decisions of actors (meta-schedulers, dispatchers, agents, pilots; DESIGN 3b) ----------


class Dispatch(NamedTuple):
    """Send released job ``job`` (global id) to pool ``pool``; it arrives after ``delay`` s
    (a transfer), then waits the pool's receive delay (mu_rec) before its policy sees it."""

    job: int
    pool: int
    delay: float = 0.0


class Send(NamedTuple):
    """Deliver ``message`` to actor ``actor`` (its index) after ``delay`` seconds."""

    actor: int
    message: object
    delay: float = 0.0


class Spawn(NamedTuple):
    """Create a new open-ended job (a pilot) and dispatch it to ``pool`` after ``delay`` s.

    It asks for ``procs`` processors for ``requested_time`` seconds (at most the pool's
    t_max); it runs until its actor returns ``End`` for it, or is killed at that limit. The
    actor learns its id from ``on_job_event(job, JobEvent.SPAWNED)``; ``tag`` is kept for it.
    """

    pool: int
    procs: int
    requested_time: float
    delay: float = 0.0
    tag: object = None


class RunIn(NamedTuple):
    """Run released job ``job`` now inside running job ``host`` (a payload in its pilot), on
    ``procs`` of the host's processors (None: the job's own size) at the host's node power."""

    job: int
    host: int
    procs: int | None = None


class End(NamedTuple):
    """End open-ended job ``job`` now (a pilot that exits); not a kill."""

    job: int


Decision = Union[Start, Suspend, Kill, WakeAt, Evict]
ActorDecision = Union[Dispatch, Send, Spawn, RunIn, End, WakeAt]
