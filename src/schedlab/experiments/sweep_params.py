"""The ``[[policies]]``, ``[[meta_schedulers]]`` and ``[grid]`` tables of a sweep file
(`experiments.sweep`), checked and multiplied out.

Decisions a user can rely on:

* **Policy parameters** are checked by type and by the policy's own ``Params`` class, and
  stored *complete* (defaults filled in): a run id changes exactly when the effective
  configuration does, and ``easy`` and ``easy`` with ``backfill_order = "fcfs"`` are one run.
  Integers given for float parameters are stored as floats.
* **Labels** of policies and meta-schedulers: ``label`` (default: the name) followed by the
  list-valued parameters, e.g. ``easy(backfill_order=sjf)``; without ``label`` every
  written parameter is shown. `RunConfig` has no policy label field, so
  `Sweep.policy_labels` maps run ids to them.
* **TDCS dispatchers** (Baranov and Tikhomirov, SPEC 6; `grid.tdcs`): an entry may name a
  configuration of `grid.tdcs.CONFIGURATIONS` (``tdcs_no_preemption`` is the ``tdcs``
  dispatcher over managers that never preempt), and the entries of the dispatchers
  (``tdcs``, ``round_robin``, ``least_loaded``, ``random`` and the ablations of issue 25,
  ``least_loaded_speed`` and ``tdcs_*``) take two more keys, for the
  local managers of every cluster: ``preemption`` (checkpoint, suspend, requeue, cancel or
  none) and ``checkpoint_overhead`` (s); lists multiply. With either key every queue runs
  pps(priority="attribute", preemption, checkpoint_overhead) (`grid.tdcs.local_manager`,
  stored as `RunConfig.queue_policy`); without them the platform's own queue policies run.
  ``horizon = 0`` is an unlimited horizon, as the default is.

::

    [[meta_schedulers]]
    name = "tdcs"
    horizon = [2, 4, 0]
    preemption = ["checkpoint", "suspend"]
    [[meta_schedulers]]
    name = "tdcs_no_preemption"
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any

from schedlab.errors import ConfigError
from schedlab.grid.tdcs import CONFIGURATIONS, DEFAULT_CHECKPOINT_OVERHEAD, local_manager
from schedlab.schedulers.registry import (
    available_policies,
    check_param,
    make_params,
    param_types,
    policy_class,
)
from schedlab.workload.job import MAX_PROCS

# a run's parameters: (policy or meta-scheduler, complete params, label, queue policy or None)
QueuePolicy = tuple[str, dict[str, Any]]
Entry = tuple[str, dict[str, Any], str, QueuePolicy | None]
# keys of a TDCS [[meta_schedulers]] entry that set the local managers (`grid.tdcs`)
LOCAL_MANAGER_KEYS = ("preemption", "checkpoint_overhead")
DISPATCHERS = frozenset(meta for meta, _ in CONFIGURATIONS.values())

__all__ = [
    "GRID_KEYS",
    "LOCAL_MANAGER_KEYS",
    "MAX_RUNS",
    "format_value",
    "is_finite",
    "is_int",
    "parse_grid",
    "parse_meta_schedulers",
    "parse_policies",
]


GRID_KEYS = ("load_factor", "seed", "kill_on_overrun", "procs")


POLICY_RESERVED_KEYS = ("name", "label")


# Most runs one sweep file may expand to: a million simulations is beyond any study, while
# a product of long lists written by mistake would otherwise take minutes and gigabytes
# just to list (the count is checked before anything is expanded).
MAX_RUNS = 1_000_000


def parse_policies(value: Any) -> list[Entry]:
    """(name, complete params, label, None) for every policy entry and parameter
    combination."""
    if value is None:
        raise ConfigError("policies", None, "at least one [[policies]] table")
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError("policies", value, "an array of tables, written [[policies]]")
    if not value:
        raise ConfigError("policies", value, "at least one [[policies]] table")
    out: list[Entry] = []
    for i, entry in enumerate(value):
        out.extend((*combo, None) for combo in _parse_policy(entry, f"policies[{i}]"))
    return out


def _parse_policy(entry: dict[str, Any], where: str) -> list[tuple[str, dict[str, Any], str]]:
    name = entry.get("name")
    if not isinstance(name, str) or name not in available_policies():
        raise ConfigError(f"{where}.name", name, available_policies())
    return expand_params(entry, where, policy_class(name), "policy")


def parse_meta_schedulers(value: Any, first_grid: str) -> list[Entry]:
    """(name, complete params, label, queue policy) for every meta-scheduler entry and
    combination (module docstring: TDCS configurations and local managers)."""
    allowed = "an array of tables, written [[meta_schedulers]]"
    if value is None:
        raise ConfigError(
            "meta_schedulers", None, f"at least one [[meta_schedulers]] table ({first_grid} "
            "is a grid workload)"
        )  # fmt: skip
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError("meta_schedulers", value, allowed)
    if not value:
        raise ConfigError("meta_schedulers", value, "at least one [[meta_schedulers]] table")
    from schedlab.grid.registry import available_meta_schedulers, meta_scheduler_class

    names = available_meta_schedulers()
    out: list[Entry] = []
    for i, entry in enumerate(value):
        where = f"meta_schedulers[{i}]"
        name = entry.get("name")
        meta, fixed = (
            CONFIGURATIONS.get(name, (name, None)) if isinstance(name, str) else (name, None)
        )
        if not isinstance(meta, str) or meta not in names:
            raise ConfigError(f"{where}.name", name, sorted({*names, *CONFIGURATIONS}))
        managers = _local_managers(entry, where, meta, fixed)
        own = {k: v for k, v in entry.items() if k not in LOCAL_MANAGER_KEYS}
        combos = expand_params(own, where, meta_scheduler_class(meta), "meta-scheduler", name)
        if len(combos) * len(managers) > MAX_RUNS:
            raise ConfigError(
                where, f"{len(combos) * len(managers)} combinations", f"at most {MAX_RUNS} runs"
            )
        for meta_name, params, label in combos:
            for queue_policy, shown in managers:
                out.append((meta_name, params, _with_suffix(label, shown), queue_policy))
    return out


def _local_managers(
    entry: dict[str, Any], where: str, meta: str, fixed: str | None
) -> list[tuple[QueuePolicy | None, str]]:
    """The local managers a TDCS entry asks for (``preemption``, ``checkpoint_overhead``;
    lists multiply): [(queue policy or None, what its label shows)]. Without either key, and
    without a configuration that fixes the mode, the platform's own queue policies run."""
    written = [k for k in LOCAL_MANAGER_KEYS if k in entry]
    if not written and fixed is None:
        return [(None, "")]
    if written and meta not in DISPATCHERS:
        key = written[0]
        raise ConfigError(
            f"{where}.{key}",
            entry[key],
            f"only with a dispatcher of {', '.join(sorted(DISPATCHERS))}",
        )
    if fixed is not None and "preemption" in entry:
        raise ConfigError(
            f"{where}.preemption", entry["preemption"], f"none here: {entry['name']} fixes it"
        )
    modes = _values(entry, "preemption", where, [fixed or "checkpoint"])
    overheads = _values(entry, "checkpoint_overhead", where, [DEFAULT_CHECKPOINT_OVERHEAD])
    out: list[tuple[QueuePolicy | None, str]] = []
    for mode in modes:
        for overhead in overheads:
            try:
                policy = local_manager(mode, overhead)
            except ConfigError as exc:
                key = "preemption" if exc.option == "--preemption" else "checkpoint_overhead"
                raise ConfigError(f"{where}.{key}", exc.value, exc.allowed) from None
            shown = [f"preemption={mode}"] if isinstance(entry.get("preemption"), list) else []
            if isinstance(entry.get("checkpoint_overhead"), list):
                shown.append(f"checkpoint_overhead={format_value(float(overhead))}")
            out.append((policy, ",".join(shown)))
    return out


def _values(entry: dict[str, Any], key: str, where: str, default: list[Any]) -> list[Any]:
    if key not in entry:
        return default
    raw = entry[key]
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        raise ConfigError(f"{where}.{key}", raw, "a value or a non-empty list of values")
    return values


def _with_suffix(label: str, shown: str) -> str:
    """``label`` with more ``key=value`` items inside its parentheses."""
    if not shown:
        return label
    if label.endswith(")"):
        return f"{label[:-1]},{shown})"
    return f"{label}({shown})"


def expand_params(
    entry: dict[str, Any], where: str, cls: Any, kind: str, display: str | None = None
) -> list[tuple[str, dict[str, Any], str]]:
    """A policy's or a meta-scheduler's entry: its parameters checked by type and by its
    ``Params`` class, lists multiplied out, each combination completed with the defaults
    and labelled (module docstring)."""
    name = cls.name
    label = entry.get("label")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ConfigError(f"{where}.label", label, "a non-empty string")
    hints = param_types(cls)
    known = list(hints)
    choices: dict[str, list[Any]] = {}
    for key, raw in entry.items():
        if key in POLICY_RESERVED_KEYS:
            continue
        if key not in hints:
            allowed = ", ".join(known) if known else "(none)"
            raise ConfigError(
                f"{where}.{key}",
                raw,
                f"name, label or a parameter of {name}: {allowed}"
                + ("" if kind == "policy" else f" (a {kind})"),
            )
        values = raw if isinstance(raw, list) else [raw]
        if not values:
            raise ConfigError(f"{where}.{key}", raw, "a value or a non-empty list of values")
        choices[key] = [_check_param(f"{where}.{key}", v, hints[key]) for v in values]

    multiplied = [k for k, raw in entry.items() if k in choices and isinstance(raw, list)]
    combinations = math.prod(len(v) for v in choices.values())
    if combinations > MAX_RUNS:
        raise ConfigError(
            where, f"{combinations} parameter combinations", f"at most {MAX_RUNS} runs"
        )
    result = []
    for combo in itertools.product(*choices.values()):
        written = dict(zip(choices, combo))
        try:
            params_obj = make_params(cls, written)
        except ConfigError as exc:
            culprit = next((k for k in written if k in exc.option.split()), None)
            option = f"{where}.{culprit}" if culprit else where
            raise ConfigError(option, exc.value, exc.allowed) from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(where, written, f"parameters {name} accepts ({exc})") from None
        params = _complete_params(params_obj, written)
        shown = multiplied if label else list(written)
        base = label or display or name
        suffix = ",".join(f"{k}={format_value(written[k])}" for k in shown)
        result.append((name, params, f"{base}({suffix})" if suffix else base))
    return result


def _check_param(where: str, value: Any, tp: Any) -> Any:
    """A TOML scalar checked against the parameter's annotation (`registry.check_param`)."""
    if not isinstance(value, str | int | float | bool):
        raise ConfigError(where, value, "a string, number or boolean (or a list of them)")
    return check_param(where, value, tp)


def _complete_params(params_obj: Any, written: dict[str, Any]) -> dict[str, Any]:
    """Every parameter's value (defaults included) that has a plain JSON form."""
    params = dict(written)
    for f in dataclasses.fields(params_obj):
        value = getattr(params_obj, f.name)
        if f.metadata.get("omit_default") and value == f.default:
            params.pop(f.name, None)  # added later: at its default, older run ids hold
            continue
        if f.name not in params and (value is None or isinstance(value, str | int | float | bool)):
            params[f.name] = value
    return dict(sorted(params.items()))


def parse_grid(value: Any) -> dict[str, list[Any]]:
    if not isinstance(value, dict):
        raise ConfigError("grid", value, "a table, written [grid]")
    grid: dict[str, list[Any]] = {}
    for key, raw in value.items():
        if key not in GRID_KEYS:
            raise ConfigError(f"grid.{key}", raw, f"keys {', '.join(GRID_KEYS)}")
        values = raw if isinstance(raw, list) else [raw]
        where = f"grid.{key}"
        if not values:
            raise ConfigError(where, raw, "a value or a non-empty list of values")
        checked: list[Any] = []
        for v in values:
            if key == "load_factor":
                if not is_finite(v) or v <= 0:
                    raise ConfigError(where, v, "finite numbers > 0")
                checked.append(float(v))
            elif key == "seed":
                if not is_int(v) or v < 0:
                    raise ConfigError(where, v, "integers >= 0")
                checked.append(v)
            elif key == "kill_on_overrun":
                if not isinstance(v, bool):
                    raise ConfigError(where, v, "true or false")
                checked.append(v)
            else:  # procs
                if not is_int(v) or not 1 <= v <= MAX_PROCS:
                    raise ConfigError(where, v, f"integers >= 1 (processors), at most {MAX_PROCS}")
                checked.append(v)
        grid[key] = checked
    return grid


def format_value(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_finite(value: Any) -> bool:
    """A finite int or float, not a bool (nor an int beyond the float range)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False
