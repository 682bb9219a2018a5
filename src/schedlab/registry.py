"""Name -> class registries with entry-point plug-ins, and the checking of their parameters.

Policies (`schedulers.registry`) and meta-schedulers (`grid.registry`) are both looked up by
name from the API, the CLI, platform and sweep files: one `Registry` serves both so that the
lookup, the plug-in loading and the parameter checks (and their messages) are the same.

A registered class has a ``name`` (str) and a dataclass ``Params``; it is built as
``cls(cls.Params(**checked))``. Built-ins register with the `Registry.register` decorator when
their module is imported; third parties declare an entry point in the registry's group, loaded
the first time a name is looked up. A plug-in that cannot be loaded, or whose object is not
such a class, is skipped with a `PluginWarning` naming it: one broken package must not stop
schedlab nor the other plug-ins.

This module is at the bottom of the import layers (stdlib, numpy and `schedlab.errors` only):
it knows nothing of what it registers.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from schedlab.errors import ConfigError, PluginWarning
from schedlab.validators import is_int, is_number

if TYPE_CHECKING:
    from importlib import metadata

__all__ = ["Registry", "check_param", "make_params", "param_types"]

C = TypeVar("C")


class Registry:
    """Classes by name for one kind of plug-in (``kind`` names it in messages, ``group`` is
    its entry-point group). ``builtins``, when given, imports the built-in classes (they
    register themselves): it runs once, at the first lookup, so that importing the package
    does not import every built-in. Entry points are read once, the first time a name is
    not a built-in or every name is listed (reading them costs more than the rest of a
    small run's start); a built-in of the same name wins over a plug-in."""

    def __init__(self, kind: str, group: str, builtins: Callable[[], object] | None = None) -> None:
        self.kind = kind
        self.group = group
        self._classes: dict[str, Any] = {}
        self._entry_points_loaded = False
        self._builtins = builtins

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.group!r})"

    def register(self, cls: C) -> C:
        """Class decorator: make ``cls`` available under ``cls.name``."""
        self._classes[cls.name] = cls  # type: ignore[attr-defined]
        return cls

    def available(self) -> list[str]:
        """Every registered name, sorted."""
        self._load_builtins()
        self._load_entry_points()
        return sorted(self._classes)

    def get(self, name: str) -> Any:
        """The class registered as ``name``; ConfigError listing the known names otherwise."""
        self._load_builtins()
        cls = self._classes.get(name)
        if cls is not None:
            return cls
        self._load_entry_points()
        try:
            return self._classes[name]
        except KeyError:
            raise ConfigError(self.kind, name, self.available()) from None

    def make(self, name: str, **params: Any) -> Any:
        """A fresh instance of ``name``, every parameter checked by name and type."""
        cls = self.get(name)
        return cls(make_params(cls, params, name=name))

    def _load_builtins(self) -> None:
        if self._builtins is not None:
            load, self._builtins = self._builtins, None
            load()

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        from importlib import metadata

        for ep in metadata.entry_points(group=self.group):
            loaded = _load_plugin(ep, self.group, self.kind)
            if loaded is not None:
                self._classes.setdefault(*loaded)


def _load_plugin(ep: metadata.EntryPoint, group: str, kind: str) -> tuple[str, Any] | None:
    """(name, class) behind ``ep``, or None after a PluginWarning when it is unusable.

    The name is the class's ``name``, or the entry point's own name when the class has no
    such attribute (docs/policies.md, "Registering a policy").
    """
    problem: str
    try:
        cls = ep.load()
    except Exception as exc:  # any error of a third-party import: skip that plug-in only
        problem = f"loading it failed: {type(exc).__name__}: {exc}"
    else:
        name = getattr(cls, "name", ep.name)
        params_cls = getattr(cls, "Params", None)
        if not isinstance(name, str) or not name:
            problem = f"the name of {cls!r} is {name!r}, not a non-empty string"
        elif not (isinstance(params_cls, type) and dataclasses.is_dataclass(params_cls)):
            problem = f"{cls!r} has no Params (a dataclass attribute 'Params')"
        else:
            return name, cls
    warnings.warn(
        f"skipping {kind} plug-in {ep.name!r} = {ep.value!r} of entry-point group "
        f"{group!r}: {problem}",
        PluginWarning,
        stacklevel=2,
    )
    return None


# -- parameters --------------------------------------------------------------------------------


def param_types(cls: Any) -> dict[str, Any]:
    """Parameter name -> type annotation of ``cls.Params`` (``Any`` when unresolvable)."""
    params_cls = cls.Params
    try:
        hints = typing.get_type_hints(params_cls)
    except Exception:  # unresolvable annotations of a third-party class: no type checks
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(params_cls) if f.init}


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
        if not is_int(value):
            raise ConfigError(where, value, "an integer")
        return int(value)
    if tp is float:
        if not is_number(value) or not math.isfinite(float(value)):
            raise ConfigError(where, value, "a number")
        return float(value)
    if tp is str and not isinstance(value, str):
        raise ConfigError(where, value, "a string")
    return value


def make_params(cls: Any, params: Mapping[str, Any], *, name: str | None = None) -> Any:
    """Build ``cls.Params`` from a mapping: unknown keys and ill-typed values are refused.
    Messages name the class as ``name`` (default ``cls.name``)."""
    label = cls.name if name is None else name
    params_cls = cls.Params
    types_of = param_types(cls)
    known = {f.name for f in dataclasses.fields(params_cls)}
    checked = {}
    for key, value in params.items():
        if key not in known:
            raise ConfigError(f"{label} parameter", key, sorted(known) or ["(none)"])
        checked[key] = check_param(f"{label} parameter {key}", value, types_of.get(key, Any))
    return params_cls(**checked)
