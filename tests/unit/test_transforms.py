"""Workload transforms: load scaling, cleaning by status, selections, estimate repair."""

from __future__ import annotations

import numpy as np
import pytest

from schedlab.errors import ConfigError
from schedlab.workload.job import N_FIELDS, F, Workload
from schedlab.workload.transforms import (
    clean_by_status,
    first_jobs,
    raise_requested_to_run,
    requested_from_run,
    scale_load,
    time_window,
)


def make(
    submit: list[float],
    *,
    run: list[float] | None = None,
    requested: list[float] | None = None,
    status: list[int] | None = None,
) -> Workload:
    """A small workload on an 8-processor machine, jobs numbered 1..n in the given order."""
    n = len(submit)
    fields = np.full((n, N_FIELDS), -1.0)
    fields[:, F["job_id"]] = np.arange(1, n + 1)
    fields[:, F["submit_time"]] = submit
    fields[:, F["run_time"]] = run if run is not None else [10.0] * n
    fields[:, F["allocated_procs"]] = 2
    if requested is not None:
        fields[:, F["requested_time"]] = requested
    fields[:, F["status"]] = status if status is not None else [1] * n
    return Workload.from_fields(
        fields, max_procs=8, header=["Version: 2.2"], source="t.swf", skipped={"x": 1}
    )


def unchanged_context(before: Workload, after: Workload) -> bool:
    return (
        after.max_procs == before.max_procs
        and after.header == before.header
        and after.source == before.source
    )


# -- scale_load --------------------------------------------------------------------------------


def test_scale_load_multiplies_every_submit_time_by_inverse_factor() -> None:
    """SPEC 2: load factor f multiplies all submit times (the first one too) by 1/f."""
    w = make([100.0, 130.0, 400.0])
    scaled = scale_load(w, 2.0)
    assert scaled.submit_time.tolist() == [50.0, 65.0, 200.0]
    np.testing.assert_array_equal(scaled.submit_time, w.submit_time * (1.0 / 2.0))
    assert unchanged_context(w, scaled)
    assert scaled.skipped == w.skipped


def test_scale_load_changes_nothing_but_submit_times() -> None:
    """Run times, estimates and other fields stay; the input workload is not modified."""
    w = make([0.0, 10.0, 30.0], requested=[60.0, -1.0, 5.0])
    before = w.fields.copy()
    scaled = scale_load(w, 0.8)
    others = [i for i in range(N_FIELDS) if i != F["submit_time"]]
    np.testing.assert_array_equal(scaled.fields[:, others], before[:, others])
    np.testing.assert_array_equal(w.fields, before)
    np.testing.assert_allclose(scaled.submit_time, [0.0, 12.5, 37.5])


@pytest.mark.parametrize("bad", [0, -1.5, float("nan"), float("inf"), "2", True, None])
def test_scale_load_rejects_non_positive_factor(bad: object) -> None:
    """A load factor must be a finite number > 0; the error names 'load_factor'."""
    with pytest.raises(ConfigError, match="load_factor"):
        scale_load(make([0.0]), bad)  # type: ignore[arg-type]


# -- clean_by_status ---------------------------------------------------------------------------


def test_clean_by_status_drops_failed_and_cancelled_by_default() -> None:
    """Default cleaning drops status 0 and 5 and counts each under skipped['status_<k>']."""
    w = make([0, 1, 2, 3, 4, 5], status=[1, 0, 5, 5, 1, 2])
    clean = clean_by_status(w)
    assert clean.job_id.tolist() == [1, 5, 6]
    assert clean.skipped["status_0"] == 1
    assert clean.skipped["status_5"] == 2
    assert clean.skipped["x"] == 1
    assert unchanged_context(w, clean)
    assert len(w) == 6


def test_clean_by_status_with_custom_codes_counts_zero_hits_too() -> None:
    """Only the listed codes go; a listed code with no job is reported as 0."""
    w = make([0, 1, 2], status=[1, 2, -1])
    clean = clean_by_status(w, drop=[2, 3])
    assert clean.job_id.tolist() == [1, 3]
    assert clean.skipped["status_2"] == 1
    assert clean.skipped["status_3"] == 0


def test_clean_by_status_accumulates_over_repeated_cleaning() -> None:
    """Cleaning twice adds to existing status counts instead of overwriting them."""
    w = make([0, 1, 2], status=[0, 5, 1])
    twice = clean_by_status(clean_by_status(w, drop=[0]), drop=[0, 5])
    assert twice.skipped["status_0"] == 1
    assert twice.skipped["status_5"] == 1
    assert twice.job_id.tolist() == [3]


@pytest.mark.parametrize("bad", [5, "05", [1.5], [True], None])
def test_clean_by_status_rejects_non_integer_codes(bad: object) -> None:
    """`drop` must be a collection of integers; the error names 'drop'."""
    with pytest.raises(ConfigError, match="drop"):
        clean_by_status(make([0.0]), drop=bad)  # type: ignore[arg-type]


# -- first_jobs and time_window ----------------------------------------------------------------


def test_first_jobs_takes_the_first_n_in_submit_order() -> None:
    """first_jobs keeps the n earliest submissions, not the first n lines of the trace."""
    w = make([30.0, 10.0, 20.0, 40.0])
    head = first_jobs(w, 2)
    assert head.job_id.tolist() == [2, 3]
    assert unchanged_context(w, head)
    assert head.skipped == w.skipped
    assert not np.shares_memory(head.fields, w.fields)


def test_first_jobs_bounds() -> None:
    """n = 0 gives no job; n beyond the length gives every job."""
    w = make([0.0, 1.0])
    assert len(first_jobs(w, 0)) == 0
    assert len(first_jobs(w, 10)) == 2


@pytest.mark.parametrize("bad", [-1, 2.0, True, "3"])
def test_first_jobs_rejects_bad_counts(bad: object) -> None:
    """n must be an integer >= 0; the error names 'n'."""
    with pytest.raises(ConfigError) as info:
        first_jobs(make([0.0]), bad)  # type: ignore[arg-type]
    assert info.value.option == "n"


def test_time_window_is_half_open() -> None:
    """time_window keeps start <= submit < end and leaves submit times as they were."""
    w = make([0.0, 10.0, 20.0, 30.0, 40.0])
    window = time_window(w, 10.0, 30.0)
    assert window.submit_time.tolist() == [10.0, 20.0]
    assert unchanged_context(w, window)
    assert len(time_window(w, 0, float("inf"))) == 5


@pytest.mark.parametrize(
    ("start", "end", "option"),
    [(10.0, 10.0, "end"), (10.0, 5.0, "end"), (float("nan"), 5.0, "start"), (0.0, "9", "end")],
)
def test_time_window_rejects_empty_or_bad_bounds(start: object, end: object, option: str) -> None:
    """Bounds must be numbers with end > start; the error names the bad bound."""
    with pytest.raises(ConfigError) as info:
        time_window(make([0.0]), start, end)  # type: ignore[arg-type]
    assert info.value.option == option


# -- raise_requested_to_run --------------------------------------------------------------------


def test_requested_from_run_sets_every_estimate_to_the_run_time() -> None:
    """Field 9 becomes the run time for every job, above, below or unknown alike."""
    w = make([0, 1, 2, 3], run=[100, 100, 100, 30], requested=[50, 200, -1, 30])
    exact = requested_from_run(w)
    assert exact.column("requested_time").tolist() == [100, 100, 100, 30]
    assert w.column("requested_time").tolist() == [50, 200, -1, 30]
    assert unchanged_context(w, exact)


def test_raise_requested_to_run_lifts_only_estimates_below_run_time() -> None:
    """Field 9 becomes the run time where 0 < estimate < run; others are left as they are."""
    w = make([0, 1, 2, 3], run=[100, 100, 100, 100], requested=[50, 200, -1, 100])
    fixed = raise_requested_to_run(w)
    assert fixed.column("requested_time").tolist() == [100, 200, -1, 100]
    assert np.all(fixed.requested_time >= fixed.run_time)
    assert w.column("requested_time").tolist() == [50, 200, -1, 100]
    assert unchanged_context(w, fixed)
