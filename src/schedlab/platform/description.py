"""Platforms: sites, batch queues, node powers and links of a grid (SPEC 5).

Caron et al. (LIP RR-2005-13, section 4.1) model a grid as C sites, each a cluster of nodes on a
LAN, joined by a WAN; a site runs a batch system with one or more queues (section 4.3), each
owning some of the site's nodes, a maximum run time t_max and a local policy. These are the
values of a platform: a `Platform`'s queues, sites order then queue order, are the kernel's
pools (`Platform.pool_specs`). They are read from TOML files by `platform.files` (the format
and its rules are written there) or built in code; node powers and their sampling are in
`platform.nodes`. The platform names its queues' policies and nothing more: the policy
registry checks them where runs are built (`grid.platforms.check_policies`), and the
meta-schedulers get their view of the platform from `grid.context.GridContext.of`.

* **Links**: a transfer of b bytes takes latency + b / bandwidth (`Link.transfer_time`); a
  control message between the central services and a site crosses the site's LAN and the
  WAN once (`Platform.message_time`).
* **Pool seeds** are derived from the platform seed and the pool index (numpy SeedSequence
  of ``(seed, 1, index)``), so pools draw independent service times and random placements.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.platform.node_types import MAX_NODES, NodeType
from schedlab.platform.nodes import ReferencePool, merge_groups
from schedlab.platform.pool import MAX_POWER, MIN_POWER, PoolSpec
from schedlab.platform.service import MAX_DELAY, Constant, ServiceTime
from schedlab.validators import MAX_SEED, check_seed

__all__ = [
    "CONTROL_MESSAGE_BYTES",
    "DEFAULT_MAX_NODES",
    "DEFAULT_MAX_QUEUES",
    "DEFAULT_STREAM",
    "MAX_CONTROL_KB",
    "MAX_DELAY",
    "MAX_NODES",
    "MAX_POWER",
    "MIN_BANDWIDTH_MBIT",
    "MIN_POWER",
    "NO_NETWORK",
    "Link",
    "Platform",
    "Queue",
    "Site",
]

CONTROL_MESSAGE_BYTES = 30e3  # Caron et al. (LIP RR-2005-13), section 7: "30 ko"
MBIT = 1e6 / 8  # bytes per second in one Mbit/s
DEFAULT_STREAM = "grid"  # the generator of Caron et al. (LIP RR-2005-13)

# Bounds on what a platform holds, so that a run's clock stays below `MAX_TIME` (1e15 s,
# where float64 still resolves the simulation) and a platform costs what it says:
# * every delay a job meets on a platform (a latency, a service time mu_rec or mu_env, one
#   of their values or means, a control message's transfer) is at most MAX_DELAY seconds
#   (about 116 days, far beyond any real one): a million jobs meeting every such delay in
#   turn still end before MAX_TIME;
# * node powers are in [MIN_POWER, MAX_POWER] NCU/s, link bandwidths at least 1 kbit/s,
#   control messages at most 1 GB: a transfer or a run on one node stays finite and bounded;
# * a platform file holds at most DEFAULT_MAX_NODES nodes and DEFAULT_MAX_QUEUES queues (so
#   as many sites at most): sampling powers takes 8 bytes per node and every queue is a pool
#   of the kernel. A file raises them deliberately with top-level ``max_nodes = N`` (up to
#   MAX_NODES) and ``max_queues = N``.
# MAX_DELAY (1e7 s) is defined with the service times (`platform.service`), MIN_POWER and
# MAX_POWER with the pools (`platform.pool`)
MIN_BANDWIDTH_MBIT = 1e-3
MAX_CONTROL_KB = 1e6
DEFAULT_MAX_NODES = 1_000_000
DEFAULT_MAX_QUEUES = 1000


# --- links ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Link:
    """A network link: ``bandwidth`` in bytes/s (inf: no transfer cost), ``latency`` in s."""

    bandwidth: float = math.inf
    latency: float = 0.0

    def __post_init__(self) -> None:
        bandwidth = float(self.bandwidth)
        latency = float(self.latency)
        if not bandwidth > 0:  # NaN fails too
            raise ConfigError("link bandwidth", self.bandwidth, "bytes/s > 0 (inf allowed)")
        if not (math.isfinite(latency) and 0 <= latency <= MAX_DELAY):
            raise ConfigError(
                "link latency", self.latency, f"a number of seconds in [0, {MAX_DELAY:g}]"
            )
        object.__setattr__(self, "bandwidth", bandwidth)
        object.__setattr__(self, "latency", latency)

    def transfer_time(self, nbytes: float) -> float:
        """Seconds to move ``nbytes``: latency + nbytes / bandwidth (no contention)."""
        if math.isinf(self.bandwidth):
            return self.latency
        return self.latency + float(nbytes) / self.bandwidth

    @classmethod
    def mbit(cls, bandwidth_mbit: float, latency_s: float = 0.0) -> Link:
        """A link of ``bandwidth_mbit`` Mbit/s (10**6 bits per second)."""
        return cls(float(bandwidth_mbit) * MBIT, latency_s)


NO_NETWORK = Link()  # infinite bandwidth, no latency: messages and transfers are free


# --- sites and queues -----------------------------------------------------------------------


@dataclass(frozen=True)
class Queue:
    """One batch queue of a site: its node groups ``(power NCU/s, count)`` (fastest first),
    a registered local ``policy`` and its ``params``, ``t_max`` (s), the service times
    ``mu_rec`` / ``mu_env`` and the ``placement`` rule (`platform.pool.PoolSpec`).

    ``where`` is the key path the queue was read from (``sites[0].queues[1]``; "" when built
    in code), so that the policy check made where runs are built names the file's key. It is
    not part of the queue's value: two queues that differ only there are equal.

    ``node_types`` (issue 24): the queue's machines as `platform.node_types.NodeType`s, when it
    was described so (empty otherwise). Its groups are then one ``(power, count x cores)``
    per node type (merged by power; ``groups`` may be given empty, else must equal them):
    grid jobs ask for plain processor counts, and a plain request on nodes reduces exactly to
    a pool of their cores (tests/reference_nodes.py, "Reduction to the processor model").
    Memory, GPUs and generic resources are recorded for summaries; no grid job asks for them.
    """

    site: str
    name: str
    groups: tuple[tuple[float, int], ...]
    policy: str = "fcfs"
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    t_max: float = math.inf
    mu_rec: ServiceTime = Constant(0.0)
    mu_env: ServiceTime = Constant(0.0)
    placement: str = "fastest"
    where: str = field(default="", compare=False, repr=False)
    node_types: tuple[NodeType, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "node_types", tuple(self.node_types))
        if self.node_types:
            object.__setattr__(self, "groups", self._node_type_groups())
        object.__setattr__(self, "groups", merge_groups(self.groups))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "t_max", float(self.t_max))
        self.pool_spec()  # PoolSpec checks groups, t_max, service times and placement

    def _node_type_groups(self) -> tuple[tuple[float, int], ...]:
        """The processor groups of the node types: each core is a processor of its node's
        power (exact for plain requests, class docstring); ``groups``, if given, must match."""
        at = f"queue {self.site}/{self.name} node types"
        if not all(isinstance(t, NodeType) for t in self.node_types):
            raise ConfigError(at, self.node_types, "NodeType values")
        names = [t.name for t in self.node_types]
        if len(set(names)) != len(names):
            raise ConfigError(at, names, "node types of distinct names")
        groups = merge_groups([(t.power, t.count * t.cores) for t in self.node_types])
        if self.groups and merge_groups(self.groups) != groups:
            raise ConfigError(
                f"queue {self.site}/{self.name} groups",
                self.groups,
                f"() or {groups}, the groups of its node types",
            )
        return groups

    @property
    def pool_name(self) -> str:
        return f"{self.site}/{self.name}"

    @property
    def nodes(self) -> int:
        return sum(c for _, c in self.groups)

    def pool_spec(self, seed: int = 0) -> PoolSpec:
        """The kernel's description of this queue (named ``site/queue``)."""
        return PoolSpec(
            name=self.pool_name,
            groups=self.groups,
            policy=self.policy,
            params=dict(self.params),
            t_max=self.t_max,
            mu_rec=self.mu_rec,
            mu_env=self.mu_env,
            placement=self.placement,
            seed=seed,
        )


@dataclass(frozen=True)
class Site:
    """A cluster on one LAN: its queues (which partition its nodes) and its LAN link."""

    name: str
    queues: tuple[Queue, ...]
    lan: Link = NO_NETWORK

    def __post_init__(self) -> None:
        object.__setattr__(self, "queues", tuple(self.queues))
        _check_name(f"site {self.name!r} name", self.name)
        if not self.queues:
            raise ConfigError(f"site {self.name!r} queues", self.queues, "at least one queue")
        names = [q.name for q in self.queues]
        for q in self.queues:
            _check_name(f"site {self.name!r} queue name", q.name)
            if q.site != self.name:
                raise ConfigError(f"queue {q.name!r} site", q.site, f"{self.name!r}")
            if names.count(q.name) > 1:
                raise ConfigError(f"site {self.name!r} queue name", q.name, "unique names")

    @property
    def nodes(self) -> int:
        return sum(q.nodes for q in self.queues)

    @property
    def groups(self) -> tuple[tuple[float, int], ...]:
        """The site's nodes, all queues together, per power (fastest first)."""
        return merge_groups([g for q in self.queues for g in q.groups])


def _check_name(option: str, name: object) -> None:
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise ConfigError(option, name, 'a non-empty string without "/"')


@dataclass(frozen=True)
class Platform:
    """Sites joined by a WAN. Its queues, site order then queue order, are the kernel's
    pools. ``control_message`` is in bytes; ``seed`` drew the sampled powers and derives
    the pools' seeds; ``reference_nodes`` is the pool sampled from (None if none was)."""

    sites: tuple[Site, ...]
    wan: Link = NO_NETWORK
    control_message: float = CONTROL_MESSAGE_BYTES
    seed: int = 0
    source: str = "<memory>"
    reference_nodes: ReferencePool | None = None
    # the generator of the jobs a run gets when it names none, and its settings
    stream: str = DEFAULT_STREAM
    stream_settings: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "sites", tuple(self.sites))
        if not self.sites:
            raise ConfigError("platform sites", self.sites, "at least one site")
        names = [s.name for s in self.sites]
        for name in names:
            if names.count(name) > 1:
                raise ConfigError("platform site name", name, "unique site names")
        size = float(self.control_message)
        if not (math.isfinite(size) and 0 <= size <= MAX_CONTROL_KB * 1000):
            raise ConfigError(
                "platform control_message",
                self.control_message,
                f"bytes in [0, {MAX_CONTROL_KB * 1000:g}]",
            )
        object.__setattr__(self, "control_message", size)
        object.__setattr__(self, "seed", check_seed("platform seed", self.seed, high=MAX_SEED))

    def queues(self) -> list[Queue]:
        """Every queue, site order then queue order: index = the kernel's pool index."""
        return [q for s in self.sites for q in s.queues]

    def pool_sites(self) -> list[int]:
        """The site index of each pool."""
        return [i for i, s in enumerate(self.sites) for _ in s.queues]

    def first_pools(self) -> list[int]:
        """The pool index of each site's first queue (where its local jobs go)."""
        out, index = [], 0
        for site in self.sites:
            out.append(index)
            index += len(site.queues)
        return out

    def pool_seed(self, index: int) -> int:
        """Seed of pool ``index``, derived from the platform seed (module docstring)."""
        state = np.random.SeedSequence([self.seed, 1, index]).generate_state(1, np.uint64)
        return int(state[0]) >> 1  # a non-negative int64

    def pool_specs(self) -> list[PoolSpec]:
        """One `PoolSpec` per queue, in pool order, named ``site/queue``."""
        return [q.pool_spec(self.pool_seed(i)) for i, q in enumerate(self.queues())]

    def with_queue_policy(self, policy: str, params: Mapping[str, Any]) -> Platform:
        """This platform with every queue under ``policy`` and its ``params`` (e.g. the
        TDCS local managers); nodes, links, seeds and each queue's key path are kept."""
        sites = tuple(
            dataclasses.replace(
                site,
                queues=tuple(
                    dataclasses.replace(q, policy=policy, params=dict(params)) for q in site.queues
                ),
            )
            for site in self.sites
        )
        return dataclasses.replace(self, sites=sites)

    def message_time(self, site: int) -> float:
        """Seconds one control message takes between the central services and ``site``:
        the site's LAN plus the WAN (latencies plus size / bandwidth, SPEC 5)."""
        lan = self.sites[site].lan
        return lan.transfer_time(self.control_message) + self.wan.transfer_time(
            self.control_message
        )

    @property
    def total_nodes(self) -> int:
        return sum(s.nodes for s in self.sites)

    @property
    def mean_power(self) -> float:
        """Mean node power over every node (Caron et al., section 4.1: puissance_m)."""
        total = math.fsum(p * c for s in self.sites for q in s.queues for p, c in q.groups)
        return total / self.total_nodes

    @property
    def capacity(self) -> float:
        """Work units the platform does per second with every node busy (NCU/s)."""
        return self.mean_power * self.total_nodes
