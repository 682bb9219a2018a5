"""schedlab: replay job traces and workload models through batch and grid scheduling policies.

The public API mirrors the CLI::

    import schedlab
    result = schedlab.simulate("lublin:jobs=5000,procs=128,seed=1", policy="easy")
    result.summary()      # the field's metrics
    result.jobs           # per-job table (pandas DataFrame)
    schedlab.plot(result, "run.html")   # utilization, queue, wait CDF, Gantt

Every run, whatever its kind, is a `Scenario` and gives one `Result`: `simulate` (one
cluster), `run_grid` (a platform under a meta-scheduler) and `run_tdcs` (clusters with
absolute priorities under a dispatcher) build one; `run` runs any.

The extension API (docs/policies.md): a cluster policy implements `Policy` (it reads a
`ClusterView` and returns decisions: `Start`, `Suspend`, `Kill`, `WakeAt`, `Evict`) and may
add the optional hooks `Clairvoyant`, `AddsColumns`, `HearsEnds` (read by `policy_hooks`);
a meta-scheduler or dispatcher implements `MetaScheduler` (or inherits `BaseMetaScheduler`)
and builds actors: `Actor` (or `BaseActor`, optionally `Selective`) reading a `PlatformView`
and returning `Dispatch`, `Send`, `Spawn`, `RunIn`, `End`, `WakeAt`. Both register by name
(`register_policy`, `register_meta_scheduler`, or entry points).
"""

from typing import TYPE_CHECKING, Any

from schedlab.engine.actors import (
    Actor,
    BaseActor,
    JobEvent,
    PlatformView,
    PoolState,
    Selective,
)
from schedlab.engine.decisions import (
    Dispatch,
    End,
    Evict,
    Kill,
    RunIn,
    Send,
    Spawn,
    Start,
    Suspend,
    WakeAt,
)
from schedlab.engine.protocol import (
    AddsColumns,
    Clairvoyant,
    ClusterView,
    HearsEnds,
    Policy,
    PolicyHooks,
    policy_hooks,
)
from schedlab.errors import (
    ConfigError,
    InvariantError,
    PluginWarning,
    PolicyError,
    SchedlabError,
    WorkloadError,
)
from schedlab.grid.context import GridContext
from schedlab.grid.platforms import load_platform
from schedlab.grid.registry import (
    BaseMetaScheduler,
    MetaScheduler,
    available_meta_schedulers,
    make_meta_scheduler,
    register_meta_scheduler,
)
from schedlab.results import Result
from schedlab.scenario import RunOptions, Scenario, run
from schedlab.schedulers import available_policies, make_policy, register_policy
from schedlab.simulation import SimulationResult, run_grid, run_tdcs, simulate
from schedlab.version import __version__
from schedlab.workload.job import Workload
from schedlab.workload.load import load_workload, parse_model_spec
from schedlab.workload.models.lublin import generate_lublin
from schedlab.workload.swf import read_swf, write_swf

if TYPE_CHECKING:
    from schedlab.report.single import plot

__all__ = [
    "Actor",
    "AddsColumns",
    "BaseActor",
    "BaseMetaScheduler",
    "Clairvoyant",
    "ClusterView",
    "ConfigError",
    "Dispatch",
    "End",
    "Evict",
    "GridContext",
    "HearsEnds",
    "InvariantError",
    "JobEvent",
    "Kill",
    "MetaScheduler",
    "PlatformView",
    "PluginWarning",
    "Policy",
    "PolicyError",
    "PolicyHooks",
    "PoolState",
    "Result",
    "RunIn",
    "RunOptions",
    "Scenario",
    "SchedlabError",
    "Selective",
    "Send",
    "SimulationResult",
    "Spawn",
    "Start",
    "Suspend",
    "WakeAt",
    "Workload",
    "WorkloadError",
    "__version__",
    "available_meta_schedulers",
    "available_policies",
    "generate_lublin",
    "load_platform",
    "load_workload",
    "make_meta_scheduler",
    "make_policy",
    "parse_model_spec",
    "plot",
    "policy_hooks",
    "read_swf",
    "register_meta_scheduler",
    "register_policy",
    "run",
    "run_grid",
    "run_tdcs",
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
