"""The ablations of paper 003's dispatcher (issue 25, item 10) and the counts of repeated
preemption (item 11), on tiny platforms where every choice is computed by hand.

Jobs have requested time = work, one processor and origin c0 unless said; every run goes
through `run_tdcs` with the kernel's invariant checker on."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.sweep_params import parse_meta_schedulers
from schedlab.grid.tdcs import CONFIGURATIONS, TdcsVariantParams
from schedlab.metrics.tdcs import repeated_preemptions
from schedlab.platform.description import Link, Platform
from schedlab.results import Result
from schedlab.simulation import run_tdcs
from tdcs_cases import platform, workload

ABLATIONS = ("least_loaded_speed", "tdcs_no_candidate_rule", "tdcs_speed_blind",
             "tdcs_step6_literal")  # fmt: skip


def run(plat: Platform, jobs: list[dict[str, Any]], dispatcher: str, **kw: Any) -> Result:
    return run_tdcs(plat, workload(jobs), dispatcher, checkpoint_overhead=0.0, check=True, **kw)


def col(result: Result, name: str) -> list[Any]:
    return list(result.columns[name])


# -- least_loaded_speed ------------------------------------------------------------------------


def test_least_loaded_speed_measures_load_against_capacity() -> None:
    """c0: 4 nodes of power 1, 2 busy; c1: 4 nodes of power 2, 3 busy. least_loaded: 2/4 =
    0.5 < 3/4, c0. least_loaded_speed: 2 / (4 x 1) = 0.5 > 3 / (4 x 2) = 0.375, c1."""
    plat = platform([(1.0, 4), (2.0, 4)])
    jobs = [
        {"work": 1000.0, "procs": 2, "pool": 0},
        {"work": 1000.0, "procs": 3, "pool": 1},
        {"submit": 1.0, "work": 10.0},
    ]
    assert col(run(plat, jobs, "least_loaded"), "cluster")[2] == "c0"
    r = run(plat, jobs, "least_loaded_speed")
    assert col(r, "cluster")[2] == "c1"
    assert col(r, "run_time")[2] == pytest.approx(5.0)


def test_least_loaded_speed_breaks_ties_to_the_faster_cluster() -> None:
    """Two empty clusters (load 0 on both): least_loaded takes the lowest index, the
    speed-aware baseline the faster one."""
    plat = platform([(1.0, 2), (2.0, 2)])
    jobs = [{"work": 10.0}]
    assert col(run(plat, jobs, "least_loaded"), "cluster") == ["c0"]
    assert col(run(plat, jobs, "least_loaded_speed"), "cluster") == ["c1"]


# -- tdcs_no_candidate_rule --------------------------------------------------------------------


def test_without_the_candidate_rule_a_queue_of_equal_priority_does_not_close_a_cluster() -> None:
    """c1 (power 2) runs local high job A (requested end 100 / 2 = 50) with local high job B
    waiting behind it. A global high job G (work 200) arrives at 1. tdcs: c1 is no
    candidate (B waits at G's priority), so c0: T = 200, G starts at 1. Without the rule:
    c0 200 against c1 (50 - 1) + 200 / 2 = 149, so c1, where G starts after B (50 + 50)."""
    plat = platform([(1.0, 1), (2.0, 1)])
    jobs = [
        {"work": 100.0, "prio": 2, "pool": 1},
        {"work": 100.0, "prio": 2, "pool": 1},
        {"submit": 1.0, "work": 200.0, "prio": 2},
    ]
    r = run(plat, jobs, "tdcs")
    assert col(r, "cluster")[2] == "c0" and col(r, "started_at")[2] == 1.0
    r = run(plat, jobs, "tdcs_no_candidate_rule")
    assert col(r, "cluster")[2] == "c1"
    assert col(r, "started_at")[2] == pytest.approx(100.0)
    assert col(r, "finished_at")[2] == pytest.approx(200.0)


def test_the_ablations_keep_the_horizon() -> None:
    """Horizon 1 on two 2-node clusters: two global jobs at 0 take one cluster each (each
    then holds its one global job), the third waits in the global queue until the first
    ends (10 / power 1) and goes where it ended."""
    plat = platform([(1.0, 2), (1.0, 2)])
    jobs = [{"work": 10.0, "prio": 2}, {"work": 20.0, "prio": 2}, {"work": 5.0, "prio": 2}]
    for name in ("tdcs_no_candidate_rule", "tdcs_speed_blind", "tdcs_step6_literal"):
        r = run(plat, jobs, name, horizon=1)
        assert col(r, "cluster") == ["c0", "c1", "c0"], name
        assert col(r, "global_queue_time") == [0.0, 0.0, 10.0], name


# -- tdcs_speed_blind --------------------------------------------------------------------------


def test_speed_blind_ties_go_to_the_lowest_index() -> None:
    """Two empty clusters, powers 1 and 2, a high job of work 100: tdcs estimates 100 and 50
    and takes c1; blind to speeds both are 100, and the tie goes to c0."""
    plat = platform([(1.0, 1), (2.0, 1)])
    jobs = [{"work": 100.0, "prio": 2}]
    assert col(run(plat, jobs, "tdcs"), "cluster") == ["c1"]
    r = run(plat, jobs, "tdcs_speed_blind")
    assert col(r, "cluster") == ["c0"] and col(r, "run_time") == [100.0]


def test_speed_blind_reads_a_busy_fast_cluster_as_slow() -> None:
    """c1 (power 2) runs a local high job until 40 / 2 = 20. A global high job of work 100
    at 1: tdcs, c0 100 against c1 19 + 50 = 69: c1, start 20. Speed-blind, c1 is 19 + 100 =
    119: c0, start 1."""
    plat = platform([(1.0, 1), (2.0, 1)])
    jobs = [{"work": 40.0, "prio": 2, "pool": 1}, {"submit": 1.0, "work": 100.0, "prio": 2}]
    r = run(plat, jobs, "tdcs")
    assert col(r, "cluster")[1] == "c1" and col(r, "started_at")[1] == pytest.approx(20.0)
    r = run(plat, jobs, "tdcs_speed_blind")
    assert col(r, "cluster")[1] == "c0" and col(r, "started_at")[1] == 1.0


# -- tdcs_step6_literal ------------------------------------------------------------------------

NET = {"wan": Link(latency=0.01), "control_message": 30000.0}


def test_step6_literal_takes_the_least_transfer_over_speed() -> None:
    """Powers 1, 2, 4; 8 Mbit/s access links, 10 ms WAN, 30 kB messages; a high job of
    work 100 with 1 MB of input entering at c0. tdcs: c0 100, c1 0.04 + 1.01 + 50 = 51.05,
    c2 1.05 + 25 = 26.05: c2. Step 6 read literally: data transfer 0 to c0 (its own
    site), 1.01 s to c1 and c2: c0, with no transfer at all."""
    plat = platform([(1.0, 1), (2.0, 1), (4.0, 1)], lan=Link.mbit(8), **NET)
    jobs = [{"work": 100.0, "prio": 2, "input": 1e6}]
    assert col(run(plat, jobs, "tdcs"), "cluster") == ["c2"]
    r = run(plat, jobs, "tdcs_step6_literal")
    assert col(r, "cluster") == ["c0"]
    assert col(r, "transfer_time") == [0.0] and col(r, "finished_at") == [100.0]


def test_step6_literal_keeps_the_candidate_rule_and_breaks_ties_to_the_faster() -> None:
    """The same platform; c0 runs a local high job and has another waiting, so it is no
    candidate for a high job arriving at 1 (though its transfer is 0). c1 and c2 are equal
    for transfer (1.01 s each): the faster c2; the job starts after message and input,
    1 + 1.05."""
    plat = platform([(1.0, 1), (2.0, 1), (4.0, 1)], lan=Link.mbit(8), **NET)
    jobs = [
        {"work": 100.0, "prio": 2, "pool": 0},
        {"work": 100.0, "prio": 2, "pool": 0},
        {"submit": 1.0, "work": 100.0, "prio": 2, "input": 1e6},
    ]
    r = run(plat, jobs, "tdcs_step6_literal")
    assert col(r, "cluster")[2] == "c2"
    assert col(r, "started_at")[2] == pytest.approx(2.05)


# -- registered, and usable from `tdcs run` and sweeps -----------------------------------------


def test_the_ablations_are_configurations_with_their_own_parameters() -> None:
    assert set(ABLATIONS) <= set(CONFIGURATIONS)
    entries = parse_meta_schedulers(
        [{"name": name, "horizon": [2, 0]} for name in ABLATIONS[1:]]
        + [{"name": "least_loaded_speed", "preemption": "suspend"}],
        "tdcs",
    )
    assert [(e[0], e[1].get("horizon")) for e in entries[:2]] == [
        ("tdcs_no_candidate_rule", 2),
        ("tdcs_no_candidate_rule", 0),
    ]
    assert entries[-1][0] == "least_loaded_speed"
    assert entries[-1][3] is not None and entries[-1][3][1]["preemption"] == "suspend"
    with pytest.raises(ConfigError, match="horizon"):
        TdcsVariantParams(horizon=-1)


def test_tdcs_run_takes_the_ablations() -> None:
    runner = CliRunner()
    args = ["tdcs", "run", "--hours", "1", "--json", "--dispatcher", "tdcs_step6_literal"]
    done = runner.invoke(app, [*args, "--horizon", "2"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["configuration"] == "tdcs_step6_literal"
    refused = runner.invoke(app, [*args, "--candidate-rule", "queue"])
    assert isinstance(refused.exception, ConfigError)
    assert refused.exception.option == "--candidate-rule"
    refused = runner.invoke(app, [*args[:-1], "least_loaded_speed", "--horizon", "2"])
    assert isinstance(refused.exception, ConfigError) and refused.exception.option == "--horizon"


# -- repeated preemption (item 11) -------------------------------------------------------------


def test_repeated_preemption_counts() -> None:
    counts = repeated_preemptions(np.array([0, 1, 2, 3]), np.array([True, False, True, True]))
    assert counts == {
        "preemptions_per_job": 1.5,
        "global_preemptions_per_job": pytest.approx(5 / 3),
        "repeatedly_preempted_jobs": 2,
        "global_repeatedly_preempted_jobs": 2,
        "max_preemptions_of_a_job": 3,
    }


def test_a_job_preempted_twice_is_counted_once_as_repeated() -> None:
    """One node: a low local job (work 100) is suspended at 10 and at 30 by two high local
    jobs of work 10: three jobs, two preemptions, one job preempted twice, no global job."""
    plat = platform([(1.0, 1)])
    jobs = [
        {"work": 100.0, "prio": 0, "pool": 0},
        {"submit": 10.0, "work": 10.0, "prio": 2, "pool": 0},
        {"submit": 30.0, "work": 10.0, "prio": 2, "pool": 0},
    ]
    s = run(plat, jobs, "tdcs", preemption="suspend").summary()
    assert s["preemptions"] == 2
    assert s["preemptions_per_job"] == pytest.approx(2 / 3)
    assert s["repeatedly_preempted_jobs"] == 1 and s["max_preemptions_of_a_job"] == 2
    assert s["global_repeatedly_preempted_jobs"] == 0
    assert np.isnan(s["global_preemptions_per_job"])
