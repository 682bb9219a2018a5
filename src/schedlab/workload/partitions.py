"""Partitions of a trace: is it one machine, or several (a grid log such as LCG-2005)?

SWF field 16 says in which partition (a part of a machine, or a whole site of a grid) a
job ran; header lines ``; Partition: <id> <name>`` name them. `schedlab run` simulates a
trace as one machine of P processors, which is right for the partitions of one machine
that share its nodes and wrong for a grid log whose partitions are separate clusters: the
jobs of all sites then compete for one pool. So `load_workload` says so once on stderr
(`several_partitions_note`), and ``workload info`` shows each partition (`partition_rows`).

Per partition: its jobs, its share of the work (processors x run time), its **peak**,
the most processors its jobs held at one instant (start = submit + wait, field 3; jobs
whose wait is unknown count from their submit time, as `schedlab grid run` derives a
platform: without waits, as in LLNL-Thunder or LCG-2005, the peak is that of a machine on
which nobody waits, which can be far above the real one), and its **offered load** = its
work / (its peak x the trace's submit span).
The peak is the capacity `schedlab grid run --workload TRACE --mode local` gives the
partition's site, so an offered load above 1 means that even that platform is overloaded:
the partition's jobs ran long past the last submission, or the log misses its machine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.workload.job import Workload

__all__ = [
    "PartitionRow",
    "jobs_text",
    "partition_names",
    "partition_rows",
    "peak_in_use",
    "several_partitions_note",
]

# Partitions named in the note; the rest are counted.
_SHOWN = 5


def peak_in_use(
    start: np.ndarray, end: np.ndarray, procs: np.ndarray, group: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(group ids, peak processors in use) per group: the most processors whose intervals
    [start, end) overlap at one instant (ends before starts at equal times, so a processor
    freed at t is reused at t). Without ``group`` every job is in group 0."""
    n = len(start)
    if group is None:
        group = np.zeros(n, dtype=np.int64)
    if n == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    times = np.concatenate([end, start])
    delta = np.concatenate([-procs, procs]).astype(np.int64)
    kind = np.concatenate([np.zeros(n, np.int64), np.ones(n, np.int64)])  # ends first
    groups = np.concatenate([group, group])
    order = np.lexsort((kind, times, groups))
    level = np.cumsum(delta[order])  # each group's deltas add up to 0: restarts at 0
    ids, first = np.unique(groups[order], return_index=True)
    return ids, np.maximum.reduceat(level, first)


def partition_names(workload: Workload) -> dict[int, str]:
    """Partition id -> name from ``; Partition: <id> <name>`` header lines (first wins)."""
    out: dict[int, str] = {}
    for line in workload.header:
        key, sep, value = line.partition(":")
        if not sep or key.strip().lower() != "partition":
            continue
        parts = value.split(None, 1)
        if len(parts) == 2 and parts[0].lstrip("-").isdigit():
            out.setdefault(int(parts[0]), parts[1].strip())
    return out


@dataclass(frozen=True)
class PartitionRow:
    """One partition of a trace (module docstring); ``partition`` -1 gathers the jobs
    without one."""

    partition: int
    name: str
    jobs: int
    work_share: float
    peak_procs: int
    offered_load: float
    waits_known: bool  # every job's wait is known (else the peak counts from submit times)

    def to_json(self) -> dict[str, object]:
        return {
            "partition": self.partition,
            "name": self.name,
            "jobs": self.jobs,
            "work_share": self.work_share,
            "peak_procs": self.peak_procs,
            "offered_load": self.offered_load,
            "waits_known": self.waits_known,
        }


def jobs_text(n: int) -> str:
    """``1 job``, ``2 jobs``, ``1,000 jobs``: what a message says of a count of jobs."""
    return f"{n:,} job" if n == 1 else f"{n:,} jobs"


def partition_rows(workload: Workload) -> list[PartitionRow]:
    """Each partition of ``workload`` (field 16), in increasing id order (module docstring).

    The offered load uses the submit span of the whole trace (first to last submit), so
    the partitions' loads are comparable; it is 0 for a trace of fewer than two jobs and
    infinite when every job is submitted at one instant.
    """
    n = len(workload)
    if n == 0:
        return []
    part = workload.column("partition_id")
    part = np.where(part >= 0, np.trunc(part), -1.0).astype(np.int64)
    wait = workload.column("wait_time")
    start = workload.submit_time + np.where(wait >= 0, wait, 0.0)
    run = workload.run_time
    procs = workload.procs
    ids, peaks = peak_in_use(start, start + run, procs, part)
    work = procs.astype(np.float64) * run
    total = float(work.sum())
    span = float(workload.submit_time[-1] - workload.submit_time[0]) if n > 1 else 0.0
    names = partition_names(workload)
    rows = []
    for pid, peak in zip(ids.tolist(), peaks.tolist(), strict=True):
        mine = part == pid
        w = float(work[mine].sum())
        if n < 2:
            load = 0.0
        elif span <= 0 or peak <= 0:
            load = float("inf")
        else:
            load = w / (peak * span)
        rows.append(
            PartitionRow(
                partition=int(pid),
                name=names.get(int(pid), "" if pid >= 0 else "(none)"),
                jobs=int(mine.sum()),
                work_share=w / total if total > 0 else 0.0,
                peak_procs=int(peak),
                offered_load=load,
                waits_known=bool((wait[mine] >= 0).all()),
            )
        )
    return rows


def several_partitions_note(workload: Workload, source: str, *, is_swf: bool) -> str | None:
    """The warning for a trace whose jobs come from several partitions, None for one.

    ``source`` is the WORKLOAD argument as the user gave it; ``is_swf`` says whether it is
    an SWF file, which ``schedlab grid run --workload`` takes as it is (another log has to
    be converted first).
    """
    part = workload.column("partition_id")
    if np.unique(part[part >= 0]).size < 2:  # (cheap: most traces stop here)
        return None
    rows = [r for r in partition_rows(workload) if r.partition >= 0]
    ranked = sorted(rows, key=lambda r: (-r.jobs, r.partition))
    shown = ", ".join(
        f"{r.partition}{' ' + r.name if r.name else ''}: {jobs_text(r.jobs)}"
        for r in ranked[:_SHOWN]
    )
    if len(ranked) > _SHOWN:
        shown += f", and {len(ranked) - _SHOWN} more"
    none = len(workload) - sum(r.jobs for r in rows)
    if none:
        shown += f"; {jobs_text(none)} without a partition"
    how = (
        f"schedlab grid run --workload {source} --mode local"
        if is_swf
        else f"schedlab workload convert {source} OUT.swf, then schedlab grid run --workload "
        "OUT.swf --mode local"
    )
    return (
        f"{source}: {len(rows)} partitions ({shown}) simulated as one machine of "
        f"{workload.max_procs:,} processors; if they are separate clusters or grid sites, "
        f"replay them apart with `{how}` (one site per partition, capacity = its peak of "
        "processors in use); `schedlab workload info` shows the load of each"
    )
