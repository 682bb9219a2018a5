"""Decisions of policies and actors, validated and applied to a kernel run: one method per kind.

A policy's decisions name jobs by their local number in its pool's view (`Start`, `Suspend`,
`Evict`, `Kill`, `WakeAt`); an actor's by global id (`Dispatch`, `Send`, `Spawn`, `RunIn`,
`End`, `WakeAt`). A decision that is not possible now raises `PolicyError` naming the policy
or actor, the job, the time and the rule broken; nothing is applied half.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from schedlab.engine.actors import JobEvent
from schedlab.engine.decisions import (
    Dispatch,
    End,
    Evict,
    Kill,
    RunIn,
    Send,
    Spawn,
    Start,
    Suspend,
    WakeAt,
)
from schedlab.engine.durations import RIGID
from schedlab.engine.events import (
    ARRIVE,
    DELIVERIES,
    DONE,
    MESSAGE,
    MESSAGE_ORDER,
    RELEASED,
    RUNNING,
    SUSPENDED,
    TRANSIT,
    WAITING,
    WAKE_ACTOR,
    WAKE_POOL,
    WAKES,
    JobState,
)
from schedlab.errors import PolicyError

if TYPE_CHECKING:
    from schedlab.engine.core import KernelCore
    from schedlab.engine.lifecycle import Lifecycle
    from schedlab.engine.pools import Pool

__all__ = ["Decisions"]

_INF = math.inf
_NAN = math.nan
# (an enum member read from its class costs a lookup of 70 ns: a few per job of a grid)
_STARTED, _EVICTED, _KILLED, _SPAWNED = (
    JobEvent.STARTED,
    JobEvent.EVICTED,
    JobEvent.KILLED,
    JobEvent.SPAWNED,
)


def _name(pool: Pool) -> str:
    """The name of a pool's policy, for messages."""
    return str(getattr(pool.policy, "name", "?"))


class Decisions:
    """Applies the decisions of one kernel's policies (`by_pool`) and actors (`by_actor`)."""

    def __init__(self, kernel: KernelCore, life: Lifecycle) -> None:
        self.k = kernel
        self.jobs = kernel.jobs
        self.life = life
        # what the kernel calls for each kind of decision (it looks them up itself)
        self.pool_kinds: dict[type, Callable[[Pool, Any, float], None]] = {
            Start: self.start,
            Suspend: self.suspend,
            Evict: self.evict,
            Kill: self.kill,
            WakeAt: self.wake_pool,
        }
        self.actor_kinds: dict[type, Callable[[int, Any, float], None]] = {
            Dispatch: self.dispatch,
            Send: self.send,
            Spawn: self.spawn,
            RunIn: self.run_in,
            End: self.end,
            WakeAt: self.wake_actor,
        }

    def by_pool(self, pool: Pool, d: Any, now: float) -> None:
        """Apply decision ``d`` of ``pool``'s policy."""
        self.pool_kinds.get(type(d), self.unknown_of_pool)(pool, d, now)

    def by_actor(self, a: int, d: Any, now: float) -> None:
        """Apply decision ``d`` of actor ``a``."""
        self.actor_kinds.get(type(d), self.unknown_of_actor)(a, d, now)

    def unknown_of_pool(self, pool: Pool, d: Any, now: float) -> None:
        raise PolicyError(f"policy {_name(pool)!r} returned {d!r}, not a decision")

    def unknown_of_actor(self, a: int, d: Any, now: float) -> None:
        raise PolicyError(f"actor {self._actor_name(a)} returned {d!r}, not a decision")

    # -- a pool's policy ------------------------------------------------------------------
    def _job_in(self, pool: Pool, local: int) -> tuple[int, int]:
        """(global id, state) of local job ``local`` of ``pool``; (-1, -1) if not there."""
        j = pool.gids[local] if 0 <= local < len(pool.gids) else -1
        return j, (self.jobs.state[j] if j >= 0 and self.jobs.where[j] == pool.index else -1)

    def start(self, pool: Pool, d: Start, now: float) -> None:
        self.start_local(pool, d.job, d.procs, now)

    def start_local(self, pool: Pool, local: int, procs: int | None, now: float) -> None:
        """Start local job ``local`` of ``pool`` on ``procs`` processors (None: its own size);
        a `Steps` policy's answer comes here without a `Start`."""
        k, t = self.k, self.jobs
        gids = pool.gids
        j = gids[local] if 0 <= local < len(gids) else -1
        if j < 0:
            raise PolicyError(f"policy {_name(pool)!r}: Start(job {local}) at t={now}: no such job")
        st = t.state[j]
        if (st != WAITING and st != SUSPENDED) or t.where[j] != pool.index:
            state = JobState(st).name.lower() if t.where[j] == pool.index else "gone"
            raise PolicyError(
                f"policy {_name(pool)!r}: Start(job {local}) at t={now}: job is {state}, only "
                "waiting or suspended jobs start"
            )
        q = t.procs[j]
        if procs is not None and procs != q:
            if t.model[j] is RIGID:
                raise PolicyError(
                    f"policy {_name(pool)!r}: Start(job {local}, procs={procs}) at t={now}: a "
                    f"rigid job runs on its own {q} processors"
                )
            q = procs
        if q <= 0 or q > pool.free_total:
            raise PolicyError(
                f"policy {_name(pool)!r}: Start(job {local}) at t={now} needs {q} processors but "
                f"only {pool.free_total} are free"
            )
        groups, power = pool.allocate(q)
        t.groups[j] = groups
        pool.queued -= 1
        for log in pool.change_logs:
            log.append(pool.index)
        pool.running += 1
        pool.view.segment_start_at[local] = now  # type: ignore[index]
        if k.tracer is not None:
            k.tracer.allocated(j, pool.index, groups, now, k)
        cap = pool.t_max - t.pool_time[j] if t.preemptive else pool.t_max  # (t_max left)
        self.life.begin(j, q, power, now, cap)
        if k.heard:
            k.notify(j, _STARTED)

    def _preempt(self, pool: Pool, j: int, local: int, d: Suspend | Evict, now: float) -> None:
        """Running job j leaves its processors now (Suspend or Evict); its work is kept."""
        t = self.jobs
        what = type(d).__name__
        if t.host_used[j]:
            raise PolicyError(
                f"policy {_name(pool)!r}: {what}(job {local}) at t={now}: payloads run in it"
            )
        t.gen[j] += 1
        ran = self.life.stop_segment(j, now)
        pool.view.executed_time[local] += ran  # type: ignore[index]
        self.life.free_nodes(j, pool)
        pool.running -= 1
        t.preemptions[j] += 1
        t.suspended_since[j] = now
        overhead = d.overhead
        if not (0.0 <= overhead < _INF):
            raise PolicyError(
                f"policy {_name(pool)!r}: {what}(job {local}) at t={now}: overhead "
                f"{overhead!r}; allowed: seconds >= 0"
            )
        if overhead:
            t.overhead[j] = overhead  # the checkpoint is read once per restart

    def suspend(self, pool: Pool, d: Suspend, now: float) -> None:
        k, t = self.k, self.jobs
        j, st = self._job_in(pool, d.job)
        if st != RUNNING:
            raise PolicyError(
                f"policy {_name(pool)!r}: Suspend(job {d.job}) at t={now}: job is not running"
            )
        self._preempt(pool, j, d.job, d, now)
        if not d.keep_progress:  # a requeue: the attempt is lost, no checkpoint
            t.lose_attempt(j)
            t.done_work[j] = 0.0
            t.overhead[j] = 0.0
            pool.view.executed_time[d.job] = 0.0  # type: ignore[index]
            if k.tracer is not None:
                k.tracer.requeued(j, k)
        t.state[j] = SUSPENDED
        pool.queued += 1
        for log in pool.change_logs:
            log.append(pool.index)

    def evict(self, pool: Pool, d: Evict, now: float) -> None:
        t = self.jobs
        name = _name(pool)
        j, st = self._job_in(pool, d.job)
        if st not in (RUNNING, WAITING, SUSPENDED):
            raise PolicyError(
                f"policy {name!r}: Evict(job {d.job}) at t={now}: job is not in the pool"
            )
        if t.owner[j] < 0:
            raise PolicyError(
                f"policy {name!r}: Evict(job {d.job}) at t={now}: no actor dispatched it, so "
                "none can take it back"
            )
        if st == RUNNING:
            self._preempt(pool, j, d.job, d, now)
        else:
            pool.queued -= 1  # a waiting job leaves the queue
            for log in pool.change_logs:
                log.append(pool.index)
        t.state[j] = RELEASED
        t.holder[j] = t.owner[j]
        t.where[j] = -1
        t.evictions[j] += 1
        self.k.notify(j, _EVICTED)

    def kill(self, pool: Pool, d: Kill, now: float) -> None:
        k, t = self.k, self.jobs
        j, st = self._job_in(pool, d.job)
        if st == RUNNING:
            self.life.stop_segment(j, now)
            self.life.free_nodes(j, pool)
            pool.running -= 1
            if t.host_used[j]:
                self.life.kill_payloads(j, now)
            # a running job cancelled is preempted: its attempt's time is lost work
            t.preemptions[j] += 1
            t.lose_attempt(j)
        elif st in (WAITING, SUSPENDED):
            pool.queued -= 1
            for log in pool.change_logs:
                log.append(pool.index)
        else:
            raise PolicyError(
                f"policy {_name(pool)!r}: Kill(job {d.job}) at t={now}: job already ended "
                "or not submitted"
            )
        t.end_suspension(j, now)
        t.gen[j] += 1
        t.state[j] = DONE
        t.finished_at[j] = now
        if t.started_at[j] != t.started_at[j]:
            t.started_at[j] = now
        t.killed[j] = True
        k.done += 1
        k.notify(j, _KILLED)
        self.life.release_children(j, now)

    def wake_pool(self, pool: Pool, d: WakeAt, now: float) -> None:
        when = float(d.time)
        if when > now:
            self.k.events.push(when, WAKES, self.k.events.seq, WAKE_POOL, pool.index)

    # -- an actor -------------------------------------------------------------------------
    def _actor_name(self, a: int) -> str:
        return f"{getattr(self.k.actors[a], 'name', '?')!r} (#{a})"

    def _held_by(self, a: int, j: int) -> bool:
        """Job j is released to actor a now (what a Dispatch or RunIn of a needs)."""
        t = self.jobs
        return 0 <= j < len(t.state) and t.state[j] == RELEASED and t.holder[j] == a

    def _not_held(self, a: int, j: int, what: str, now: float) -> NoReturn:
        """PolicyError for ``what`` (a decision of actor a) on job j, not released to a."""
        t = self.jobs
        if not 0 <= j < len(t.state):
            raise PolicyError(f"actor {self._actor_name(a)}: {what}: no job {j} (t={now})")
        if t.state[j] != RELEASED or t.holder[j] != a:
            raise PolicyError(
                f"actor {self._actor_name(a)}: {what} at t={now}: job {j} is "
                f"{JobState(t.state[j]).name.lower()}, not released to this actor"
            )
        raise AssertionError(f"unreachable: job {j} is released to actor {a}")

    def dispatch(self, a: int, d: Dispatch, now: float) -> None:
        k, t = self.k, self.jobs
        j = d.job
        if not self._held_by(a, j):  # (the message is made only for an error)
            self._not_held(a, j, f"Dispatch(job {j})", now)
        if not 0 <= d.pool < len(k.pools):
            raise PolicyError(f"actor {self._actor_name(a)}: Dispatch to no pool {d.pool}")
        pool = k.pools[d.pool]
        if t.procs[j] > pool.total and t.model[j] is RIGID:
            raise PolicyError(
                f"actor {self._actor_name(a)}: Dispatch(job {j}) to pool {pool.name!r}: "
                f"it needs {t.procs[j]} processors, the pool has {pool.total}"
            )
        t.owner[j] = a
        t.holder[j] = -1
        t.state[j] = TRANSIT
        delay = float(d.delay)
        if delay > 0:
            k.events.push(now + delay, DELIVERIES, j, ARRIVE, d.pool)
        elif delay == 0:
            k.arrive(j, d.pool, now)
        else:
            raise PolicyError(f"actor {self._actor_name(a)}: Dispatch with delay {delay} < 0")

    def send(self, a: int, d: Send, now: float) -> None:
        k = self.k
        if not 0 <= d.actor < len(k.actors):
            raise PolicyError(f"actor {self._actor_name(a)}: Send to no actor {d.actor}")
        delay = float(d.delay)
        if not delay >= 0:
            raise PolicyError(f"actor {self._actor_name(a)}: Send with delay {delay} < 0")
        k.events.push(
            now + delay, DELIVERIES, MESSAGE_ORDER + k.events.seq, MESSAGE, d.actor, d.message
        )

    def spawn(self, a: int, d: Spawn, now: float) -> None:
        """A new open-ended job (a pilot) of actor a, dispatched to ``d.pool`` at once."""
        k, t = self.k, self.jobs
        if not 0 <= d.pool < len(k.pools):
            raise PolicyError(f"actor {self._actor_name(a)}: Spawn in no pool {d.pool}")
        pool = k.pools[d.pool]
        if not (isinstance(d.procs, int) and 1 <= d.procs <= pool.total):
            raise PolicyError(
                f"actor {self._actor_name(a)}: Spawn of {d.procs} processors in pool "
                f"{pool.name!r} of {pool.total}"
            )
        if not (d.requested_time > 0):
            raise PolicyError(
                f"actor {self._actor_name(a)}: Spawn with requested time {d.requested_time}"
            )
        j = t.append()
        k.spawned += 1
        t.procs[j] = d.procs
        t.state[j] = RELEASED
        t.tag[j] = d.tag
        t.requested_time[j] = float(d.requested_time)
        t.requested_s[j] = float(d.requested_time)
        t.open_ended[j] = True
        t.holder[j] = a
        t.owner[j] = a
        t.submitted_at[j] = now
        k.released += 1
        k.actors[a].on_job_event(j, _SPAWNED)
        self.dispatch(a, Dispatch(j, d.pool, d.delay), now)

    def run_in(self, a: int, d: RunIn, now: float) -> None:
        """Job j runs now inside ``host``, a running job of the same actor (a pilot)."""
        k, t = self.k, self.jobs
        j, host = d.job, d.host
        if not self._held_by(a, j):
            self._not_held(a, j, f"RunIn(job {j}, host {host})", now)
        if not (0 <= host < len(t.state)) or t.state[host] != RUNNING or t.owner[host] != a:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}, host {host}) at t={now}: the host "
                "is not a running job of this actor"
            )
        if t.host[host] >= 0:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn: host {host} is itself a payload"
            )
        q = t.procs[j] if d.procs is None else d.procs
        if q != t.procs[j] and t.model[j] is RIGID:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}, procs={q}): a rigid job runs on "
                f"its own {t.procs[j]} processors"
            )
        if q <= 0 or t.host_used[host] + q > t.alloc_procs[host]:
            raise PolicyError(
                f"actor {self._actor_name(a)}: RunIn(job {j}) at t={now} needs {q} processors; "
                f"host {host} has {t.alloc_procs[host] - t.host_used[host]} unused"
            )
        t.add_payload(host, j, q)
        t.host[j] = host
        t.owner[j] = a
        t.holder[j] = -1
        t.where[j] = t.where[host]
        t.admitted_at[j] = now
        self.life.begin(j, q, t.node_power[host], now, _INF)
        k.notify(j, _STARTED)

    def end(self, a: int, d: End, now: float) -> None:
        t = self.jobs
        j = d.job
        if not (0 <= j < len(t.state)) or t.state[j] != RUNNING or t.owner[j] != a:
            raise PolicyError(
                f"actor {self._actor_name(a)}: End(job {j}) at t={now}: not a running job "
                "of this actor"
            )
        if not t.open_ended[j]:
            raise PolicyError(
                f"actor {self._actor_name(a)}: End(job {j}) at t={now}: only open-ended "
                "jobs (spawned pilots) are ended; a job with work ends when it is done"
            )
        if t.host_used[j]:
            raise PolicyError(
                f"actor {self._actor_name(a)}: End(job {j}) at t={now}: payloads still run in it"
            )
        t.will_kill[j] = False
        self.life.complete(j, now)

    def wake_actor(self, a: int, d: WakeAt, now: float) -> None:
        when = float(d.time)
        if when > now:
            self.k.events.push(when, WAKES, self.k.events.seq, WAKE_ACTOR, a)
