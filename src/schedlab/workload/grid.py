"""Grid workloads: meta-jobs for the meta-scheduler and local jobs for one pool (SPEC 5).

Caron et al. (LIP RR-2005-13, section 4.2) have two levels of load: *meta-jobs*, submitted to
the grid and placed by the meta-scheduler, and *local jobs*, submitted by a site's own users
straight to its batch system. A `GridWorkload` holds both as numpy columns sorted by submit
time:

==========  ============================================================================
column      meaning
==========  ============================================================================
submit_at   submit time, s (the meta-scheduler's or the site's)
work        size in work units (NCU: seconds at power 1); runs work / power seconds
procs       processors asked (1: a sequential job, as in Caron et al. and LCG-2005)
org         the organisation submitting the job: an index into ``organisations``
stream      -1: the global stream (meta-jobs, to actor 0); p >= 0: a local job of pool p
job_id      SWF field 1 for a replayed trace; 1..n in submit order for a generated one
==========  ============================================================================

A run (`scenario.platform_jobs`) turns it into the kernel's jobs: global jobs go to actor 0
(the meta-scheduler's entry point), local ones straight to their pool; the requested work
is the work (nothing is killed for overrunning its estimate; a pool still kills at t_max);
``attributes["org"]`` carries the organisation (DIRAC's job classes group by it) and the
per-job ``user`` column is the organisation too.

**Trace replay** (`GridWorkload.from_swf`). A grid log such as LCG-2005 (170 partitions =
sites, sequential jobs, no capacities) becomes a grid workload:

* ``work`` = run time (field 4) x 1: the trace's nodes are taken as reference nodes of
  power 1, so on the derived platform a job runs exactly its recorded run time;
* ``org`` = the SWF group (field 13) when the trace has groups, else the user (field 12);
  a job without one (-1) belongs to "unknown";
* ``mode="local"`` keeps each job at its partition (field 16): the trace's distinct
  partition ids, **in increasing order, map to the platform's sites in file order** (the
  i-th smallest id to the i-th site), each to the site's first queue; ``mode="global"``
  sends every job to the meta-scheduler (actor 0), which decides.
* Without a platform, local mode uses `derive_platform` (whose sites follow the same order).

`derive_platform` builds the platform a log implies (SPEC 5): one site per partition
present in the trace (at most `MAX_DERIVED_SITES`, 10,000), named after its header line
(``; Partition: 3 grid.kiae.ru``, else ``partition 3``), one FCFS queue ``default`` whose
capacity is the partition's **observed peak concurrency**, all nodes of power 1, no t_max,
no service times, no network. A job occupies its processors from its start (submit + wait,
field 3; the submit time when the wait is unknown, as in LCG-2005, whose waits are all -1)
to start + run time; at equal times ends come before starts (a processor freed at t is
reused at t).

**The end of time.** On a platform every job must be submitted, and run on the platform's
slowest node (or be killed at its t_max), before `MAX_SPAN` = 1e14 s, a tenth of the end of
time (`workload.job.MAX_TIME`, 1e15 s), leaving the rest to queues and service times:
`check_times`, part of `check_platform`, refuses any other stream before it runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedlab.errors import ConfigError, WorkloadError
from schedlab.platform.description import NO_NETWORK, Platform, Queue, Site
from schedlab.workload.job import MAX_TIME, Workload
from schedlab.workload.partitions import partition_names, peak_in_use

__all__ = [
    "MAX_SPAN",
    "MODES",
    "GridWorkload",
    "check_mode",
    "derive_platform",
    "peak_concurrency",
]

MODES = ("global", "local")
UNKNOWN_ORG = "unknown"
MAX_SPAN = MAX_TIME / 10  # a job's submit time plus its longest run on a platform (s)
MAX_DERIVED_SITES = 10_000  # partitions of a trace that derive_platform makes sites of


@dataclass(eq=False)
class GridWorkload:
    """Meta-jobs and local jobs as columns sorted by ``submit_at`` (module docstring).

    The constructor sorts the rows by submit time (stable: ties keep the given order) and
    checks them: times finite, work > 0, procs >= 1, org an index into ``organisations``,
    stream >= -1.
    """

    submit_at: np.ndarray
    work: np.ndarray
    procs: np.ndarray
    org: np.ndarray
    stream: np.ndarray
    job_id: np.ndarray
    source: str = "<memory>"
    organisations: tuple[str, ...] = (UNKNOWN_ORG,)

    def __post_init__(self) -> None:
        self.submit_at = np.asarray(self.submit_at, dtype=np.float64).reshape(-1)
        n = len(self.submit_at)
        self.work = np.asarray(self.work, dtype=np.float64).reshape(-1)
        self.procs = np.asarray(self.procs, dtype=np.int64).reshape(-1)
        self.org = np.asarray(self.org, dtype=np.int64).reshape(-1)
        self.stream = np.asarray(self.stream, dtype=np.int64).reshape(-1)
        self.job_id = np.asarray(self.job_id, dtype=np.int64).reshape(-1)
        self.organisations = tuple(str(o) for o in self.organisations)
        for name in ("work", "procs", "org", "stream", "job_id"):
            size = len(getattr(self, name))
            if size != n:
                raise ConfigError(f"grid workload {name}", f"{size} values", f"{n}, one per job")
        where = f"grid workload {self.source}"
        if not np.all(np.isfinite(self.submit_at)):
            raise ConfigError(f"{where} submit_at", "a non-finite time", "finite seconds")
        if n and not (np.all(np.isfinite(self.work)) and self.work.min() > 0):
            raise ConfigError(f"{where} work", float(self.work.min()), "finite work units > 0")
        if n and self.procs.min() < 1:
            raise ConfigError(f"{where} procs", int(self.procs.min()), "processors >= 1")
        if n and (self.org.min() < 0 or self.org.max() >= len(self.organisations)):
            bad = int(self.org.min() if self.org.min() < 0 else self.org.max())
            allowed = f"an index into organisations (0..{len(self.organisations) - 1})"
            raise ConfigError(f"{where} org", bad, allowed)
        if n and self.stream.min() < -1:
            allowed = "-1 (global) or a pool index >= 0"
            raise ConfigError(f"{where} stream", int(self.stream.min()), allowed)
        if n > 1 and np.any(np.diff(self.submit_at) < 0):
            order = np.argsort(self.submit_at, kind="stable")
            for name in ("submit_at", "work", "procs", "org", "stream", "job_id"):
                setattr(self, name, getattr(self, name)[order])

    def __len__(self) -> int:
        return len(self.submit_at)

    @property
    def is_global(self) -> np.ndarray:
        """True for the meta-jobs (stream -1)."""
        return self.stream < 0

    @property
    def total_work(self) -> float:
        """Sum of work x procs (work units)."""
        return float(np.dot(self.work, self.procs.astype(np.float64)))

    def check_platform(self, platform: Platform) -> None:
        """ConfigError unless every local job targets a pool of ``platform`` that is wide
        enough for it (and every meta-job fits in some pool)."""
        pools = platform.queues()
        local = self.stream >= 0
        if local.any() and int(self.stream[local].max()) >= len(pools):
            bad = int(self.stream[local].max())
            raise ConfigError(
                f"grid workload {self.source} stream", bad, f"a pool index in 0..{len(pools) - 1}"
            )
        sizes = np.array([q.nodes for q in pools])
        if local.any():
            over = self.procs[local] > sizes[self.stream[local]]
            if over.any():
                row = int(np.flatnonzero(local)[np.flatnonzero(over)[0]])
                pool = pools[int(self.stream[row])]
                raise ConfigError(
                    f"grid workload {self.source} job {int(self.job_id[row])} procs",
                    int(self.procs[row]),
                    f"at most the {pool.nodes} nodes of pool {pool.pool_name}",
                )
        if self.is_global.any() and int(self.procs[self.is_global].max()) > int(sizes.max()):
            raise ConfigError(
                f"grid workload {self.source} meta-job procs",
                int(self.procs[self.is_global].max()),
                f"at most {int(sizes.max())}, the widest pool's nodes",
            )
        self.check_times(platform)

    def late_job(self, platform: Platform) -> tuple[int, float, str] | None:
        """The first job (row, the instant, "submit" or "run") that would be submitted, or
        end on the slowest node that may run it (or at its t_max), after `MAX_SPAN`; None
        when every job ends in time. A meta-job may go to any pool: its bound takes the
        slowest node and the longest t_max of all (an upper bound). Needs the local jobs'
        pools to exist (`check_platform`)."""
        if not len(self):
            return None
        late = np.flatnonzero(self.submit_at > MAX_SPAN)
        if len(late):
            return int(late[0]), float(self.submit_at[late[0]]), "submit"
        pools = platform.queues()
        slowest = np.array([min(p for p, _ in q.groups) for q in pools])
        t_max = np.array([q.t_max for q in pools])
        worst = np.minimum(self.work / float(slowest.min()), float(t_max.max()))
        local = self.stream >= 0
        if local.any():
            pool = self.stream[local]
            worst[local] = np.minimum(self.work[local] / slowest[pool], t_max[pool])
        with np.errstate(over="ignore", invalid="ignore"):
            end = self.submit_at + worst
        late = np.flatnonzero(~(end <= MAX_SPAN))
        if len(late):
            return int(late[0]), float(end[late[0]]), "run"
        return None

    def check_times(self, platform: Platform) -> None:
        """ConfigError naming the first job that would pass `MAX_SPAN` on ``platform``
        (`late_job`): the clock of its run must stay below the end of time."""
        late = self.late_job(platform)
        if late is None:
            return
        row, end, what = late
        job = f"grid workload {self.source} job {int(self.job_id[row])}"
        if what == "submit":
            raise ConfigError(
                f"{job} submit_at", end, f"a submit time of at most {MAX_SPAN:g} s on a platform"
            )
        raise ConfigError(
            f"{job} work",
            float(self.work[row]),
            f"a size that runs (or is killed at its queue's t_max) before {MAX_SPAN:g} s on "
            f"the platform's slowest node (it would end at {end:.3g} s)",
        )

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def merge(cls, *workloads: GridWorkload) -> GridWorkload:
        """One workload from several, sorted by submit time (ties: argument order).

        Organisations are matched by name (the union, in first-seen order). Job ids are
        kept when they are unique across the inputs, else renumbered 1..n in merged order.
        """
        if not workloads:
            raise ConfigError("grid workloads to merge", "none", "at least one workload")
        names: list[str] = []
        orgs = []
        for w in workloads:
            for name in w.organisations:
                if name not in names:
                    names.append(name)
            remap = np.array([names.index(o) for o in w.organisations], dtype=np.int64)
            orgs.append(remap[w.org] if len(w) else w.org)
        submit = np.concatenate([w.submit_at for w in workloads])
        order = np.argsort(submit, kind="stable")
        ids = np.concatenate([w.job_id for w in workloads])[order]
        if len(np.unique(ids)) != len(ids):
            ids = np.arange(1, len(ids) + 1, dtype=np.int64)
        return cls(
            submit_at=submit[order],
            work=np.concatenate([w.work for w in workloads])[order],
            procs=np.concatenate([w.procs for w in workloads])[order],
            org=np.concatenate(orgs)[order],
            stream=np.concatenate([w.stream for w in workloads])[order],
            job_id=ids,
            source=" + ".join(w.source for w in workloads),
            organisations=tuple(names),
        )

    @classmethod
    def from_swf(
        cls, workload: Workload, platform: Platform | None = None, mode: str = "global"
    ) -> GridWorkload:
        """A grid log's jobs (module docstring): work = run time x power 1, org from the
        group (else the user), local mode keeps the partitions (ids in order -> sites in
        order, each site's first queue), global mode sends every job to actor 0."""
        mode = check_mode(mode)
        n = len(workload)
        org, names = _organisations(workload)
        stream = np.full(n, -1, dtype=np.int64)
        if mode == "local" and n:
            partition = _partitions(workload, "local mode")
            ids = np.unique(partition)
            if platform is None:
                platform = derive_platform(workload)
            if len(platform.sites) < len(ids):
                raise ConfigError(
                    f"platform {platform.source} sites",
                    len(platform.sites),
                    f"at least {len(ids)}: local mode maps the trace's {len(ids)} partitions "
                    "(ids in increasing order) to the sites in order",
                )
            first = np.array(platform.first_pools()[: len(ids)], dtype=np.int64)
            stream = first[np.searchsorted(ids, partition)]
        out = cls(
            submit_at=workload.submit_time.copy(),
            work=workload.run_time.astype(np.float64),
            procs=workload.procs,
            org=org,
            stream=stream,
            job_id=workload.job_id,
            source=f"{workload.source} ({mode})",
            organisations=names,
        )
        if platform is not None and mode == "local":
            out.check_platform(platform)
        return out


def _organisations(workload: Workload) -> tuple[np.ndarray, tuple[str, ...]]:
    """Per-job organisation index and names: SWF groups, else users, else one unknown."""
    for column, label in ((workload.group_id, "group"), (workload.user_id, "user")):
        if len(column) and (column >= 0).any():
            ids, inverse = np.unique(column, return_inverse=True)
            names = tuple(UNKNOWN_ORG if i < 0 else f"{label} {i}" for i in ids.tolist())
            return inverse.astype(np.int64).reshape(-1), names
    return np.zeros(len(workload), dtype=np.int64), (UNKNOWN_ORG,)


def _partitions(workload: Workload, what: str) -> np.ndarray:
    """Field 16 as int64; WorkloadError naming the first job without a partition."""
    partition = workload.column("partition_id")
    missing = ~(partition >= 0) | (partition != np.trunc(partition))
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise WorkloadError(
            workload.source,
            f"{what} needs every job's partition; job {int(workload.job_id[row])} and "
            f"{int(missing.sum()) - 1} more have none",
            field="16 (partition_id)",
            value=f"{partition[row]:g}",
        )
    return partition.astype(np.int64)


# (group ids, peak processors in use) per group: one computation for grid logs and for the
# partitions `workload info` reports
peak_concurrency = peak_in_use


def derive_platform(workload: Workload) -> Platform:
    """The platform a grid log implies (module docstring): one site per partition, one FCFS
    queue of capacity = the partition's observed peak concurrency, power 1, no network."""
    if not len(workload):
        raise WorkloadError(workload.source, "a platform cannot be derived from no jobs")
    partition = _partitions(workload, "derive_platform")
    count = len(np.unique(partition))
    if count > MAX_DERIVED_SITES:
        raise WorkloadError(
            workload.source,
            f"a platform derived from a trace has one site per partition (each a pool of the "
            f"simulation): at most {MAX_DERIVED_SITES:,}, this trace has {count:,}; write a "
            "platform file for it instead (its max_queues key raises that ceiling)",
            field="16 (partition_id)",
        )
    wait = workload.column("wait_time")
    start = workload.submit_time + np.where(wait >= 0, wait, 0.0)
    end = start + workload.run_time
    ids, peaks = peak_concurrency(start, end, workload.procs, partition)
    names = _partition_names(workload)
    used: set[str] = set()
    sites = []
    for pid, peak in zip(ids.tolist(), peaks.tolist()):
        name = names.get(pid, "")
        if not name or name in used:
            name = f"partition {pid}"
        used.add(name)
        queue = Queue(site=name, name="default", groups=((1.0, int(peak)),))
        sites.append(Site(name=name, queues=(queue,), lan=NO_NETWORK))
    return Platform(
        sites=tuple(sites),
        wan=NO_NETWORK,
        seed=0,
        source=f"derived from {workload.source}",
        reference_nodes=None,
    )


def _partition_names(workload: Workload) -> dict[int, str]:
    """Partition id -> name from ``; Partition: <id> <name>`` header lines (LCG-2005)."""
    return {
        pid: name
        for pid, name in partition_names(workload).items()
        if name and "/" not in name and name.isprintable()
    }


def check_mode(mode: object) -> str:
    """``mode`` if it is a trace replay mode, else ConfigError."""
    if mode not in MODES:
        raise ConfigError("grid trace mode", mode, MODES)
    return str(mode)
