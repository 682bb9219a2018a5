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
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError, printable
from schedlab.platform.description import DEFAULT_MAX_NODES
from schedlab.platform.files import PlatformFileError
from schedlab.platform.node_types import (
    MAX_CORES_PER_NODE,
    MAX_GPUS_PER_NODE,
    MAX_GRES_COUNT,
    MAX_GRES_NAMES,
    MAX_NODE_TYPES,
    MAX_NODES,
    MAX_PARTITIONS,
    MAX_TOTAL_CORES,
    NODE_KEYS,
    GresCounts,
    NodeType,
    check_keys,
    parse_node_types,
)
from schedlab.tomlfile import read_toml
from schedlab.validators import check_int

__all__ = [
    "DEFAULT_PLACEMENT",
    "MAX_CORES_PER_NODE",
    "MAX_GPUS_PER_NODE",
    "MAX_GRES_COUNT",
    "MAX_GRES_NAMES",
    "MAX_NODE_TYPES",
    "MAX_TOTAL_CORES",
    "NODE_KEYS",
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
MAX_DESCRIPTION = 10_000  # characters

TOP_LEVEL_KEYS = ("name", "description", "placement", "max_nodes", "nodes")


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


# --- values ---------------------------------------------------------------------------------


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
        if len(self.partitions) > MAX_PARTITIONS:
            raise ConfigError(
                "partitions of the node types",
                f"{len(self.partitions)} partition names",
                f"at most {MAX_PARTITIONS}",
            )

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
    def partitions(self) -> tuple[str, ...]:
        """The partition names the node types list, in order of first appearance (a job's
        partition picks its nodes; none listed: every node takes every job)."""
        names: dict[str, None] = {}
        for t in self.node_types:
            names.update(dict.fromkeys(t.partitions))
        return tuple(names)

    def node_partitions(self) -> list[int]:
        """Each node's partitions as a bit mask (bit k: ``partitions[k]``; -1: a node of a
        type that lists none is in every partition), nodes in order."""
        bit = {name: k for k, name in enumerate(self.partitions)}
        masks: list[int] = []
        for t in self.node_types:
            mask = sum(1 << bit[name] for name in t.partitions) if t.partitions else -1
            masks.extend([mask] * t.count)
        return masks

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
            and not t.partitions
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
    check_keys("", data, TOP_LEVEL_KEYS)
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
