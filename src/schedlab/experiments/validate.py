"""The engine against queueing theory: M/M/c through the general path (SPEC 5, Validation).

Every replication is a grid run (a `Scenario` on a one-site platform): the `mmc` workload's
jobs are the global stream of the ``direct`` meta-scheduler (`grid.direct`), which sends
each, with no delay, to one pool of c processors of power 1 under FCFS (no receive or
release delay, no network), on the general kernel. ``via="push"`` sends them through the
grid's centralized push meta-scheduler instead (exact information system, no network):
SPEC 5's validation. The first ``warmup`` fraction of the jobs (10 %) is deleted, so that
the empty start does not bias the estimate; the rest gives one mean response time.
Independent replications (seeds from one `numpy.random.SeedSequence`) give the Student t
interval at ``confidence`` (99 %). A row passes when Erlang C's mean response time lies in
the interval and the half-width is at most ``precision`` (5 %) of the mean.

Run length: the variance of a mean response time grows like (1 - rho)^-4 near saturation
(Whitt's asymptotic variance of M/M/1 waits), so each replication has ``clamp(2000 / (1 -
rho)^2, 10_000, 400_000)`` jobs unless told otherwise: long enough for 5 % at rho = 0.9 with
20 replications, and a few seconds at low load. At rho = 0.95 the cap keeps the run finite
and the interval is reported as it comes out.

The paper's own protocol (16 runs of 1000 jobs from an empty system, c = 4, mean service
4 s, no warm-up deletion) is run too, as `paper_protocol`: it underestimates the response
time near saturation (about -7 % at rho = 0.9), which is what its figure shows.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.validators import check_int, check_seed

__all__ = [
    "DEFAULT_LOADS",
    "DEFAULT_SERVERS",
    "MmcRow",
    "jobs_per_replication",
    "paper_protocol",
    "replicate",
    "validate_mmc",
]

DEFAULT_SERVERS = (1, 4, 16)
DEFAULT_LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
PAPER_SERVERS = 4
PAPER_SERVICE = 4.0
PAPER_RUNS = 16
PAPER_JOBS = 1000


@dataclass(frozen=True)
class MmcRow:
    """One (servers, load) point: the simulated mean response with its interval, Erlang C."""

    servers: int
    load: float
    replications: int
    jobs: int  # per replication, before warm-up deletion
    simulated_mean_response_time: float
    ci_low: float
    ci_high: float
    half_width_pct: float  # of the simulated mean
    erlang_c_mean_response_time: float
    relative_error: float  # simulated / Erlang C - 1
    inside: bool  # Erlang C within the interval
    passed: bool  # inside, and the half-width within the precision asked

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def jobs_per_replication(load: float) -> int:
    """Default run length at ``load`` (module docstring)."""
    return int(min(400_000, max(10_000, math.ceil(round(2000 / (1 - min(load, 0.999)) ** 2, 6)))))


VIA = ("direct", "push")


def _one_cluster(servers: int) -> Any:
    """One site, one FCFS queue of ``servers`` processors of power 1, no service times, no
    network: the platform of every replication."""
    from schedlab.platform.description import Platform, Queue, Site

    queue = Queue(name="queue", site="cluster", groups=((1.0, servers),))
    return Platform(sites=(Site(name="cluster", queues=(queue,)),), source="M/M/c")


def replicate(
    servers: int,
    load: float,
    jobs: int,
    seed: int,
    warmup: float = 0.1,
    service: float = 1.0,
    via: str = "direct",
) -> float:
    """Mean response time of one replication through the general path (module docstring):
    the jobs go to the ``direct`` meta-scheduler, or with ``via`` "push" through the push
    meta-scheduler with an exact information system (refresh 0)."""
    from schedlab.scenario import Scenario, run
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.mmc import generate_mmc

    if via not in VIA:
        raise ConfigError("--via", via, VIA)
    wl = generate_mmc(servers=servers, load=load, jobs=jobs, seed=seed, service=service)
    stream = GridWorkload.from_swf(wl, _one_cluster(servers), "global")
    params = {"refresh": 0.0} if via == "push" else {}
    result = run(
        Scenario(workload=stream, platform=_one_cluster(servers), meta=via, meta_params=params)
    )
    response = result.columns["response_time"]
    return float(response[int(len(response) * warmup) :].mean())


def _seeds(base: int, count: int, *key: int) -> list[int]:
    """Independent seeds for ``count`` replications of the point ``key``."""
    sequence = np.random.SeedSequence([base, *key])
    return [int(s.generate_state(1, np.uint64)[0] >> 1) for s in sequence.spawn(count)]


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    from scipy.stats import t

    mean = float(values.mean())
    half = float(t.ppf((1 + confidence) / 2, len(values) - 1)) * float(values.std(ddof=1))
    return mean, half / math.sqrt(len(values))


def _map(
    tasks: list[tuple[Any, ...]],
    workers: int | None,
    on_done: Callable[[int, int], None] | None,
) -> list[float]:
    """``replicate(*task)`` for every task, on a pool of worker processes when asked."""
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise ConfigError("--workers", workers, "an integer >= 1")
    results: list[float] = [math.nan] * len(tasks)
    if workers == 1 or len(tasks) == 1:
        for i, task in enumerate(tasks):
            results[i] = replicate(*task)
            if on_done:
                on_done(i + 1, len(tasks))
        return results
    from schedlab.experiments.workers import completed_runs, submit_all, worker_pool

    with worker_pool(min(workers, len(tasks))) as pool:
        futures: dict[Future[float], int] = {
            f: i for i, f in enumerate(submit_all(pool, replicate, tasks))
        }
        for done, future in enumerate(completed_runs(futures), 1):
            results[futures[future]] = future.result()
            if on_done:
                on_done(done, len(tasks))
    return results


def validate_mmc(
    servers: Sequence[int] = DEFAULT_SERVERS,
    loads: Sequence[float] = DEFAULT_LOADS,
    *,
    replications: int = 20,
    jobs: int | None = None,
    warmup: float = 0.1,
    confidence: float = 0.99,
    precision: float = 0.05,
    seed: int = 1,
    workers: int | None = None,
    on_done: Callable[[int, int], None] | None = None,
    via: str = "direct",
) -> list[MmcRow]:
    """Simulated mean response time against Erlang C at every (servers, load).

    ``jobs`` per replication (default: `jobs_per_replication`); the rest as in the module
    docstring. Deterministic: the same arguments give the same rows.
    """
    from schedlab.metrics.queueing import mmc_mean_response_time

    check_int("replications", replications, low=2)
    if jobs:  # (0 or None: by load)
        check_int("jobs", jobs, low=1)
    check_seed("seed", seed)
    if via not in VIA:
        raise ConfigError("--via", via, VIA)
    if not 0 <= warmup < 1:
        raise ConfigError("warmup", warmup, "a fraction in [0, 1)")
    if not 0 < confidence < 1:
        raise ConfigError("confidence", confidence, "a number strictly between 0 and 1")
    for load in loads:
        if not 0 < load < 1:
            raise ConfigError("load", load, "numbers strictly between 0 and 1 (a stable queue)")
    for c in servers:
        if not (isinstance(c, int) and c >= 1):
            raise ConfigError("servers", c, "integers >= 1")
    points = [(c, load) for c in servers for load in loads]
    tasks = []
    for c, load in points:
        n = jobs or jobs_per_replication(load)
        for s in _seeds(seed, replications, c, round(load * 1e6)):
            tasks.append((c, load, n, s, warmup, 1.0, via))
    values = _map(tasks, workers, on_done)
    rows = []
    for k, (c, load) in enumerate(points):
        sample = np.array(values[k * replications : (k + 1) * replications])
        mean, half = _interval(sample, confidence)
        theory = mmc_mean_response_time(c, load)
        inside = mean - half <= theory <= mean + half
        rows.append(
            MmcRow(
                servers=c,
                load=load,
                replications=replications,
                jobs=jobs or jobs_per_replication(load),
                simulated_mean_response_time=mean,
                ci_low=mean - half,
                ci_high=mean + half,
                half_width_pct=100 * half / mean,
                erlang_c_mean_response_time=theory,
                relative_error=mean / theory - 1,
                inside=inside,
                passed=inside and half <= precision * mean,
            )
        )
    return rows


def paper_protocol(
    loads: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    *,
    runs: int = PAPER_RUNS,
    seed: int = 1,
    workers: int | None = None,
) -> list[dict[str, float]]:
    """The protocol of Caron et al. (LIP RR-2005-13): ``runs`` (16) runs x 1000 jobs from empty,
    c = 4, service 4 s, no warm-up deletion.

    One row per load: the mean of the run means, its 95 % interval, Erlang C and the
    relative error. With many runs (say 400) the mean is the protocol's expectation, and its
    error the protocol's bias (module docstring).
    """
    from schedlab.metrics.queueing import mmc_mean_response_time

    tasks = []
    for load in loads:
        for s in _seeds(seed, runs, 1000, round(load * 1e6)):
            tasks.append((PAPER_SERVERS, load, PAPER_JOBS, s, 0.0, PAPER_SERVICE))
    values = _map(tasks, workers, None)
    rows = []
    for k, load in enumerate(loads):
        sample = np.array(values[k * runs : (k + 1) * runs])
        mean, half = _interval(sample, 0.95)
        theory = mmc_mean_response_time(PAPER_SERVERS, load, PAPER_SERVICE)
        rows.append(
            {
                "load": load,
                "runs": runs,
                "simulated_mean_response_time": mean,
                "ci_low": mean - half,
                "ci_high": mean + half,
                "erlang_c_mean_response_time": theory,
                "relative_error": mean / theory - 1,
            }
        )
    return rows
