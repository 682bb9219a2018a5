"""The C profile (platform/_cprofile.c) against the pure-Python one (platform/profile.py).

The Python class is the oracle: every operation is applied to both, and return values,
``segments()``, ``len`` and ``repr`` must be identical (floats compared bit for bit) after
every step, including the in-place updates of ``compress``, errors and their messages.
"""

from __future__ import annotations

import gc
import math
import os
import random
import struct
import subprocess
import sys
import tracemalloc
from array import array
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import schedlab
import schedlab.schedulers.conservative as conservative
from schedlab.errors import PolicyError
from schedlab.platform import CProfile
from schedlab.platform.profile import Profile as PyProfile

try:
    from schedlab.platform import _cprofile  # type: ignore[attr-defined]
except ImportError:  # not compiled: the whole module is skipped
    _cprofile = None

pytestmark = pytest.mark.skipif(
    CProfile is None, reason="C extension schedlab.platform._cprofile not compiled"
)

INF = math.inf


def bits(x: Any) -> Any:
    """A float by its bits (so -0.0 != 0.0 and nan == nan); anything else as it is."""
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))
    if isinstance(x, (list, tuple)):
        return [bits(v) for v in x]
    return x


def same(a: Any, b: Any) -> bool:
    """Equal, floats bit for bit; a Python int equal to a float counts as equal.

    (The Python class stores the objects it is given; times passed as ints stay ints.)
    """
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return bits(float(a)) == bits(float(b))
    return type(a) is type(b) and a == b


def outcome(f: Any, *args: Any, **kwargs: Any) -> tuple[str, Any]:
    """("ok", value) or ("error", type, message) of one call."""
    try:
        return ("ok", f(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - parity of any error is what is tested
        return ("error", type(exc), str(exc))


def assert_twins(py: PyProfile, c: Any) -> None:
    assert same(py.segments(), c.segments()), (py, c)
    assert len(py) == len(c)
    assert repr(py) == repr(c)
    assert same(py.times, c.times)
    assert same(py.free, c.free)
    assert py.total == c.total


def call_both(py: PyProfile, c: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    a = outcome(getattr(py, name), *args, **kwargs)
    b = outcome(getattr(c, name), *args, **kwargs)
    assert a[0] == b[0], (name, args, kwargs, a, b)
    if a[0] == "ok":
        assert same(a[1], b[1]), (name, args, kwargs, a, b)
    else:
        assert a[1:] == b[1:], (name, args, kwargs, a, b)
    return a[1] if a[0] == "ok" else None


def start_due(
    waiting: list[int],
    start_at: list[float],
    procs: list[int],
    duration: list[float],
    now: float,
    running: list[tuple[float, float, int]],
) -> list[int]:
    """The waiting jobs still waiting at ``now``; the due ones become running reservations."""
    keep = []
    for j in waiting:
        if start_at[j] <= now:
            running.append((start_at[j], start_at[j] + duration[j], procs[j]))
        else:
            keep.append(j)
    return keep


# -- hypothesis: a state machine driving both ------------------------------------------

# integral offsets make coinciding breakpoints common; arbitrary ones exercise rounding
OFFSET = st.one_of(
    st.integers(0, 30).map(float),
    st.floats(0, 30, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.1, 0.2, 0.3, 1e-9, 1.5]),
)
DURATION = st.one_of(
    st.integers(0, 20).map(float),
    st.floats(0, 20, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.1, 0.7, 1e-12]),
)


class TwinProfiles(RuleBasedStateMachine):
    """Conservative-backfilling-like use: running reservations, waiting jobs, compressions.

    Waiting jobs hold a reservation [start_at[j], start_at[j] + duration[j]) of procs[j]
    processors, placed at their earliest start; running reservations are released (their
    tail, as on an early end) only as far as they are held. Separate ``start_at`` lists for
    the two profiles are compared after each compression.
    """

    @initialize(total=st.integers(1, 16), origin=st.sampled_from([0.0, 3.0, 1e9 + 0.5]))
    def setup(self, total: int, origin: float) -> None:
        self.total = total
        self.now = origin
        self.py = PyProfile(total, origin=origin)
        self.c = CProfile(total, origin=origin)
        self.running: list[tuple[float, float, int]] = []
        self.procs: list[int] = []
        self.duration: list[float] = []
        self.start_py: list[float] = []
        self.start_c: list[float] = []
        self.waiting: list[int] = []

    # -- updates
    @rule(p=st.integers(1, 16), offset=OFFSET, length=DURATION)
    def reserve(self, p: int, offset: float, length: float) -> None:
        p = min(p, self.total)
        start = self.now + offset
        end = start + length
        call_both(self.py, self.c, "reserve", start, end, p)
        self.running.append((start, end, p))

    @rule(p=st.integers(1, 16), r=DURATION, offset=OFFSET)
    def place(self, p: int, r: float, offset: float) -> None:
        """What conservative backfilling does on an arrival."""
        p = min(p, self.total)
        start = call_both(self.py, self.c, "earliest_start", p, r, self.now + offset)
        call_both(self.py, self.c, "reserve", start, start + r, p)
        self.procs.append(p)
        self.duration.append(r)
        self.start_py.append(start)
        self.start_c.append(start)
        self.waiting.append(len(self.procs) - 1)

    @precondition(lambda self: self.running)
    @rule(k=st.integers(0, 1000), cut=OFFSET)
    def release(self, k: int, cut: float) -> None:
        """Give back the tail [at, end) of a running reservation (at may be < origin)."""
        s, e, p = self.running.pop(k % len(self.running))
        at = min(s + cut, e)
        call_both(self.py, self.c, "release", at, e, p)
        if at > s:
            self.running.append((s, at, p))

    @rule(step=OFFSET, backwards=st.booleans())
    def advance(self, step: float, backwards: bool) -> None:
        """Advance; jobs whose reservation is due start (become running reservations)."""
        if backwards:  # the profile must ignore a time before its origin
            call_both(self.py, self.c, "advance", self.now - step)
            return
        self.now += step
        call_both(self.py, self.c, "advance", self.now)
        self.waiting = start_due(
            self.waiting, self.start_py, self.procs, self.duration, self.now, self.running
        )

    @rule(
        order=st.randoms(use_true_random=False),
        subset=st.booleans(),
        later=st.one_of(st.none(), st.integers(0, 1000)),
    )
    def compress(self, order: random.Random, subset: bool, later: int | None) -> None:
        """Compress at the origin, or (later) at a reservation's start past it: no job may
        then move before that instant, and one due exactly then stays put."""
        jobs = list(self.waiting)
        if subset:
            jobs = [j for j in jobs if order.random() < 0.5]
        now = self.now
        if later is not None and self.waiting:
            now = self.start_py[self.waiting[later % len(self.waiting)]]
        moved_py = self.py.compress(jobs, self.start_py, self.procs, self.duration, now)
        moved_c = self.c.compress(jobs, self.start_c, self.procs, self.duration, now)
        assert moved_py == moved_c
        assert same(self.start_py, list(self.start_c))

    # -- queries (they update the cached running maximum: also compared afterwards)
    @rule(
        p=st.integers(0, 18),
        d=DURATION,
        nb=st.floats(-5, 40, allow_nan=False),
        limit=st.one_of(st.just(INF), st.floats(-5, 60, allow_nan=False)),
        own=st.one_of(st.just(INF), st.floats(-5, 60, allow_nan=False)),
        keywords=st.booleans(),
    )
    def earliest_start(
        self, p: int, d: float, nb: float, limit: float, own: float, keywords: bool
    ) -> None:
        nb += self.now
        limit += self.now
        own += self.now
        if keywords:
            call_both(self.py, self.c, "earliest_start", p, d, nb, limit=limit, own_start=own)
        else:
            call_both(self.py, self.c, "earliest_start", p, d, nb, limit, own)

    @rule(t=st.floats(-5, 60, allow_nan=False), exact=st.booleans())
    def point_queries(self, t: float, exact: bool) -> None:
        if exact:  # at a breakpoint
            times = self.py.times
            t = float(times[int(abs(t)) % len(times)])
        else:
            t += self.now
        call_both(self.py, self.c, "max_free_before", t)
        call_both(self.py, self.c, "free_at", t)

    @invariant()
    def twins(self) -> None:
        if hasattr(self, "py"):
            assert_twins(self.py, self.c)


TwinProfiles.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_twin_profiles = TwinProfiles.TestCase


class BookedTwinProfiles(TwinProfiles):
    """As a scheduler books: a running reservation takes only processors that are free, so
    no segment is ever overbooked. The C compression then searches through its level bounds
    and run memos (an overbooked profile turns them off), and must still agree with the
    Python one. The C twin's starts are a list or, as the policies keep them, an
    array('d') (read and written through its buffer). A short level walk makes the bounds
    unbounded early, so that the levels the measures then skip are exercised too."""

    @initialize(
        total=st.integers(1, 16),
        origin=st.sampled_from([0.0, 3.0, 1e9 + 0.5]),
        as_array=st.booleans(),
        level_walk=st.sampled_from([64, 2, 0]),
    )
    def setup(  # type: ignore[override]
        self, total: int, origin: float, as_array: bool = False, level_walk: int = 64
    ) -> None:
        TwinProfiles.setup(self, total, origin)
        if as_array:
            self.start_c = array("d")  # type: ignore[assignment]
        # the level bounds serve long queues only: here, every compression uses them
        self._levels_from = _cprofile._set_levels_min_queue(0)
        self._walk_from = _cprofile._set_level_walk(level_walk)

    def teardown(self) -> None:
        if hasattr(self, "_levels_from"):
            _cprofile._set_levels_min_queue(self._levels_from)
        if hasattr(self, "_walk_from"):
            _cprofile._set_level_walk(self._walk_from)

    @rule(p=st.integers(1, 16), offset=OFFSET, length=DURATION)
    def reserve(self, p: int, offset: float, length: float) -> None:
        start = self.now + offset
        end = start + length
        p = min(p, *(f for t, f in self.py.segments() if start <= t < end), self.py.free_at(start))
        if p > 0:
            call_both(self.py, self.c, "reserve", start, end, p)
            self.running.append((start, end, p))

    @invariant()
    def never_overbooked(self) -> None:
        if hasattr(self, "py"):
            assert min(self.py.free) >= 0


BookedTwinProfiles.TestCase.settings = settings(
    max_examples=int(os.environ.get("SCHEDLAB_TWIN_EXAMPLES", "300")),
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_booked_twin_profiles = BookedTwinProfiles.TestCase


@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(1, 8),
    ops=st.lists(
        st.tuples(
            st.sampled_from(["reserve", "release", "advance", "es", "mfb", "free_at"]),
            st.integers(-2, 10),
            st.one_of(
                st.floats(-10, 30, allow_nan=False),
                st.sampled_from([INF, -INF, -0.0, 0.0]),
            ),
            st.one_of(st.floats(-10, 30, allow_nan=False), st.just(INF)),
        ),
        max_size=30,
    ),
)
def test_arbitrary_calls_agree(total: int, ops: list[tuple[str, int, float, float]]) -> None:
    """Outside the policies' domain (reservations before the origin, infinite ends,
    over-commitment, negative counts, unreserved releases): still the same results."""
    py, c = PyProfile(total), CProfile(total)
    for kind, p, a, b in ops:
        if kind in ("reserve", "release"):
            call_both(py, c, kind, a, b, p)
        elif kind == "advance":
            call_both(py, c, kind, a)
        elif kind == "es":
            call_both(py, c, "earliest_start", p, b, a, limit=b + a, own_start=a + 1)
            call_both(py, c, "earliest_start", p, b, a)
        elif kind == "mfb":
            call_both(py, c, "max_free_before", a)
        else:
            call_both(py, c, "free_at", a)
        assert_twins(py, c)


@settings(max_examples=100, deadline=None)
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["reserve", "release", "advance", "es", "mfb", "free_at"]),
            st.integers(0, 4),
            st.sampled_from([math.nan, 0.0, 1.0, 2.5, 7.0, INF, -1.0]),
            st.sampled_from([math.nan, 0.0, 1.0, 3.0, 9.0, INF]),
        ),
        max_size=20,
    )
)
def test_nan_does_not_crash_and_agrees(ops: list[tuple[str, int, float, float]]) -> None:
    """NaN times unsort the breakpoints: meaningless, but the same (or the same error)."""
    py, c = PyProfile(4), CProfile(4)
    for kind, p, a, b in ops:
        if kind in ("reserve", "release"):
            call_both(py, c, kind, a, b, p)
        elif kind == "advance":
            call_both(py, c, kind, a)
        elif kind == "es":
            call_both(py, c, "earliest_start", p, b, a, limit=b, own_start=a)
        elif kind == "mfb":
            call_both(py, c, "max_free_before", a)
        else:
            call_both(py, c, "free_at", a)
        assert same(py.segments(), c.segments())
        assert repr(py) == repr(c)


# -- errors ------------------------------------------------------------------------------


def test_policy_error_parity() -> None:
    for cls in (PyProfile, CProfile):
        profile = cls(4, origin=0.0)
        profile.reserve(0.0, 10.0, 2)
        with pytest.raises(PolicyError, match="a job of 5 processors never fits on 4"):
            profile.earliest_start(5, 1.0, 0.0)
        # with a limit, too large a job simply gets the limit back
        assert profile.earliest_start(5, 1.0, 0.0, limit=7.0) == 7.0
    py, c = PyProfile(3), CProfile(3)
    py.reserve(2.0, INF, 1)
    c.reserve(2.0, INF, 1)
    call_both(py, c, "earliest_start", 3, 5.0, 0.0)  # fits before 2? no: never fits
    call_both(py, c, "earliest_start", 3, 2.0, 0.0)


def test_bad_types_raise_type_error() -> None:
    p = CProfile(4)
    bad_calls = [
        lambda: CProfile(None),
        lambda: CProfile(4, origin="0"),
        lambda: CProfile(),
        lambda: p.reserve("0", 1.0, 1),
        lambda: p.reserve(0.0, 1.0, 1.5),
        lambda: p.release(0.0, None, 1),
        lambda: p.advance("1"),
        lambda: p.free_at(None),
        lambda: p.max_free_before([]),
        lambda: p.earliest_start(1.0, 1.0, 0.0),
        lambda: p.earliest_start(1, 1.0, 0.0, limit="x"),
        lambda: p.earliest_start(1, 1.0, 0.0, own_start=None),
        lambda: p.earliest_start(1, 1.0, 0.0, bogus=1.0),
        lambda: p.earliest_start(1, 1.0),
        lambda: p.compress(5, [], [], [], 0.0),
        lambda: p.compress([0], [5.0], [1], [1.0], "now"),
        lambda: p.compress([0], ["x"], [1], [1.0], 0.0),
        lambda: p.compress([0], [5.0], [1.0], [1.0], 0.0),
        lambda: p.compress([0], [5.0], [1], [None], 0.0),
        lambda: p.compress([0.0], [5.0], [1], [1.0], 0.0),
        lambda: p.segments(1),
    ]
    for call in bad_calls:
        with pytest.raises(TypeError):
            call()
    with pytest.raises(AttributeError):
        p.times = [0.0]  # a computed copy, read-only
    assert_twins(PyProfile(4), p)  # nothing changed


@pytest.mark.parametrize("level_walk", [64, 0])
def test_compress_measures_a_run_a_move_lengthened(level_walk: int) -> None:
    """A move that gives processors back at the end of a run of several segments makes that
    run long enough for a later job: the level bounds must measure it from its real start
    (the walk back crosses a segment of another level), or, past the level walk, take it as
    unbounded (then level 0 excludes nothing more and is no longer measured).

    Two processors, compression at 0: [0, 6) free 2 (an early end), [6, 10) full, [10, 12)
    free 2, [12, 14) free 1, [14, 20) job 0 (2 processors), [20, 30) full, [30, 39) job 1
    (1 processor) beside a running one. Job 0 moves to 0 and gives back [14, 20): the run
    of one free processor [10, 20) is then 10 long, and job 1 (9 long) moves to 10 (before
    the move, no run of the profile was 9 long: the bounds alone would keep job 1 put)."""
    walk_from = _cprofile._set_level_walk(level_walk)
    queue_from = _cprofile._set_levels_min_queue(0)
    try:
        got = []
        running = [(6, 10, 2), (12, 14, 1), (20, 30, 2), (30, 39, 1)]
        for prof in (PyProfile(2), CProfile(2)):
            for start, end, p in [*running, (14, 20, 2), (30, 39, 1)]:  # then jobs 0 and 1
                prof.reserve(float(start), float(end), p)
            starts = array("d", [14.0, 30.0])
            moved = prof.compress([0, 1], starts, [2, 1], [6.0, 9.0], 0.0)
            got.append((moved, list(starts), prof.segments()))
    finally:
        _cprofile._set_level_walk(walk_from)
        _cprofile._set_levels_min_queue(queue_from)
    assert got[0][:2] == ([0, 1], [0.0, 10.0])
    assert got[1] == got[0]


@pytest.mark.parametrize("as_array", [False, True])
def test_compress_errors_match(as_array: bool) -> None:
    """Bad indices: the same IndexError as the Python class (list semantics, -1 wraps),
    with the C starts in a list or read through an array('d')'s buffer."""
    for jobs in ([3], [-1], [0, 7], [10**30], [1, -2]):
        py, c = PyProfile(4), CProfile(4)
        for prof in (py, c):
            prof.reserve(5.0, 6.0, 2)
        s_py: Any = array("d", [5.0, 9.0]) if as_array else [5.0, 9.0]
        s_c: Any = array("d", [5.0, 9.0]) if as_array else [5.0, 9.0]
        a = outcome(py.compress, jobs, s_py, [2, 1], [1.0, 1.0], 0.0)
        b = outcome(c.compress, jobs, s_c, [2, 1], [1.0, 1.0], 0.0)
        assert a[0] == b[0] and a[1:] == b[1:] if a[0] == "error" else a == b
        assert list(s_py) == list(s_c)
        assert_twins(py, c)


def test_keywords_and_generic_sequences() -> None:
    """Keyword arguments everywhere; compress on tuples/iterators/numpy (not only lists)."""
    py, c = PyProfile(total=8, origin=1.0), CProfile(total=8, origin=1.0)
    for prof in (py, c):
        prof.reserve(start=1.0, end=5.0, procs=6)
        prof.reserve(start=5.0, end=9.0, procs=4)
        prof.release(start=0.0, end=5.0, procs=6)
        prof.advance(now=1.5)
    assert_twins(py, c)
    call_both(py, c, "earliest_start", procs=4, duration=2.0, not_before=0.0)
    call_both(py, c, "max_free_before", t=6.0)
    call_both(py, c, "free_at", t=2.0)
    for prof in (py, c):
        prof.reserve(9.0, 12.0, 8)
    s_py = np.array([9.0])
    s_c = np.array([9.0])
    m_py = py.compress(iter([0]), s_py, (8,), np.array([3.0]), now=1.5)
    m_c = c.compress(jobs=iter([0]), start_at=s_c, procs=(8,), duration=np.array([3.0]), now=1.5)
    assert m_py == m_c == [0]
    assert s_py.tolist() == s_c.tolist()
    assert_twins(py, c)


def test_repr_len_attributes() -> None:
    py, c = PyProfile(5, origin=-0.0), CProfile(5, origin=-0.0)
    for prof in (py, c):
        prof.reserve(1e-7, 123456789.0, 2)
        prof.reserve(2.0, INF, 1)
    assert repr(py) == repr(c) == "Profile(-0:5, 1e-07:3, 2:2, 1.23457e+08:4, inf:5)"
    assert len(c) == 5 and c.total == 5
    assert isinstance(c.times, list) and isinstance(c.free, list)
    assert c.times is not c.times  # a fresh copy each time
    assert CProfile("7").total == PyProfile("7").total == 7  # int(total)
    assert CProfile(7.9).total == 7


# -- memory safety ---------------------------------------------------------------------


def random_run(seed: int, steps: int) -> None:
    """Thousands of mixed operations with many segments, compared at every step."""
    rng = random.Random(seed)
    total = rng.choice([1, 4, 64, 1024])
    py, c = PyProfile(total), CProfile(total)
    now = 0.0
    running: list[tuple[float, float, int]] = []
    procs: list[int] = []
    dur: list[float] = []
    s_py: list[float] = []
    s_c: list[float] = []
    waiting: list[int] = []
    for _ in range(steps):
        x = rng.random()
        if x < 0.35:
            p = rng.randint(1, total)
            r = rng.choice([rng.randint(1, 100) * 1.0, rng.random() * 100])
            start = call_both(py, c, "earliest_start", p, r, now + rng.random() * 5)
            for prof in (py, c):
                prof.reserve(start, start + r, p)
            procs.append(p)
            dur.append(r)
            s_py.append(start)
            s_c.append(start)
            waiting.append(len(procs) - 1)
        elif x < 0.55 and running:
            s, e, p = running.pop(rng.randrange(len(running)))
            at = max(now, min(e, s + rng.random() * (e - s)))
            call_both(py, c, "release", at, e, p)
        elif x < 0.75:
            now += rng.random() * 20
            call_both(py, c, "advance", now)
            waiting = start_due(waiting, s_py, procs, dur, now, running)
        elif x < 0.85:
            assert py.compress(waiting, s_py, procs, dur, now) == c.compress(
                waiting, s_c, procs, dur, now
            )
            assert same(s_py, s_c)
        else:
            t = now + rng.random() * 200
            call_both(py, c, "max_free_before", t)
            call_both(py, c, "free_at", t)
            call_both(
                py,
                c,
                "earliest_start",
                rng.randint(1, total + 1),
                rng.random() * 50,
                now,
                limit=rng.choice([INF, t]),
                own_start=rng.choice([INF, now + rng.random() * 100]),
            )
        assert same(py.segments(), c.segments())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("levels", ["as tuned", "always", "always, short walks"])
def test_big_randomized_run(seed: int, levels: str) -> None:
    """As tuned, short queues skip the level bounds; forced on, every compression uses
    them, and short walks bound runs as unbounded early (and stop measuring those levels)."""
    queue_from = _cprofile._set_levels_min_queue(64 if levels == "as tuned" else 0)
    walk_from = _cprofile._set_level_walk(2 if levels.endswith("short walks") else 64)
    try:
        random_run(seed, 3000)
    finally:
        _cprofile._set_levels_min_queue(queue_from)
        _cprofile._set_level_walk(walk_from)


def test_no_leaks() -> None:
    """Repeated construction, growth, compressions and errors leave no memory behind."""

    def work() -> None:
        for i in range(200):
            c = CProfile(16)
            for k in range(50):
                c.reserve(k * 1.0, k * 1.0 + 7.5, 1 + k % 16)
            start_at = [float(k) for k in range(50)]
            c.compress(list(range(50)), start_at, [1 + k % 16 for k in range(50)], [7.5] * 50, 0.0)
            for bad in ([99], ["x"]):
                with pytest.raises((IndexError, TypeError)):
                    c.compress(bad, start_at, [1] * 50, [7.5] * 50, 0.0)
            with pytest.raises(PolicyError):
                c.earliest_start(17 + i, 1.0, 0.0)
            repr(c), c.segments(), c.times, c.free

    work()  # warm-up: caches, interned objects
    tracemalloc.start()
    try:
        work()  # one round under tracing: one-time allocations land here
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(10):
            work()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # ten rounds make ~10^5 profile operations: a leak of one object per operation
    # would show as megabytes, while the steady state does not grow at all
    assert after - before < 32 * 1024, after - before


# -- the policy, end to end --------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "policy"),
    [
        ("lublin:jobs=3000,procs=128,seed=1,kind=all", "conservative"),
        # overloaded, with user estimates: compressions over long queues, the run memos'
        # ground (hundreds of jobs move per early end)
        ("lublin:jobs=2500,procs=128,seed=3,load=1.5", "conservative"),
        ("lublin:jobs=2500,procs=64,seed=4,load=1.3", "dbf"),
    ],
)
def test_conservative_same_schedule(
    monkeypatch: pytest.MonkeyPatch, spec: str, policy: str
) -> None:
    """conservative backfilling (and DBF, built on it) gives the identical per-job table
    with either profile."""
    from schedlab.workload.load import load_workload
    from schedlab.workload.models.tsafrir import add_estimates

    workload = load_workload(spec)
    if "load=" in spec:
        workload = add_estimates(workload, seed=1)
    tables = []
    for cls in (PyProfile, CProfile):
        monkeypatch.setattr(conservative, "Profile", cls)
        result = schedlab.simulate(workload, policy)
        tables.append(result.columns)
    a, b = tables
    assert a.keys() == b.keys()
    for key in a:
        x, y = np.asarray(a[key]), np.asarray(b[key])
        assert x.dtype == y.dtype and x.shape == y.shape, key
        if x.dtype.kind == "f":
            assert np.array_equal(x.view(np.int64), y.view(np.int64)), key  # bit for bit
        else:
            assert np.array_equal(x, y), key


def test_profile_export() -> None:
    import schedlab.platform as platform

    assert platform.PyProfile is PyProfile
    assert platform.Profile is (CProfile if platform.USING_C_PROFILE else PyProfile)


@pytest.mark.parametrize("value, pure", [("", False), ("0", False), ("1", True), ("yes", True)])
def test_pure_python_switch(value: str, pure: bool) -> None:
    code = "import schedlab.platform as p; print(p.USING_C_PROFILE, p.Profile.__module__)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "SCHEDLAB_PURE_PYTHON": value},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == (
        ["False", "schedlab.platform.profile"] if pure else ["True", "schedlab.platform._cprofile"]
    )
