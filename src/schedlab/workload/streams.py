"""The jobs a platform run gets when it names none: the generator its platform file declares
(``[stream]``, `Platform.stream`) with the settings written there, then the run's own.

Two generators ship: ``grid``, the workload of Caron et al. (LIP RR-2005-13, Table 2:
meta-jobs and local jobs, `workload.models.grid`), the default; and ``tdcs``, the
pre-registered streams of Baranov and Tikhomirov (Computational Technologies 2017:
priorities, origins, inputs, `workload.models.tdcs`). A run's seed seeds the stream.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from schedlab.errors import ConfigError
from schedlab.platform.description import Platform

if TYPE_CHECKING:
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.models.tdcs import TdcsWorkload

__all__ = ["STREAMS", "check_stream", "platform_stream", "stream_settings_types"]

# name -> (module and function of its generator, imported when used: the grid model needs
# scipy; the settings that size a stream, with a small value to check it with)
STREAMS: dict[str, tuple[str, dict[str, Any]]] = {
    "grid": ("schedlab.workload.models.grid:generate_grid", {"meta_jobs": 1, "local_jobs": 1}),
    "tdcs": ("schedlab.workload.models.tdcs:generate_tdcs", {"hours": 0.01}),
}


def _generator(name: str) -> tuple[Callable[..., GridWorkload | TdcsWorkload], dict[str, Any]]:
    try:
        target, probe = STREAMS[name]
    except KeyError:
        raise ConfigError("stream generator", name, sorted(STREAMS)) from None
    module, function = target.split(":")
    return getattr(importlib.import_module(module), function), probe


def stream_settings_types(name: str) -> dict[str, Any]:
    """Setting -> annotation of stream generator ``name`` (without platform and seed)."""
    hints = {
        p.name: p.annotation for p in inspect.signature(_generator(name)[0]).parameters.values()
    }
    for key in ("platform", "seed"):
        hints.pop(key, None)
    return hints


def platform_stream(
    platform: Platform, settings: Mapping[str, Any] | None = None, seed: int = 0
) -> GridWorkload | TdcsWorkload:
    """The platform's default stream: its generator with the platform's settings, then
    ``settings`` over them, seeded by ``seed``."""
    generate, _ = _generator(platform.stream)
    return generate(platform, **_merged(platform, settings), seed=seed)


def check_stream(platform: Platform, settings: Mapping[str, Any] | None = None) -> None:
    """ConfigError (option ``stream.KEY``) unless the platform's generator takes its settings
    and ``settings`` over them; checked on a tiny stream (no thousands of jobs drawn)."""
    generate, probe = _generator(platform.stream)
    merged = _merged(platform, settings)
    small = dict(merged)
    for key, value in probe.items():
        current = small.get(key)
        if isinstance(current, int | float) and not isinstance(current, bool) and current > value:
            small[key] = value
    try:
        generate(platform, **small)
    except ConfigError as exc:
        culprit = next((k for k in merged if k in exc.option.split()), None)
        if culprit is None:
            raise ConfigError("stream", exc.value, exc.allowed) from None
        raise ConfigError(f"stream.{culprit}", merged[culprit], exc.allowed) from None


def _merged(platform: Platform, settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """The platform's stream settings with ``settings`` over them, every name checked."""
    merged = {**dict(platform.stream_settings), **dict(settings or {})}
    known = stream_settings_types(platform.stream)
    for key, value in merged.items():
        if key not in known:
            allowed = f"settings of the {platform.stream} generator: {', '.join(known)}"
            raise ConfigError(f"stream.{key}", value, allowed)
    return merged
