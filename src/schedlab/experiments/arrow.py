"""Columns to Parquet bytes without importing pandas.

pyarrow imports pandas (0.3-0.5 s) the first time it converts a numpy array or a Python list,
only to check whether the object is a pandas one. Results of small runs are written in far
less time than that, so the store builds Arrow arrays from raw buffers instead: the bytes
are the same, the import never happens.

A list column holding an integer beyond int64 (a seed may be any Python int) becomes a
column of decimal strings, every value of it, so that no digit is lost and the column keeps
one type.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

_INT64 = np.iinfo(np.int64)


def _validity(present: np.ndarray) -> Any:
    import pyarrow as pa

    if present.all():
        return None
    return pa.py_buffer(np.packbits(present, bitorder="little"))


def numpy_array(values: np.ndarray) -> Any:
    """A numpy column (float, int, bool, str) as an Arrow array, NaN kept as NaN."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    n = len(values)
    if values.dtype == np.bool_:
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), n, [None, data])
    if values.dtype.kind == "f":
        values = values.astype(np.float64, copy=False)
        return pa.Array.from_buffers(pa.float64(), n, [None, pa.py_buffer(values)])
    if values.dtype.kind in "iu":
        values = values.astype(np.int64, copy=False)
        return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(values)])
    if values.dtype.kind in "OU":  # labels, e.g. DBF's job classes
        return python_array([None if v is None else str(v) for v in values.tolist()])
    raise TypeError(f"no Arrow conversion for numpy dtype {values.dtype}")


def python_array(values: Sequence[Any]) -> Any:
    """A list of str, bool, int or float (None allowed) as an Arrow array with nulls."""
    import pyarrow as pa

    n = len(values)
    present = np.array([v is not None for v in values], dtype=bool)
    validity = _validity(present)
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return pa.nulls(n)
    if int in kinds and any(
        type(v) is int and not _INT64.min <= v <= _INT64.max for v in values
    ):  # beyond int64 (and float64 would round it): decimal strings, whole column
        return python_array([None if v is None else str(v) for v in values])
    if kinds <= {str}:
        encoded = [v.encode() if v is not None else b"" for v in values]
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        data = pa.py_buffer(b"".join(encoded))
        return pa.Array.from_buffers(pa.string(), n, [validity, pa.py_buffer(offsets), data])
    if kinds <= {bool}:
        bits = np.array([bool(v) for v in values], dtype=bool)
        return pa.Array.from_buffers(
            pa.bool_(), n, [validity, pa.py_buffer(np.packbits(bits, bitorder="little"))]
        )
    if kinds <= {int}:
        ints = np.array([v if v is not None else 0 for v in values], dtype=np.int64)
        return pa.Array.from_buffers(pa.int64(), n, [validity, pa.py_buffer(ints)])
    if kinds <= {int, float}:
        floats = np.array([v if v is not None else 0.0 for v in values], dtype=np.float64)
        return pa.Array.from_buffers(pa.float64(), n, [validity, pa.py_buffer(floats)])
    raise TypeError(f"no Arrow conversion for a column of {sorted(k.__name__ for k in kinds)}")


def parquet_bytes(columns: Mapping[str, Any], *, compression: str = "zstd") -> bytes:
    """A Parquet file of named columns (numpy arrays or lists), as bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [
        numpy_array(v) if isinstance(v, np.ndarray) else python_array(list(v))
        for v in columns.values()
    ]
    table = pa.Table.from_arrays(arrays, names=list(columns))
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression=compression)
    return buffer.getvalue()
