"""Names of summary metrics that the command line needs before any run: kept apart from
`metrics.summary` so that building the CLI (`schedlab --help`) does not import numpy."""

from __future__ import annotations

# What a comparison of policies shows first (`schedlab demo`, the report's tables)
HEADLINE_KEYS: tuple[str, ...] = (
    "mean_wait_time",
    "max_wait_time",
    "mean_response_time",
    "mean_bounded_slowdown",
    "utilization",
    "unfairness",
)

# The metrics of each stream of a grid run (meta-jobs, local jobs; also per site or org)
GRID_STREAM_KEYS: tuple[str, ...] = (
    "jobs",
    "makespan",
    "mean_wait_time",
    "mean_local_wait_time",
    "mean_execution_time",
    "mean_response_time",
)
