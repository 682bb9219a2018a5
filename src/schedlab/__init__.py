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

import importlib
from typing import TYPE_CHECKING, Any

from schedlab.errors import (
    ConfigError,
    InvariantError,
    PluginWarning,
    PolicyError,
    SchedlabError,
    WorkloadError,
)
from schedlab.version import __version__

if TYPE_CHECKING:
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
    from schedlab.grid.context import GridContext
    from schedlab.grid.platforms import load_platform
    from schedlab.grid.registry import (
        BaseMetaScheduler,
        MetaScheduler,
        available_meta_schedulers,
        make_meta_scheduler,
        register_meta_scheduler,
    )
    from schedlab.report.single import plot
    from schedlab.results import Result
    from schedlab.scenario import RunOptions, Scenario, run
    from schedlab.schedulers import available_policies, make_policy, register_policy
    from schedlab.simulation import SimulationResult, run_grid, run_tdcs, simulate
    from schedlab.workload.job import Workload
    from schedlab.workload.load import load_workload, parse_model_spec
    from schedlab.workload.models.lublin import generate_lublin
    from schedlab.workload.swf import read_swf, write_swf

# name -> the module that defines it: imported on first use, so that `import schedlab` (and
# every `schedlab` command, which imports the package first) pays only for what it uses
_LAZY: dict[str, str] = {
    "Actor": "schedlab.engine.actors",
    "AddsColumns": "schedlab.engine.protocol",
    "BaseActor": "schedlab.engine.actors",
    "BaseMetaScheduler": "schedlab.grid.registry",
    "Clairvoyant": "schedlab.engine.protocol",
    "ClusterView": "schedlab.engine.protocol",
    "Dispatch": "schedlab.engine.decisions",
    "End": "schedlab.engine.decisions",
    "Evict": "schedlab.engine.decisions",
    "GridContext": "schedlab.grid.context",
    "HearsEnds": "schedlab.engine.protocol",
    "JobEvent": "schedlab.engine.actors",
    "Kill": "schedlab.engine.decisions",
    "MetaScheduler": "schedlab.grid.registry",
    "PlatformView": "schedlab.engine.actors",
    "Policy": "schedlab.engine.protocol",
    "PolicyHooks": "schedlab.engine.protocol",
    "PoolState": "schedlab.engine.actors",
    "Result": "schedlab.results",
    "RunIn": "schedlab.engine.decisions",
    "RunOptions": "schedlab.scenario",
    "Scenario": "schedlab.scenario",
    "Selective": "schedlab.engine.actors",
    "Send": "schedlab.engine.decisions",
    "SimulationResult": "schedlab.simulation",
    "Spawn": "schedlab.engine.decisions",
    "Start": "schedlab.engine.decisions",
    "Suspend": "schedlab.engine.decisions",
    "WakeAt": "schedlab.engine.decisions",
    "Workload": "schedlab.workload.job",
    "available_meta_schedulers": "schedlab.grid.registry",
    "available_policies": "schedlab.schedulers",
    "generate_lublin": "schedlab.workload.models.lublin",
    "load_platform": "schedlab.grid.platforms",
    "load_workload": "schedlab.workload.load",
    "make_meta_scheduler": "schedlab.grid.registry",
    "make_policy": "schedlab.schedulers",
    "parse_model_spec": "schedlab.workload.load",
    "policy_hooks": "schedlab.engine.protocol",
    "read_swf": "schedlab.workload.swf",
    "register_meta_scheduler": "schedlab.grid.registry",
    "register_policy": "schedlab.schedulers",
    "run": "schedlab.scenario",
    "run_grid": "schedlab.simulation",
    "run_tdcs": "schedlab.simulation",
    "simulate": "schedlab.simulation",
    "write_swf": "schedlab.workload.swf",
    "plot": "schedlab.report.single",
}

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
    """The public names, imported on first use (`_LAZY`): plotting (matplotlib), the grid
    and the engine are heavy, and a command needs only some of them."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
