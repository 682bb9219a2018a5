"""Parquet without pandas: the buffer-built Arrow arrays equal pyarrow's own conversion."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from schedlab.experiments.arrow import numpy_array, parquet_bytes, python_array


@pytest.mark.parametrize(
    "values",
    [
        np.array([1.5, np.nan, -0.0, 3e300]),
        np.array([1, -2, 3], dtype=np.int64),
        np.array([1, 2], dtype=np.int32),
        np.array([True, False, True, True, False, False, False, False, True]),
        np.array([], dtype=np.float64),
    ],
)
def test_numpy_columns_equal_pyarrows_conversion(values: np.ndarray) -> None:
    """Floats (NaN kept), ints (widened to int64) and bools (bit-packed) convert exactly."""
    expected = pa.array(values)
    if pa.types.is_integer(expected.type):
        expected = expected.cast(pa.int64())
    got = numpy_array(values)
    assert got.type == expected.type
    # bit for bit: NaN and -0.0 included (Array.equals treats NaN as unequal)
    np.testing.assert_array_equal(
        np.asarray(got.to_numpy(zero_copy_only=False)).view(np.uint8),
        np.asarray(expected.to_numpy(zero_copy_only=False)).view(np.uint8),
    )


@pytest.mark.parametrize(
    "values",
    [
        ["a", None, "été", ""],
        [True, None, False],
        [1, None, 3],
        [1.5, None, 2],
        [None, None],
    ],
)
def test_python_columns_equal_pyarrows_conversion(values: list) -> None:
    """Lists of str, bool, int, float with None become the same arrays, nulls included."""
    got = python_array(values)
    expected = pa.array(values) if any(v is not None for v in values) else pa.nulls(len(values))
    if pa.types.is_floating(got.type):
        expected = expected.cast(pa.float64())
    assert got.equals(expected), (got, expected)


def test_parquet_bytes_round_trip() -> None:
    """A table written from mixed columns reads back with the same values."""
    data = parquet_bytes(
        {"x": np.arange(3.0), "k": np.array([True, False, True]), "s": ["a", None, "c"]}
    )
    table = pq.read_table(io.BytesIO(data))
    assert table.column("x").to_pylist() == [0.0, 1.0, 2.0]
    assert table.column("k").to_pylist() == [True, False, True]
    assert table.column("s").to_pylist() == ["a", None, "c"]


def test_mixed_types_are_refused() -> None:
    """A column mixing strings and numbers is an error, not a silent coercion."""
    with pytest.raises(TypeError):
        python_array(["a", 1])
