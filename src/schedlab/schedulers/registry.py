"""Policy names -> classes, for the API, the CLI and experiment files.

Built-in policies register themselves on import; third parties declare an entry point in the
group ``schedlab.policies`` whose object is a policy class (with ``name`` and ``Params``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from schedlab.engine.protocol import Policy
from schedlab.errors import ConfigError

_REGISTRY: dict[str, type] = {}
_entry_points_loaded = False


def register_policy(cls: type) -> type:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    _REGISTRY[cls.name] = cls  # type: ignore[attr-defined]
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


def policy_class(name: str) -> type:
    """The class registered as ``name``; ConfigError listing the known names otherwise."""
    _load_entry_points()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError("policy", name, available_policies()) from None


def make_params(cls: type, params: Mapping[str, Any]) -> Any:
    """Build ``cls.Params`` from a mapping, rejecting unknown keys by name."""
    params_cls = cls.Params  # type: ignore[attr-defined]
    known = {f.name for f in dataclasses.fields(params_cls)}
    for key in params:
        if key not in known:
            raise ConfigError(
                f"{cls.name} parameter",
                key,
                sorted(known) or ["(none)"],  # type: ignore[attr-defined]
            )
    return params_cls(**params)


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy instance, configured by keyword parameters."""
    cls = policy_class(name)
    return cls(make_params(cls, params))  # type: ignore[no-any-return]
