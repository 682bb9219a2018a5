"""Cluster scheduling policies, registered by name (SPEC section 4)."""

# the moldable schedulers (Lanore and Klein, ComPAS 2013, subpackage `moldable`) register
# themselves on import like the others
from schedlab.schedulers import moldable  # noqa: F401
from schedlab.schedulers.conservative import ConservativeBackfilling, ConservativeParams
from schedlab.schedulers.dbf import DbfParams, DeadlineBackfilling
from schedlab.schedulers.easy import EasyBackfilling, EasyParams
from schedlab.schedulers.fcfs import Fcfs, FcfsParams
from schedlab.schedulers.multifactor import MultifactorParams, MultifactorPriority
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
    "MultifactorParams",
    "MultifactorPriority",
    "PpsParams",
    "PriorityPreemptive",
    "available_policies",
    "make_policy",
    "register_policy",
]
