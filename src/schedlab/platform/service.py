"""Service times of a batch system: mu_rec and mu_env (Caron et al., LIP RR-2005-13; SPEC 5).

mu_rec delays a job's admission into its queue after it arrives; mu_env keeps an ended
job's nodes busy after its recorded end (the batch system notices the end late). The paper
measured 3.75 s and 2 s on its validation site and notes that a distribution would come
closer to reality. A service time is a constant or a distribution, drawn once per job from
the pool's seeded generator. ``upper`` is the largest value it can take: a pool's policy
plans with the requested time plus mu_env's upper bound, so a reservation stays an upper
bound (docs/model.md); mu_env must therefore be bounded, mu_rec need not be.

Every value a service time is made of (a constant, uniform bounds, an exponential mean, a
measured value) is at most `MAX_DELAY` seconds (1e7 s, about 116 days), so that no draw moves
a run's clock towards the end of time (1e15 s): an exponential draw is at most about 745
means (the largest -log of a double in (0, 1]), 7.5e9 s. A measured sample holds at most
`MAX_VALUES` values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from schedlab.errors import ConfigError
from schedlab.validators import check_seconds

MAX_DELAY = 1e7  # seconds: the most one delay of a platform may last (platform.description)
MAX_VALUES = 1_000_000  # values of one measured (empirical) service time

__all__ = [
    "MAX_DELAY",
    "MAX_VALUES",
    "Constant",
    "Empirical",
    "Exponential",
    "ServiceTime",
    "Uniform",
    "service_time",
]


@runtime_checkable
class ServiceTime(Protocol):
    """A service time in seconds: ``sample(rng)`` draws one; ``upper`` bounds every draw
    (inf when unbounded); ``mean`` for reports."""

    @property
    def upper(self) -> float: ...

    @property
    def mean(self) -> float: ...

    def sample(self, rng: np.random.Generator) -> float: ...


@dataclass(frozen=True)
class _OneSeconds:
    """A service time of one parameter in seconds (its only field), checked and stored as a
    float when it is made; ``option`` names the parameter (in the error)."""

    option: ClassVar[str]

    def __post_init__(self) -> None:
        (parameter,) = fields(self)
        seconds = check_seconds(self.option, getattr(self, parameter.name), high=MAX_DELAY)
        object.__setattr__(self, parameter.name, seconds)  # (frozen: set through object)


@dataclass(frozen=True)
class Constant(_OneSeconds):
    """Always ``value`` seconds."""

    value: float
    option: ClassVar[str] = "service time"

    @property
    def upper(self) -> float:
        return self.value

    @property
    def mean(self) -> float:
        return self.value

    def sample(self, rng: np.random.Generator) -> float:
        return self.value


@dataclass(frozen=True)
class Uniform:
    """Uniform on [low, high] seconds."""

    low: float
    high: float

    def __post_init__(self) -> None:
        low = check_seconds("service time low", self.low, high=MAX_DELAY)
        high = check_seconds("service time high", self.high, high=MAX_DELAY)
        if high < low:
            raise ConfigError("service time high", self.high, f"a number >= low ({low:g})")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def upper(self) -> float:
        return self.high

    @property
    def mean(self) -> float:
        return (self.low + self.high) / 2

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.uniform(self.low, self.high))


@dataclass(frozen=True)
class Exponential(_OneSeconds):
    """Exponential of mean ``mean_time`` seconds (unbounded: not allowed for mu_env)."""

    mean_time: float
    option: ClassVar[str] = "service time mean"

    @property
    def upper(self) -> float:
        return math.inf if self.mean_time > 0 else 0.0

    @property
    def mean(self) -> float:
        return self.mean_time

    def sample(self, rng: np.random.Generator) -> float:
        return float(rng.exponential(self.mean_time)) if self.mean_time > 0 else 0.0


@dataclass(frozen=True)
class Empirical:
    """One of ``values`` (seconds) at random, uniformly: measured service times."""

    values: tuple[float, ...]

    def __post_init__(self) -> None:
        values = tuple(self.values)
        if not values:
            raise ConfigError("service time values", self.values, "at least one value")
        if len(values) > MAX_VALUES:
            raise ConfigError(
                "service time values", f"{len(values)} values", f"at most {MAX_VALUES:,}"
            )
        if all(type(v) is float for v in values):  # checked as one array (a measured file)
            array = np.asarray(values, dtype=np.float64)
            if np.isfinite(array).all() and array.min() >= 0 and array.max() <= MAX_DELAY:
                object.__setattr__(self, "values", values)
                return
        values = tuple(check_seconds("service time value", v, high=MAX_DELAY) for v in values)
        object.__setattr__(self, "values", values)

    @property
    def upper(self) -> float:
        return max(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    def sample(self, rng: np.random.Generator) -> float:
        return self.values[int(rng.integers(len(self.values)))]


def service_time(value: float | ServiceTime | Sequence[float]) -> ServiceTime:
    """A constant from a number, the distribution itself, or Empirical from a list."""
    if isinstance(value, ServiceTime):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Constant(float(value))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return Empirical(tuple(value))
    raise ConfigError("service time", value, "seconds, a distribution or a list of seconds")
