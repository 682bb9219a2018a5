"""Streams of Baranov and Tikhomirov (Computational Technologies 2017; SPEC 6): global and
local jobs with absolute priorities.

A `TdcsWorkload` is a `GridWorkload` (submit times, work, processors, organisation, stream:
-1 global, p >= 0 local to pool p) plus what the paper's jobs carry:

==============  ===========================================================================
column          meaning
==============  ===========================================================================
requested       the user's requested time at power 1 (work units); often far above ``work``
priority        absolute priority, a larger number is more important (SPEC 6)
origin          the site a global job enters at (its dispatcher; its input data are there);
                a local job's own site
input_size      bytes of input moved when a job runs away from its origin
checkpointable  1: a preempted run keeps its work (checkpoint), 0: it is requeued
==============  ===========================================================================

A run (`scenario.platform_jobs`) gives the kernel these as job attributes (``priority``,
``checkpointable``, ``global``, ``origin``, ``input_size``, ``stream``, ``org``), which the
local managers (`pps` with ``priority="attribute"``) and the dispatchers read.

**The pre-registered scenario** (`generate_tdcs`, docs/reproductions.md, "Absolute
priorities across clusters"): three levels, high 2, low 1, background 0. Streams, each a
Poisson process whose rate gives it its share of the platform's capacity (work units per
second, `Platform.capacity`): global background (0.20, checkpointable), global high (0.20),
global low (0.15), local high (0.10) and local low (0.20) split over the sites by their
capacity: 0.85 in all. Low jobs are checkpointable with probability 0.5, high jobs never
(they are not preempted: nothing ranks above them). Sizes 2^k processors, k = 0..6 with
weights (0.30, 0.15, 0.15, 0.15, 0.10, 0.10, 0.05), capped at the site's nodes for local
jobs; run times (power 1) log-uniform in [300 s, 4 h] (background [30 min, 8 h]); the
requested time is, with probability 0.75, the run time plus 1 to 8 h rounded up to the
hour, else the run time x U(1.05, 1.5) rounded up to 15 min: so more than 60 % of the jobs
end at least an hour before their requested time, as the paper reports. Inputs are
log-uniform in [100 MB, 10 GB]; a global job's origin is a site drawn in proportion to its
nodes. Each stream has its own generator spawned from ``seed``.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from schedlab.errors import ConfigError, WorkloadError, printable
from schedlab.inputs import read_input
from schedlab.platform.description import Platform
from schedlab.validators import check_int, check_number, check_seed
from schedlab.workload.grid import GridWorkload, _partitions, check_mode
from schedlab.workload.job import MAX_TIME, Workload

__all__ = [
    "HIGH",
    "LOW",
    "BACKGROUND",
    "LEVELS",
    "MAX_JOBS",
    "MAX_PRIORITY",
    "TdcsWorkload",
    "generate_tdcs",
    "offered_load",
]

BACKGROUND, LOW, HIGH = 0, 1, 2
LEVELS = ("background", "low", "high")  # organisation names = priority levels
SIZE_WEIGHTS = (0.30, 0.15, 0.15, 0.15, 0.10, 0.10, 0.05)  # of 2^0 .. 2^6 processors
RUN_RANGE = (300.0, 4 * 3600.0)
BACKGROUND_RUN_RANGE = (1800.0, 8 * 3600.0)
INPUT_RANGE = (1e8, 1e10)
GENEROUS = 0.75  # share of users asking for the run time plus hours
# Jobs the generator builds at most unless its caller raises ``max_jobs`` (``tdcs run
# --max-jobs``): about 50,000 hours of the scenario at load 0.85 on the builtin platform,
# already hours of simulation; more is most likely a typo in --hours or --load that would
# exhaust the memory before failing.
MAX_JOBS = 1_000_000
# Priorities of a --priority-from table: integers a float holds exactly (the kernel's job
# attributes are floats), so that two different priorities never compare equal.
MAX_PRIORITY = 2**53
_INTEGER = re.compile(r"[+-]?[0-9]+")
# (name, priority, global, share of capacity, probability of being checkpointable)
STREAMS: tuple[tuple[str, int, bool, float, float], ...] = (
    ("global_background", BACKGROUND, True, 0.20, 1.0),
    ("global_high", HIGH, True, 0.20, 0.0),
    ("global_low", LOW, True, 0.15, 0.5),
    ("local_high", HIGH, False, 0.10, 0.0),
    ("local_low", LOW, False, 0.20, 0.5),
)


@dataclass(eq=False)
class TdcsWorkload:
    """A grid workload plus the paper's columns (module docstring), in the grid's row order."""

    grid: GridWorkload
    requested: np.ndarray
    priority: np.ndarray
    origin: np.ndarray
    input_size: np.ndarray
    checkpointable: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.grid)
        self.requested = np.asarray(self.requested, dtype=np.float64).reshape(-1)
        self.priority = np.asarray(self.priority, dtype=np.int64).reshape(-1)
        self.origin = np.asarray(self.origin, dtype=np.int64).reshape(-1)
        self.input_size = np.asarray(self.input_size, dtype=np.float64).reshape(-1)
        self.checkpointable = np.asarray(self.checkpointable, dtype=np.int64).reshape(-1)
        for name in ("requested", "priority", "origin", "input_size", "checkpointable"):
            size = len(getattr(self, name))
            if size != n:
                raise ConfigError(f"tdcs workload {name}", f"{size} values", f"{n}, one per job")
        if n and not (np.all(self.requested >= self.grid.work)):
            raise ConfigError("tdcs workload requested", "below the work", "requested >= work")
        if n and (self.input_size.min() < 0 or not np.all(np.isfinite(self.input_size))):
            raise ConfigError("tdcs workload input_size", float(self.input_size.min()), ">= 0")
        if n and self.origin.min() < 0:
            raise ConfigError("tdcs workload origin", int(self.origin.min()), "a site index")

    def __len__(self) -> int:
        return len(self.grid)

    @property
    def source(self) -> str:
        return self.grid.source

    @property
    def is_global(self) -> np.ndarray:
        return self.grid.is_global

    def check_platform(self, platform: Platform) -> None:
        """The grid checks, plus origins naming sites of ``platform``."""
        self.grid.check_platform(platform)
        if len(self) and int(self.origin.max()) >= len(platform.sites):
            raise ConfigError(
                f"tdcs workload {self.source} origin",
                int(self.origin.max()),
                f"a site index in 0..{len(platform.sites) - 1}",
            )

    def early_share(self, hours: float = 1.0) -> float:
        """Share of jobs whose requested time exceeds their run time by >= ``hours`` (at
        power 1; on other nodes both scale alike, so the share only grows on slower ones)."""
        if not len(self):
            return math.nan
        return float(np.mean(self.requested - self.grid.work >= hours * 3600.0))

    # -- traces ------------------------------------------------------------------------------
    @classmethod
    def from_swf(
        cls,
        workload: Workload,
        platform: Platform,
        *,
        mode: str = "global",
        priority_from: str = "queue",
        origin: str = "round_robin",
        input_size: float = 1e9,
        on_note: Callable[[str], None] | None = None,
    ) -> TdcsWorkload:
        """A trace as the paper's streams.

        ``priority_from``: "queue" (SWF field 15, the queue number, is the priority; -1 is
        0), "none" (all 0) or a CSV file of ``job_id,priority`` rows (jobs not listed: 0;
        `read_priorities` says what it refuses). Jobs of the lowest priority present are
        checkpointable (background). ``origin``: "partition" (field 16 ids in increasing
        order -> sites in file order) or "round_robin" (sites in turn). ``mode`` "global"
        sends every job to the dispatchers, "local" keeps it at its origin's first queue.
        ``input_size`` in bytes. ``on_note`` hears what the user should know (rows of the
        priority table naming jobs the trace does not hold).
        """
        mode = check_mode(mode)
        n = len(workload)
        input_size = check_number(
            "tdcs input_size", input_size, low=0, high=1e15, allowed="bytes in [0, 1e15]"
        )
        prio = _priorities(workload, priority_from, on_note)
        sites = len(platform.sites)
        if origin == "partition":
            partition = _partitions(workload, "origin='partition'")
            ids = np.unique(partition)
            if len(ids) > sites:
                raise ConfigError("origin", "partition", f"at most {sites} partitions")
            where = np.searchsorted(ids, partition).astype(np.int64)
        elif origin == "round_robin":
            where = np.arange(n, dtype=np.int64) % sites
        else:
            raise ConfigError("origin", origin, ("partition", "round_robin"))
        first = np.asarray(platform.first_pools(), dtype=np.int64)
        stream = np.full(n, -1, dtype=np.int64) if mode == "global" else first[where]
        levels = sorted(set(prio.tolist())) or [0]
        grid = GridWorkload(
            submit_at=workload.submit_time.copy(),
            work=workload.run_time.astype(np.float64),
            procs=workload.procs,
            org=np.searchsorted(levels, prio),
            stream=stream,
            job_id=workload.job_id,
            source=f"{workload.source} ({mode})",
            organisations=tuple(f"priority {p}" for p in levels),
        )
        requested = np.maximum(workload.requested_time.astype(np.float64), grid.work)
        out = cls(
            grid=grid,
            requested=requested,
            priority=prio,
            origin=where,
            input_size=np.full(n, float(input_size)),
            checkpointable=(prio == levels[0]).astype(np.int64),
        )
        out.check_platform(platform)
        return out


def _priorities(workload: Workload, rule: str, on_note: Callable[[str], None] | None) -> np.ndarray:
    n = len(workload)
    if rule == "queue":
        return np.maximum(workload.queue_id, 0).astype(np.int64)
    if rule == "none":
        return np.zeros(n, dtype=np.int64)
    try:
        exists = os.path.exists(rule)
    except (OSError, ValueError):  # a name the OS refuses (too long, NUL)
        exists = False
    if not exists:
        raise ConfigError("priority_from", rule, "queue, none or a CSV file job_id,priority")
    table = read_priorities(rule)
    ids = workload.job_id.tolist()
    known = set(ids)
    unknown = [(line, job) for job, (_, line) in table.items() if job not in known]
    if unknown and on_note is not None:
        line, job = unknown[0]
        on_note(
            f"{printable(rule)}: {len(unknown):,} row(s) name jobs the workload does not hold "
            f"(first: job {job} at line {line}); their priorities are unused"
        )
    return np.array([table[j][0] if j in table else 0 for j in ids], dtype=np.int64)


def read_priorities(path: str) -> dict[int, tuple[int, int]]:
    """``job_id -> (priority, line)`` from a CSV of ``job_id,priority`` rows (a header row
    and ``#`` comments skipped), read through `read_input` (so no output of the command
    may replace it). Refused with the file, line and field: a row without two fields, a job
    id or priority that is not an integer, a priority beyond +-`MAX_PRIORITY`, a job id
    given twice. Rows naming jobs the workload lacks are the caller's to report."""
    where = printable(path)
    data = read_input(path, kind="a priority table (CSV job_id,priority)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkloadError(where, f"not UTF-8 text (byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    table: dict[int, tuple[int, int]] = {}
    try:
        for row in reader:
            line = reader.line_num
            if not row or row[0].strip().lower() in ("job_id", "") or row[0].startswith("#"):
                continue
            if len(row) < 2:
                raise WorkloadError(where, "a row must be job_id,priority", line=line)
            job = _integer(where, line, "job_id", row[0], MAX_PRIORITY)
            prio = _integer(where, line, "priority", row[1], MAX_PRIORITY)
            if job in table:
                first = table[job][1]
                raise WorkloadError(
                    where,
                    f"job {job} is given twice (first at line {first})",
                    line=line,
                    field="job_id",
                    value=row[0].strip()[:200],
                )
            table[job] = (prio, line)
    except csv.Error as exc:
        raise WorkloadError(where, f"not a CSV table: {exc}", line=reader.line_num) from None
    return table


def _integer(where: str, line: int, field: str, text: str, bound: int) -> int:
    """``text`` as an int of at most ``bound`` in magnitude, else WorkloadError."""
    value = text.strip()
    allowed = f"an integer from {-bound:,} to {bound:,}"
    # ASCII digits only: int() would also take "1_000" and other scripts' digits
    number = int(value) if len(value) <= 40 and _INTEGER.fullmatch(value) else None
    if number is None or abs(number) > bound:
        raise WorkloadError(where, allowed, line=line, field=field, value=value[:200])
    return number


# -- the pre-registered scenario ---------------------------------------------------------------


def _loguniform_mean(low: float, high: float) -> float:
    return (high - low) / math.log(high / low)


def _mean_procs(cap: int) -> float:
    return sum(w * min(2**k, cap) for k, w in enumerate(SIZE_WEIGHTS))


def offered_load(workload: TdcsWorkload, platform: Platform, span: float) -> float:
    """Work x processors brought per second over ``span`` s, over the platform's capacity."""
    return workload.grid.total_work / (platform.capacity * span)


def generate_tdcs(
    platform: Platform,
    *,
    hours: float = 72.0,
    load: float = 0.85,
    seed: int = 1,
    max_jobs: int = MAX_JOBS,
) -> TdcsWorkload:
    """The scenario's streams (module docstring) over ``hours`` of arrivals at ``load``
    (shares scaled by load / 0.85).

    At most ``max_jobs`` jobs (`MAX_JOBS` unless raised): hours and load that would draw
    more are refused before anything is drawn (ConfigError naming hours). The stream may be
    empty (a very short span): `run_tdcs` refuses to run it.
    """
    hours = check_number(
        "tdcs generator hours",
        hours,
        low=0,
        high=MAX_TIME / 3600.0,
        open_low=True,
        allowed=f"a number of hours in (0, {MAX_TIME / 3600.0:.4g}]",
    )
    load = check_number("tdcs generator load", load, low=0, open_low=True, allowed="a load > 0")
    check_seed("tdcs generator seed", seed)
    limit = check_int(
        "tdcs generator max_jobs", max_jobs, low=1, allowed="an integer >= 1 (most jobs drawn)"
    )
    span = hours * 3600.0
    scale = load / sum(s[3] for s in STREAMS)
    sites = platform.sites
    nodes = np.array([s.nodes for s in sites], dtype=np.float64)
    site_cap = np.array(
        [sum(p * c for q in s.queues for p, c in q.groups) for s in sites], dtype=np.float64
    )
    first = platform.first_pools()
    first_nodes = [platform.queues()[p].nodes for p in first]
    widest = max(q.nodes for q in platform.queues())
    capacity = platform.capacity
    # every stream's rate first (expected jobs), then its count, then its jobs: the draws of
    # each stream's generator are those of drawing each stream in turn
    plans: list[tuple[float, int, int, int, tuple[float, float], float]] = []
    for _name, prio, is_global, share, ckpt in STREAMS:
        runs = BACKGROUND_RUN_RANGE if prio == BACKGROUND else RUN_RANGE
        targets = [(-1, widest, 1.0)] if is_global else [
            (i, first_nodes[i], site_cap[i] / site_cap.sum()) for i in range(len(sites))
        ]  # fmt: skip
        for site, cap, fraction in targets:
            mean_work = _loguniform_mean(*runs) * _mean_procs(cap)
            rate = share * scale * fraction * capacity / mean_work
            plans.append((rate * span, prio, site, cap, runs, ckpt))
    expected = math.fsum(p[0] for p in plans)
    if not expected <= limit:
        raise ConfigError(
            "tdcs generator hours",
            hours,
            _too_many(limit, expected, hours, load),
        )
    children = np.random.SeedSequence(seed).spawn(len(STREAMS) * (1 + len(sites)))
    rngs = [np.random.default_rng(children[k]) for k in range(len(plans))]
    counts = [int(rng.poisson(p[0])) for rng, p in zip(rngs, plans)]
    if sum(counts) > limit:
        raise ConfigError("tdcs generator hours", hours, _too_many(limit, sum(counts), hours, load))
    parts = [
        _draw(rng, n, span, prio, site, cap, runs, ckpt, nodes, first)
        for rng, n, (_, prio, site, cap, runs, ckpt) in zip(rngs, counts, plans)
    ]
    cols = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    order = np.argsort(cols["submit_at"], kind="stable")
    cols = {key: v[order] for key, v in cols.items()}
    n = len(order)
    grid = GridWorkload(
        submit_at=cols["submit_at"],
        work=cols["work"],
        procs=cols["procs"],
        org=cols["priority"],
        stream=cols["stream"],
        job_id=np.arange(1, n + 1),
        source=f"tdcs:hours={hours:g},load={load:g},seed={seed}",
        organisations=LEVELS,
    )
    return TdcsWorkload(
        grid=grid,
        requested=cols["requested"],
        priority=cols["priority"],
        origin=cols["origin"],
        input_size=cols["input_size"],
        checkpointable=cols["checkpointable"],
    )


def _too_many(limit: int, jobs: float, hours: float, load: float) -> str:
    """What the job ceiling allows, and how to raise it."""
    return (
        f"fewer hours: {hours:g} h at load {load:g} draw about {jobs:,.0f} jobs, over the "
        f"ceiling of {limit:,} (raise it deliberately: max_jobs=N, or --max-jobs N of tdcs run)"
    )


def _draw(
    rng: np.random.Generator,
    n: int,
    span: float,
    prio: int,
    site: int,
    cap: int,
    runs: tuple[float, float],
    ckpt: float,
    nodes: np.ndarray,
    first: list[int],
) -> dict[str, np.ndarray]:
    """``n`` jobs of one stream: uniform arrivals over ``span`` (a Poisson process given
    its count), sizes, run and requested times, inputs, origins."""
    submit = np.sort(rng.uniform(0.0, span, n))
    k = rng.choice(len(SIZE_WEIGHTS), size=n, p=np.asarray(SIZE_WEIGHTS) / sum(SIZE_WEIGHTS))
    procs = np.minimum(2**k, cap).astype(np.int64)
    work = np.exp(rng.uniform(math.log(runs[0]), math.log(runs[1]), n))
    generous = rng.random(n) < GENEROUS
    plus = rng.uniform(3600.0, 8 * 3600.0, n)
    tight = work * rng.uniform(1.05, 1.5, n)
    requested = np.where(
        generous, np.ceil((work + plus) / 3600.0) * 3600.0, np.ceil(tight / 900.0) * 900.0
    )
    size = np.exp(rng.uniform(math.log(INPUT_RANGE[0]), math.log(INPUT_RANGE[1]), n))
    if site < 0:
        origin = rng.choice(len(nodes), size=n, p=nodes / nodes.sum()).astype(np.int64)
        stream = np.full(n, -1, dtype=np.int64)
    else:
        origin = np.full(n, site, dtype=np.int64)
        stream = np.full(n, first[site], dtype=np.int64)
    return {
        "submit_at": submit,
        "work": work,
        "procs": procs,
        "requested": requested,
        "priority": np.full(n, prio, dtype=np.int64),
        "origin": origin,
        "stream": stream,
        "input_size": size,
        "checkpointable": (rng.random(n) < ckpt).astype(np.int64),
    }
