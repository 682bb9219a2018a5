"""How long a job runs: from its work, the processors it gets and their power (DESIGN 3b).

Work is measured in *work units*: one unit is one second of the job on its reference
allocation at power 1. A **rigid** job's reference is its own size, so its work is the run
time the trace records (SPEC 1) and on nodes of power w it runs ``work / w`` seconds. A
**moldable** job's reference is one processor: its work is its sequential time, and on q
processors of power w it runs ``work x time_factor(q) / w`` seconds (SPEC 7).

Every model here is linear in the work, which is what lets the engine keep a job's progress
in work units: a job that ran ``s`` seconds on (q, w) did ``s x w / time_factor(q)`` units,
and resumes with the rest on any other allocation or node speed (checkpoints, SPEC 6).
A policy never computes a duration: it asks its view, which asks the job's model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import ClassVar, Protocol, runtime_checkable

from schedlab.errors import ConfigError
from schedlab.validators import check_fraction

__all__ = ["RIGID", "Amdahl", "PowerLaw", "Rigid", "SpeedupModel", "duration"]


@runtime_checkable
class SpeedupModel(Protocol):
    """Time on ``procs`` processors relative to one processor (1.0 at one processor).

    Implement ``time_factor`` (and a ``name`` for tables) to add a model: the engine only
    needs the factor, times are ``work x time_factor(q) / power``.
    """

    name: ClassVar[str]

    def time_factor(self, procs: int) -> float: ...


@dataclass(frozen=True)
class Rigid:
    """A rigid job: runs on exactly its size; its time does not depend on anything else."""

    name: ClassVar[str] = "rigid"

    def time_factor(self, procs: int) -> float:
        return 1.0


RIGID = Rigid()


@dataclass(frozen=True)
class _OneFraction:
    """A model of one parameter in [0, 1] (its only field), checked when it is made;
    ``allowed`` says what the parameter is (in the error)."""

    name: ClassVar[str]
    allowed: ClassVar[str]

    def __post_init__(self) -> None:
        (parameter,) = fields(self)
        option = f"{self.name} {parameter.name}"
        check_fraction(option, getattr(self, parameter.name), self.allowed)


@dataclass(frozen=True)
class Amdahl(_OneFraction):
    """Amdahl's law: p(q) = ((1 - pi) + pi / q) x p(1) (Lanore and Klein; SPEC 7); pi in [0, 1]."""

    pi: float
    name: ClassVar[str] = "amdahl"
    allowed: ClassVar[str] = "a parallel fraction in [0, 1]"

    def time_factor(self, procs: int) -> float:
        return (1.0 - self.pi) + self.pi / procs


@dataclass(frozen=True)
class PowerLaw(_OneFraction):
    """p(q) = p(1) / q**alpha: alpha = 1 is linear speed-up, 0 none (Downey's simple form)."""

    alpha: float
    name: ClassVar[str] = "power_law"
    allowed: ClassVar[str] = "an exponent in [0, 1]"

    def time_factor(self, procs: int) -> float:
        return float(procs) ** -self.alpha


def duration(work: float, procs: int, power: float, model: SpeedupModel = RIGID) -> float:
    """Seconds ``work`` units take on ``procs`` processors of ``power`` under ``model``."""
    if not (power > 0 and math.isfinite(power)):
        raise ConfigError("node power", power, "a finite number > 0")
    return work * model.time_factor(procs) / power
