"""Times between the clusters of a platform (Baranov and Tikhomirov; SPEC 6).

A platform file gives each site an access link (its ``lan``) and one WAN. Between two
different sites a transfer crosses the sender's link, the WAN and the receiver's link: the
latencies add up and the slowest bandwidth of the three sets the pace (no contention,
SPEC 5). Within one site nothing moves: the data are already there, so the time is 0.

The network keeps each site's access link and the WAN, and works out a pair's path when
asked: its size grows with the sites, not with their pairs (a platform derived from a trace
of many partitions stays small).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from schedlab.platform.description import Platform

__all__ = ["Network"]


@dataclass(frozen=True)
class Network:
    """Each site's access link (latency s, bandwidth bytes/s), the WAN's, and ``control``
    bytes per message."""

    access_latency: tuple[float, ...]
    access_bandwidth: tuple[float, ...]
    wan_latency: float = 0.0
    wan_bandwidth: float = math.inf
    control: float = 0.0

    @classmethod
    def of(cls, platform: Platform) -> Network:
        """The links of ``platform`` (module docstring)."""
        sites = platform.sites
        wan = platform.wan
        return cls(
            tuple(s.lan.latency for s in sites),
            tuple(s.lan.bandwidth for s in sites),
            wan.latency,
            wan.bandwidth,
            platform.control_message,
        )

    @classmethod
    def free(cls, sites: int) -> Network:
        """No cost anywhere (a platform without links)."""
        return cls((0.0,) * sites, (math.inf,) * sites, 0.0, math.inf, 0.0)

    @property
    def sites(self) -> int:
        return len(self.access_latency)

    def latency(self, src: int, dst: int) -> float:
        """Seconds of latency from site ``src`` to site ``dst`` (0 within one site)."""
        if src == dst:
            return 0.0
        return self.access_latency[src] + self.wan_latency + self.access_latency[dst]

    def bandwidth(self, src: int, dst: int) -> float:
        """The bottleneck bandwidth (bytes/s) from ``src`` to ``dst`` (inf within one site)."""
        if src == dst:
            return math.inf
        return min(self.access_bandwidth[src], self.wan_bandwidth, self.access_bandwidth[dst])

    def transfer_time(self, src: int, dst: int, nbytes: float) -> float:
        """Seconds to move ``nbytes`` from site ``src`` to site ``dst`` (0 on one site)."""
        if src == dst:
            return 0.0
        bw = self.bandwidth(src, dst)
        return self.latency(src, dst) + (0.0 if math.isinf(bw) else float(nbytes) / bw)

    def message_time(self, src: int, dst: int) -> float:
        """One control message from ``src`` to ``dst`` (a poll's answer, a job description)."""
        return self.transfer_time(src, dst, self.control)
