"""Section 4.4 of Caron et al. (LIP RR-2005-13): a meta-job's local response is d - tl, from
its arrival in a site's queue to its end. `schedlab reproduce dirac` reports it as the
summary's local wait plus execution of the meta-jobs; these tests pin why that sum is the
local response (per job, nothing is suspended on Table 2's FCFS queues), and what it is
under pilots (a payload starts as its pilot pulls it: no local wait)."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.grid.platforms import load_platform_source
from schedlab.simulation import run_grid
from schedlab.workload.models.grid import generate_grid

CASES = (
    ("push", {"tie": "free"}),
    ("static", {}),
    ("pilot_simple", {"probe": "unclaimed_own"}),
    ("pilot_filling", {"probe": "unclaimed_own"}),
)


@pytest.mark.parametrize(("meta", "params"), CASES)
def test_local_wait_plus_execution_is_the_time_from_the_site_queue_to_the_end(
    meta: str, params: dict[str, str]
) -> None:
    """Per meta-job, local wait + execution = end - admission into the site's queue, so the
    means of the summary add up to the mean local response."""
    platform = load_platform_source("builtin:dirac")
    workload = generate_grid(platform, meta_jobs=80, local_jobs=30, seed=3)
    result = run_grid(platform, workload, meta, seed=3, check=True, **params)
    jobs = result.jobs
    meta_jobs = jobs[jobs["stream"] == "global"]
    local_response = meta_jobs["finished_at"] - meta_jobs["admitted_at"]
    per_job = meta_jobs["local_wait_time"] + meta_jobs["run_time"]
    np.testing.assert_allclose(per_job, local_response, rtol=0, atol=1e-6)
    summary = result.summary()
    assert summary["global_mean_local_wait_time"] + summary[
        "global_mean_execution_time"
    ] == pytest.approx(local_response.mean())
    # the global response adds the time before the site: in transit, in the task queue
    assert (meta_jobs["response_time"] >= local_response - 1e-9).all()
    if meta.startswith("pilot"):
        assert (meta_jobs["local_wait_time"] == 0).all()
        np.testing.assert_allclose(local_response, meta_jobs["run_time"], atol=1e-9)
    else:  # pushed or submitted by an agent: the job queues after mu_rec (3.75 s)
        assert (meta_jobs["response_time"] - local_response >= 3.75 - 1e-9).all()
