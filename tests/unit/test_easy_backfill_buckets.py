"""EASY's bucketed backfilling pass (issue 15): hand-computed cases and the old list scan.

The pass looks only at size buckets no wider than the free processors, merges one candidate
per bucket in backfilling order, skips a bucket whose jobs all end after the shadow time and
are wider than the extra processors, and finds the first short-enough job of a long bucket
through a segment tree. Each case below is run with the tree forced on every bucket
(``_SMALL = 0``) as well as with the default threshold, so both search paths are checked;
the hypothesis tests compare every start with the list scan the pass replaced
(tests/reference_easy_listscan.py), also with list compaction forced early.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedlab
from reference_easy_listscan import ListScanEasy
from schedlab.schedulers import easy
from schedlab.schedulers.easy import EasyParams, _ArrivalBucket, _ShortestBucket
from schedlab.workload.job import Workload
from strategies import SmallWorkload, small_workloads

INF = math.inf


@pytest.fixture(params=[0, easy._SMALL], ids=["tree", "default"])
def small(request: pytest.FixtureRequest) -> Iterator[None]:
    """Run the case with every bucket searched through its tree, then as shipped."""
    with mock.patch.object(easy, "_SMALL", request.param):
        yield


def _starts(rows: list[tuple[float, int, float, float]], total: int, **params: object) -> list:
    """Start times under EASY of jobs given as (submit, procs, run, requested)."""
    submit, procs, run, req = (np.array(c) for c in zip(*rows))
    wl = Workload.from_columns(
        submit_time=submit, run_time=run, procs=procs, requested_time=req, max_procs=total
    )
    return simulate_starts(wl, **params)


def simulate_starts(wl: Workload, **params: object) -> list:
    return schedlab.simulate(wl, "easy", check=True, **params).jobs["started_at"].tolist()


# A (4 procs) ends early at 50; L (4) runs until 100; the head H needs all 8, so at 50 the
# shadow time is 100 with no extra processor.
_SKIP_CASE = [
    (0.0, 4, 50.0, 60.0),  # A
    (0.0, 4, 100.0, 100.0),  # L
    (1.0, 8, 10.0, 10.0),  # H: head from 1 to 100
    (2.0, 2, 500.0, 500.0),  # B1: ends after the shadow time: skipped
    (3.0, 2, 30.0, 30.0),  # B2: 50 + 30 <= 100: backfills at 50
    (4.0, 1, 200.0, 200.0),  # C1: skipped
    (5.0, 1, 40.0, 40.0),  # C2: 50 + 40 <= 100: backfills at 50 (free 2 -> 1)
    (6.0, 3, 10.0, 10.0),  # D: wider than the 1 left at 50; at 80 (B2 ends) 80 + 10 <= 100
]


def test_buckets_of_long_jobs_are_skipped(small: None) -> None:
    """Only the short job of each bucket backfills; the long ones wait for the head."""
    starts = _starts(_SKIP_CASE, 8)
    # H at 100 (L ends, D ended at 90); then B1 and C1 at 110 when H ends
    assert starts == [0.0, 0.0, 100.0, 110.0, 50.0, 110.0, 50.0, 80.0]
    assert _starts(_SKIP_CASE, 8, extra_procs=False) == starts  # no extra processor anyway


# At 50 (A ends) the head H needs 7 of 10 and the shadow time is 100 (L ends), when 10 are
# free: 3 extra processors.
_EXTRA_CASE = [
    (0.0, 6, 50.0, 50.0),  # A
    (0.0, 4, 100.0, 100.0),  # L
    (1.0, 7, 10.0, 10.0),  # H
    (2.0, 2, 1000.0, 1000.0),  # E1: long, takes 2 of the 3 extra processors
    (3.0, 2, 1000.0, 1000.0),  # E2: long, only 1 extra left: waits
    (4.0, 2, 20.0, 20.0),  # E3: same bucket, ends by the shadow time: backfills
    (5.0, 1, 1000.0, 1000.0),  # F: long, takes the last extra processor
    (6.0, 1, 1000.0, 1000.0),  # G: long, no extra left: waits
]


def test_extra_processors_are_used_up_in_arrival_order(small: None) -> None:
    """A bucket offered for the extra processors turns to short jobs once they run out."""
    starts = _starts(_EXTRA_CASE, 10)
    # H at 100 (7 procs until 110); E2 and G at 110
    assert starts == [0.0, 0.0, 100.0, 50.0, 110.0, 50.0, 50.0, 110.0]


def test_extra_processor_rule_off(small: None) -> None:
    """Without the rule only E3 backfills; E1 starts behind H at 100, the rest at 110."""
    starts = _starts(_EXTRA_CASE, 10, extra_procs=False)
    assert starts == [0.0, 0.0, 100.0, 100.0, 110.0, 50.0, 110.0, 110.0]


# At 50 (A ends) the head H needs 8 of 10, the shadow time is 100: 2 extra processors.
_STALE_CASE = [
    (0.0, 6, 50.0, 50.0),  # A
    (0.0, 4, 100.0, 100.0),  # L
    (1.0, 8, 10.0, 10.0),  # H
    (2.0, 1, 1000.0, 1000.0),  # F: long, takes 1 extra processor (1 left)
    (3.0, 2, 1000.0, 1000.0),  # E1: offered while 2 were extra, no longer fits them
    (4.0, 2, 20.0, 20.0),  # E2: the next of E1's bucket, ends by the shadow time
]


def test_a_bucket_offered_for_extra_processors_falls_back_to_short_jobs(small: None) -> None:
    """F uses up the extra processors before E1 is tried: E1 waits, E2 right behind it runs."""
    starts = _starts(_STALE_CASE, 10)
    # H at 100 (L ends); E1 at 110 (H ends)
    assert starts == [0.0, 0.0, 100.0, 50.0, 110.0, 50.0]
    # without the rule F waits too and, at the head behind H, starts beside it at 100
    assert _starts(_STALE_CASE, 10, extra_procs=False) == [0.0, 0.0, 100.0, 100.0, 110.0, 50.0]


# At 50: 4 free, shadow 100, no extra. Y (2 procs) and Z (3 procs) request the same 30 s.
_SJF_CASE = [
    (0.0, 4, 50.0, 50.0),  # A
    (0.0, 4, 100.0, 100.0),  # L
    (1.0, 8, 10.0, 10.0),  # H
    (2.0, 3, 40.0, 40.0),  # X
    (3.0, 2, 30.0, 30.0),  # Y
    (4.0, 3, 30.0, 30.0),  # Z
    (5.0, 1, 30.0, 30.0),  # W
]


def test_sjf_ties_go_by_arrival_across_buckets(small: None) -> None:
    """sjf tries Y (earlier) before Z (same request): Y and W fit, Z and X then do not."""
    assert _starts(_SJF_CASE, 8, backfill_order="sjf") == [
        0.0,
        0.0,
        100.0,
        110.0,
        50.0,
        110.0,
        50.0,
    ]
    # arrival order takes X first instead: X and W backfill, Y and Z wait for H
    assert _starts(_SJF_CASE, 8) == [0.0, 0.0, 100.0, 50.0, 110.0, 110.0, 50.0]


def test_a_held_back_job_passes_at_the_next_heads_shadow_time(small: None) -> None:
    """S cannot end by H's shadow time (100) at 50, but can by K's (1000) at 130.

    The time test only gets harder as ``now`` grows under one shadow time; what lets a held
    back job through is a job end that brings a head with a later shadow time.
    """
    rows = [
        (0.0, 2, 50.0, 50.0),  # A: ends at 50
        (0.0, 2, 100.0, 100.0),  # L: ends at 100
        (0.0, 1, 1000.0, 1000.0),  # B: one processor busy until 1000
        (1.0, 4, 30.0, 30.0),  # H: head; at 50 shadow 100 (2 + 2 free), no extra
        (2.0, 5, 10.0, 10.0),  # K: needs all 5, so waits for B (shadow 1000)
        (3.0, 1, 60.0, 60.0),  # S: 50 + 60 > 100: held back; 130 + 60 <= 1000: passes
    ]
    assert _starts(rows, 5) == [0.0, 0.0, 0.0, 100.0, 1000.0, 130.0]


# -- against the list scan it replaced ----------------------------------------------------
_VARIANTS = [
    {"backfill_order": "fcfs", "extra_procs": True},
    {"backfill_order": "fcfs", "extra_procs": False},
    {"backfill_order": "sjf", "extra_procs": True},
    {"backfill_order": "sjf", "extra_procs": False},
]


def _same_as_list_scan(w: SmallWorkload, params: dict[str, object]) -> None:
    wl = w.workload()
    old = schedlab.simulate(wl, ListScanEasy(EasyParams(**params)))  # type: ignore[arg-type]
    # checked: the classic protocol, one pass per instant; unchecked: the fast path's `step`,
    # which skips the instants where nothing can start
    for check in (True, False):
        new = schedlab.simulate(wl, "easy", check=check, **params)
        np.testing.assert_array_equal(
            new.jobs["started_at"].to_numpy(), old.jobs["started_at"].to_numpy()
        )


@pytest.mark.parametrize("params", _VARIANTS, ids=lambda p: "-".join(map(str, p.values())))
@pytest.mark.parametrize("small_limit,compact", [(0, 2), (easy._SMALL, easy._COMPACT)])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=150, max_procs=12))
def test_starts_equal_the_list_scan(
    params: dict[str, object], small_limit: int, compact: int, w: SmallWorkload
) -> None:
    """Long queues on few sizes: long buckets, trees, and (compact = 2) compaction."""
    with (
        mock.patch.object(easy, "_SMALL", small_limit),
        mock.patch.object(easy, "_COMPACT", compact),
    ):
        _same_as_list_scan(w, params)


def test_starts_equal_the_list_scan_under_overload() -> None:
    """Lublin at load 1.5 with estimates: thousands waiting, every variant identical."""
    from schedlab.workload.load import load_workload
    from schedlab.workload.models.tsafrir import add_estimates

    wl = add_estimates(load_workload("lublin:jobs=3000,procs=64,seed=3,load=1.5"), seed=2)
    for params in _VARIANTS:
        old = schedlab.simulate(wl, ListScanEasy(EasyParams(**params)))  # type: ignore[arg-type]
        new = schedlab.simulate(wl, "easy", **params)
        a = old.jobs["started_at"].to_numpy()
        assert np.array_equal(new.jobs["started_at"].to_numpy(), a), params
    assert (a - wl.submit_time).max() > 50 * 3600  # the queue did build up


# -- the bucket structures against brute force ---------------------------------------------
_OPS = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "fit"]), st.integers(0, 10**6)),
    min_size=1,
    max_size=300,
)


@pytest.mark.parametrize("small_limit,compact", [(0, 2), (4, 8), (easy._SMALL, easy._COMPACT)])
@settings(max_examples=150, deadline=None)
@given(ops=_OPS, values=st.lists(st.integers(1, 50), min_size=300, max_size=300))
def test_arrival_bucket_agrees_with_a_list(
    small_limit: int, compact: int, ops: list[tuple[str, int]], values: list[int]
) -> None:
    """first_fit and remove on random adds, removes and searches equal a plain scan."""
    req = [float(v) for v in values]
    waiting: list[bool] = []
    alive: list[int] = []  # the bucket's waiting jobs, in arrival order
    with (
        mock.patch.object(easy, "_SMALL", small_limit),
        mock.patch.object(easy, "_COMPACT", compact),
    ):
        b = _ArrivalBucket(req, waiting)
        for op, x in ops:
            if op == "add" and len(waiting) < len(req):
                j = len(waiting)
                waiting.append(True)
                b.add(j)
                alive.append(j)
            elif op == "remove" and alive:
                j = alive.pop(x % len(alive))
                waiting[j] = False
                i = b.remove(j)
                # a search after the index it returns never finds a job before j
                later = b.first_fit(i + 1, 0.0, 1e300)  # (a shadow time is finite)
                expected = next((k for k in alive if k > j), -1)
                assert later == expected
                if not alive:  # the policy empties a bucket for reuse
                    b.clear()
            elif op == "fit" and alive:
                now = float(x % 7)
                shadow = now + float(x % 53)
                after = alive[x % len(alive)]
                got = b.first_fit(b.index(after), now, shadow)
                fits = [k for k in alive if k >= after and now + req[k] <= shadow]
                assert got == (fits[0] if fits else -1)
            assert b.count == len(alive)
            if alive:
                assert b.jobs[b.lo] == alive[0]


@settings(max_examples=100, deadline=None)
@given(
    values=st.lists(st.integers(1, 20), min_size=1, max_size=60),
    removed=st.sets(st.integers(0, 59)),
)
def test_shortest_bucket_top_is_the_shortest_waiting_job(
    values: list[int], removed: set[int]
) -> None:
    """Ties by arrival; started jobs never surface."""
    req = [float(v) for v in values]
    waiting = [True] * len(req)
    b = _ShortestBucket(req, waiting)
    for j in range(len(req)):
        b.add(j)
    for j in sorted(removed):
        if j < len(req) - 1:  # keep the bucket non-empty
            waiting[j] = False
            b.remove(j)
    alive = [j for j in range(len(req)) if waiting[j]]
    assert b.top() == min((req[j], j) for j in alive)
    assert b.count == len(alive)
