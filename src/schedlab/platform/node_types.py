"""Node types: ``count`` equal nodes with their cores, memory, GPUs, named generic resources,
relative power and the partitions they belong to (issue 24), and the reader of the
``[[nodes]]`` tables that a cluster file (`platform.cluster`) and a grid queue
(`platform.files`, ``[[sites.queues.nodes]]``) share. Bounds and units: `platform.cluster`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedlab.errors import ConfigError, quote
from schedlab.platform.pool import MAX_POWER, MAX_PROCS, MIN_POWER
from schedlab.validators import check_int, check_number, is_number, parse_memory_mib

__all__ = [
    "MAX_CORES_PER_NODE",
    "MAX_GPUS_PER_NODE",
    "MAX_GRES_COUNT",
    "MAX_GRES_NAMES",
    "MAX_NODES",
    "MAX_PARTITIONS",
    "MAX_NODE_TYPES",
    "MAX_TOTAL_CORES",
    "NODE_KEYS",
    "GresCounts",
    "NodeType",
    "check_keys",
    "parse_node_types",
]

MAX_NODES = MAX_PROCS  # 2**31 - 1 nodes in a file at most, as a pool's processors
MAX_CORES_PER_NODE = 100_000
MAX_TOTAL_CORES = MAX_PROCS  # 2**31 - 1: the processors of one pool
MAX_GPUS_PER_NODE = 1024
MAX_GRES_COUNT = 1_000_000
MAX_GRES_NAMES = 64  # generic resources per node type
MAX_NODE_TYPES = 100_000  # equal nodes are one type with a count, not one table per node

NODE_KEYS = ("name", "count", "cores", "memory", "gpus", "gres", "power", "partitions")
# partition names in a cluster: each is a bit of a node's int64 mask, and one more bit stands
# for "a partition this cluster does not have" (workload.requests)
MAX_PARTITIONS = 62
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


@dataclass(frozen=True)
class NodeType:
    """``count`` equal nodes, each with ``cores`` cores, ``memory_mib`` MiB of memory (inf:
    unconstrained), ``gpus`` GPUs, the generic resources ``gres`` ({name: count}) and a
    relative speed ``power``; ``partitions``: the names of the partitions (Slurm's, PBS's
    queues) whose jobs may run on these nodes, empty for every partition. Checked on
    construction against the bounds of the module docstring, so a node type built in code
    is as bounded as one read from a file."""

    name: str
    count: int
    cores: int
    memory_mib: float = math.inf
    gpus: int = 0
    gres: Mapping[str, int] = field(default_factory=GresCounts)
    power: float = 1.0
    partitions: tuple[str, ...] = ()

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
        set_(self, "partitions", _check_partitions(f"partitions {of}", self.partitions))


def _check_partitions(where: str, value: object) -> tuple[str, ...]:
    allowed = f"a list of at most {MAX_PARTITIONS} distinct partition names ({_NAME_ALLOWED})"
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) > MAX_PARTITIONS:
        raise ConfigError(where, value, allowed)
    names = tuple(value)
    if len(set(names)) != len(names):
        raise ConfigError(where, value, allowed)
    for name in names:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ConfigError(where, name, allowed)
    return names


def parse_node_types(where: str, raw: object, max_nodes: int) -> tuple[NodeType, ...]:
    """The node types of the array of tables at key path ``where`` (``nodes``), with at most
    ``max_nodes`` nodes in all; every error names its key path. A cluster file's ``[[nodes]]``
    and a grid queue's ([[sites.queues.nodes]]) share this reader."""
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
    check_keys(at, raw, NODE_KEYS)
    name = _check_type_name(f"{at}.name", raw.get("name"))
    count = _check_count(f"{at}.count", raw.get("count"), max_nodes)
    cores = _check_cores(f"{at}.cores", raw.get("cores"))
    memory = _at_least_a_mib(
        f"{at}.memory", raw.get("memory"), parse_memory_mib(raw.get("memory"), f"{at}.memory")
    )
    gpus = _check_gpus(f"{at}.gpus", raw.get("gpus", 0))
    gres = _check_gres(f"{at}.gres", raw.get("gres", {}))
    power = _check_power(f"{at}.power", raw.get("power", 1.0))
    partitions = _check_partitions(f"{at}.partitions", raw.get("partitions", ()))
    return NodeType(name, count, cores, memory, gpus, gres, power, partitions)


def check_keys(where: str, table: Mapping[str, Any], allowed: Sequence[str]) -> None:
    for key in table:
        if key not in allowed:
            path = f"{where}.{_key(key)}" if where else _key(key)
            raise ConfigError(path, table[key], f"one of the keys {', '.join(allowed)}")
