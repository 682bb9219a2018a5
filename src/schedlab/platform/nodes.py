"""Node powers of a platform: the weighted pool of reference node types and sampling from it.

Node powers are in NCU/s (work units per second). Caron et al. (LIP RR-2005-13, section 5)
build a platform by drawing each node's power without replacement from a weighted pool of
reference node types; `ReferencePool` is that pool, `DEFAULT_REFERENCE_POOL` the one used when
a platform file gives none, and `merge_groups` keeps nodes as counts per power, fastest first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from schedlab.errors import ConfigError
from schedlab.platform.pool import MAX_POWER, MIN_POWER

MAX_WEIGHT = 1e12  # a type's weight: shares of the total, which must stay finite

__all__ = ["DEFAULT_REFERENCE_POOL", "MAX_WEIGHT", "ReferencePool", "merge_groups"]


@dataclass(frozen=True)
class ReferencePool:
    """Node types ``(power NCU/s, weight)``; a type's share of the nodes is its weight over
    the total weight (Caron et al., section 5: "chaque nœud est pondéré par un pourcentage")."""

    types: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        types = tuple((float(p), float(w)) for p, w in self.types)
        if not types:
            raise ConfigError("reference pool types", self.types, "at least one node type")
        seen: set[float] = set()
        for power, weight in types:
            if not MIN_POWER <= power <= MAX_POWER:  # NaN fails too
                raise ConfigError(
                    "reference pool power", power, f"NCU/s in [{MIN_POWER:g}, {MAX_POWER:g}]"
                )
            if not 0 < weight <= MAX_WEIGHT:
                raise ConfigError(
                    "reference pool weight", weight, f"a number in (0, {MAX_WEIGHT:g}]"
                )
            if power in seen:
                raise ConfigError("reference pool power", power, "each power listed once")
            seen.add(power)
        object.__setattr__(self, "types", types)

    @property
    def powers(self) -> np.ndarray:
        return np.array([p for p, _ in self.types])

    @property
    def weights(self) -> np.ndarray:
        return np.array([w for _, w in self.types])

    @property
    def mean(self) -> float:
        """Weighted mean power (NCU/s)."""
        weights = self.weights
        return math.fsum(self.powers * weights) / math.fsum(weights)

    def counts(self, nodes: int) -> np.ndarray:
        """Nodes of each type among ``nodes``, in proportion to the weights.

        Largest remainders (Hamilton): each type gets the integer part of its quota, the
        nodes left go to the largest fractional parts (ties: the earlier type). Exact
        proportions when ``nodes`` is a multiple of the total weight (integer weights).
        """
        weights = self.weights
        quotas = weights * nodes / weights.sum()
        counts = np.floor(quotas + 1e-9).astype(np.int64)
        left = int(nodes - counts.sum())
        if left > 0:
            order = np.argsort(-(quotas - counts), kind="stable")
            counts[order[:left]] += 1
        elif left < 0:  # rounding pushed a floor up: take back from the smallest remainders
            order = np.argsort(quotas - counts, kind="stable")
            counts[order[:-left]] -= 1
        return counts

    def sample(self, nodes: int, rng: np.random.Generator) -> np.ndarray:
        """Powers of ``nodes`` nodes, drawn without replacement from the multiset of
        `counts` (a random permutation of it: node i gets the i-th draw)."""
        multiset = np.repeat(self.powers, self.counts(nodes))
        return rng.permutation(multiset)


# The pool of Caron et al. is not published: only its mean (96 NCU/s), its size (about twenty
# node configurations of the 4000-node DIRAC production platform) and three measured types
# (table 1: PII 350 MHz = 32.12, PII 400 MHz = 52.12, PIII 600 MHz = 100 NCU/s). This pool has
# 20 types, those three among them; the weights are node counts out of 60 (the 60 nodes of Table
# 2, so that platform gets exactly this multiset) and the powers were chosen on a 0.01 grid so
# that sum(power x weight) = 5760 = 96 x 60: the weighted mean is exactly 96.
DEFAULT_REFERENCE_POOL = ReferencePool(
    (
        (32.12, 2),  # measured (PII 350)
        (41.50, 2),
        (52.12, 3),  # measured (PII 400)
        (60.80, 4),
        (68.40, 3),
        (75.30, 3),
        (82.10, 3),
        (88.90, 4),
        (94.60, 5),
        (100.00, 6),  # measured (PIII 600)
        (104.70, 4),
        (109.80, 4),
        (114.50, 3),
        (119.20, 3),
        (124.60, 2),
        (130.10, 2),
        (136.50, 2),
        (143.20, 2),
        (150.40, 2),
        (178.50, 1),
    )
)


def merge_groups(groups: Sequence[tuple[float, int]]) -> tuple[tuple[float, int], ...]:
    """Equal powers merged into one group (counts added), fastest first."""
    merged: dict[float, int] = {}
    for power, count in groups:
        merged[float(power)] = merged.get(float(power), 0) + int(count)
    return tuple(sorted(merged.items(), key=lambda g: -g[0]))
