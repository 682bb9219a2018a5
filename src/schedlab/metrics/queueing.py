"""Queueing theory the engine is validated against (SPEC 5, Validation).

M/M/c: Poisson arrivals of rate lambda, exponential service of mean s, c servers, first come
first served. With offered load a = lambda x s (in servers) and rho = a / c < 1, Erlang's C
formula gives the probability that an arrival waits,

    C(c, a) = (a^c / c!) / ((1 - rho) sum_{k<c} a^k / k! + a^c / c!),

and the mean response time is W = s + C(c, a) x s / (c (1 - rho)) (waiting plus service).
C is computed from Erlang's B through its recursion (C = c B / (c - a (1 - B))), which
never overflows, however many servers.
"""

from __future__ import annotations

import math

from schedlab.errors import ConfigError

__all__ = ["erlang_c", "mmc_mean_response_time", "mmc_mean_wait_time"]


def erlang_c(servers: int, offered: float) -> float:
    """Probability of waiting in an M/M/c queue with ``offered`` = lambda x s (< servers)."""
    if servers < 1 or not 0 <= offered < servers:
        raise ConfigError("M/M/c", (servers, offered), "servers >= 1 and 0 <= load < 1")
    blocking = 1.0  # Erlang B, by its stable recursion B(k) = a B(k-1) / (k + a B(k-1))
    for k in range(1, servers + 1):
        blocking = offered * blocking / (k + offered * blocking)
    return servers * blocking / (servers - offered * (1 - blocking))


def mmc_mean_wait_time(servers: int, load: float, service: float = 1.0) -> float:
    """Mean time in queue (s) at ``load`` = rho (per server) and mean service ``service``."""
    offered = load * servers
    return erlang_c(servers, offered) * service / (servers * (1 - load))


def mmc_mean_response_time(servers: int, load: float, service: float = 1.0) -> float:
    """Mean response time (s): waiting plus service."""
    if not math.isfinite(load) or load < 0:
        raise ConfigError("M/M/c load", load, "a number in [0, 1)")
    return service + mmc_mean_wait_time(servers, load, service)
