"""A pool's policy plans with the requested time the kernel itself enforces, to the last bit.

The pool view's requested time and the kernel's kill limit were computed as ``w x f / p``
and ``w x (f / p)``: equal on paper, an ulp apart in floating point when the node power is
not a power of two. Conservative backfilling then started a reserved job at the planned end
of another, an ulp before the kernel ended it ("needs 4 processors but only 1 are free").
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from schedlab import run_grid
from schedlab.grid.platforms import load_platform_source
from schedlab.workload.models.grid import generate_grid

PLATFORM = """
[[sites]]
name = "a"
[[sites.queues]]
name = "q"
policy = "conservative"
groups = [[100.0, 24]]
"""


@pytest.mark.parametrize("seed", [0])
def test_conservative_on_a_power_100_pool_with_parallel_jobs(tmp_path, seed):
    path = tmp_path / "p.toml"
    path.write_text(PLATFORM)
    platform = load_platform_source(str(path))
    stream = generate_grid(platform, meta_jobs=60, local_jobs=20, seed=seed)
    sizes = np.random.default_rng(seed).integers(1, 5, size=len(stream.procs))
    stream = dataclasses.replace(stream, procs=sizes)
    result = run_grid(platform, stream, "push", check=True)  # raised PolicyError before
    jobs = result.jobs
    assert len(jobs) == len(sizes)
    assert (jobs["procs"] > 1).any()
    assert np.isfinite(jobs["finished_at"]).all()
