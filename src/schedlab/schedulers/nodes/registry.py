"""Node policy names -> classes: the policies of the node loop (`engine.nodeloop`), under
the names of their processor counterparts ("easy" on nodes is EASY with its reservation
computed on nodes).

A run on node types looks its policy up here; a processor policy without a node version is
refused by name rather than approximated on pooled counts (`pooled_only_reason`).
Third parties declare an entry point in the group ``schedlab.node_policies``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from schedlab.engine.nodeloop import NodePolicy, NodeRun
from schedlab.engine.nodeloop import simulate_nodes as _simulate_nodes
from schedlab.platform.placement import Request
from schedlab.registry import Registry

__all__ = [
    "NODE_POLICIES",
    "POOLED_ONLY",
    "available_node_policies",
    "make_node_policy",
    "node_policy_class",
    "pooled_only_reason",
    "register_node_policy",
    "simulate_nodes",
]

NODE_POLICIES = Registry("node policy", "schedlab.node_policies")
register_node_policy = NODE_POLICIES.register

# the built-in node policies, imported on first use (each registers itself)
_BUILTIN_MODULES = ("fcfs", "easy", "conservative", "dbf", "multifactor")

# Processor policies with no node version, and why: they are exact only on a pooled
# processor count, so a run on node types refuses them (issue 24, item 4).
POOLED_ONLY: dict[str, str] = {
    "pps": "its preemptions and checkpoints free processors from a pooled count",
    "cpa": "its allocations are computed on a pooled processor count",
}


def _load_builtins() -> None:
    """Import the built-in node policies (each registers itself; they import this module,
    so they are imported on first use rather than at the top)."""
    for module in _BUILTIN_MODULES:
        importlib.import_module(f"schedlab.schedulers.nodes.{module}")


def available_node_policies() -> list[str]:
    """Every node policy name, sorted."""
    _load_builtins()
    return NODE_POLICIES.available()


def node_policy_class(name: str) -> Any:
    """The class of a node policy; ConfigError listing the names otherwise."""
    _load_builtins()
    return NODE_POLICIES.get(name)


def make_node_policy(name: str, **params: Any) -> NodePolicy:
    """A fresh node policy instance, configured by keyword parameters."""
    _load_builtins()
    policy: NodePolicy = NODE_POLICIES.make(name, **params)
    return policy


def pooled_only_reason(name: str) -> str | None:
    """Why processor policy ``name`` cannot run on node types, or None if it has a node
    version (or is unknown: the registry says so)."""
    _load_builtins()
    if name in NODE_POLICIES.available():
        return None
    return POOLED_ONLY.get(name, "it has no node version: it counts processors in a pool")


def simulate_nodes(
    submit: Sequence[float],
    run: Sequence[float],
    req: Sequence[float],
    requests: Sequence[Request],
    capacities: Sequence[tuple[int, float, int]],
    policy: NodePolicy | str,
    rule: str = "first_fit",
    kill_on_overrun: bool = True,
    check: bool = True,
    **params: Any,
) -> NodeRun:
    """`engine.nodeloop.simulate_nodes` with ``policy`` also given by name (and ``params``);
    ``user`` and ``attributes`` pass through ``params`` when named so."""
    extra = {k: params.pop(k) for k in ("user", "attributes") if k in params}
    if isinstance(policy, str):
        policy = make_node_policy(policy, **params)
    elif params:
        raise ValueError("params are for a policy given by name")
    return _simulate_nodes(
        submit, run, req, requests, capacities, policy, rule, kill_on_overrun, check=check,
        **extra,
    )  # fmt: skip
