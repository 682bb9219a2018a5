"""Metrics of SPEC section 3 against values computed by hand on tiny per-job tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import schedlab
from schedlab.errors import ConfigError
from schedlab.metrics import BSLD_THRESHOLD, SUMMARY_KEYS, per_class, summarize, unfairness
from schedlab.workload.job import Workload


def table(
    submit: list[float],
    start: list[float],
    end: list[float],
    procs: list[int],
    *,
    run: list[float] | None = None,
    killed: list[bool] | None = None,
    user: list[int] | None = None,
) -> pd.DataFrame:
    """A per-job table in submit order; run = end - start unless given (preempted jobs)."""
    n = len(submit)
    s, b, e = (np.asarray(x, dtype=np.float64) for x in (submit, start, end))
    return pd.DataFrame(
        {
            "job_id": np.arange(1, n + 1),
            "submitted_at": s,
            "started_at": b,
            "finished_at": e,
            "wait_time": b - s,
            "run_time": e - b if run is None else np.asarray(run, dtype=np.float64),
            "requested_time": e - b,
            "procs": np.asarray(procs, dtype=np.int64),
            "user": np.asarray(user if user is not None else [1] * n, dtype=np.int64),
            "killed": np.asarray(killed if killed is not None else [False] * n, dtype=bool),
        }
    )


# Three jobs on P = 4 processors:
#   J1: submit 0,  start 0,   end 2,   procs 4 -> wait 0,   run 2,   response 2
#   J2: submit 0,  start 8,   end 10,  procs 2 -> wait 8,   run 2,   response 10
#   J3: submit 10, start 110, end 210, procs 2 -> wait 100, run 100, response 200 (killed)
THREE = dict(
    submit=[0, 0, 10],
    start=[0, 8, 110],
    end=[2, 10, 210],
    procs=[4, 2, 2],
    killed=[False, False, True],
    user=[7, 7, 9],
)


def test_summary_keys_are_the_design_keys_in_order() -> None:
    """summarize returns exactly the DESIGN.md 4 keys, in that order, passing through extras."""
    got = summarize(table(**THREE), procs=4, skipped=5, wall_time=1.25)
    assert list(got) == list(SUMMARY_KEYS)
    assert (got["jobs"], got["skipped"], got["procs"], got["wall_time"]) == (3, 5, 4, 1.25)


def test_wait_response_and_extremes_by_hand() -> None:
    """Mean/max wait and mean response are plain averages of start - submit and end - submit."""
    got = summarize(table(**THREE), procs=4)
    assert got["mean_wait_time"] == pytest.approx((0 + 8 + 100) / 3)  # = 36
    assert got["max_wait_time"] == 100
    assert got["mean_response_time"] == pytest.approx((2 + 10 + 200) / 3)  # = 70.67


def test_slowdown_and_bounded_slowdown_by_hand() -> None:
    """slowdown = response / run; bsld = max(response / max(run, 10 s), 1)."""
    assert BSLD_THRESHOLD == 10.0
    got = summarize(table(**THREE), procs=4)
    # slowdown: J1 2/2 = 1, J2 10/2 = 5, J3 200/100 = 2 -> mean 8/3
    assert got["mean_slowdown"] == pytest.approx(8 / 3)
    # bsld: J1 max(2/10, 1) = 1; J2 (a 2 s job that waited 8 s) max(10/10, 1) = 1;
    #       J3 (a 100 s job that waited 100 s) max(200/100, 1) = 2 -> mean 4/3
    assert got["mean_bounded_slowdown"] == pytest.approx(4 / 3)


def test_bounded_slowdown_uses_tau_for_short_jobs_only() -> None:
    """A 1 s job waiting 29 s has bsld 30/10 = 3 while its plain slowdown is 30."""
    got = summarize(table([0], [29], [30], [1]), procs=1)
    assert got["mean_slowdown"] == pytest.approx(30.0)  # 30 / 1
    assert got["mean_bounded_slowdown"] == pytest.approx(3.0)  # max(30 / max(1, 10), 1)


def test_utilization_and_makespan_by_hand() -> None:
    """makespan = last end - first submit; utilization = sum(procs x run) / (P x makespan)."""
    got = summarize(table(**THREE), procs=4)
    assert got["makespan"] == 210  # 210 - 0
    # work = 4*2 + 2*2 + 2*100 = 212 processor-seconds; 212 / (4 * 210) = 0.25238
    assert got["utilization"] == pytest.approx(212 / 840)


def test_makespan_starts_at_the_first_submit_not_at_zero() -> None:
    """With the first submit at t = 100 the makespan and utilization window start there."""
    # One job: submit 100, start 100, end 150 on 2 of 2 procs -> makespan 50, utilization 1.
    got = summarize(table([100], [100], [150], [2]), procs=2)
    assert got["makespan"] == 50
    assert got["utilization"] == pytest.approx(1.0)


def test_killed_counts_the_killed_jobs() -> None:
    """killed is the number of rows whose killed flag is set."""
    assert summarize(table(**THREE), procs=4)["killed"] == 1


def test_unfairness_is_zero_when_start_order_is_submit_order() -> None:
    """Jobs that start in the order they were submitted have unfairness 0."""
    # S = E = (0, 1, 2) -> |S - E| = (0, 0, 0) -> std 0
    assert summarize(table(**THREE), procs=4)["unfairness"] == 0.0
    assert unfairness(np.array([0.0, 1.0, 5.0]), np.array([3.0, 4.0, 9.0])) == 0.0


def test_unfairness_of_one_swapped_pair_among_four() -> None:
    """Swapping the middle two of four jobs gives |S - E| = (0, 1, 1, 0): std 0.5."""
    # S = (0, 1, 2, 3); starts 0, 20, 10, 30 -> E = (0, 2, 1, 3); |S - E| = (0, 1, 1, 0)
    # mean 0.5; population std sqrt(((0.5)^2 * 4) / 4) = 0.5
    got = unfairness(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 20.0, 10.0, 30.0]))
    assert got == pytest.approx(0.5)


def test_unfairness_of_a_job_overtaken_by_two() -> None:
    """The first job starting last of three gives |S - E| = (2, 1, 1): std sqrt(2)/3."""
    # E = (2, 0, 1); mean 4/3; var = ((2/3)^2 + 2 (1/3)^2) / 3 = 2/9; std = sqrt(2)/3 = 0.4714
    got = unfairness(np.array([0.0, 1.0, 2.0]), np.array([50.0, 10.0, 20.0]))
    assert got == pytest.approx(math.sqrt(2) / 3)


def test_unfairness_breaks_ties_by_job_order() -> None:
    """Jobs submitted and started at the same instants keep their order: unfairness 0."""
    assert unfairness(np.zeros(5), np.zeros(5)) == 0.0


def test_unfairness_uses_end_minus_run_for_preempted_jobs() -> None:
    """A preempted job's start rank comes from its virtual start, end - run (PPS paper)."""
    # J1: submit 0, first start 0, suspended, ends 100 after running 20 -> virtual start 80
    # J2: submit 1, runs 10..30 -> 10;  J3: submit 2, runs 30..50 -> 30
    # Virtual start order J2, J3, J1 -> E = (2, 0, 1), S = (0, 1, 2) -> |S - E| = (2, 1, 1)
    # -> std sqrt(2)/3. By first starts (0, 10, 30) it would be 0.
    jobs = table([0, 1, 2], [0, 10, 30], [100, 30, 50], [1, 1, 1], run=[20, 20, 20])
    assert summarize(jobs, procs=1)["unfairness"] == pytest.approx(math.sqrt(2) / 3)


def test_empty_table_summarizes_to_zeros() -> None:
    """An empty per-job table gives 0 jobs and zero metrics instead of NaN or an error."""
    got = summarize(table([], [], [], []), procs=8, skipped=2)
    assert got["jobs"] == 0 and got["skipped"] == 2 and got["procs"] == 8
    for key in ("makespan", "utilization", "mean_wait_time", "unfairness", "killed"):
        assert got[key] == 0


def test_per_class_by_user_by_hand() -> None:
    """per_class gives each user's own metrics; utilization shares add up to the total."""
    jobs = table(**THREE)
    total = summarize(jobs, procs=4)
    got = per_class(jobs, "user", procs=4).set_index("user")
    assert list(got.index) == [7, 9]
    # user 7 = J1, J2: waits 0, 8 -> mean 4; work 4*2 + 2*2 = 12 -> 12 / (4 * 210)
    # user 9 = J3: wait 100; work 2*100 = 200 -> 200 / (4 * 210); killed 1
    assert got.loc[7, "jobs"] == 2 and got.loc[9, "jobs"] == 1
    assert got.loc[7, "mean_wait_time"] == pytest.approx(4.0)
    assert got.loc[9, "mean_wait_time"] == pytest.approx(100.0)
    assert got.loc[7, "utilization"] == pytest.approx(12 / 840)
    assert got.loc[9, "utilization"] == pytest.approx(200 / 840)
    assert (got.loc[7, "killed"], got.loc[9, "killed"]) == (0, 1)
    assert got["utilization"].sum() == pytest.approx(total["utilization"])


def test_per_class_utilization_sums_to_total_on_a_simulated_run() -> None:
    """On a real run, per-user utilization shares add up to the whole machine's utilization."""
    rng = np.random.default_rng(4)
    n = 200
    wl = Workload.from_columns(
        submit_time=np.sort(rng.integers(0, 20_000, n)).astype(float),
        run_time=rng.integers(1, 2_000, n).astype(float),
        procs=rng.integers(1, 17, n),
        user_id=rng.integers(1, 6, n),
        max_procs=16,
    )
    result = schedlab.simulate(wl, "easy")
    classes = result.by("user")
    assert classes["jobs"].sum() == n
    assert classes["utilization"].sum() == pytest.approx(result.summary()["utilization"])


def test_per_class_unknown_column_names_it() -> None:
    """per_class on a column the table lacks raises ConfigError naming that column."""
    with pytest.raises(ConfigError, match="nope"):
        per_class(table(**THREE), "nope", procs=4)


def test_simulate_three_jobs_every_metric_by_hand() -> None:
    """EASY on three jobs: the per-job table and every summary metric match a hand schedule."""
    # P = 4.
    #   J1: submit 0,  run 100, req 100, 3 procs -> starts 0, ends 100.
    #   J2: submit 10, run 4,   req 4,   2 procs -> 1 free: waits; shadow time 100.
    #   J3: submit 20, run 30,  req 20,  1 proc  -> fits now and ends by 20 + 20 = 40 <= 100:
    #       backfilled at 20, killed at its requested time 40 (ran 20 s).
    #   At 100 J1 ends and J2 runs 100..104.
    wl = Workload.from_columns(
        submit_time=np.array([0.0, 10.0, 20.0]),
        run_time=np.array([100.0, 4.0, 30.0]),
        procs=np.array([3, 2, 1]),
        requested_time=np.array([100.0, 4.0, 20.0]),
        max_procs=4,
    )
    result = schedlab.simulate(wl, "easy", check=True)
    jobs = result.jobs
    assert jobs["started_at"].tolist() == [0, 100, 20]
    assert jobs["finished_at"].tolist() == [100, 104, 40]
    assert jobs["wait_time"].tolist() == [0, 90, 0]
    assert jobs["run_time"].tolist() == [100, 4, 20]
    assert jobs["killed"].tolist() == [False, False, True]

    got = result.summary()
    assert (got["jobs"], got["skipped"], got["procs"], got["killed"]) == (3, 0, 4, 1)
    assert got["makespan"] == 104  # 104 - 0
    # work = 3*100 + 2*4 + 1*20 = 328; 328 / (4 * 104) = 0.78846
    assert got["utilization"] == pytest.approx(328 / 416)
    assert got["mean_wait_time"] == pytest.approx(30.0)  # (0 + 90 + 0) / 3
    assert got["max_wait_time"] == 90
    # responses 100, 94, 20 -> 214 / 3
    assert got["mean_response_time"] == pytest.approx(214 / 3)
    # slowdowns 100/100 = 1, 94/4 = 23.5, 20/20 = 1 -> 25.5 / 3 = 8.5
    assert got["mean_slowdown"] == pytest.approx(8.5)
    # bsld: max(100/100, 1) = 1, max(94/10, 1) = 9.4, max(20/20, 1) = 1 -> 11.4 / 3 = 3.8
    assert got["mean_bounded_slowdown"] == pytest.approx(3.8)
    # start order J1, J3, J2 -> E = (0, 2, 1), |S - E| = (0, 1, 1) -> std sqrt(2)/3
    assert got["unfairness"] == pytest.approx(math.sqrt(2) / 3)
    assert got["wall_time"] >= 0
