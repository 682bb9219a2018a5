"""The EASY variants of `schedlab reproduce pps`: no extra-processor rule, useless
estimates, and run ids unchanged by the parameter's default."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from schedlab import simulate
from schedlab.experiments.sweep import parse_sweep
from schedlab.workload.job import Workload
from schedlab.workload.transforms import requested_uniform


def _workload() -> Workload:
    """4 processors: A (2 procs, 100 s) runs; head B (3 procs) waits for it (shadow 100,
    one extra processor); C (1 proc, 500 s) ends after the shadow time but fits the extra."""
    return Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 2.0]),
        run_time=np.array([100.0, 10.0, 500.0]),
        procs=np.array([2, 3, 1]),
        requested_time=np.array([100.0, 10.0, 500.0]),
        max_procs=4,
    )


def test_extra_processor_rule_can_be_dropped() -> None:
    starts = simulate(_workload(), "easy", check=True).jobs["started_at"].tolist()
    assert starts == [0.0, 100.0, 2.0]  # C backfills on the extra processor
    starts = (
        simulate(_workload(), "easy", extra_procs=False, check=True).jobs["started_at"].tolist()
    )
    assert starts == [0.0, 100.0, 100.0]  # only jobs ending by the shadow time may jump


def test_useless_estimates_are_the_longest_run_time() -> None:
    out = requested_uniform(_workload())
    assert out.requested_time.tolist() == [500.0, 500.0, 500.0]
    assert out.run_time.tolist() == _workload().run_time.tolist()


def test_extra_procs_default_keeps_run_ids(tmp_path: Path) -> None:
    """Written or not, extra_procs = true is the same run (and the run id of before)."""

    def run_id(policy: dict[str, object], workload: dict[str, object]) -> str:
        data = {
            "workloads": [{"model": "lublin:jobs=50,procs=8,seed=1", **workload}],
            "policies": [{"name": "easy", **policy}],
        }
        return parse_sweep(data, tmp_path, "t").runs[0].run_id

    plain = run_id({}, {})
    assert run_id({"extra_procs": True}, {}) == plain
    assert run_id({"extra_procs": False}, {}) != plain
    assert run_id({}, {"useless_estimates": False}) == plain
    assert run_id({}, {"useless_estimates": True}) != plain
