"""Platform files: the TOML reader of sites, batch queues, node powers and links (SPEC 5).

A platform (`platform.description`: Caron et al., LIP RR-2005-13, section 4.1) is C sites on a
WAN, each a cluster of nodes on a LAN whose batch queues own some of its nodes. Node powers are
in NCU/s (work units per second); they are written per group of equal nodes or, as the paper's
platform module does (section 5), sampled without replacement from a weighted pool of reference
node types (`platform.nodes`). `read_platform` reads a TOML file into a `Platform`; its queues,
in file order (sites, then their queues), are the kernel's pools (`Platform.pool_specs`).

This reader checks the shape of a queue's ``policy`` (a string) and ``params`` (a table of
strings, numbers and booleans) and records on each `Queue` the key path it came from; whether
the policy exists and takes those parameters is checked against the policy registry where runs
are built (`grid.platforms.check_policies`; `grid.platforms.load_platform` reads and checks),
so the platform layer needs no policy code.

The file (``examples/platform-dirac.toml``, ``examples/platform-heterogeneous.toml``)::

    description = "free text"        # optional
    seed = 1                         # integer >= 0 (default 0): node sampling, pool seeds
    control_message_kb = 30          # size of one control message, kB of 1000 bytes
    [wan]                            # optional (default: no cost, infinite bandwidth)
    bandwidth_mbit = 100             # Mbit/s (10**6 bits per second); inf allowed
    latency_s = 0                    # seconds
    [stream]                         # optional: the jobs a run gets when it names none
    generator = "grid"               # grid (Caron et al., the default) or tdcs (Baranov
    # meta_jobs = 500                # and Tikhomirov), then the generator's own settings
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

A queue of a site that has neither ``groups`` nor ``sample`` may describe its machines as
node types instead of ``groups``, with the keys of a cluster file's ``[[nodes]]``
(`platform.cluster`; ``power`` is the node's NCU/s, default 1.0)::

    [[sites.queues]]
    name = "gpu"
    [[sites.queues.nodes]]           # one table per node type (never with groups)
    name = "a100"
    count = 8                        # nodes of this type
    cores = 64                       # each core is a processor of the queue's pool
    memory = "512G"                  # recorded; no grid job asks for memory
    gpus = 4                         # recorded (default 0); no grid job asks for GPUs
    power = 120.0                    # NCU/s of each core
    [sites.queues.nodes.gres]        # optional, recorded
    nvme = 2

Rules (docs/model.md, "Grid platforms and workloads"):

* **Queues partition a site's nodes** (overlapping queues are out of scope, SPEC 5). Either
  the site has nodes (``groups`` or ``sample = true``) and its queues take ``nodes`` counts
  that add up to the site's: the site's nodes, **fastest first, are dealt to the queues in
  file order** (the first queue gets the fastest nodes); or the site has neither and each
  queue lists its own ``groups``. Nodes are counts per (queue, power) group, never one object
  per node; equal powers are merged into one group, groups are kept fastest first.
* **Node types** (issue 24): a queue's ``[[sites.queues.nodes]]`` give its pool, per node
  type, a group of (power, count x cores) processors. This is exact, not an approximation:
  grid jobs ask only for processor counts (no memory, GPUs or node counts), and plain
  requests on nodes of several cores reduce to a pool of their cores
  (tests/reference_nodes.py, "Reduction to the processor model"). Memory, GPUs and generic
  resources are kept on the `Queue` (``node_types``) for summaries. A queue gives its
  machines one way: node types are refused with ``groups``, in a site that deals its own
  nodes (``groups`` or ``sample``) and in a site with a ``nodes`` count. Each node type's
  nodes count once towards ``max_nodes`` (its cores are not nodes).
* **Sampling** (the paper's section 5): the multiset of all powers is built in proportion to
  the pool's weights for the total node count of the sampled sites (largest remainders, so
  the counts add up; exact when that count is a multiple of the pool's total weight), then
  each node in turn gets a power drawn at random from what is left, which is removed: a
  seeded random permutation of the multiset, read in site order. The seed is the file's.
* **Links**: a transfer of b bytes takes latency + b / bandwidth (`Link.transfer_time`); a
  control message between the central services and a site crosses the site's LAN and the
  WAN once (`Platform.message_time`).
* **Pool seeds** are derived from the platform seed and the pool index (numpy SeedSequence
  of ``(seed, 1, index)``), so pools draw independent service times and random placements.

Every mistake raises `ConfigError` naming the key path (``sites[1].queues[0].t_max``; indices
from 0), the value and what is allowed; unknown keys are mistakes too. Read from a file, it is
a `PlatformFileError`, whose message names the file as well.

**Bounds** (`platform.description`): every delay (``latency_s``, ``mu_rec``, ``mu_env``, their
values, bounds and means) is at most 1e7 s, ``t_max`` at most 1e15 s (or inf), node powers
in [1e-6, 1e9] NCU/s, bandwidths at least 0.001 Mbit/s, ``control_message_kb`` at most 1e6,
a measured sample at most a million values: the clock of a run stays below 1e15 s. A file
holds at most 1,000,000 nodes and 1,000 queues (hence sites) unless it raises these ceilings
deliberately with top-level keys::

    max_nodes = 5000000              # nodes in all (up to 2**31 - 1); sampling takes 8 B each
    max_queues = 5000                # queues in all (up to 1,000,000); each is a kernel pool

The files it names (``{dist = "empirical", file = ...}``) are read as every input is
(`schedlab.inputs.read_input`): regular files only, under the input size limit, and recorded
so that no output of the command may replace them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import ConfigError, printable
from schedlab.inputs import read_input
from schedlab.platform.description import (
    DEFAULT_MAX_NODES,
    DEFAULT_MAX_QUEUES,
    DEFAULT_STREAM,
    MAX_CONTROL_KB,
    MAX_NODES,
    MBIT,
    MIN_BANDWIDTH_MBIT,
    NO_NETWORK,
    Link,
    Platform,
    Queue,
    Site,
)
from schedlab.platform.node_types import NodeType, parse_node_types
from schedlab.platform.nodes import (
    DEFAULT_REFERENCE_POOL,
    MAX_WEIGHT,
    ReferencePool,
    merge_groups,
)
from schedlab.platform.pool import MAX_POWER, MIN_POWER, PLACEMENTS
from schedlab.platform.service import (
    MAX_DELAY,
    MAX_VALUES,
    Constant,
    Empirical,
    Exponential,
    ServiceTime,
    Uniform,
)
from schedlab.tomlfile import read_toml
from schedlab.validators import MAX_SEED, MAX_TIME, check_int, check_number, check_seed

__all__ = ["MAX_QUEUES", "PlatformFileError", "parse_platform", "read_platform"]

MAX_QUEUES = 1_000_000  # the most ``max_queues`` may allow


class PlatformFileError(ConfigError):
    """A mistake in a platform file: a `ConfigError` at the key path (``option``) whose
    message also names the file (``source``), as a syntax error's does."""

    _fields = ("option", "value", "allowed", "source")  # type: ignore[assignment]

    def __init__(self, option: str, value: object, allowed: str, source: str) -> None:
        super().__init__(option, value, allowed)
        self.source = source
        self.args = (f"{source}: {self.args[0]}",)

    @classmethod
    def of(cls, exc: ConfigError, source: str) -> PlatformFileError:
        """``exc`` with the file named (itself if it names one already)."""
        if isinstance(exc, PlatformFileError):
            return exc
        return cls(exc.option, exc.value, exc.allowed, source)


TOP_LEVEL_KEYS = (
    "description",
    "seed",
    "max_nodes",
    "max_queues",
    "control_message_kb",
    "wan",
    "reference_nodes",
    "stream",
    "sites",
)
_NODES = f"an integer in 1..{MAX_NODES}"  # nodes of a site or of a group of nodes
_DELAY = f"a number of seconds in [0, {MAX_DELAY:g}]"
_POWER = f"NCU/s > 0, in [{MIN_POWER:g}, {MAX_POWER:g}]"
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


def read_platform(path: str | os.PathLike[str]) -> Platform:
    """Read a TOML platform file (module docstring); relative file names in it are from its
    folder. Policies are checked by name only where runs are built
    (`grid.platforms.load_platform`)."""
    data, folder, source = read_toml(path, "platform file")
    return parse_platform(data, folder, source)


def parse_platform(data: Mapping[str, Any], base_dir: Path | str, source: str) -> Platform:
    """Check the parsed TOML ``data`` of a platform file and build the `Platform`.

    ``base_dir`` resolves relative file names (``{dist = "empirical", file = ...}``);
    ``source`` names the file in the result and in every error (`PlatformFileError`).
    """
    try:
        return _parse_platform(data, Path(os.path.expanduser(base_dir)), source)
    except ConfigError as exc:
        raise PlatformFileError.of(exc, source) from None


def _ceiling(data: Mapping[str, Any], key: str, default: int, high: int) -> int:
    """``max_nodes`` or ``max_queues``: the ceiling a file sets itself (module docstring)."""
    allowed = f"an integer in 1..{high:,} (default {default:,})"
    return check_int(key, data.get(key, default), low=1, high=high, allowed=allowed)


def _too_many(what: str, ceiling: int, key: str, high: int) -> str:
    """What is allowed when a file holds more ``what`` than its ceiling: how to raise it."""
    return (
        f"at most {ceiling:,} {what} in the platform in all; raise the ceiling deliberately "
        f"with {key} = N at the top of the file (up to {high:,})"
    )


def _parse_platform(data: Mapping[str, Any], base: Path, source: str) -> Platform:
    if not isinstance(data, Mapping):
        raise ConfigError("platform file", type(data).__name__, "a TOML table of keys")
    _check_keys("", data, TOP_LEVEL_KEYS)
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise ConfigError("description", description, "a string")
    seed = data.get("seed", 0)
    check_seed("seed", seed, high=MAX_SEED)
    max_nodes = _ceiling(data, "max_nodes", DEFAULT_MAX_NODES, MAX_NODES)
    max_queues = _ceiling(data, "max_queues", DEFAULT_MAX_QUEUES, MAX_QUEUES)
    size_kb = check_number(
        "control_message_kb",
        data.get("control_message_kb", 30),
        low=0,
        high=MAX_CONTROL_KB,
        allowed=f"kB (1000 bytes) in [0, {MAX_CONTROL_KB:g}]",
    )
    wan = _parse_link("wan", data.get("wan"))
    stream, settings = _parse_stream(data.get("stream", {"generator": DEFAULT_STREAM}))
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
    queues = 0  # sites and queues are counted before anything is built
    for i, site in enumerate(sites_raw):
        entries = site.get("queues")
        queues += len(entries) if isinstance(entries, list) and entries else 1
        if queues > max_queues:
            where = f"sites[{i}].queues" if isinstance(entries, list) else f"sites[{i}]"
            raise ConfigError(
                where,
                f"{queues:,} queues",
                _too_many("queues", max_queues, "max_queues", MAX_QUEUES),
            )

    # pass 1: each site's own nodes (explicit groups, a count to sample, or none), counted
    # before any is sampled (sampling takes memory per node)
    plans = []
    total = 0
    for i, site in enumerate(sites_raw):
        plan = _parse_site_nodes(f"sites[{i}]", site)
        total += max(plan[1], 0)
        if total > max_nodes:
            key = "groups" if plan[0] == "groups" else "nodes"
            raise ConfigError(
                f"sites[{i}].{key}",
                f"{total:,} nodes",
                _too_many("nodes", max_nodes, "max_nodes", MAX_NODES),
            )
        plans.append(plan)
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
        site_queues = _parse_queues(where, raw, name, kind, n, groups, base, max_nodes)
        sites.append(Site(name=name, queues=tuple(site_queues), lan=lan))
        if kind == "queues":  # a site whose queues list their own groups or node types
            total += sum(_counted_nodes(q) for q in site_queues) - max(n, 0)
            if total > max_nodes:
                raise ConfigError(
                    f"{where}.queues",
                    f"{total:,} nodes",
                    _too_many("nodes", max_nodes, "max_nodes", MAX_NODES),
                )
    return Platform(
        sites=tuple(sites),
        wan=wan,
        control_message=size_kb * 1000.0,
        seed=seed,
        source=source,
        reference_nodes=pool if (sampled or given_pool) else None,
        stream=stream,
        stream_settings=settings,
    )


def _parse_stream(raw: object) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``[stream]``: the generator of the platform's default stream and its settings (their
    names and values are checked with the generator, `grid.platforms.check_stream`)."""
    if not isinstance(raw, dict):
        raise ConfigError("stream", raw, "a table: generator = NAME, then its settings")
    name = raw.get("generator", DEFAULT_STREAM)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError("stream.generator", name, "the name of a stream generator")
    settings = []
    for key, value in raw.items():
        if key == "generator":
            continue
        if key == "seed":
            raise ConfigError("stream.seed", value, "no seed here (a run's seed seeds its stream)")
        if not isinstance(value, str | int | float | bool):
            raise ConfigError(f"stream.{key}", value, "a string, number or boolean")
        settings.append((key, value))
    return name, tuple(sorted(settings))


def _check_keys(where: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{key}" if where else str(key)
            raise ConfigError(path, table[key], f"one of the keys {', '.join(allowed)}")


def _parse_link(where: str, raw: object) -> Link:
    if raw is None:
        return NO_NETWORK
    if not isinstance(raw, dict):
        raise ConfigError(where, raw, f"a table with {', '.join(LINK_KEYS)}")
    _check_keys(where, raw, LINK_KEYS)
    bandwidth = check_number(
        f"{where}.bandwidth_mbit",
        raw.get("bandwidth_mbit", math.inf),
        low=MIN_BANDWIDTH_MBIT,
        inf=True,
        allowed=f"Mbit/s > 0, at least {MIN_BANDWIDTH_MBIT:g} (1 kbit/s); inf allowed",
    )
    latency = check_number(
        f"{where}.latency_s", raw.get("latency_s", 0.0), low=0, high=MAX_DELAY, allowed=_DELAY
    )
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
    seen: set[float] = set()
    for j, entry in enumerate(types):
        at = f"{where}.types[{j}]"
        if not isinstance(entry, dict):
            raise ConfigError(at, entry, "a table {power = NCU/s, weight = share}")
        _check_keys(at, entry, ("power", "weight"))
        for key in ("power", "weight"):
            if key not in entry:
                raise ConfigError(f"{at}.{key}", None, "a number > 0")
        power = check_number(
            f"{at}.power", entry["power"], low=MIN_POWER, high=MAX_POWER, allowed=_POWER
        )
        weight = check_number(
            f"{at}.weight",
            entry["weight"],
            low=0,
            open_low=True,
            high=MAX_WEIGHT,
            allowed=f"a number > 0, at most {MAX_WEIGHT:g}",
        )
        if power in seen:
            raise ConfigError(f"{at}.power", entry["power"], "a power not listed before")
        seen.add(power)
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
        power = check_number(f"{at}[0]", pair[0], low=MIN_POWER, high=MAX_POWER, allowed=_POWER)
        groups.append(
            (power, check_int(f"{at}[1]", pair[1], low=1, high=MAX_NODES, allowed=_NODES))
        )
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
        nodes = check_int(f"{where}.nodes", nodes, low=1, high=MAX_NODES, allowed=_NODES)
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
    """A site or queue name: it names pools (``site/queue``) and is shown in tables."""
    allowed = 'a non-empty string without "/" of printable characters (at most 200)'
    if name is None:
        raise ConfigError(where, None, allowed)
    if not isinstance(name, str) or not name.strip() or "/" in name:
        raise ConfigError(where, name, allowed)
    if not name.isprintable() or len(name) > 200:
        raise ConfigError(where, name, allowed)


def _counted_nodes(queue: Queue) -> int:
    """The nodes of ``queue`` counted towards ``max_nodes``: its node types' nodes, else its
    processors (each a node of the grid model)."""
    if queue.node_types:
        return sum(t.count for t in queue.node_types)
    return queue.nodes


def _parse_queues(
    where: str,
    raw: Mapping[str, Any],
    site: str,
    kind: str,
    site_nodes: int,
    site_groups: tuple[tuple[float, int], ...],
    base: Path,
    max_nodes: int,
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
        if isinstance(nodes, list):  # node types, [[sites.queues.nodes]]
            node_types = _parse_queue_node_types(where, j, entry, kind, site_nodes, max_nodes)
            queues.append(_parse_queue(at, entry, site, name, (), base, node_types))
            continue
        if nodes is not None:
            nodes = check_int(f"{at}.nodes", nodes, low=1, high=MAX_NODES, allowed=_NODES)
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


def _parse_queue_node_types(
    where: str, j: int, entry: Mapping[str, Any], kind: str, site_nodes: int, max_nodes: int
) -> tuple[NodeType, ...]:
    """The node types of queue ``j`` of site ``where`` (module docstring, "Node types"),
    read by the cluster file's reader; refused beside the queue's groups or a site's own
    nodes or node count."""

    at = f"{where}.queues[{j}]"
    raw = entry["nodes"]
    shown = f"{len(raw)} node types"
    if not raw or not all(isinstance(e, dict) for e in raw):
        raise ConfigError(
            f"{at}.nodes",
            raw,
            "a node count, or node types written [[sites.queues.nodes]] (tables with name, "
            "count, cores, memory)",
        )
    if kind != "queues":
        raise ConfigError(
            f"{at}.nodes",
            shown,
            "a node count: the site's nodes (its groups or sample = true) are dealt to its "
            "queues; a queue lists node types only in a site with neither",
        )
    if site_nodes >= 0:
        raise ConfigError(
            f"{where}.nodes",
            site_nodes,
            f"no node count on a site whose queue lists node types ({at}.nodes): their "
            "counts are the queue's nodes",
        )
    if "groups" in entry:
        raise ConfigError(
            f"{at}.groups",
            entry["groups"],
            "no groups beside node types ([[sites.queues.nodes]]): a queue gives its "
            "machines one way",
        )
    return parse_node_types(f"{at}.nodes", raw, max_nodes)


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
    node_types: tuple[NodeType, ...] = (),
) -> Queue:
    t_max = entry.get("t_max", math.inf)
    if not (isinstance(t_max, float) and t_max == math.inf):
        t_max = check_number(
            f"{at}.t_max",
            t_max,
            low=0,
            open_low=True,
            high=MAX_TIME,
            allowed=f"a number of seconds > 0, at most {MAX_TIME:g} (or inf: no limit)",
        )
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
        where=at,
        node_types=node_types,
    )


def _parse_params(at: str, policy: object, raw: object) -> dict[str, Any]:
    """The written parameters, checked for shape only: a table of strings, numbers and
    booleans. Their names and values are the policy's business, checked against the registry
    where runs are built (`grid.platforms.check_policies`)."""
    if not isinstance(policy, str) or not policy:
        raise ConfigError(f"{at}.policy", policy, "the name of a registered policy (a string)")
    if not isinstance(raw, dict):
        raise ConfigError(f"{at}.params", raw, f"a table of the parameters of {policy}")
    for key, value in raw.items():
        if not isinstance(value, str | int | float | bool):
            raise ConfigError(f"{at}.params.{key}", value, "a string, number or boolean")
    return dict(raw)


def _parse_service(where: str, raw: object, base: Path, *, bounded: bool) -> ServiceTime:
    """Seconds, or a table {dist = ...} (module docstring); mu_env must be bounded. Every
    value is at most `MAX_DELAY` seconds."""
    if not isinstance(raw, dict):
        return Constant(_delay(where, raw))
    dist = raw.get("dist")
    if dist not in SERVICE_KEYS:
        raise ConfigError(f"{where}.dist", dist, list(SERVICE_KEYS))
    _check_keys(where, raw, SERVICE_KEYS[dist])
    if dist == "constant":
        return Constant(_delay(f"{where}.value", raw.get("value")))
    if dist == "uniform":
        low = _delay(f"{where}.low", raw.get("low"))
        high = _delay(f"{where}.high", raw.get("high"))
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
        return Exponential(_delay(f"{where}.mean", raw.get("mean")))
    if ("values" in raw) == ("file" in raw):
        raise ConfigError(where, raw, "exactly one of values = [seconds, ...] or file = path")
    if "values" in raw:
        values = raw["values"]
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}.values", values, "a non-empty array of seconds")
        if len(values) > MAX_VALUES:
            raise ConfigError(
                f"{where}.values", f"{len(values):,} values", f"at most {MAX_VALUES:,}"
            )
        return Empirical(tuple(_delay(f"{where}.values[{k}]", v) for k, v in enumerate(values)))
    return Empirical(_read_seconds(f"{where}.file", raw["file"], base))


def _delay(where: str, value: object) -> float:
    """A number of seconds in [0, `MAX_DELAY`] (a latency, a service time or one of its
    values)."""
    return check_number(where, value, low=0, high=MAX_DELAY, allowed=_DELAY)


def _read_seconds(where: str, name: object, base: Path) -> tuple[float, ...]:
    """The measured seconds of ``file = name`` (relative to ``base``): one number per line,
    ``#`` comments, each in [0, `MAX_DELAY`]; read through `read_input` (an input of the
    command: no output may replace it)."""
    if not isinstance(name, str) or not name:
        raise ConfigError(where, name, "a path to a text file of seconds")
    allowed = "a readable text file of seconds, one per line"

    def fail(message: str) -> ConfigError:
        return ConfigError(where, name, f"{allowed} ({message})")

    path = Path(os.path.expanduser(name) if "\0" not in name else name)  # (~unknown: as is)
    data = read_input(path if path.is_absolute() else base / path, kind="a file", error=fail)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"not UTF-8 text: {exc.reason}") from None
    values: list[float] = []
    for lineno, line in enumerate(text.split("\n"), 1):  # only \n ends a line
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            value = float(body) if "_" not in body else math.nan
        except ValueError:
            value = math.nan
        if not 0 <= value <= MAX_DELAY:  # NaN and words fail too
            raise fail(f"line {lineno}: {printable(body[:40])!r} is not {_DELAY}")
        values.append(value)
        if len(values) > MAX_VALUES:
            raise fail(f"more than {MAX_VALUES:,} values")
    if not values:
        raise ConfigError(where, name, "a file of at least one number >= 0")
    return tuple(values)
