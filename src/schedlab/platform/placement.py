"""Placement of jobs on nodes: what each node has free, and where a job goes (issue 24).

The node model (the shared data model of issue 24):

* A node has cores (int), memory (MiB, float, ``inf`` = unconstrained) and GPUs (int).
  ``--procs P`` and an SWF ``MaxProcs`` mean P nodes of ``(1, inf, 0)``: today's processor
  model, to which the node model reduces exactly (tests/reference_nodes.py).
* A `Request` is either a *node request*: ``nodes`` distinct nodes, each with
  ``cores_per_node`` cores, ``mem_per_node`` MiB and ``gpus_per_node`` GPUs free (and nothing
  running on it if ``exclusive``); or a *plain processor request* (``nodes`` None, what SWF
  and ``--procs`` give): ``cores_per_node`` cores **in total**, spread over any nodes, each
  node giving any number of its free cores, no memory and no GPUs.
* An *exclusive* job needs nodes with no job running and, while it runs, no other job may use
  them (LSF ``bsub -x``: "dispatched only to a host with no other jobs running, and LSF does
  not send any other jobs to the host until the job completes"). It holds every core and GPU
  of its nodes but only the memory it asked for, as Slurm's ``--exclusive`` does (sbatch(1)):
  per-resource utilization then counts the whole node as busy, which it is.

Rules (`place`), both *complete*: they return an allocation whenever one exists, so "does the
job fit" never depends on the rule, only "where":

* ``first_fit``: the lowest-index nodes that fit; a plain request drains nodes in index order.
* ``best_fit``: the nodes left with the fewest free cores after placement, ties by the memory
  then the GPUs left, then the lowest index (the key is ``(cores left, memory left, GPUs
  left, index)``; "left" is free minus requested, so an exclusive job, which holds the whole
  node, still goes to the smallest node that holds it). A plain request drains nodes in the
  order ``(free cores, free memory, free GPUs, index)``: the busiest nodes first, so that whole
  nodes stay free for node requests, which is what best fit is for.

Memory is kept in whole KiB (multiples of 1/1024 MiB): a request is rounded up to one, a
capacity down. Every sum and difference of such numbers below 2**43 MiB is exact in float64,
so the free memory of a node does not depend on the order jobs came and went, and "never above
capacity" is an exact test, not one within a tolerance. Slurm itself counts memory in MiB.

Speed: the free resources are numpy arrays, so `place` is a few vectorised passes over the
nodes (first fit takes the first candidates in index order; best fit sorts the candidates);
`NodeState.allocate` and `NodeState.release` touch only the allocated nodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_COUNT",
    "ANY_PARTITION",
    "MAX_MEMORY",
    "MAX_PARTITIONS",
    "NEVER_FITS_REASONS",
    "RULES",
    "Allocation",
    "NodeState",
    "Request",
    "allocation_problem",
    "fits_ever",
    "eligible_nodes",
    "fitting_nodes",
    "never_fits_reason",
    "place",
    "round_memory_down",
    "round_memory_up",
]

RULES = ("first_fit", "best_fit")

# Bounds that keep every count exact in int64 and every memory sum exact in float64
# (whole KiB below 2**43 MiB need at most 53 bits).
MAX_COUNT = 2**40  # cores, GPUs or nodes of one request or one node
MAX_MEMORY = float(2**40)  # MiB (1 EiB) of one request or one finite node

ANY_PARTITION = -1  # a request any node may take
MAX_PARTITIONS = 63  # partitions are bits of a node's int64 membership mask
_ALL_PARTITIONS = -1  # the mask of a node in every partition (every bit set)

_KIB = 1024.0  # KiB per MiB
# Allocations on at most this many nodes are checked and applied node by node in Python:
# for a few nodes that is several times faster than numpy's per-call overhead.
_SMALL = 8

# Why a job can never run, even on the empty cluster (`never_fits_reason`); the names follow
# the workload's skip reasons (``wider_than_machine`` is today's, kept for plain requests).
NEVER_FITS_REASONS: tuple[str, ...] = (
    "no_node_in_its_partition",  # the cluster's partitions hold no node for the job's
    "wider_than_machine",  # plain request: more cores than the whole cluster
    "more_nodes_than_machine",  # node request: more nodes than the cluster has
    "cores_per_node_above_every_node",
    "memory_per_node_above_every_node",
    "gpus_per_node_above_every_node",
    "too_few_nodes_hold_it",  # each resource fits some node, but fewer than `nodes` hold all
)


def round_memory_up(mib: float) -> float:
    """``mib`` rounded up to a whole KiB: what a request asks for (never less)."""
    return math.ceil(mib * _KIB) / _KIB


def round_memory_down(mib: float) -> float:
    """``mib`` rounded down to a whole KiB (``inf`` stays ``inf``): what a node offers."""
    if math.isinf(mib):
        return mib
    return math.floor(mib * _KIB) / _KIB


def _count(name: str, value: object, low: int) -> int:
    """``value`` as an int in ``[low, MAX_COUNT]`` (bools and fractions refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if not low <= int(value) <= MAX_COUNT:
        raise ValueError(f"{name} must be in [{low}, {MAX_COUNT}], got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Request:
    """What one job asks for (see the module docstring for the two kinds).

    ``nodes`` None makes a plain processor request of ``cores_per_node`` cores in total (use
    `Request.processors`); memory and GPUs must then be 0 and ``exclusive`` False, because a
    request spread over any nodes has no "per node" to attach them to.
    ``mem_per_node`` is rounded up to a whole KiB (module docstring). ``partition``: the
    number of the partition whose nodes alone may take the job (`NodeState` says which
    nodes are in which), or -1 for any node.
    """

    nodes: int | None
    cores_per_node: int
    mem_per_node: float = 0.0
    gpus_per_node: int = 0
    exclusive: bool = False
    partition: int = ANY_PARTITION

    def __post_init__(self) -> None:
        p = self.partition
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise ValueError(f"partition must be an integer, got {p!r}")
        if not ANY_PARTITION <= int(p) < MAX_PARTITIONS:
            raise ValueError(f"partition must be in [-1, {MAX_PARTITIONS - 1}], got {p!r}")
        object.__setattr__(self, "partition", int(p))
        if self.nodes is not None:
            object.__setattr__(self, "nodes", _count("nodes", self.nodes, 1))
        object.__setattr__(self, "cores_per_node", _count("cores_per_node", self.cores_per_node, 1))
        object.__setattr__(self, "gpus_per_node", _count("gpus_per_node", self.gpus_per_node, 0))
        mem = float(self.mem_per_node)
        if not 0.0 <= mem <= MAX_MEMORY:  # NaN and inf fail too
            raise ValueError(f"mem_per_node must be MiB in [0, {MAX_MEMORY:g}], got {mem!r}")
        object.__setattr__(self, "mem_per_node", round_memory_up(mem))
        if not isinstance(self.exclusive, (bool, np.bool_)):
            raise ValueError(f"exclusive must be a bool, got {self.exclusive!r}")
        object.__setattr__(self, "exclusive", bool(self.exclusive))
        if self.nodes is None and (
            self.mem_per_node != 0.0 or self.gpus_per_node != 0 or self.exclusive
        ):
            raise ValueError(
                "a plain processor request (nodes None) has no memory, GPUs or exclusive"
            )

    @classmethod
    def processors(cls, procs: int, partition: int = -1) -> Request:
        """A plain processor request: ``procs`` cores spread over any nodes (SWF, --procs)."""
        return cls(nodes=None, cores_per_node=procs, partition=partition)

    @property
    def total_cores(self) -> int:
        """Cores asked for in all (for an exclusive job, the minimum it holds)."""
        return self.cores_per_node * (1 if self.nodes is None else self.nodes)


@dataclass(frozen=True)
class Allocation:
    """Where a job runs: ``nodes`` (distinct, increasing) and what it holds on each, aligned:
    ``cores[k]``, ``memory[k]`` (MiB) and ``gpus[k]`` on node ``nodes[k]``. ``exclusive``
    allocations hold every core and GPU of their nodes and bar every other job from them."""

    nodes: tuple[int, ...]
    cores: tuple[int, ...]
    memory: tuple[float, ...]
    gpus: tuple[int, ...]
    exclusive: bool = False

    @property
    def total_cores(self) -> int:
        return sum(self.cores)


class NodeState:
    """Free cores, memory and GPUs of every node, and how many jobs run on each.

    Built from node capacities ``(cores, memory MiB, gpus)``, all free. ``running[i]`` counts
    the jobs holding node i (an exclusive job needs it to be 0); ``held_exclusive[i]`` says an
    exclusive job holds it (nobody else may join). `allocate` and `release` raise
    AssertionError rather than let a resource go below zero or above capacity: that would be a
    bug of the caller, and a silent one in every metric downstream.
    """

    __slots__ = (
        "cap_cores",
        "cap_gpus",
        "cap_memory",
        "free_cores",
        "free_gpus",
        "free_memory",
        "held_exclusive",
        "partitions",
        "running",
    )

    def __init__(
        self,
        capacities: Sequence[tuple[int, float, int]],
        partitions: Sequence[int] | None = None,
    ) -> None:
        if len(capacities) == 0:
            raise ValueError("a cluster needs at least one node")
        cores, memory, gpus = [], [], []
        for k, cap in enumerate(capacities):
            if len(cap) != 3:
                raise ValueError(f"node {k}: capacity must be (cores, memory MiB, gpus)")
            c, m, g = cap
            cores.append(_count(f"node {k} cores", c, 1))
            gpus.append(_count(f"node {k} gpus", g, 0))
            mem = float(m)
            if not (0.0 <= mem <= MAX_MEMORY or mem == math.inf):
                raise ValueError(f"node {k} memory must be MiB in [0, {MAX_MEMORY:g}] or inf")
            memory.append(round_memory_down(mem))
        self.cap_cores = np.array(cores, dtype=np.int64)
        self.cap_memory = np.array(memory, dtype=np.float64)
        self.cap_gpus = np.array(gpus, dtype=np.int64)
        self.free_cores = self.cap_cores.copy()
        self.free_memory = self.cap_memory.copy()
        self.free_gpus = self.cap_gpus.copy()
        self.running = np.zeros(len(cores), dtype=np.int64)
        self.held_exclusive = np.zeros(len(cores), dtype=bool)
        # each node's partitions as bits (bit p: partition p); -1 (every bit): in all of them
        if partitions is None:
            self.partitions = np.full(len(cores), _ALL_PARTITIONS, dtype=np.int64)
        else:
            if len(partitions) != len(cores):
                raise ValueError("one partition mask per node")
            self.partitions = np.array(partitions, dtype=np.int64)

    @classmethod
    def single_core(cls, procs: int) -> NodeState:
        """``procs`` nodes of one core, memory and GPUs unconstrained: the processor model."""
        return cls([(1, math.inf, 0)] * procs)

    def __len__(self) -> int:
        return len(self.cap_cores)

    def copy(self) -> NodeState:
        """An independent copy (what-if simulations of future releases work on copies)."""
        new = object.__new__(NodeState)
        for name in NodeState.__slots__:
            setattr(new, name, getattr(self, name).copy())
        return new

    def capacities(self) -> list[tuple[int, float, int]]:
        return [
            (int(c), float(m), int(g))
            for c, m, g in zip(self.cap_cores, self.cap_memory, self.cap_gpus)
        ]

    def can_allocate(self, alloc: Allocation) -> bool:
        """Whether this exact allocation (same nodes, same amounts) fits now."""
        if len(alloc.nodes) <= _SMALL:  # numpy calls cost more than a loop over a few nodes
            size = len(self.cap_cores)
            for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
                if not 0 <= i < size or self.held_exclusive[i]:
                    return False
                if alloc.exclusive and self.running[i] != 0:
                    return False
                if self.free_cores[i] < c or self.free_memory[i] < m or self.free_gpus[i] < g:
                    return False
            return len(alloc.nodes) > 0
        idx = np.asarray(alloc.nodes, dtype=np.int64)
        if idx.min() < 0 or idx.max() >= len(self):
            return False
        if np.any(self.held_exclusive[idx]):
            return False
        if alloc.exclusive and np.any(self.running[idx] != 0):
            return False
        return bool(
            np.all(self.free_cores[idx] >= np.asarray(alloc.cores, dtype=np.int64))
            and np.all(self.free_memory[idx] >= np.asarray(alloc.memory, dtype=np.float64))
            and np.all(self.free_gpus[idx] >= np.asarray(alloc.gpus, dtype=np.int64))
        )

    def allocate(self, alloc: Allocation) -> None:
        """Take ``alloc``'s resources (AssertionError if they are not all free)."""
        if not self.can_allocate(alloc):
            raise AssertionError(f"allocation does not fit the free resources: {alloc}")
        if len(alloc.nodes) <= _SMALL:
            for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
                self.free_cores[i] -= c
                self.free_memory[i] -= m
                self.free_gpus[i] -= g
                self.running[i] += 1
                if alloc.exclusive:
                    self.held_exclusive[i] = True
            return
        idx = np.asarray(alloc.nodes, dtype=np.int64)
        self.free_cores[idx] -= np.asarray(alloc.cores, dtype=np.int64)
        self.free_memory[idx] -= np.asarray(alloc.memory, dtype=np.float64)
        self.free_gpus[idx] -= np.asarray(alloc.gpus, dtype=np.int64)
        self.running[idx] += 1
        if alloc.exclusive:
            self.held_exclusive[idx] = True

    def release(self, alloc: Allocation) -> None:
        """Give ``alloc``'s resources back (AssertionError if that would exceed a capacity or
        release a node nobody holds)."""
        if len(alloc.nodes) <= _SMALL:
            for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
                if (
                    self.running[i] < 1
                    or self.free_cores[i] + c > self.cap_cores[i]
                    or self.free_memory[i] + m > self.cap_memory[i]
                    or self.free_gpus[i] + g > self.cap_gpus[i]
                    or (alloc.exclusive and not self.held_exclusive[i])
                ):
                    raise AssertionError(f"release above capacity or of a node not held: {alloc}")
            for i, c, m, g in zip(alloc.nodes, alloc.cores, alloc.memory, alloc.gpus):
                self.free_cores[i] += c
                self.free_memory[i] += m
                self.free_gpus[i] += g
                self.running[i] -= 1
                if alloc.exclusive:
                    self.held_exclusive[i] = False
            return
        idx = np.asarray(alloc.nodes, dtype=np.int64)
        cores = self.free_cores[idx] + np.asarray(alloc.cores, dtype=np.int64)
        memory = self.free_memory[idx] + np.asarray(alloc.memory, dtype=np.float64)
        gpus = self.free_gpus[idx] + np.asarray(alloc.gpus, dtype=np.int64)
        if (
            np.any(self.running[idx] < 1)
            or np.any(cores > self.cap_cores[idx])
            or np.any(memory > self.cap_memory[idx])
            or np.any(gpus > self.cap_gpus[idx])
            or (alloc.exclusive and not np.all(self.held_exclusive[idx]))
        ):
            raise AssertionError(f"release above capacity or of a node not held: {alloc}")
        self.free_cores[idx] = cores
        self.free_memory[idx] = memory
        self.free_gpus[idx] = gpus
        self.running[idx] -= 1
        if alloc.exclusive:
            self.held_exclusive[idx] = False

    def check(self) -> None:
        """AssertionError unless every resource of every node is within [0, capacity] and
        every exclusively held node has exactly one job."""
        for name in ("cores", "memory", "gpus"):
            free = getattr(self, f"free_{name}")
            cap = getattr(self, f"cap_{name}")
            if np.any(free < 0) or np.any(free > cap):
                raise AssertionError(f"free {name} outside [0, capacity]")
        if np.any(self.running < 0) or np.any(self.held_exclusive & (self.running != 1)):
            raise AssertionError("running counts inconsistent with exclusive nodes")


def fitting_nodes(state: NodeState, request: Request) -> np.ndarray:
    """Boolean mask of the nodes that could each take one node's share of a node request
    now (per-node cores, memory and GPUs free; empty if exclusive; not held exclusively)."""
    if request.nodes is None:
        raise ValueError("fitting_nodes is for node requests; a plain request spreads")
    mask = (
        (state.free_cores >= request.cores_per_node)
        & (state.free_memory >= request.mem_per_node)
        & (state.free_gpus >= request.gpus_per_node)
        & ~state.held_exclusive
    )
    if request.exclusive:
        mask &= state.running == 0
    if request.partition >= 0:
        mask &= eligible_nodes(state, request.partition)
    return mask


def eligible_nodes(state: NodeState, partition: int) -> np.ndarray:
    """Boolean mask of the nodes of ``partition`` (every node for -1)."""
    if partition < 0:
        return np.ones(len(state), dtype=bool)
    return ((state.partitions >> partition) & 1).astype(bool)


def place(state: NodeState, request: Request, rule: str = "first_fit") -> Allocation | None:
    """Where ``request`` would run now under ``rule`` (module docstring), or None if it
    cannot run now. Does not change ``state`` (see `NodeState.allocate`)."""
    if rule not in RULES:
        raise ValueError(f"unknown placement rule {rule!r}; expected one of {RULES}")
    if request.nodes is None:
        return _place_spread(state, request.cores_per_node, rule, request.partition)
    mask = fitting_nodes(state, request)
    idx = np.flatnonzero(mask)
    n = request.nodes
    if idx.size < n:
        return None
    if rule == "first_fit":
        chosen = idx[:n]
    else:
        cores_left = state.free_cores[idx] - request.cores_per_node
        memory_left = state.free_memory[idx] - request.mem_per_node
        gpus_left = state.free_gpus[idx] - request.gpus_per_node
        # np.lexsort sorts by the last key first: cores left, memory left, GPUs left, index.
        order = np.lexsort((idx, gpus_left, memory_left, cores_left))
        chosen = np.sort(idx[order[:n]])
    nodes = tuple(int(i) for i in chosen)
    if request.exclusive:
        cores = tuple(int(state.cap_cores[i]) for i in nodes)
        gpus = tuple(int(state.cap_gpus[i]) for i in nodes)
    else:
        cores = (request.cores_per_node,) * n
        gpus = (request.gpus_per_node,) * n
    return Allocation(nodes, cores, (request.mem_per_node,) * n, gpus, request.exclusive)


def _place_spread(state: NodeState, procs: int, rule: str, partition: int) -> Allocation | None:
    """A plain request of ``procs`` cores: drain nodes in the rule's order until done."""
    closed = state.held_exclusive
    if partition >= 0:
        closed = closed | ~eligible_nodes(state, partition)
    available = np.where(closed, 0, state.free_cores)
    idx = np.flatnonzero(available > 0)
    if int(available[idx].sum()) < procs:
        return None
    if rule == "best_fit":
        order = np.lexsort((idx, state.free_gpus[idx], state.free_memory[idx], available[idx]))
        idx = idx[order]
    cumulative = np.cumsum(available[idx])
    last = int(np.searchsorted(cumulative, procs, side="left"))  # first prefix >= procs
    chosen = idx[: last + 1]
    taken = available[chosen].copy()
    taken[-1] -= int(cumulative[last]) - procs
    pairs = sorted(zip((int(i) for i in chosen), (int(c) for c in taken)))
    k = len(pairs)
    return Allocation(
        tuple(i for i, _ in pairs), tuple(c for _, c in pairs), (0.0,) * k, (0,) * k, False
    )


def never_fits_reason(
    capacities: Sequence[tuple[int, float, int]] | NodeState, request: Request
) -> str | None:
    """Why ``request`` could not run even on the empty cluster (one of
    `NEVER_FITS_REASONS`), or None if it could. Such jobs are skipped and counted by reason,
    as today's ``wider_than_machine`` jobs are. The first reason that applies is given, in
    the order of `NEVER_FITS_REASONS`. Only capacities are read: pass a `NodeState` built
    once when checking many jobs."""
    state = capacities if isinstance(capacities, NodeState) else NodeState(capacities)
    mine = eligible_nodes(state, request.partition)
    if not mine.any():
        return "no_node_in_its_partition"
    if request.nodes is None:
        fits = request.cores_per_node <= int(state.cap_cores[mine].sum())
        return None if fits else "wider_than_machine"
    if request.nodes > int(mine.sum()):
        return "more_nodes_than_machine"
    cores_ok = (state.cap_cores >= request.cores_per_node) & mine
    memory_ok = (state.cap_memory >= request.mem_per_node) & mine
    gpus_ok = (state.cap_gpus >= request.gpus_per_node) & mine
    if not cores_ok.any():
        return "cores_per_node_above_every_node"
    if not memory_ok.any():
        return "memory_per_node_above_every_node"
    if not gpus_ok.any():
        return "gpus_per_node_above_every_node"
    if int((cores_ok & memory_ok & gpus_ok).sum()) < request.nodes:
        return "too_few_nodes_hold_it"
    return None


def fits_ever(capacities: Sequence[tuple[int, float, int]] | NodeState, request: Request) -> bool:
    """Whether the empty cluster could hold ``request`` (`never_fits_reason` is None)."""
    return never_fits_reason(capacities, request) is None


def allocation_problem(
    request: Request,
    alloc: Allocation,
    capacities: Sequence[tuple[int, float, int]],
    partitions: Sequence[int] | None = None,
) -> str | None:
    """What is wrong with ``alloc`` as an allocation of ``request`` on nodes of these
    ``(cores, memory MiB, gpus)`` capacities, or None: distinct existing nodes, and on each
    exactly what the request asks (an exclusive job: every core and GPU of the node)."""
    nodes = alloc.nodes
    k = len(nodes)
    if k == 0 or not (len(alloc.cores) == len(alloc.memory) == len(alloc.gpus) == k):
        return f"malformed allocation {alloc}"
    if len(set(nodes)) != k or not all(0 <= i < len(capacities) for i in nodes):
        return f"nodes not distinct or out of range: {nodes}"
    if alloc.exclusive != request.exclusive:
        return "the allocation's exclusive flag differs from the request's"
    p = request.partition
    if p >= 0 and partitions is not None:
        outside = [i for i in nodes if not (int(partitions[i]) >> p) & 1]
        if outside:
            return f"nodes {outside} are not in the job's partition {p}"
    if request.nodes is None:
        if sum(alloc.cores) != request.cores_per_node or min(alloc.cores) < 1:
            return f"{sum(alloc.cores)} cores for a request of {request.cores_per_node}"
        if any(m != 0 for m in alloc.memory) or any(g != 0 for g in alloc.gpus):
            return "a plain processor request holds memory or GPUs"
        return None
    if k != request.nodes:
        return f"{k} nodes for a request of {request.nodes}"
    for i, c, m, g in zip(nodes, alloc.cores, alloc.memory, alloc.gpus):
        want_c, want_g = request.cores_per_node, request.gpus_per_node
        if request.exclusive:
            want_c, want_g = capacities[i][0], capacities[i][2]
        if (c, m, g) != (want_c, request.mem_per_node, want_g):
            return f"node {i} holds {(c, m, g)}, the request asks {request}"
    return None
