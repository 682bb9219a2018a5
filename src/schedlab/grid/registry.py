"""Meta-scheduler names -> classes, like the policy registry (`schedulers.registry`).

A meta-scheduler class has ``name``, a frozen-dataclass ``Params`` (checked like policy
parameters: the same `check_param`), and implements `MetaScheduler`. Third parties register
through the entry-point group ``schedlab.meta_schedulers``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any, ClassVar, Protocol

from schedlab.engine.actors import Actor
from schedlab.errors import ConfigError
from schedlab.grid.context import GridContext
from schedlab.schedulers.registry import check_param, param_types

__all__ = [
    "MetaScheduler",
    "available_meta_schedulers",
    "make_meta_scheduler",
    "meta_scheduler_class",
    "register_meta_scheduler",
]

_REGISTRY: dict[str, Any] = {}
_entry_points_loaded = False


class MetaScheduler(Protocol):
    """Builds the actors of one grid run and reports what they counted.

    ``actors(context)``: the actors, in order; actor 0 receives the jobs of the global
    stream (local jobs go to their pool directly). After the run, ``counters()`` gives
    totals for the summary (``matcher_requests`` and its kinds, ``wasted_pilots``, ...;
    empty for schedulers that have none) and ``request_times()`` the times of matcher
    requests by kind (for the requests-over-time series; empty when there is no matcher).
    """

    name: ClassVar[str]

    def actors(self, context: GridContext) -> list[Actor]: ...

    def counters(self) -> dict[str, int]: ...

    def request_times(self) -> dict[str, list[float]]: ...


def register_meta_scheduler(cls: Any) -> Any:
    """Class decorator: make ``cls`` available under ``cls.name``."""
    _REGISTRY[cls.name] = cls
    return cls


def _load() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    import schedlab.grid.dirac  # noqa: F401  (the built-in ones register on import)
    import schedlab.grid.push  # noqa: F401
    import schedlab.tdcs.dispatch  # noqa: F401

    for ep in entry_points(group="schedlab.meta_schedulers"):
        cls = ep.load()
        _REGISTRY.setdefault(getattr(cls, "name", ep.name), cls)


def available_meta_schedulers() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def meta_scheduler_class(name: str) -> Any:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError("meta-scheduler", name, available_meta_schedulers()) from None


def make_meta_scheduler(name: str, **params: Any) -> MetaScheduler:
    """A fresh meta-scheduler, its parameters checked by name and type."""
    cls = meta_scheduler_class(name)
    known = {f.name for f in dataclasses.fields(cls.Params)}
    types = param_types(cls)
    checked: dict[str, Any] = {}
    for key, value in params.items():
        if key not in known:
            raise ConfigError(f"{name} parameter", key, sorted(known) or ["(none)"])
        checked[key] = check_param(f"{name} parameter {key}", value, types.get(key, Any))
    meta: MetaScheduler = cls(cls.Params(**checked))
    return meta


def params_of(meta: Any) -> Mapping[str, Any]:
    """A meta-scheduler's parameters as a plain dict (for results and run ids)."""
    return dataclasses.asdict(meta.params)
