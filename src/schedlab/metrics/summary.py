"""Per-job table -> the field's aggregate metrics (docs/model.md, "Metrics"), with numpy.

Definitions: wait = start - submit; response = end - submit; run = time actually running
(end - start - suspended time); slowdown = response / run; bounded slowdown =
max(response / max(run, tau), 1) with tau = 10 s; percentiles (median, p90, p99) of wait and
bounded slowdown are numpy's default (linear interpolation between order statistics);
utilization = sum(procs x run) / (P x T) with T from the first submit to the last end
(= makespan); unfairness (Salah et al.'s PPS paper) = standard deviation of |submission rank -
start rank|, the start of a preempted job being end - run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from schedlab.metrics.keys import GRID_STREAM_KEYS
from schedlab.metrics.tdcs import TDCS_KEYS

if TYPE_CHECKING:
    import pandas as pd

# A per-job table: a DataFrame or a mapping of column name -> numpy array (no pandas needed)
JobTable = Union["pd.DataFrame", Mapping[str, np.ndarray]]

BSLD_THRESHOLD = 10.0  # seconds: tau of the bounded slowdown

SUMMARY_KEYS: tuple[str, ...] = (
    "jobs",
    "skipped",
    "procs",
    "makespan",
    "utilization",
    "mean_wait_time",
    "max_wait_time",
    "mean_response_time",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "median_wait_time",
    "p90_wait_time",
    "p99_wait_time",
    "median_bounded_slowdown",
    "p90_bounded_slowdown",
    "p99_bounded_slowdown",
    "unfairness",
    "killed",
    "wall_time",
)
# (key prefix, quantile) of the percentile keys: a mean hides the tail users feel
PERCENTILES: tuple[tuple[str, float], ...] = (("median", 0.5), ("p90", 0.9), ("p99", 0.99))


_PCT_OF = ("wait_time", "bounded_slowdown")  # the per-job values given as percentiles


def unfairness(submitted_at: np.ndarray, virtual_start_at: np.ndarray) -> float:
    """Std of |S_i - E_i|: ranks in submission and (virtual) start order (PPS paper).

    Ties keep job order: jobs are given in submission order, so S_i = i.
    """
    n = len(submitted_at)
    if n == 0:
        return 0.0
    order = np.lexsort((np.arange(n), virtual_start_at))
    start_rank = np.empty(n, dtype=np.int64)
    start_rank[order] = np.arange(n)
    submit_order = np.lexsort((np.arange(n), submitted_at))
    submit_rank = np.empty(n, dtype=np.int64)
    submit_rank[submit_order] = np.arange(n)
    return float(np.std(np.abs(submit_rank - start_rank)))


def per_job_metrics(jobs: JobTable) -> dict[str, np.ndarray]:
    """Per-job ``response_time``, ``slowdown`` (NaN for a job that never ran) and
    ``bounded_slowdown``, as the means of the summary use them."""
    submit = _col(jobs, "submitted_at", np.float64)
    run = _col(jobs, "run_time", np.float64)
    response = _col(jobs, "finished_at", np.float64) - submit
    with np.errstate(divide="ignore", invalid="ignore"):
        slowdown = np.where(run > 0, response / run, np.nan)
    bsld = np.maximum(response / np.maximum(run, BSLD_THRESHOLD), 1.0)
    return {"response_time": response, "slowdown": slowdown, "bounded_slowdown": bsld}


def warmup_jobs(spec: int | str, jobs: int) -> int:
    """How many first jobs (in submit order) a warm-up ``spec`` cuts from ``jobs``.

    ``spec``: a count ``N`` (or ``"N"``) or a share of the jobs ``"X%"`` (rounded down).
    Cutting every job is an error: nothing would be left to measure.
    """
    from schedlab.errors import ConfigError

    text = str(spec).strip()
    allowed = "a number of jobs N >= 0 or a share X% (0 <= X < 100)"
    try:
        if text.endswith("%"):
            share = float(text[:-1])
            if not 0.0 <= share < 100.0:
                raise ValueError
            cut = int(jobs * share / 100.0)
        else:
            cut = int(text)
            if cut < 0 or str(cut) != text.lstrip("+"):
                raise ValueError
    except ValueError:
        raise ConfigError("warm-up", spec, allowed) from None
    if jobs and cut >= jobs:
        raise ConfigError("warm-up", spec, f"fewer than the {jobs:,} jobs of the run")
    return cut


def _col(jobs: JobTable, name: str, dtype: Any = None) -> np.ndarray:
    return np.asarray(jobs[name], dtype=dtype)


def _aggregate(jobs: JobTable, procs: int) -> dict[str, Any]:
    n = len(_col(jobs, "submitted_at"))
    if n == 0:
        return {
            "jobs": 0,
            "makespan": 0.0,
            "utilization": 0.0,
            "mean_wait_time": 0.0,
            "max_wait_time": 0.0,
            "mean_response_time": 0.0,
            "mean_slowdown": 0.0,
            "mean_bounded_slowdown": 0.0,
            **{f"{name}_{what}": 0.0 for what in _PCT_OF for name, _ in PERCENTILES},
            "unfairness": 0.0,
            "killed": 0,
        }
    submit = _col(jobs, "submitted_at")
    end = _col(jobs, "finished_at")
    run = _col(jobs, "run_time")
    wait = _col(jobs, "wait_time")
    makespan = float(end.max() - submit.min())
    work = float(np.dot(_col(jobs, "procs", np.float64), run))
    utilization = work / (procs * makespan) if makespan > 0 else 0.0
    derived = per_job_metrics(jobs)
    response = derived["response_time"]
    slowdown = derived["slowdown"]
    bsld = derived["bounded_slowdown"]
    quantiles = [q for _, q in PERCENTILES]
    pct = {
        what: np.quantile(values, quantiles)
        for what, values in (("wait_time", wait), ("bounded_slowdown", bsld))
    }
    return {
        "jobs": int(n),
        "makespan": makespan,
        "utilization": utilization,
        "mean_wait_time": float(wait.mean()),
        "max_wait_time": float(wait.max()),
        "mean_response_time": float(response.mean()),
        "mean_slowdown": float(np.nanmean(slowdown)) if np.isfinite(slowdown).any() else 0.0,
        "mean_bounded_slowdown": float(bsld.mean()),
        **{
            f"{name}_{what}": float(pct[what][i])
            for what in _PCT_OF
            for i, (name, _) in enumerate(PERCENTILES)
        },
        "unfairness": unfairness(submit, end - run),
        "killed": int(np.count_nonzero(_col(jobs, "killed"))),
    }


# Extra summary keys when some jobs have deadlines (DBF, N'Takpé and Suter (ComPAS 2016)), in
# this order
DEADLINE_KEYS: tuple[str, ...] = (
    "non_priority_jobs",
    "promoted",
    "missed_deadlines",
    "late_jobs",
)


def deadline_counts(jobs: JobTable) -> dict[str, int]:
    """Counts for runs whose workload marks non-priority jobs (a ``deadline`` column).

    ``non_priority_jobs``: jobs submitted with a deadline; ``late_jobs``: those that ended
    after it. With DBF's ``dbf_class`` column also ``promoted`` (made priority at submission
    because their deadline could not be met) and ``missed_deadlines`` (accepted ones that
    ended late: DBF guarantees 0). Empty when no job has a deadline.
    """
    if "deadline" not in jobs:
        return {}
    deadline = _col(jobs, "deadline", np.float64)
    marked = ~np.isnan(deadline)
    if not marked.any():
        return {}
    late = marked & (_col(jobs, "finished_at", np.float64) > deadline)
    out = {"non_priority_jobs": int(marked.sum())}
    if "dbf_class" in jobs:
        classes = np.asarray(jobs["dbf_class"])
        accepted = np.isin(classes, ["non_priority", "migrated"])
        out["promoted"] = int(np.count_nonzero(classes == "promoted"))
        out["missed_deadlines"] = int(np.count_nonzero(late & accepted))
    out["late_jobs"] = int(late.sum())
    return out


# Extra summary keys for moldable jobs (Lanore and Klein (ComPAS 2013)), when the table has a
# ``least_area`` column
MOLDABLE_KEYS: tuple[str, ...] = ("normalized_cmax", "filling")


def moldable_metrics(jobs: JobTable, procs: int) -> dict[str, float]:
    """Lanore and Klein's metrics, for runs with moldable jobs (a ``least_area`` column).

    ``normalized_cmax`` = Cmax / (sum of the jobs' least areas / N), Cmax = makespan. The
    denominator is a lower bound of any schedule's Cmax: N processors cannot do more than N
    units of area per second, and a job's area q x t(q) is smallest on one processor for
    the models in use (Amdahl: q (1 - pi) + pi >= 1 times the sequential time; power laws
    with alpha <= 1 too), where it is its sequential time; a rigid job's area is its size
    times its time. ``least_area`` holds that per job (processor-seconds at power 1). So the
    ratio is >= 1 for every schedule; it is the paper's bound (its "perfectly parallel,
    nothing idle" schedule). ``filling`` = sum(run x allocated processors) / (Cmax x N), the
    utilization with the processors actually allocated.
    """
    if "least_area" not in jobs or len(_col(jobs, "least_area")) == 0:
        return {}
    alloc = _col(jobs, "procs", np.float64)
    run = _col(jobs, "run_time", np.float64)
    makespan = float(_col(jobs, "finished_at").max() - _col(jobs, "submitted_at").min())
    bound = float(_col(jobs, "least_area", np.float64).sum()) / procs
    return {
        "normalized_cmax": makespan / bound if bound > 0 else float("nan"),
        "filling": float(np.dot(run, alloc)) / (makespan * procs) if makespan > 0 else 0.0,
    }


# Extra summary keys of grid runs (Caron et al. (LIP RR-2005-13),
# `grid.run.GridResult.summary`): the metrics of the meta-jobs (global_) and of the local jobs
# (local_), then the meta-scheduler's counters
GRID_KEYS: tuple[str, ...] = (
    "mean_local_wait_time",
    "mean_execution_time",
    *(f"{prefix}_{name}" for prefix in ("global", "local") for name in GRID_STREAM_KEYS),
    "matcher_requests",
    "matcher_requests_agent",
    "matcher_requests_first_pull",
    "matcher_requests_refill",
    "pilots",
    "wasted_pilots",
)


def all_summary_keys() -> tuple[str, ...]:
    """Every key a summary may hold: the standard ones, then those of deadlines, of
    moldable jobs, of grid runs and of runs with absolute priorities (present only for runs
    that have them)."""
    return SUMMARY_KEYS + DEADLINE_KEYS + MOLDABLE_KEYS + GRID_KEYS + TDCS_KEYS


def summarize(
    jobs: JobTable, *, procs: int, skipped: int = 0, wall_time: float = 0.0
) -> dict[str, Any]:
    """The summary of DESIGN.md section 4, keys in ``SUMMARY_KEYS`` order, then
    `deadline_counts` when some jobs have deadlines."""
    agg = _aggregate(jobs, procs)
    agg.update(skipped=int(skipped), procs=int(procs), wall_time=float(wall_time))
    summary = {key: agg[key] for key in SUMMARY_KEYS}
    summary.update(deadline_counts(jobs))
    summary.update(moldable_metrics(jobs, procs))
    return summary


def per_class(jobs: pd.DataFrame, by: str, *, procs: int) -> pd.DataFrame:
    """Aggregates for each value of column ``by`` (user, queue, priority, ...).

    Utilization is each class's share of the machine over the whole run's makespan, so the
    per-class values add up to the total; unfairness is computed within the class.
    """
    if by not in jobs.columns:
        from schedlab.errors import ConfigError

        raise ConfigError("per-class column", by, list(jobs.columns))
    total_makespan = (
        float(jobs["finished_at"].max() - jobs["submitted_at"].min()) if len(jobs) else 0.0
    )
    import pandas as pd

    rows = []
    for value, group in jobs.groupby(by, sort=True):
        agg = _aggregate(group, procs)
        if total_makespan > 0:
            held = group["cores_held"] if "cores_held" in group else group["procs"]  # node types
            work = float(np.dot(held.to_numpy(dtype=np.float64), group["run_time"]))
            agg["utilization"] = work / (procs * total_makespan)
        rows.append({by: value, **agg})
    return pd.DataFrame(rows)
