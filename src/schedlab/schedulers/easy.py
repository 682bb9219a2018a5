"""EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), as SPEC section 4 states it.

The queue is in arrival order. Jobs start from the head while it fits; when the head does
not fit it gets a reservation at the *shadow time* (the earliest time enough processors are
free, from running jobs' requested ends) and later jobs may jump ahead if they fit now and
either end by the shadow time or use only the *extra* processors.

Why it is fast: most passes cannot start anything, and the code proves it cheaply.
- Shadow time and extra processors only change when a job ends or the head changes; between
  those events they are kept (a backfilled job changes them exactly as the incremental rule
  says, which is what a recomputation would give).
- A job that failed the test keeps failing until a job ends: free and extra processors only
  shrink, and under one shadow time a job that would end after it ends even later as
  ``now`` grows. So a pass with only new arrivals looks at the new jobs alone. (What lets a
  held-back job through is a job end: processors come back, or the new head's shadow time
  is later.)
- A full pass costs O(jobs started + size buckets x log n), not O(waiting jobs): at load
  above 1 the queue grows without bound, and testing every waiting job at every job end made
  EASY quadratic (issue 15). Waiting jobs are bucketed by size and only buckets no wider
  than the free processors are looked at. Free and extra processors only shrink during a
  pass, so a job that fails once fails for the rest of it, and each bucket offers one
  candidate at a time, merged with the others in backfilling order by a heap:
  - ``fcfs``: a bucket no wider than the extra processors offers its first job (any job of
    it passes); a wider one its first job that ends by the shadow time, found in O(log n)
    by a segment tree of requested times over the bucket (made only for long buckets, when
    first needed); a lower bound of the bucket's requested times, kept exact by searches
    that find nothing, skips a hopeless bucket in one test;
  - ``sjf``: a bucket is a heap by (requested time, arrival): the jobs that end by the
    shadow time are a prefix of it, so only its top is ever looked at.
- Started jobs are flagged, not removed (O(1)): the queue head and each bucket's start move
  past them, and a list drops its dead prefix once that is half of it.

Both engines number a policy's jobs 0, 1, 2, ... in arrival order; the per-job lists grow
on submit and the buckets find a job by bisecting its number.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush, heapreplace
from typing import ClassVar

from schedlab.engine.protocol import ClusterView, StepPolicy
from schedlab.errors import ConfigError
from schedlab.platform import Profile
from schedlab.schedulers.registry import register_policy

_INF = float("inf")
_NOTHING: list[int] = []  # shared empty answer: the engines only iterate it
BACKFILL_ORDERS = ("fcfs", "sjf")
_SMALL = 32  # a bucket with at most this many entries is searched without a tree
_COMPACT = 1024  # a list sheds its dead prefix once it is this long and half the list


@dataclass(frozen=True)
class EasyParams:
    """``backfill_order``: order in which queued jobs are tried for backfilling.

    "fcfs" (arrival order, the classic EASY of SPEC 4) or "sjf" (shortest requested time
    first, ties by arrival).

    ``extra_procs``: the second backfilling rule (a job that ends after the shadow time may
    still start on the *extra* processors, those the head will not need). False drops it:
    only jobs ending by the shadow time backfill (a variant used by ``reproduce pps`` to show
    how much a comparison depends on EASY). At its default it is left out of stored run
    configurations, so run ids from before it existed are unchanged.
    """

    backfill_order: str = "fcfs"
    extra_procs: bool = field(default=True, metadata={"omit_default": True})

    def __post_init__(self) -> None:
        if self.backfill_order not in BACKFILL_ORDERS:
            raise ConfigError("easy backfill_order", self.backfill_order, BACKFILL_ORDERS)


class _Bucket:
    """The waiting jobs of one size, ``count`` of them; emptied by `clear` at 0 and reused."""

    __slots__ = ("count", "req", "waiting")

    def __init__(self, req: Sequence[float], waiting: list[bool]) -> None:
        self.count = 0
        self.req = req
        self.waiting = waiting

    def add(self, j: int) -> None:
        raise NotImplementedError

    def remove(self, j: int) -> int:
        """Job j started (already flagged); returns where it was, for a search after it."""
        raise NotImplementedError

    def clear(self) -> None:
        """Forget the started jobs' entries once none waits."""
        raise NotImplementedError


class _ArrivalBucket(_Bucket):
    """fcfs: job numbers in arrival order (increasing); ``jobs[lo]`` is the first waiting one.

    Entries of started jobs stay until ``lo`` passes them. ``tree`` is a segment tree of
    requested times over ``jobs[:built]`` (+inf for started jobs, leaves at ``cap + i``): made
    when a long bucket is first searched, extended over new entries at each search.
    ``minr`` is a lower bound of the waiting jobs' requested times (exact after a search of
    the whole bucket that found nothing), so that most hopeless buckets cost one test.
    """

    __slots__ = ("jobs", "lo", "tree", "cap", "built", "minr")

    def __init__(self, req: Sequence[float], waiting: list[bool]) -> None:
        super().__init__(req, waiting)
        self.jobs: list[int] = []
        self.lo = 0
        self.tree: list[float] | None = None
        self.cap = 0
        self.built = 0
        self.minr = _INF

    def add(self, j: int) -> None:
        self.jobs.append(j)
        self.count += 1
        r = self.req[j]
        if r < self.minr:
            self.minr = r

    def remove(self, j: int) -> int:
        jobs = self.jobs
        lo = self.lo
        if jobs[lo] == j:
            i = lo
        elif jobs[-1] == j:
            i = len(jobs) - 1
        else:
            i = bisect_left(jobs, j, lo)
        self.count -= 1
        if i < self.built:
            tree = self.tree
            assert tree is not None
            k = self.cap + i
            tree[k] = _INF
            k >>= 1
            while k:
                a = tree[2 * k]
                b = tree[2 * k + 1]
                v = a if a < b else b
                if tree[k] == v:
                    break
                tree[k] = v
                k >>= 1
        if i == lo and self.count:
            waiting = self.waiting
            lo += 1
            while not waiting[jobs[lo]]:
                lo += 1
            if lo >= _COMPACT and 2 * lo >= len(jobs):
                del jobs[:lo]
                i -= lo
                lo = 0
                self.tree = None
                self.built = 0
            self.lo = lo
        return i

    def index(self, j: int) -> int:
        return bisect_left(self.jobs, j, self.lo)

    def _grown(self) -> list[float]:
        """The tree, made or extended to cover every entry."""
        jobs = self.jobs
        m = len(jobs)
        tree = self.tree
        req = self.req
        waiting = self.waiting
        if tree is None or m > self.cap:
            cap = 64
            while cap < 2 * m:  # room to grow before the next rebuild
                cap <<= 1
            tree = [_INF] * (2 * cap)
            for i in range(self.lo, m):
                j = jobs[i]
                if waiting[j]:
                    tree[cap + i] = req[j]
            for k in range(cap - 1, 0, -1):
                a = tree[2 * k]
                b = tree[2 * k + 1]
                tree[k] = a if a < b else b
            self.tree = tree
            self.cap = cap
            self.built = m
            return tree
        first = self.built
        if first < m:
            cap = self.cap
            for i in range(first, m):
                j = jobs[i]
                if waiting[j]:
                    tree[cap + i] = req[j]
            left = (cap + first) >> 1
            right = (cap + m - 1) >> 1
            while left:
                for k in range(left, right + 1):
                    a = tree[2 * k]
                    b = tree[2 * k + 1]
                    tree[k] = a if a < b else b
                left >>= 1
                right >>= 1
            self.built = m
        return tree

    def first_fit(self, start: int, now: float, shadow: float) -> int:
        """First waiting job at index >= start that ends by ``shadow`` if started now; -1.

        ``shadow`` is finite (a started job's +inf leaf must fail the test).
        """
        if not now + self.minr <= shadow:
            return -1
        jobs = self.jobs
        m = len(jobs)
        whole = start <= self.lo
        if whole:
            start = self.lo
        elif start >= m:
            return -1
        if self.tree is None and m - start <= _SMALL:
            req = self.req
            waiting = self.waiting
            least = _INF
            for i in range(start, m):
                j = jobs[i]
                if waiting[j]:
                    r = req[j]
                    if now + r <= shadow:
                        return j
                    if r < least:
                        least = r
            if whole:
                self.minr = least
            return -1
        tree = self.tree
        if tree is None or self.built != m:
            tree = self._grown()
        if whole and not now + tree[1] <= shadow:
            self.minr = tree[1]  # (entries before lo are +inf: the root is the exact minimum)
            return -1
        cap = self.cap
        # up and right from the leaf until a node holds a fitting job, then down to it
        # (now + r <= shadow is monotone in r, so a node's minimum answers for its leaves)
        k = cap + start
        while not now + tree[k] <= shadow:
            while k & 1:
                k >>= 1
            if not k:
                return -1
            k += 1
        while k < cap:
            k <<= 1
            if not now + tree[k] <= shadow:
                k += 1
        return jobs[k - cap]

    def clear(self) -> None:
        self.jobs.clear()
        self.lo = 0
        self.tree = None
        self.built = 0
        self.minr = _INF


class _ShortestBucket(_Bucket):
    """sjf: a heap of (requested time, job); started jobs are dropped when they surface."""

    __slots__ = ("heap",)

    def __init__(self, req: Sequence[float], waiting: list[bool]) -> None:
        super().__init__(req, waiting)
        self.heap: list[tuple[float, int]] = []

    def add(self, j: int) -> None:
        heappush(self.heap, (self.req[j], j))
        self.count += 1

    def remove(self, j: int) -> int:
        self.count -= 1
        return 0

    def top(self) -> tuple[float, int]:
        """(requested time, job) of its shortest waiting job, ties by arrival."""
        heap = self.heap
        waiting = self.waiting
        while not waiting[heap[0][1]]:
            heappop(heap)
        return heap[0]

    def clear(self) -> None:
        self.heap.clear()


@register_policy
class EasyBackfilling(StepPolicy):
    """EASY backfilling with one reservation, for the queue head."""

    name: ClassVar[str] = "easy"
    preempts: ClassVar[bool] = False  # never suspends a job: sweeps rebuild its time series
    Params: ClassVar[type] = EasyParams

    def __init__(self, params: EasyParams | None = None) -> None:
        self.params = params or EasyParams()
        self._sjf = self.params.backfill_order == "sjf"

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self._known = 0  # jobs 0 .. _known - 1 were told to the policy
        self._req = view.requested_time
        self._procs = view.procs
        self._queue: list[int] = []  # submitted jobs, arrival order; started ones are skipped
        self._qhead = 0  # every job before it has started; after a pass it is the head's
        self._waiting: list[bool] = []  # per job: submitted and not started; grows on submit
        self._nwaiting = 0
        self._buckets: dict[int, _Bucket] = {}  # size -> waiting jobs of that size (or none)
        self._bucket_type = _ShortestBucket if self._sjf else _ArrivalBucket
        self._sizes: list[int] = []  # sorted sizes whose bucket is not empty
        # processors of running jobs until their expected end (start + requested time): the
        # shared availability profile, here with no reservation in it
        self._profile = Profile(view.total_procs, origin=view.submit_at[0] if view.jobs else 0.0)
        self._expected_end: list[float] = []  # of running jobs; grows on submit
        self._dirty = True  # a job ended or the head may have changed: full pass
        self._shadow = _INF
        self._extra = 0
        self._shadow_stale = False  # shadow/extra not computed for the current state yet
        self._checked = 0  # queue positions < _checked were tested at the last pass

    # -- events ---------------------------------------------------------------------
    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        """The instant's ends and arrivals, then the pass (`engine.protocol.Steps`).

        One arrival alone is tested before it is queued: when it starts at once (into an
        empty queue, or backfilled at a pass where no job ended) it never enters the queue
        or a bucket, and the pass is what the full one would decide for it alone.
        """
        if ended:
            expected_end = self._expected_end
            procs = self._procs
            release = self._profile.release
            for j in ended:
                end = expected_end[j]
                if now < end:
                    release(now, end, procs[j])
            self._dirty = True
        j = self._known
        if submitted == j + 1:
            p = self._procs[j]
            if not self._nwaiting:
                if p <= free:  # the head of an empty queue fits: the pass starts it alone
                    self._known = submitted
                    end = now + self._req[j]
                    self._expected_end.append(end)
                    self._waiting.append(False)
                    profile = self._profile
                    profile.advance(now)
                    profile.reserve(now, end, p)
                    return [j]
            elif not self._dirty:  # the clean pass (see `_pass`) with one new job
                if p <= free:
                    if self._shadow_stale:
                        self._compute_shadow(self._procs[self._queue[self._qhead]], now)
                    end = now + self._req[j]
                    if end <= self._shadow or p <= self._extra:
                        if end > self._shadow:
                            self._extra -= p
                        self._known = submitted
                        self._expected_end.append(end)
                        self._waiting.append(False)
                        self._profile.reserve(now, end, p)
                        return [j]
                self._arrive(submitted)
                self._checked = len(self._queue)
                return _NOTHING
        if submitted > j:
            self._arrive(submitted)
        if not self._nwaiting:
            return _NOTHING
        return self._pass(now, free)

    def _arrive(self, submitted: int) -> None:
        """Queue and bucket jobs ``_known .. submitted - 1``."""
        first = self._known
        self._known = submitted
        count = submitted - first
        self._expected_end.extend([0.0] * count)
        self._waiting.extend([True] * count)
        if not self._nwaiting:
            self._dirty = True
        self._nwaiting += count
        self._queue.extend(range(first, submitted))
        procs = self._procs
        buckets = self._buckets
        sizes = self._sizes
        for j in range(first, submitted):
            p = procs[j]
            bucket = buckets.get(p)
            if bucket is None:
                bucket = buckets[p] = self._bucket_type(self._req, self._waiting)
            if not bucket.count:
                insort(sizes, p)
            bucket.add(j)

    # -- the pass -----------------------------------------------------------------------
    def _start(self, now: float, j: int, out: list[int]) -> int:
        """Start job j; returns its index in its bucket (see `_Bucket.remove`)."""
        end = now + self._req[j]
        self._expected_end[j] = end
        p = self._procs[j]
        self._profile.reserve(now, end, p)
        self._waiting[j] = False
        self._nwaiting -= 1
        bucket = self._buckets[p]
        i = bucket.remove(j)
        if not bucket.count:
            bucket.clear()
            del self._sizes[bisect_left(self._sizes, p)]
        out.append(j)
        return i

    def _compute_shadow(self, need: int, now: float) -> None:
        """Shadow time and extra processors for a head needing more than is free now.

        The profile holds only running jobs, so free processors never decrease over time:
        the shadow time is the first moment ``need`` are free, the extra processors what is
        free then beyond ``need``.
        """
        profile = self._profile
        shadow = profile.earliest_start(need, 0.0, now)
        self._shadow = shadow
        self._extra = profile.free_at(shadow) - need if self.params.extra_procs else 0
        self._shadow_stale = False

    def _pass(self, now: float, free: int) -> list[int]:
        """The jobs to start now, ``free`` processors being free and some job waiting."""
        queue = self._queue
        if not self._dirty:
            # no job ended since the last pass: the head is still blocked, free can only
            # have shrunk, and only new arrivals may fit now
            checked = self._checked
            self._checked = len(queue)
            if free == 0:
                return _NOTHING
            if self._shadow_stale:
                procs = self._procs
                if all(procs[j] > free for j in queue[checked:]):
                    return _NOTHING  # (the only jobs tested at the last pass were too wide)
                self._compute_shadow(procs[queue[self._qhead]], now)
            if checked == len(queue) - 1:
                # the common case: one new job, tested inline
                j = queue[checked]
                p = self._procs[j]
                if p > free:
                    return _NOTHING
                r = self._req[j]
                if now + r > self._shadow:
                    if p > self._extra:
                        return _NOTHING
                    self._extra -= p
                out: list[int] = []
                self._start(now, j, out)
                queue.pop()
            elif checked < len(queue):
                out = []
                self._backfill_new(now, free, checked, out)
            else:
                return _NOTHING
            self._checked = len(queue)
            return out
        self._dirty = False
        self._profile.advance(now)  # forget ended jobs' past (once per job end at most)
        procs = self._procs
        waiting = self._waiting
        out = []
        # FCFS part: start from the head while it fits
        h = self._qhead
        n = len(queue)
        while h < n:
            j = queue[h]
            if waiting[j]:
                p = procs[j]
                if p > free:
                    break
                free -= p
                self._start(now, j, out)
            h += 1
        if h >= _COMPACT and 2 * h >= n:
            del queue[:h]
            h = 0
        self._qhead = h
        self._checked = len(queue)
        if not self._nwaiting or free == 0:
            return out  # shadow time is computed once processors are free to backfill
        if self._sizes[0] > free or self._nwaiting == 1:
            # nobody but the head is narrow enough: the shadow time waits until needed
            self._shadow_stale = True
            return out
        # the shadow time (`_compute_shadow`, inline: once per job end), then every waiting
        # job but the head (wider than ``free``) in backfilling order
        profile = self._profile
        need = procs[queue[h]]
        shadow = self._shadow = profile.earliest_start(need, 0.0, now)
        self._extra = profile.free_at(shadow) - need if self.params.extra_procs else 0
        self._shadow_stale = False
        if self._sjf:
            self._backfill_sjf(now, free, out)
        else:
            self._backfill_fcfs(now, free, out)
        return out

    def _backfill_fcfs(self, now: float, free: int, out: list[int]) -> int:
        """Arrival order; returns the processors left free."""
        shadow = self._shadow
        extra = self._extra
        req = self._req
        buckets: dict[int, _ArrivalBucket] = self._buckets  # type: ignore[assignment]
        sizes = self._sizes
        k = bisect_right(sizes, free)
        if k == 1:
            # the common case on real traces: one size narrow enough, no merge needed
            s = sizes[0]
            b = buckets[s]
            if s <= extra:
                j = b.jobs[b.lo]
            elif now + b.minr > shadow:
                return free  # (minr: a lower bound, checked here to save a call)
            else:
                j = b.first_fit(b.lo, now, shadow)
            while j >= 0:
                # j passes: it ends by the shadow time, or was offered as s <= extra
                if now + req[j] > shadow:
                    extra -= s
                free -= s
                i = self._start(now, j, out)
                if s > free or not b.count:
                    break
                j = b.jobs[b.lo] if s <= extra else b.first_fit(i + 1, now, shadow)
            self._extra = extra
            return free
        cursors: list[tuple[int, int]] = []  # (job, size): each bucket's next candidate
        for s in sizes[:k]:
            b = buckets[s]
            if s <= extra:
                cursors.append((b.jobs[b.lo], s))
            elif now + b.minr <= shadow:
                j = b.first_fit(b.lo, now, shadow)
                if j >= 0:
                    cursors.append((j, s))
        heapify(cursors)
        while cursors:
            j, s = cursors[0]
            if s > free:
                heappop(cursors)
                continue
            if now + req[j] <= shadow:
                pass
            elif s <= extra:
                extra -= s
            else:
                # the bucket was offered under a larger extra: only short jobs pass now
                b = buckets[s]
                j = b.first_fit(b.index(j) + 1, now, shadow)
                if j < 0:
                    heappop(cursors)
                else:
                    heapreplace(cursors, (j, s))
                continue
            free -= s
            b = buckets[s]
            i = self._start(now, j, out)
            if free == 0:
                break
            if not b.count or s > free:
                heappop(cursors)
                continue
            j = b.jobs[b.lo] if s <= extra else b.first_fit(i + 1, now, shadow)
            if j < 0:
                heappop(cursors)
            else:
                heapreplace(cursors, (j, s))
        self._extra = extra
        return free

    def _backfill_sjf(self, now: float, free: int, out: list[int]) -> int:
        """Shortest requested time first, ties by arrival; returns the processors left."""
        shadow = self._shadow
        extra = self._extra
        buckets: dict[int, _ShortestBucket] = self._buckets  # type: ignore[assignment]
        sizes = self._sizes
        cursors: list[tuple[float, int, int]] = []  # (req, job, size): each bucket's top
        for s in sizes[: bisect_right(sizes, free)]:
            b = buckets[s]
            # the heap's first entry, started or not, is no longer than any waiting job
            if s > extra and now + b.heap[0][0] > shadow:
                continue
            r, j = b.top()
            cursors.append((r, j, s))
        heapify(cursors)
        while cursors:
            r, j, s = cursors[0]
            if s > free:
                heappop(cursors)
                continue
            if now + r <= shadow:
                pass
            elif s <= extra:
                extra -= s
            else:
                heappop(cursors)  # the bucket's later jobs are no shorter: none passes
                continue
            free -= s
            b = buckets[s]
            self._start(now, j, out)
            if free == 0:
                break
            if not b.count or s > free:
                heappop(cursors)
                continue
            heapreplace(cursors, (*b.top(), s))
        self._extra = extra
        return free

    def _backfill_new(self, now: float, free: int, first: int, out: list[int]) -> None:
        """Try the jobs that arrived since the last pass, queue[first:] (the head excluded)."""
        queue = self._queue
        procs = self._procs
        req = self._req
        shadow = self._shadow
        extra = self._extra
        candidates = queue[first:]
        if self._sjf:
            candidates.sort(key=req.__getitem__)
        started = False
        for j in candidates:
            p = procs[j]
            if p > free:
                continue
            if now + req[j] <= shadow:
                pass
            elif p <= extra:
                extra -= p
            else:
                continue
            free -= p
            self._start(now, j, out)
            started = True
            if free == 0:
                break
        if started:
            waiting = self._waiting
            queue[first:] = [j for j in queue[first:] if waiting[j]]
        self._extra = extra
