"""Times between the clusters of a platform (Baranov and Tikhomirov; SPEC 6).

A platform file gives each site an access link (its ``lan``) and one WAN. Between two
different sites a transfer crosses the sender's link, the WAN and the receiver's link: the
latencies add up and the slowest bandwidth of the three sets the pace (no contention,
SPEC 5). Within one site nothing moves: the data are already there, so the time is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from schedlab.platform.description import Platform

__all__ = ["Network"]


@dataclass(frozen=True)
class Network:
    """Latency (s) and bandwidth (bytes/s) between sites; ``control`` bytes per message."""

    latency: tuple[tuple[float, ...], ...]
    bandwidth: tuple[tuple[float, ...], ...]
    control: float = 0.0

    @classmethod
    def of(cls, platform: Platform) -> Network:
        """The bottleneck path between every two sites of ``platform`` (module docstring)."""
        sites = platform.sites
        wan = platform.wan
        lat: list[tuple[float, ...]] = []
        bw: list[tuple[float, ...]] = []
        for a in sites:
            lat.append(
                tuple(0.0 if a is b else a.lan.latency + wan.latency + b.lan.latency for b in sites)
            )
            bw.append(
                tuple(
                    math.inf if a is b else min(a.lan.bandwidth, wan.bandwidth, b.lan.bandwidth)
                    for b in sites
                )
            )
        return cls(tuple(lat), tuple(bw), platform.control_message)

    @classmethod
    def free(cls, sites: int) -> Network:
        """No cost anywhere (a platform without links)."""
        zero = tuple(tuple(0.0 for _ in range(sites)) for _ in range(sites))
        inf = tuple(tuple(math.inf for _ in range(sites)) for _ in range(sites))
        return cls(zero, inf, 0.0)

    @property
    def sites(self) -> int:
        return len(self.latency)

    def transfer_time(self, src: int, dst: int, nbytes: float) -> float:
        """Seconds to move ``nbytes`` from site ``src`` to site ``dst`` (0 on one site)."""
        if src == dst:
            return 0.0
        bw = self.bandwidth[src][dst]
        return self.latency[src][dst] + (0.0 if math.isinf(bw) else float(nbytes) / bw)

    def message_time(self, src: int, dst: int) -> float:
        """One control message from ``src`` to ``dst`` (a poll's answer, a job description)."""
        return self.transfer_time(src, dst, self.control)
