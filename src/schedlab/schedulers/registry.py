"""Policy names -> classes, for the API, the CLI and experiment files.

Built-in policies register themselves on import; third parties declare an entry point in the
group ``schedlab.policies`` whose object is a policy class (with ``name`` and ``Params``).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import types
import typing
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

import numpy as np

from schedlab.engine.protocol import Policy
from schedlab.errors import ConfigError

_REGISTRY: dict[str, Any] = {}  # name -> policy class (with .name and .Params)
_entry_points_loaded = False


def register_policy(cls: Any) -> Any:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    _REGISTRY[cls.name] = cls
    return cls


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group="schedlab.policies"):
        cls = ep.load()
        _REGISTRY.setdefault(getattr(cls, "name", ep.name), cls)


def available_policies() -> list[str]:
    """Names of every registered policy, sorted."""
    _load_entry_points()
    return sorted(_REGISTRY)


def policy_class(name: str) -> Any:
    """The class registered as ``name``; ConfigError listing the known names otherwise."""
    _load_entry_points()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError("policy", name, available_policies()) from None


def param_types(cls: Any) -> dict[str, Any]:
    """Parameter name -> type annotation of ``cls.Params`` (``Any`` when unresolvable)."""
    params_cls = cls.Params
    try:
        hints = typing.get_type_hints(params_cls)
    except Exception:  # unresolvable annotations of a third-party class: no type checks
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(params_cls) if f.init}


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def check_param(where: str, value: Any, tp: Any) -> Any:
    """``value`` if it suits the annotation ``tp``, else ConfigError naming ``where``.

    Booleans are only True/False (the CLI's ``true``/``false``): a string such as "no" for a
    bool parameter is an error, never a truthy value. Integers are widened for float
    parameters; Literal parameters take one of their values.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(where, value, "a finite number")
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        options = typing.get_args(tp)
        if not any(value == o and type(value) is type(o) for o in options):
            raise ConfigError(where, value, [repr(o) for o in options])
        return value
    arms = [a for a in typing.get_args(tp) if a is not type(None)]
    if origin in (typing.Union, types.UnionType) and len(arms) == 1:
        return value if value is None else check_param(where, value, arms[0])
    if tp is bool:
        if not isinstance(value, bool | np.bool_):
            raise ConfigError(where, value, "true or false")
        return bool(value)
    if tp is int:
        if not _is_int(value):
            raise ConfigError(where, value, "an integer")
        return int(value)
    if tp is float:
        if not _is_number(value) or not math.isfinite(float(value)):
            raise ConfigError(where, value, "a number")
        return float(value)
    if tp is str and not isinstance(value, str):
        raise ConfigError(where, value, "a string")
    return value


def make_params(cls: Any, params: Mapping[str, Any]) -> Any:
    """Build ``cls.Params`` from a mapping: unknown keys and ill-typed values are refused."""
    params_cls = cls.Params
    types_of = param_types(cls)
    known = {f.name for f in dataclasses.fields(params_cls)}
    checked = {}
    for key, value in params.items():
        if key not in known:
            raise ConfigError(
                f"{cls.name} parameter",
                key,
                sorted(known) or ["(none)"],
            )
        checked[key] = check_param(f"{cls.name} parameter {key}", value, types_of.get(key, Any))
    return params_cls(**checked)


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy instance, configured by keyword parameters."""
    cls = policy_class(name)
    policy: Policy = cls(make_params(cls, params))
    return policy
