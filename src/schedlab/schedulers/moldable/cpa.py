"""CPA, Critical Path and Area (Radulescu & van Gemund, ICPP 2001): the clairvoyant reference of
Lanore and Klein (ComPAS 2013, sections 3 and 5.1; SPEC 7), planned offline on the realised DAG
of moldable tasks and replayed through the engine, so that the run's checks apply to it.

**Allocation phase.** Every moldable task starts on one processor; a rigid task keeps its own
size and never grows. T_CP is the length of the critical path (the longest path from a root
to a leaf: task times at their current allocation plus the think times on the edges), T_A the
average area (1/P) x sum of time x processors. While T_CP > T_A, the task of the critical
path, among those below P processors, with the largest gain

    g(q) = t(q) / q - t(q + 1) / (q + 1)

gets one more processor (ties: the lowest index), and both are brought up to date. The loop
also stops when no task of the critical path can grow. Several critical paths of the same
length: the one of the lowest root and, below a task with several children, of the lowest
child.

Why this gain: it is the published CPA criterion (the critical task that benefits most from
one more processor, measured as the decrease of its time per processor, as CPA's paper and
later descriptions of it, e.g. HCPA, state it), and Lanore and Klein name CPA without changes.
Under Amdahl's law it is about w ((1 - pi) / q^2 + 2 pi / q^3), where the plain decrease
t(q) - t(q + 1) is about w pi / q^2: tasks that already have many processors are penalised
harder, so processors are spread along the path instead of piled on its longest task, whose
returns diminish. A task's gain depends only on its own allocation, so gains are cached.

**Scheduling phase.** List scheduling by decreasing bottom level (the longest path from a task
to a leaf, its own time included, with the allocated times; ties: the shallower task, then the
lowest index, so a parent always comes before its children even with zero times). Each task,
in that order, takes the processors that become free first and starts when the last of them
is free, no earlier than its release (a root's ``release_at``, a dependant's parent end plus
think time): the classic non-insertion list schedule of CPA, never going back into an earlier
hole (the default, `CpaParams`). ``insertion=True`` places it instead at the earliest time at
which its processors are free for its whole time among the tasks already placed (the shared
availability profile `schedlab.platform.Profile`, ``earliest_start`` then ``reserve``).
Release times of roots are not part of T_CP (SPEC 7's instances release every root at 0).

**Times.** A task's time on q processors is the engine's: work x time_factor(q) (power 1), its
work capped by its requested work (the engine kills a job there). So the replay gives every
task exactly its planned start and end, to the bit.

**Expected weakness.** Lanore and Klein (5.5.1) find CPA poor on HLW-like DAGs (scenario a,
n/N = 2, pi = 0.99) and explains it: mixed parallelism is a more general problem than
independent chains, and CPA was built and tested for DAGs with many more dependencies. Its
allocation looks at one critical path against the average area: with n/N >= 1, T_A is near or
above T_CP from the start and tasks stay on one processor; with n/N < 1 it grows the tasks of
one chain at a time and leaves the processors that area reserves to the list schedule. A CPA
that loses to FS on such DAGs is expected, not a bug. How much it loses depends on the list
schedule: the non-insertion variant leaves holes that the insertion one fills.

**Complexity** (n tasks, P processors, I allocation iterations, I <= (P - 1) x moldable tasks).
Building: O(n log n) (the list order). Allocation: each tree of the forest keeps its length in
a heap of trees (max first); only the top tree changes per iteration. A *chain* (no task with
two children, as in HLW) is its own critical path: it keeps a heap of its growable tasks'
gains, so an iteration costs O(log trees + log chain length) and T_A, the chain's length and
the grown task's gain are updated incrementally (running sums are recomputed from scratch
only when a decision is within 1e-9 of a tie, so decisions equal a recomputing loop's). Any
other tree keeps the bottom levels of
its tasks; an iteration walks its critical path from the root and updates the bottom levels
of the grown task's ancestors: O(h x d) (h its height, d the most children of a task).
Scheduling: one earliest_start and one reserve per task on a profile of at most 2n
breakpoints: O(n x B) in the worst case, far less in practice (the scan stops at the first
fit; the profile is the C type when compiled); the non-insertion schedule keeps the free
times as runs (time, processors), at most one per task: O(n) memory whatever P. Measured:
benchmarks/bench_cpa.py. Since I grows with P, a plan is refused beyond
``max_iterations`` (`CpaParams`, 1,000,000 by default, a few seconds): a machine of 2^31
nodes fails in bounded time instead of running for hours.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush, heapreplace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.durations import Rigid, SpeedupModel
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError, PolicyError
from schedlab.platform import Profile
from schedlab.schedulers.registry import register_policy
from schedlab.validators import check_int

if TYPE_CHECKING:  # the kernel's jobs, handed to `prepare` (a cluster run never loads them)
    from schedlab.engine.jobs import JobSpecs

__all__ = [
    "MAX_ITERATIONS",
    "CpaAllocation",
    "CpaInstance",
    "CpaParams",
    "CpaPlan",
    "CriticalPathAndArea",
    "allocate",
    "average_area_time",
    "bottom_levels",
    "critical_path_time",
    "list_schedule",
    "plan_cpa",
]

_NAN = float("nan")
# Allocation iterations a plan may take by default (`CpaParams.max_iterations`): a few
# seconds; the paper's instances need well under 100,000.
MAX_ITERATIONS = 1_000_000


# -- the instance -------------------------------------------------------------------------
def _plain(values: Sequence[float] | np.ndarray) -> list[Any]:
    """A column of `JobSpecs` (a list or a numpy array) as a list of Python numbers."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


@dataclass(frozen=True, eq=False)
class CpaInstance:
    """A forest of tasks as CPA sees it, by global id (parallel lists).

    ``work``: seconds on the reference allocation (one processor for a moldable task, its
    size for a rigid one), already capped by the requested work; ``models``: speed-up model
    per task (`engine.durations`; a `Rigid` model means not moldable); ``size``: the rigid
    size (ignored for moldable tasks); ``parent``: global id or -1; ``think``: seconds from
    the parent's end to the release (>= 0); ``release_at``: a root's release (s).
    Derived on construction: ``children``, ``roots`` and a topological ``order`` with each
    task's ``depth``. A parent out of range or a cycle is a ConfigError.
    """

    work: list[float]
    models: list[SpeedupModel]
    size: list[int]
    parent: list[int]
    think: list[float]
    release_at: list[float]

    def __post_init__(self) -> None:
        n = len(self.work)
        for name in ("models", "size", "parent", "think", "release_at"):
            if len(getattr(self, name)) != n:
                raise ConfigError(f"cpa {name}", f"{len(getattr(self, name))} values", f"{n}")
        children: list[list[int]] = [[] for _ in range(n)]
        roots = []
        for j, p in enumerate(self.parent):
            if p < 0:
                roots.append(j)
            elif p >= n or p == j:
                raise ConfigError(f"cpa parent of task {j}", p, f"-1 or a task in [0, {n})")
            else:
                children[p].append(j)  # in index order: j grows
        order: list[int] = list(roots)  # breadth first: parents before children
        depth = [0] * n
        for j in order:  # the list grows while it is walked
            for c in children[j]:
                depth[c] = depth[j] + 1
                order.append(c)
        if len(order) != n:
            seen = set(order)
            cycle = next(j for j in range(n) if j not in seen)
            raise ConfigError(
                f"cpa parent of task {cycle}",
                self.parent[cycle],
                "a forest: following parents from any task must reach a root",
            )
        object.__setattr__(self, "children", children)
        object.__setattr__(self, "roots", roots)
        object.__setattr__(self, "order", order)
        object.__setattr__(self, "depth", depth)
        moldable = [not isinstance(m, Rigid) for m in self.models]
        object.__setattr__(self, "moldable", moldable)

    # derived in __post_init__
    children: list[list[int]] = field(init=False, repr=False)
    roots: list[int] = field(init=False, repr=False)
    order: list[int] = field(init=False, repr=False)
    depth: list[int] = field(init=False, repr=False)
    moldable: list[bool] = field(init=False, repr=False)

    def __len__(self) -> int:
        return len(self.work)

    @classmethod
    def from_specs(cls, specs: JobSpecs) -> CpaInstance:
        """The realised instance of a run, as `simulate` hands it to ``prepare``.

        The work of a task is capped by its requested work: the engine ends (kills) a job
        there when kill_on_overrun is on, and `simulate` raises requested to run otherwise.
        A think time below 0 counts as 0, as in the engine.
        """
        work, requested = _plain(specs.work), _plain(specs.requested_work)
        return cls(
            work=[w if w <= r else r for w, r in zip(work, requested)],
            models=list(specs.speedup),
            size=_plain(specs.procs),
            parent=_plain(specs.parent),
            think=[t if t > 0 else 0.0 for t in _plain(specs.think)],
            release_at=_plain(specs.release_at),
        )

    def time(self, j: int, q: int) -> float:
        """Seconds task j runs on q processors: the engine's formula at power 1."""
        return self.work[j] * self.models[j].time_factor(q)

    def initial_procs(self) -> list[int]:
        """One processor for a moldable task, its own size for a rigid one."""
        return [1 if m else s for m, s in zip(self.moldable, self.size)]


def bottom_levels(inst: CpaInstance, procs: Sequence[int]) -> list[float]:
    """Longest path from each task to a leaf, its own time included (s)."""
    times = [inst.time(j, q) for j, q in enumerate(procs)]
    bl = [0.0] * len(inst)
    think = inst.think
    children = inst.children
    for j in reversed(inst.order):
        tail = 0.0
        for c in children[j]:
            v = think[c] + bl[c]
            if v > tail:
                tail = v
        bl[j] = times[j] + tail
    return bl


def critical_path_time(inst: CpaInstance, procs: Sequence[int]) -> float:
    """T_CP: the longest root-to-leaf path, think times included (s); 0 with no task."""
    bl = bottom_levels(inst, procs)
    return max((bl[r] for r in inst.roots), default=0.0)


def average_area_time(inst: CpaInstance, procs: Sequence[int], total: int) -> float:
    """T_A: (1 / total) x sum of time x processors (s)."""
    return math.fsum(inst.time(j, q) * q for j, q in enumerate(procs)) / total


# -- allocation phase ---------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CpaAllocation:
    """Outcome of the allocation phase: processors per task, the iterations it took, and
    T_CP and T_A at the end (recomputed from scratch, not the loop's running values)."""

    procs: list[int]
    iterations: int
    critical_path_time: float
    average_area_time: float


def _gain(inst: CpaInstance, j: int, q: int) -> float:
    """t(q)/q - t(q+1)/(q+1) of task j (see the module docstring)."""
    return inst.time(j, q) / q - inst.time(j, q + 1) / (q + 1)


# Running sums drift by a few ulps per update; a decision closer than this (relative) to a
# tie is taken on values recomputed from scratch, so that it is the same as a fresh loop's.
_NEAR = 1e-9


def allocate(
    inst: CpaInstance,
    total: int,
    max_iterations: int | None = None,
    budget: int | None = None,
) -> CpaAllocation:
    """CPA's allocation phase on ``total`` processors (module docstring); ``max_iterations``
    stops it early (for tests: one iteration fewer must leave T_CP > T_A); ``budget``
    refuses (ConfigError) an allocation that needs more iterations than that, so that a
    huge processor count fails in bounded time instead of running for hours.

    Running values (a chain's length, the area) are updated by differences; they are
    recomputed from scratch (``_NEAR``) whenever the stop test or the choice of the critical
    tree is that close to a tie, so every decision equals the one a loop that recomputes
    everything would take (tests/unit/test_cpa.py compares them).
    """
    n = len(inst)
    alloc = inst.initial_procs()
    t = [inst.time(j, q) for j, q in enumerate(alloc)]
    moldable = inst.moldable
    parent = inst.parent
    children = inst.children
    think = inst.think
    roots = inst.roots
    bl = bottom_levels(inst, alloc)

    def exact_area() -> float:
        return math.fsum(t[j] * alloc[j] for j in range(n))

    area = exact_area()
    area_exact = True
    # per tree (a root and its descendants): its length (running for a chain, else its
    # root's bottom level), its members for a chain, else None
    chains: list[list[int] | None] = []
    gains: list[list[tuple[float, int]]] = []  # a chain's growable tasks, best gain on top
    length: list[float] = []
    dirty = [False] * len(roots)  # a chain's running length may have drifted
    n_dirty = 0
    for r in roots:
        members = [r]
        is_chain = True
        for j in members:  # breadth first over the tree
            kids = children[j]
            if len(kids) > 1:
                is_chain = False
            members.extend(kids)
        chain_gains = []
        if is_chain:
            growable = [j for j in members if moldable[j] and alloc[j] < total]
            chain_gains = [(-_gain(inst, j, alloc[j]), j) for j in growable]
            heapify(chain_gains)
        chains.append(members if is_chain else None)
        gains.append(chain_gains)
        length.append(bl[r])
    trees = [(-length[tid], tid) for tid in range(len(roots))]  # longest first, then root
    heapify(trees)
    iterations = 0
    limit = max_iterations if max_iterations is not None else -1
    while trees and iterations != limit:
        while True:  # settle near-ties on exact values (rare)
            tcp = -trees[0][0]
            near = _NEAR * tcp
            stop_near = abs(tcp - area / total) <= near
            if stop_near and not area_exact:
                area = exact_area()
                area_exact = True
            if not n_dirty:
                break
            runner_up = max((-trees[k][0] for k in (1, 2) if k < len(trees)), default=-math.inf)
            if not stop_near and tcp - runner_up > near:
                break
            group = []
            while trees and -trees[0][0] >= tcp - near:
                group.append(heappop(trees))
            fixed = False
            for k, (_, tid) in enumerate(group):
                drifted = chains[tid]
                if dirty[tid] and drifted is not None:
                    length[tid] = _chain_length(drifted, t, think)
                    dirty[tid] = False
                    n_dirty -= 1
                    group[k] = (-length[tid], tid)
                    fixed = True
            for entry in group:
                heappush(trees, entry)
            if not fixed:
                break
        tid = trees[0][1]
        if tcp <= area / total:
            break
        chain = chains[tid]
        chain_gains = gains[tid]
        if chain is not None:  # a chain is its own critical path: best gain on top
            if not chain_gains:
                break
            j = chain_gains[0][1]
        else:
            j = _best_on_critical_path(inst, roots[tid], alloc, bl, total)
            if j < 0:
                break
        if iterations == budget:
            raise _over_budget(iterations, total)
        q = alloc[j]
        q1 = q + 1
        old = t[j]
        new = inst.time(j, q1)
        area += new * q1 - old * q
        area_exact = False
        alloc[j] = q1
        t[j] = new
        if chain is not None:
            if q1 < total:
                heapreplace(chain_gains, (-_gain(inst, j, q1), j))
            else:
                heappop(chain_gains)
            length[tid] += new - old
            if not dirty[tid]:
                dirty[tid] = True
                n_dirty += 1
        else:
            a = j
            while a >= 0:  # ancestors' bottom levels, until one does not change
                tail = 0.0
                for c in children[a]:
                    v = think[c] + bl[c]
                    if v > tail:
                        tail = v
                value = t[a] + tail
                if value == bl[a]:
                    break
                bl[a] = value
                a = parent[a]
            length[tid] = bl[roots[tid]]
        heapreplace(trees, (-length[tid], tid))
        iterations += 1
    return CpaAllocation(
        procs=alloc,
        iterations=iterations,
        critical_path_time=critical_path_time(inst, alloc),
        average_area_time=average_area_time(inst, alloc, total) if n else 0.0,
    )


def _over_budget(budget: int, total: int) -> ConfigError:
    return ConfigError(
        "cpa max_iterations",
        budget,
        f"more allocation iterations: CPA on {total:,} processors needs more than {budget:,} "
        "(one processor added per iteration, up to processors x tasks); raise it "
        "deliberately with --param max_iterations=N, or plan for fewer processors",
    )


def _chain_length(members: list[int], t: list[float], think: list[float]) -> float:
    """Length of a chain (members root first), summed as `bottom_levels` sums it."""
    acc = 0.0
    below = -1
    for j in reversed(members):
        if below < 0:
            acc = t[j]
        else:
            v = think[below] + acc
            acc = t[j] + (v if v > 0.0 else 0.0)
        below = j
    return acc


def _best_on_critical_path(
    inst: CpaInstance, root: int, alloc: list[int], bl: list[float], total: int
) -> int:
    """Walk the critical path of a tree down from ``root`` (the child with the longest think
    + bottom level, ties: the lowest index) and return its growable task of largest gain
    (ties: the lowest index); -1 if none can grow."""
    best = -1
    best_gain = -math.inf
    moldable = inst.moldable
    children = inst.children
    think = inst.think
    j = root
    while j >= 0:
        q = alloc[j]
        if moldable[j] and q < total:
            g = _gain(inst, j, q)
            if g > best_gain or (g == best_gain and j < best):
                best, best_gain = j, g
        nxt = -1
        longest = -math.inf
        for c in children[j]:
            v = think[c] + bl[c]
            if v > longest:
                nxt, longest = c, v
        j = nxt
    return best


# -- scheduling phase ---------------------------------------------------------------------
def list_schedule(
    inst: CpaInstance, procs: Sequence[int], total: int, insertion: bool = True
) -> tuple[list[float], list[float], list[int]]:
    """CPA's scheduling phase: (start, end, list order) per task (module docstring).

    ``insertion`` True: each task goes to the earliest time its processors are free for its
    whole time among the tasks already placed, holes before them included (the profile).
    False: classic non-insertion list scheduling: the task takes the ``q`` processors that
    become free first (each processor's free time is the end of the last task placed on it)
    and starts when the last of them is free and the task is ready; no task goes back into
    a hole left before a processor's last task.
    """
    n = len(inst)
    bl = bottom_levels(inst, procs)
    depth = inst.depth
    order = sorted(range(n), key=lambda j: (-bl[j], depth[j], j))
    start = [_NAN] * n
    end = [_NAN] * n
    if not n:
        return start, end, order
    parent = inst.parent
    think = inst.think
    release = inst.release_at
    origin = min(release[r] for r in inst.roots)
    profile = Profile(total, origin=origin) if insertion else None
    # non-insertion: the processors' free times, sorted, as runs (time, how many): at most
    # one run per task placed, whatever the processor count
    free_time = [origin]
    free_count = [total]
    for j in order:
        p = parent[j]
        ready = release[j] if p < 0 else end[p] + think[j]
        q = procs[j]
        duration = inst.time(j, q)
        if profile is not None:
            s = profile.earliest_start(q, duration, ready)
            e = s + duration
            if e > s:
                profile.reserve(s, e, q)
        else:
            s = _take_first(free_time, free_count, q)
            if s < ready:
                s = ready
            e = s + duration
            k = bisect_right(free_time, e)
            if k and free_time[k - 1] == e:
                free_count[k - 1] += q
            else:
                free_time.insert(k, e)
                free_count.insert(k, q)
        start[j] = s
        end[j] = e
    return start, end, order


def _take_first(times: list[float], counts: list[int], q: int) -> float:
    """Remove the ``q`` processors that become free first from the runs (``times``
    ascending, ``counts`` processors each) and return when the last of them is free."""
    k = 0
    left = q
    while counts[k] < left:
        left -= counts[k]
        k += 1
    when = times[k]
    if counts[k] == left:
        k += 1
    else:
        counts[k] -= left
    del times[:k]
    del counts[:k]
    return when


@dataclass(frozen=True, eq=False)
class CpaPlan:
    """A CPA plan, per global job: ``start_at``/``end_at`` (s), ``procs``; ``order`` the list
    order (global ids by decreasing bottom level); the allocation phase's outcome."""

    start_at: np.ndarray
    end_at: np.ndarray
    procs: np.ndarray
    order: np.ndarray
    allocation: CpaAllocation
    total_procs: int

    @property
    def iterations(self) -> int:
        return self.allocation.iterations

    @property
    def makespan(self) -> float:
        """Last planned end (s); NaN with no task."""
        return float(self.end_at.max()) if len(self.end_at) else _NAN


def plan_cpa(
    specs: JobSpecs | CpaInstance,
    total: int,
    insertion: bool = True,
    max_iterations: int | None = None,
) -> CpaPlan:
    """Plan ``specs`` (the realised instance) with CPA on ``total`` processors
    (``insertion``: see `list_schedule`); ``max_iterations`` bounds the allocation phase
    (ConfigError beyond it; None: no bound)."""
    if not (isinstance(total, int | np.integer) and total >= 1):
        raise ConfigError("cpa processors", total, "an integer >= 1")
    total = int(total)
    inst = specs if isinstance(specs, CpaInstance) else CpaInstance.from_specs(specs)
    for j in range(len(inst)):
        if not inst.moldable[j] and not 1 <= inst.size[j] <= total:
            raise ConfigError(f"cpa size of rigid task {j}", inst.size[j], f"1 to {total}")
    alloc = allocate(inst, total, budget=max_iterations)
    start, end, order = list_schedule(inst, alloc.procs, total, insertion)
    return CpaPlan(
        start_at=np.asarray(start, dtype=np.float64),
        end_at=np.asarray(end, dtype=np.float64),
        procs=np.asarray(alloc.procs, dtype=np.int64),
        order=np.asarray(order, dtype=np.int64),
        allocation=alloc,
        total_procs=total,
    )


# -- the policy ---------------------------------------------------------------------------
@dataclass(frozen=True)
class CpaParams:
    """``insertion``: False (default) is CPA's own scheduling phase, classic list scheduling
    on the processors that become free first, never going back into an earlier hole
    (`list_schedule`): it is the CPA Lanore and Klein compare with, and it is poor in scenario a
    as the paper reports. True places each task in the earliest hole of the availability
    profile that fits it, a stronger clairvoyant reference (docs/reproductions.md).
    ``max_iterations``: the most allocation iterations (one processor added each) the plan
    may take before it is refused; they grow with processors x tasks, so a huge machine
    fails in seconds instead of running for hours. Raise it deliberately for such runs."""

    insertion: bool = False
    # added later: at its default it is left out of sweep run ids, so older ones hold
    max_iterations: int = field(default=MAX_ITERATIONS, metadata={"omit_default": True})

    def __post_init__(self) -> None:
        check_int("cpa max_iterations", self.max_iterations, low=1)


@register_policy
class CriticalPathAndArea:
    """CPA (Lanore and Klein), clairvoyant: a plan of the realised instance, replayed.

    ``prepare`` plans the realised instance; the run replays the plan, starting each task at
    its planned time on its planned processors (SPEC 7)."""

    name: ClassVar[str] = "cpa"
    # written for moldable jobs (`schedlab run` notes when a workload has none)
    moldable: ClassVar[bool] = True
    Params: ClassVar[type] = CpaParams

    def __init__(self, params: CpaParams | None = None) -> None:
        self.params = params or CpaParams()
        self.plan: CpaPlan | None = None

    def prepare(self, specs: JobSpecs, procs: int) -> None:
        """Plan the whole run before it starts (`simulate` calls this)."""
        self.plan = plan_cpa(specs, procs, self.params.insertion, self.params.max_iterations)

    def setup(self, view: ClusterView) -> None:
        plan = self.plan
        if plan is None:
            raise PolicyError(
                "policy 'cpa' is clairvoyant: it needs prepare(specs, procs) on the realised "
                "instance before the run (schedlab.simulate calls it)"
            )
        if view.total_procs != plan.total_procs:
            raise PolicyError(
                f"policy 'cpa': planned for {plan.total_procs} processors, the pool has "
                f"{view.total_procs}"
            )
        self._view = view
        self._start = plan.start_at.tolist()
        self._procs = plan.procs.tolist()
        rank = np.empty(len(plan.order), dtype=np.int64)
        rank[plan.order] = np.arange(len(plan.order))
        # replay order: planned start, then list order
        self._due = sorted(range(len(self._start)), key=lambda g: (self._start[g], rank[g]))
        self._next = 0
        self._local = [-1] * len(self._start)  # global id -> local number, once submitted
        self._wake_at = _NAN

    def on_submit(self, job: int) -> None:
        gids = self._view.global_id
        g = gids[job] if gids is not None else job
        if not 0 <= g < len(self._local):
            raise PolicyError(f"policy 'cpa': job {g} was not in the planned instance")
        self._local[g] = job

    def on_finish(self, job: int) -> None:
        pass

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        """Start every task planned now; ask to be woken at the next planned start."""
        due = self._due
        start = self._start
        out: list[Decision] = []
        free = view.free_procs
        i = self._next
        while i < len(due) and start[due[i]] <= now:
            g = due[i]
            q = self._procs[g]
            if start[g] < now:
                raise PolicyError(
                    f"policy 'cpa': job {g} planned at t={start[g]} was not started then "
                    f"(t={now}; rule: every task starts exactly at its planned time)"
                )
            local = self._local[g]
            if local < 0:
                raise PolicyError(
                    f"policy 'cpa': job {g} planned at t={start[g]} is not released at t={now} "
                    "(rule: a task is planned no earlier than its release)"
                )
            if q > free:
                raise PolicyError(
                    f"policy 'cpa': job {g} planned at t={start[g]} on {q} processors finds "
                    f"only {free} free (rule: the plan never uses more processors than free)"
                )
            free -= q
            out.append(Start(local, q))
            i += 1
        self._next = i
        if i < len(due):
            t = start[due[i]]
            if t != self._wake_at:
                self._wake_at = t
                out.append(WakeAt(t))
        return out

    def job_columns(self) -> dict[str, np.ndarray]:
        """Per-job columns by local number: ``planned_start_at`` (s) and ``planned_procs``."""
        if self.plan is None or not hasattr(self, "_view"):
            return {}
        view = self._view
        n = view.jobs
        gids = np.asarray(view.global_id if view.global_id is not None else range(n), np.int64)
        return {
            "planned_start_at": self.plan.start_at[gids[:n]],
            "planned_procs": self.plan.procs[gids[:n]],
        }
