"""The ``cluster`` key of a sweep file's ``[[workloads]]`` entries: runs on a cluster of node
types (issue 24; `experiments.sweep_entries` holds the other keys).

Decisions a user can rely on:

* ``cluster = "cluster.toml"`` is a cluster file of ``[[nodes]]`` tables (`platform.cluster`,
  ``schedlab example cluster-gpu``), the machine of every run of the entry, as
  ``schedlab run --platform CLUSTER.toml`` takes it. A relative path is from the sweep file's
  folder; it is stored in `RunConfig.cluster` as written, normalised (posix separators, no
  ``./``, no ``x/..``; ``~`` expanded), like trace and platform paths, so run ids survive a
  move of the folder. The file is read when the sweep is: its mistakes are reported under
  the entry's key path (``workloads[1].cluster (nodes[0].memory)``).
* The cluster's nodes are the machine: ``procs`` (in the entry or in ``[grid]``) and
  ``platform`` cannot be given with it. The workload is read, or its model generated, for
  the cluster's cores, as ``schedlab run --platform`` does: a model spec may leave out its
  machine size (lublin's ``procs``, mmc's ``servers``, hlw's ``nodes``), which is then
  stored as the cluster's cores; written, it must be that number (never silently replaced).
* Jobs are placed on nodes by the node version of each policy (`schedulers.nodes`), so
  every policy of the sweep must have one, with the same parameters; a policy exact only on
  a pooled processor count (``pps``, ``cpa``) is refused, naming the policy, the entry and
  why, rather than approximated. A cluster of single-core nodes with nothing else (today's
  processor model) runs the processor policies, every one of them.
* The default label is the workload's followed by ``on NAME`` (the file name without
  ``.toml``), so that the same trace on a cluster and on ``procs`` is told apart.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError
from schedlab.platform.cluster import ClusterSpec, read_cluster
from schedlab.validators import expand_user
from schedlab.workload.load import SIZE_KEYS

__all__ = [
    "CLUSTER_ALLOWED",
    "check_model_size",
    "check_node_policy",
    "cluster_label",
    "parse_cluster_key",
    "sized_spec",
]

CLUSTER_ALLOWED = (
    "an existing cluster file of [[nodes]] tables (relative: from the sweep file's folder)"
)


def parse_cluster_key(
    entry: dict[str, Any], where: str, base_dir: Path, grid: dict[str, list[Any]]
) -> tuple[str, ClusterSpec] | None:
    """(the path as stored, the cluster read now) of an entry with ``cluster``, else None."""
    if "cluster" not in entry:
        return None
    value = entry["cluster"]
    at = f"{where}.cluster"
    for key in ("procs", "platform"):
        if key in entry:
            raise ConfigError(
                at, value, f"a cluster without {key} in the same entry (its nodes are the machine)"
            )
    if "procs" in grid:
        raise ConfigError(
            at, value, "a cluster only when grid.procs is not set (its nodes are the machine)"
        )
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(at, value, CLUSTER_ALLOWED)
    stored = Path(os.path.normpath(expand_user(at, value, CLUSTER_ALLOWED))).as_posix()
    path = base_dir / stored
    try:
        exists = path.is_file()
    except (OSError, ValueError):  # a name the system refuses (too long, NUL)
        exists = False
    if not exists:
        raise ConfigError(at, value, CLUSTER_ALLOWED)
    try:
        cluster = read_cluster(os.path.normpath(path))
    except ConfigError as exc:
        raise ConfigError(f"{at} ({exc.option})", exc.value, exc.allowed) from None
    return stored, cluster


def sized_spec(spec: str, cores: int) -> str:
    """``spec`` with the model's machine size set to ``cores`` when it leaves it out."""
    name, _, rest = spec.partition(":")
    key = SIZE_KEYS.get(name.strip())
    items = [item.strip() for item in rest.split(",") if item.strip()]
    if key is None or any(item.partition("=")[0].strip() == key for item in items):
        return spec
    return f"{name}:{','.join([*items, f'{key}={cores}'])}"


def check_model_size(where: str, spec: str, name: str, params: dict[str, Any], cores: int) -> None:
    """A machine size written in a model spec of an entry with a cluster is its cores."""
    key = SIZE_KEYS.get(name)
    if key is not None and params.get(key) != cores:
        raise ConfigError(
            where,
            spec,
            f"a spec whose {key} is the cluster's cores ({cores}), or without {key} "
            "(the cluster's nodes are the machine)",
        )


def cluster_label(stored: str) -> str:
    """The file name without ``.toml``: what a default label adds (``on NAME``)."""
    name = stored.rsplit("/", 1)[-1]
    return name[: -len(".toml")] if name.endswith(".toml") else name


def check_node_policy(where: str, stored: str, policy: str, params: dict[str, Any]) -> None:
    """ConfigError at ``where`` (the entry's ``cluster`` key path) unless ``policy`` has a
    node version that takes ``params`` (module docstring)."""
    from schedlab.registry import make_params
    from schedlab.schedulers.nodes.registry import (
        available_node_policies,
        node_policy_class,
        pooled_only_reason,
    )

    reason = pooled_only_reason(policy)
    if reason is not None:
        listed = ", ".join(available_node_policies()) or "none installed"
        raise ConfigError(
            where,
            stored,
            f"a cluster of node types only with policies that place jobs on nodes ({listed}): "
            f"policy {policy} cannot run on node types because {reason}",
        )
    cls = node_policy_class(policy)
    if getattr(cls, "Params", None) is None:
        if params:
            raise ConfigError(
                where, stored, f"policy {policy} on node types takes no parameters ({params})"
            )
        return
    try:
        make_params(cls, params, name=f"{policy} on node types")
    except ConfigError as exc:
        raise ConfigError(
            where,
            stored,
            f"a cluster of node types only with parameters the node version of {policy} "
            f"takes ({exc})",
        ) from None
