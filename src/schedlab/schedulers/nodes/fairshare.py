"""Fair share on nodes: TRES billing weights (Slurm's ``TRESBillingWeights``) and the decayed,
tick-based usage of `schedlab.schedulers.multifactor`, charged in billing units.

Billing (slurm.conf ``TRESBillingWeights``, tres.html): a job's billing rate is the sum of
weight x allocated amount over the trackable resources, or with ``PriorityFlags=MAX_TRES``
the largest weighted amount of the per-node resources (cores, memory, GPUs) plus the
weighted global ones (here the node count); its usage is billing x seconds. Memory weights
are per MiB (Slurm's base unit), or per KiB/GiB/TiB/PiB with a K/G/T/P suffix: ``Mem=0.25G``
bills a job holding 8 GiB 2 units. The allocated amounts are what the job holds: an
exclusive job holds every core and GPU of its nodes. The default ``CPU=1.0`` bills the cores
held, which is the processor model's processor-seconds.

The clock (ticks every ``calc_period`` from the first event, decay by
``0.5 ** (calc_period / decay_half_life)`` per tick, running jobs charged at every tick,
quiet ticks applied in closed form) repeats the processor policy's arithmetic operation for
operation, so that on single-core nodes with plain requests both give the same numbers; it
is duplicated here rather than factored out so that the processor policy stays untouched.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from schedlab.errors import ConfigError
from schedlab.platform.placement import Allocation

__all__ = ["FairShare", "TresWeights", "billing", "parse_tres_weights"]

TRES_WEIGHTS_ALLOWED = (
    "comma-separated KEY=WEIGHT pairs in Slurm's TRESBillingWeights form, e.g. \"CPU=1.0,"
    'Mem=0.25G,GRES/gpu=2.0": keys CPU, Mem, GRES/gpu, Node (case-insensitive, each at most '
    "once); weights finite numbers >= 0; Mem's weight is per MiB, or per KiB, GiB, TiB or PiB "
    "with a K, G, T or P suffix"
)
_PAIR = re.compile(
    r"\s*([A-Za-z/]+)\s*=\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+)"
    r"\s*([KMGTP]?)\s*",
    re.IGNORECASE,
)
_KEYS = ("cpu", "mem", "gres/gpu", "node")
# a memory weight per unit, as a weight per MiB: divide by the MiB in one unit
_MIB_PER_UNIT = {"k": 1 / 1024, "": 1.0, "m": 1.0, "g": 1024.0, "t": 1024.0**2, "p": 1024.0**3}


class TresWeights(NamedTuple):
    """Billing weights per core, per MiB of memory, per GPU and per node."""

    cpu: float = 1.0
    mem: float = 0.0
    gpu: float = 0.0
    node: float = 0.0


def parse_tres_weights(text: object, option: str = "multifactor tres_weights") -> TresWeights:
    """``"CPU=1.0,Mem=0.25G,GRES/gpu=2.0"`` as weights (module docstring); a resource left
    out weighs 0, as in Slurm. ConfigError naming ``option`` for anything else."""
    if not isinstance(text, str) or len(text) > 1000 or not text.strip():
        raise ConfigError(option, text, TRES_WEIGHTS_ALLOWED)
    weights: dict[str, float] = {}
    for part in text.split(","):
        found = _PAIR.fullmatch(part)
        if found is None:
            raise ConfigError(option, text, TRES_WEIGHTS_ALLOWED)
        key, number, suffix = found.group(1).lower(), found.group(2), found.group(3).lower()
        if key not in _KEYS or key in weights or (suffix and key != "mem"):
            raise ConfigError(option, text, TRES_WEIGHTS_ALLOWED)
        weight = float(number)
        if not math.isfinite(weight):
            raise ConfigError(option, text, TRES_WEIGHTS_ALLOWED)
        weights[key] = weight / _MIB_PER_UNIT[suffix] if key == "mem" else weight
    return TresWeights(
        cpu=weights.get("cpu", 0.0),
        mem=weights.get("mem", 0.0),
        gpu=weights.get("gres/gpu", 0.0),
        node=weights.get("node", 0.0),
    )


def billing(alloc: Allocation, weights: TresWeights, max_tres: bool = False) -> float:
    """Billing rate of a job holding ``alloc`` (units per second of usage).

    Sum of weight x amount (Slurm's default); ``max_tres``: the largest of the weighted
    cores, memory and GPUs plus the weighted node count (``PriorityFlags=MAX_TRES``: the
    per-node resources by their maximum, the global ones summed; for an allocation with the
    same amounts on every node this is also the per-node maximum times the node count).
    Weights of 0 are skipped, so the default bills exactly the cores held.
    """
    cpu = weights.cpu * sum(alloc.cores) if weights.cpu else 0.0
    mem = weights.mem * sum(alloc.memory) if weights.mem else 0.0
    gpu = weights.gpu * sum(alloc.gpus) if weights.gpu else 0.0
    node = weights.node * len(alloc.nodes) if weights.node else 0.0
    if max_tres:
        return max(cpu, mem, gpu) + node
    return cpu + mem + gpu + node


class FairShare:
    """Decayed usage per user on a fixed grid of ticks, and the classic factor 2^(-U/S).

    ``rate`` is what a user's running jobs use per second (billing units); usage since the
    last tick waits in ``pending`` and is charged, after the decay, at the next tick. Decayed
    usage is stored divided by one common scale (usage = stored x scale), so a decay touches
    only the scale.
    """

    __slots__ = (
        "_decay",
        "_jobs",
        "_pending",
        "_rate",
        "_scale",
        "_since",
        "_stored",
        "_stored_total",
        "half_life",
        "origin",
        "period",
        "tick",
        "users_seen",
    )

    def __init__(self, calc_period: float, decay_half_life: float) -> None:
        self.period = calc_period
        self.half_life = decay_half_life
        self._decay = 0.5 ** (calc_period / decay_half_life) if decay_half_life > 0 else 1.0
        self._stored: dict[int, float] = {}
        self._stored_total = 0.0
        self._scale = 1.0
        self._pending: dict[int, float] = {}  # used since the last tick, up to _since[u]
        self._since: dict[int, float] = {}
        self._rate: dict[int, float] = {}  # users with running jobs only
        self._jobs: dict[int, int] = {}  # running jobs per user (drops a user at 0)
        self.users_seen: set[int] = set()
        self.origin = math.nan  # time of tick 0 (the first event seen)
        self.tick = 0  # index of the last tick applied

    def next_tick(self) -> float:
        return self.origin + (self.tick + 1) * self.period

    # -- charging ----------------------------------------------------------------------
    def _accrue(self, u: int, t: float) -> None:
        """Move what ``u``'s running jobs used up to ``t`` into ``_pending``."""
        p = self._rate.get(u, 0)
        if p:
            self._pending[u] = self._pending.get(u, 0.0) + p * (t - self._since[u])
        self._since[u] = t

    def _charge(self, u: int, amount: float) -> None:
        stored = amount / self._scale
        self._stored[u] = self._stored.get(u, 0.0) + stored
        self._stored_total += stored

    def _decay_by(self, factor: float) -> None:
        self._scale *= factor
        if self._scale < 1e-200:  # fold the scale in before it underflows
            scale = self._scale
            for u in self._stored:
                self._stored[u] *= scale
            self._stored_total *= scale
            self._scale = 1.0

    def start(self, u: int, rate: float, now: float) -> None:
        """A job of ``u`` billed ``rate`` per second starts now."""
        self._accrue(u, now)
        self._rate[u] = self._rate.get(u, 0) + rate
        self._jobs[u] = self._jobs.get(u, 0) + 1

    def finish(self, u: int, rate: float, now: float) -> None:
        """A job of ``u`` billed ``rate`` per second ended now."""
        self._accrue(u, now)
        left = self._jobs[u] - 1
        if left:
            self._jobs[u] = left
            self._rate[u] = self._rate[u] - rate
        else:
            del self._jobs[u]
            del self._rate[u]

    def advance(self, now: float) -> float | None:
        """Apply every tick up to ``now``; the time of the last one applied, or None if no
        tick was due (then no priority changes)."""
        period = self.period
        origin = self.origin
        if math.isnan(origin):
            self.origin = now
            return None
        if now < origin + (self.tick + 1) * period:
            return None  # the common case: no tick due
        last = int((now - origin) // period)  # the last tick <= now; a tick's time is
        while origin + (last + 1) * period <= now:  # origin + k x period (no drift)
            last += 1
        while origin + last * period > now:
            last -= 1
        # the first tick due: usage since the previous tick, ended jobs' included
        first_time = origin + (self.tick + 1) * period
        for u in self._rate:
            self._accrue(u, first_time)
        self._decay_by(self._decay)
        for u, amount in self._pending.items():
            self._charge(u, amount)
        self._pending.clear()
        # the other ticks: nothing started or ended, each user's running jobs used the same
        more = last - self.tick - 1
        if more:
            half_life = self.half_life
            dm = 0.5 ** (more * period / half_life) if half_life > 0 else 1.0
            d = self._decay
            growth = (1.0 - dm) / (1.0 - d) if d < 1.0 else float(more)  # sum of d^i, i < more
            self._decay_by(dm)
            for u, p in self._rate.items():
                self._charge(u, p * period * growth)
        self.tick = last
        tick_time = origin + last * period
        for u in self._rate:
            self._since[u] = tick_time
        return tick_time

    # -- reading -----------------------------------------------------------------------
    def usage(self, user: int) -> float:
        """Decayed usage of ``user`` (billing-unit seconds) as of the last tick."""
        return self._stored.get(user, 0.0) * self._scale

    def factor(self, user: int) -> float:
        """The classic fair-share factor 2^(-U/S), equal shares among the users seen."""
        total = self._stored_total
        if total <= 0:
            return 1.0
        normalized = self._stored.get(user, 0.0) / total
        return float(2.0 ** (-normalized * len(self.users_seen)))
