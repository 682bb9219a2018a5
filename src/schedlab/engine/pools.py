"""A pool's running state inside the kernel: free processors per node group, its policy and
the `ClusterView` the policy reads (DESIGN 3b: a pool is one batch queue).

The view numbers jobs in the order they entered the pool (append-only: a job that comes back
after an eviction gets a new number); ``gids`` maps that local number to the global id.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from schedlab.engine.durations import RIGID
from schedlab.engine.events import SUSPENDED, WAITING
from schedlab.engine.jobs import JobTable
from schedlab.engine.protocol import ClusterView, Policy, policy_hooks, step_of
from schedlab.platform.pool import PoolSpec
from schedlab.platform.service import Constant, service_time

__all__ = ["Clock", "Pool", "PoolView"]

_INF = math.inf
_NAN = math.nan


class Clock:
    """The kernel's one clock: every pool's view reads it, so that moving time is one write,
    not one per pool per instant (100 pools and a million instants made that a tenth of a
    grid run)."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = 0.0


class PoolView(ClusterView):
    """A pool's `ClusterView` whose ``now`` is the kernel's shared `Clock`."""

    _clock: Clock

    def __init__(self, clock: Clock, **fields: object) -> None:
        object.__setattr__(self, "_clock", clock)
        super().__init__(**fields)  # type: ignore[arg-type]

    @property
    def now(self) -> float:
        return self._clock.now

    @now.setter
    def now(self, value: float) -> None:
        self._clock.now = value


class Pool:
    """One pool of a kernel run (module docstring); read by actors as a `PoolState`.

    The C loop (`engine/_ckernel.c`) reads and writes these slots in place: the counts stay
    Python ints, ``free`` a list of ints, ``dirty`` a bool and ``ended`` a list."""

    __slots__ = (
        "index",
        "spec",
        "name",
        "powers",
        "counts",
        "free",
        "free_total",
        "total",
        "slowest",
        "t_max",
        "mu_rec",
        "mu_env",
        "rec",
        "env",
        "env_upper",
        "service_rng",
        "single",
        "rng",
        "policy",
        "step",
        "ended",
        "on_end",
        "view",
        "gids",
        "queued",
        "received",
        "change_logs",
        "running",
        "held",
        "dirty",
        "_appends",
        "_attribute_appends",
    )

    def __init__(
        self,
        index: int,
        spec: PoolSpec,
        policy: Policy,
        kill_on_overrun: bool,
        clock: Clock,
    ) -> None:
        order = spec.placement_order()
        self.index = index
        self.spec = spec
        self.name = spec.name
        self.powers = [spec.groups[g][0] for g in order]
        self.counts = [spec.groups[g][1] for g in order]
        self.free = list(self.counts)
        self.total = sum(self.counts)
        self.free_total = self.total
        self.slowest = min(self.powers)
        self.t_max = float(spec.t_max)
        rec, env = service_time(spec.mu_rec), service_time(spec.mu_env)
        # constants stay plain floats (the common, fast case); distributions are drawn
        self.rec = None if isinstance(rec, Constant) else rec
        self.env = None if isinstance(env, Constant) else env
        # a constant delay, or 1.0 (> 0) when one is drawn per job from rec or env
        self.mu_rec = rec.upper if self.rec is None else 1.0
        self.mu_env = env.upper if self.env is None else 1.0
        self.env_upper = env.upper  # what the policy plans with, beyond the requested time
        self.service_rng = np.random.default_rng([spec.seed, 7, index])
        self.single = len(self.powers) == 1
        self.rng = np.random.default_rng(spec.seed) if spec.placement == "random" else None
        self.policy = policy
        # a policy that speaks `Steps` is called once per pass with the jobs that ended since
        # (``ended``, local numbers) and the count admitted; others get the classic calls
        self.step = step_of(policy)
        self.ended: list[int] = []
        # told at a job's end even while mu_env holds its nodes (a preemptive policy must
        # not pick an ended job as a victim before on_finish)
        self.on_end = policy_hooks(policy).on_end
        self.gids = array("q")  # local job number -> global id
        self.queued = 0
        self.received = 0
        # logs of the pools whose queued, received or free count changed, one per actor that
        # asked (`KernelCore.watch_pools`); none by default
        self.change_logs: tuple[list[int], ...] = ()
        self.running = 0
        self.held = 0  # processors of ended jobs not released yet (mu_env)
        self.dirty = False  # it schedules in the next round (`KernelCore.mark`)
        self.view: ClusterView = PoolView(
            clock,
            total_procs=self.total,
            # typed arrays, as the kernel's own columns (`JobTable`): a float or a large int
            # in a list would cost a Python object per job. The requested times and sizes stay
            # lists: policies read them most, and the compiled profile has a fast path for
            # lists (conservative's compressions read both)
            submit_at=array("d"),
            requested_time=[],
            procs=[],
            user=array("q"),
            free_procs=self.total,
            segment_start_at=array("d"),
            executed_time=array("d"),
            kill_on_overrun=kill_on_overrun,
            attributes={},
            speedup=[],
            global_id=self.gids,
            parent=array("q"),
        )
        view = self.view
        # each view column's append, looked up once (nine per admission)
        self._appends = tuple(
            getattr(view, name).append
            for name in (
                "global_id",
                "submit_at",
                "requested_time",
                "procs",
                "user",
                "segment_start_at",
                "executed_time",
                "speedup",
                "parent",
            )
        )
        self._attribute_appends: tuple[tuple[Any, array[float]], ...] = ()

    def admit(self, j: int, jobs: JobTable, now: float) -> int:
        """Job j enters the queue now: a new local number, the view grows, the policy is told
        (``on_submit``; a `Steps` policy counts the view's jobs at its next step); returns
        the number.

        What the batch system plans with is the requested time at most t_max, on the slowest
        nodes, plus the release delay during which the nodes stay busy after the end (an
        upper bound).
        """
        (
            add_gid,
            add_submit,
            add_requested,
            add_procs,
            add_user,
            add_start,
            add_executed,
            add_speedup,
            add_parent,
        ) = self._appends
        local = len(self.gids)
        add_gid(j)
        jobs.local[j] = local
        jobs.admitted_at[j] = now
        jobs.state[j] = WAITING if jobs.done_work[j] == 0.0 else SUSPENDED
        if jobs.preemptive:
            jobs.pool_time[j] = 0.0
        add_submit(now)
        model = jobs.model[j]
        if jobs.open_ended[j]:
            req = jobs.requested_s[j]
        else:
            # the kernel's own expression for the limit (lifecycle.begin: work x factor), so
            # that a plan ending at start + req never precedes the kernel's end by an ulp
            factor = 1.0 if model is RIGID else model.time_factor(jobs.procs[j])
            req = jobs.requested_work[j] * (factor / self.slowest)
        if req > self.t_max:
            req = self.t_max
        add_requested(req + self.env_upper if self.env_upper else req)
        add_procs(jobs.procs[j])
        add_user(jobs.user[j])
        add_start(_NAN)
        add_executed(0.0)
        add_speedup(model)
        parent = jobs.parent[j]
        add_parent(jobs.local[parent] if parent >= 0 and jobs.where[parent] == self.index else -1)
        for add, values in self._attribute_appends:
            add(values[j])
        self.queued += 1
        for log in self.change_logs:
            log.append(self.index)
        if self.step is None:
            self.policy.on_submit(local)
        return local

    def track_attributes(self, columns: Mapping[str, array[float]]) -> None:
        """The view gets a column per job attribute, read from the kernel's ``columns`` (by
        global id) at each admission."""
        mine = {name: array("d") for name in columns}
        self.view.attributes = mine
        self._attribute_appends = tuple((mine[name].append, columns[name]) for name in columns)

    def allocate(self, q: int) -> tuple[list[tuple[int, int]], float]:
        """Take ``q`` processors (placement order); the groups used and the slowest power."""
        free = self.free
        self.free_total -= q
        for log in self.change_logs:
            log.append(self.index)
        if self.single:
            free[0] -= q
            return [(0, q)], self.powers[0]
        groups: list[int] | range = range(len(free))
        if self.rng is not None:
            groups = self.rng.permutation(len(free)).tolist()
        taken: list[tuple[int, int]] = []
        power = _INF
        left = q
        for g in groups:
            f = free[g]
            if f <= 0:
                continue
            k = f if f < left else left
            free[g] = f - k
            taken.append((g, k))
            if self.powers[g] < power:
                power = self.powers[g]
            left -= k
            if not left:
                break
        return taken, power

    def release(self, groups: list[tuple[int, int]]) -> None:
        free = self.free
        for g, k in groups:
            free[g] += k
            self.free_total += k
        for log in self.change_logs:
            log.append(self.index)
