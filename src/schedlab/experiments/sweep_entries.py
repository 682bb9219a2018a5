"""The ``[[workloads]]`` entries of a sweep file (`experiments.sweep`), checked.

Decisions a user can rely on:

* **Workload paths.** A relative ``path`` is looked for in the trace folder, when one is
  given (``schedlab sweep --traces DIR``, else ``$SCHEDLAB_TRACES``: `trace_folder`), then
  in the sweep file's folder. It is stored in `RunConfig.workload` relative to the sweep
  file's folder, normalised (posix separators, no ``./``, no ``x/..``), *not* made absolute:
  as written when the file is beside the sweep file, else as if the trace folder had been
  written in the path (``../traces/KTH.swf.gz``; absolute when no relative path leads
  there). The run ids then stay the same when the checkout or the sweep folder moves
  together with its traces, and a file name resolved through ``--traces`` gives the same
  run as the path written out. `Sweep.base_dir` is the folder to resolve against; use
  `Sweep.workload_source` (or `load_run_workload`) to get a loadable path. Absolute paths
  (and ``~``) are stored absolute. A trace found nowhere is a ConfigError that names the
  folders looked in and says how to point the sweep at the traces.
* **Model specs** are stored canonically (``name:key=value,...`` with sorted keys), so
  writing the keys in another order gives the same run id.
* **Seeds** only matter for runs with something random, i.e. model workloads. For a model
  workload the grid's ``seed`` becomes the spec's ``seed=`` (and `RunConfig.seed`); a seed
  written in the spec itself is used when the grid has none; giving both is an error.
  With neither, the run has ``seed = None`` and the model's own default seed applies
  (lublin: 0), which is still reproducible. SWF traces have nothing random: their runs get
  ``seed = None`` whatever the grid says, so grid seeds do not multiply identical runs.
* **Transforms** (keys of ``[[workloads]]``) become `RunConfig.transforms`, always in this
  order whatever the file's order: ``drop_status = [0, 5]`` ->
  ``("clean_by_status", {"drop": [0, 5]})`` (sorted, deduplicated); ``window = [start,
  end]`` (seconds) -> ``("time_window", {"start": s, "end": e})``; ``first = N`` ->
  ``("first_jobs", {"n": N})``; ``estimates = {seed = 1, ...}`` (Tsafrir model
  parameters) -> ``("add_estimates", {...})``; ``requested_from_run = true`` (requested
  time := run time for every job, exact estimates; ``false`` is the same as leaving it
  out) -> ``("requested_from_run", {})``; ``useless_estimates = true`` (every requested
  time := the longest run time: estimates that tell nothing) ->
  ``("requested_uniform", {})``; ``non_priority = {every = 3, deadline = "a"}``
  (or ``fraction`` and ``seed``; deadline ``"a"``, ``"b"`` or seconds) ->
  ``("mark_non_priority", {...})``; ``moldable = {pi = 0.9}`` (or with ``fraction``
  and ``seed``: jobs made moldable under Amdahl's law) -> ``("make_moldable", {...})``;
  ``deadlines = "table.csv"`` (absolute deadlines by
  job id; stored as an absolute path) -> ``("deadlines_from_table", {"path": ...})``;
  ``jobs = [start, end]`` (positions, 0-based, end excluded: one batch of the jobs the
  previous transforms left) -> ``("job_range", {...})``. The
  names are those of `TRANSFORMS`; `apply_transforms` applies them. They act before the
  load factor.
* **Machine size**: ``procs`` in a workload or in the grid (not both) -> `RunConfig.procs`;
  or ``cluster = "cluster.toml"``, a cluster of node types (`RunConfig.cluster`; the rules:
  `experiments.sweep_cluster`).
* **Labels** (short names for tables; not part of the run id). A workload's ``label``
  defaults to the file name without ``.swf``/``.swf.gz``, or the canonical model spec
  without its seed; two different workloads with the same label are an error (policy
  labels: `experiments.sweep_params`).

**Platform runs** (Caron et al., LIP RR-2005-13, SPEC 5; Baranov and Tikhomirov, SPEC 6;
docs/experiments.md, "Grid sweeps" and "TDCS sweeps"). A ``[[workloads]]`` entry with
``platform`` is a grid workload::

    [[workloads]]
    platform = "platform-dirac.toml"   # relative to the sweep file, or "builtin:dirac"
    generator = {local_jobs = 0}       # the platform's own stream (the default when no path)
    label = "dedicated"
    [[workloads]]
    platform = "platform-dirac.toml"
    path = "LCG.swf.gz"                # or an SWF grid trace ...
    stream = "local"                   # ... as a "global" (default) or "local" stream
    first = 1000                       # drop_status, window, first, jobs: as for a cluster
    [[meta_schedulers]]
    name = "push"                      # any registered meta-scheduler
    refresh = [0, 5, 10]               # its parameters; lists multiply
    [[meta_schedulers]]
    name = "pilot_filling"

``[[meta_schedulers]]`` pair with the grid workloads and ``[[policies]]`` with the others;
a sweep may hold both kinds (each list is then required, and neither may be left unused).
A grid run's `RunConfig` has ``platform`` (stored as written, normalised, like trace
paths; the file is read when the sweep is, so its mistakes are reported with the
workload's key path), ``generator`` (the settings of the generator of the platform's own
stream, `Platform.stream`: Caron et al.'s for ``builtin:dirac`` and by default, the TDCS
streams for ``builtin:tdcs``; as written, floats for float parameters, without ``seed``;
`RunConfig.workload` names the generator) or ``stream``, ``policy`` = the meta-scheduler
and ``params`` its complete parameters. The grid's ``seed`` seeds the generator and the
meta-scheduler (a ``seed`` in ``generator`` is used when the grid has none, as for model
specs); unlike a cluster trace, a grid trace run takes the seeds too (a meta-scheduler may
draw).
``load_factor`` divides the submit times as for a cluster; ``procs`` and
``kill_on_overrun`` have no meaning for a grid run (the platform fixes the nodes, a queue
always kills at its t_max) and are not applied to it: the grid's values do not multiply
grid runs. Built-in platforms (``builtin:NAME``, `grid.platforms.BUILTIN_PLATFORMS`) ship in
the package: ``builtin:dirac`` is the paper's Table 2 (``examples/platform-dirac.toml``),
``builtin:tdcs`` the scenario pre-registered for Baranov and Tikhomirov
(``examples/platform-tdcs.toml``).
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from schedlab.errors import ConfigError, SchedlabError
from schedlab.experiments.config import RunConfig, canonical_json
from schedlab.experiments.sweep_cluster import (
    check_model_size,
    check_node_policy,
    cluster_label,
    parse_cluster_key,
    sized_spec,
)
from schedlab.experiments.sweep_params import format_value, is_finite, is_int
from schedlab.grid.platforms import (
    BUILTIN_PLATFORMS,
    BUILTIN_PREFIX,
    PLATFORM_ALLOWED,
    load_platform_source,
    resolve_platform,
)
from schedlab.platform.cluster import ClusterSpec
from schedlab.platform.description import Platform
from schedlab.validators import expand_user
from schedlab.workload.job import MAX_PROCS, Workload
from schedlab.workload.load import parse_model_spec
from schedlab.workload.streams import check_stream, stream_settings_types
from schedlab.workload.transforms import TRANSFORMS

__all__ = [
    "GRID_WORKLOAD_KEYS",
    "TRACES_ENV",
    "WORKLOAD_KEYS",
    "WorkloadEntry",
    "expand_user",
    "parse_workloads",
    "trace_folder",
]


# the environment variable naming the folder of the traces (as for `schedlab reproduce`)
TRACES_ENV = "SCHEDLAB_TRACES"


WORKLOAD_KEYS = (
    "path",
    "model",
    "label",
    "procs",
    "drop_status",
    "window",
    "first",
    "jobs",
    "estimates",
    "requested_from_run",
    "useless_estimates",
    "non_priority",
    "deadlines",
    "moldable",
    "platform",
    "cluster",
)


# keys of a grid workload (one with ``platform``)
GRID_WORKLOAD_KEYS = (
    "platform",
    "generator",
    "path",
    "stream",
    "label",
    "drop_status",
    "window",
    "first",
    "jobs",
)


_PROCS_ALLOWED = f"an integer >= 1 (processors), at most {MAX_PROCS}"


_TRACE_ALLOWED = (
    "an existing .swf/.swf.gz file or Slurm/PBS/CSV log, optionally slurm:, pbs:, csv: "
    "(relative paths: from the trace folder, --traces or $SCHEDLAB_TRACES, then from the "
    "sweep file's folder)"
)


def trace_folder(option: str | os.PathLike[str] | None) -> Path | None:
    """The folder relative trace paths are looked for in first: ``option`` (``--traces``),
    else ``$SCHEDLAB_TRACES``, else None. A ``--traces`` that is not a folder is a
    ConfigError; the variable, set once for every command, only matters to a sweep that
    names a trace (its error then says the folder is missing)."""
    name, where = (
        (option, "--traces") if option is not None else (os.environ.get(TRACES_ENV), TRACES_ENV)
    )
    if not name:
        return None
    folder = expand_user(where, os.fspath(name), "an existing folder of traces")
    if option is not None and not _is_dir(folder):
        raise ConfigError(where, os.fspath(name), "an existing folder of traces")
    return folder.resolve()


@dataclass(frozen=True)
class WorkloadEntry:
    """One ``[[workloads]]`` entry, checked: everything but the grid settings of a run."""

    workload: str  # canonical spec without seed, or the normalised path
    is_model: bool
    spec_seed: int | None  # the seed written in a model spec (used when the grid has none)
    label: str
    procs: int | None
    transforms: tuple[tuple[str, dict[str, Any]], ...]
    platform: str | None = None  # grid workloads (module docstring)
    stream: str | None = None
    generator: dict[str, Any] | None = None
    cluster: str | None = None  # runs on node types (`sweep_cluster`)
    where: str = dataclasses.field(default="", compare=False)  # the key path, for errors
    # whether the cluster's runs are placed on nodes (not the processor model), and the
    # policies already checked for a node version
    on_nodes: bool = dataclasses.field(default=False, compare=False)
    _checked: set[str] = dataclasses.field(default_factory=set, compare=False, repr=False)

    @property
    def is_grid(self) -> bool:
        return self.platform is not None

    @property
    def identity(self) -> tuple[Any, ...]:
        """What makes two entries the same workload (for the label check)."""
        generator = None if self.generator is None else sorted(self.generator.items())
        grid = (self.platform, self.stream, repr(generator))
        return (self.workload, self.procs, repr(self.transforms), *grid, self.cluster)

    def run(
        self,
        policy: str,
        params: dict[str, Any],
        setting: dict[str, Any],
        queue_policy: tuple[str, dict[str, Any]] | None = None,
    ) -> RunConfig:
        if self.is_grid:
            return RunConfig(
                workload=self.workload,
                policy=policy,
                params=dict(params),
                load_factor=float(setting.get("load_factor", 1.0)),
                seed=setting.get("seed", self.spec_seed),
                transforms=tuple((name, dict(args)) for name, args in self.transforms),
                label=self.label,
                platform=self.platform,
                stream=self.stream,
                generator=None if self.generator is None else dict(self.generator),
                queue_policy=queue_policy,
            )
        seed = setting.get("seed", self.spec_seed) if self.is_model else None
        workload = self.workload if seed is None else _with_seed(self.workload, seed)
        procs = setting.get("procs", self.procs)
        if self.on_nodes and self.cluster is not None:
            key = f"{policy} {canonical_json(params)}"
            if key not in self._checked:
                check_node_policy(f"{self.where}.cluster", self.cluster, policy, params)
                self._checked.add(key)
        return RunConfig(
            workload=workload,
            policy=policy,
            params=dict(params),
            load_factor=float(setting.get("load_factor", 1.0)),
            seed=seed,
            procs=procs,
            kill_on_overrun=bool(setting.get("kill_on_overrun", True)),
            transforms=tuple((name, dict(args)) for name, args in self.transforms),
            label=self.label,
            cluster=self.cluster,
        )


def parse_workloads(
    value: Any, base_dir: Path, grid: dict[str, list[Any]], traces: Path | None = None
) -> list[WorkloadEntry]:
    """The checked ``[[workloads]]`` entries; ``traces``: the trace folder (module
    docstring, "Workload paths")."""
    if value is None:
        raise ConfigError("workloads", None, "at least one [[workloads]] table")
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError("workloads", value, "an array of tables, written [[workloads]]")
    if not value:
        raise ConfigError("workloads", value, "at least one [[workloads]] table")
    parsed: list[WorkloadEntry] = []
    seen_labels: dict[str, tuple[int, tuple[Any, ...]]] = {}
    for i, entry in enumerate(value):
        wl = _parse_workload(entry, f"workloads[{i}]", base_dir, grid, traces)
        identity = wl.identity
        if wl.label in seen_labels and seen_labels[wl.label][1] != identity:
            j = seen_labels[wl.label][0]
            raise ConfigError(
                f"workloads[{i}].label",
                wl.label,
                f"a label not already used by the different workload workloads[{j}] "
                "(set label to tell them apart)",
            )
        seen_labels.setdefault(wl.label, (i, identity))
        parsed.append(wl)
    return parsed


def _parse_workload(
    entry: dict[str, Any],
    where: str,
    base_dir: Path,
    grid: dict[str, list[Any]],
    traces: Path | None = None,
) -> WorkloadEntry:
    on_cluster = parse_cluster_key(entry, where, base_dir, grid)
    if "platform" in entry:
        return _parse_grid_workload(entry, where, base_dir, grid, traces)
    for key in entry:
        if key not in WORKLOAD_KEYS:
            raise ConfigError(f"{where}.{key}", entry[key], f"keys {', '.join(WORKLOAD_KEYS)}")
    has_path, has_model = "path" in entry, "model" in entry
    if has_path == has_model:
        given = {k: entry[k] for k in ("path", "model") if k in entry}
        raise ConfigError(where, given or None, "exactly one of path or model")

    label = entry.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ConfigError(f"{where}.label", label, "a non-empty string")
    procs = entry.get("procs")
    if procs is not None:
        if not is_int(procs) or not 1 <= procs <= MAX_PROCS:
            raise ConfigError(f"{where}.procs", procs, _PROCS_ALLOWED)
        if "procs" in grid:
            raise ConfigError(
                f"{where}.procs", procs, "not set when grid.procs is set (one or the other)"
            )
    transforms = _parse_transforms(entry, where, base_dir)
    cluster = {} if on_cluster is None else _cluster_fields(where, *on_cluster)
    on = "" if on_cluster is None else f" on {cluster_label(on_cluster[0])}"

    if has_path:
        workload = _parse_path(entry["path"], f"{where}.path", base_dir, traces)
        return WorkloadEntry(
            workload=workload,
            is_model=False,
            spec_seed=None,
            label=label or _trace_label(workload) + on,
            procs=procs,
            transforms=transforms,
            **cluster,
        )

    spec = entry["model"]
    if not isinstance(spec, str):
        raise ConfigError(
            f"{where}.model", spec, "a model spec such as 'lublin:jobs=5000,procs=128'"
        )
    text = spec.strip()
    if on_cluster is not None:  # the model's machine: the cluster's cores
        text = sized_spec(text, on_cluster[1].cores)
    try:
        name, params = parse_model_spec(text)
    except ConfigError as exc:
        detail = "" if exc.value == text else f", got {exc.value!r}"
        raise ConfigError(
            f"{where}.model", spec, f"{exc.allowed} (for {exc.option}{detail})"
        ) from None
    if on_cluster is not None:
        check_model_size(f"{where}.model", spec, name, params, on_cluster[1].cores)
    spec_seed = params.pop("seed", None)
    if spec_seed is not None:
        if "seed" in grid:
            raise ConfigError(
                f"{where}.model",
                spec,
                "a spec without seed= when grid.seed is set (the grid seed sets the model's)",
            )
        if not is_int(spec_seed) or spec_seed < 0:
            raise ConfigError(f"{where}.model", spec, "seed= an integer >= 0")
    canonical = _canonical_spec(name, params)
    return WorkloadEntry(
        workload=canonical,
        is_model=True,
        spec_seed=spec_seed,
        label=label or canonical + on,
        procs=procs,
        transforms=transforms,
        **cluster,
    )


def _cluster_fields(where: str, stored: str, cluster: ClusterSpec) -> dict[str, Any]:
    """The `WorkloadEntry` fields of an entry with ``cluster`` (`sweep_cluster`)."""
    return {"cluster": stored, "where": where, "on_nodes": not cluster.is_processor_model}


def _parse_grid_workload(
    entry: dict[str, Any],
    where: str,
    base_dir: Path,
    grid: dict[str, list[Any]],
    traces: Path | None = None,
) -> WorkloadEntry:
    """A ``[[workloads]]`` entry with ``platform`` (module docstring, "Grid runs")."""
    for key in entry:
        if key not in GRID_WORKLOAD_KEYS:
            raise ConfigError(
                f"{where}.{key}",
                entry[key],
                f"keys of a grid workload (one with platform): {', '.join(GRID_WORKLOAD_KEYS)}",
            )
    stored = _parse_platform(entry["platform"], f"{where}.platform", base_dir)
    platform = _platform_of(stored, base_dir, f"{where}.platform")
    label = entry.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ConfigError(f"{where}.label", label, "a non-empty string")
    stem = _platform_label(stored)
    if "path" in entry:
        if "generator" in entry:
            given = {k: entry[k] for k in ("path", "generator")}
            raise ConfigError(where, given, "one of path (an SWF grid trace) or generator")
        from schedlab.workload.grid import MODES

        stream = entry.get("stream", "global")
        if stream not in MODES:
            raise ConfigError(f"{where}.stream", stream, MODES)
        workload = _parse_path(entry["path"], f"{where}.path", base_dir, traces)
        return WorkloadEntry(
            workload=workload,
            is_model=False,
            spec_seed=None,
            label=label or f"{_trace_label(workload)} on {stem} ({stream})",
            procs=None,
            transforms=_parse_transforms(entry, where, base_dir),
            platform=stored,
            stream=stream,
        )
    for key in ("stream", "drop_status", "window", "first", "jobs"):
        if key in entry:
            raise ConfigError(
                f"{where}.{key}", entry[key], "only with path (an SWF grid trace), not a generator"
            )
    settings, spec_seed = _parse_generator(entry.get("generator", {}), where, platform, grid)
    items = ",".join(f"{k}={format_value(v)}" for k, v in settings.items())
    name = platform.stream  # the generator of the platform's own stream
    return WorkloadEntry(
        workload=name,
        is_model=True,
        spec_seed=spec_seed,
        label=label or (f"{name}:{items} on {stem}" if items else f"{name} on {stem}"),
        procs=None,
        transforms=(),
        platform=stored,
        generator=settings,
    )


def _parse_platform(value: Any, where: str, base_dir: Path) -> str:
    """The platform as stored in a RunConfig: ``builtin:NAME``, or the path as written,
    normalised (like trace paths); checks that the file exists."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(where, value, PLATFORM_ALLOWED)
    if value.startswith(BUILTIN_PREFIX):
        if value[len(BUILTIN_PREFIX) :] not in BUILTIN_PLATFORMS:
            raise ConfigError(where, value, PLATFORM_ALLOWED)
        return value
    written = expand_user(where, value, PLATFORM_ALLOWED)
    stored = Path(os.path.normpath(written)).as_posix()
    if not _is_file(base_dir / stored):
        raise ConfigError(where, value, PLATFORM_ALLOWED)
    return stored


def _platform_label(stored: str) -> str:
    if stored.startswith(BUILTIN_PREFIX):
        return stored
    name = stored.rsplit("/", 1)[-1]
    return name[: -len(".toml")] if name.endswith(".toml") else name


def _platform_of(stored: str, base_dir: Path, where: str) -> Platform:
    """The platform, read now: a mistake in its file is reported under ``where``."""
    try:
        return load_platform_source(resolve_platform(stored, base_dir))
    except ConfigError as exc:
        raise ConfigError(f"{where} ({exc.option})", exc.value, exc.allowed) from None


def _parse_generator(
    value: Any, where: str, platform: Platform, grid: dict[str, list[Any]]
) -> tuple[dict[str, Any], int | None]:
    """(settings as written, floats for float parameters, sorted; the seed written in it) of
    the generator of the platform's own stream (`workload.streams`)."""
    where = f"{where}.generator"
    if not isinstance(value, dict):
        raise ConfigError(where, value, "a table of the generator's settings")
    known = stream_settings_types(platform.stream)
    settings: dict[str, Any] = {}
    spec_seed = None
    for key, raw in value.items():
        if key == "seed":
            if "seed" in grid:
                raise ConfigError(
                    f"{where}.seed",
                    raw,
                    "no seed here when grid.seed is set (the grid seed sets the generator's)",
                )
            if not is_int(raw) or raw < 0:
                raise ConfigError(f"{where}.seed", raw, "an integer >= 0")
            spec_seed = raw
            continue
        if key not in known:
            raise ConfigError(
                f"{where}.{key}",
                raw,
                f"settings of the {platform.stream} generator: {', '.join(known)}",
            )
        if key == "organisations":
            if not isinstance(raw, list) or not all(isinstance(o, str) for o in raw):
                raise ConfigError(f"{where}.{key}", raw, "a list of organisation names")
            settings[key] = list(raw)
        elif "float" in str(known[key]) and is_finite(raw):
            settings[key] = float(raw)
        elif isinstance(raw, str | int | float | bool):
            settings[key] = raw
        else:
            raise ConfigError(f"{where}.{key}", raw, "a number")
    try:  # the generator's own checks, on a small stream
        check_stream(platform, settings)
    except ConfigError as exc:
        key = exc.option.removeprefix("stream").lstrip(".")
        shown = settings.get(key, exc.value)
        raise ConfigError(f"{where}.{key}" if key else where, shown, exc.allowed) from None
    return dict(sorted(settings.items())), spec_seed


def _parse_path(value: Any, where: str, base_dir: Path, traces: Path | None = None) -> str:
    """The path as stored in a RunConfig (module docstring, "Workload paths"): looked for in
    ``traces`` then ``base_dir`` when relative; checks the file exists. A log format prefix
    (``slurm:``, ``pbs:``, ``csv:...?KEY=COLUMN``, `workload.importers`) is kept around the
    normalised path."""
    from schedlab.workload.importers import parse_source

    if not isinstance(value, str) or not value.strip():
        raise ConfigError(where, value, _TRACE_ALLOWED)
    try:
        source = parse_source(value)
    except ConfigError as exc:
        raise ConfigError(where, value, f"{exc.allowed} (in {exc.option})") from None
    written = expand_user(where, source.path, _TRACE_ALLOWED)
    stored = Path(os.path.normpath(written)).as_posix()
    folders = [base_dir]
    if traces is not None and traces != base_dir and not written.is_absolute():
        folders.insert(0, traces)
    found = next((folder for folder in folders if _is_file(folder / stored)), None)
    if found is None:
        raise ConfigError(where, value, _missing_trace(written, folders, traces))
    if found != base_dir:  # as if the trace folder were written in the path
        stored = _relative_to(found / stored, base_dir)
    return source.prefix + stored + source.suffix


def _missing_trace(written: Path, folders: list[Path], traces: Path | None) -> str:
    """What a missing trace's error allows, and what to do about it: where it was looked
    for and how to point the sweep at the folder that holds it."""
    kind = "an existing .swf/.swf.gz file or Slurm/PBS/CSV log (slurm:, pbs:, csv:)"
    if written.is_absolute():
        return kind
    looked = " nor in ".join(str(folder) for folder in folders)
    if traces is None:
        hint = f"pass --traces DIR, the folder that holds it (or set {TRACES_ENV}=DIR)"
    elif not _is_dir(traces):
        hint = f"{traces} is not a folder: set --traces or {TRACES_ENV} to the one that holds it"
    else:
        hint = "check the name, or pass --traces DIR, the folder that holds it"
    return f"{kind}; it is not in {looked}: {hint}"


def _relative_to(path: Path, base_dir: Path) -> str:
    """``path`` relative to ``base_dir`` (posix), absolute when no relative path leads there
    (another drive)."""
    try:
        return Path(os.path.relpath(path, base_dir)).as_posix()
    except ValueError:
        return path.as_posix()


def _is_file(path: Path) -> bool:
    """Path.is_file that answers False for names the system refuses (too long, NUL)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    """Path.is_dir that answers False for names the system refuses (too long, NUL)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _trace_label(path: str) -> str:
    from schedlab.workload.importers import parse_source

    name = parse_source(path).path.rsplit("/", 1)[-1]
    for suffix in (".gz", ".swf"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _canonical_spec(name: str, params: Mapping[str, Any]) -> str:
    items = ",".join(f"{k}={format_value(params[k])}" for k in sorted(params))
    return f"{name}:{items}" if items else name


def _with_seed(spec: str, seed: int) -> str:
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = dict(item.split("=", 1) for item in rest.split(",") if item)
    params["seed"] = seed
    return _canonical_spec(name, params)


def _parse_transforms(
    entry: dict[str, Any], where: str, base_dir: Path
) -> tuple[tuple[str, dict[str, Any]], ...]:
    """Transforms in their fixed order: drop_status, window, first, estimates,
    requested_from_run, useless_estimates, non_priority, moldable, deadlines, jobs (a batch
    is cut last, so estimates and marks are those of the whole)."""
    out: list[tuple[str, dict[str, Any]]] = []
    if "drop_status" in entry:
        drop = entry["drop_status"]
        if (
            not isinstance(drop, list)
            or not drop
            or not all(is_int(c) and abs(c) < 2**53 for c in drop)
        ):
            raise ConfigError(
                f"{where}.drop_status", drop, "a non-empty list of SWF status codes (integers)"
            )
        out.append(("clean_by_status", {"drop": sorted(set(drop))}))
    if "window" in entry:
        window = entry["window"]
        ok = (
            isinstance(window, list)
            and len(window) == 2
            and all(is_finite(v) for v in window)
            and window[1] > window[0]
        )
        if not ok:
            raise ConfigError(
                f"{where}.window", window, "[start, end] in seconds (numbers, end > start)"
            )
        out.append(("time_window", {"start": float(window[0]), "end": float(window[1])}))
    if "first" in entry:
        first = entry["first"]
        if not is_int(first) or first < 1:
            raise ConfigError(f"{where}.first", first, "an integer >= 1 (number of jobs)")
        out.append(("first_jobs", {"n": first}))
    for key, name in (
        ("estimates", "add_estimates"),
        ("requested_from_run", "requested_from_run"),
        ("useless_estimates", "requested_uniform"),
        ("non_priority", "mark_non_priority"),
        ("moldable", "make_moldable"),
    ):
        if key in ("requested_from_run", "useless_estimates"):
            flag = entry.get(key, False)
            if not isinstance(flag, bool):
                raise ConfigError(f"{where}.{key}", flag, "true or false")
            if flag:
                out.append((name, {}))
            continue
        if key in entry:
            args = entry[key]
            if not isinstance(args, dict) or not all(
                isinstance(v, str | int | float | bool) for v in args.values()
            ):
                raise ConfigError(f"{where}.{key}", args, "a table of scalar parameters")
            _check_transform(f"{where}.{key}", name, args)
            out.append((name, dict(sorted(args.items()))))
    if "deadlines" in entry:
        path = entry["deadlines"]
        allowed = "an existing .csv/.parquet table of deadlines"
        if not isinstance(path, str) or not path.strip():
            raise ConfigError(f"{where}.deadlines", path, allowed)
        expanded = expand_user(f"{where}.deadlines", path, allowed)
        if not _is_file(base_dir / expanded):
            raise ConfigError(f"{where}.deadlines", path, allowed)
        table = os.path.normpath(base_dir / expanded)
        out.append(("deadlines_from_table", {"path": table}))
    if "jobs" in entry:
        jobs = entry["jobs"]
        ok = (
            isinstance(jobs, list)
            and len(jobs) == 2
            and all(is_int(v) for v in jobs)
            and 0 <= jobs[0] < jobs[1]
        )
        if not ok:
            raise ConfigError(
                f"{where}.jobs", jobs, "[start, end]: job positions, integers, 0 <= start < end"
            )
        out.append(("job_range", {"start": jobs[0], "end": jobs[1]}))
    return tuple(out)


def _check_transform(where: str, name: str, args: dict[str, Any]) -> None:
    """Try the transform on a one-job workload so bad parameters fail when the file is read."""
    probe = Workload.from_columns(
        submit_time=np.zeros(1), run_time=np.ones(1), procs=np.ones(1), max_procs=1
    )
    try:
        TRANSFORMS[name](probe, **args)
    except ConfigError as exc:
        raise ConfigError(f"{where}.{exc.option}", exc.value, exc.allowed) from None
    except SchedlabError as exc:
        raise ConfigError(where, args, f"the parameters of {name} ({exc})") from None
    except TypeError:  # an unknown or a missing parameter: say which, in the file's terms
        known, required = _transform_parameters(name)
        listed = f"parameters of {name}: {', '.join(known)}"
        unknown = [k for k in args if k not in known]
        if unknown:
            raise ConfigError(where, args, f"{listed} (not {unknown[0]})") from None
        missing = [k for k in required if k not in args]
        raise ConfigError(
            where, args, f"a table that sets {', '.join(missing)} ({listed})"
        ) from None


def _transform_parameters(name: str) -> tuple[list[str], list[str]]:
    """(every parameter, the required ones) of transform ``name``, besides the workload."""
    if name == "add_estimates":
        from schedlab.workload.models.tsafrir import TsafrirParams, add_estimates

        fn: Callable[..., Any] = add_estimates
        extra = [f.name for f in dataclasses.fields(TsafrirParams)]
    else:
        fn, extra = TRANSFORMS[name], []
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "workload"
    ]
    known = [p.name for p in params] + extra
    return known, [p.name for p in params if p.default is p.empty]
