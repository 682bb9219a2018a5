"""`split_due`: conservative backfilling's one pass over the waiting jobs (C and Python)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedlab.platform import profile as pyprofile

try:
    from schedlab.platform._cprofile import split_due as c_split_due
except ImportError:  # pragma: no cover - without a compiler only Python is tested
    c_split_due = None

IMPLEMENTATIONS = [pyprofile.split_due] + ([c_split_due] if c_split_due else [])


@pytest.mark.parametrize("split_due", IMPLEMENTATIONS)
def test_by_hand(split_due) -> None:  # type: ignore[no-untyped-def]
    jobs = [0, 1, 2, 3, 4]
    start_at = [5.0, 1.0, 3.0, 2.0, 2.0]
    due, nxt = split_due(jobs, start_at, 2.0)
    assert due == [1, 3, 4] and nxt == 3.0
    assert jobs == [0, 2]  # order kept
    due, nxt = split_due(jobs, start_at, 2.5)
    assert due == [] and nxt == 3.0 and jobs == [0, 2]
    due, nxt = split_due(jobs, start_at, 9.0)
    assert due == [0, 2] and nxt == float("inf") and jobs == []


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    starts=st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, 7.0, float("nan")]), max_size=30),
    now=st.sampled_from([-1.0, 0.0, 2.5, 3.0, 10.0]),
    data=st.data(),
)
def test_c_equals_python(starts: list[float], now: float, data: st.DataObject) -> None:
    if c_split_due is None:
        pytest.skip("the C extension is not compiled here")
    jobs = data.draw(st.permutations(list(range(len(starts)))))
    a, b = list(jobs), list(jobs)
    assert pyprofile.split_due(a, starts, now) == c_split_due(b, starts, now)
    assert a == b
