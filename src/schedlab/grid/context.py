"""What a meta-scheduler is built with: the platform's pools and the network between them."""

from __future__ import annotations

from dataclasses import dataclass, field

from schedlab.platform.description import Platform
from schedlab.platform.network import Network

__all__ = ["GridContext"]


@dataclass(frozen=True)
class GridContext:
    """The pools (in kernel order) as a meta-scheduler sees them when it is built.

    ``pool_sites[p]``: the site index of pool p; ``message_time[p]``: seconds one control
    message takes between the central services (meta-scheduler, task queue, matcher) and pool
    p's site (LAN and WAN latency plus size / bandwidth, SPEC 5; 0 without a network).
    ``seed`` seeds whatever is random in the meta-scheduler (random push, tie breaks).
    ``network``: latency and bandwidth between every two sites (`platform.network`: what a
    dispatcher pays to move a job's input; None: nothing costs anything).
    ``placements[p]`` and ``holds[p]``: pool p's placement rule (fastest, slowest, random)
    and the longest its nodes stay held after a job's end (mu_env's upper bound, s), which
    the DIRAC agents need to tell a pilot that can never get a fitting node from one that
    waits for a node to be freed (`grid.dirac`); a context built by hand may leave them out
    (every pool "fastest", nothing held).
    The live state of the pools (depths, free nodes) is read through the kernel
    (`engine.actors.PlatformView`) at run time.
    """

    pool_names: tuple[str, ...]
    pool_sites: tuple[int, ...]
    site_names: tuple[str, ...]
    message_time: tuple[float, ...]
    seed: int = 0
    network: Network | None = field(default=None, compare=False)
    placements: tuple[str, ...] = ()
    holds: tuple[float, ...] = ()

    @property
    def pools(self) -> int:
        return len(self.pool_names)

    @classmethod
    def single(cls, name: str = "cluster", seed: int = 0) -> GridContext:
        """One pool on one site, no network: the validation's platform."""
        return cls((name,), (0,), (name,), (0.0,), seed, Network.free(1))

    @classmethod
    def of(cls, platform: Platform, seed: int = 0) -> GridContext:
        """What a meta-scheduler is built with on ``platform``: its pool names, sites and
        message times (`Platform.message_time`). Built here, not by the platform, so that
        the platform layer knows nothing of meta-schedulers."""
        sites = platform.pool_sites()
        times = [platform.message_time(s) for s in range(len(platform.sites))]
        return cls(
            pool_names=tuple(q.pool_name for q in platform.queues()),
            pool_sites=tuple(sites),
            site_names=tuple(s.name for s in platform.sites),
            message_time=tuple(times[s] for s in sites),
            seed=seed,
            network=Network.of(platform),
            placements=tuple(q.placement for q in platform.queues()),
            holds=tuple(float(q.mu_env.upper) for q in platform.queues()),
        )

    def placement(self, pool: int) -> str:
        """Pool ``pool``'s placement rule ("fastest" when the context does not say)."""
        return self.placements[pool] if pool < len(self.placements) else "fastest"

    def hold(self, pool: int) -> float:
        """The longest pool ``pool`` holds a node after a job's end (0 when not said)."""
        return self.holds[pool] if pool < len(self.holds) else 0.0

    @property
    def links(self) -> Network:
        """The network between the sites (a free one when none was given)."""
        return self.network if self.network is not None else Network.free(len(self.site_names))
