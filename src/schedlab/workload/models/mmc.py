"""The M/M/c workload: Poisson arrivals, exponential work, one processor per job (SPEC 5).

``mmc:servers=c,load=rho,jobs=N,seed=S[,service=s]``: N jobs whose inter-arrival times are
exponential with rate lambda = rho x c / s and whose run times are exponential with mean s
(default 1 s), on a machine of c processors; every job asks one processor and its requested
time is its run time (nothing is killed). Served in arrival order it is the M/M/c queue of
queueing theory, whose mean response time Erlang's C formula gives (`metrics.queueing`):
the engine is validated against it (`schedlab validate mmc`). Times are not rounded: they
are exact draws, so the comparison is not blurred by whole seconds.
"""

from __future__ import annotations

import numpy as np

from schedlab.validators import MAX_SEED, check_int, check_number
from schedlab.workload.job import Workload

__all__ = ["generate_mmc"]

MAX_JOBS = 10_000_000  # as lublin's: 1.4 GB of SWF fields
MAX_SERVERS = 1_000_000


def generate_mmc(
    servers: int, load: float, jobs: int, seed: int = 0, service: float = 1.0
) -> Workload:
    """N M/M/c jobs (module docstring); ``load`` is rho = lambda x s / c (stable below 1)."""
    c = check_int("mmc servers", servers, low=1, high=MAX_SERVERS)
    n = check_int("mmc jobs", jobs, low=1, high=MAX_JOBS)
    rho = check_number("mmc load", load, low=0, open_low=True, high=10.0)
    mean = check_number("mmc service", service, low=0, open_low=True, high=1e9)
    seed = check_int("mmc seed", seed, high=MAX_SEED)
    rng = np.random.default_rng(seed)
    rate = rho * c / mean
    submit = np.cumsum(rng.exponential(1.0 / rate, n))
    run = rng.exponential(mean, n)
    run = np.maximum(run, np.finfo(np.float64).tiny)  # a draw of exactly 0 would be skipped
    return Workload.from_columns(
        submit_time=submit,
        run_time=run,
        procs=np.ones(n, dtype=np.int64),
        max_procs=c,
        header=[
            "Computer: M/M/c queue (schedlab)",
            f"MaxJobs: {n}",
            f"MaxProcs: {c}",
            f"Note: servers {c}, load {rho:g}, mean service {mean:g} s, seed {seed}",
        ],
        source=f"mmc:jobs={n},load={rho:g},seed={seed},servers={c},service={mean:g}",
    )
