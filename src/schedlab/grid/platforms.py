"""Platforms made ready to run: files and built-in platforms read, their policies checked.

The platform layer reads a platform file into values (`platform.files.read_platform`) and
knows no policy code: it checks only that a queue's ``policy`` is a string and its
``params`` a table of strings, numbers and booleans. This module is where the platform meets
the policy registry: `check_policies` checks each queue's policy name and parameters,
naming the file's key path (``sites[0].queues[1].params.backfill_order``), and
`load_platform` reads a file and checks it.

Built-in platforms (``builtin:NAME``, `BUILTIN_PLATFORMS`) ship in the package as example
files, so an installed schedlab and Dask workers have them: `resolve_platform` makes a
platform as a sweep stores it loadable, `load_platform_source` loads and checks it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from schedlab.errors import ConfigError
from schedlab.platform.description import Platform, Queue
from schedlab.platform.files import PlatformFileError, parse_platform, read_platform
from schedlab.schedulers.registry import (
    available_policies,
    check_param,
    make_params,
    param_types,
    policy_class,
)
from schedlab.workload.streams import check_stream

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "BUILTIN_PLATFORMS",
    "BUILTIN_PREFIX",
    "PLATFORM_ALLOWED",
    "check_platform",
    "check_policies",
    "load_platform",
    "load_platform_source",
    "resolve_platform",
]

# ``platform = "builtin:NAME"``: platforms shipped in the package, NAME -> the example file
# (`schedlab example NAME`) that holds it, so an installed schedlab and Dask workers have it
BUILTIN_PREFIX = "builtin:"
BUILTIN_PLATFORMS: dict[str, str] = {"dirac": "platform-dirac", "tdcs": "platform-tdcs"}
PLATFORM_ALLOWED = (
    "an existing platform .toml file (relative paths: from the sweep file's folder) or "
    + ", ".join(BUILTIN_PREFIX + n for n in BUILTIN_PLATFORMS)
)


def check_policies(platform: Platform) -> Platform:
    """Check every queue's policy and parameters against the policy registry, in pool
    order; raise `ConfigError` at the queue's key path (`Queue.where`), else return
    ``platform``."""
    for queue in platform.queues():
        _check_queue(queue)
    return platform


def _check_queue(queue: Queue) -> None:
    """The written parameters, checked by name, type and the policy's Params class."""
    at = queue.where or f"queue {queue.pool_name}"
    policy = queue.policy
    raw = queue.params
    if not isinstance(policy, str) or policy not in available_policies():
        raise ConfigError(f"{at}.policy", policy, available_policies())
    cls = policy_class(policy)
    if callable(getattr(cls, "prepare", None)):  # clairvoyant: plans a whole machine's run
        online = [
            p
            for p in available_policies()
            if not callable(getattr(policy_class(p), "prepare", None))
        ]
        raise ConfigError(
            f"{at}.policy",
            policy,
            f"a policy that schedules a queue online ({policy} plans a whole run on one "
            f"machine before it starts): {', '.join(online)}",
        )
    types = param_types(cls)
    for key, value in raw.items():
        if key not in types:
            known = ", ".join(sorted(types)) or "(none)"
            raise ConfigError(f"{at}.params.{key}", value, f"a parameter of {policy}: {known}")
        if not isinstance(value, str | int | float | bool):
            raise ConfigError(f"{at}.params.{key}", value, "a string, number or boolean")
        check_param(f"{at}.params.{key}", value, types[key])
    try:
        make_params(cls, raw)
    except ConfigError as exc:
        culprit = next((k for k in raw if k in exc.option.split()), None)
        option = f"{at}.params.{culprit}" if culprit else f"{at}.params"
        raise ConfigError(option, exc.value, exc.allowed) from None
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{at}.params", raw, f"parameters {policy} accepts ({exc})") from None


def check_platform(platform: Platform) -> Platform:
    """``platform`` with its policies (`check_policies`) and its default stream's generator
    and settings (`workload.streams.check_stream`) checked; a mistake names the platform's
    file (`PlatformFileError`) as well as the key."""
    try:
        check_stream(check_policies(platform))
    except ConfigError as exc:
        raise PlatformFileError.of(exc, platform.source) from None
    return platform


def load_platform(path: str | os.PathLike[str]) -> Platform:
    """Read a TOML platform file (`platform.files`) and check its policies and stream;
    relative file names in it are from its folder."""
    return check_platform(read_platform(path))


def resolve_platform(platform: str, base_dir: str | os.PathLike[str]) -> str:
    """A `RunConfig.platform` made loadable: ``builtin:NAME`` as it is, paths absolute."""
    if platform.startswith(BUILTIN_PREFIX):
        return platform
    return os.path.normpath(Path(base_dir) / platform)


def load_platform_source(source: str) -> Platform:
    """The checked `Platform` of a resolved platform (`resolve_platform`): a built-in one or
    a file."""
    if source.startswith(BUILTIN_PREFIX):
        name = source[len(BUILTIN_PREFIX) :]
        if name not in BUILTIN_PLATFORMS:
            raise ConfigError("platform", source, PLATFORM_ALLOWED)
        from schedlab.examples_files import example_text

        text = example_text(BUILTIN_PLATFORMS[name])
        return check_platform(parse_platform(tomllib.loads(text), Path("."), source))
    return load_platform(source)
