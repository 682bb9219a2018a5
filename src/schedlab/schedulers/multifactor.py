"""Multifactor priority with EASY backfilling underneath, after Slurm's priority/multifactor.

A job's priority is a weighted sum of factors in [0, 1] (Slurm's "Multifactor Priority
Plugin" documentation):
- age: min(wait / max_age, 1);
- job size: (procs - 1) / (P - 1), or 1 - that with ``favor_small`` (1.0 when P = 1);
- fair share, the classic formula F = 2^(-U / S): U the user's decayed usage over the decayed
  usage of all users, S = 1 / (number of users seen so far): equal shares, flat tree.

Usage is processors x seconds. As in Slurm, everything is recomputed every ``calc_period``
seconds on a fixed grid of ticks (from the first event the policy sees): at a tick, each
user's usage becomes usage x D + what their jobs used since the previous tick, with
D = 0.5^(calc_period / decay_half_life), and every waiting job's priority is recomputed (age
at the tick). Charging running jobs at every tick, not at their end, is Slurm's way and the
point of fair share: a user with a week-long job running does not look idle all week. A job
submitted between ticks gets its priority at submission (age 0, the current fair share).

Ticks that pass without any event are applied in closed form (a geometric sum), so a quiet
month costs nothing. Priorities only change at ticks, so the policy asks for a pass at the
next tick (WakeAt) only when a waiting job is narrow enough for the free processors: if none
is, that pass could not start anything.

The pass is EASY in priority order (ties by arrival): jobs start from the top while they
fit; the first that does not fit is reserved at its shadow time (the earliest moment enough
processors are free by the running jobs' requested ends), and the jobs after it, in priority
order, start if they fit now and either end by the shadow time or use only the extra
processors (those free at the shadow time beyond the reserved job's need).
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.protocol import ClusterView
from schedlab.platform import Profile
from schedlab.schedulers.registry import ParamsPolicy, register_policy
from schedlab.validators import check_number, check_seconds

_DAY = 86400.0


@dataclass(frozen=True)
class MultifactorParams:
    """Slurm's slurm.conf names, in seconds.

    ``weight_age``, ``weight_fairshare``, ``weight_job_size`` (PriorityWeightAge,
    PriorityWeightFairshare, PriorityWeightJobSize): slurm.conf leaves each at 0, which makes
    every priority equal (plain EASY); the defaults here are schedlab's choice, fair share
    dominant (10000 against 1000 and 1000): set them to your site's slurm.conf values.
    ``max_age`` (PriorityMaxAge, default 7 days): wait at which the age factor reaches 1.
    ``decay_half_life`` (PriorityDecayHalfLife, default 7 days): past usage counts half after
    this long; 0 means no decay. ``favor_small`` (PriorityFavorSmall, default no): small jobs
    get the high size factor. ``calc_period`` (PriorityCalcPeriod, default 5 minutes): the
    interval between recomputations of usage and priorities.
    """

    weight_age: float = 1000.0
    weight_fairshare: float = 10000.0
    weight_job_size: float = 1000.0
    max_age: float = 7 * _DAY
    decay_half_life: float = 7 * _DAY
    favor_small: bool = False
    calc_period: float = 300.0

    def __post_init__(self) -> None:
        for name in ("weight_age", "weight_fairshare", "weight_job_size", "decay_half_life"):
            value = getattr(self, name)
            check_number(f"multifactor {name}", value, low=0, allowed="a finite number >= 0")
        for name in ("max_age", "calc_period"):
            value = getattr(self, name)
            allowed = "a finite number > 0 (seconds)"
            check_seconds(f"multifactor {name}", value, positive=True, allowed=allowed)


@register_policy
class MultifactorPriority(ParamsPolicy[MultifactorParams]):
    """Slurm-like multifactor priority (age, size, fair share with decay) over EASY."""

    name: ClassVar[str] = "multifactor"
    preempts: ClassVar[bool] = False  # never suspends a job: sweeps rebuild its time series
    Params: ClassVar[type] = MultifactorParams

    def setup(self, view: ClusterView) -> None:
        self._view = view
        # references, never copies: in a pool these lists grow as jobs arrive
        self._submit: Sequence[float] = view.submit_at
        self._req: Sequence[float] = view.requested_time
        self._procs: Sequence[int] = view.procs
        self._user: Sequence[int] = view.user
        self._size: list[float] = []  # job size factor, per job
        self._prio: list[float] = []  # priority, per job (waiting jobs: current)
        self._expected_end: list[float] = []  # start + requested time, per started job
        self._queue: list[tuple[float, int]] = []  # (-priority, job), sorted: top first
        origin = view.submit_at[0] if view.jobs else 0.0
        self._profile = Profile(view.total_procs, origin=origin)  # running jobs only
        # fair share, per user. Decayed usage is stored divided by one common factor
        # (usage = stored x scale): a decay multiplies the scale only, so a tick touches just
        # the users whose jobs ran. Fair share needs only stored / stored total.
        self._stored: dict[int, float] = {}
        self._stored_total = 0.0
        self._scale = 1.0
        self._pending: dict[int, float] = {}  # used since the last tick, up to _since[u]
        self._since: dict[int, float] = {}
        self._running_procs: dict[int, int] = {}  # users with running jobs only
        self._users_seen: set[int] = set()
        self._origin = math.nan  # time of tick 0 (the first event seen)
        self._tick = 0  # index of the last tick applied
        self._wake = -math.inf  # the last wake-up asked for
        period = self.params.calc_period
        half_life = self.params.decay_half_life
        self._decay = 0.5 ** (period / half_life) if half_life > 0 else 1.0

    # -- fair share -------------------------------------------------------------------------
    def _accrue(self, u: int, t: float) -> None:
        """Move what ``u``'s running jobs used up to ``t`` into ``_pending``."""
        p = self._running_procs.get(u, 0)
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

    def _advance(self, now: float) -> None:
        """Apply every tick up to ``now``: decay usage, charge it, recompute priorities."""
        period = self.params.calc_period
        origin = self._origin
        if math.isnan(origin):
            self._origin = now
            return
        if now < origin + (self._tick + 1) * period:
            return  # the common case: no tick due
        last = int((now - origin) // period)  # the last tick <= now; a tick's time is
        while origin + (last + 1) * period <= now:  # origin + k x period (no drift)
            last += 1
        while origin + last * period > now:
            last -= 1
        # the first tick due: usage since the previous tick, ended jobs' included
        first_time = origin + (self._tick + 1) * period
        for u in self._running_procs:
            self._accrue(u, first_time)
        self._decay_by(self._decay)
        for u, amount in self._pending.items():
            self._charge(u, amount)
        self._pending.clear()
        # the other ticks: nothing started or ended, each user's running jobs used the same
        more = last - self._tick - 1
        if more:
            half_life = self.params.decay_half_life
            dm = 0.5 ** (more * period / half_life) if half_life > 0 else 1.0
            d = self._decay
            growth = (1.0 - dm) / (1.0 - d) if d < 1.0 else float(more)  # sum of d^i, i < more
            self._decay_by(dm)
            for u, p in self._running_procs.items():
                self._charge(u, p * period * growth)
        self._tick = last
        tick_time = origin + last * period
        for u in self._running_procs:
            self._since[u] = tick_time
        self._reprioritize(tick_time)

    def usage(self, user: int) -> float:
        """Decayed usage of ``user`` (processor-seconds) as of the last tick."""
        return self._stored.get(user, 0.0) * self._scale

    def fair_share(self, user: int) -> float:
        """The classic fair-share factor 2^(-U/S), equal shares among the users seen."""
        total = self._stored_total
        if total <= 0:
            return 1.0
        normalized = self._stored.get(user, 0.0) / total
        return float(2.0 ** (-normalized * len(self._users_seen)))

    # -- priorities -------------------------------------------------------------------------
    def _priority(self, job: int, t: float, fair_share: float) -> float:
        p = self.params
        wait = t - self._submit[job]
        age = min(wait / p.max_age, 1.0) if wait > 0 else 0.0
        return (
            p.weight_age * age
            + p.weight_fairshare * fair_share
            + p.weight_job_size * self._size[job]
        )

    def priority(self, job: int) -> float:
        """The priority ``job`` has (or had when it started)."""
        return self._prio[job]

    def _reprioritize(self, t: float) -> None:
        """Every waiting job's priority at tick time ``t`` (``_priority`` inlined), re-sort."""
        p = self.params
        w_age, w_fs, w_size, max_age = (
            p.weight_age,
            p.weight_fairshare,
            p.weight_job_size,
            p.max_age,
        )
        submit, size, user, prio = self._submit, self._size, self._user, self._prio
        shares: dict[int, float] = {}
        queue = self._queue
        for k, (_, j) in enumerate(queue):
            u = user[j]
            f = shares.get(u)
            if f is None:
                f = shares[u] = self.fair_share(u)
            wait = t - submit[j]
            age = wait / max_age if wait > 0 else 0.0
            if age > 1.0:
                age = 1.0
            pr = w_age * age + w_fs * f + w_size * size[j]
            prio[j] = pr
            queue[k] = (-pr, j)
        queue.sort()

    # -- events -----------------------------------------------------------------------------
    def on_submit(self, job: int) -> None:
        now = self._view.now
        self._advance(now)
        total = self._view.total_procs
        s = (self._procs[job] - 1) / (total - 1) if total > 1 else 1.0
        self._size.append(1.0 - s if self.params.favor_small else s)
        self._expected_end.append(0.0)
        self._users_seen.add(self._user[job])
        self._prio.append(self._priority(job, now, self.fair_share(self._user[job])))
        insort(self._queue, (-self._prio[job], job))

    def on_finish(self, job: int) -> None:
        now = self._view.now
        self._advance(now)
        u = self._user[job]
        self._accrue(u, now)
        left = self._running_procs[u] - self._procs[job]
        if left:
            self._running_procs[u] = left
        else:
            del self._running_procs[u]
        end = self._expected_end[job]
        if now < end:
            self._profile.release(now, end, self._procs[job])

    # -- the pass ---------------------------------------------------------------------------
    def _start(self, now: float, j: int, out: list[Decision]) -> None:
        p = self._procs[j]
        end = now + self._req[j]
        self._expected_end[j] = end
        self._profile.reserve(now, end, p)
        u = self._user[j]
        self._accrue(u, now)
        self._running_procs[u] = self._running_procs.get(u, 0) + p
        out.append(Start(j))

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        self._advance(now)
        queue = self._queue
        out: list[Decision] = []
        if not queue:
            return out
        procs = self._procs
        free = view.free_procs
        k = 0  # top part: start in priority order while the top fits
        while k < len(queue) and procs[queue[k][1]] <= free:
            j = queue[k][1]
            free -= procs[j]
            self._start(now, j, out)
            k += 1
        if k:
            del queue[:k]
        if queue and free > 0:
            free = self._backfill(now, free, out)
        if queue and free > 0 and min(procs[j] for _, j in queue) <= free:
            wake = self._origin + (self._tick + 1) * self.params.calc_period
            if wake != self._wake:
                self._wake = wake
                out.append(WakeAt(wake))
        return out

    def _backfill(self, now: float, free: int, out: list[Decision]) -> int:
        """EASY's two rules behind the reserved top job; returns the free count after."""
        queue = self._queue
        procs = self._procs
        req = self._req
        profile = self._profile
        profile.advance(now)
        need = procs[queue[0][1]]
        shadow = profile.earliest_start(need, 0.0, now)
        extra = profile.free_at(shadow) - need
        started: list[int] = []
        for _, j in queue[1:]:
            p = procs[j]
            if p > free:
                continue
            if now + req[j] > shadow:
                if p > extra:
                    continue
                extra -= p
            free -= p
            self._start(now, j, out)
            started.append(j)
            if free == 0:
                break
        if started:
            gone = set(started)
            queue[:] = [item for item in queue if item[1] not in gone]
        return free
