"""Non-priority jobs and their deadlines (N'Takpé and Suter, ComPAS 2016; SPEC section 4).

A non-priority job accepts to end late, but no later than its deadline. These transforms
set the ``deadline_time`` attribute of a workload (seconds from submission, NaN for priority
jobs): by a rule, for a chosen subset of the jobs, or from a table of absolute deadlines.

The rules of the paper's experiment, deadline = submit + slack:

* ``"a"``: slack = max(24 h, 2 x run time)
* ``"b"``: slack = max(72 h, 2 x run time)  (SPEC 4; the issue's shorthand says "72 h")
* a number: slack = that many seconds for every marked job.

"run time" is the job's actual run time (SWF field 4), as the paper states it ("2 fois son
temps d'execution"). A job whose requested time exceeds its slack can never be planned
inside its deadline: DBF then treats it as priority from its submission, as the paper does
when a deadline cannot be met.

SWF has no field for a deadline: `write_swf` writes the jobs without them. Keep deadlines
that must travel with a trace in a table (job_id, deadline) for `deadlines_from_table`.

Which jobs: ``every=k`` marks the k-th, 2k-th, ... job in submit order (the paper: "one job
in three", ``every=3``); ``fraction=x`` marks each job independently with probability x,
drawn from ``seed``.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np

from schedlab.errors import ConfigError, WorkloadError
from schedlab.inputs import read_input
from schedlab.validators import check_fraction, check_int, check_seconds
from schedlab.workload.job import MAX_TIME, Workload

__all__ = ["DEADLINE_RULES", "mark_non_priority", "deadlines_from_table", "deadline_slack"]

HOUR = 3600.0
# rule name -> minimum slack (s); the slack is max(minimum, 2 x run time)
DEADLINE_RULES: dict[str, float] = {"a": 24 * HOUR, "b": 72 * HOUR}


def deadline_slack(run_time: np.ndarray, rule: str | float) -> np.ndarray:
    """Seconds from submission to the deadline for jobs of these run times, by ``rule``.

    A number of seconds is in (0, `MAX_TIME`] (1e15 s: later instants lose their seconds).
    """
    allowed = [*DEADLINE_RULES, f"a number of seconds in (0, {MAX_TIME:g}]"]
    if isinstance(rule, str):
        if rule not in DEADLINE_RULES:
            raise ConfigError("deadline", rule, allowed)
        return np.maximum(DEADLINE_RULES[rule], 2.0 * np.asarray(run_time, dtype=np.float64))
    seconds = check_seconds("deadline", rule, positive=True, high=MAX_TIME, allowed=allowed)
    return np.full(len(run_time), seconds)


def mark_non_priority(
    workload: Workload,
    *,
    every: int | None = None,
    fraction: float | None = None,
    seed: int | np.random.Generator | None = None,
    deadline: str | float = "a",
) -> Workload:
    """Mark some jobs non-priority and give them a deadline by ``deadline`` (rule a, b, or s).

    Exactly one of ``every`` (the k-th, 2k-th, ... job in submit order) and ``fraction``
    (each job with that probability, from ``seed``) chooses the jobs. Jobs not chosen stay
    priority (NaN). Jobs that already had a deadline keep it unless chosen again.
    """
    n = len(workload)
    if (every is None) == (fraction is None):
        raise ConfigError(
            "non_priority",
            "both every and fraction" if every is not None else "neither every nor fraction",
            "exactly one of every=k or fraction=x",
        )
    if every is not None:
        k = check_int("every", every, low=1, allowed="an integer >= 1 (one job in every k)")
        # (k beyond the job count marks no job; numpy could not hold a k beyond int64)
        chosen = (np.arange(n) % k) == k - 1 if k <= n else np.zeros(n, dtype=bool)
    else:
        share = check_fraction("fraction", fraction)
        seed_allowed = "an integer seed >= 0 (fraction= draws the jobs at random)"
        if seed is None or isinstance(seed, bool | float | str | bytes):
            raise ConfigError("seed", seed, seed_allowed)
        try:
            rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        except (TypeError, ValueError):
            raise ConfigError("seed", seed, seed_allowed) from None
        chosen = rng.random(n) < share
    slack = deadline_slack(workload.run_time, deadline)
    current = workload.attributes.get("deadline_time")
    values = np.full(n, np.nan) if current is None else current.copy()
    values[chosen] = slack[chosen]
    return workload.with_attribute("deadline_time", values)


def deadlines_from_table(
    workload: Workload, path: str | Path, *, column: str = "deadline"
) -> Workload:
    """Deadlines read from a CSV or Parquet table with columns ``job_id`` and ``column``.

    ``column`` holds absolute deadlines in the trace's time origin (seconds, as SWF submit
    times); empty or NaN means priority. Jobs absent from the table keep the deadline they
    had (none: priority), so a table can complete a rule-based marking. A deadline
    before the job's submission, an unknown job id or a repeated one is an error naming the
    file, the line and the field.
    """
    import pandas as pd

    p = Path(path)
    try:
        exists = p.is_file()
    except (OSError, ValueError):  # a name the system refuses (too long, NUL character)
        exists = False
    if not exists:
        raise WorkloadError(str(p), "no such deadline table (a .csv or .parquet file)")
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise WorkloadError(str(p), "a deadline table is a .csv or .parquet file")
    data = io.BytesIO(read_input(p, kind="a deadline table"))
    try:
        if suffix == ".csv":
            table = pd.read_csv(data)
            first_line = 2  # line 1 is the header
        else:
            table = pd.read_parquet(data)
            first_line = 1
    except (OSError, ValueError) as exc:  # (pandas' and pyarrow's parse errors are ValueErrors)
        raise WorkloadError(str(p), f"cannot read the table: {exc}") from None
    for name in ("job_id", column):
        if name not in table.columns:
            raise WorkloadError(str(p), f"missing column {name!r} (has {list(table.columns)})")
    ids = workload.job_id
    position = {int(j): i for i, j in enumerate(ids)}
    current = workload.attributes.get("deadline_time")
    values = np.full(len(workload), np.nan) if current is None else current.copy()
    seen: set[int] = set()
    submit = workload.submit_time
    for row, (job, due) in enumerate(zip(table["job_id"], table[column])):
        line = row + first_line
        try:
            job_float = float(job)
        except (TypeError, ValueError, OverflowError):
            job_float = math.nan
        if not (math.isfinite(job_float) and job_float == math.trunc(job_float)):
            raise WorkloadError(
                str(p), "not a job id (an integer)", line=line, field="job_id", value=str(job)
            )
        job_id = int(job_float)
        if job_id in seen:
            raise WorkloadError(
                str(p), "job listed twice", line=line, field="job_id", value=str(job_id)
            )
        seen.add(job_id)
        if job_id not in position:
            raise WorkloadError(
                str(p),
                f"no such job in {workload.source}",
                line=line,
                field="job_id",
                value=str(job_id),
            )
        try:
            due_at = float(due)
        except (TypeError, ValueError, OverflowError):
            raise WorkloadError(
                str(p), "not a number of seconds", line=line, field=column, value=str(due)
            ) from None
        i = position[job_id]
        if math.isnan(due_at):
            values[i] = np.nan
            continue
        if abs(due_at) > MAX_TIME:
            raise WorkloadError(
                str(p),
                f"expected a time from {-MAX_TIME:g} to {MAX_TIME:g} seconds",
                line=line,
                field=column,
                value=str(due),
            )
        if not due_at >= submit[i]:
            raise WorkloadError(
                str(p),
                f"deadline before the job's submission ({submit[i]:g})",
                line=line,
                field=column,
                value=str(due),
            )
        values[i] = due_at - submit[i]
    return workload.with_attribute("deadline_time", values)
