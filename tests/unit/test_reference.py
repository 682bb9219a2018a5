"""Tests of the reference simulator itself (tests/reference.py).

Every expected schedule below was worked out by hand from SPEC.md sections 1 and 4 and the
project's fixed decisions (see the module docstring of ``reference``), not by running code.
Jobs are written as ``(submit, run, req, procs)``; ``jK`` is job index K; ``[a, b)`` is an
interval of time; "exp. end" is start + req.
"""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import check_schedule, earliest_fit, reference_simulate


def simulate(jobs, P, policy, kill_on_overrun=True):
    submit = [float(j[0]) for j in jobs]
    run = [float(j[1]) for j in jobs]
    req = [float(j[2]) for j in jobs]
    procs = [int(j[3]) for j in jobs]
    out = reference_simulate(submit, run, req, procs, P, policy, kill_on_overrun)
    check_schedule(
        submit, run, req, procs, P, out["start"], out["end"], out["killed"], kill_on_overrun
    )
    return out


# --------------------------------------------------------------------------------------------
# FCFS
# --------------------------------------------------------------------------------------------


def test_fcfs_never_starts_a_later_job_first():
    # P = 4.
    # t=0: j0 starts (free 1).  t=1: j1 (2 procs) does not fit -> waits.
    # t=2: j2 (1 proc) would fit in the 1 free processor, but FCFS stops at the head j1.
    # t=3: j3 queued behind.  t=10: j0 ends, free 4: j1 starts (free 2), j2 starts (free 1),
    # j3 needs 4 -> stop.  t=13: j2 ends (free 2), j3 still does not fit.
    # t=15: j1 ends (free 4): j3 starts, ends 17.
    jobs = [(0, 10, 10, 3), (1, 5, 5, 2), (2, 3, 3, 1), (3, 2, 2, 4)]
    out = simulate(jobs, 4, "fcfs")
    assert out["start"] == [0, 10, 10, 15]
    assert out["end"] == [10, 15, 13, 17]
    assert out["killed"] == [False] * 4


def test_fcfs_tie_rule_submission_uses_processors_freed_at_same_instant():
    # P = 4.  j0 uses the whole machine on [0, 5).
    # t=5: completion of j0 is applied before the submissions of j1, j2 (same instant), so
    # j1 (4 procs) starts at 5; then j2 (1 proc) does not fit (free 0) and waits.
    # t=6: j3 queued behind j2.  t=7: j1 ends, free 4: j2 starts (free 3), j3 starts (free 1).
    jobs = [(0, 5, 5, 4), (5, 2, 2, 4), (5, 1, 1, 1), (6, 1, 1, 2)]
    out = simulate(jobs, 4, "fcfs")
    assert out["start"] == [0, 5, 7, 7]
    assert out["end"] == [5, 7, 8, 8]


def test_fcfs_kill_on_overrun():
    # P = 5.  j0 (run 20 > req 10) takes the whole machine and is killed at 10.
    # t=10: free 5: j1 (2) starts, ends 13; j2 (3, run 8 > req 4) starts, killed at 14;
    # j3 (1) does not fit (free 0).  t=13: j1 ends, free 2: j3 starts, ends 14.
    jobs = [(0, 20, 10, 5), (2, 3, 5, 2), (3, 8, 4, 3), (4, 1, 1, 1)]
    out = simulate(jobs, 5, "fcfs")
    assert out["start"] == [0, 10, 10, 13]
    assert out["end"] == [10, 13, 14, 14]
    assert out["killed"] == [True, False, True, False]


def test_fcfs_without_kill_on_overrun():
    # Same jobs with req raised to run by the caller (j0 req 20, j2 req 8), kill off.
    # t=20: j0 ends: j1 starts (ends 23), j2 starts (ends 28), j3 waits (free 0).
    # t=23: j1 ends (free 2): j3 starts, ends 24.  Nobody is killed.
    jobs = [(0, 20, 20, 5), (2, 3, 5, 2), (3, 8, 8, 3), (4, 1, 1, 1)]
    out = simulate(jobs, 5, "fcfs", kill_on_overrun=False)
    assert out["start"] == [0, 20, 20, 23]
    assert out["end"] == [20, 23, 28, 24]
    assert out["killed"] == [False] * 4


def test_kill_off_requires_req_raised_to_run():
    with pytest.raises(ValueError):
        reference_simulate([0.0], [5.0], [3.0], [1], 1, "fcfs", kill_on_overrun=False)


# --------------------------------------------------------------------------------------------
# EASY
# --------------------------------------------------------------------------------------------


def test_easy_backfills_short_job_before_shadow():
    # P = 10.  t=0: j0 (6) starts, exp. end 100, free 4.
    # t=1: head j1 (8) does not fit. Shadow: free 4 + j0's 6 = 10 >= 8 at 100 -> shadow 100,
    #      extra = 4 + 6 - 8 = 2.
    # t=2: j2 (4 procs, req 50): 4 <= free 4 and 2 + 50 = 52 <= 100 -> backfilled, ends 52.
    # t=3: j3 (1): free 0 -> cannot start.
    # t=52: j2 ends, free 4; shadow 100, extra 2; j3: 1 <= 4 and 52 + 10 = 62 <= 100 ->
    #       backfilled at 52, ends 62.
    # t=100: j0 ends, free 10 -> j1 starts, ends 150.
    jobs = [(0, 100, 100, 6), (1, 50, 50, 8), (2, 50, 50, 4), (3, 10, 10, 1)]
    out = simulate(jobs, 10, "easy")
    assert out["start"] == [0, 100, 2, 52]
    assert out["end"] == [100, 150, 52, 62]


def test_easy_backfills_long_job_into_extra_processors():
    # P = 10.  t=0: j0 (6) starts, exp. end 100, free 4.
    # t=1: head j1 (7) does not fit: shadow 100 (4 + 6 >= 7), extra = 10 - 7 = 3.
    # t=2: j2 (3 procs, req 500): 3 <= free 4, 502 > 100 but 3 <= extra 3 -> starts at 2
    #      (free 1, extra used up: 0).
    # t=3: new pass: free 1; running j0 (exp. 100, 6), j2 (exp. 502, 3); walk: j0 -> 1 + 6
    #      = 7 >= 7, shadow 100; extra = 1 + 6 - 7 = 0. j3 (1 proc, req 500): 503 > 100 and
    #      1 > extra 0 -> refused (it would delay j1).
    # t=4: same shadow/extra; j3 refused; j4 (1, req 50): 54 <= 100 -> starts at 4, ends 54.
    # t=54: j4 ends, free 1; j3 refused again (extra 0).
    # t=100: j0 ends, free 7: j1 starts (free 0). Head j3 does not fit; the FCFS-started j1
    #        (exp. 150) gives shadow 150; nothing else to scan.
    # t=150: j1 ends, free 7: j3 starts, ends 650.
    jobs = [(0, 100, 100, 6), (1, 50, 50, 7), (2, 500, 500, 3), (3, 500, 500, 1), (4, 50, 50, 1)]
    out = simulate(jobs, 10, "easy")
    assert out["start"] == [0, 100, 2, 150, 4]
    assert out["end"] == [100, 150, 502, 650, 54]


def test_easy_long_backfilled_jobs_use_up_the_extra_processors():
    # P = 10.  t=0: j0 (6) starts, exp. end 100, free 4.
    # t=1: head j1 (8) does not fit.
    # t=2: j2, j3, j4 (1 proc each, req 300) arrive. Shadow 100 (4 + 6 >= 8),
    #      extra = 4 + 6 - 8 = 2. j2: 302 > 100, 1 <= extra 2 -> starts (free 3, extra 1);
    #      j3: same -> starts (free 2, extra 0); j4: fits in free 2 but 1 > extra 0 ->
    #      refused (j1 would only find 7 processors at 100).
    # t=100: j0 ends, free 8: j1 starts (free 0). Head j4 does not fit; walking running
    #        jobs by exp. end, j1 (150) comes first -> shadow 150.
    # t=150: j1 ends, free 8: j4 starts, ends 450.
    jobs = [(0, 100, 100, 6), (1, 50, 50, 8), (2, 300, 300, 1), (2, 300, 300, 1), (2, 300, 300, 1)]
    out = simulate(jobs, 10, "easy")
    assert out["start"] == [0, 100, 2, 2, 150]
    assert out["end"] == [100, 150, 302, 302, 450]


def test_easy_refuses_job_that_would_delay_head():
    # P = 8.  t=0: j0 (4, exp. 10) and j1 (2, exp. 20) start, free 2.
    # t=1: head j2 (6) does not fit.
    # t=2: walk running by exp. end: j0 (10): 2 + 4 = 6 >= 6 -> shadow 10; extra =
    #      2 + 4 - 6 = 0 (j1 ends at 20 > 10, not counted). j3 (2, req 9): fits now, but
    #      2 + 9 = 11 > 10 and 2 > extra 0 -> refused (j2 would only get 4 procs at 10).
    # t=3: same shadow/extra; j3 refused; j4 (2, req 7): 3 + 7 = 10 <= 10 (ending exactly
    #      at the shadow is allowed) -> starts at 3, free 0.
    # t=10: j0 and j4 end, free 6: head j2 starts (free 0). Head j3 (2) does not fit;
    #       shadow = 20 (j1, exp. 20, index 1 before j2), no other job to scan.
    # t=20: j1 and j2 end, free 8: j3 starts, ends 29.
    jobs = [(0, 10, 10, 4), (0, 20, 20, 2), (1, 10, 10, 6), (2, 9, 9, 2), (3, 7, 7, 2)]
    out = simulate(jobs, 8, "easy")
    assert out["start"] == [0, 0, 10, 20, 3]
    assert out["end"] == [10, 20, 20, 29, 10]


def test_easy_kill_and_same_instant_submission():
    # P = 6.  t=0: j0 (4, run 100 > req 20) starts; it will be killed at 20. free 2.
    # t=5: head j1 (4) does not fit: shadow 20 (2 + 4 >= 4), extra = 6 - 4 = 2.
    # t=6: j2 (2, req 30): 36 > 20 but 2 <= extra 2 -> starts at 6 (free 0), ends 36.
    # t=20: j0 killed (completion applied first, free 4), then j3 is submitted. Queue
    #       [j1, j3]: j1 starts (free 0); head j3 (2) does not fit; shadow = 30 (j1).
    # t=30: j1 ends, free 4: j3 starts, ends 35.
    jobs = [(0, 100, 20, 4), (5, 10, 10, 4), (6, 30, 30, 2), (20, 5, 5, 2)]
    out = simulate(jobs, 6, "easy")
    assert out["start"] == [0, 20, 6, 30]
    assert out["end"] == [20, 30, 36, 35]
    assert out["killed"] == [True, False, False, False]


# --------------------------------------------------------------------------------------------
# Conservative backfilling
# --------------------------------------------------------------------------------------------


def test_cbf_reservations_and_backfilling_into_holes():
    # P = 4, every job runs exactly its request (no compression ever).
    # t=0: j0 (2) -> reservation 0, starts; occupies [0, 10).
    # t=1: j1 (4, req 10): free 2 until 10 -> reservation 10, [10, 20).
    # t=2: j2 (2, req 5): [2, 7) has 2 free (j1 starts at 10) -> reservation 2, starts.
    # t=3: j3 (2, req 8): at 3 free 0; at 7 (j2's end) [7, 15) hits j1's 4 at 10; at 10 j1;
    #      at 20 -> reservation 20.
    # t=4: j4 (2, req 3): at 4 free 0; at 7: [7, 10) has 2 free -> reservation 7.
    # t=7: j2 ends on time; j4 starts.  t=10: j0, j4 end; j1 starts.  t=20: j3 starts.
    jobs = [(0, 10, 10, 2), (1, 10, 10, 4), (2, 5, 5, 2), (3, 8, 8, 2), (4, 3, 3, 2)]
    out = simulate(jobs, 4, "conservative")
    assert out["reservation_at_submit"] == [0, 10, 2, 20, 7]
    assert out["start"] == [0, 10, 2, 20, 7]
    assert out["end"] == [10, 20, 7, 28, 10]


def test_cbf_compresses_after_early_completion():
    # P = 4.  t=0: j0 (4, run 5, req 20) -> reservation 0, starts; profile [0, 20).
    # t=1: j1 (2, req 10) -> 20, [20, 30).
    # t=2: j2 (3, req 10): at 20 only 2 free -> 30, [30, 40).
    # t=3: j3 (1, req 4): at 20, [20, 24) has 2 free -> 20.
    # t=5: j0 ends early (5 < 20). Compression first, in index order:
    #      j1 out: profile j2 [30, 40) 3, j3 [20, 24) 1 -> fits at 5 ([5, 15) all free) -> 5.
    #      j2 out: profile j1 [5, 15) 2, j3 [20, 24) 1: at 5 free 2 < 3; at 15, [15, 25)
    #      has >= 3 free (3 during [20, 24)) -> 15.
    #      j3 out: profile j1 [5, 15), j2 [15, 25): at 5 free 2 >= 1 on [5, 9) -> 5.
    #      Then the submission of j4 (4, req 2) at 5, given the compressed profile: at 5
    #      free 1; 9 (j3's end): free 2; 15: j2 takes 3; 25: all free -> 25. (Had it been
    #      placed before the compression, it would have fitted at 5.)
    #      j1 and j3 start at 5.
    # t=9: j3 ends on time.  t=15: j1 ends on time; j2 starts.  t=25: j2 ends; j4 starts.
    jobs = [(0, 5, 20, 4), (1, 10, 10, 2), (2, 10, 10, 3), (3, 4, 4, 1), (5, 2, 2, 4)]
    out = simulate(jobs, 4, "conservative")
    assert out["reservation_at_submit"] == [0, 20, 30, 20, 25]
    assert out["start"] == [0, 5, 15, 5, 25]
    assert out["end"] == [5, 15, 25, 9, 27]
    # Never later than the reservation given at submission.
    assert all(s <= r for s, r in zip(out["start"], out["reservation_at_submit"], strict=True))


def test_cbf_kill_on_overrun_and_tie_rule():
    # P = 6.  t=0: j0 (6, run 30 > req 10) starts, killed at 10 = its expected end (not an
    #      early completion, so no compression).
    # t=10: j0's completion first, then j1 (6) gets reservation 10 in an empty profile and
    #       starts (tie rule); then j2 (2, req 4): free 0 until 15 -> 15.
    # t=12: j3 (4, req 3): [15, 18) has 6 - 2 = 4 free -> 15.
    # t=15: j1 ends on time; j2 and j3 start.  t=17: j3 ends early (run 2 < req 3):
    #       compression with an empty queue.  t=19: j2 ends.
    jobs = [(0, 30, 10, 6), (10, 5, 5, 6), (10, 4, 4, 2), (12, 2, 3, 4)]
    out = simulate(jobs, 6, "conservative")
    assert out["reservation_at_submit"] == [0, 10, 15, 15]
    assert out["start"] == [0, 10, 15, 15]
    assert out["end"] == [10, 15, 19, 17]
    assert out["killed"] == [True, False, False, False]


def test_cbf_reservation_between_events():
    # A reservation can land on a time at which no completion or submission happens; the
    # reference then wakes up at that reservation (see _simulate_conservative).
    # P = 4.  t=0: j0 (2, run 10, req 100) and j1 (2, run = req = 20) start.
    # t=1: j2 (4, req 50): free 0 until 20, 2 until 100 -> reservation 100.
    # t=2: j3 (2, req 30): [20, 50) has 2 free -> reservation 20.
    # t=10: j0 ends early -> compression in index order:
    #       j2 out: profile j1 [0, 20), j3 [20, 50): at 10 and 20 only 2 free; at 50 -> 50.
    #       j3 out: profile j1 [0, 20), j2 [50, 100): [10, 40) has >= 2 free -> 10, starts.
    # t=20: j1 ends on time; t=40: j3 ends on time (no compression).  No completion or
    # submission happens at 50, but j2's reservation is 50: it starts at 50 and ends at 100.
    jobs = [(0, 10, 100, 2), (0, 20, 20, 2), (1, 50, 50, 4), (2, 30, 30, 2)]
    out = simulate(jobs, 4, "conservative")
    assert out["reservation_at_submit"] == [0, 0, 100, 20]
    assert out["start"] == [0, 0, 50, 10]
    assert out["end"] == [10, 20, 100, 40]


# --------------------------------------------------------------------------------------------
# The checker and the profile helper
# --------------------------------------------------------------------------------------------


def test_check_schedule_rejects_overcommit_and_accepts_tie():
    submit, run, req, procs = [0.0, 0.0], [5.0, 5.0], [5.0, 5.0], [3, 2]
    # j1 starting at 5 when j0 ends at 5 is fine (ends before starts at equal times).
    check_schedule(submit, run, req, procs, 4, [0.0, 5.0], [5.0, 10.0], [False, False])
    with pytest.raises(AssertionError):
        check_schedule(submit, run, req, procs, 4, [0.0, 4.0], [5.0, 9.0], [False, False])
    with pytest.raises(AssertionError):  # wrong end
        check_schedule(submit, run, req, procs, 5, [0.0, 0.0], [5.0, 6.0], [False, False])
    with pytest.raises(AssertionError):  # wrong killed flag
        check_schedule(submit, run, req, procs, 5, [0.0, 0.0], [5.0, 5.0], [True, False])


def brute_force_earliest_fit(items, P, now, p, length):
    """Literal reading: try now and every item end after now, in increasing order; a start t
    is feasible if the free count is >= p at t and at every item begin inside (t, t+length)."""

    def free_at(x):
        return P - sum(q for b, f, q in items if b <= x < f)

    candidates = sorted({now} | {f for _, f, _ in items if f > now})
    for t in candidates:
        points = [t] + [b for b, _, _ in items if t < b < t + length]
        if all(free_at(x) >= p for x in points):
            return t
    raise AssertionError("no feasible start")


item_st = st.tuples(st.integers(0, 30), st.integers(1, 15), st.integers(1, 4)).map(
    lambda t: (float(t[0]), float(t[0] + t[1]), t[2])
)


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(item_st, max_size=8),
    now=st.integers(0, 10),
    p=st.integers(1, 6),
    length=st.integers(1, 20),
)
def test_earliest_fit_matches_brute_force(items, now, p, length):
    P = 6
    items = [it for it in items if it[1] > now]  # the profile only holds live items
    assert earliest_fit(items, P, float(now), p, float(length)) == brute_force_earliest_fit(
        items, P, float(now), p, float(length)
    )


# --------------------------------------------------------------------------------------------
# Properties on random small workloads (only theorems)
# --------------------------------------------------------------------------------------------


@st.composite
def workloads(draw):
    P = draw(st.integers(1, 8))
    n = draw(st.integers(1, 8))
    t = 0.0
    submit, run, req, procs = [], [], [], []
    for _ in range(n):
        t += draw(st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 5.0]))
        submit.append(t)
        run.append(float(draw(st.integers(1, 12))))
        req.append(float(draw(st.integers(1, 12))))
        procs.append(draw(st.integers(1, P)))
    return submit, run, req, procs, P


@settings(max_examples=400, deadline=None)
@given(w=workloads(), kill=st.booleans())
def test_random_workloads_invariants(w, kill):
    submit, run, req, procs, P = w
    if not kill:
        req = [max(r, q) for r, q in zip(run, req, strict=True)]
    for policy in ("fcfs", "easy", "conservative"):
        out = reference_simulate(submit, run, req, procs, P, policy, kill)
        check_schedule(submit, run, req, procs, P, out["start"], out["end"], out["killed"], kill)
        if policy == "fcfs":
            # FCFS starts jobs in index (arrival) order.
            assert all(a <= b for a, b in pairwise(out["start"]))
        if policy == "conservative":
            res = out["reservation_at_submit"]
            assert all(r >= s for r, s in zip(res, submit, strict=True))
            assert all(s <= r for s, r in zip(out["start"], res, strict=True))
            if all(r >= q for r, q in zip(run, req, strict=True)):
                # No job ends before its expected end -> never any compression, so every
                # job starts exactly at the reservation it got at submission.
                assert out["start"] == res


@settings(max_examples=200, deadline=None)
@given(w=workloads())
def test_nobody_waits_on_a_big_enough_machine(w):
    submit, run, req, procs, _ = w
    P = sum(procs)
    for policy in ("fcfs", "easy", "conservative"):
        out = reference_simulate(submit, run, req, procs, P, policy)
        assert out["start"] == submit
