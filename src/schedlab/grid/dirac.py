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
agents request, as the paper reports (699 against 872).

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

Counters (`counters()`): ``matcher_requests`` (all requests the matcher received) and by kind
``matcher_requests_agent`` (static agents' requests, pilot agents' probes),
``matcher_requests_first_pull`` (a pilot's first pull), ``matcher_requests_refill`` (a
filling pilot's later pulls); ``pilots`` submitted and ``wasted_pilots``. Requests are
counted, and dated, when they reach the matcher. The paper's 872 (static) is
``matcher_requests`` of ``static`` (all of kind agent), its 699 (dynamic) the probes,
``matcher_requests_agent``, of ``pilot_filling`` (docs/model.md says why).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from heapq import heappop, heappush
from typing import ClassVar, Literal, NamedTuple

import numpy as np

from schedlab.engine.actors import Actor, JobEvent, PlatformView
from schedlab.engine.decisions import ActorDecision, Dispatch, End, RunIn, Send, Spawn, WakeAt
from schedlab.engine.events import JobState
from schedlab.errors import ConfigError, PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.registry import register_meta_scheduler

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
]

KINDS = ("agent", "first_pull", "refill")
"""Kinds of matcher request: an agent's (static request or pilot-agent probe), a pilot's
first pull, a filling pilot's later pulls."""

_RUNNING = int(JobState.RUNNING)
_INF = math.inf
_NO_ORG = -1  # the organisation of jobs without an ``org`` attribute


class Resource(NamedTuple):
    """A resource description, as a request carries it to the matcher.

    ``procs``: the most processors a job may use (a queue's size, a pilot's processors);
    ``power``: NCU/s of the nodes a job would run on; ``seconds``: the time it may run
    (inf: not limited by the description); ``free``: free processors of the queue when it
    asked (information only).
    """

    pool: int
    procs: int
    power: float
    seconds: float
    free: int


class Request(NamedTuple):
    """A request to the matcher: ``take`` a job (static agents, pilots) or only ask whether
    one fits (pilot agents' probes); ``pilot`` is the asking pilot (-1: an agent)."""

    kind: str
    resource: Resource
    pilot: int = -1
    take: bool = True


class Reply(NamedTuple):
    """The matcher's answer: ``job`` taken (or, for a probe, the head that fits), -1 for
    none; ``procs`` the processors that job asks for."""

    request: Request
    job: int
    procs: int = 0


class _Event(NamedTuple):
    """News of one of the actor's jobs, kept in order with the messages."""

    job: int
    event: JobEvent


class TaskQueue:
    """Jobs grouped by class (a hashable requirement tuple), classes in creation order,
    FIFO within a class (module docstring)."""

    def __init__(self) -> None:
        self._classes: dict[tuple[int, int], deque[int]] = {}  # dicts keep insertion order
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def add(self, job: int, key: tuple[int, int]) -> None:
        queue = self._classes.get(key)
        if queue is None:
            queue = self._classes[key] = deque()
        queue.append(job)
        self._size += 1

    def put_back(self, job: int, key: tuple[int, int]) -> None:
        """Return a job that was taken to the head of its class (a pilot died meanwhile)."""
        queue = self._classes.get(key)
        if queue is None:
            queue = self._classes[key] = deque()
        queue.appendleft(job)
        self._size += 1

    def first(self, fits: Callable[[int], bool]) -> tuple[tuple[int, int], int] | None:
        """FRFS: the first class in creation order whose head fits, and that head."""
        for key, queue in self._classes.items():
            if fits(queue[0]):
                return key, queue[0]
        return None

    def take(self, key: tuple[int, int]) -> int:
        """Remove and return the head of class ``key`` (deleted when emptied)."""
        queue = self._classes[key]
        job = queue.popleft()
        if not queue:
            del self._classes[key]
        self._size -= 1
        return job

    def queues(self) -> Iterator[tuple[tuple[int, int], deque[int]]]:
        """(class, its live FIFO) in creation order: read, never modify."""
        yield from self._classes.items()

    def classes(self) -> Iterator[tuple[tuple[int, int], list[int]]]:
        """(class, jobs) in creation order (for tests and inspection)."""
        for key, queue in self._classes.items():
            yield key, list(queue)


@dataclass
class _Agent:
    """One queue's agent (static or pilot): its request and timer state."""

    pool: int
    asking: bool = False  # a request is outstanding
    retry_at: float = -_INF  # no request before this (after a negative answer)
    timer: float = _INF  # the earliest wake-up asked for it, not yet come


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
        self.tasks = TaskQueue()
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
        self.watches = tuple(range(pools))  # read by the kernel right after setup

    def on_arrival(self, job: int) -> None:
        self._check_runnable(job)
        self.tasks.add(job, self._key(job))

    def on_message(self, message: object) -> None:
        if not isinstance(message, (Request, Reply)):
            raise PolicyError(f"meta-scheduler {self.mode!r}: unexpected message {message!r}")
        self._inbox.append(message)

    def on_job_event(self, job: int, event: JobEvent) -> None:
        if event == JobEvent.SPAWNED:  # told at once, while our Spawn is applied
            assert self._platform is not None
            pool = self._platform.tag[job]
            assert isinstance(pool, int)
            # a pilot inherits the promise its probe was answered with (unclaimed readings);
            # Spawns are applied, and told, in the order we made them
            self._pilots[job] = _Pilot(pool, promise=self._spawning.popleft())
            self.pilots += 1
        else:
            self._inbox.append(_Event(job, event))

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
            if isinstance(item, Request):
                self._match(item, now, out)
            elif isinstance(item, Reply):
                self._answered(item, now, out)
            else:
                self._job_event(item.job, item.event, now, out)
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
            elif self.probe != "literal":
                if self._unclaimed(resource):  # the pilot it submits is promised the class
                    self._promised[key] = self._promised.get(key, 0) + 1
                    own = (resource.pool, key)
                    self._promised_own[own] = self._promised_own.get(own, 0) + 1
                else:
                    job = -1  # every fitting job is already promised to a pilot
                    procs = 0
        reply = Reply(request, job, procs)
        out.append(Send(self._index, reply, self.context.message_time[resource.pool]))

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
        n = 0
        for _key, jobs in matching:
            if resource.seconds == _INF:
                n += len(jobs)
                if n > promised:
                    return True
                continue
            for j in jobs:
                if self._fits(j, resource):
                    n += 1
                    if n > promised:
                        return True
        return False

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
            agent.retry_at = now + self._retry_time()
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
        trip = 2 * self.context.message_time[p]
        limit = min(plat.requested_time[pilot], plat.pools[p].t_max)
        remaining = limit - (now - info.started_at) - trip
        if remaining <= 0:
            self._exit(pilot, out)
            return
        resource = Resource(
            p, plat.alloc_procs[pilot], plat.node_power[pilot], remaining, plat.pools[p].free_total
        )
        info.asking = True
        out.append(Send(self._index, Request(kind, resource, pilot), self.context.message_time[p]))

    def _exit(self, pilot: int, out: list[ActorDecision]) -> None:
        info = self._pilots[pilot]
        if info.payloads == 0:
            self.wasted += 1
        out.append(End(pilot))

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
            return
        if job < 0:
            self._exit(pilot, out)
            return
        del self._keys[job]
        info.payloads += 1
        info.running = job
        self._hosts[job] = pilot
        out.append(RunIn(job, pilot))

    def _job_event(self, job: int, event: JobEvent, now: float, out: list[ActorDecision]) -> None:
        assert self._platform is not None
        plat = self._platform
        info = self._pilots.get(job)
        if info is not None:  # a pilot
            self._dirty.add(info.pool)
            if event == JobEvent.STARTED:
                if info.started_at != info.started_at:  # its first start
                    info.started_at = now
                    self._pull(job, "first_pull", now, out)
                elif not info.asking and info.running < 0:  # resumed after a suspension
                    self._pull(job, "refill" if info.payloads else "first_pull", now, out)
            elif event == JobEvent.EVICTED:  # handed back by its pool: it queues again
                out.append(Dispatch(job, info.pool, 0.0))
                self._sent(info.pool)
            else:
                if info.promise is not None:  # it died before its first pull was matched
                    self._unpromise(info)
                del self._pilots[job]
            return
        host = self._hosts.get(job)
        if host is not None:  # a payload
            if event == JobEvent.STARTED:
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
        if event == JobEvent.EVICTED:  # only jobs we dispatched come back
            self.tasks.put_back(job, self._key(job))
            self._dirty.update(range(len(self._agents)))
            return
        where = plat.where[job]
        if where >= 0:  # a start or an end in that queue: its agent looks again
            self._dirty.add(where)


# -- the registered meta-schedulers ---------------------------------------------------------


@dataclass(frozen=True)
class DiracParams:
    """``epsilon``: an agent asks while depth / nodes < epsilon (paper: 0.3); ``retry``:
    seconds an agent waits after a negative answer, default 60 s
    (docs/model.md, "Meta-schedulers", gives its effect); ``jitter`` in [0, 1):
    each wait is drawn uniformly in retry x [1 - jitter, 1 + jitter), seeded by the context's
    seed, so that agents answered at the same instant do not ask again in step (0: exactly
    ``retry``, the paper's rule)."""

    epsilon: float = 0.3
    retry: float = 60.0
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if not (isinstance(self.epsilon, int | float) and 0 < self.epsilon < _INF):
            raise ConfigError("dirac parameter epsilon", self.epsilon, "a number > 0")
        if not (isinstance(self.retry, int | float) and 0 < self.retry < _INF):
            raise ConfigError("dirac parameter retry", self.retry, "seconds > 0")
        if not (isinstance(self.jitter, int | float) and 0 <= self.jitter < 1):
            raise ConfigError("dirac parameter jitter", self.jitter, "a fraction in [0, 1)")


Probe = Literal["literal", "unclaimed", "unclaimed_own"]
PROBES: tuple[Probe, ...] = ("literal", "unclaimed", "unclaimed_own")
"""Readings of "the matcher has work" for a pilot agent's probe (module docstring)."""


@dataclass(frozen=True)
class PilotParams(DiracParams):
    """`DiracParams` and ``probe``: when a pilot agent's probe is positive. ``"unclaimed"``
    (default): while the classes the probe's processors fit hold more jobs fitting it than
    pilots of all agents are promised for those classes (a pilot is promised from its positive
    probe until its first pull is matched); ``"unclaimed_own"``: the same against this
    agent's promised pilots only; ``"literal"``: while any job fits (module docstring;
    docs/model.md compares the three on the paper's Table 2)."""

    probe: Probe = "unclaimed"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.probe not in PROBES:
            raise ConfigError("dirac parameter probe", self.probe, list(PROBES))


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
    """DIRAC with one static agent per queue submitting the jobs it pulls (module doc)."""

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
    """DIRAC with pilot agents; a pilot runs one payload, then exits (module doc)."""

    name: ClassVar[str] = "pilot_simple"
    _mode: ClassVar[str] = "simple"


@register_meta_scheduler
class PilotFilling(_PilotBase):
    """DIRAC with pilot agents; a pilot runs payloads while its remaining time allows."""

    name: ClassVar[str] = "pilot_filling"
    _mode: ClassVar[str] = "filling"
