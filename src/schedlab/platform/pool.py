"""A pool: one batch queue of a platform, as the kernel runs it (DESIGN 3b, SPEC 5).

A pool owns node groups (power in work units per second, count of processors), runs one policy
instance from the registry over them, caps run times at ``t_max`` (a job reaching it is killed),
admits an arriving job only after ``mu_rec`` seconds and frees the nodes of an ended job only
``mu_env`` seconds after its recorded end (the batch system's service times, Caron et al., LIP
RR-2005-13). ``placement`` chooses the nodes of a starting job: the fastest free group first
(default), the slowest first, or at random (seeded). Nodes are counts per group, never one
object per node. A homogeneous cluster is one group of power 1. mu_rec and mu_env are seconds or
distributions (`platform.service`), drawn per job from the pool's seeded generator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schedlab.errors import ConfigError
from schedlab.platform.service import MAX_DELAY, ServiceTime, service_time
from schedlab.validators import MAX_TIME

__all__ = ["PLACEMENTS", "PoolSpec"]

PLACEMENTS = ("fastest", "slowest", "random")
MAX_PROCS = 2**31 - 1  # processors of one pool: far beyond any machine, safe in every array
# node powers (NCU/s): a run of a bounded size on one node stays finite (platform.description)
MIN_POWER = 1e-6
MAX_POWER = 1e9


@dataclass(frozen=True)
class PoolSpec:
    """What a pool is; the kernel builds its running state from it.

    ``groups``: ``((power, count), ...)``; ``policy``: a registered name and its ``params``
    (or a policy instance, for tests and custom code); times in seconds.
    """

    name: str
    groups: tuple[tuple[float, int], ...]
    policy: Any = "fcfs"
    params: Mapping[str, Any] = field(default_factory=dict)
    t_max: float = math.inf
    mu_rec: float | ServiceTime = 0.0
    mu_env: float | ServiceTime = 0.0
    placement: str = "fastest"
    seed: int = 0  # for random placement and the service times' draws

    def __post_init__(self) -> None:
        where = f"pool {self.name!r}"
        groups = tuple((float(p), int(c)) for p, c in self.groups)
        if not groups:
            raise ConfigError(f"{where} groups", self.groups, "at least one (power, count)")
        for power, count in groups:
            if not MIN_POWER <= power <= MAX_POWER:  # NaN fails too
                raise ConfigError(
                    f"{where} node power", power, f"NCU/s in [{MIN_POWER:g}, {MAX_POWER:g}]"
                )
            if not 1 <= count <= MAX_PROCS:
                raise ConfigError(f"{where} node count", count, f"an integer in 1..{MAX_PROCS}")
        if sum(c for _, c in groups) > MAX_PROCS:
            raise ConfigError(f"{where} size", sum(c for _, c in groups), f"at most {MAX_PROCS}")
        object.__setattr__(self, "groups", groups)
        if not (0 < self.t_max <= MAX_TIME or self.t_max == math.inf):
            raise ConfigError(
                f"{where} t_max", self.t_max, f"a number of seconds in (0, {MAX_TIME:g}] (or inf)"
            )
        for key in ("mu_rec", "mu_env"):
            value = getattr(self, key)
            if isinstance(value, ServiceTime):
                continue
            if not (isinstance(value, int | float) and 0 <= value <= MAX_DELAY):
                raise ConfigError(
                    f"{where} {key}",
                    value,
                    f"a number of seconds in [0, {MAX_DELAY:g}] or a distribution",
                )
        if not math.isfinite(service_time(self.mu_env).upper):
            raise ConfigError(
                f"{where} mu_env",
                self.mu_env,
                "a bounded service time (a constant, uniform or measured values): policies "
                "plan with its largest value",
            )
        if self.placement not in PLACEMENTS:
            raise ConfigError(f"{where} placement", self.placement, PLACEMENTS)

    @property
    def total(self) -> int:
        return sum(c for _, c in self.groups)

    @property
    def slowest(self) -> float:
        return min(p for p, _ in self.groups)

    @classmethod
    def cluster(cls, procs: int, policy: Any = "fcfs", **kwargs: Any) -> PoolSpec:
        """A homogeneous cluster of ``procs`` processors of power 1 (today's machine)."""
        return cls(name="cluster", groups=((1.0, procs),), policy=policy, **kwargs)

    def placement_order(self) -> list[int]:
        """Group indices in the order a job's nodes are taken (ties: file order)."""
        order = sorted(range(len(self.groups)), key=lambda g: (-self.groups[g][0], g))
        return order[::-1] if self.placement == "slowest" else order
