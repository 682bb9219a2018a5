"""The discrete-event engine: event order, the run loop, decisions and invariant checks."""

from schedlab.engine.decisions import Decision, Kill, Start, Suspend, WakeAt
from schedlab.engine.protocol import ClusterView, Policy
from schedlab.engine.simulator import RawRun, Simulator

__all__ = [
    "ClusterView",
    "Decision",
    "Kill",
    "Policy",
    "RawRun",
    "Simulator",
    "Start",
    "Suspend",
    "WakeAt",
]
