"""Metrics of SPEC section 3, computed from finished runs (never from a live simulation)."""

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
