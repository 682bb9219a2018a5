"""schedlab: replay job traces and workload models through batch scheduling policies.

The public API mirrors the CLI::

    import schedlab
    result = schedlab.simulate("lublin:jobs=5000,procs=128,seed=1", policy="easy")
    result.summary()      # the field's metrics
    result.jobs           # per-job table (pandas DataFrame)
    schedlab.plot(result, "run.html")   # utilization, queue, wait CDF, Gantt
"""

from typing import TYPE_CHECKING, Any

from schedlab.errors import (
    ConfigError,
    InvariantError,
    PolicyError,
    SchedlabError,
    WorkloadError,
)
from schedlab.schedulers import available_policies, make_policy, register_policy
from schedlab.simulation import SimulationResult, simulate
from schedlab.workload.job import Workload
from schedlab.workload.load import load_workload, parse_model_spec
from schedlab.workload.models.lublin import generate_lublin
from schedlab.workload.swf import read_swf, write_swf

if TYPE_CHECKING:
    from schedlab.report.single import plot

__version__ = "0.1.0"

__all__ = [
    "ConfigError",
    "InvariantError",
    "PolicyError",
    "SchedlabError",
    "SimulationResult",
    "Workload",
    "WorkloadError",
    "__version__",
    "available_policies",
    "generate_lublin",
    "load_workload",
    "make_policy",
    "parse_model_spec",
    "plot",
    "read_swf",
    "register_policy",
    "simulate",
    "write_swf",
]


def __getattr__(name: str) -> Any:
    """``schedlab.plot``, imported on first use: plotting (matplotlib) is heavy and
    confined to ``schedlab.report``."""
    if name == "plot":
        from schedlab.report.single import plot

        return plot
    raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
