"""Starting, stopping and ending jobs in a kernel run: run segments, ends, node releases,
payloads and dependants.

Durations come from work (`engine.durations`): a segment on q processors of power w runs
``work x time_factor(q) / w`` seconds, and progress is kept in work units, so a job resumes
right on nodes of another speed. A segment stops at the first of: the job's end, its
requested time (under kill_on_overrun), its pool's t_max; a restart from a checkpoint first
pays its overhead, doing no work. The kernel decides when; this module keeps the accounts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from schedlab.engine.actors import JobEvent
from schedlab.engine.durations import RIGID
from schedlab.engine.events import (
    DELIVERIES,
    DONE,
    END,
    ENDS,
    NODES,
    RELEASE,
    RUNNING,
)

if TYPE_CHECKING:
    from schedlab.engine.core import KernelCore
    from schedlab.engine.pools import Pool

__all__ = ["Lifecycle"]

_INF = math.inf
_NAN = math.nan
_KILLED, _ENDED = JobEvent.KILLED, JobEvent.ENDED  # (read from the enum: 70 ns each)


class Lifecycle:
    """Run segments and ends of one kernel's jobs (module docstring)."""

    def __init__(self, kernel: KernelCore) -> None:
        self.k = kernel
        self.jobs = kernel.jobs

    def begin(self, j: int, q: int, power: float, now: float, cap: float) -> None:
        """Start (or resume) job j now on q processors of ``power``: schedule its end, at
        most ``cap`` seconds from now (what is left of its pool's t_max; a payload runs in
        its host's time: infinite)."""
        k, t = self.k, self.jobs
        started = t.started_at[j]
        if started != started:  # (NaN: its first start)
            t.started_at[j] = now
        elif t.preemptive:  # (else a job starts once: `JobTable.preemptive`)
            since = t.suspended_since[j]
            if since == since:
                t.suspended_time[j] += now - since
                t.suspended_since[j] = _NAN
        t.state[j] = RUNNING
        t.alloc_procs[j] = q
        t.node_power[j] = power
        t.seg_start[j] = now
        k.running += 1
        if t.open_ended[j]:
            limit = t.requested_s[j] - (t.pool_time[j] if t.preemptive else 0.0)
            t.will_kill[j] = True
            k.events.push(now + (limit if limit < cap else cap), ENDS, j, END, t.gen[j])
            return
        model = t.model[j]
        # (a rigid job's factor is 1.0: the same bits without the call)
        factor = 1.0 / power if model is RIGID else model.time_factor(q) / power
        t.factor[j] = factor
        done = t.done_work[j]
        remaining = (t.work[j] - done) * factor
        stop = remaining
        if k.kill_on_overrun:
            budget = (t.requested_work[j] - done) * factor
            if budget < stop:
                stop = budget
        if t.preemptive:
            over = t.overhead[j]
            if over:  # restarting from a checkpoint: the first seconds do no work
                t.overhead[j] = 0.0
                t.seg_over[j] = over
                stop += over
                remaining += over
        if cap < stop:
            stop = cap
        t.will_kill[j] = stop < remaining
        k.events.push(now + stop, ENDS, j, END, t.gen[j])

    def stop_segment(self, j: int, now: float) -> float:
        """Close job j's running segment: count its work and time; returns the seconds."""
        t = self.jobs
        ran = now - t.seg_start[j]
        over = t.seg_over[j] if t.preemptive else 0.0
        used = 0.0
        if over:
            used = ran if ran < over else over
            t.overhead_time[j] += used
            t.seg_over[j] = 0.0
            if used < over:  # stopped while restarting: the rest is still to pay
                t.overhead[j] += over - used
        if not t.open_ended[j]:
            t.done_work[j] += (ran - used) / t.factor[j]
        if t.preemptive:
            t.attempt_time[j] += ran
            t.pool_time[j] += ran
        self.k.running -= 1
        if self.k.tracer is not None:
            self.k.tracer.segment(j, t.seg_start[j], now, self.k, used)
        return ran

    def free_nodes(self, j: int, pool: Pool) -> None:
        groups = self.jobs.groups[j]
        if groups is not None:
            pool.release(groups)
            self.jobs.groups[j] = None
            if self.k.tracer is not None:
                self.k.tracer.released(j, pool.index, groups, self.k.now, self.k)

    def complete(self, j: int, now: float) -> None:
        """Job j reaches its end (or the limit that kills it)."""
        k, t = self.k, self.jobs
        if t.open_ended[j] or k.tracer is not None or (t.preemptive and t.seg_over[j]):
            self.stop_segment(j, now)
        else:  # `stop_segment`'s accounts for a plain segment, inlined: only the work, as
            # the attempt's and the pool visit's times of an ended job are read no more
            t.done_work[j] += (now - t.seg_start[j]) / t.factor[j]
            k.running -= 1
        t.state[j] = DONE
        t.finished_at[j] = now
        t.killed[j] = t.will_kill[j]
        k.done += 1
        t.gen[j] += 1
        if t.host[j] >= 0:
            t.drop_payload(j)
        else:
            pool = k.pools[t.where[j]]
            pool.running -= 1
            if t.host_used[j]:
                self.kill_payloads(j, now)
            if pool.mu_env > 0:
                if pool.on_end is not None:
                    pool.on_end(t.local[j])
                pool.held += t.alloc_procs[j]
                delay = pool.mu_env if pool.env is None else pool.env.sample(pool.service_rng)
                k.events.push(now + delay, ENDS, j, NODES)
            else:
                self.nodes_freed(j, pool, now)
        if k.heard:
            k.notify(j, _KILLED if t.killed[j] else _ENDED)
        if j < t.roots and t.children[j]:
            self.release_children(j, now)

    def release_nodes(self, j: int, now: float) -> None:
        """The batch system notices job j's end (mu_env after it): nodes free, policy told."""
        t = self.jobs
        pool = self.k.pools[t.where[j]]
        pool.held -= t.alloc_procs[j]
        self.nodes_freed(j, pool, now)

    def nodes_freed(self, j: int, pool: Pool, now: float) -> None:
        """Ended job j's nodes are free now (at its end, or mu_env after it): its policy is
        told (``on_finish``, or a `Steps` policy at its next step) and its pool schedules in
        this round."""
        self.free_nodes(j, pool)
        local = self.jobs.local[j]
        if pool.step is None:
            pool.policy.on_finish(local)
        else:
            pool.ended.append(local)
        self.k.mark(pool)

    def kill_payloads(self, host: int, now: float) -> None:
        """The host ended or was killed: its payloads are killed with it."""
        for p in list(self.jobs.payloads.get(host, ())):
            self.jobs.will_kill[p] = True
            self.complete(p, now)

    def release_children(self, j: int, now: float) -> None:
        """Job j ended: its dependants are released after their think time."""
        t = self.jobs
        kids = t.children[j] if j < t.roots else None
        if kids:
            for c in kids:
                think = t.think[c]
                self.k.events.push(now + (think if think > 0 else 0.0), DELIVERIES, c, RELEASE)
