"""DIRAC pull meta-schedulers (Caron et al., LIP RR-2005-13, sections 3, 7 and 8; SPEC 5).

A central **task queue** groups the meta-jobs in **job classes**: a class is the requirement
tuple (processors, organisation), FIFO inside, and the classes are kept in creation order
(a class emptied is deleted, as DIRAC's task queues are, and made anew at the end if a job
of that tuple comes back). A **matcher** answers each request, which carries a resource
description (`Resource`), with the first class, in creation order, whose head fits the
description (FRFS, Fit Resource First Serve). Requests travel to the matcher and replies
back as control messages, each taking the pool's ``message_time``.

* ``static``: one agent per queue. It asks while depth / nodes < ε (paper's equation 5),
  with depth = jobs waiting in its queue plus those received but not yet admitted (mu_rec);
  one outstanding request at a time, one job per request. A job it gets is submitted to its
  queue with no further delay (the description came with the reply; the agent sits on the
  site), so no job is ever in transit to the queue once the agent holds it: depth counts it
  from that instant. It is re-evaluated on each reply and on every start or end of a job in
  its queue, its own or not (SPEC 5); after a negative answer it waits ``retry`` seconds
  before asking again (with ``jitter``, a seeded draw around it: agents answered together
  otherwise ask in step).
* ``pilot_simple`` / ``pilot_filling``: one pilot agent per queue, re-evaluated like a static
  agent. While depth (pilots included) / nodes < ε it probes the matcher ("is there work a
  pilot of this queue could run?"; a probe takes no job) and submits one pilot per positive
  probe, which waits in the queue like any job, asking for the queue's t_max. A running
  pilot pulls a job fitting its node: its processors, its node power and its remaining time
  (requested time - elapsed - the round trip to the matcher, so that a payload never
  outlives its pilot). A simple pilot runs one payload and exits; a filling pilot pulls
  again after each payload, taking another job while remaining time x node power >= the
  job's work (its requested time, in NCU). A pilot whose first pull gets nothing exits at
  once and is counted as **wasted**.

**When is a probe positive** (``probe``; SPEC 5: "the matcher has work"). A pilot is
*promised* from the positive probe that makes its agent submit it until its first pull
reaches the matcher (in transit, received, queued, starting): it is promised the class of
the job the probe was answered with. ``"unclaimed"`` (the default): a probe is positive while
the classes whose processors fit the description hold more jobs fitting it than pilots of
all agents are promised for those classes (DIRAC's later site directors submit the eligible
task-queue jobs minus the pilots already waiting for those task queues, whichever site they
wait at). ``"unclaimed_own"``: the same, counting this agent's promised pilots only.
``"literal"``: positive while any job fits, so up to ε x nodes pilots per queue can wait for
one job, all but one wasted. docs/model.md, "Meta-schedulers", compares them on
Table 2's platform: only under "unclaimed" do filling pilots' agents probe less than static
agents request (699 against 872 in the paper); "unclaimed_own" (the reproduction's main
reading) wastes about the paper's 299 pilots.

**One kernel actor.** The kernel has no decision that hands a released job from one actor to
another, and `RunIn` needs the same actor to hold the payload and own the pilot; so the task
queue, the matcher and the agents live in one actor (actor 0, which receives the global
stream). Their exchanges are still messages: the actor sends them to itself with the pools'
message times, so every request and reply takes the time it would between separate
services.

**Watches.** The actor watches every pool (``watches``): the kernel tells it of every job that
starts or ends in one, local jobs included (a payload's start or end is not a pool event;
its pilot's are). That is all an agent needs: depth only falls when a job of its queue starts,
a waiting one is killed or one of ours is evicted (heard too), so an agent that ε stops sets
no timer and waits for such an event; the only timer is ``retry`` after a negative answer.

**The end.** An agent stops asking once the task queue is empty and no global job remains
to be released to it (`PlatformView.unreleased`): it sets no timer then, so the run can end,
also on a shared platform whose local jobs go on arriving.

**Every wait ends.** An agent waits for an event (a start or an end in its queue, a reply)
or for ``retry`` (at least 1 ms; a wake-up is always later than the instant that set it,
however large the clock), and a meta-job stays in the task queue only while some pool could
run it (`_check_runnable`). One loop needs more: a pilot agent's probe describes its queue's
fastest node, but a pilot lands where its queue's placement puts it; when the nodes it gets
are too slow for the job the probe saw (a queue of mixed powers, placement = "slowest"), the
pilot exits without a payload (**wasted for its node**) and the agent submits another, which
lands on the same kind of node. *Progress* is anything else: a job arriving, taken, put back,
or starting or ending anywhere (its queue's local jobs, payloads, a static agent's jobs). A
pilot wasted for its node again with no progress since the last one, at the same instant,
makes its agent wait ``retry`` (no loop in zero time). And when every queue that could run
the job has had two pilots wasted for their nodes since the last progress, with a placement
that is not random, for longer than the queue holds an ended job's nodes (mu_env), and
nothing else is left in any queue, in a payload or to be released, no pilot can ever run
it: the run stops with a `PolicyError` naming the job and the queues, instead of looping for
ever. (With random placement a pilot reaches a fitting node sooner or later.)

Counters (`counters()`): ``matcher_requests`` (all requests the matcher received) and by kind
``matcher_requests_agent`` (static agents' requests, pilot agents' probes),
``matcher_requests_first_pull`` (a pilot's first pull), ``matcher_requests_refill`` (a
filling pilot's later pulls); ``pilots`` submitted and ``wasted_pilots``. Requests are
counted, and dated, when they reach the matcher. The paper's 872 (static) is
``matcher_requests`` of ``static``; its 699 (dynamic) is compared with both the probes
(``matcher_requests_agent``) and all requests of ``pilot_filling`` (docs/model.md,
"Counters": with 299 wasted pilots, all requests are at least 500 + 299 = 799).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import asdict, dataclass
from heapq import heappop, heappush
from typing import ClassVar, NamedTuple

import numpy as np

from schedlab.engine.actors import Actor, JobEvent, PlatformView
from schedlab.engine.decisions import ActorDecision, Dispatch, End, RunIn, Send, Spawn, WakeAt
from schedlab.engine.events import JobState
from schedlab.errors import PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.dirac_params import PROBES, DiracParams, PilotParams, Probe, check_polling
from schedlab.grid.registry import register_meta_scheduler
from schedlab.grid.taskqueue import Reply, Request, Resource, TaskQueue

__all__ = [
    "KINDS",
    "PROBES",
    "DiracParams",
    "PilotFilling",
    "PilotParams",
    "Probe",
    "PilotSimple",
    "Reply",
    "Request",
    "Resource",
    "StaticAgents",
    "TaskQueue",
    "check_polling",
]

KINDS = ("agent", "first_pull", "refill")
"""Kinds of matcher request: an agent's (static request or pilot-agent probe), a pilot's
first pull, a filling pilot's later pulls."""

_RUNNING = int(JobState.RUNNING)
_INF = math.inf
# read once: an enum member read from its class costs 70 ns, a few times per job
_SPAWNED, _STARTED, _EVICTED = JobEvent.SPAWNED, JobEvent.STARTED, JobEvent.EVICTED
# a NamedTuple made by `tuple.__new__` (as its `_make` does), not through its Python-level
# ``__new__``: 100 ns against 235, and a pull makes five (with every field given)
_make = tuple.__new__
_NO_ORG = -1  # the organisation of jobs without an ``org`` attribute
MAX_REQUESTS = 20_000_000  # requests a run may make before it is stopped


class _Event(NamedTuple):
    """News of one of the actor's jobs, kept in order with the messages."""

    job: int
    event: JobEvent


@dataclass
class _Agent:
    """One queue's agent (static or pilot): its request and timer state."""

    pool: int
    asking: bool = False  # a request is outstanding
    retry_at: float = -_INF  # no request before this (after a negative answer)
    timer: float = _INF  # the earliest wake-up asked for it, not yet come
    waste_stamp: int = -1  # the progress count at its last pilot wasted for its node
    wastes: int = 0  # its pilots wasted for their nodes since that progress count
    waste_at: float = -_INF  # when the last of them was


@dataclass
class _Pilot:
    pool: int
    started_at: float = math.nan
    payloads: int = 0  # payloads it was given
    running: int = -1  # its current payload
    asking: bool = False  # a pull is outstanding
    promise: tuple[int, int] | None = None  # the class it was promised, until its first pull


class _Dirac:
    """The DIRAC services and agents of one run, as one kernel actor (module docstring)."""

    name: ClassVar[str] = "dirac"
    listens: ClassVar[frozenset[JobEvent]] = frozenset(
        {JobEvent.STARTED, JobEvent.ENDED, JobEvent.KILLED, JobEvent.EVICTED}
    )

    def __init__(
        self,
        context: GridContext,
        mode: str,
        epsilon: float,
        retry: float,
        jitter: float = 0.0,
        probe: str = "literal",
    ) -> None:
        self.context = context
        self.mode = mode  # "static", "simple" or "filling"
        self.epsilon = epsilon
        self.retry = retry
        self.jitter = jitter
        self.probe = probe  # "literal", "unclaimed" or "unclaimed_own" (pilot agents)
        self.watches: tuple[int, ...] = ()  # every pool, from setup on (module docstring)
        self._rng = np.random.default_rng(context.seed)
        self.tasks = TaskQueue()
        self.requests: dict[str, list[float]] = {k: [] for k in KINDS}
        self.pilots = 0
        self.wasted = 0
        self._platform: PlatformView | None = None
        self._index = 0
        self._agents: list[_Agent] = []
        self._pilots: dict[int, _Pilot] = {}
        self._hosts: dict[int, int] = {}  # running payload -> its pilot
        self._keys: dict[int, tuple[int, int]] = {}  # job taken from the queue -> its class
        self._inbox: list[Request | Reply | _Event] = []  # in the order they came
        self._timers: list[tuple[float, int]] = []
        self._dirty: set[int] = set()
        self._extra: list[int] = []  # jobs and pilots this pass sends to each pool
        self._touched: list[int] = []  # pools whose _extra is not 0
        self._capacity: dict[int, float] = {}  # processors -> the most work a resource takes
        # pilots promised a job (unclaimed readings), by class and by (pool, class)
        self._promised: dict[tuple[int, int], int] = {}
        self._promised_own: dict[tuple[int, tuple[int, int]], int] = {}
        self._spawning: deque[tuple[int, int] | None] = deque()  # promises of our Spawns
        self._progress = 0  # events that are not a pilot wasted for its node (module doc)
        self._asked = 0
        self._progress_at = 0.0

    # -- the Actor protocol ---------------------------------------------------------------
    def setup(self, index: int, platform: PlatformView) -> None:
        pools = len(platform.pools)
        if pools != self.context.pools:
            raise PolicyError(
                f"meta-scheduler {self.mode!r} was built for {self.context.pools} pools, the "
                f"platform has {pools}"
            )
        self._platform = platform
        self._index = index
        self.tasks = TaskQueue(platform.requested_time)
        self.requests = {k: [] for k in KINDS}
        self.pilots = 0
        self.wasted = 0
        self._agents = [_Agent(p) for p in range(pools)]
        self._pilots = {}
        self._hosts = {}
        self._keys = {}
        self._inbox = []
        self._timers = []
        self._dirty = set(range(pools))  # every agent looks at its queue at the first instant
        self._extra = [0] * pools
        self._touched = []
        self._capacity = {}
        self._rng = np.random.default_rng(self.context.seed)
        self._promised = {}
        self._promised_own = {}
        self._spawning = deque()
        self._progress = 0
        self._progress_at = platform.now
        self._asked = 0
        self.watches = tuple(range(pools))  # read by the kernel right after setup

    def on_arrival(self, job: int) -> None:
        self._check_runnable(job)
        self.tasks.add(job, self._key(job))
        assert self._platform is not None
        self._progressed(self._platform.now)

    def on_message(self, message: object) -> None:
        if not isinstance(message, (Request, Reply)):
            raise PolicyError(f"meta-scheduler {self.mode!r}: unexpected message {message!r}")
        self._inbox.append(message)

    def on_job_event(self, job: int, event: JobEvent) -> None:
        if event == _SPAWNED:  # told at once, while our Spawn is applied
            assert self._platform is not None
            pool = self._platform.tag[job]
            assert isinstance(pool, int)
            # a pilot inherits the promise its probe was answered with (unclaimed readings);
            # Spawns are applied, and told, in the order we made them
            self._pilots[job] = _Pilot(pool, promise=self._spawning.popleft())
            self.pilots += 1
        else:
            self._inbox.append(_make(_Event, (job, event)))

    def schedule(self, now: float) -> list[ActorDecision]:
        out: list[ActorDecision] = []
        timers = self._timers
        while timers and timers[0][0] <= now:
            t, p = heappop(timers)
            agent = self._agents[p]
            if agent.timer == t:
                agent.timer = _INF
            self._dirty.add(p)
        inbox = self._inbox
        self._inbox = []
        for item in inbox:
            if type(item) is _Event:  # (news of a job: the most frequent item)
                job, event = item
                self._job_event(job, event, now, out)
            elif isinstance(item, Request):
                self._match(item, now, out)
            elif isinstance(item, Reply):
                self._answered(item, now, out)
        if self._dirty:
            dirty = sorted(self._dirty)
            self._dirty.clear()
            for p in dirty:
                self._evaluate(p, now, out)
        for p in self._touched:
            self._extra[p] = 0
        self._touched.clear()
        return out

    def _sent(self, p: int) -> None:
        """This pass sends one more job or pilot to pool p (it arrives within the pass)."""
        self._extra[p] += 1
        self._touched.append(p)

    # -- the task queue and the matcher ---------------------------------------------------
    def _key(self, job: int) -> tuple[int, int]:
        """A job's class: (processors, organisation)."""
        assert self._platform is not None
        orgs = self._platform.attributes.get("org")
        org = _NO_ORG
        if orgs is not None:
            value = orgs[job]
            if value == value:  # not NaN
                org = int(value)
        return (int(self._platform.procs[job]), org)

    def _fits(self, job: int, resource: Resource) -> bool:
        assert self._platform is not None
        if self._platform.procs[job] > resource.procs:
            return False
        seconds = resource.seconds
        return seconds == _INF or self._platform.requested_time[job] <= seconds * resource.power

    def _probe_resource(self, pool: int) -> Resource:
        """What a pilot agent describes: a pilot of its queue at its best (fastest nodes,
        all of t_max but the round trip of its pulls)."""
        assert self._platform is not None
        state = self._platform.pools[pool]
        seconds = state.t_max - 2 * self.context.message_time[pool]
        return Resource(pool, state.total, max(state.powers), seconds, state.free_total)

    def _check_runnable(self, job: int) -> None:
        """A job no resource could ever be matched with would stay queued forever."""
        assert self._platform is not None
        procs = self._platform.procs[job]
        capacity = self._capacity.get(procs)
        if capacity is None:  # the most NCU a resource of enough processors offers (-1: none)
            capacity = -1.0
            for p in range(len(self._platform.pools)):
                r = self._probe_resource(p)
                if procs <= r.procs:
                    ncu = (
                        _INF if self.mode == "static" or r.seconds == _INF else r.seconds * r.power
                    )
                    capacity = max(capacity, ncu)
            self._capacity[procs] = capacity
        if self.mode == "static":
            ok = capacity >= 0  # a static agent's queue kills at t_max, as under push
        else:
            ok = self._platform.requested_time[job] <= capacity
        if not ok:
            what = "queue" if self.mode == "static" else "pilot of any queue"
            raise PolicyError(
                f"meta-scheduler {self.mode!r}: job {job} ({self._platform.procs[job]} "
                f"processors, {self._platform.requested_time[job]} NCU) fits no {what}"
            )

    def _match(self, request: Request, now: float, out: list[ActorDecision]) -> None:
        self.requests[request.kind].append(now)
        self._asked += 1
        if self._asked > MAX_REQUESTS:  # (every wait ends; this bounds the waits' number)
            raise PolicyError(
                f"meta-scheduler {self.mode!r}: more than {MAX_REQUESTS:,} matcher requests by "
                f"t={now:g} s (the agents ask every retry = {self.retry:g} s while jobs are to "
                "come or wait): give a longer retry"
            )
        resource = request.resource
        if request.pilot >= 0:
            info = self._pilots.get(request.pilot)
            if info is not None and info.promise is not None:  # it pulls: no promise now
                self._unpromise(info)
        found = self.tasks.first(lambda j: self._fits(j, resource))
        job = -1
        procs = 0
        if found is not None:
            key, job = found
            procs = key[0]
            if request.take:
                self.tasks.take(key)
                self._keys[job] = key
                self._progressed(now)
            elif self.probe != "literal":
                if self._unclaimed(resource):  # the pilot it submits is promised the class
                    self._promised[key] = self._promised.get(key, 0) + 1
                    own = (resource.pool, key)
                    self._promised_own[own] = self._promised_own.get(own, 0) + 1
                else:
                    job = -1  # every fitting job is already promised to a pilot
                    procs = 0
        reply = _make(Reply, (request, job, procs))
        out.append(_make(Send, (self._index, reply, self.context.message_time[resource.pool])))

    def _unclaimed(self, resource: Resource) -> bool:
        """A probe's answer under the unclaimed readings: the classes whose processors fit the
        description hold more jobs fitting it than pilots promised those classes (by any
        agent, or by this one)."""
        matching = [(k, jobs) for k, jobs in self.tasks.queues() if k[0] <= resource.procs]
        if self.probe == "unclaimed_own":
            pool = resource.pool
            promised = sum(self._promised_own.get((pool, k), 0) for k, _ in matching)
        else:
            promised = sum(self._promised.get(k, 0) for k, _ in matching)
        # jobs of the class that fit: every one (the class fits the processors) when the
        # description does not limit the time, else those needing at most seconds x power
        # (the test of `_fits`, counted by the queue in O(log n))
        if resource.seconds == _INF:
            n = sum(len(jobs) for _key, jobs in matching)
        else:
            most = resource.seconds * resource.power
            n = sum(self.tasks.count_within(k, most) for k, _ in matching)
        return n > promised

    def _unpromise(self, info: _Pilot) -> None:
        key = info.promise
        assert key is not None
        info.promise = None
        self._promised[key] -= 1
        self._promised_own[(info.pool, key)] -= 1

    # -- agents ---------------------------------------------------------------------------
    def _work_left(self) -> bool:
        """Jobs in the task queue, or global jobs not released to the task queue yet."""
        if len(self.tasks):
            return True
        assert self._platform is not None
        return self._platform.unreleased[self._index] > 0

    def _retry_time(self) -> float:
        """Seconds to wait after a negative answer: ``retry``, or with ``jitter`` a uniform
        draw in retry x [1 - jitter, 1 + jitter) (seeded)."""
        if not self.jitter:
            return self.retry
        return self.retry * (1.0 + self.jitter * (2.0 * float(self._rng.random()) - 1.0))

    def _wake(self, agent: _Agent, t: float, out: list[ActorDecision]) -> None:
        """Make sure the agent looks again at ``t`` at the latest."""
        if agent.timer > t:
            agent.timer = t
            heappush(self._timers, (t, agent.pool))
            out.append(WakeAt(t))

    def _evaluate(self, p: int, now: float, out: list[ActorDecision]) -> None:
        """Agent p asks the matcher if it may (module docstring)."""
        agent = self._agents[p]
        if agent.asking or not self._work_left():
            return
        if now < agent.retry_at:
            self._wake(agent, agent.retry_at, out)
            return
        assert self._platform is not None
        state = self._platform.pools[p]
        depth = state.queued + state.received + self._extra[p]
        if depth >= self.epsilon * state.total:
            return  # a start in its queue (a watched event) or a reply brings it back
        if self.mode == "static":
            resource = Resource(p, state.total, min(state.powers), _INF, state.free_total)
            request = Request("agent", resource)
        else:
            request = Request("agent", self._probe_resource(p), take=False)
        agent.asking = True
        out.append(Send(self._index, request, self.context.message_time[p]))

    def _answered(self, reply: Reply, now: float, out: list[ActorDecision]) -> None:
        request = reply.request
        if request.pilot >= 0:
            self._pilot_answered(request.pilot, reply, now, out)
            return
        p = request.resource.pool
        agent = self._agents[p]
        agent.asking = False
        self._dirty.add(p)
        if reply.job < 0:
            agent.retry_at = _later(now, self._retry_time())
        elif self.mode == "static":
            out.append(Dispatch(reply.job, p, 0.0))
            self._sent(p)
        else:
            assert self._platform is not None
            t_max = self._platform.pools[p].t_max
            self._spawning.append(None if self.probe == "literal" else self._key(reply.job))
            out.append(Spawn(p, max(reply.procs, 1), t_max, 0.0, p))
            self._sent(p)

    # -- pilots ---------------------------------------------------------------------------
    def _pull(self, pilot: int, kind: str, now: float, out: list[ActorDecision]) -> None:
        """A running pilot asks for a payload fitting its node."""
        assert self._platform is not None
        plat = self._platform
        info = self._pilots[pilot]
        p = info.pool
        pool = plat.pools[p]
        delay = self.context.message_time[p]
        limit = plat.requested_time[pilot]
        if pool.t_max < limit:
            limit = pool.t_max
        remaining = limit - (now - info.started_at) - 2 * delay
        if remaining <= 0:
            self._exit(pilot, out)
            return
        resource = _make(
            Resource,
            (p, plat.alloc_procs[pilot], plat.node_power[pilot], remaining, pool.free_total),
        )
        info.asking = True
        request = _make(Request, (kind, resource, pilot, True))
        out.append(_make(Send, (self._index, request, delay)))

    def _exit(self, pilot: int, out: list[ActorDecision]) -> None:
        info = self._pilots[pilot]
        if info.payloads == 0:
            self.wasted += 1
            self._wasted_for_node(pilot, info.pool)
        out.append(End(pilot))

    # -- pilots wasted for their nodes (module docstring, "Every wait ends") ----------------
    def _progressed(self, now: float) -> None:
        self._progress += 1
        self._progress_at = now

    def _stuck_job(self, pool: int) -> int:
        """The first job of the task queue the pool's probe would fit (-1: none)."""
        probe = self._probe_resource(pool)
        found = self.tasks.first(lambda j: self._fits(j, probe))
        return -1 if found is None else found[1]

    def _wasted_for_node(self, pilot: int, pool: int) -> None:
        """A pilot of ``pool`` exits with no payload: if the task queue holds a job its probe
        fits, it was wasted for its node; a repeat with no progress is a loop to end."""
        assert self._platform is not None
        if self._stuck_job(pool) < 0:
            return  # wasted for want of jobs: the agent stops once the queue is empty
        now = self._platform.now
        agent = self._agents[pool]
        if agent.waste_stamp != self._progress:
            agent.waste_stamp, agent.wastes, agent.waste_at = self._progress, 1, now
            return
        agent.wastes += 1
        if now <= agent.waste_at:  # a loop in zero time: wait as after a negative answer
            agent.retry_at = _later(now, self._retry_time())
        agent.waste_at = now
        self._check_hopeless(pilot, pool, now)

    def _cycling(self, pool: int) -> bool:
        agent = self._agents[pool]
        return agent.waste_stamp == self._progress and agent.wastes >= 2

    def _check_hopeless(self, pilot: int, pool: int, now: float) -> None:
        """PolicyError when no pilot can ever run the job ``pool``'s pilots are wasted for
        (module docstring): every pool that could run it loops, nothing else can happen."""
        plat = self._platform
        assert plat is not None
        job = self._stuck_job(pool)
        if plat.unreleased[self._index] > 0 or self._hosts:
            return
        able = [q for q in range(len(plat.pools)) if self._fits(job, self._probe_resource(q))]
        for q in able:
            if not self._cycling(q) or self.context.placement(q) == "random":
                return
            if now - self._progress_at <= self.context.hold(q):
                return  # a node held after an end may yet be freed
        ours = [0] * len(plat.pools)
        for pid, info in self._pilots.items():
            where = plat.where[pid]
            if where >= 0:
                ours[where] += 1
            elif not self._cycling(info.pool):
                return  # a pilot on its way to a queue that may yet run the job
        for q, state in enumerate(plat.pools):
            if state.running + state.queued + state.received > ours[q]:
                return  # another job: its start or end is progress
            if ours[q] and not self._cycling(q):
                return
        names = ", ".join(self.context.pool_names[q] for q in able)
        raise PolicyError(
            f"meta-scheduler {self.mode!r}: job {job} ({plat.procs[job]} processors, "
            f"{plat.requested_time[job]:g} NCU) can never run: the pilots of {names} land on "
            f"nodes too slow for it (the last on a node of {plat.node_power[pilot]:g} NCU/s, "
            f"placement {self.context.placement(pool)!r}) and exit with no payload, and "
            "nothing else is left to happen; give that queue another placement, faster nodes "
            "or a longer t_max"
        )

    def _pilot_answered(
        self, pilot: int, reply: Reply, now: float, out: list[ActorDecision]
    ) -> None:
        assert self._platform is not None
        job = reply.job
        info = self._pilots.get(pilot)
        if info is not None:
            info.asking = False
        if info is None or self._platform.state[pilot] != _RUNNING:
            # the pilot died (or was suspended by a preemptive local policy) meanwhile: the
            # job goes back; a suspended pilot pulls again when it resumes
            if job >= 0:
                self.tasks.put_back(job, self._keys.pop(job))
                self._dirty.update(range(len(self._agents)))
                self._progressed(now)
            return
        if job < 0:
            self._exit(pilot, out)
            return
        del self._keys[job]
        info.payloads += 1
        info.running = job
        self._hosts[job] = pilot
        out.append(_make(RunIn, (job, pilot, None)))

    def _job_event(self, job: int, event: JobEvent, now: float, out: list[ActorDecision]) -> None:
        assert self._platform is not None
        plat = self._platform
        info = self._pilots.get(job)
        if info is not None:  # a pilot
            self._dirty.add(info.pool)
            if event == _STARTED:
                if info.started_at != info.started_at:  # its first start
                    info.started_at = now
                    self._pull(job, "first_pull", now, out)
                elif not info.asking and info.running < 0:  # resumed after a suspension
                    self._pull(job, "refill" if info.payloads else "first_pull", now, out)
            elif event == _EVICTED:  # handed back by its pool: it queues again
                out.append(Dispatch(job, info.pool, 0.0))
                self._sent(info.pool)
                self._progressed(now)
            else:
                if info.promise is not None:  # it died before its first pull was matched
                    self._unpromise(info)
                if info.payloads:
                    self._progressed(now)
                del self._pilots[job]
            return
        self._progress += 1  # any other job's start or end (`_progressed`, inlined)
        self._progress_at = now
        host = self._hosts.get(job)
        if host is not None:  # a payload
            if event == _STARTED:
                return
            del self._hosts[job]
            pilot = self._pilots.get(host)
            if pilot is None or plat.state[host] != _RUNNING:
                return  # killed with its pilot
            pilot.running = -1
            if self.mode == "filling":
                self._pull(host, "refill", now, out)
            else:
                out.append(End(host))
            return
        # a job a static agent submitted, or any other job of a watched pool (a local job)
        if event == _EVICTED:  # only jobs we dispatched come back
            self.tasks.put_back(job, self._key(job))
            self._dirty.update(range(len(self._agents)))
            return
        where = plat.where[job]
        if where >= 0:  # a start or an end in that queue: its agent looks again
            self._dirty.add(where)


def _later(now: float, delay: float) -> float:
    """``now + delay``, and never ``now`` itself: at a large clock a short delay would be
    lost to rounding and an agent would ask again at the same instant, for ever."""
    at = now + delay
    return at if at > now else math.nextafter(now, _INF)


# -- the registered meta-schedulers ---------------------------------------------------------


class _DiracBase:
    """What the DIRAC meta-schedulers share: the actor and its counters."""

    name: ClassVar[str] = ""
    Params: ClassVar[type] = DiracParams
    _mode: ClassVar[str] = ""

    def __init__(self, params: DiracParams | None = None) -> None:
        self.params = params or DiracParams()
        self.actor: _Dirac | None = None

    def actors(self, context: GridContext) -> list[Actor]:
        p = self.params
        probe = p.probe if isinstance(p, PilotParams) else "literal"  # static agents: unused
        actor = _Dirac(
            context, self._mode, float(p.epsilon), float(p.retry), float(p.jitter), probe
        )
        self.actor = actor
        return [actor]

    def counters(self) -> dict[str, int]:
        actor = self.actor
        counts = {k: len(actor.requests[k]) if actor else 0 for k in KINDS}
        out = {"matcher_requests": sum(counts.values())}
        out.update({f"matcher_requests_{k}": v for k, v in counts.items()})
        out["pilots"] = actor.pilots if actor else 0
        out["wasted_pilots"] = actor.wasted if actor else 0
        return out

    def request_times(self) -> dict[str, list[float]]:
        actor = self.actor
        return {k: list(actor.requests[k]) if actor else [] for k in KINDS}


@register_meta_scheduler
class StaticAgents(_DiracBase):
    """DIRAC with one static agent per queue submitting the jobs it pulls."""

    name: ClassVar[str] = "static"
    _mode: ClassVar[str] = "static"


class _PilotBase(_DiracBase):
    Params: ClassVar[type] = PilotParams

    def __init__(self, params: DiracParams | None = None) -> None:
        if params is not None and not isinstance(params, PilotParams):  # epsilon, retry, jitter
            params = PilotParams(**asdict(params))
        super().__init__(params or PilotParams())


@register_meta_scheduler
class PilotSimple(_PilotBase):
    """DIRAC with pilot agents; a pilot runs one payload, then exits."""

    name: ClassVar[str] = "pilot_simple"
    _mode: ClassVar[str] = "simple"


@register_meta_scheduler
class PilotFilling(_PilotBase):
    """DIRAC with pilot agents; a pilot runs payloads while its remaining time allows."""

    name: ClassVar[str] = "pilot_filling"
    _mode: ClassVar[str] = "filling"
