"""Cluster scheduling policies, registered by name (SPEC section 4)."""

from schedlab.schedulers.conservative import ConservativeBackfilling, ConservativeParams
from schedlab.schedulers.dbf import DbfParams, DeadlineBackfilling
from schedlab.schedulers.easy import EasyBackfilling, EasyParams
from schedlab.schedulers.fcfs import Fcfs, FcfsParams
from schedlab.schedulers.pps import PpsParams, PriorityPreemptive
from schedlab.schedulers.registry import available_policies, make_policy, register_policy

__all__ = [
    "ConservativeBackfilling",
    "ConservativeParams",
    "DbfParams",
    "DeadlineBackfilling",
    "EasyBackfilling",
    "EasyParams",
    "Fcfs",
    "FcfsParams",
    "PpsParams",
    "PriorityPreemptive",
    "available_policies",
    "make_policy",
    "register_policy",
]
