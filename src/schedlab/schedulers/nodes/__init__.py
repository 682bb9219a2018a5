"""Node policies (issue 24): FCFS, EASY, conservative backfilling, DBF and multifactor on
nodes with cores, memory and GPUs, run by the node loop (`engine.nodeloop`)."""

from schedlab.schedulers.nodes.registry import (
    available_node_policies,
    make_node_policy,
    node_policy_class,
    pooled_only_reason,
    register_node_policy,
    simulate_nodes,
)

__all__ = [
    "available_node_policies",
    "make_node_policy",
    "node_policy_class",
    "pooled_only_reason",
    "register_node_policy",
    "simulate_nodes",
]
