"""The victim rule of absolute priorities (Baranov and Tikhomirov; SPEC 6), as one pure function.

A job that does not fit the free processors may preempt running jobs of strictly lower
priority, never of equal or higher. Victims are taken lowest priority first, then most
recently started, until the job fits; then every victim not needed is dropped, in reverse
order of taking (the last taken first), so no more processors are freed than necessary.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["choose_victims"]


def choose_victims(
    need: int,
    priority: float,
    free: int,
    running: Sequence[tuple[int, float, float, int]],
) -> list[int] | None:
    """The jobs to preempt so that ``need`` processors are free, or None if impossible.

    ``running``: (job, priority, start key, processors) of every running job; a larger
    start key is a more recent start. Returns the victims in the order they were taken
    (empty when the job fits already).
    """
    if need <= free:
        return []
    lower = [r for r in running if r[1] < priority]
    lower.sort(key=lambda r: (r[1], -r[2]))
    taken: list[tuple[int, int]] = []
    gained = free
    for job, _, _, procs in lower:
        taken.append((job, procs))
        gained += procs
        if gained >= need:
            break
    else:
        return None
    kept: list[tuple[int, int]] = []
    for job, procs in reversed(taken):
        if gained - procs >= need:
            gained -= procs  # not needed: the job fits without preempting it
        else:
            kept.append((job, procs))
    kept.reverse()
    return [job for job, _ in kept]
