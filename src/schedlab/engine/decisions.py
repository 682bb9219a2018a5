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
    from scratch when restarted.
    """

    job: int
    keep_progress: bool = True


class Kill(NamedTuple):
    """End running or waiting job ``job`` now and mark it killed."""

    job: int


class WakeAt(NamedTuple):
    """Ask for a scheduling pass at ``time`` even if no job event happens then."""

    time: float


Decision = Union[Start, Suspend, Kill, WakeAt]
