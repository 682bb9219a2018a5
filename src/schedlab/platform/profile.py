"""The availability profile: free processors as a step function of time.

One structure serves every reservation-based policy (EASY's shadow time, conservative
backfilling, DBF). Two parallel Python lists hold the breakpoints and the free processors
from each breakpoint to the next; the last segment extends to infinity. The representation
is kept canonical (no two neighbouring segments with the same value).

A lazily extended running maximum of free processors (``max_free_before``) answers "is there
any moment before t with p processors free?" in one bisection; conservative backfilling asks
it for every waiting job at every compression, and the answer is usually no.

The C type (``_cprofile.c``) computes the same compression faster on long queues: bounds of
the runs of free processors per power-of-two threshold settle most jobs at once, and
per-size run memos carry a search on from where the last job of its size stopped. This
class keeps the plain search, and is the oracle they are tested against.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import MutableSequence, Sequence

from schedlab.errors import PolicyError

_INF = float("inf")


class Profile:
    """Free processors over [origin, +inf) on a cluster of ``total`` processors."""

    __slots__ = ("total", "times", "free", "_best", "_valid")

    def __init__(self, total: int, origin: float = 0.0) -> None:
        self.total = int(total)
        self.times: list[float] = [origin]
        self.free: list[int] = [self.total]
        self._best: list[int] = []  # running max of free over segments 0..i
        self._valid = 0  # _best[:_valid] is up to date

    def __len__(self) -> int:
        return len(self.times)

    def __repr__(self) -> str:
        steps = ", ".join(f"{t:g}:{f}" for t, f in zip(self.times, self.free))
        return f"Profile({steps})"

    def advance(self, now: float) -> None:
        """Forget the past: the profile starts at ``now`` from here on."""
        times = self.times
        k = bisect_right(times, now) - 1
        if k > 0:
            del times[:k]
            del self.free[:k]
            self._valid = 0
        if times[0] < now:
            times[0] = now

    def free_at(self, t: float) -> int:
        """Free processors at instant ``t`` (t >= origin)."""
        return self.free[bisect_right(self.times, t) - 1]

    # -- the running maximum ------------------------------------------------------------
    def _best_upto(self, i: int) -> list[int]:
        """Make the running maximum valid for segments 0..i and return it."""
        v = self._valid
        best = self._best
        if v <= i:
            free = self.free
            del best[v:]
            m = best[v - 1] if v else -1
            for f in free[v : i + 1]:
                if f > m:
                    m = f
                best.append(m)
            self._valid = i + 1
        return best

    def max_free_before(self, t: float) -> int:
        """Most processors free at any moment in [origin, t); -1 if t <= origin."""
        i = bisect_left(self.times, t)
        if i == 0:
            return -1
        return self._best_upto(i - 1)[i - 1]

    # -- search ---------------------------------------------------------------------------
    def earliest_start(
        self,
        procs: int,
        duration: float,
        not_before: float,
        limit: float = _INF,
        own_start: float = _INF,
    ) -> float:
        """Earliest t >= not_before with >= procs free throughout [t, t + duration).

        Starts are only ever at ``not_before`` or at a breakpoint. If no such t is below
        ``limit``, returns ``limit`` (callers pass a start they already know is feasible).
        ``own_start``: the job already holds ``procs`` processors from ``own_start`` to
        ``own_start + duration``; count them as free (used with ``limit = own_start`` to ask
        whether a reserved job could start earlier, without touching the profile).
        """
        times = self.times
        free = self.free
        last = len(times) - 1
        i = bisect_right(times, not_before) - 1
        if i < 0:
            i = 0
        if limit != _INF:
            # jump to the first segment where that many processors are ever free
            end_index = bisect_left(times, limit)
            if end_index == 0:
                return limit
            best = self._best_upto(end_index - 1)
            first = bisect_left(best, procs, 0, end_index)
            if first == end_index:
                return limit
            if first > i:
                i = first
        while True:
            while free[i] < procs:
                i += 1
                if i > last:  # only if procs > total: callers validate sizes
                    raise PolicyError(f"a job of {procs} processors never fits on {self.total}")
            start = times[i]
            if start < not_before:
                start = not_before
            if start >= limit:
                return limit
            end = start + duration
            k = i + 1
            while k <= last and times[k] < end:
                f = free[k]
                if times[k] >= own_start:
                    f += procs
                if f < procs:
                    break
                k += 1
            else:
                return start
            i = k

    # -- updates --------------------------------------------------------------------------
    def _split(self, t: float) -> int:
        """Index of the segment that starts exactly at ``t``, inserting a breakpoint."""
        times = self.times
        i = bisect_left(times, t)
        if i < len(times) and times[i] == t:
            return i
        times.insert(i, t)
        self.free.insert(i, self.free[i - 1])
        return i

    def _add(self, start: float, end: float, delta: int) -> None:
        if end <= start:
            return
        i = self._split(start)
        k = self._split(end)
        free = self.free
        for m in range(i, k):
            free[m] += delta
        # restore canonical form at the two edges (k first: deleting it keeps i valid)
        times = self.times
        if free[k] == free[k - 1]:
            del times[k]
            del free[k]
        if i > 0 and free[i] == free[i - 1]:
            del times[i]
            del free[i]
            i -= 1
        if i < self._valid:
            self._valid = i

    def reserve(self, start: float, end: float, procs: int) -> None:
        """Take ``procs`` processors over [start, end)."""
        self._add(start, end, -procs)

    def release(self, start: float, end: float, procs: int) -> None:
        """Give back ``procs`` processors over [start, end) (start clipped to the origin)."""
        if start < self.times[0]:
            start = self.times[0]
        self._add(start, end, procs)

    def compress(
        self,
        jobs: list[int],
        start_at: MutableSequence[float],
        procs: Sequence[int],
        duration: Sequence[float],
        now: float,
    ) -> list[int]:
        """Move each reservation of ``jobs``, in order, to its earliest start (CBF, SPEC 4).

        ``start_at[j]`` is job j's reserved start; the reservation holds ``procs[j]``
        processors over [start_at[j], start_at[j] + duration[j]). A job never moves later.
        Updates ``start_at`` and the profile in place; returns the jobs that moved.
        """
        moved = []
        for j in jobs:
            start = start_at[j]
            if start <= now:
                continue
            p = procs[j]
            if self.max_free_before(start) < p:
                continue  # never enough processors free before it: cannot move
            r = duration[j]
            new = self.earliest_start(p, r, now, limit=start, own_start=start)
            if new < start:
                self._add(start, start + r, p)
                self._add(new, new + r, -p)
                start_at[j] = new
                moved.append(j)
        return moved

    def segments(self) -> list[tuple[float, int]]:
        """(start, free) of each segment, for tests and plots."""
        return list(zip(self.times, self.free))


def split_due(jobs: list[int], start_at: Sequence[float], now: float) -> tuple[list[int], float]:
    """Take out of ``jobs`` (in place, order kept) every job whose ``start_at`` is <= now.

    Returns those jobs, in ``jobs`` order, and the earliest ``start_at`` of the jobs left
    (inf if none). Conservative backfilling asks it instead of keeping a heap of starts: a
    compression moves hundreds of reservations, and one pass over the waiting jobs (in C)
    is cheaper than a heap entry per move.
    """
    due: list[int] = []
    kept: list[int] = []
    nxt = _INF
    for j in jobs:
        t = start_at[j]
        if t <= now:
            due.append(j)
        else:
            kept.append(j)
            if t < nxt:
                nxt = t
    if due:
        jobs[:] = kept
    return due, nxt
