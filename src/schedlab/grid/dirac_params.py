"""What a DIRAC meta-scheduler (`grid.dirac`) is given, and the checks made on it before
a run: its parameters (`DiracParams`, `PilotParams`), each bounded where it enters, and the
number of matcher requests a stream's span would call for (`check_polling`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schedlab.errors import ConfigError
from schedlab.platform.service import MAX_DELAY
from schedlab.validators import is_number

__all__ = [
    "MAX_EPSILON",
    "MAX_POLLS",
    "MIN_RETRY",
    "PROBES",
    "DiracParams",
    "PilotParams",
    "Probe",
    "check_polling",
]

MAX_EPSILON = 100.0  # depth / nodes an agent may fill its queue to (paper: 0.3)
MIN_RETRY = 1e-3  # seconds an agent waits at least after a negative answer
MAX_POLLS = 10_000_000  # requests a stream's span may call for (`check_polling`)


@dataclass(frozen=True)
class DiracParams:
    """``epsilon``: an agent asks while depth / nodes < epsilon (paper: 0.3); ``retry``:
    seconds an agent waits after a negative answer, default 60 s
    (docs/model.md, "Meta-schedulers", gives its effect); ``jitter`` in [0, 1):
    each wait is drawn uniformly in retry x [1 - jitter, 1 + jitter), seeded by the context's
    seed, so that agents answered at the same instant do not ask again in step (0: exactly
    ``retry``, the paper's rule)."""

    epsilon: float = 0.3
    retry: float = 60.0
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if not (is_number(self.epsilon) and 0 < self.epsilon <= MAX_EPSILON):
            raise ConfigError(
                "dirac parameter epsilon", self.epsilon, f"a number > 0, at most {MAX_EPSILON:g}"
            )
        if not (is_number(self.retry) and MIN_RETRY <= self.retry <= MAX_DELAY):
            raise ConfigError(
                "dirac parameter retry",
                self.retry,
                f"seconds > 0, in [{MIN_RETRY:g}, {MAX_DELAY:g}]",
            )
        if not (is_number(self.jitter) and 0 <= self.jitter < 1):
            raise ConfigError("dirac parameter jitter", self.jitter, "a fraction in [0, 1)")


Probe = Literal["literal", "unclaimed", "unclaimed_own"]
PROBES: tuple[Probe, ...] = ("literal", "unclaimed", "unclaimed_own")
"""Readings of "the matcher has work" for a pilot agent's probe (module docstring)."""


@dataclass(frozen=True)
class PilotParams(DiracParams):
    """`DiracParams` and ``probe``: when a pilot agent's probe is positive. ``"unclaimed"``
    (default): while the classes the probe's processors fit hold more jobs fitting it than
    pilots of all agents are promised for those classes (a pilot is promised from its positive
    probe until its first pull is matched); ``"unclaimed_own"``: the same against this
    agent's promised pilots only; ``"literal"``: while any job fits (module docstring;
    docs/model.md compares the three on the paper's Table 2)."""

    probe: Probe = "unclaimed"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.probe not in PROBES:
            raise ConfigError("dirac parameter probe", self.probe, list(PROBES))


def check_polling(meta: object, pools: int, span: float, option: str = "retry") -> None:
    """ConfigError (at ``option``) when DIRAC agents (``meta``'s params are `DiracParams`)
    would ask the matcher more than `MAX_POLLS` times while a stream's jobs arrive over
    ``span`` seconds at ``pools`` queues: an agent with nothing to take asks every ``retry``
    s. Others meta-schedulers pass."""
    params = getattr(meta, "params", None)
    if not isinstance(params, DiracParams) or not span > 0:
        return
    polls = span / params.retry * max(pools, 1)
    if polls > MAX_POLLS:
        raise ConfigError(
            option,
            params.retry,
            f"at least {span * max(pools, 1) / MAX_POLLS:.3g} s here: each agent asks the "
            f"matcher every retry seconds while jobs are still to come, and this stream's jobs "
            f"arrive over {span:.3g} s at {pools} queues (about {polls:,.0f} requests; at most "
            f"{MAX_POLLS:,})",
        )
