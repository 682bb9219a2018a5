"""EASY backfilling as schedlab ran it before issue 15, kept as a test reference.

This is ``schedlab.schedulers.easy`` at commit b3ecbcd, unchanged but for this docstring,
the class name, no ``@register_policy`` and ``EasyParams`` taken from the module it was
replaced by (same parameters): its backfilling pass re-merges,
re-sorts and re-tests every waiting job narrow enough for the free processors, which is
quadratic when queues grow (load above 1) but simple. The bucketed pass of issue 15 must
start every job at the same time as this one (tests/unit/test_easy_backfill_buckets.py,
benchmarks/check_easy_starts.py). Use it as ``simulate(workload, ListScanEasy(params))``.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import ClassVar

from schedlab.engine.decisions import Decision, Start
from schedlab.engine.protocol import ClusterView
from schedlab.platform import Profile
from schedlab.schedulers.easy import EasyParams

_INF = float("inf")
_NOTHING: list[Decision] = []  # shared empty answer: the engine only iterates it


class ListScanEasy:
    """EASY backfilling with one reservation, for the queue head."""

    name: ClassVar[str] = "easy-listscan"
    Params: ClassVar[type] = EasyParams

    def __init__(self, params: EasyParams | None = None) -> None:
        self.params = params or EasyParams()
        self._sjf = self.params.backfill_order == "sjf"

    def setup(self, view: ClusterView) -> None:
        self._req = view.requested_time
        self._procs = view.procs
        self._queue: list[int] = []  # waiting jobs, arrival order
        self._buckets: dict[int, list[int]] = {}  # size -> waiting jobs of that size
        self._sizes: list[int] = []  # sorted keys of _buckets
        # processors of running jobs until their expected end (start + requested time): the
        # shared availability profile, here with no reservation in it
        self._profile = Profile(view.total_procs, origin=view.submit_at[0] if view.jobs else 0.0)
        self._expected_end: list[float] = []  # of running jobs; grows on submit
        self._view = view
        self._dirty = True  # a job ended or the head may have changed: full pass
        self._shadow = _INF
        self._extra = 0
        self._shadow_stale = False  # shadow/extra not computed for the current state yet
        self._checked = 0  # queue positions < _checked were tested at the last pass
        self._blocked_min_req = _INF  # smallest req among jobs held back by the time test

    # -- events ---------------------------------------------------------------------
    def on_submit(self, job: int) -> None:
        self._expected_end.append(0.0)
        if not self._queue:
            self._dirty = True
        self._queue.append(job)
        p = self._procs[job]
        bucket = self._buckets.get(p)
        if bucket is None:
            self._buckets[p] = [job]
            insort(self._sizes, p)
        else:
            bucket.append(job)

    def on_finish(self, job: int) -> None:
        now = self._view.now
        end = self._expected_end[job]
        if now < end:
            self._profile.release(now, end, self._procs[job])
        self._dirty = True

    # -- the pass -----------------------------------------------------------------------
    def _start(self, now: float, j: int, out: list[Decision]) -> None:
        end = now + self._req[j]
        self._expected_end[j] = end
        p = self._procs[j]
        self._profile.reserve(now, end, p)
        bucket = self._buckets[p]
        if bucket[0] == j:
            del bucket[0]
        else:
            bucket.remove(j)
        if not bucket:
            del self._buckets[p]
            del self._sizes[bisect_left(self._sizes, p)]
        out.append(Start(j))

    def _compute_shadow(self, need: int) -> None:
        """Shadow time and extra processors for a head needing more than is free now.

        The profile holds only running jobs, so free processors never decrease over time:
        the shadow time is the first moment ``need`` are free, the extra processors what is
        free then beyond ``need``.
        """
        profile = self._profile
        shadow = profile.earliest_start(need, 0.0, self._view.now)
        self._shadow = shadow
        self._extra = profile.free_at(shadow) - need if self.params.extra_procs else 0
        self._shadow_stale = False

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        queue = self._queue
        if not queue:
            return _NOTHING
        free = view.free_procs
        if not self._dirty:
            # no job ended since the last pass: the head is still blocked, free can only
            # have shrunk, and only new arrivals or time-blocked jobs may fit now
            checked = self._checked
            self._checked = len(queue)
            if free == 0:
                return _NOTHING
            if self._shadow_stale:
                procs = self._procs
                if all(procs[j] > free for j in queue[checked:]):
                    return _NOTHING  # (the only jobs tested at the last pass were too wide)
                self._compute_shadow(procs[queue[0]])
            if now + self._blocked_min_req <= self._shadow:
                self._blocked_min_req = _INF  # a time-blocked job may fit now: test all
                out: list[Decision] = []
                self._backfill(now, free, 1, out)
            elif checked == len(queue) - 1:
                # the common case: one new job, tested inline
                j = queue[checked]
                p = self._procs[j]
                if p > free:
                    return _NOTHING
                r = self._req[j]
                if now + r > self._shadow:
                    if p > self._extra:
                        if r < self._blocked_min_req:
                            self._blocked_min_req = r
                        return _NOTHING
                    self._extra -= p
                out = []
                self._start(now, j, out)
                queue.pop()
            elif checked < len(queue):
                out = []
                self._backfill(now, free, checked, out)
            else:
                return _NOTHING
            self._checked = len(queue)
            return out
        self._dirty = False
        self._profile.advance(now)  # forget ended jobs' past (once per job end at most)
        procs = self._procs
        out = []
        # FCFS part: start from the head while it fits
        started = 0
        while started < len(queue) and procs[queue[started]] <= free:
            j = queue[started]
            free -= procs[j]
            self._start(now, j, out)
            started += 1
        if started:
            del queue[:started]
        self._checked = len(queue)
        if not queue or free == 0:
            return out  # shadow time is computed once processors are free to backfill
        self._blocked_min_req = _INF
        sizes = self._sizes
        if sizes[0] > free or (
            len(queue) == 1
            or (
                sizes[0] == procs[queue[0]]
                and len(self._buckets[sizes[0]]) == 1
                and (len(sizes) == 1 or sizes[1] > free)
            )
        ):
            # nobody but the head is narrow enough: the shadow time waits until needed
            self._shadow_stale = True
            return out
        self._compute_shadow(procs[queue[0]])
        self._backfill(now, free, 1, out)
        self._checked = len(queue)
        return out

    def _backfill(self, now: float, free: int, first: int, out: list[Decision]) -> int:
        """Try queue[first:] (head excluded) for backfilling; returns the free count after."""
        queue = self._queue
        procs = self._procs
        req = self._req
        shadow = self._shadow
        extra = self._extra
        blocked_min = self._blocked_min_req
        sizes = self._sizes
        if first == 1:
            k = bisect_right(sizes, free)
            if k == 0:
                return free
            buckets = self._buckets
            if k == 1:
                candidates = list(buckets[sizes[0]])
            else:
                candidates = []
                for s in sizes[:k]:
                    candidates.extend(buckets[s])
                candidates.sort()
            head = queue[0]
        else:
            candidates = queue[first:]
            head = -1
        if self._sjf:
            candidates.sort(key=req.__getitem__)
        started: list[int] = []
        for j in candidates:
            p = procs[j]
            if p > free or j == head:
                continue
            end = now + req[j]
            if end <= shadow:
                pass
            elif p <= extra:
                extra -= p
            else:
                r = req[j]
                if r < blocked_min:
                    blocked_min = r
                continue
            free -= p
            self._start(now, j, out)
            started.append(j)
            if free == 0:
                break
        if started:
            if len(started) == 1:
                queue.remove(started[0])
            else:
                gone = set(started)
                queue[:] = [j for j in queue if j not in gone]
        self._extra = extra
        self._blocked_min_req = blocked_min
        return free
