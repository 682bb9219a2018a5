"""Durations as people read them (``2h 13m``), for tables on a terminal.

Tables round to the two largest units so a column of waits can be compared at a glance;
``--json`` and every file keep raw seconds, so nothing is lost.
"""

from __future__ import annotations

import math

_UNITS = (("d", 86400.0), ("h", 3600.0), ("m", 60.0), ("s", 1.0))


def human_duration(seconds: float) -> str:
    """``8000`` -> ``"2h 13m"``, ``59.5`` -> ``"59.5s"``, ``90061`` -> ``"1d 1h"``.

    Two units at most, the smaller one rounded down; under a minute one decimal is kept
    when the value is not whole (a mean wait of 0.4 s is not 0). NaN shows as ``-``.
    """
    if seconds is None or not math.isfinite(seconds):
        return "-" if seconds is None or math.isnan(seconds) else str(seconds)
    sign = "-" if seconds < 0 else ""
    value = abs(float(seconds))
    if value < 60.0:
        text = f"{value:.0f}s" if value.is_integer() or value >= 10 else f"{value:.1f}s"
        return sign + text
    whole = int(value)
    for i, (name, size) in enumerate(_UNITS[:-1]):
        if whole >= size:
            big, rest = divmod(whole, int(size))
            small_name, small_size = _UNITS[i + 1]
            small = rest // int(small_size)
            return f"{sign}{big}{name} {small}{small_name}" if small else f"{sign}{big}{name}"
    raise AssertionError("unreachable: value >= 60 s has a unit")  # pragma: no cover
