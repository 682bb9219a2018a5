"""The general kernel, with one pool, is the inlined single-cluster loop (issue 9).

Every hand-computed scenario, every golden trace slice and random workloads run through
both loops (and through the kernel with a dispatching actor in front of the pool) and must
give identical per-job tables, column for column, bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

import schedlab
from schedlab.engine.actors import DirectDispatch
from schedlab.engine.kernel import JobSpecs, Kernel
from schedlab.platform.pool import PoolSpec
from schedlab.scenario import raw_run_of
from schedlab.schedulers import make_policy
from schedlab.workload.dependencies import dependencies
from schedlab.workload.job import F
from schedlab.workload.models.tsafrir import add_estimates
from schedlab.workload.transforms import first_jobs
from strategies import SmallWorkload, small_workloads
from workloads import trace_path

POLICIES = ("fcfs", "easy", "conservative", "dbf", "pps")
SCENARIOS = sorted((Path(__file__).parents[1] / "scenarios").glob("*.swf"))


def assert_same(workload: schedlab.Workload, policy: str, **params: object) -> None:
    inlined = schedlab.simulate(workload, policy, engine="inlined", check=True, **params)
    general = schedlab.simulate(workload, policy, engine="general", check=True, **params)
    pd.testing.assert_frame_equal(inlined.jobs, general.jobs, check_exact=True)
    assert inlined.summary() | {"wall_time": 0} == general.summary() | {"wall_time": 0}


def via_actor(workload: schedlab.Workload, policy: str) -> pd.DataFrame:
    """The same jobs released to a DirectDispatch actor that sends each to the one pool."""
    specs = JobSpecs.rigid(
        submit_at=workload.submit_time.tolist(),
        run_time=workload.run_time.tolist(),
        requested_time=workload.requested_time.tolist(),
        procs=workload.procs.tolist(),
        user=workload.user_id.tolist(),
        target_actor=0,
        attributes={k: v.tolist() for k, v in workload.attributes.items()},
    )
    kernel = Kernel(
        jobs=specs,
        pools=[(PoolSpec.cluster(workload.max_procs), make_policy(policy))],
        actors=[DirectDispatch(0)],
    )
    raw = raw_run_of(kernel.run())
    return pd.DataFrame(
        {"started_at": raw.started_at, "finished_at": raw.finished_at, "killed": raw.killed}
    )


@pytest.mark.parametrize("swf", SCENARIOS, ids=[s.stem for s in SCENARIOS])
@pytest.mark.parametrize("policy", POLICIES)
def test_every_scenario_gives_the_same_schedule_in_both_loops(swf: Path, policy: str) -> None:
    """(A scenario with dependants has no inlined run: its fields 17/18 are dropped there,
    so both loops replay it as independent jobs.)"""
    workload = schedlab.read_swf(swf)
    if dependencies(workload).count:
        fields = workload.fields.copy()
        fields[:, F["preceding_job_id"]] = -1
        workload = workload.with_fields(fields)
    assert_same(workload, policy)


@pytest.mark.trace
@pytest.mark.parametrize("policy", POLICIES)
def test_the_golden_trace_gives_the_same_schedule_in_both_loops(policy: str) -> None:
    """KTH-SP2 (the golden slice and beyond: 3000 jobs, with Tsafrir estimates too)."""
    kth = first_jobs(schedlab.read_swf(trace_path("KTH-SP2-1996-2.swf.gz")), 3000)
    assert_same(first_jobs(kth, 300), policy)
    assert_same(kth, policy)
    assert_same(add_estimates(kth, seed=3), policy, load_factor=1.4)


@pytest.mark.parametrize("policy", POLICIES)
def test_an_actor_in_front_of_the_pool_changes_nothing(policy: str) -> None:
    wl = add_estimates(schedlab.generate_lublin(jobs=1500, procs=64, seed=9, kind="all"), seed=2)
    expected = schedlab.simulate(wl, policy).jobs
    got = via_actor(wl, policy)
    for column in ("started_at", "finished_at", "killed"):
        np.testing.assert_array_equal(got[column].to_numpy(), expected[column].to_numpy())


@settings(max_examples=60, deadline=None, derandomize=True)
@given(w=small_workloads(max_jobs=20, max_procs=8))
def test_random_workloads_agree_for_every_policy(w: SmallWorkload) -> None:
    wl = w.workload()
    for policy in POLICIES:
        assert_same(wl, policy)
        assert_same(wl, policy, kill_on_overrun=False)
