"""A cluster described by node types: how many nodes of each kind, and the cores, memory,
GPUs and named generic resources each node has (issue 24, item 1).

Sites run nodes of a few kinds (CPU nodes, GPU nodes, large-memory nodes) whose jobs ask for
nodes, cores, memory and GPUs, as Slurm's ``select/cons_tres`` and PBS chunks allocate them.
A `ClusterSpec` is such a machine: a tuple of `NodeType` (a count of equal nodes) and the
placement rule that chooses nodes for a job. Today's processor model is the cluster of P
single-core nodes with memory and GPUs unconstrained (`ClusterSpec.single_core`); its
``cores`` total is the processor count a processor-only policy sees, so a run given
``--procs P`` describes the same machine either way.

Units: memory in MiB (float; ``inf`` = unconstrained, never written in a file), GPUs and
generic resources as counts per node, ``power`` a relative speed (1.0: jobs run as recorded;
recorded with the node type, used by runs once they place jobs on nodes). Nodes are numbered
from 0 in file order, type by type (`ClusterSpec.first_node`): "first_fit" takes the lowest
numbers first, "best_fit" the nodes left with the fewest free cores (then memory, then GPUs;
then the lowest number).

The file (``schedlab example cluster-gpu``), read by `read_cluster`::

    name = "mycluster"        # optional (default: the file's name without .toml)
    description = "..."       # optional free text
    placement = "first_fit"   # first_fit (default) or best_fit
    # max_nodes = 5000000     # raise the ceiling of 1,000,000 nodes (up to 2**31 - 1)
    [[nodes]]                 # one table per node type, at least one, names unique
    name = "cpu"              # letters, digits, "_", "." and "-" (at most 64)
    count = 400               # nodes of this type
    cores = 128               # cores (Slurm's CPUs, PBS's ncpus) per node
    memory = "512G"           # per node: K, M, G, T (1024-based) or a number of MiB
    gpus = 0                  # GPUs per node (default 0)
    power = 1.0               # relative speed (default 1.0)
    [nodes.gres]              # optional: other countable resources per node
    nvme = 2                  # (GPUs are ``gpus``, never a gres named gpu)

**Bounds** (the standard of every input, issue 22): a node type's ``count`` is at least 1
and the file's nodes at most 1,000,000 in all unless its top-level ``max_nodes = N`` raises
the ceiling (up to 2**31 - 1); ``cores`` 1..100,000 per node and at most 2**31 - 1 in the
cluster (a processor-only policy sees them as processors, a pool holds at most that many);
``memory`` in (0, 2**40] MiB; ``gpus`` 0..1024; generic resource counts 0..1,000,000 and at
most 64 names per node type; ``power`` in [1e-6, 1e9] (the range of grid node powers); at
most 100,000 node types. Unknown keys are refused with the list of allowed ones. Every
mistake is a `PlatformFileError` (a `ConfigError`) whose one-line message starts with the
file's name and names the key path (``nodes[1].memory``; indices from 0) or the line of a
TOML syntax error.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError, printable, quote
from schedlab.platform.description import DEFAULT_MAX_NODES, MAX_NODES
from schedlab.platform.files import PlatformFileError
from schedlab.platform.pool import MAX_POWER, MAX_PROCS, MIN_POWER
from schedlab.tomlfile import read_toml
from schedlab.validators import check_int, check_number, is_number, parse_memory_mib

__all__ = [
    "DEFAULT_PLACEMENT",
    "MAX_CORES_PER_NODE",
    "MAX_GPUS_PER_NODE",
    "MAX_GRES_COUNT",
    "MAX_GRES_NAMES",
    "MAX_NODE_TYPES",
    "MAX_TOTAL_CORES",
    "PLACEMENT_RULES",
    "ClusterSpec",
    "GresCounts",
    "NodeType",
    "parse_cluster",
    "parse_node_types",
    "read_cluster",
]

PLACEMENT_RULES = ("first_fit", "best_fit")
DEFAULT_PLACEMENT = "first_fit"
# Bounds (module docstring): far beyond any machine built, small enough that every total is
# an exact int and every per-node array fits its dtype
MAX_CORES_PER_NODE = 100_000
MAX_TOTAL_CORES = MAX_PROCS  # 2**31 - 1: the processors of one pool
MAX_GPUS_PER_NODE = 1024
MAX_GRES_COUNT = 1_000_000
MAX_GRES_NAMES = 64  # generic resources per node type
MAX_NODE_TYPES = 100_000  # equal nodes are one type with a count, not one table per node
MAX_DESCRIPTION = 10_000  # characters

TOP_LEVEL_KEYS = ("name", "description", "placement", "max_nodes", "nodes")
NODE_KEYS = ("name", "count", "cores", "memory", "gpus", "gres", "power")
# a node type's or generic resource's name: it will name nodes in per-job tables
# (``gpu[3]``) and resources in metric columns, so no spaces, commas or brackets
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_NAME_ALLOWED = (
    'a name of letters, digits, "_", "." and "-" (at most 64, starting with a letter or digit)'
)
_GPU_NAMES = ("gpu", "gpus")


class GresCounts(Mapping[str, int]):
    """Counts of named generic resources, ``{name: count}`` sorted by name: a read-only
    mapping that is hashable and picklable, so that a frozen `NodeType` holding it is a value
    (equal, hashable, sent to sweep workers) as a dict would not let it be."""

    __slots__ = ("_counts",)

    def __init__(self, counts: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        self._counts = dict(sorted(dict(counts).items()))

    def __getitem__(self, key: str) -> int:
        return self._counts[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)

    def __hash__(self) -> int:
        return hash(tuple(self._counts.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return self._counts == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"GresCounts({self._counts!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (GresCounts, (self._counts,))


# --- checks shared by the dataclasses (built in code) and the file reader -------------------
# each takes the option it names: a key path in a file (``nodes[1].cores``), words in code
# (``cores of node type gpu``)


def _check_type_name(where: str, value: object) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise ConfigError(where, value, _NAME_ALLOWED)
    return value


def _check_count(where: str, value: object, ceiling: int = MAX_NODES) -> int:
    allowed = f"a number of nodes, an integer in 1..{ceiling:,}"
    if ceiling < MAX_NODES:
        allowed += f" ({_too_many(ceiling)})"
    return check_int(where, value, low=1, high=ceiling, allowed=allowed)


def _check_cores(where: str, value: object) -> int:
    allowed = f"cores per node, an integer in 1..{MAX_CORES_PER_NODE:,}"
    return check_int(where, value, low=1, high=MAX_CORES_PER_NODE, allowed=allowed)


def _check_memory(where: str, value: object) -> float:
    """A number of MiB per node in (0, 2**40], or inf (unconstrained: today's processor
    model); a file's sizes with units are read by `parse_memory_mib`."""
    if not is_number(value):
        raise ConfigError(where, value, "a number of MiB > 0, at most 2**40 (inf: unconstrained)")
    if float(value) == math.inf:  # type: ignore[arg-type]
        return math.inf
    return _at_least_a_mib(where, value, parse_memory_mib(value, where))


def _at_least_a_mib(where: str, value: object, mib: float) -> float:
    """A node has at least 1 MiB (Slurm's smallest RealMemory): placement counts memory in
    whole KiB, where a few bytes would become a node that holds nothing."""
    if mib < 1:
        raise ConfigError(where, value, "at least 1 MiB of memory per node (e.g. 512G)")
    return mib


def _check_gpus(where: str, value: object) -> int:
    allowed = f"GPUs per node, an integer in 0..{MAX_GPUS_PER_NODE:,}"
    return check_int(where, value, low=0, high=MAX_GPUS_PER_NODE, allowed=allowed)


def _check_gres(where: str, value: object) -> GresCounts:
    allowed = f"a table {{name = count}} of at most {MAX_GRES_NAMES} generic resources per node"
    if not isinstance(value, Mapping):
        raise ConfigError(where, value, allowed)
    if len(value) > MAX_GRES_NAMES:
        raise ConfigError(where, f"{len(value):,} generic resources", allowed)
    counts: dict[str, int] = {}
    for name, count in value.items():
        at = f"{where}.{_key(name)}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ConfigError(at, name, f"a generic resource named by {_NAME_ALLOWED}")
        if name.lower() in _GPU_NAMES:
            raise ConfigError(
                at, count, "a resource other than GPUs: give a node's GPUs as gpus = N"
            )
        counts[name] = check_int(
            at,
            count,
            low=0,
            high=MAX_GRES_COUNT,
            allowed=f"a count per node, an integer in 0..{MAX_GRES_COUNT:,}",
        )
    return GresCounts(counts)


def _check_power(where: str, value: object) -> float:
    allowed = f"a relative speed in [{MIN_POWER:g}, {MAX_POWER:g}] (1.0: as recorded)"
    return check_number(where, value, low=MIN_POWER, high=MAX_POWER, allowed=allowed)


def _check_cluster_name(where: str, value: object) -> str:
    allowed = "a non-empty string of printable characters (at most 200)"
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(where, value, allowed)
    if not value.isprintable() or len(value) > 200:
        raise ConfigError(where, value, allowed)
    return value


def _check_description(where: str, value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_DESCRIPTION:
        raise ConfigError(where, value, f"a string of at most {MAX_DESCRIPTION:,} characters")
    return value


def _too_many(ceiling: int) -> str:
    """What a file holding more than ``ceiling`` nodes is told: how to raise the ceiling (as
    a grid platform file is)."""
    return (
        f"at most {ceiling:,} nodes in all; raise the ceiling deliberately with "
        f"max_nodes = N at the top of the file (up to {MAX_NODES:,})"
    )


def _key(key: object) -> str:
    """A TOML key as a key path shows it: printable, and short (a quoted key may hold escapes
    and any length)."""
    return quote(str(key), 80)


# --- values ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeType:
    """``count`` equal nodes, each with ``cores`` cores, ``memory_mib`` MiB of memory (inf:
    unconstrained), ``gpus`` GPUs, the generic resources ``gres`` ({name: count}) and a
    relative speed ``power``. Checked on construction against the bounds of the module
    docstring, so a node type built in code is as bounded as one read from a file."""

    name: str
    count: int
    cores: int
    memory_mib: float = math.inf
    gpus: int = 0
    gres: Mapping[str, int] = field(default_factory=GresCounts)
    power: float = 1.0

    def __post_init__(self) -> None:
        name = _check_type_name("name of a node type", self.name)
        of = f"of node type {name}"
        set_ = object.__setattr__
        set_(self, "count", _check_count(f"count {of}", self.count))
        set_(self, "cores", _check_cores(f"cores {of}", self.cores))
        set_(self, "memory_mib", _check_memory(f"memory_mib {of}", self.memory_mib))
        set_(self, "gpus", _check_gpus(f"gpus {of}", self.gpus))
        set_(self, "gres", _check_gres(f"gres {of}", self.gres))
        set_(self, "power", _check_power(f"power {of}", self.power))


@dataclass(frozen=True)
class ClusterSpec:
    """A cluster: its ``node_types`` (nodes numbered type by type, in this order) and the
    ``placement`` rule, "first_fit" or "best_fit" (module docstring).

    ``description`` and ``source`` (the file it was read from; "" when built in code) are not
    part of its value: two clusters differing only there are equal.
    """

    name: str
    node_types: tuple[NodeType, ...]
    placement: str = DEFAULT_PLACEMENT
    description: str = field(default="", compare=False)
    source: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_cluster_name("cluster name", self.name)
        types = tuple(self.node_types)
        object.__setattr__(self, "node_types", types)
        if not types or not all(isinstance(t, NodeType) for t in types):
            raise ConfigError("node types", self.node_types, "at least one NodeType")
        if len(types) > MAX_NODE_TYPES:
            raise ConfigError(
                "node types", f"{len(types):,} node types", f"at most {MAX_NODE_TYPES:,}"
            )
        seen: set[str] = set()
        for t in types:
            if t.name in seen:
                raise ConfigError("name of a node type", t.name, "a name no other type has")
            seen.add(t.name)
        if self.placement not in PLACEMENT_RULES:
            raise ConfigError("placement", self.placement, PLACEMENT_RULES)
        if self.nodes > MAX_NODES:
            raise ConfigError(
                "node types", f"{self.nodes:,} nodes", f"at most {MAX_NODES:,} nodes in all"
            )
        if self.cores > MAX_TOTAL_CORES:
            raise ConfigError(
                "node types", f"{self.cores:,} cores", f"at most {MAX_TOTAL_CORES:,} cores in all"
            )
        _check_description("description", self.description)

    @classmethod
    def single_core(cls, procs: int) -> ClusterSpec:
        """Today's processor model: ``procs`` nodes of one core, memory unconstrained, no
        GPUs, power 1 (what ``--procs P`` and an SWF ``MaxProcs`` mean)."""
        procs = check_int("procs", procs, low=1, high=MAX_TOTAL_CORES)
        return cls(name="single-core", node_types=(NodeType("proc", procs, 1),))

    @property
    def nodes(self) -> int:
        """Nodes in all."""
        return sum(t.count for t in self.node_types)

    @property
    def cores(self) -> int:
        """Cores in all: the processor count a processor-only policy sees."""
        return sum(t.count * t.cores for t in self.node_types)

    @property
    def memory_mib(self) -> float:
        """MiB in all (inf when some node type's memory is unconstrained)."""
        return math.fsum(t.count * t.memory_mib for t in self.node_types)

    @property
    def gpus(self) -> int:
        """GPUs in all."""
        return sum(t.count * t.gpus for t in self.node_types)

    @property
    def gres(self) -> GresCounts:
        """Each generic resource in all."""
        totals: dict[str, int] = {}
        for t in self.node_types:
            for name, count in t.gres.items():
                totals[name] = totals.get(name, 0) + t.count * count
        return GresCounts(totals)

    @property
    def first_node(self) -> tuple[int, ...]:
        """The number of each node type's first node (nodes are numbered from 0 in type
        order): type i holds nodes ``first_node[i]`` to ``first_node[i] + count - 1``."""
        return tuple(accumulate((t.count for t in self.node_types[:-1]), initial=0))

    @property
    def is_processor_model(self) -> bool:
        """True when the cluster is today's processor model (single-core nodes of power 1,
        memory unconstrained, no GPUs or generic resources), which runs keep on their fast
        path whatever the placement rule."""
        return all(
            t.cores == 1
            and t.memory_mib == math.inf
            and t.gpus == 0
            and not any(t.gres.values())
            and t.power == 1.0
            for t in self.node_types
        )


# --- the file -------------------------------------------------------------------------------


def read_cluster(path: str | os.PathLike[str]) -> ClusterSpec:
    """Read a cluster file (module docstring) through `schedlab.tomlfile.read_toml` (a
    regular file under the input size limit, recorded as an input of the command)."""
    source = os.fspath(path)
    try:
        data, _, source = read_toml(path, "cluster file")
    except ConfigError as exc:
        raise _file_error(exc, source) from None
    return parse_cluster(data, source)


def _file_error(exc: ConfigError, source: str) -> PlatformFileError:
    """A reading or TOML syntax error of `read_toml` with the file's name first, once."""
    option = exc.option
    if option.startswith(f"{source} line "):
        option = option[len(source) + 1 :]
    elif option == f"cluster file {source}":
        option = "cluster file"
    return PlatformFileError(option, exc.value, exc.allowed, source)


def parse_cluster(data: Mapping[str, Any], source: str) -> ClusterSpec:
    """Check the parsed TOML ``data`` of a cluster file and build the `ClusterSpec`;
    ``source`` names the file in the result and first in every error."""
    try:
        return _parse_cluster(data, source)
    except ConfigError as exc:
        raise PlatformFileError.of(exc, source) from None


def _parse_cluster(data: Mapping[str, Any], source: str) -> ClusterSpec:
    if not isinstance(data, Mapping):
        raise ConfigError("cluster file", type(data).__name__, "a TOML table of keys")
    _check_keys("", data, TOP_LEVEL_KEYS)
    if "name" in data:
        name = _check_cluster_name("name", data["name"])
    else:
        name = printable(Path(source).stem)[:200].strip() or "cluster"
    description = _check_description("description", data.get("description", ""))
    placement = data.get("placement", DEFAULT_PLACEMENT)
    if placement not in PLACEMENT_RULES:
        raise ConfigError("placement", placement, PLACEMENT_RULES)
    max_nodes = check_int(
        "max_nodes",
        data.get("max_nodes", DEFAULT_MAX_NODES),
        low=1,
        high=MAX_NODES,
        allowed=f"an integer in 1..{MAX_NODES:,} (default {DEFAULT_MAX_NODES:,})",
    )
    node_types = parse_node_types("nodes", data.get("nodes"), max_nodes)
    return ClusterSpec(
        name=name,
        node_types=node_types,
        placement=placement,
        description=description,
        source=source,
    )


def parse_node_types(where: str, raw: object, max_nodes: int) -> tuple[NodeType, ...]:
    """The node types of the array of tables at key path ``where`` (``nodes``), with at most
    ``max_nodes`` nodes in all; every error names its key path. A cluster file's ``[[nodes]]``
    and, later, a grid queue's share this reader."""
    allowed = f"an array of tables, written [[{where}]] (at least one)"
    if raw is None:
        raise ConfigError(where, None, f"at least one [[{where}]] table")
    if not isinstance(raw, list) or not raw or not all(isinstance(e, dict) for e in raw):
        raise ConfigError(where, raw, allowed)
    if len(raw) > MAX_NODE_TYPES:
        raise ConfigError(
            where,
            f"{len(raw):,} node types",
            f"at most {MAX_NODE_TYPES:,} node types (equal nodes are one type with a count)",
        )
    types: list[NodeType] = []
    seen: dict[str, int] = {}
    nodes = cores = 0
    for i, entry in enumerate(raw):
        at = f"{where}[{i}]"
        node_type = _parse_node_type(at, entry, max_nodes)
        if node_type.name in seen:
            raise ConfigError(
                f"{at}.name",
                node_type.name,
                f"a name no other node type has ({where}[{seen[node_type.name]}])",
            )
        seen[node_type.name] = i
        nodes += node_type.count
        if nodes > max_nodes:
            raise ConfigError(f"{at}.count", f"{nodes:,} nodes in all", _too_many(max_nodes))
        cores += node_type.count * node_type.cores
        if cores > MAX_TOTAL_CORES:
            raise ConfigError(
                f"{at}.cores",
                f"{cores:,} cores in all",
                f"at most {MAX_TOTAL_CORES:,} cores in the cluster in all (a processor-only "
                "policy sees them as processors)",
            )
        types.append(node_type)
    return tuple(types)


def _parse_node_type(at: str, raw: Mapping[str, Any], max_nodes: int) -> NodeType:
    _check_keys(at, raw, NODE_KEYS)
    name = _check_type_name(f"{at}.name", raw.get("name"))
    count = _check_count(f"{at}.count", raw.get("count"), max_nodes)
    cores = _check_cores(f"{at}.cores", raw.get("cores"))
    memory = _at_least_a_mib(
        f"{at}.memory", raw.get("memory"), parse_memory_mib(raw.get("memory"), f"{at}.memory")
    )
    gpus = _check_gpus(f"{at}.gpus", raw.get("gpus", 0))
    gres = _check_gres(f"{at}.gres", raw.get("gres", {}))
    power = _check_power(f"{at}.power", raw.get("power", 1.0))
    return NodeType(name, count, cores, memory, gpus, gres, power)


def _check_keys(where: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{_key(key)}" if where else _key(key)
            raise ConfigError(path, table[key], f"one of the keys {', '.join(allowed)}")
