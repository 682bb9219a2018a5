"""The discrete-event engine: event order, the run loop, decisions and invariant checks."""

from schedlab.engine.decisions import Decision, Kill, Start, Suspend, WakeAt
from schedlab.engine.fastpath import RawRun, Simulator
from schedlab.engine.protocol import ClusterView, Policy

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
