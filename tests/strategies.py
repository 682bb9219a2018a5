"""Hypothesis strategies shared by the property tests: small random rigid workloads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from schedlab.workload.job import Workload


@dataclass
class SmallWorkload:
    """Parallel lists, submit-ordered, as both the reference and the engine take them."""

    submit: list[float]
    run: list[float]
    req: list[float]
    procs: list[int]
    total: int

    def workload(self) -> Workload:
        return Workload.from_columns(
            submit_time=np.array(self.submit),
            run_time=np.array(self.run),
            procs=np.array(self.procs),
            requested_time=np.array(self.req),
            max_procs=self.total,
        )


@st.composite
def small_workloads(
    draw: st.DrawFn, max_jobs: int = 25, max_procs: int = 16, overruns: bool = True
) -> SmallWorkload:
    """Integral times on a coarse grid, so that ties (same submit, end = submit) are common."""
    total = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    gaps = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    submit = np.cumsum(gaps).astype(float).tolist()
    run = [float(x) for x in draw(st.lists(st.integers(1, 20), min_size=n, max_size=n))]
    if overruns:
        # estimates from well below to well above the run time
        req = [
            float(max(1, r + d))
            for r, d in zip(run, draw(st.lists(st.integers(-5, 15), min_size=n, max_size=n)))
        ]
    else:
        req = [
            r + float(d)
            for r, d in zip(run, draw(st.lists(st.integers(0, 15), min_size=n, max_size=n)))
        ]
    procs = draw(st.lists(st.integers(1, total), min_size=n, max_size=n))
    return SmallWorkload(submit, run, req, procs, total)


def fuzz(examples: int) -> settings:
    """Deterministic hypothesis settings for the fuzz suites: same examples every run,
    nothing stored, no deadline (a run's time varies with the machine's load)."""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture,
        ],
    )
