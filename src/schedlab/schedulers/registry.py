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


def make_params(cls: Any, params: Mapping[str, Any]) -> Any:
    """Build ``cls.Params`` from a mapping, rejecting unknown keys by name."""
    params_cls = cls.Params
    known = {f.name for f in dataclasses.fields(params_cls)}
    for key in params:
        if key not in known:
            raise ConfigError(
                f"{cls.name} parameter",
                key,
                sorted(known) or ["(none)"],
            )
    return params_cls(**params)


def make_policy(name: str, **params: Any) -> Policy:
    """A fresh policy instance, configured by keyword parameters."""
    cls = policy_class(name)
    policy: Policy = cls(make_params(cls, params))
    return policy
