"""The multifactor policy: Slurm-like priorities (age, size, fair share) over EASY.

Hand-computed cases, each chosen so that the priority changes the order FCFS would give.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.engine.decisions import Start
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError
from schedlab.schedulers.multifactor import MultifactorParams, MultifactorPriority
from schedlab.schedulers.registry import make_policy
from schedlab.workload.job import Workload

# (submit, run, procs, user); requested time = run time unless given
Job = tuple[float, float, int, int]


def _workload(jobs: list[Job], total: int) -> Workload:
    submit, run, procs, user = (np.array(c) for c in zip(*jobs))
    return Workload.from_columns(
        submit_time=submit.astype(float),
        run_time=run.astype(float),
        procs=procs,
        requested_time=run.astype(float),
        user_id=user,
        max_procs=total,
    )


def _starts(jobs: list[Job], total: int, **params: object) -> list[float]:
    result = schedlab.simulate(_workload(jobs, total), "multifactor", check=True, **params)
    return [float(t) for t in result.jobs["started_at"]]


def test_fair_share_puts_the_user_who_used_less_first() -> None:
    """P = 4. User 1's job 0 holds the machine from 0 to 100; user 1 submits job 1 at 50,
    user 2 job 2 at 60. At t = 100 user 1 has used 400 processor-seconds, user 2 nothing:
    F1 = 2^(-1 x 2) = 0.25 < F2 = 1, so job 2 starts at 100 and job 1 after it, at 110,
    against arrival order (which the same run with no weights follows)."""
    jobs = [(0, 100, 4, 1), (50, 10, 4, 1), (60, 10, 4, 2)]
    only_fs = {"weight_age": 0.0, "weight_job_size": 0.0, "weight_fairshare": 1.0}
    assert _starts(jobs, 4, calc_period=10.0, **only_fs) == [0.0, 110.0, 100.0]
    no_weights = {**only_fs, "weight_fairshare": 0.0}
    assert _starts(jobs, 4, calc_period=10.0, **no_weights) == [0.0, 100.0, 110.0]


def test_age_overtakes_size() -> None:
    """P = 4, favor_small, age weight 1, size weight 0.5, max_age 100. Job 0 holds the
    machine until 100; big job B (4 procs, size factor 0) waits from 0; small jobs S1 (from
    10) and S2 (from 90) have size factor 1. At the tick t = 100: B = 1.0, S1 = 0.9 + 0.5 =
    1.4, S2 = 0.1 + 0.5 = 0.6. S1 starts at 100; B, reserved at S1's end (110), keeps S2
    (which would end at 120) out; B starts at 110 and S2 at 120. By size alone both small
    jobs pass B (B at 120); by age alone (FCFS) B starts first, at 100."""
    jobs = [(0, 100, 4, 1), (0, 10, 4, 1), (10, 10, 1, 1), (90, 20, 1, 1)]
    common = {"favor_small": True, "max_age": 100.0, "calc_period": 10.0, "weight_fairshare": 0.0}
    both = _starts(jobs, 4, weight_age=1.0, weight_job_size=0.5, **common)
    assert both == [0.0, 110.0, 100.0, 120.0]
    size_only = _starts(jobs, 4, weight_age=0.0, weight_job_size=0.5, **common)
    assert size_only == [0.0, 120.0, 100.0, 100.0]
    age_only = _starts(jobs, 4, weight_age=1.0, weight_job_size=0.0, **common)
    assert age_only == [0.0, 100.0, 110.0, 110.0]


def _drive(params: MultifactorParams) -> tuple[MultifactorPriority, ClusterView]:
    """User 7's job 0 runs on both processors from 0 to 100; user 8's job 1 arrives at 1100."""
    view = ClusterView(
        total_procs=2,
        submit_at=[0.0, 1100.0],
        requested_time=[100.0, 10.0],
        procs=[2, 1],
        user=[7, 8],
    )
    policy = MultifactorPriority(params)
    policy.setup(view)
    view.now, view.free_procs = 0.0, 2
    policy.on_submit(0)
    assert policy.schedule(0.0, view) == [Start(0)]
    return policy, view


def test_usage_is_charged_at_ticks_and_halves_after_one_half_life() -> None:
    """calc_period 10, half-life 1000: at each tick usage = usage x d + 20 (2 processors x
    10 s), d = 0.5^(10/1000). The job ends at 100 (10 ticks); 1000 s later (100 ticks, with
    no event in between) the usage is half of what it was."""
    policy, view = _drive(MultifactorParams(calc_period=10.0, decay_half_life=1000.0))
    assert policy.usage(7) == 0.0
    view.now = 100.0
    policy.on_finish(0)
    d = 0.5 ** (10 / 1000)
    expected = 0.0
    for _ in range(10):
        expected = expected * d + 20.0
    assert policy.usage(7) == pytest.approx(expected, rel=1e-12)
    view.now = 1100.0
    policy.on_submit(1)
    assert policy.usage(7) == pytest.approx(expected / 2, rel=1e-12)
    assert policy.usage(8) == 0.0
    # user 7 has all the usage, two users seen: F = 2^(-1 x 2); user 8: 2^0
    assert policy.fair_share(7) == pytest.approx(0.25)
    assert policy.fair_share(8) == 1.0


def test_no_decay_with_a_zero_half_life() -> None:
    policy, view = _drive(MultifactorParams(calc_period=10.0, decay_half_life=0.0))
    view.now = 100.0
    policy.on_finish(0)
    assert policy.usage(7) == 200.0
    view.now = 1100.0
    policy.on_submit(1)
    assert policy.usage(7) == 200.0


def test_a_job_that_ends_between_ticks_is_charged_at_the_next_tick() -> None:
    """The job runs 0-100 with ticks every 30 s: charged 60 at 30, 60, 90 and 20 at 120."""
    policy, view = _drive(MultifactorParams(calc_period=30.0, decay_half_life=0.0))
    view.now = 100.0
    policy.on_finish(0)
    assert policy.usage(7) == 180.0
    view.now = 1100.0
    policy.on_submit(1)
    assert policy.usage(7) == 200.0


def test_backfilling_never_delays_the_reserved_job() -> None:
    """P = 4. Job 0 (3 procs) runs 0-100; the wide job 1 (4 procs, size factor 1: the top)
    is reserved at 100. Job 2 (1 proc, ends at 52) backfills at 2; job 3 (1 proc, 200 s)
    would delay job 1 and waits for its end (110). Job 1 starts at 100 with or without the
    later jobs."""
    head = [(0, 100, 3, 1), (1, 10, 4, 1)]
    later = [(2, 50, 1, 1), (3, 200, 1, 1)]
    with_later = _starts(head + later, 4)
    assert with_later == [0.0, 100.0, 2.0, 110.0]
    assert _starts(head, 4)[1] == with_later[1]


def test_age_only_is_easy_on_a_lublin_workload() -> None:
    """Every weight 0 but age: priority order is arrival order, so EASY's schedule exactly."""
    workload = schedlab.load_workload("lublin:jobs=2000,procs=64,seed=5")
    easy = schedlab.simulate(workload, "easy", check=True).jobs
    mf = schedlab.simulate(
        workload,
        "multifactor",
        check=True,
        weight_fairshare=0.0,
        weight_job_size=0.0,
        max_age=1e9,
    ).jobs
    np.testing.assert_array_equal(mf["started_at"].to_numpy(), easy["started_at"].to_numpy())
    # and the default weights do reorder this workload
    default = schedlab.simulate(workload, "multifactor", check=True).jobs
    assert not np.array_equal(default["started_at"].to_numpy(), easy["started_at"].to_numpy())


def test_both_engines_agree() -> None:
    """The inlined single-cluster loop and the general kernel give the same schedule."""
    jobs: list[Job] = [
        (float(t), float(r), int(p), int(u))
        for t, r, p, u in zip(
            np.arange(0, 600, 7),
            np.resize([40, 300, 90, 10, 700], 86),
            np.resize([1, 8, 3, 16, 5], 86),
            np.resize([1, 2, 3, 2], 86),
        )
    ]
    workload = _workload(jobs, 16)
    a = schedlab.simulate(workload, "multifactor", check=True, calc_period=60.0).jobs
    b = schedlab.simulate(
        workload, "multifactor", check=True, calc_period=60.0, engine="general"
    ).jobs
    np.testing.assert_array_equal(a["started_at"].to_numpy(), b["started_at"].to_numpy())


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"calc_period": 0.0}, "calc_period"),
        ({"max_age": -1.0}, "max_age"),
        ({"weight_age": -1.0}, "weight_age"),
        ({"decay_half_life": math.inf}, "decay_half_life"),
        ({"favor_small": "yes"}, "favor_small"),
        ({"weight": 1.0}, "weight"),
    ],
)
def test_bad_parameters_are_refused_by_name(params: dict[str, object], name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        make_policy("multifactor", **params)


def test_policies_command_lists_it_with_its_parameters() -> None:
    result = CliRunner().invoke(app, ["policies"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    params: list[str] = []  # the parameter cell of the multifactor row, over its lines
    for line in result.output.splitlines():
        cells = [c.strip() for c in line.split("\u2502")]
        if len(cells) < 4:
            continue
        if cells[1] == "multifactor" or (params and not cells[1]):
            params.append(cells[2])
        elif params:
            break
    shown = " ".join(params)
    for text in ("weight_fairshare=10000.0", "decay_half_life=604800.0", "calc_period=300.0"):
        assert text in shown
