"""``direct``: no meta-scheduling at all, every meta-job goes to one pool at once.

A one-pool platform under it behaves exactly like a job stream fed to the pool directly: the
M/M/c validation runs through it to exercise the actor path of the kernel (SPEC 5,
Validation), and on a larger platform it is the baseline that places nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from schedlab.engine.actors import Actor, DirectDispatch
from schedlab.errors import ConfigError
from schedlab.grid.context import GridContext
from schedlab.grid.registry import BaseMetaScheduler, register_meta_scheduler
from schedlab.platform.service import MAX_DELAY
from schedlab.validators import is_number

__all__ = ["Direct", "DirectParams"]


@dataclass(frozen=True)
class DirectParams:
    """``pool``: where every meta-job goes (its index); ``delay``: seconds on the way."""

    pool: int = 0
    delay: float = 0.0

    def __post_init__(self) -> None:
        if isinstance(self.pool, bool) or not isinstance(self.pool, int) or self.pool < 0:
            raise ConfigError("direct parameter pool", self.pool, "a pool index >= 0")
        if not (is_number(self.delay) and 0 <= self.delay <= MAX_DELAY):
            raise ConfigError(
                "direct parameter delay", self.delay, f"seconds >= 0, at most {MAX_DELAY:g}"
            )


@register_meta_scheduler
class Direct(BaseMetaScheduler):
    """Every meta-job to one pool, at once (no meta-scheduling: a baseline)."""

    name: ClassVar[str] = "direct"
    Params: ClassVar[type] = DirectParams
    params: DirectParams

    def __init__(self, params: DirectParams | None = None) -> None:
        self.params = params or DirectParams()

    def actors(self, context: GridContext) -> list[Actor]:
        if self.params.pool >= context.pools:
            raise ConfigError("direct parameter pool", self.params.pool, f"0..{context.pools - 1}")
        return [DirectDispatch(self.params.pool, float(self.params.delay))]
