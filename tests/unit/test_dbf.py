"""DBF (deadline-aware conservative backfilling, paper 000, SPEC 4) on hand-computed cases,
the deadline marking errors, and transforms keeping the ``deadline_time`` attribute aligned.

Notation in the docstrings: ``Jk`` is the k-th job (index k, 0-based), ``pN`` its
processors, ``rN`` its requested time (= its run time unless said otherwise), ``dN`` its
absolute deadline (submission + ``deadline_time``). ``[a, b)`` is a reservation or a run.
A job meets its deadline when reservation + requested time <= deadline.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedlab
from reference_dbf import reference_dbf
from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.deadlines import deadlines_from_table, mark_non_priority
from schedlab.workload.job import Workload
from schedlab.workload.transforms import (
    clean_by_status,
    first_jobs,
    job_range,
    scale_load,
    time_window,
)

NAN = math.nan


def _workload(submit, run, req, procs, P, slack=None, status=None) -> Workload:
    w = Workload.from_columns(
        submit_time=np.array(submit, dtype=float),
        run_time=np.array(run, dtype=float),
        requested_time=np.array(req, dtype=float),
        procs=np.array(procs),
        status=None if status is None else np.array(status),
        max_procs=P,
    )
    if slack is not None:
        w = w.with_attribute("deadline_time", np.array(slack, dtype=float))
    return w


def _dbf(submit, run, req, procs, P, slack, *, kill_on_overrun=True):
    """Run the fast DBF (with checking) and, as a second opinion, the reference."""
    w = _workload(submit, run, req, procs, P, slack)
    jobs = schedlab.simulate(w, "dbf", check=True, kill_on_overrun=kill_on_overrun).jobs
    deadline_at = [None if math.isnan(s) else t + s for t, s in zip(submit, slack)]
    ref = reference_dbf(submit, run, req, procs, P, deadline_at, kill_on_overrun)
    return jobs, ref


def _assert_jobs(jobs, ref, *, start, end, job_class, reservation):
    for got in (
        (jobs["started_at"].tolist(), jobs["finished_at"].tolist()),
        (ref["start"], ref["end"]),
    ):
        assert got == (start, end)
    assert jobs["dbf_class"].tolist() == job_class
    assert ref["job_class"] == job_class
    expected = np.array(reservation, dtype=float)
    np.testing.assert_array_equal(jobs["reservation_at"].to_numpy(), expected)
    np.testing.assert_array_equal(np.array(ref["definitive_at"], dtype=float), expected)


# --------------------------------------------------------------------------------------------
# (a) paper Figure 1: delayed without violation, then migrated
# --------------------------------------------------------------------------------------------


def test_priority_job_delays_non_priority_job_within_its_deadline() -> None:
    """P = 2. J0 priority p2 r10 at 0; J1 non-priority p2 r5 at 1, d = 1 + 24 = 25;
    J2 priority p2 r5 at 2.

    * t=0: J0 starts, runs [0, 10).
    * t=1: J1 is placed by CBF after every reservation: the machine is full until 10, so
      [10, 15); 15 <= 25, accepted as non-priority (provisional).
    * t=2: J2 arrives, Algorithm 1: cancel J1's reservation. Literal test: J2 where it goes
      without J1, [10, 15); J1 after it, [15, 20), 20 <= 25: nobody's deadline is violated,
      L_TMP is empty. J2 gets [10, 15) (definitive), J1 is placed again: [15, 20).
    * J1 starts at 15 still non-priority: it has no definitive reservation (NaN).

    (CBF would have started J1 at 10 and J2 at 15: DBF lets the priority job pass.)
    """
    jobs, ref = _dbf([0, 1, 2], [10, 5, 5], [10, 5, 5], [2, 2, 2], 2, [NAN, 24, NAN])
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 15.0, 10.0],
        end=[10.0, 20.0, 15.0],
        job_class=["priority", "non_priority", "priority"],
        reservation=[0.0, NAN, 10.0],
    )
    cbf = schedlab.simulate(
        _workload([0, 1, 2], [10, 5, 5], [10, 5, 5], [2, 2, 2], 2), "conservative"
    )
    assert cbf.jobs["started_at"].tolist() == [0.0, 10.0, 15.0]


def test_figure_1_later_priority_job_would_violate_the_deadline_so_it_migrates() -> None:
    """The case above plus J3 priority p2 r6 at 3 (paper Figure 1: T_1 delayed by T_2
    without violation, then T_4 would violate T_1's deadline).

    * t=0..2: as above; after t=2: J0 [0, 10) running, J2 [10, 15) definitive, J1 [15, 20)
      provisional.
    * t=3: J3 arrives, Algorithm 1. (1) cancel J1's [15, 20). (2) literal test: J3 where it
      goes given J0 and J2: [15, 21); J1 after it: [21, 26), 26 > 25 -> violated, so
      L_TMP = {J1}, removed from the non-priority list. (3) J1 placed alone (given J0, J2):
      [15, 20), 20 <= 25, met: steps 4-6 are not needed. (8) J3 placed after J1: [20, 26).
      (9) J1 becomes definitive at 15: class "migrated", reservation_at 15.
    * t=10: J0 ends, J2 starts; t=15: J2 ends, J1 starts; t=20: J1 ends, J3 starts.
    """
    jobs, ref = _dbf(
        [0, 1, 2, 3], [10, 5, 5, 6], [10, 5, 5, 6], [2, 2, 2, 2], 2, [NAN, 24, NAN, NAN]
    )
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 15.0, 10.0, 20.0],
        end=[10.0, 20.0, 15.0, 26.0],
        job_class=["priority", "migrated", "priority", "priority"],
        reservation=[0.0, 15.0, 10.0, 20.0],
    )
    assert jobs["deadline"].iat[1] == 25.0
    assert jobs["finished_at"].iat[1] <= jobs["deadline"].iat[1]


# --------------------------------------------------------------------------------------------
# (b) promotion: a deadline that cannot be met at submission
# --------------------------------------------------------------------------------------------


def test_non_priority_job_missing_its_deadline_at_submission_is_promoted() -> None:
    """P = 2. J0 priority p2 r10 at 0; J1 non-priority p2 r5 at 1, d = 31; J2 non-priority
    p2 r3 at 2, d = 12; J3 non-priority p1 r2 at 4 with an impossible d = 4 + 1 = 5
    (slack 1 < r2).

    * t=0: J0 runs [0, 10). t=1: J1 by CBF at [10, 15), 15 <= 31: non-priority.
    * t=2: J2 by CBF after every reservation: [15, 18), 18 > 12: its deadline cannot be met,
      so (paper 000) it is treated as a priority job: Algorithm 1 with T_p = J2. Cancel J1;
      J2 given J0 only: [10, 13); J1 after it: [13, 18), 18 <= 31, L_TMP empty. J2 gets
      [10, 13) definitive (class "promoted"; it still misses d = 12, which nobody promised);
      J1 placed again at [13, 18).
    * t=4: J3 by CBF: 0 free on [4, 10) (J0), on [10, 13) (J2), on [13, 18) (J1): [18, 20),
      20 > 5: promoted. Algorithm 1: cancel J1; J3 given J0 and J2: [13, 15); J1 after it:
      1 processor free on [13, 15), so [15, 20) <= 31, L_TMP empty. J3 definitive at 13,
      J1 placed again at [15, 20).
    * Starts: J0 0, J2 10, J3 13, J1 15 (J1 still non-priority, ends 20 <= 31).
    """
    jobs, ref = _dbf([0, 1, 2, 4], [10, 5, 3, 2], [10, 5, 3, 2], [2, 2, 2, 1], 2, [NAN, 30, 10, 1])
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 15.0, 10.0, 13.0],
        end=[10.0, 20.0, 13.0, 15.0],
        job_class=["priority", "non_priority", "promoted", "promoted"],
        reservation=[0.0, NAN, 10.0, 13.0],
    )
    assert jobs["priority"].tolist() == [True, False, False, False]


def test_deadline_met_exactly_is_met_and_one_second_short_is_promoted() -> None:
    """Empty machine, P = 1, one non-priority job p1 r5 at 0. With slack 5 it is placed at
    [0, 5) and 5 <= d = 5: accepted (non-priority, no definitive reservation). With slack
    4.5 (< r5, impossible) [0, 5) ends after d = 4.5: promoted, definitive at 0."""
    jobs, ref = _dbf([0], [5], [5], [1], 1, [5.0])
    _assert_jobs(jobs, ref, start=[0.0], end=[5.0], job_class=["non_priority"], reservation=[NAN])
    jobs, ref = _dbf([0], [5], [5], [1], 1, [4.5])
    _assert_jobs(jobs, ref, start=[0.0], end=[5.0], job_class=["promoted"], reservation=[0.0])


# --------------------------------------------------------------------------------------------
# (c) Algorithm 1 steps 4-6: earlier non-priority jobs join L_TMP
# --------------------------------------------------------------------------------------------


def test_earlier_non_priority_jobs_join_l_tmp_when_it_alone_misses_a_deadline() -> None:
    """P = 2, all four jobs submitted at 0 (they arrive one by one in submit order):
    J0 non-priority p1 r2 d8; J1 non-priority p2 r1 d3; J2 non-priority p1 r1 d1;
    J3 priority p2 r4. (Found by searching small instances with the reference.)

    * J0 by CBF: [0, 2) (8 >= 2). J1 needs both processors: 1 free on [0, 2), so [2, 3),
      3 <= 3. J2: 1 free on [0, 1) -> [0, 1), 1 <= 1. All three provisional.
    * J3 arrives, Algorithm 1. (1) cancel J0, J1, J2; nothing runs nor is definitive.
      (2) literal test: J3 at [0, 4); then in submit order J0 [4, 6) (6 <= 8, fine),
      J1 needs 2: 1 free on [4, 6) -> [6, 7), 7 > 3 violated; J2: 1 free on [4, 5) ->
      [4, 5), 5 > 1 violated. L_TMP = {J1, J2}; J0 stays non-priority.
      (3) L_TMP alone in submit order: J1 [0, 1) (1 <= 3); J2: 0 free on [0, 1) -> [1, 2),
      2 > 1: J2 still misses its deadline (without J0, J1 took the slot J2 had).
      (4-6) the latest such job is J2; every non-priority job submitted before it (J0)
      joins L_TMP = {J0, J1, J2}, placed again in submit order: J0 [0, 2); J1 needs 2:
      [2, 3), 3 <= 3; J2: 1 free on [0, 1) -> [0, 1), 1 <= 1. All met.
      (8) J3 given those: 0 free on [0, 1), 1 free on [1, 2), 0 on [2, 3): [3, 7).
      (9) J0, J1, J2 become definitive ("migrated"); no non-priority job is left.
    * Without steps 4-6, J2 would have been migrated at [1, 2), missing d = 1.
    """
    jobs, ref = _dbf([0, 0, 0, 0], [2, 1, 1, 4], [2, 1, 1, 4], [1, 2, 1, 2], 2, [8, 3, 1, NAN])
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 2.0, 0.0, 3.0],
        end=[2.0, 3.0, 1.0, 7.0],
        job_class=["migrated", "migrated", "migrated", "priority"],
        reservation=[0.0, 2.0, 0.0, 3.0],
    )


def test_remaining_job_missing_after_t_p_joins_l_tmp_then_earlier_ones_too() -> None:
    """The project's strict-deadline rule plus steps 4-6, with a promoted T_p. P = 4, all
    at 2: J0 non-priority p2 r5 d15; J1 non-priority p4 r4 d13; J2 non-priority p2 r5 d8;
    J3 non-priority p1 r5 d8.

    * CBF at arrival: J0 [2, 7); J1 (needs 4) [7, 11) <= 13; J2 [2, 7) <= 8 (2 free beside
      J0); J3: 0 free on [2, 7), J1 on [7, 11): [11, 16) > 8 -> promoted, Algorithm 1.
    * Round 1. Cancel J0, J1, J2. Literal test: J3 [2, 7); J0 [2, 7) (3 in use); J1 [7, 11)
      <= 13; J2: 1 free on [2, 7), 0 on [7, 11): [11, 16) > 8 -> L_TMP = {J2}. J2 alone:
      [2, 7) <= 8, met. J3 after it: [2, 7) (3 in use). Remaining J0: 1 free on [2, 7):
      [7, 12) <= 15; J1: [12, 16) > 13 -> J1 misses once placed after L_TMP and T_p: it
      joins L_TMP and the placement is redone.
    * Round 2, L_TMP = {J1, J2} alone: J1 [2, 6) <= 13; J2: [6, 11) > 8 misses -> every
      non-priority job submitted before J2 (J0) joins: {J0, J1, J2}: J0 [2, 7), J1 [7, 11),
      J2 [2, 7): all met. J3 after them: 0 free on [2, 11): [11, 16). Nothing remains.
    """
    jobs, ref = _dbf([2, 2, 2, 2], [5, 4, 5, 5], [5, 4, 5, 5], [2, 4, 2, 1], 4, [13, 11, 6, 6])
    _assert_jobs(
        jobs,
        ref,
        start=[2.0, 7.0, 2.0, 11.0],
        end=[7.0, 11.0, 7.0, 16.0],
        job_class=["migrated", "migrated", "migrated", "promoted"],
        reservation=[2.0, 7.0, 2.0, 11.0],
    )


# --------------------------------------------------------------------------------------------
# (d) compression after an early end
# --------------------------------------------------------------------------------------------


def test_compression_moves_a_non_priority_job_earlier() -> None:
    """P = 2. J0 priority p2 run 4 but r10 at 0; J1 non-priority p2 r5 at 1, d = 31;
    J2 priority p1 r3 at 2.

    * t=0: J0 starts, planned [0, 10). t=1: J1 by CBF [10, 15), 15 <= 31.
    * t=2: J2, Algorithm 1: cancel J1; J2 given J0: [10, 13); J1 after it: 1 free on
      [10, 13) -> [13, 18) <= 31, L_TMP empty. J2 definitive at 10, J1 provisional at 13.
    * t=4: J0 ends 6 s before its requested time: compression, every waiting job in arrival
      order, definitive or not. J1 taken out: given J2 [10, 13) alone, 2 free on [4, 10):
      [4, 9). Then J2 taken out: given J1 [4, 9): [9, 12) (earlier than 10). J1 starts at 4.
    * t=9: J1 ends, J2 starts (its reservation); it ends at 12.
    """
    jobs, ref = _dbf([0, 1, 2], [4, 5, 3], [10, 5, 3], [2, 2, 1], 2, [NAN, 30, NAN])
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 4.0, 9.0],
        end=[4.0, 9.0, 12.0],
        job_class=["priority", "non_priority", "priority"],
        reservation=[0.0, NAN, 10.0],
    )


def test_kill_on_overrun_ends_a_job_at_its_requested_time() -> None:
    """P = 1. J0 priority run 8 but r5 at 0: killed at 5 (kill_on_overrun on), on time for
    the plan, so no compression. J1 non-priority r3 at 1, d = 1 + 10 = 11: CBF [5, 8),
    8 <= 11; it starts at 5. With kill_on_overrun off the requested time is raised to 8
    first: J1 gets [8, 11), 11 <= 11, still accepted."""
    jobs, ref = _dbf([0, 1], [8, 3], [5, 3], [1, 1], 1, [NAN, 10])
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 5.0],
        end=[5.0, 8.0],
        job_class=["priority", "non_priority"],
        reservation=[0.0, NAN],
    )
    assert jobs["killed"].tolist() == [True, False]
    jobs, ref = _dbf([0, 1], [8, 3], [8, 3], [1, 1], 1, [NAN, 10], kill_on_overrun=False)
    _assert_jobs(
        jobs,
        ref,
        start=[0.0, 8.0],
        end=[8.0, 11.0],
        job_class=["priority", "non_priority"],
        reservation=[0.0, NAN],
    )
    assert jobs["killed"].tolist() == [False, False]


# --------------------------------------------------------------------------------------------
# (e) marking non-priority jobs: rules and errors
# --------------------------------------------------------------------------------------------


def _plain(n: int = 6) -> Workload:
    return _workload(
        [10.0 * i for i in range(n)],
        [100.0 * (i + 1) for i in range(n)],
        [200.0 * (i + 1) for i in range(n)],
        [1] * n,
        4,
    )


def test_mark_non_priority_every_third_job_rules_a_b_and_seconds() -> None:
    """every=3 marks the 3rd, 6th, ... job; rule a: slack max(24 h, 2 x run), b: 72 h."""
    w = _plain(6)
    a = mark_non_priority(w, every=3, deadline="a").attributes["deadline_time"]
    np.testing.assert_array_equal(np.isnan(a), [True, True, False, True, True, False])
    assert a[2] == 24 * 3600.0 and a[5] == 24 * 3600.0
    b = mark_non_priority(w, every=3, deadline="b").attributes["deadline_time"]
    assert b[2] == 72 * 3600.0
    long = _workload([0.0], [50 * 3600.0], [60 * 3600.0], [1], 1)
    assert mark_non_priority(long, every=1, deadline="a").attributes["deadline_time"][0] == (
        100 * 3600.0
    )
    s = mark_non_priority(w, every=2, deadline=500).attributes["deadline_time"]
    np.testing.assert_array_equal(s, [NAN, 500, NAN, 500, NAN, 500])


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"every": 0}, "every"),
        ({"every": -3}, "every"),
        ({"every": 2.5}, "every"),
        ({"every": True}, "every"),
        ({"fraction": 1.5, "seed": 1}, "fraction"),
        ({"fraction": -0.1, "seed": 1}, "fraction"),
        ({"fraction": "half", "seed": 1}, "fraction"),
        ({"fraction": 0.5}, "seed"),
        ({}, "non_priority"),
        ({"every": 3, "fraction": 0.5, "seed": 1}, "non_priority"),
        ({"every": 3, "deadline": "c"}, "deadline"),
        ({"every": 3, "deadline": 0}, "deadline"),
        ({"every": 3, "deadline": -60.0}, "deadline"),
        ({"every": 3, "deadline": math.inf}, "deadline"),
        ({"every": 3, "deadline": math.nan}, "deadline"),
        ({"every": 3, "deadline": True}, "deadline"),
    ],
)
def test_mark_non_priority_bad_options_name_the_option(kwargs: dict, option: str) -> None:
    with pytest.raises(ConfigError) as info:
        mark_non_priority(_plain(), **kwargs)
    assert info.value.option == option
    assert option in str(info.value)


@pytest.mark.parametrize(
    ("rows", "line", "field", "what"),
    [
        (["1,1000", "x,2000"], 3, "job_id", "not a job id"),
        (["1,1000", "2,2000", "99,3000"], 4, "job_id", "no such job"),
        (["1,1000", "1,2000"], 3, "job_id", "listed twice"),
        (["1,1000", "2,5", "3,2000"], 3, "deadline", "before the job's submission"),
        (["1,soon"], 2, "deadline", "not a number"),
    ],
)
def test_deadline_table_errors_name_file_line_and_field(
    tmp_path, rows: list[str], line: int, field: str, what: str
) -> None:
    """Job 2 is submitted at 10 s, so a deadline of 5 s is before its submission."""
    path = tmp_path / "deadlines.csv"
    path.write_text("job_id,deadline\n" + "\n".join(rows) + "\n")
    with pytest.raises(WorkloadError) as info:
        deadlines_from_table(_plain(), path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert f"{path}:{line}" in str(err)
    assert f"field {field}" in str(err)
    assert what in str(err)


def test_deadline_table_sets_slack_from_absolute_deadlines(tmp_path) -> None:
    """Absolute deadlines become seconds from submission; absent or empty = priority."""
    path = tmp_path / "deadlines.csv"
    path.write_text("job_id,deadline\n2,110\n4,\n5,40\n")
    slack = deadlines_from_table(_plain(), path).attributes["deadline_time"]
    np.testing.assert_array_equal(slack, [NAN, 100.0, NAN, NAN, 0.0, NAN])


# --------------------------------------------------------------------------------------------
# (f) transforms keep the attribute aligned with its jobs
# --------------------------------------------------------------------------------------------


def _marked() -> Workload:
    """8 jobs submitted at 0, 10, ..., 70; job k has deadline_time 1000 + k (unique), odd
    jobs are priority (NaN); statuses 1, 0, 1, 5, 1, 1, 0, 1."""
    n = 8
    w = _workload(
        [10.0 * i for i in range(n)],
        [5.0] * n,
        [6.0] * n,
        [1] * n,
        2,
        slack=[1000.0 + k if k % 2 == 0 else NAN for k in range(n)],
        status=[1, 0, 1, 5, 1, 1, 0, 1],
    )
    return w


def _slack(w: Workload) -> list[float]:
    return w.attributes["deadline_time"].tolist()


def _same(got: list[float], want: list[float]) -> None:
    np.testing.assert_array_equal(np.array(got), np.array(want, dtype=float))


def test_first_jobs_and_job_range_keep_the_attribute_aligned() -> None:
    w = _marked()
    _same(_slack(first_jobs(w, 3)), [1000, NAN, 1002])
    _same(_slack(job_range(w, 2, 6)), [1002, NAN, 1004, NAN])
    assert job_range(w, 2, 6).submit_time.tolist() == [20.0, 30.0, 40.0, 50.0]


def test_time_window_and_clean_by_status_keep_the_attribute_aligned() -> None:
    w = _marked()
    window = time_window(w, 25.0, 65.0)  # jobs 3, 4, 5, 6
    assert window.submit_time.tolist() == [30.0, 40.0, 50.0, 60.0]
    _same(_slack(window), [NAN, 1004, NAN, 1006])
    clean = clean_by_status(w, drop=(0, 5))  # drops jobs 1, 3, 6
    assert clean.submit_time.tolist() == [0.0, 20.0, 40.0, 50.0, 70.0]
    _same(_slack(clean), [1000, 1002, 1004, NAN, NAN])


def test_scale_load_keeps_the_slack_so_the_deadline_moves_with_the_submission() -> None:
    """Load factor 2 halves every submit time; the slack (seconds from submission) is kept,
    so each absolute deadline becomes new submit + same slack."""
    w = _marked()
    scaled = scale_load(w, 2.0)
    _same(_slack(scaled), _slack(w))
    jobs = schedlab.simulate(scaled, "dbf", check=True).jobs
    submit = np.array([5.0 * i for i in range(8)])
    assert jobs["submitted_at"].tolist() == submit.tolist()
    want = np.where(np.isnan(_slack(w)), NAN, submit + np.array(_slack(w)))
    np.testing.assert_array_equal(jobs["deadline"].to_numpy(), want)
    assert jobs["priority"].tolist() == [k % 2 == 1 for k in range(8)]
