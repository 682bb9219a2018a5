"""Platform files: sites, batch queues, node powers and links of a grid (SPEC 5).

Caron et al. (LIP RR-2005-13, section 4.1) model a grid as C sites, each a cluster of nodes on a
LAN, joined by a WAN; a site runs a batch system with one or more queues (section 4.3), each
owning some of the site's nodes, a maximum run time t_max and a local policy. Node powers are in
NCU/s (work units per second); they are written per group of equal nodes or, as the paper's
platform module does (section 5), sampled without replacement from a weighted pool of reference
node types. `load_platform` reads a TOML file into a `Platform`; its queues, in file order
(sites, then their queues), are the kernel's pools (`Platform.pool_specs`) and
`Platform.context` gives the meta-schedulers their message times.

The file (``examples/platform-dirac.toml``, ``examples/platform-heterogeneous.toml``)::

    description = "free text"        # optional
    seed = 1                         # integer >= 0 (default 0): node sampling, pool seeds
    control_message_kb = 30          # size of one control message, kB of 1000 bytes
    [wan]                            # optional (default: no cost, infinite bandwidth)
    bandwidth_mbit = 100             # Mbit/s (10**6 bits per second); inf allowed
    latency_s = 0                    # seconds
    [reference_nodes]                # optional: the pool that `sample = true` draws from
    types = [{power = 32.12, weight = 2}, {power = 100.0, weight = 6}]  # default: below
    [[sites]]
    name = "lyon"                    # unique, non-empty, without "/"
    nodes = 20                       # node count (required with sample = true)
    sample = true                    # powers drawn from the reference pool ...
    # groups = [[96.0, 20]]          # ... or explicit [power, count] groups
    [sites.lan]                      # optional, as [wan]
    bandwidth_mbit = 1000
    latency_s = 0
    [[sites.queues]]                 # at least one per site
    name = "default"                 # unique within the site
    nodes = 20                       # a count; may be left out when the site has one queue
    t_max = 24000                    # seconds (default inf); a job reaching it is killed
    policy = "fcfs"                  # a registered policy (default fcfs) ...
    params = {}                      # ... and its parameters, checked by the registry
    mu_rec = 3.75                    # seconds, or {dist = "uniform", low, high},
    mu_env = 2                       # {dist = "exponential", mean} (mu_rec only),
                                     # {dist = "empirical", values = [...]} or
                                     # {dist = "empirical", file = "times.txt"}
    placement = "fastest"            # fastest (default), slowest or random

Rules (docs/model.md, "Grid platforms and workloads"):

* **Queues partition a site's nodes** (overlapping queues are out of scope, SPEC 5). Either
  the site has nodes (``groups`` or ``sample = true``) and its queues take ``nodes`` counts
  that add up to the site's: the site's nodes, **fastest first, are dealt to the queues in
  file order** (the first queue gets the fastest nodes); or the site has neither and each
  queue lists its own ``groups``. Nodes are counts per (queue, power) group, never one object
  per node; equal powers are merged into one group, groups are kept fastest first.
* **Sampling** (the paper's section 5): the multiset of all powers is built in proportion to
  the pool's weights for the total node count of the sampled sites (largest remainders, so
  the counts add up; exact when that count is a multiple of the pool's total weight), then
  each node in turn gets a power drawn at random from what is left, which is removed: a
  seeded random permutation of the multiset, read in site order. The seed is the file's.
* **Links**: a transfer of b bytes takes latency + b / bandwidth (`Link.transfer_time`); a
  control message between the central services and a site crosses the site's LAN and the
  WAN once (`Platform.context`).
* **Pool seeds** are derived from the platform seed and the pool index (numpy SeedSequence
  of ``(seed, 1, index)``), so pools draw independent service times and random placements.

Every mistake raises `ConfigError` naming the key path (``sites[1].queues[0].t_max``; indices
from 0), the value and what is allowed; unknown keys are mistakes too.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from schedlab.errors import ConfigError
from schedlab.platform.pool import PLACEMENTS, PoolSpec
from schedlab.platform.service import (
    Constant,
    Empirical,
    Exponential,
    ServiceTime,
    Uniform,
)
from schedlab.tomlfile import read_toml

if sys.version_info >= (3, 11):
    pass
else:  # pragma: no cover - exercised on Python 3.10 only
    pass

if TYPE_CHECKING:
    from schedlab.grid.context import GridContext

__all__ = [
    "CONTROL_MESSAGE_BYTES",
    "DEFAULT_REFERENCE_POOL",
    "NO_NETWORK",
    "Link",
    "Platform",
    "Queue",
    "ReferencePool",
    "Site",
    "load_platform",
    "parse_platform",
]

CONTROL_MESSAGE_BYTES = 30e3  # Caron et al. (LIP RR-2005-13), section 7: "30 ko"
MBIT = 1e6 / 8  # bytes per second in one Mbit/s
MAX_NODES = 2**31 - 1  # as a pool's processors (platform.pool)
MAX_SEED = 2**63 - 1

TOP_LEVEL_KEYS = ("description", "seed", "control_message_kb", "wan", "reference_nodes", "sites")
LINK_KEYS = ("bandwidth_mbit", "latency_s")
SITE_KEYS = ("name", "nodes", "groups", "sample", "lan", "queues")
QUEUE_KEYS = (
    "name",
    "nodes",
    "groups",
    "t_max",
    "policy",
    "params",
    "mu_rec",
    "mu_env",
    "placement",
)
SERVICE_KEYS = {
    "constant": ("dist", "value"),
    "uniform": ("dist", "low", "high"),
    "exponential": ("dist", "mean"),
    "empirical": ("dist", "values", "file"),
}


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
        if not (math.isfinite(latency) and latency >= 0):
            raise ConfigError("link latency", self.latency, "a number of seconds >= 0")
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


# --- the reference pool ----------------------------------------------------------------------


@dataclass(frozen=True)
class ReferencePool:
    """Node types ``(power NCU/s, weight)``; a type's share of the nodes is its weight over
    the total weight (Caron et al., section 5: "chaque nœud est pondéré par un pourcentage")."""

    types: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        types = tuple((float(p), float(w)) for p, w in self.types)
        if not types:
            raise ConfigError("reference pool types", self.types, "at least one node type")
        seen: set[float] = set()
        for power, weight in types:
            if not (math.isfinite(power) and power > 0):
                raise ConfigError("reference pool power", power, "a finite number > 0")
            if not (math.isfinite(weight) and weight > 0):
                raise ConfigError("reference pool weight", weight, "a finite number > 0")
            if power in seen:
                raise ConfigError("reference pool power", power, "each power listed once")
            seen.add(power)
        object.__setattr__(self, "types", types)

    @property
    def powers(self) -> np.ndarray:
        return np.array([p for p, _ in self.types])

    @property
    def weights(self) -> np.ndarray:
        return np.array([w for _, w in self.types])

    @property
    def mean(self) -> float:
        """Weighted mean power (NCU/s)."""
        weights = self.weights
        return math.fsum(self.powers * weights) / math.fsum(weights)

    def counts(self, nodes: int) -> np.ndarray:
        """Nodes of each type among ``nodes``, in proportion to the weights.

        Largest remainders (Hamilton): each type gets the integer part of its quota, the
        nodes left go to the largest fractional parts (ties: the earlier type). Exact
        proportions when ``nodes`` is a multiple of the total weight (integer weights).
        """
        weights = self.weights
        quotas = weights * nodes / weights.sum()
        counts = np.floor(quotas + 1e-9).astype(np.int64)
        left = int(nodes - counts.sum())
        if left > 0:
            order = np.argsort(-(quotas - counts), kind="stable")
            counts[order[:left]] += 1
        elif left < 0:  # rounding pushed a floor up: take back from the smallest remainders
            order = np.argsort(quotas - counts, kind="stable")
            counts[order[:-left]] -= 1
        return counts

    def sample(self, nodes: int, rng: np.random.Generator) -> np.ndarray:
        """Powers of ``nodes`` nodes, drawn without replacement from the multiset of
        `counts` (a random permutation of it: node i gets the i-th draw)."""
        multiset = np.repeat(self.powers, self.counts(nodes))
        return rng.permutation(multiset)


# The pool of Caron et al. is not published: only its mean (96 NCU/s), its size (about twenty
# node configurations of the 4000-node DIRAC production platform) and three measured types
# (table 1: PII 350 MHz = 32.12, PII 400 MHz = 52.12, PIII 600 MHz = 100 NCU/s). This pool has
# 20 types, those three among them; the weights are node counts out of 60 (the 60 nodes of Table
# 2, so that platform gets exactly this multiset) and the powers were chosen on a 0.01 grid so
# that sum(power x weight) = 5760 = 96 x 60: the weighted mean is exactly 96.
DEFAULT_REFERENCE_POOL = ReferencePool(
    (
        (32.12, 2),  # measured (PII 350)
        (41.50, 2),
        (52.12, 3),  # measured (PII 400)
        (60.80, 4),
        (68.40, 3),
        (75.30, 3),
        (82.10, 3),
        (88.90, 4),
        (94.60, 5),
        (100.00, 6),  # measured (PIII 600)
        (104.70, 4),
        (109.80, 4),
        (114.50, 3),
        (119.20, 3),
        (124.60, 2),
        (130.10, 2),
        (136.50, 2),
        (143.20, 2),
        (150.40, 2),
        (178.50, 1),
    )
)


# --- sites and queues -----------------------------------------------------------------------


def merge_groups(groups: Sequence[tuple[float, int]]) -> tuple[tuple[float, int], ...]:
    """Equal powers merged into one group (counts added), fastest first."""
    merged: dict[float, int] = {}
    for power, count in groups:
        merged[float(power)] = merged.get(float(power), 0) + int(count)
    return tuple(sorted(merged.items(), key=lambda g: -g[0]))


@dataclass(frozen=True)
class Queue:
    """One batch queue of a site: its node groups ``(power NCU/s, count)`` (fastest first),
    a registered local ``policy`` and its ``params``, ``t_max`` (s), the service times
    ``mu_rec`` / ``mu_env`` and the ``placement`` rule (`platform.pool.PoolSpec`)."""

    site: str
    name: str
    groups: tuple[tuple[float, int], ...]
    policy: str = "fcfs"
    params: Mapping[str, Any] = field(default_factory=dict, hash=False)
    t_max: float = math.inf
    mu_rec: ServiceTime = Constant(0.0)
    mu_env: ServiceTime = Constant(0.0)
    placement: str = "fastest"

    def __post_init__(self) -> None:
        object.__setattr__(self, "groups", merge_groups(self.groups))
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "t_max", float(self.t_max))
        self.pool_spec()  # PoolSpec checks groups, t_max, service times and placement

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "sites", tuple(self.sites))
        if not self.sites:
            raise ConfigError("platform sites", self.sites, "at least one site")
        names = [s.name for s in self.sites]
        for name in names:
            if names.count(name) > 1:
                raise ConfigError("platform site name", name, "unique site names")
        size = float(self.control_message)
        if not (math.isfinite(size) and size >= 0):
            raise ConfigError("platform control_message", self.control_message, "bytes >= 0")
        object.__setattr__(self, "control_message", size)
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer):
            raise ConfigError("platform seed", self.seed, f"an integer in 0..{MAX_SEED}")
        if not 0 <= int(self.seed) <= MAX_SEED:
            raise ConfigError("platform seed", self.seed, f"an integer in 0..{MAX_SEED}")
        object.__setattr__(self, "seed", int(self.seed))

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

    def message_time(self, site: int) -> float:
        """Seconds one control message takes between the central services and ``site``:
        the site's LAN plus the WAN (latencies plus size / bandwidth, SPEC 5)."""
        lan = self.sites[site].lan
        return lan.transfer_time(self.control_message) + self.wan.transfer_time(
            self.control_message
        )

    def context(self, seed: int = 0) -> GridContext:
        """What a meta-scheduler is built with: pool names, sites and message times."""
        from schedlab.grid.context import GridContext  # platform does not need grid

        sites = self.pool_sites()
        times = [self.message_time(s) for s in range(len(self.sites))]
        return GridContext(
            pool_names=tuple(q.pool_name for q in self.queues()),
            pool_sites=tuple(sites),
            site_names=tuple(s.name for s in self.sites),
            message_time=tuple(times[s] for s in sites),
            seed=seed,
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


# --- reading --------------------------------------------------------------------------------


def load_platform(path: str | os.PathLike[str]) -> Platform:
    """Read a TOML platform file (module docstring); relative file names in it are from its
    folder."""
    data, folder, source = read_toml(path, "platform file")
    return parse_platform(data, folder, source)


def parse_platform(data: Mapping[str, Any], base_dir: Path | str, source: str) -> Platform:
    """Check the parsed TOML ``data`` of a platform file and build the `Platform`.

    ``base_dir`` resolves relative file names (``{dist = "empirical", file = ...}``);
    ``source`` names the file in the result.
    """
    base = Path(base_dir).expanduser()
    if not isinstance(data, Mapping):
        raise ConfigError("platform file", type(data).__name__, "a TOML table of keys")
    _check_keys("", data, TOP_LEVEL_KEYS)
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise ConfigError("description", description, "a string")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError("seed", seed, f"an integer in 0..{MAX_SEED}")
    size_kb = _number("control_message_kb", data.get("control_message_kb", 30), finite=True)
    wan = _parse_link("wan", data.get("wan"))
    pool = DEFAULT_REFERENCE_POOL
    given_pool = "reference_nodes" in data
    if given_pool:
        pool = _parse_pool(data["reference_nodes"])

    sites_raw = data.get("sites")
    if sites_raw is None:
        raise ConfigError("sites", None, "at least one [[sites]] table")
    if not isinstance(sites_raw, list) or not all(isinstance(s, dict) for s in sites_raw):
        raise ConfigError("sites", sites_raw, "an array of tables, written [[sites]]")
    if not sites_raw:
        raise ConfigError("sites", sites_raw, "at least one [[sites]] table")

    # pass 1: each site's own nodes (explicit groups, a count to sample, or none)
    plans = [_parse_site_nodes(f"sites[{i}]", s) for i, s in enumerate(sites_raw)]
    sampled = sum(n for kind, n, _ in plans if kind == "sample")
    powers = np.empty(0)
    if sampled:
        rng = np.random.default_rng([seed, 0])
        powers = pool.sample(sampled, rng)
    # pass 2: the queues, taking the site's nodes fastest first
    sites: list[Site] = []
    names: dict[str, int] = {}
    cursor = 0
    for i, (raw, (kind, n, groups)) in enumerate(zip(sites_raw, plans)):
        where = f"sites[{i}]"
        if kind == "sample":
            values, counts = np.unique(powers[cursor : cursor + n], return_counts=True)
            groups = merge_groups(list(zip(values.tolist(), counts.tolist())))
            cursor += n
        name = raw["name"]
        if name in names:
            raise ConfigError(
                f"{where}.name", name, f"a name no other site has (sites[{names[name]}])"
            )
        names[name] = i
        lan = _parse_link(f"{where}.lan", raw.get("lan"))
        queues = _parse_queues(where, raw, name, kind, n, groups, base)
        sites.append(Site(name=name, queues=tuple(queues), lan=lan))
    return Platform(
        sites=tuple(sites),
        wan=wan,
        control_message=size_kb * 1000.0,
        seed=seed,
        source=source,
        reference_nodes=pool if (sampled or given_pool) else None,
    )


def _check_keys(where: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{key}" if where else str(key)
            raise ConfigError(path, table[key], f"one of the keys {', '.join(allowed)}")


def _number(
    where: str,
    value: object,
    *,
    low: float = 0.0,
    strict: bool = False,
    finite: bool = False,
) -> float:
    """A TOML number >= low (> low when ``strict``; inf refused when ``finite``)."""
    bound = f"> {low:g}" if strict else f">= {low:g}"
    allowed = f"a number {bound}" + ("" if finite else " (inf allowed)")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(where, value, allowed)
    x = float(value)
    if math.isnan(x) or (finite and math.isinf(x)) or x < low or (strict and x == low):
        raise ConfigError(where, value, allowed)
    return x


def _count(where: str, value: object, low: int = 1) -> int:
    allowed = f"an integer in {low}..{MAX_NODES}"
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_NODES:
        raise ConfigError(where, value, allowed)
    return value


def _parse_link(where: str, raw: object) -> Link:
    if raw is None:
        return NO_NETWORK
    if not isinstance(raw, dict):
        raise ConfigError(where, raw, f"a table with {', '.join(LINK_KEYS)}")
    _check_keys(where, raw, LINK_KEYS)
    bandwidth = _number(f"{where}.bandwidth_mbit", raw.get("bandwidth_mbit", math.inf), strict=True)
    latency = _number(f"{where}.latency_s", raw.get("latency_s", 0.0), finite=True)
    return Link(bandwidth * MBIT, latency)


def _parse_pool(raw: object) -> ReferencePool:
    where = "reference_nodes"
    if not isinstance(raw, dict):
        raise ConfigError(where, raw, "a table with types = [{power, weight}, ...]")
    _check_keys(where, raw, ("types",))
    types = raw.get("types")
    if not isinstance(types, list) or not types:
        raise ConfigError(f"{where}.types", types, "a non-empty array of {power, weight}")
    out: list[tuple[float, float]] = []
    for j, entry in enumerate(types):
        at = f"{where}.types[{j}]"
        if not isinstance(entry, dict):
            raise ConfigError(at, entry, "a table {power = NCU/s, weight = share}")
        _check_keys(at, entry, ("power", "weight"))
        for key in ("power", "weight"):
            if key not in entry:
                raise ConfigError(f"{at}.{key}", None, "a number > 0")
        power = _number(f"{at}.power", entry["power"], strict=True, finite=True)
        weight = _number(f"{at}.weight", entry["weight"], strict=True, finite=True)
        if any(p == power for p, _ in out):
            raise ConfigError(f"{at}.power", entry["power"], "a power not listed before")
        out.append((power, weight))
    return ReferencePool(tuple(out))


def _parse_groups(where: str, raw: object) -> tuple[tuple[float, int], ...]:
    allowed = "a non-empty array of [power (NCU/s), count] pairs"
    if not isinstance(raw, list) or not raw:
        raise ConfigError(where, raw, allowed)
    groups = []
    for j, pair in enumerate(raw):
        at = f"{where}[{j}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise ConfigError(at, pair, "[power (NCU/s), count]")
        power = _number(f"{at}[0]", pair[0], strict=True, finite=True)
        groups.append((power, _count(f"{at}[1]", pair[1])))
    merged = merge_groups(groups)
    if sum(c for _, c in merged) > MAX_NODES:
        raise ConfigError(where, raw, f"at most {MAX_NODES} nodes")
    return merged


def _parse_site_nodes(
    where: str, raw: Mapping[str, Any]
) -> tuple[str, int, tuple[tuple[float, int], ...]]:
    """("groups" | "sample" | "queues", node count, groups) of a site's own nodes."""
    _check_keys(where, raw, SITE_KEYS)
    _check_name_at(f"{where}.name", raw.get("name"))
    sample = raw.get("sample", False)
    if not isinstance(sample, bool):
        raise ConfigError(f"{where}.sample", sample, "true or false")
    nodes = raw.get("nodes")
    if nodes is not None:
        nodes = _count(f"{where}.nodes", nodes)
    if sample and "groups" in raw:
        raise ConfigError(f"{where}.groups", raw["groups"], "no groups with sample = true")
    if sample:
        if nodes is None:
            raise ConfigError(f"{where}.nodes", None, "a node count to sample (sample = true)")
        return "sample", nodes, ()
    if "groups" in raw:
        groups = _parse_groups(f"{where}.groups", raw["groups"])
        total = sum(c for _, c in groups)
        if nodes is not None and nodes != total:
            raise ConfigError(f"{where}.nodes", nodes, f"{total}, the sum of the site's groups")
        return "groups", total, groups
    return "queues", -1 if nodes is None else nodes, ()


def _check_name_at(where: str, name: object) -> None:
    if name is None:
        raise ConfigError(where, None, 'a non-empty string without "/"')
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise ConfigError(where, name, 'a non-empty string without "/"')


def _parse_queues(
    where: str,
    raw: Mapping[str, Any],
    site: str,
    kind: str,
    site_nodes: int,
    site_groups: tuple[tuple[float, int], ...],
    base: Path,
) -> list[Queue]:
    entries = raw.get("queues")
    if entries is None:
        raise ConfigError(f"{where}.queues", None, "at least one [[sites.queues]] table")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{where}.queues", entries, "an array of tables, [[sites.queues]]")
    if not entries:
        raise ConfigError(f"{where}.queues", entries, "at least one [[sites.queues]] table")
    # the site's nodes, fastest first, as a list of (power, count) to deal from
    left = [list(g) for g in site_groups]
    queues: list[Queue] = []
    seen: dict[str, int] = {}
    for j, entry in enumerate(entries):
        at = f"{where}.queues[{j}]"
        _check_keys(at, entry, QUEUE_KEYS)
        name = entry.get("name")
        _check_name_at(f"{at}.name", name)
        if name in seen:
            raise ConfigError(
                f"{at}.name", name, f"a name no other queue of the site has (queues[{seen[name]}])"
            )
        seen[name] = j
        nodes = entry.get("nodes")
        if nodes is not None:
            nodes = _count(f"{at}.nodes", nodes)
        if kind == "queues":
            if "groups" not in entry:
                raise ConfigError(
                    f"{at}.groups",
                    None,
                    "[[power, count], ...]: the site has neither groups nor sample = true, so "
                    "each queue lists its own groups",
                )
            groups = _parse_groups(f"{at}.groups", entry["groups"])
            total = sum(c for _, c in groups)
            if nodes is not None and nodes != total:
                raise ConfigError(f"{at}.nodes", nodes, f"{total}, the sum of the queue's groups")
        else:
            if "groups" in entry:
                raise ConfigError(
                    f"{at}.groups",
                    entry["groups"],
                    "no groups: the site's nodes (its groups or sample = true) are dealt to its "
                    "queues, fastest first; give the queue a node count",
                )
            if nodes is None:
                if len(entries) > 1:
                    raise ConfigError(
                        f"{at}.nodes", None, "a node count (the site has several queues)"
                    )
                nodes = site_nodes
            groups = _deal(left, nodes)
            if not groups:
                raise ConfigError(
                    f"{at}.nodes", nodes, f"at most the site's {site_nodes} nodes in all"
                )
        queues.append(_parse_queue(at, entry, site, name, groups, base))
    dealt = sum(q.nodes for q in queues)
    if kind != "queues" and dealt != site_nodes:
        raise ConfigError(
            f"{where}.queues",
            f"{dealt} nodes",
            f"{site_nodes}, the site's nodes: queues partition a site's nodes",
        )
    if kind == "queues" and site_nodes >= 0 and dealt != site_nodes:
        raise ConfigError(f"{where}.nodes", site_nodes, f"{dealt}, the sum of its queues' groups")
    return queues


def _deal(left: list[list[Any]], nodes: int) -> tuple[tuple[float, int], ...]:
    """Take ``nodes`` nodes from the front of ``left`` (fastest first); () if too few."""
    if sum(c for _, c in left) < nodes:
        return ()
    taken: list[tuple[float, int]] = []
    need = nodes
    while need:
        power, count = left[0]
        k = min(count, need)
        taken.append((power, k))
        need -= k
        if k == count:
            left.pop(0)
        else:
            left[0][1] = count - k
    return tuple(taken)


def _parse_queue(
    at: str,
    entry: Mapping[str, Any],
    site: str,
    name: str,
    groups: tuple[tuple[float, int], ...],
    base: Path,
) -> Queue:
    t_max = _number(f"{at}.t_max", entry.get("t_max", math.inf), strict=True)
    policy = entry.get("policy", "fcfs")
    params = _parse_params(at, policy, entry.get("params", {}))
    mu_rec = _parse_service(f"{at}.mu_rec", entry.get("mu_rec", 0.0), base, bounded=False)
    mu_env = _parse_service(f"{at}.mu_env", entry.get("mu_env", 0.0), base, bounded=True)
    placement = entry.get("placement", "fastest")
    if placement not in PLACEMENTS:
        raise ConfigError(f"{at}.placement", placement, PLACEMENTS)
    return Queue(
        site=site,
        name=name,
        groups=groups,
        policy=policy,
        params=params,
        t_max=t_max,
        mu_rec=mu_rec,
        mu_env=mu_env,
        placement=placement,
    )


def _parse_params(at: str, policy: object, raw: object) -> dict[str, Any]:
    """The written parameters, checked by name, type and the policy's Params class."""
    # the registry lives beside the policies; a platform file names them, nothing more
    from schedlab.schedulers.registry import (
        available_policies,
        check_param,
        make_params,
        param_types,
        policy_class,
    )

    if not isinstance(policy, str) or policy not in available_policies():
        raise ConfigError(f"{at}.policy", policy, available_policies())
    if not isinstance(raw, dict):
        raise ConfigError(f"{at}.params", raw, f"a table of the parameters of {policy}")
    cls = policy_class(policy)
    types = param_types(cls)
    for key, value in raw.items():
        if key not in types:
            known = ", ".join(sorted(types)) or "(none)"
            raise ConfigError(f"{at}.params.{key}", value, f"a parameter of {policy}: {known}")
        if not isinstance(value, str | int | float | bool):
            raise ConfigError(f"{at}.params.{key}", value, "a string, number or boolean")
        check_param(f"{at}.params.{key}", value, types[key])
    try:
        make_params(cls, raw)
    except ConfigError as exc:
        culprit = next((k for k in raw if k in exc.option.split()), None)
        option = f"{at}.params.{culprit}" if culprit else f"{at}.params"
        raise ConfigError(option, exc.value, exc.allowed) from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{at}.params", raw, f"parameters {policy} accepts ({exc})") from None
    return dict(raw)


def _parse_service(where: str, raw: object, base: Path, *, bounded: bool) -> ServiceTime:
    """Seconds, or a table {dist = ...} (module docstring); mu_env must be bounded."""
    if not isinstance(raw, dict):
        return Constant(_number(where, raw, finite=True))
    dist = raw.get("dist")
    if dist not in SERVICE_KEYS:
        raise ConfigError(f"{where}.dist", dist, list(SERVICE_KEYS))
    _check_keys(where, raw, SERVICE_KEYS[dist])
    if dist == "constant":
        return Constant(_number(f"{where}.value", raw.get("value"), finite=True))
    if dist == "uniform":
        low = _number(f"{where}.low", raw.get("low"), finite=True)
        high = _number(f"{where}.high", raw.get("high"), finite=True)
        if high < low:
            raise ConfigError(f"{where}.high", raw.get("high"), f"a number >= low ({low:g})")
        return Uniform(low, high)
    if dist == "exponential":
        if bounded:
            raise ConfigError(
                f"{where}.dist",
                dist,
                "a bounded service time (constant, uniform, empirical): policies plan with "
                "mu_env's largest value",
            )
        return Exponential(_number(f"{where}.mean", raw.get("mean"), finite=True))
    if ("values" in raw) == ("file" in raw):
        raise ConfigError(where, raw, "exactly one of values = [seconds, ...] or file = path")
    if "values" in raw:
        values = raw["values"]
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}.values", values, "a non-empty array of seconds")
        return Empirical(
            tuple(_number(f"{where}.values[{k}]", v, finite=True) for k, v in enumerate(values))
        )
    name = raw["file"]
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}.file", name, "a path to a text file of seconds")
    path = Path(name).expanduser()
    path = path if path.is_absolute() else base / path
    try:
        data = np.loadtxt(path, dtype=np.float64, comments="#", ndmin=1)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{where}.file", name, f"a readable text file of seconds, one per line ({exc})"
        ) from None
    if data.size == 0 or not np.all(np.isfinite(data)) or np.any(data < 0):
        raise ConfigError(f"{where}.file", name, "a file of at least one number >= 0")
    return Empirical(tuple(data.tolist()))
