"""The availability profile (platform/profile.py) against a brute-force model.

The model keeps the list of (start, end, procs) reservations, signed (a release is a
negative reservation), and computes the free processors at any instant by summing them; a
search for the earliest start tries every candidate: ``not_before`` and every breakpoint
after it. The profile must agree with it at every breakpoint, after any sequence of
reserve / release / advance, including queries interleaved between updates (the running
maximum behind ``max_free_before`` is cached and must be invalidated correctly).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.errors import PolicyError
from schedlab.platform.profile import Profile

INF = math.inf


@dataclass
class Model:
    """Brute force: free(t) = total - sum of the reservations covering t."""

    total: int
    origin: float = 0.0
    items: list[tuple[float, float, int]] = field(default_factory=list)  # start, end, taken

    def reserve(self, start: float, end: float, procs: int) -> None:
        self.items.append((start, end, procs))

    def release(self, start: float, end: float, procs: int) -> None:
        self.items.append((max(start, self.origin), end, -procs))

    def advance(self, now: float) -> None:
        self.origin = max(self.origin, now)

    def free(self, t: float) -> int:
        return self.total - sum(p for s, e, p in self.items if s <= t < e)

    def breakpoints(self) -> list[float]:
        pts = {self.origin}
        for s, e, _ in self.items:
            pts.update(x for x in (s, e) if self.origin <= x < INF)
        return sorted(pts)

    def fits(self, procs: int, start: float, duration: float) -> bool:
        end = start + duration
        return all(self.free(t) >= procs for t in [start, *self.breakpoints()] if start <= t < end)

    def earliest(self, procs: int, duration: float, not_before: float, limit: float = INF):
        not_before = max(not_before, self.origin)
        candidates = [not_before] + [t for t in self.breakpoints() if t > not_before]
        for t in candidates:
            if t >= limit:
                return limit
            if self.fits(procs, t, duration):
                return t
        raise AssertionError("no feasible start: the last segment should be all free")

    def max_free_before(self, t: float) -> int:
        if t <= self.origin:
            return -1
        return max(self.free(x) for x in self.breakpoints() if x < t)


def assert_same(profile: Profile, model: Model) -> None:
    """Canonical form, origin, and free_at equal to the model at and between breakpoints."""
    times, free = profile.times, profile.free
    assert len(times) == len(free) == len(profile)
    assert times[0] == model.origin
    assert all(a < b for a, b in zip(times, times[1:])), times
    assert all(a != b for a, b in zip(free, free[1:])), free
    assert profile.segments() == list(zip(times, free))
    pts = model.breakpoints()
    probes = pts + [(a + b) / 2 for a, b in zip(pts, pts[1:])] + [pts[-1] + 1.0]
    for t in probes:
        assert profile.free_at(t) == model.free(t), (t, profile)
    # every breakpoint of the profile is a real change of the model
    for t, f in zip(times, free):
        assert model.free(t) == f


# -- hypothesis: random sequences of operations ---------------------------------------

TIME = st.integers(0, 40).map(float)


@st.composite
def operations(draw: st.DrawFn) -> tuple[int, list[tuple]]:
    total = draw(st.integers(1, 8))
    ops = draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("place"), st.integers(1, total), st.integers(1, 12), TIME),
                st.tuples(st.just("reserve"), st.integers(1, total), TIME, st.integers(1, 12)),
                st.tuples(st.just("release"), st.integers(0, 50), st.integers(0, 12)),
                st.tuples(st.just("advance"), st.integers(0, 6)),
                st.tuples(st.just("query"), st.integers(1, total), st.integers(1, 12), TIME),
            ),
            max_size=25,
        )
    )
    return total, ops


def apply(total: int, ops: list[tuple]) -> tuple[Profile, Model]:
    """Run ``ops`` on a fresh profile and model, checking them equal after each step.

    place: reserve at the earliest feasible start (what the policies do); reserve: any
    interval where the processors are free (not only the earliest one); release: give
    back a live reservation, possibly only its tail from an instant on (an early end);
    advance: move the origin; query: the searches, interleaved with updates.
    """
    profile = Profile(total, origin=0.0)
    model = Model(total)
    live: list[tuple[float, float, int]] = []
    for op in ops:
        kind = op[0]
        if kind == "place":
            _, p, d, nb = op
            nb = max(nb, model.origin)
            start = model.earliest(p, d, nb)
            assert profile.earliest_start(p, d, nb) == start
            profile.reserve(start, start + d, p)
            model.reserve(start, start + d, p)
            live.append((start, start + d, p))
        elif kind == "reserve":
            _, p, s, d = op
            s = max(s, model.origin)
            if not model.fits(p, s, d):
                continue  # over-committing is outside the domain (free stays >= 0)
            profile.reserve(s, s + d, p)
            model.reserve(s, s + d, p)
            live.append((s, s + d, p))
        elif kind == "release" and live:
            _, k, cut = op
            s, e, p = live.pop(k % len(live))
            at = min(max(s, model.origin) + cut, e)  # release [at, e): the tail only
            profile.release(at, e, p)
            model.release(at, e, p)
            if at > s:
                live.append((s, at, p))
        elif kind == "advance":
            profile.advance(model.origin + op[1])
            model.advance(model.origin + op[1])
        elif kind == "query":
            _, p, d, t = op
            t = max(t, model.origin)
            assert profile.max_free_before(t) == model.max_free_before(t)
            assert profile.max_free_before(t + 0.5) == model.max_free_before(t + 0.5)
            assert profile.earliest_start(p, d, t) == model.earliest(p, d, t)
            limit = t + d
            assert profile.earliest_start(p, d, t, limit=limit) == model.earliest(p, d, t, limit)
        assert_same(profile, model)
    return profile, model


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(case=operations())
def test_random_operations_match_brute_force(case: tuple[int, list[tuple]]) -> None:
    """Any reserve/release/advance sequence keeps free_at equal to brute force, canonical."""
    apply(*case)


@SETTINGS
@given(
    case=operations(),
    procs=st.integers(1, 8),
    duration=st.integers(1, 15).map(float),
    not_before=st.integers(0, 60).map(float),
    limit=st.one_of(st.just(INF), st.integers(0, 80).map(float)),
)
def test_earliest_start_matches_brute_force(
    case: tuple[int, list[tuple]], procs: int, duration: float, not_before: float, limit: float
) -> None:
    """earliest_start(p, d, not_before, limit) = first feasible candidate start, or limit."""
    total, ops = case
    profile, model = apply(total, ops)
    procs = min(procs, total)
    not_before = max(not_before, model.origin)
    assert profile.earliest_start(procs, duration, not_before, limit=limit) == model.earliest(
        procs, duration, not_before, limit
    )


@SETTINGS
@given(
    case=operations(),
    procs=st.integers(1, 8),
    duration=st.integers(1, 15).map(float),
    not_before=st.integers(0, 60).map(float),
    slack=st.integers(0, 20).map(float),
)
def test_earliest_start_with_own_reservation(
    case: tuple[int, list[tuple]], procs: int, duration: float, not_before: float, slack: float
) -> None:
    """With own_start = limit, the answer equals release, search, reserve (CBF compression)."""
    total, ops = case
    profile, model = apply(total, ops)
    procs = min(procs, total)
    not_before = max(not_before, model.origin)
    own = model.earliest(procs, duration, not_before + slack)  # a feasible reservation
    profile.reserve(own, own + duration, procs)
    model.reserve(own, own + duration, procs)
    got = profile.earliest_start(procs, duration, not_before, limit=own, own_start=own)
    # brute force: take the job out, search, (the caller then puts it back)
    model.release(own, own + duration, procs)
    expected = model.earliest(procs, duration, not_before, limit=own)
    assert got == expected
    assert expected <= own
    # the query did not touch the profile
    model.reserve(own, own + duration, procs)
    assert_same(profile, model)


@SETTINGS
@given(case=operations(), t=st.integers(-5, 80).map(float))
def test_max_free_before_matches_brute_force(case: tuple[int, list[tuple]], t: float) -> None:
    """max_free_before(t) = most processors free at any instant in [origin, t); -1 if none."""
    profile, model = apply(*case)
    for x in (t, t + 0.25, model.origin, model.origin + 0.5):
        assert profile.max_free_before(x) == model.max_free_before(x)


# -- hand-written cases --------------------------------------------------------------


def test_reserve_and_release_restore_a_single_segment() -> None:
    """Reserving then releasing the same interval gives back one all-free segment."""
    p = Profile(8, origin=5.0)
    p.reserve(10, 20, 3)
    assert p.segments() == [(5.0, 8), (10, 5), (20, 8)]
    p.reserve(20, 30, 3)  # adjacent, same value: merged into one segment
    assert p.segments() == [(5.0, 8), (10, 5), (30, 8)]
    p.release(10, 30, 3)
    assert p.segments() == [(5.0, 8)]


def test_release_is_clipped_to_the_origin() -> None:
    """Releasing from before the origin (a job ending early) frees only from the origin."""
    p = Profile(4)
    p.reserve(0, 10, 4)
    p.advance(6)
    assert p.segments() == [(6, 0), (10, 4)]
    p.release(0, 10, 4)
    assert p.segments() == [(6, 4)]


def test_advance_forgets_the_past() -> None:
    """advance(now) drops earlier breakpoints and starts the first segment at now."""
    p = Profile(4)
    p.reserve(0, 2, 1)
    p.reserve(2, 5, 3)
    p.advance(3)
    assert p.segments() == [(3, 1), (5, 4)]
    p.advance(5)
    assert p.segments() == [(5, 4)]
    p.advance(4)  # going back is a no-op
    assert p.segments() == [(5, 4)]


def test_earliest_start_skips_a_hole_too_short() -> None:
    """A gap shorter than the job is skipped; the job goes where it fits for its whole length."""
    p = Profile(4)
    p.reserve(0, 5, 4)
    p.reserve(7, 12, 3)  # 4 free on [5,7), 1 on [7,12)
    assert p.earliest_start(2, 2, 0) == 5
    assert p.earliest_start(2, 3, 0) == 12
    assert p.earliest_start(1, 100, 0) == 5
    assert p.earliest_start(2, 3, 0, limit=9) == 9
    assert p.earliest_start(2, 3, 0, limit=12) == 12
    assert p.earliest_start(2, 2, 6) == 12  # [6, 8) meets [7, 12)
    assert p.max_free_before(5) == 0
    assert p.max_free_before(5.5) == 4
    assert p.max_free_before(0) == -1


def test_earliest_start_own_reservation_moves_into_its_own_space() -> None:
    """A reserved job may move earlier into an interval overlapping its own reservation."""
    p = Profile(4)
    p.reserve(0, 4, 3)  # running job
    p.reserve(4, 10, 3)  # our job, 3 procs for 6 s, reserved at 4
    # released, 3 procs are free from 4: nothing earlier fits -> stays at limit 4
    assert p.earliest_start(3, 6, 0, limit=4, own_start=4) == 4
    p.release(0, 4, 3)
    p.advance(1)  # the running job ended at 1
    # free 4 on [1,4) and (counting our own 3) 4 on [4,10): it can start at 1
    assert p.earliest_start(3, 6, 1, limit=4, own_start=4) == 1
    assert p.segments() == [(1, 4), (4, 1), (10, 4)]  # the query changed nothing


def test_too_wide_job_is_a_policy_error() -> None:
    """Asking for more processors than the machine has raises PolicyError."""
    with pytest.raises(PolicyError, match="never fits"):
        Profile(4).earliest_start(5, 1, 0)
