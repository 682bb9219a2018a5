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
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedlab.errors import ConfigError, WorkloadError
from schedlab.platform.description import Platform
from schedlab.validators import check_number, check_seed
from schedlab.workload.grid import GridWorkload, _partitions, check_mode
from schedlab.workload.job import Workload

__all__ = [
    "HIGH",
    "LOW",
    "BACKGROUND",
    "LEVELS",
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
    ) -> TdcsWorkload:
        """A trace as the paper's streams.

        ``priority_from``: "queue" (SWF field 15, the queue number, is the priority; -1 is
        0), "none" (all 0) or a CSV file of ``job_id,priority`` rows (jobs not listed: 0).
        Jobs of the lowest priority present are checkpointable (background). ``origin``:
        "partition" (field 16 ids in increasing order -> sites in file order) or
        "round_robin" (sites in turn). ``mode`` "global" sends every job to the
        dispatchers, "local" keeps it at its origin's first queue. ``input_size`` in bytes.
        """
        mode = check_mode(mode)
        n = len(workload)
        prio = _priorities(workload, priority_from)
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


def _priorities(workload: Workload, rule: str) -> np.ndarray:
    n = len(workload)
    if rule == "queue":
        return np.maximum(workload.queue_id, 0).astype(np.int64)
    if rule == "none":
        return np.zeros(n, dtype=np.int64)
    path = Path(rule)
    if not path.is_file():
        raise ConfigError("priority_from", rule, "queue, none or a CSV file job_id,priority")
    table: dict[int, int] = {}
    with path.open(newline="") as f:
        for line, row in enumerate(csv.reader(f), 1):
            if not row or row[0].strip().lower() in ("job_id", "") or row[0].startswith("#"):
                continue
            try:
                table[int(row[0])] = int(row[1])
            except (ValueError, IndexError):
                raise WorkloadError(str(path), "a row must be job_id,priority", line=line) from None
    return np.array([table.get(int(j), 0) for j in workload.job_id.tolist()], dtype=np.int64)


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
) -> TdcsWorkload:
    """The scenario's streams (module docstring) over ``hours`` of arrivals at ``load``
    (shares scaled by load / 0.85)."""
    hours = check_number(
        "tdcs generator hours", hours, low=0, open_low=True, allowed="a number of hours > 0"
    )
    load = check_number("tdcs generator load", load, low=0, open_low=True, allowed="a load > 0")
    check_seed("tdcs generator seed", seed)
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
    parts: list[dict[str, np.ndarray]] = []
    children = np.random.SeedSequence(seed).spawn(len(STREAMS) * (1 + len(sites)))
    k = 0
    for _name, prio, is_global, share, ckpt in STREAMS:
        runs = BACKGROUND_RUN_RANGE if prio == BACKGROUND else RUN_RANGE
        targets = [(-1, widest, 1.0)] if is_global else [
            (i, first_nodes[i], site_cap[i] / site_cap.sum()) for i in range(len(sites))
        ]  # fmt: skip
        for site, cap, fraction in targets:
            rng = np.random.default_rng(children[k])
            k += 1
            mean_work = _loguniform_mean(*runs) * _mean_procs(cap)
            rate = share * scale * fraction * capacity / mean_work
            n = int(rng.poisson(rate * span))
            parts.append(_draw(rng, n, span, prio, site, cap, runs, ckpt, nodes, first))
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
