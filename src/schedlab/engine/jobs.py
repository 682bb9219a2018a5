"""The kernel's jobs: what a run is given (`JobSpecs`), the state it keeps per job
(`JobTable`) and what it gives back (`KernelRun`).

Every per-job column of the kernel is declared once, in `JobTable.COLUMNS`, with the value a
job starts with and its storage (a typed array, except for objects). Roots get it at
construction (then the columns read from their specs are filled in); jobs spawned during the
run (pilots) get it in `JobTable.append`. So a spawned job has every column a root has, and
a new column cannot be forgotten for one of them.

A job's life inside one pool visit, and the arithmetic of durations from work
(`engine.durations`: progress is kept in work units, so a job resumes right on nodes of
another speed), live here too: `begin` opens a run segment and says when it stops,
`stop_segment` closes one. The kernel decides when; this module keeps the accounts.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from schedlab.engine.durations import RIGID, SpeedupModel
from schedlab.engine.events import DONE, PENDING, JobState
from schedlab.errors import PolicyError

__all__ = ["PREEMPTION", "JobSpecs", "JobTable", "KernelRun"]

_INF = math.inf
_NAN = math.nan


@dataclass
class JobSpecs:
    """The jobs of a run, by global id, as parallel lists or numpy arrays (built once, read
    by the kernel into its typed columns; the speed-up models are a list).

    ``release_at`` is the submit time of a root (ignored for dependants, released at their
    parent's end + ``think``); ``work`` and ``requested_work`` are in work units (module
    `engine.durations`); ``procs`` the requested size; ``target_actor`` >= 0 sends a released
    job to that actor, else it goes straight to pool ``target_pool``.
    """

    release_at: Sequence[float] | np.ndarray
    work: Sequence[float] | np.ndarray
    requested_work: Sequence[float] | np.ndarray
    procs: Sequence[int] | np.ndarray
    user: Sequence[int] | np.ndarray
    speedup: list[SpeedupModel]
    parent: Sequence[int] | np.ndarray
    think: Sequence[float] | np.ndarray
    target_actor: Sequence[int] | np.ndarray
    target_pool: Sequence[int] | np.ndarray
    attributes: dict[str, Sequence[float] | np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.release_at)

    @classmethod
    def rigid(
        cls,
        *,
        submit_at: Sequence[float] | np.ndarray,
        run_time: Sequence[float] | np.ndarray,
        requested_time: Sequence[float] | np.ndarray,
        procs: Sequence[int] | np.ndarray,
        user: Sequence[int] | np.ndarray | None = None,
        parent: Sequence[int] | np.ndarray | None = None,
        think: Sequence[float] | np.ndarray | None = None,
        speedup: Sequence[SpeedupModel] | None = None,
        target_actor: int = -1,
        target_pool: int = 0,
        attributes: Mapping[str, Sequence[float] | np.ndarray] | None = None,
    ) -> JobSpecs:
        """Jobs of one stream, all sent to one actor (or pool); work from run times.

        A moldable job's run and requested times are those at its requested size, as in a
        trace; its work (the time on one processor) is derived through its model. Without
        models (every job rigid: work = run time), the columns stay numpy arrays, which the
        kernel's table reads as bytes.
        """
        n = len(submit_at)
        if speedup is None:  # every job rigid (a time factor of 1.0): the columns as arrays
            return cls(
                release_at=np.asarray(submit_at, dtype=np.float64),
                work=np.asarray(run_time, dtype=np.float64),
                requested_work=np.asarray(requested_time, dtype=np.float64),
                procs=np.asarray(procs, dtype=np.int64),
                user=np.asarray(user, dtype=np.int64) if user is not None else [-1] * n,
                speedup=[RIGID] * n,
                parent=np.asarray(parent, dtype=np.int64) if parent is not None else [-1] * n,
                think=np.asarray(think, dtype=np.float64) if think is not None else [0.0] * n,
                target_actor=[target_actor] * n,
                target_pool=[target_pool] * n,
                attributes={
                    k: np.asarray(vs, dtype=np.float64) for k, vs in (attributes or {}).items()
                },
            )
        models: list[SpeedupModel] = list(speedup)
        sizes = [int(p) for p in procs]
        factors = [m.time_factor(p) for m, p in zip(models, sizes)]
        return cls(
            release_at=[float(t) for t in submit_at],
            work=[float(r) / f for r, f in zip(run_time, factors)],
            requested_work=[float(r) / f for r, f in zip(requested_time, factors)],
            procs=sizes,
            user=[int(u) for u in user] if user is not None else [-1] * n,
            speedup=models,
            parent=[int(p) for p in parent] if parent is not None else [-1] * n,
            think=[float(t) for t in think] if think is not None else [0.0] * n,
            target_actor=[target_actor] * n,
            target_pool=[target_pool] * n,
            attributes={k: [float(v) for v in vs] for k, vs in (attributes or {}).items()},
        )


@dataclass(eq=False)
class KernelRun:
    """Per-job outcome (numpy arrays by global id) plus what the run counted."""

    submitted_at: np.ndarray  # release (roots: submit; dependants: parent end + think)
    admitted_at: np.ndarray  # entry into the last pool's queue
    started_at: np.ndarray
    finished_at: np.ndarray
    killed: np.ndarray
    preemptions: np.ndarray
    evictions: np.ndarray
    suspended_time: np.ndarray  # s between first start and end not running
    executed_work: np.ndarray  # work units done by the attempt that counted
    wasted_time: np.ndarray  # s run by attempts lost to requeues
    overhead_time: np.ndarray  # s spent restarting from checkpoints (no work done)
    alloc_procs: np.ndarray  # processors of the last run segment
    pool: np.ndarray  # last pool (-1: never reached one)
    node_power: np.ndarray  # slowest node power of the last run segment
    host: np.ndarray  # the job it ran inside (payloads), else -1
    pool_names: list[str]
    total_procs: int
    wall_time: float
    instants: int
    rounds: int
    spawned: int


class JobTable:
    """Per-job state of one kernel run: one typed array or list per column, indexed by
    global id.

    Public columns are what actors read through the kernel (`engine.actors.PlatformView`)
    and what the run returns; the others are the kernel's accounts. Every column is declared
    in `COLUMNS` (module docstring).
    """

    # (column, what a job starts with, its storage): roots at construction, spawned jobs in
    # `append`. A storage code is a typed array (`array.array`: "d" a float, "q" an int of
    # 8 bytes, "i" of 4, "b" a flag or a state): a float or a large int in a list costs a
    # Python object per job besides its 8-byte slot (the table was about 0.7 KiB a job, a
    # third of a million-job grid's memory). "" is a list, for objects.
    COLUMNS: ClassVar[tuple[tuple[str, Any, str], ...]] = (
        # what the job is (roots: read from their specs below)
        ("procs", 0, "q"),  # requested size
        ("user", -1, "q"),
        ("requested_time", 0.0, "d"),  # the estimate at its size, on power 1 (s)
        ("work", _INF, "d"),  # work units (s on one processor of power 1)
        ("requested_work", _INF, "d"),
        ("model", RIGID, ""),  # speed-up model
        ("think", 0.0, "d"),  # s after the parent's end before a dependant's release
        ("target_actor", -1, "i"),  # who receives it when released (-1: a pool)
        ("target_pool", -1, "i"),
        ("parent", -1, "q"),
        ("children", None, ""),  # dependants released at its end
        ("release_at", _NAN, "d"),
        ("open_ended", False, "b"),  # a pilot: no work, ended by its actor or its limit
        ("requested_s", 0.0, "d"),  # an open-ended job's limit (s)
        ("tag", None, ""),  # what its spawner attached (pilots)
        # where it is
        ("state", PENDING, "b"),  # `JobState`
        ("where", -1, "i"),  # pool (-1: none, or in transit)
        ("local", -1, "q"),  # its number in that pool's view
        ("owner", -1, "i"),  # actor that dispatched or spawned it
        ("holder", -1, "i"),  # actor it was released (or handed back) to
        ("host", -1, "q"),  # the job it runs inside (payloads)
        ("host_used", 0, "q"),  # processors its payloads hold (hosts)
        ("groups", None, ""),  # node groups held: [(group, processors), ...]
        # its current run segment and attempt
        ("gen", 0, "q"),  # generation: makes pending ends of stopped segments stale
        ("will_kill", False, "b"),  # the pending end is a kill (limit reached first)
        ("seg_start", _NAN, "d"),
        ("factor", 1.0, "d"),  # seconds per work unit of the current segment
        ("done_work", 0.0, "d"),  # work done before the current segment (this attempt)
        ("attempt_time", 0.0, "d"),  # seconds run by the current attempt
        ("pool_time", 0.0, "d"),  # seconds run in the current pool visit (t_max)
        ("overhead", 0.0, "d"),  # s to pay at the next (re)start: reading a checkpoint
        ("seg_over", 0.0, "d"),  # s of the current segment that restart (no work)
        ("suspended_since", _NAN, "d"),
        # what the run reports
        ("node_power", _NAN, "d"),  # slowest node of the last segment
        ("alloc_procs", 0, "q"),  # processors of the last segment
        ("submitted_at", _NAN, "d"),
        ("admitted_at", _NAN, "d"),
        ("started_at", _NAN, "d"),
        ("finished_at", _NAN, "d"),
        ("killed", False, "b"),
        ("preemptions", 0, "q"),
        ("evictions", 0, "q"),
        ("suspended_time", 0.0, "d"),
        ("wasted_time", 0.0, "d"),  # s run by attempts lost (requeue, cancel)
        ("overhead_time", 0.0, "d"),  # s spent restarting from checkpoints
    )

    procs: array[int]
    user: array[int]
    requested_time: array[float]
    work: array[float]
    requested_work: array[float]
    model: list[SpeedupModel]
    think: array[float]
    target_actor: array[int]
    target_pool: array[int]
    parent: array[int]
    children: list[list[int] | None]
    release_at: array[float]
    open_ended: array[int]  # 0 or 1
    requested_s: array[float]
    tag: list[object]
    state: array[int]
    where: array[int]
    local: array[int]
    owner: array[int]
    holder: array[int]
    host: array[int]
    host_used: array[int]
    groups: list[list[tuple[int, int]] | None]
    gen: array[int]
    will_kill: array[int]  # 0 or 1
    seg_start: array[float]
    factor: array[float]
    done_work: array[float]
    attempt_time: array[float]
    pool_time: array[float]
    overhead: array[float]
    seg_over: array[float]
    suspended_since: array[float]
    node_power: array[float]
    alloc_procs: array[int]
    submitted_at: array[float]
    admitted_at: array[float]
    started_at: array[float]
    finished_at: array[float]
    killed: array[int]  # 0 or 1
    preemptions: array[int]
    evictions: array[int]
    suspended_time: array[float]
    wasted_time: array[float]
    overhead_time: array[float]

    def __init__(self, specs: JobSpecs, *, preemptive: bool = True) -> None:
        n = len(specs)
        # a run whose policies only start jobs (every pool's policy a `Steps` one) never
        # suspends, evicts, requeues or cancels one: it has no column of `PREEMPTION` (a
        # job then starts once per pool visit, so its time there is 0 when it starts)
        self.preemptive = preemptive
        self.columns = tuple(c for c in self.COLUMNS if preemptive or c[0] not in PREEMPTION)
        for name, start, code in self.columns:
            if name not in _FROM_SPECS:  # (those are read below, not filled twice)
                setattr(self, name, array(code, (start,)) * n if code else [start] * n)
        self.procs = typed("q", specs.procs)
        self.user = typed("q", specs.user)
        self.work = typed("d", specs.work)
        self.requested_work = typed("d", specs.requested_work)
        self.model = list(specs.speedup)
        if all(m is RIGID for m in self.model):  # (a rigid job's time factor is 1.0)
            self.requested_time = array("d", self.requested_work)
        else:
            self.requested_time = array(
                "d",
                (
                    w * m.time_factor(p)
                    for w, m, p in zip(self.requested_work, self.model, self.procs)
                ),
            )
        self.think = typed("d", specs.think)
        self.target_actor = typed("i", specs.target_actor)
        self.target_pool = typed("i", specs.target_pool)
        self.parent = typed("q", specs.parent)
        self.release_at = typed("d", specs.release_at)
        parents = np.frombuffer(self.parent, dtype=np.int64)
        for j in np.flatnonzero(parents >= 0).tolist():  # (dependants: most runs have none)
            parent = self.parent[j]
            kids = self.children[parent]
            if kids is None:
                self.children[parent] = [j]
            else:
                kids.append(j)
        # per-job attributes by global id (spawned jobs: NaN), for actors
        self.attributes = {k: typed("d", v) for k, v in specs.attributes.items()}
        self.roots = len(specs)  # jobs of the workload; ids above are spawned
        self.payloads: dict[int, list[int]] = {}  # host -> the payloads running in it
        # each column's append and start value, looked up once: a grid run spawns a job per
        # pilot, and 45 attribute lookups per spawn were a tenth of pilot_filling's time
        self._growers: tuple[tuple[Any, Any], ...] = tuple(
            [(getattr(self, name).append, start) for name, start, _ in self.columns]
            + [(values.append, _NAN) for values in self.attributes.values()]
        )

    def __len__(self) -> int:
        return len(self.state)

    def append(self) -> int:
        """A new job (spawned during the run) with every column at its start value.

        The only place a column grows during a run: the C loop (`engine/_ckernel.c`) reads
        the columns through pointers, and takes them again when ``state`` grows."""
        j = len(self.state)
        for grow, start in self._growers:
            grow(start)
        return j

    def add_payload(self, host: int, j: int, q: int) -> None:
        """Job j now runs on q of ``host``'s processors (a payload in its pilot)."""
        self.host_used[host] += q
        self.payloads.setdefault(host, []).append(j)

    def drop_payload(self, j: int) -> None:
        """Payload j ended: its host's processors are its host's again."""
        host = self.host[j]
        self.host_used[host] -= self.alloc_procs[j]
        payloads = self.payloads[host]
        payloads.remove(j)
        if not payloads:
            del self.payloads[host]

    def check_all_ended(self, ended: int, pool_names: Sequence[str]) -> None:
        """PolicyError naming the first job that never ended, when ``ended`` is short."""
        total = len(self.state)
        if ended == total:
            return
        stuck = [j for j in range(total) if self.state[j] != DONE]
        j = stuck[0]
        where = self.where[j]
        place = f"in pool {pool_names[where]!r}" if where >= 0 else "in no pool"
        raise PolicyError(
            f"{len(stuck)} job(s) never finished when no event remained (first: job "
            f"{j}, {JobState(self.state[j]).name.lower()} {place})"
        )

    # -- accounts of preemptions ------------------------------------------------------------
    def lose_attempt(self, j: int) -> None:
        """The current attempt's time is lost work (a requeue or a cancel)."""
        self.wasted_time[j] += self.attempt_time[j]
        self.attempt_time[j] = 0.0

    def end_suspension(self, j: int, now: float) -> None:
        """A suspended job ends without resuming: its time suspended is counted."""
        since = self.suspended_since[j]
        if since == since:
            self.suspended_time[j] += now - since
            self.suspended_since[j] = _NAN

    # -- the outcome ------------------------------------------------------------------------
    def outcome(self, **counted: Any) -> KernelRun:
        """The run's per-job arrays (`KernelRun`), with what the kernel ``counted``.

        The typed columns are handed over without a copy (numpy reads their buffers), so
        the table must not grow afterwards: the run is over. A run without preemptions has
        zeros for their accounts (allocated lazily by the system: no memory until read)."""
        if self.preemptive:
            preemptions = np.frombuffer(self.preemptions, dtype=np.int64)
            evictions = np.frombuffer(self.evictions, dtype=np.int64)
            suspended, wasted = _floats(self.suspended_time), _floats(self.wasted_time)
            overhead = _floats(self.overhead_time)
        else:
            n = len(self.state)
            preemptions, evictions = np.zeros(n, np.int64), np.zeros(n, np.int64)
            suspended, wasted, overhead = np.zeros(n), np.zeros(n), np.zeros(n)
        return KernelRun(
            submitted_at=_floats(self.submitted_at),
            admitted_at=_floats(self.admitted_at),
            started_at=_floats(self.started_at),
            finished_at=_floats(self.finished_at),
            killed=np.frombuffer(self.killed, dtype=np.int8).view(bool),  # (0 or 1 only)
            preemptions=preemptions,
            evictions=evictions,
            suspended_time=suspended,
            executed_work=_floats(self.done_work),
            wasted_time=wasted,
            overhead_time=overhead,
            alloc_procs=np.frombuffer(self.alloc_procs, dtype=np.int64),
            pool=np.array(self.where, dtype=np.int64),
            node_power=_floats(self.node_power),
            host=np.frombuffer(self.host, dtype=np.int64),
            **counted,
        )


# the accounts of preemptions, requeues, cancels and checkpoints, and of the time run in
# one pool visit (t_max): only a run that can preempt has them (`JobTable.preemptive`)
PREEMPTION = frozenset(
    (
        "attempt_time",
        "pool_time",
        "overhead",
        "seg_over",
        "suspended_since",
        "preemptions",
        "evictions",
        "suspended_time",
        "wasted_time",
        "overhead_time",
    )
)
_DTYPES = {"d": np.float64, "q": np.int64, "i": np.int32, "b": np.int8}
# the columns `JobTable` reads from its specs rather than filling with their start value
_FROM_SPECS = frozenset(
    (
        "procs",
        "user",
        "work",
        "requested_work",
        "model",
        "requested_time",
        "think",
        "target_actor",
        "target_pool",
        "parent",
        "release_at",
    )
)


def typed(code: str, values: Sequence[Any] | np.ndarray) -> array[Any]:
    """A typed column from a list, or from a numpy array read as bytes (no Python object
    per job on the way: a grid's million jobs come as the workload's arrays)."""
    if isinstance(values, np.ndarray):
        column = array(code)
        column.frombytes(np.ascontiguousarray(values, dtype=_DTYPES[code]).data.cast("B"))
        return column
    return array(code, values)


def _floats(column: array[float]) -> np.ndarray:
    """A typed column as a numpy array over the same memory (no copy)."""
    return np.frombuffer(column, dtype=np.float64)
