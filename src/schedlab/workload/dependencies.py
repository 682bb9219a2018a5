"""Dependants: jobs submitted when an earlier job ends (SWF fields 17 and 18, SPEC 2).

The Standard Workload Format can record feedback: field 17 names a *preceding job* (by its
job number, field 1) and field 18 the *think time*, the seconds between that job's end and
this job's submission. A simulation honours them: a dependant is submitted at its parent's
end (in the simulation) plus its think time, so a schedule that delays a parent delays its
dependants, as a user waiting for results would. The trace's own submit time of a
dependant is not used.

Rules where the format is silent:

* A reference counts only if it names a job that appears *earlier* in the workload (submit
  order) and was kept: a reference forward, to itself, to a skipped or cut job, or to an
  unknown number leaves the job a root at its own submit time (`unresolved` counts them).
  This also makes cycles impossible.
* When several earlier jobs carry the number, the latest before the dependant is its parent.
* A think time that is unknown (-1) or negative counts as 0.

None of the 18 traces in the Parallel Workloads Archive copy used here sets field 17 (all
-1 or 0), so they replay exactly as before; workloads generated with dependants (the HLW
model of Lanore and Klein, ComPAS 2013) use them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.workload.job import F, Workload

__all__ = ["Dependencies", "dependencies"]


@dataclass(frozen=True)
class Dependencies:
    """``parent[i]``: position of job i's parent in the workload, -1 for a root;
    ``think[i]``: seconds from the parent's end to job i's submission (>= 0);
    ``unresolved``: jobs whose field 17 was set but named no usable earlier job."""

    parent: np.ndarray
    think: np.ndarray
    unresolved: int

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.parent >= 0))


def dependencies(workload: Workload) -> Dependencies:
    """The dependants of ``workload`` (module docstring); vectorised but for the jobs that
    name a preceding job."""
    n = len(workload)
    parent = np.full(n, -1, dtype=np.int64)
    think = np.zeros(n, dtype=np.float64)
    preceding = workload.fields[:, F["preceding_job_id"]]
    named = np.flatnonzero(preceding > 0)
    if not len(named):
        return Dependencies(parent, think, 0)
    ids = workload.fields[:, F["job_id"]]
    latest: dict[float, int] = {}
    next_named = 0
    unresolved = 0
    for i in range(n):
        while next_named < len(named) and named[next_named] == i:
            p = latest.get(float(preceding[i]))
            if p is None:
                unresolved += 1
            else:
                parent[i] = p
            next_named += 1
        latest[float(ids[i])] = i
    raw_think = workload.fields[:, F["think_time"]]
    think[parent >= 0] = np.maximum(raw_think[parent >= 0], 0.0)
    return Dependencies(parent, think, unresolved)
