"""Metrics of SPEC section 3, computed from finished runs (never from a live simulation).

The names below are loaded on first use (PEP 562), so that importing one light module of
the package (`metrics.keys`, for the command line's tables) does not import numpy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedlab.metrics.summary import (
        BSLD_THRESHOLD,
        SUMMARY_KEYS,
        per_class,
        summarize,
        unfairness,
    )
    from schedlab.metrics.timeseries import TimeSeriesObserver

__all__ = [
    "BSLD_THRESHOLD",
    "SUMMARY_KEYS",
    "TimeSeriesObserver",
    "per_class",
    "summarize",
    "unfairness",
]
_MODULE_OF = {name: "summary" for name in __all__} | {"TimeSeriesObserver": "timeseries"}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"schedlab.metrics.{module}"), name)
