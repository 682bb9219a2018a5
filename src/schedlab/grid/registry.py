"""Meta-scheduler names -> classes, like the policy registry (`schedulers.registry`).

A meta-scheduler class has ``name``, a frozen-dataclass ``Params`` (checked like policy
parameters: the same `schedlab.registry.check_param`), and implements `MetaScheduler`. Third
parties register through the entry-point group ``schedlab.meta_schedulers``. The built-ins
(`grid.push`, `grid.dirac`, `grid.direct`, `grid.tdcs`) register when imported; the registry
imports them at its first lookup (`_load_builtins`: by name, since they import this module).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from schedlab.engine.actors import Actor
from schedlab.grid.context import GridContext
from schedlab.registry import Registry

__all__ = [
    "META_SCHEDULERS",
    "BaseMetaScheduler",
    "MetaScheduler",
    "available_meta_schedulers",
    "make_meta_scheduler",
    "meta_scheduler_class",
    "params_of",
    "register_meta_scheduler",
    "reports_of",
]

_BUILTIN_MODULES = ("push", "dirac", "direct", "tdcs")


def _load_builtins() -> None:
    """Import the built-in meta-schedulers (each registers itself)."""
    for module in _BUILTIN_MODULES:
        importlib.import_module(f"schedlab.grid.{module}")


META_SCHEDULERS = Registry("meta-scheduler", "schedlab.meta_schedulers", _load_builtins)


class MetaScheduler(Protocol):
    """Builds the actors of one platform run and reports what they counted.

    ``params``: its frozen-dataclass parameters (results and run ids show them).
    ``actors(context)``: the actors, in order; actor 0 receives the jobs of the global
    stream (local jobs go to their pool directly). After the run, ``counters()`` gives
    totals for the summary (``matcher_requests`` and its kinds, ``wasted_pilots``, ...;
    empty for schedulers that have none), ``request_times()`` the times of matcher requests
    by kind (for the requests-over-time series; empty when there is no matcher) and
    ``records()`` per-job lists by global id (a dispatcher's ``queue_time`` and
    ``transfer_time``, the components of processing time; empty when it keeps none).
    `BaseMetaScheduler` has the empty reports.
    """

    name: ClassVar[str]
    params: Any

    def actors(self, context: GridContext) -> list[Actor]: ...

    def counters(self) -> dict[str, int]: ...

    def request_times(self) -> dict[str, list[float]]: ...

    def records(self) -> dict[str, Any]: ...


class BaseMetaScheduler:
    """A meta-scheduler that reports nothing: inherit it and define ``actors``."""

    name: ClassVar[str] = "meta"
    params: Any = None

    def counters(self) -> dict[str, int]:
        return {}

    def request_times(self) -> dict[str, list[float]]:
        return {}

    def records(self) -> dict[str, Any]:
        return {}


def reports_of(
    meta: Any,
) -> tuple[dict[str, Any], dict[str, int], dict[str, list[float]], dict[str, Any]]:
    """(params, counters, request times, records) of a meta-scheduler after its run; a
    third-party one may lack ``params`` or ``records`` (empty then)."""
    params = (
        dict(params_of(meta)) if dataclasses.is_dataclass(getattr(meta, "params", None)) else {}
    )
    records = getattr(meta, "records", None)
    return (
        params,
        dict(meta.counters()),
        meta.request_times(),
        records() if callable(records) else {},
    )


register_meta_scheduler = META_SCHEDULERS.register  # class decorator, by ``cls.name``
available_meta_schedulers = META_SCHEDULERS.available  # every name, sorted
meta_scheduler_class = META_SCHEDULERS.get  # ConfigError listing the names when unknown


def make_meta_scheduler(name: str, **params: Any) -> MetaScheduler:
    """A fresh meta-scheduler, its parameters checked by name and type."""
    meta: MetaScheduler = META_SCHEDULERS.make(name, **params)
    return meta


def params_of(meta: Any) -> Mapping[str, Any]:
    """A meta-scheduler's parameters as a plain dict (for results and run ids)."""
    return dataclasses.asdict(meta.params)
