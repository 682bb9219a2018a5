"""Turning a transformed workload into an SWF file a user can trust (``workload convert``).

`write_swf` writes exactly the values it is given, so a trace read and written back is the
same trace. After transforms that is not what a user wants: load scaling gives fractional
submit times (``273293.3333333334``) where SWF has integers, and the header still describes
the original file (``MaxJobs: 28490`` for 5,000 jobs). `for_swf` rounds the fields and
updates the header (job counts, and the ``EndTime`` date from the jobs kept), and records
what was done in a ``; schedlab:`` line.

Rounding (integral values are unchanged): submit times (field 2) are rounded down, as the
archive's generated traces truncate them; durations (fields 3 wait, 4 run, 6 average CPU
time, 9 requested time, 18 think time) are rounded up, so a run time never becomes 0 and a
requested time stays at least the run time it bounded; every other field is rounded to the
nearest integer (halves to even). Rounding down keeps submit order; ties keep trace order.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from datetime import datetime, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from schedlab.workload.job import F, Workload

__all__ = ["for_swf"]

_ROUNDED_DOWN = (F["submit_time"],)
_ROUNDED_UP = tuple(
    F[name] for name in ("wait_time", "run_time", "avg_cpu_time", "requested_time", "think_time")
)
_COUNT_KEYS = ("MaxJobs", "MaxRecords")
_END_KEY = "EndTime"  # the archive's date of the log's last job end
SCHEDLAB_KEY = "schedlab"


def integral_fields(fields: np.ndarray) -> tuple[np.ndarray, int]:
    """``fields`` with every value an integer (module docstring); also how many changed."""
    out = np.rint(fields)
    down = list(_ROUNDED_DOWN)
    up = list(_ROUNDED_UP)
    out[:, down] = np.floor(fields[:, down])
    out[:, up] = np.ceil(fields[:, up])
    changed = int(np.count_nonzero(out != fields))
    return out, changed


def for_swf(workload: Workload, *, source: str, applied: Sequence[str]) -> Workload:
    """``workload`` ready to be written as SWF after ``applied`` transforms (module docs).

    ``applied`` describes each transform in words; they go into the ``; schedlab:`` line,
    with the rounding when any value was not an integer.
    """
    fields, changed = integral_fields(workload.fields)
    steps = list(applied)
    if changed:
        steps.append(
            f"{changed:,} fractional values rounded to integers "
            "(submit times down, durations up, others to nearest)"
        )
    header = []
    n = len(workload)
    end = _end_date(workload, fields)
    for text in workload.header:
        key, sep, _ = text.partition(":")
        if sep and key.strip() in _COUNT_KEYS:
            text = f"{key.strip()}: {n}"
        elif sep and key.strip() == _END_KEY:
            if end is None:
                continue  # stale, and no UnixStartTime to date the new end from
            text = f"{_END_KEY}:   {end}"
        header.append(text)
    what = "; ".join(steps) if steps else "copied unchanged"
    header.append(f"{SCHEDLAB_KEY}: converted from {source}: {what}")
    return workload.with_fields(fields, header=header)


def _end_date(workload: Workload, fields: np.ndarray) -> str | None:
    """When the last job of ``fields`` ends, written as the archive writes ``EndTime``
    (``Fri Aug 29 10:55:01 CEST 1997``, in the header's ``TimeZoneString`` zone when known,
    else UTC); None without a ``UnixStartTime`` to count from."""
    values = workload.header_values
    try:
        origin = float(values.get("UnixStartTime", ""))
    except ValueError:
        return None
    if not len(fields) or not math.isfinite(origin):
        return None
    wait = np.maximum(fields[:, F["wait_time"]], 0.0)
    last = float(np.max(fields[:, F["submit_time"]] + wait + fields[:, F["run_time"]]))
    zone: tzinfo = timezone.utc
    name = values.get("TimeZoneString", "").strip()
    if name:
        with contextlib.suppress(ValueError, ZoneInfoNotFoundError):  # (UTC then)
            zone = ZoneInfo(name)
    try:
        moment = datetime.fromtimestamp(origin + last, tz=zone)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%a %b %d %H:%M:%S %Z %Y")
