"""What a meta-scheduler is built with: the platform's pools and the network between them."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GridContext"]


@dataclass(frozen=True)
class GridContext:
    """The pools (in kernel order) as a meta-scheduler sees them when it is built.

    ``pool_sites[p]``: the site index of pool p; ``message_time[p]``: seconds one control
    message takes between the central services (meta-scheduler, task queue, matcher) and pool
    p's site (LAN and WAN latency plus size / bandwidth, SPEC 5; 0 without a network).
    ``seed`` seeds whatever is random in the meta-scheduler (random push, tie breaks).
    The live state of the pools (depths, free nodes) is read through the kernel
    (`engine.actors.PlatformView`) at run time.
    """

    pool_names: tuple[str, ...]
    pool_sites: tuple[int, ...]
    site_names: tuple[str, ...]
    message_time: tuple[float, ...]
    seed: int = 0

    @property
    def pools(self) -> int:
        return len(self.pool_names)

    @classmethod
    def single(cls, name: str = "cluster", seed: int = 0) -> GridContext:
        """One pool on one site, no network: the validation's platform."""
        return cls((name,), (0,), (name,), (0.0,), seed)
