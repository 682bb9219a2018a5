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

from schedlab.errors import ConfigError
from schedlab.validators import MAX_SEED, check_int, check_number
from schedlab.workload.job import MAX_TIME, Workload

__all__ = [
    "LOAD_RANGE",
    "MAX_JOBS",
    "MAX_SERVERS",
    "SERVICE_RANGE",
    "check_mmc_params",
    "generate_mmc",
]

MAX_JOBS = 10_000_000  # as lublin's: 1.4 GB of SWF fields; raised with the max_jobs key
MAX_SERVERS = 1_000_000
# rho where the model means something. Below 1 % the servers idle 99 % of the time: a run
# measures the service draws, not a queue; and the arrivals then span up to jobs / (rho x c)
# mean services, which must stay where float64 resolves a service time on the clock (at
# 1e9 services to the span, a millionth of one). Loads from 1 up are unstable (the queue
# grows): allowed up to 10 for overload runs.
LOAD_RANGE = (0.01, 10.0)
SERVICE_RANGE = (1e-6, 1e9)  # mean service, s: a microsecond to 30 years
# the arrivals' expected span (jobs x service / (rho x c)) at most a tenth of MAX_TIME, so
# the clock stays below 1e15 s (the realised span is checked too)
MAX_SPAN = MAX_TIME / 10


def generate_mmc(
    servers: int,
    load: float,
    jobs: int,
    seed: int = 0,
    service: float = 1.0,
    max_jobs: int = MAX_JOBS,
) -> Workload:
    """N M/M/c jobs (module docstring); ``load`` is rho = lambda x s / c (stable below 1).

    Ranges (ConfigError naming the parameter otherwise): servers 1 to `MAX_SERVERS`, jobs 1
    to ``max_jobs`` (`MAX_JOBS` unless raised deliberately), load in `LOAD_RANGE`, service
    in `SERVICE_RANGE` s, and jobs x service / (load x servers), the arrivals' expected
    span, at most `MAX_SPAN` s.
    """
    c, rho, n, seed, mean, ceiling = _checked(servers, load, jobs, seed, service, max_jobs)
    rng = np.random.default_rng(seed)
    rate = rho * c / mean
    submit = np.cumsum(rng.exponential(1.0 / rate, n))
    run = rng.exponential(mean, n)
    run = np.maximum(run, np.finfo(np.float64).tiny)  # a draw of exactly 0 would be skipped
    if n and float(submit[-1] + run.max()) > MAX_TIME:  # (never at MAX_SPAN but in theory)
        raise ConfigError("mmc seed", seed, f"a seed whose draws end before {MAX_TIME:g} s")
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
        source=f"mmc:jobs={n},load={rho:g},seed={seed},servers={c},service={mean:g}"
        + (f",max_jobs={ceiling}" if ceiling != MAX_JOBS else ""),
    )


def check_mmc_params(
    servers: object,
    load: object,
    jobs: object,
    seed: object = 0,
    service: object = 1.0,
    max_jobs: object = MAX_JOBS,
) -> None:
    """Raise ConfigError naming the first parameter of `generate_mmc` out of its range,
    without drawing anything (a model spec is checked with this when it is read)."""
    _checked(servers, load, jobs, seed, service, max_jobs)


def _checked(
    servers: object, load: object, jobs: object, seed: object, service: object, max_jobs: object
) -> tuple[int, float, int, int, float, int]:
    """The parameters as plain numbers, checked (`generate_mmc`'s ranges)."""
    c = check_int("mmc servers", servers, low=1, high=MAX_SERVERS)
    ceiling = check_int("mmc max_jobs", max_jobs, low=1, allowed="an integer >= 1")
    n = check_int(
        "mmc jobs",
        jobs,
        low=1,
        high=ceiling,
        allowed=f"an integer in 1..{ceiling:,} (raise the ceiling with max_jobs=N)",
    )
    low, high = LOAD_RANGE
    rho = check_number(
        "mmc load",
        load,
        low=low,
        high=high,
        allowed=f"a load rho in [{low:g}, {high:g}] (below, the servers are all but idle)",
    )
    mean = check_number("mmc service", service, low=SERVICE_RANGE[0], high=SERVICE_RANGE[1])
    seed = check_int("mmc seed", seed, high=MAX_SEED)
    span = n * mean / (rho * c)
    if span > MAX_SPAN:
        raise ConfigError(
            "mmc jobs",
            jobs,
            f"fewer jobs (or a shorter service or a higher load): jobs x service / (load x "
            f"servers) = {span:.3g} s of arrivals, over {MAX_SPAN:g} s",
        )
    return c, rho, n, seed, mean, ceiling
