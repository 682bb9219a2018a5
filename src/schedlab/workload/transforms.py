"""Pure functions that derive one workload from another (SPEC section 2).

Each returns a new `Workload` and leaves its argument untouched (rows are copied, never
shared), keeping the machine size, header, source and skip counts. Jobs a transform removes
on purpose to clean a trace are counted in `skipped` like any other skipped job.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.validators import check_fraction, check_int, check_number, check_seed, is_int
from schedlab.workload.deadlines import deadlines_from_table, mark_non_priority
from schedlab.workload.job import MAX_TIME, F, Workload

__all__ = [
    "scale_load",
    "clean_by_status",
    "first_jobs",
    "job_range",
    "time_window",
    "raise_requested_to_run",
    "requested_from_run",
    "requested_uniform",
    "make_moldable",
]


def scale_load(workload: Workload, factor: float) -> Workload:
    """Multiply every submit time by 1/`factor` to offer `factor` times the load (PPS paper).

    Literally SPEC section 2: the first submit time moves too (it is not re-anchored), and
    only field 2 changes (run times, estimates and think times stay as they are).

    The scaled submit times must stay meaningful: finite and within `MAX_TIME` (1e15 s, where
    float64 still resolves 1/8 s, so adding a run time to a submit time keeps its value),
    and no nonzero submit time may underflow to a denormal number or 0 (which would merge
    distinct instants). A factor outside the range this workload allows raises
    `ConfigError` naming ``load_factor`` and that range.
    """
    f = check_number("load_factor", factor, low=0, open_low=True, allowed="a finite number > 0")
    fields = workload.fields.copy()
    submit = fields[:, F["submit_time"]]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        scaled = submit * (1.0 / f)
    magnitude = np.abs(scaled)
    tiny = np.finfo(np.float64).tiny
    ok = bool(
        math.isfinite(1.0 / f)
        and np.isfinite(scaled).all()
        and (magnitude <= MAX_TIME).all()
        and not ((magnitude < tiny) & (submit != 0)).any()
    )
    if not ok:
        raise ConfigError("load_factor", factor, _load_factor_range(submit))
    fields[:, F["submit_time"]] = scaled
    return workload.with_fields(fields)


def _load_factor_range(submit: np.ndarray) -> str:
    """The allowed load factors for these submit times, in words (see `scale_load`)."""
    magnitude = np.abs(submit[np.isfinite(submit)])
    largest = float(magnitude.max()) if magnitude.size else 0.0
    nonzero = magnitude[magnitude > 0]
    smallest = float(nonzero.min()) if nonzero.size else 0.0
    tiny = float(np.finfo(np.float64).tiny)
    # A little inside the exact bounds, so that a factor written as shown is accepted.
    low = max(largest / MAX_TIME, 1.0 / float(np.finfo(np.float64).max)) * (1 + 1e-5)
    high = smallest / tiny * (1 - 1e-5) if smallest > 0 else math.inf
    why = (
        f"the largest submit time here, {largest:g} s, divided by load_factor must stay "
        f"within {MAX_TIME:g} s"
    )
    if not math.isfinite(high):
        return f"a number >= {low:.6g} for this workload ({why})"
    return (
        f"a number from {low:.6g} to {high:.6g} for this workload ({why}, and the "
        f"smallest nonzero one, {smallest:g} s, above {tiny:.3g} s)"
    )


def clean_by_status(workload: Workload, drop: Iterable[int] = (0, 5)) -> Workload:
    """Drop jobs whose SWF status (field 11) is in `drop` (PPS paper: 0 failed, 5 cancelled).

    The count of each dropped status k is added to `skipped['status_<k>']`, so a report
    shows what cleaning removed.
    """
    if isinstance(drop, str | bytes) or not isinstance(drop, Iterable):
        raise ConfigError("drop", drop, "a collection of SWF status codes (integers)")
    codes = list(drop)
    if not all(is_int(code) and abs(int(code)) < 2**53 for code in codes):
        raise ConfigError(
            "drop", drop, "a collection of SWF status codes (integers, e.g. 0 failed, 5 cancelled)"
        )
    status = workload.fields[:, F["status"]]
    skipped = dict(workload.skipped)
    remove = np.zeros(len(workload), dtype=bool)
    for code in dict.fromkeys(int(c) for c in codes):
        hit = status == code
        key = f"status_{code}"
        skipped[key] = skipped.get(key, 0) + int(hit.sum())
        remove |= hit
    return workload.take(~remove, skipped=skipped)


def first_jobs(workload: Workload, n: int) -> Workload:
    """The first `n` jobs in submit order (all of them if there are fewer).

    Jobs cut off are a selection, not skipped jobs: `skipped` is left as it is.
    """
    return workload.take(slice(0, check_int("n", n)))


def job_range(workload: Workload, start: int, end: int) -> Workload:
    """Jobs at positions [`start`, `end`) in submit order (0-based): one batch of a trace.

    The PPS paper's batch means run consecutive batches of 5000 jobs as separate workloads;
    batch k is ``job_range(w, 5000 * k, 5000 * (k + 1))``. Times are unchanged.
    """
    first = check_int("start", start, allowed="an integer >= 0 (a job position)")
    last = check_int("end", end, low=first + 1, allowed=f"an integer > start ({start!r})")
    return workload.take(slice(first, last))


def time_window(workload: Workload, start: float, end: float) -> Workload:
    """Jobs submitted in [`start`, `end`) seconds (SWF time origin); times are unchanged.

    Selection, like `first_jobs`: jobs outside the window are not counted as skipped.
    """
    low = check_number("start", start, inf=True, allowed="a number of seconds")
    high = check_number(
        "end",
        end,
        low=low,
        open_low=True,
        inf=True,
        allowed=f"a number of seconds > start ({start!r})",
    )
    submit = workload.fields[:, F["submit_time"]]
    inside = (submit >= low) & (submit < high)
    return workload.take(inside)


def raise_requested_to_run(workload: Workload) -> Workload:
    """Set field 9 to the run time wherever the user estimate is below it.

    For runs without kill-on-overrun the estimate must still bound the run time (backfilling
    relies on it); jobs whose field 9 is unknown (<= 0) already use their run time and keep -1.
    """
    fields = workload.fields.copy()
    requested = fields[:, F["requested_time"]]
    run = fields[:, F["run_time"]]
    short = (requested > 0) & (requested < run)
    requested[short] = run[short]
    return workload.with_fields(fields)


def requested_from_run(workload: Workload) -> Workload:
    """Set field 9 (requested time) to the run time for every job: exact user estimates.

    The plans of a reservation policy (CBF, DBF) are then the true run times, so no job ends
    before its reservation. This is how N'Takpé and Suter (ComPAS 2016) read their traces (they
    plan with "wl_i (walltime)", the execution time, and assume the users' predictions are
    precise). Nothing else changes; a job with run time 0 gets requested time 0 (unknown, which
    falls back to the run time anyway).
    """
    fields = workload.fields.copy()
    fields[:, F["requested_time"]] = fields[:, F["run_time"]]
    return workload.with_fields(fields)


def requested_uniform(workload: Workload) -> Workload:
    """Set field 9 (requested time) of every job to the workload's longest run time.

    Useless estimates: every job asks for the same time, at least its run time, so a
    backfilling policy cannot tell short jobs from long ones and never kills a job at its
    estimate. An empty workload, or one whose run times are all unknown, is returned as is.
    """
    fields = workload.fields.copy()
    run = fields[:, F["run_time"]]
    if len(run) == 0 or not (run > 0).any():
        return workload
    fields[:, F["requested_time"]] = max(float(run.max()), 1.0)
    return workload.with_fields(fields)


def make_moldable(workload: Workload, pi: float, fraction: float = 1.0, seed: int = 0) -> Workload:
    """Mark jobs moldable under Amdahl's law with parallel fraction ``pi`` (in [0, 1]).

    Each job is marked with probability ``fraction`` (seeded; 1: every job). A marked job
    keeps its run and requested times at its requested size, so a rigid policy still runs it
    as the trace did; a moldable-aware policy may start it on another processor count, and the
    engine then times it by Amdahl's law (the `parallel_fraction` attribute, docs/model.md).
    """
    share = check_fraction("pi", pi, "a parallel fraction in [0, 1]")
    chance = check_fraction("fraction", fraction, "a share of the jobs in [0, 1]")
    n = len(workload)
    marked = np.random.default_rng(check_seed("seed", seed)).random(n) < chance
    values = np.where(marked, share, np.nan)
    current = workload.attributes.get("parallel_fraction")
    if current is not None:  # a job already moldable keeps its own fraction
        values = np.where(np.isnan(current), values, current)
    return workload.with_attribute("parallel_fraction", values)


def _add_estimates(workload: Workload, **params: Any) -> Workload:
    """The Tsafrir-Etsion-Feitelson estimate model (imported only when used)."""
    from schedlab.workload.models.tsafrir import add_estimates

    return add_estimates(workload, **params)


# Transform names stored in a sweep's runs (`RunConfig.transforms`) -> what applies them.
TRANSFORMS: dict[str, Callable[..., Workload]] = {
    "clean_by_status": clean_by_status,
    "time_window": time_window,
    "first_jobs": first_jobs,
    "job_range": job_range,
    "add_estimates": _add_estimates,
    "mark_non_priority": mark_non_priority,
    "deadlines_from_table": deadlines_from_table,
    "make_moldable": make_moldable,
    "requested_from_run": requested_from_run,
    "requested_uniform": requested_uniform,
}
