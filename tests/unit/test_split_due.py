"""`split_due`: conservative backfilling's one pass over the waiting jobs (C and Python)."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np
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


@pytest.mark.parametrize("container", ["array", "numpy", "tuple"])
def test_c_reads_any_sequence_of_floats_alike(container: str) -> None:
    """The policies keep their starts in an array('d'), which the C pass reads through its
    buffer: the same answers as from a list, and a bad index raises what Python raises."""
    if c_split_due is None:
        pytest.skip("the C extension is not compiled here")
    starts = [3.0, 0.5, float("nan"), 2.0, 9.0]
    seq: Any = {
        "array": array("d", starts),
        "numpy": np.array(starts),
        "tuple": tuple(starts),
    }[container]
    for now in (0.0, 2.0, 5.0):
        a, b = [4, 0, 3, 1, -1], [4, 0, 3, 1, -1]  # -1: the last one, as Python indexes
        assert c_split_due(a, seq, now) == pyprofile.split_due(b, starts, now)
        assert a == b
    for bad in ([5], [-6]):
        with pytest.raises(IndexError):
            c_split_due(bad, seq, 1.0)
