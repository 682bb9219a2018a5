"""Profiles with hundreds of breakpoints: C (platform/_cprofile.c) against Python.

The other differential tests mostly build profiles of a few dozen segments; an overloaded
conservative run keeps hundreds. Any C layout that groups segments (blocks, trees) only
shows its edge cases past that size, so these runs stay above it on purpose.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from test_cprofile import assert_twins, call_both, same, start_due

from schedlab.platform import CProfile
from schedlab.platform.profile import Profile as PyProfile

pytestmark = pytest.mark.skipif(
    CProfile is None, reason="C extension schedlab.platform._cprofile not compiled"
)

INF = math.inf


def comb(cls: Any) -> Any:
    """200 processors; job i holds i + 1 of them over [2i, 2i + 1), i < 100."""
    prof = cls(200)
    for i in range(100):
        prof.reserve(2.0 * i, 2.0 * i + 1, i + 1)
    return prof


@pytest.mark.parametrize("cls", [PyProfile, CProfile], ids=["python", "c"])
def test_comb_by_hand(cls: Any) -> None:
    prof = comb(cls)
    # breakpoints at 0, 1, ..., 199: 199 - i free from 2i, all 200 from 2i + 1
    assert len(prof) == 200
    assert prof.free_at(2 * 37 + 0.5) == 199 - 37
    assert prof.free_at(2 * 37 + 1.5) == 200
    assert prof.max_free_before(0.5) == 199
    assert prof.max_free_before(1.5) == 200
    # all 200 processors: only the unit gaps, then the open end at 199
    assert prof.earliest_start(200, 1.0, 0.0) == 1.0
    assert prof.earliest_start(200, 1.5, 0.0) == 199.0
    assert prof.earliest_start(200, 1.5, 0.0, limit=150.0) == 150.0
    # counting its own processors as free from 3 on, the job fits at 3 (not at 1: 198 at 2)
    assert prof.earliest_start(200, 1.5, 0.0, limit=50.0, own_start=3.0) == 3.0
    # 185 processors: free from 2i while i <= 14, so anywhere up to 28 + dur
    assert prof.earliest_start(185, 3.0, 0.5) == 0.5
    assert prof.earliest_start(186, 30.0, 0.0) == 199.0


def test_comb_twins_then_nan() -> None:
    """The same after many updates, also once a NaN time unsorts the breakpoints."""
    py, c = comb(PyProfile), comb(CProfile)
    assert_twins(py, c)
    for i in range(0, 100, 3):  # release every third job: merges neighbours
        call_both(py, c, "release", 2.0 * i, 2.0 * i + 1, i + 1)
        assert_twins(py, c)
    for t in (0.25, 55.5, 120.0, 250.0):
        call_both(py, c, "earliest_start", 150, 2.5, t, limit=190.0, own_start=t + 7)
        call_both(py, c, "max_free_before", t)
    call_both(py, c, "reserve", math.nan, 80.0, 3)
    assert_twins(py, c)
    call_both(py, c, "earliest_start", 150, 2.5, 10.0)
    call_both(py, c, "advance", 60.0)
    assert_twins(py, c)


@pytest.mark.parametrize("seed", range(3))
def test_crowded_compressions(seed: int) -> None:
    """Many small jobs with distinct times and durations: several hundred breakpoints,
    compressions moving many reservations, releases (early ends) and advances."""
    rng = random.Random(seed)
    total = 64
    py, c = PyProfile(total), CProfile(total)
    now = 0.0
    procs: list[int] = []
    dur: list[float] = []
    s_py: list[float] = []
    s_c: list[float] = []
    waiting: list[int] = []
    running: list[tuple[float, float, int]] = []
    most = 0
    for step in range(1500):
        x = rng.random()
        if x < 0.6:
            p = rng.choice([1, 1, 2, 3, 5, 8, 16, 33, 64])
            r = rng.randint(1, 400) + rng.random()
            start = call_both(py, c, "earliest_start", p, r, now)
            call_both(py, c, "reserve", start, start + r, p)
            procs.append(p)
            dur.append(r)
            s_py.append(start)
            s_c.append(start)
            waiting.append(len(procs) - 1)
        elif x < 0.75 and running:
            s, e, p = running.pop(rng.randrange(len(running)))
            call_both(py, c, "release", max(now, s), e, p)  # ends now
            moved = py.compress(waiting, s_py, procs, dur, now)
            assert moved == c.compress(waiting, s_c, procs, dur, now)
            assert same(s_py, s_c)
        else:
            now += rng.random() * 15
            call_both(py, c, "advance", now)
            waiting = start_due(waiting, s_py, procs, dur, now, running)
        most = max(most, len(py))
        if step % 50 == 0:
            assert_twins(py, c)
    assert_twins(py, c)
    assert most > 300  # the point of this test
