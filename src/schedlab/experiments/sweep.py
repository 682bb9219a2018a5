"""Sweep files: a TOML grid of workloads x policies x settings, expanded to a list of runs.

A sweep file looks like this (``examples/sweep.toml``, ``examples/quick-sweep.toml``)::

    out = "results"                       # optional default for --out (from the file's folder)
    description = "free text"             # optional
    [[workloads]]
    path = "KTH-SP2-1996-2.swf.gz"        # or: model = "lublin:jobs=5000,procs=128"
    first = 5000                          # optional transforms, see below
    [[policies]]
    name = "easy"                         # any registered policy
    backfill_order = ["fcfs", "sjf"]      # other keys are its parameters; lists multiply
    [grid]
    load_factor = [0.8, 1.0]              # lists multiply out; a scalar is a 1-element list
    seed = [1, 2]

`load_sweep` reads the file and `parse_sweep` checks and expands its data into a `Sweep`
whose ``runs`` are `RunConfig` objects, in a fixed order (workloads in file order, then
policies in file order, then their list-valued parameters, then the grid, keys in file
order, the last key varying fastest) and without duplicates (same `RunConfig.run_id`, the
first one is kept). Every mistake raises `ConfigError` naming the key path
(``policies[1].backfill_order``, ``grid.load_factor``), the value and what is allowed.

Decisions a user can rely on: `experiments.sweep_entries` (workloads: paths, model specs,
seeds, transforms, machine sizes, labels; platform runs) and `experiments.sweep_params`
(policies and meta-schedulers, their parameters and labels; the grid).
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.scenarios import resolve_workload
from schedlab.experiments.sweep_entries import (
    GRID_WORKLOAD_KEYS,
    TRACES_ENV,
    WORKLOAD_KEYS,
    expand_user,
    parse_workloads,
    trace_folder,
)
from schedlab.experiments.sweep_params import (
    GRID_KEYS,
    MAX_RUNS,
    Entry,
    format_value,
    parse_grid,
    parse_meta_schedulers,
    parse_policies,
)
from schedlab.tomlfile import read_toml

__all__ = [
    "GRID_KEYS",
    "GRID_WORKLOAD_KEYS",
    "MAX_RUNS",
    "TOP_LEVEL_KEYS",
    "TRACES_ENV",
    "WORKLOAD_KEYS",
    "Sweep",
    "load_sweep",
    "parse_sweep",
    "trace_folder",
]


TOP_LEVEL_KEYS = ("out", "description", "workloads", "policies", "grid", "meta_schedulers")


@dataclass(frozen=True)
class Sweep:
    """A checked, expanded sweep file.

    ``source``: the sweep file (or a description of where the data came from); ``base_dir``:
    the folder relative workload paths (stored as written in ``runs``) are resolved against;
    ``out``: the default results folder, absolute, or None; ``runs``: the distinct runs in
    the order of the module docstring; ``policy_labels``: run id -> policy label.
    """

    source: str
    base_dir: Path
    out: str | None
    runs: list[RunConfig]
    description: str | None = None
    policy_labels: dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.runs)

    def policy_label(self, run: RunConfig) -> str:
        """The policy's short name for tables (see the module docstring)."""
        return self.policy_labels.get(run.run_id, run.policy)

    def workload_source(self, run: RunConfig) -> str:
        """What `load_workload` takes for ``run``: an absolute path or the model spec."""
        return resolve_workload(run.workload, self.base_dir)

    def describe(self) -> list[dict[str, Any]]:
        """One row per run for ``--dry-run`` listings (values are str, float, int or None)."""
        return [
            {
                "run_id": run.run_id,
                "workload": run.workload_label,
                "policy": self.policy_label(run),
                "params": _format_params(run.params),
                "load_factor": run.load_factor,
                "seed": run.seed,
                "procs": run.procs,
                "kill_on_overrun": run.kill_on_overrun,
                "transforms": _format_transforms(run.transforms),
                "platform": run.platform,
            }
            for run in self.runs
        ]


def load_sweep(path: str | os.PathLike[str], traces: str | os.PathLike[str] | None = None) -> Sweep:
    """Read and expand a TOML sweep file; relative paths in it are from its folder, trace
    paths first from ``traces`` (the folder of the traces, e.g. `trace_folder`'s)."""
    data, folder, source = read_toml(path, "sweep file")
    return parse_sweep(data, folder, source, traces=traces)


def parse_sweep(
    data: Mapping[str, Any],
    base_dir: Path,
    source: str,
    traces: str | os.PathLike[str] | None = None,
) -> Sweep:
    """Check the parsed TOML ``data`` of a sweep file and expand it into runs.

    ``base_dir`` is the folder relative paths are resolved against (the sweep file's);
    ``traces``, a folder relative trace paths are looked for in first (`sweep_entries`,
    "Workload paths"); ``source`` names the file in the result. See the module docstring
    for the rules.
    """
    base_dir = Path(base_dir).expanduser().resolve()
    trace_dir = None if traces is None else Path(traces).expanduser().resolve()
    if not isinstance(data, Mapping):
        raise ConfigError("sweep file", type(data).__name__, "a TOML table of keys")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            raise ConfigError(key, data[key], f"top-level keys {', '.join(TOP_LEVEL_KEYS)}")
    out = _parse_out(data.get("out"), base_dir)
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise ConfigError("description", description, "a string")
    grid = parse_grid(data.get("grid", {}))
    workloads = parse_workloads(data.get("workloads"), base_dir, grid, trace_dir)
    grid_wl = next((i for i, w in enumerate(workloads) if w.is_grid), None)
    cluster_wl = next((i for i, w in enumerate(workloads) if not w.is_grid), None)
    policies: list[Entry] = []
    metas: list[Entry] = []
    if cluster_wl is not None or "policies" in data:
        if cluster_wl is None:
            raise ConfigError(
                "policies",
                data["policies"],
                "[[policies]] only with a cluster workload (a [[workloads]] without "
                "platform); grid workloads take [[meta_schedulers]]",
            )
        policies = parse_policies(data.get("policies"))
    if grid_wl is not None or "meta_schedulers" in data:
        if grid_wl is None:
            raise ConfigError(
                "meta_schedulers",
                data["meta_schedulers"],
                "[[meta_schedulers]] only with a grid workload (a [[workloads]] with "
                "platform = ...); cluster workloads take [[policies]]",
            )
        metas = parse_meta_schedulers(data.get("meta_schedulers"), f"workloads[{grid_wl}]")
    settings = math.prod(len(v) for v in grid.values())
    count = sum(len(metas if w.is_grid else policies) for w in workloads) * settings
    if count > MAX_RUNS:
        raise ConfigError(
            "sweep size",
            f"{count} runs",
            f"at most {MAX_RUNS} runs (workloads x policy settings x grid combinations)",
        )

    runs: dict[str, RunConfig] = {}
    policy_labels: dict[str, str] = {}
    grid_keys = list(grid)
    for wl in workloads:
        for policy_name, params, policy_label, queue_policy in metas if wl.is_grid else policies:
            for values in itertools.product(*(grid[k] for k in grid_keys)):
                setting = dict(zip(grid_keys, values))
                run = wl.run(policy_name, params, setting, queue_policy)
                run_id = run.run_id
                if run_id not in runs:
                    runs[run_id] = run
                    policy_labels[run_id] = policy_label
    return Sweep(
        source=source,
        base_dir=base_dir,
        out=out,
        runs=list(runs.values()),
        description=description,
        policy_labels=policy_labels,
    )


def _parse_out(value: Any, base_dir: Path) -> str | None:
    if value is None:
        return None
    allowed = "a folder path (relative: from the sweep file's folder)"
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ConfigError("out", value, allowed)
    return os.path.normpath(base_dir / expand_user("out", value, allowed))


def _format_params(params: Mapping[str, Any]) -> str:
    return ",".join(f"{k}={format_value(v)}" for k, v in sorted(params.items()))


def _format_transforms(transforms: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    parts = []
    for name, args in transforms:
        inner = ",".join(f"{k}={format_value(v)}" for k, v in args.items())
        parts.append(f"{name}({inner})")
    return " ".join(parts)
