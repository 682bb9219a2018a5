"""Priority-based preemptive scheduling, PPS (Zhang and Pan; SPEC section 4).

A job's priority is its submission order: the job index in the submit-ordered workload
(submit time, then position in the trace), a lower index being a higher priority, so jobs
submitted at the same instant are ranked by trace order. At every pass (the engine calls
``schedule`` once per instant, after that instant's completions and submissions) the waiting
queue - waiting and suspended jobs - is scanned by priority:

* a job starts (or resumes) if the free processors suffice;
* otherwise, if the free processors plus its *preemptible resources* suffice, running jobs
  are suspended from the lowest priority upward until it fits, go back into the queue at
  their priority, and it starts. The preemptible resources of job j are the processors held
  by running jobs of lower priority than j (index > j), as in the paper's section 3;
* the scan then goes on, so a job suspended here is reconsidered when the scan reaches it.

No run-time estimate is used. Times are seconds, sizes processors. Choices SPEC and the
paper leave open:

* ``preemption="suspend"`` (the paper) keeps the work done: a resumed job runs its remaining
  run time. ``"requeue"`` loses it: the job restarts from scratch (``Suspend(keep_progress=
  False)``; the engine records the lost attempt as ``wasted_time``).
* A job suspended in a pass and reached again by the same pass's scan with room to run is
  simply left running: it never stops, counts no preemption and, in requeue mode, keeps its
  progress. The paper's loop would freeze and thaw it at the same instant. With this rule
  a pass ends in the *priority-greedy fill*: a job runs iff it fits beside the running jobs
  of higher priority (free + preemptible(j) = P - processors of running jobs before j), so
  what a pass decides follows from the states before and after it, whatever victims the
  loop picked on the way.
* ``priority="attribute"`` (Baranov and Tikhomirov, Computational Technologies 2017; SPEC 6)
  reads each job's ``priority`` attribute (larger = more important; ties by submission order)
  and uses SPEC 6's victim rule (`schedulers.victims`): strictly lower priorities only, lowest
  first, then most recently started, unneeded victims dropped. The modes ``"cancel"`` (victims
  are killed), ``"checkpoint"`` (work kept plus ``checkpoint_overhead`` s at the restart; a
  checkpointable job dispatched by an actor, attribute ``global`` = 1, is evicted back to it and
  may restart anywhere, a local one is suspended in place; a job whose ``checkpointable``
  attribute is 0 is requeued, and with no such attribute every job is checkpointable) and
  ``"none"`` (a non-preemptive priority manager: the scan starts what fits, by priority) run
  on that general pass too, with either priority. It costs O(waiting x running) per pass:
  fine for a grid's clusters, while Zhang and Pan's traces keep the fast path below.
* kill_on_overrun is the engine's: a job is killed once its executed time reaches its
  requested time (work done before a suspension counts; a requeue restarts the budget).
  A job killed that way ends like a completion, and the pass that follows may resume others.

Why it is fast (no per-pass scan of the queue):

* After every pass each waiting job j has ``procs[j] > free + preemptible(j)``, and later
  decisions of the same pass keep that sum unchanged for j (they only start or suspend jobs
  of lower priority, moving processors between "free" and "preemptible"). A completion of
  job c raises the sum only for j > c; a submission adds a job. So a pass only needs to
  look from the lowest index an event touched (``_lo``) onwards, and a pass with no event
  that could let anyone start costs nothing.
* Moreover every waiting job before the scan position k then has ``procs > free +
  preemptible(k)``: the next job that can possibly start is the lowest-index waiting job
  whose size is at most ``free + preemptible(k)``. Waiting jobs are kept in one heap per
  size, with the sorted sizes and the heap heads side by side, so that job is
  ``min(heads[:bisect_right(sizes, bound)])``. Each candidate that fails strictly lowers
  the bound; the scan stops when no size fits it (in particular when it is 0).
* Running jobs are a list sorted by index; the preemptible processors are summed once per
  pass (over the shorter side of ``_lo``) and then only decrease as the scan moves on.
"""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from heapq import heappop, heappush
from typing import ClassVar

from schedlab.engine.decisions import Decision, Evict, Kill, Start, Suspend
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError
from schedlab.schedulers.registry import register_policy
from schedlab.schedulers.victims import choose_victims
from schedlab.validators import check_seconds

PREEMPTION_MODES = ("suspend", "requeue", "cancel", "checkpoint", "none")
# Seconds a restart from a checkpoint may cost at most: about 32 years, far beyond any real
# restart, yet a job would need a million restarts to push the clock past 1e15 s (where
# float64 no longer resolves the simulation, `workload.job.MAX_TIME`).
MAX_CHECKPOINT_OVERHEAD = 1e9
# s to read a checkpoint back at a restart, by default (TDCS local managers, `grid.tdcs`; kept
# here, with the bound, so that `simulate` can name it without importing the grid)
DEFAULT_CHECKPOINT_OVERHEAD = 60.0
PRIORITY_RULES = ("submit", "attribute")
_NO_EVENT = sys.maxsize  # above every job index, however many jobs arrive
_NOTHING: list[Decision] = []  # shared empty answer: the engine only iterates it


@dataclass(frozen=True)
class PpsParams:
    """``preemption``: what preempting a running job does to it.

    "suspend" (Zhang and Pan, SPEC 4): suspend/resume, the work done is kept. "requeue": the job
    is stopped and later restarted from scratch (no checkpoint). "cancel": it is killed.
    "checkpoint": its work is kept and its restart costs ``checkpoint_overhead`` s (global
    jobs go back to their dispatcher); every job is checkpointable unless its
    ``checkpointable`` attribute is 0 (such a job is requeued: its work is lost). "none":
    nothing is preempted.
    ``priority``: "submit" (submission order, Zhang and Pan) or "attribute" (the jobs'
    ``priority`` attribute, larger first; Baranov and Tikhomirov).
    """

    preemption: str = "suspend"
    priority: str = "submit"
    checkpoint_overhead: float = 0.0

    def __post_init__(self) -> None:
        if self.preemption not in PREEMPTION_MODES:
            raise ConfigError("pps preemption", self.preemption, PREEMPTION_MODES)
        if self.priority not in PRIORITY_RULES:
            raise ConfigError("pps priority", self.priority, PRIORITY_RULES)
        check_seconds(
            "pps checkpoint_overhead",
            self.checkpoint_overhead,
            high=MAX_CHECKPOINT_OVERHEAD,
            allowed=f"seconds >= 0, at most {MAX_CHECKPOINT_OVERHEAD:g}",
        )

    @property
    def general(self) -> bool:
        """Whether the general pass (Baranov and Tikhomirov's rules) runs instead of PPS's."""
        return self.priority != "submit" or self.preemption not in ("suspend", "requeue")


@register_policy
class PriorityPreemptive:
    """PPS: submission-order priority, preempting lower-priority jobs to start a job."""

    name: ClassVar[str] = "pps"
    preempts: ClassVar[bool] = True  # suspends jobs: sweeps record its time series
    Params: ClassVar[type] = PpsParams

    def __new__(cls, params: PpsParams | None = None) -> PriorityPreemptive:
        # one policy, two passes: the general one when absolute priorities are asked for
        if cls is PriorityPreemptive and params is not None and params.general:
            return super().__new__(AbsolutePriority)
        return super().__new__(cls)

    def __init__(self, params: PpsParams | None = None) -> None:
        self.params = params or PpsParams()
        self._keep_progress = self.params.preemption == "suspend"

    def setup(self, view: ClusterView) -> None:
        self._procs = view.procs
        self._total = view.total_procs
        self._none = _NO_EVENT  # "_lo" when no event since the last pass can start a job
        self._lo = self._none
        self._running: list[int] = []  # running jobs, ascending index
        # ended jobs whose nodes the batch system still holds (mu_env): never victims, and
        # their processors neither free nor preemptible until ``on_finish``
        self._held: dict[int, None] = {}
        self._held_procs = 0
        self._buckets: dict[int, list[int]] = {}  # size -> heap of waiting job indices
        self._sizes: list[int] = []  # sorted keys of _buckets
        self._heads: list[int] = []  # _heads[i] = lowest waiting index of size _sizes[i]

    # -- events ---------------------------------------------------------------------
    def on_submit(self, job: int) -> None:
        # a new job has the highest index so far: appending keeps its size's heap valid
        p = self._procs[job]
        bucket = self._buckets.get(p)
        if bucket is None:
            self._add_size(p, job)
        else:
            bucket.append(job)
        if job < self._lo:
            self._lo = job

    def on_end(self, job: int) -> None:
        """The job ended, but its nodes stay held a while (mu_env): no longer running, so no
        longer a victim (a pass can only have lost processors: no new start)."""
        del self._running[bisect_left(self._running, job)]
        self._held[job] = None
        self._held_procs += self._procs[job]

    def on_finish(self, job: int) -> None:
        if job in self._held:  # its held nodes are free now: any waiting job may fit
            del self._held[job]
            self._held_procs -= self._procs[job]
            self._lo = 0
            return
        running = self._running
        del running[bisect_left(running, job)]
        # free + preemptible(j) grew only for the jobs after it
        if job < self._lo:
            self._lo = job + 1

    # -- waiting-queue helpers ----------------------------------------------------------
    def _add_size(self, p: int, job: int) -> None:
        self._buckets[p] = [job]
        i = bisect_left(self._sizes, p)
        self._sizes.insert(i, p)
        self._heads.insert(i, job)

    def _push(self, job: int) -> None:
        p = self._procs[job]
        bucket = self._buckets.get(p)
        if bucket is None:
            self._add_size(p, job)
        else:
            heappush(bucket, job)
            if bucket[0] == job:
                self._heads[bisect_left(self._sizes, p)] = job

    def _pop(self, p: int) -> None:
        """Remove the lowest-index waiting job of size ``p``."""
        bucket = self._buckets[p]
        heappop(bucket)
        i = bisect_left(self._sizes, p)
        if bucket:
            self._heads[i] = bucket[0]
        else:
            del self._buckets[p]
            del self._sizes[i]
            del self._heads[i]

    # -- the pass -----------------------------------------------------------------------
    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        lo = self._lo
        if lo >= self._none or not self._sizes:
            self._lo = self._none
            return _NOTHING
        self._lo = self._none
        procs = self._procs
        running = self._running
        sizes = self._sizes
        heads = self._heads
        free = view.free_procs
        # preemptible = processors of running jobs with index >= scan position (here lo)
        r = bisect_left(running, lo)
        if len(running) - r <= r:
            preemptible = sum(map(procs.__getitem__, running[r:]))
        else:
            busy = self._total - self._held_procs - free  # (processors of running jobs)
            preemptible = busy - sum(map(procs.__getitem__, running[:r]))
        starts: list[Decision] = []
        suspended: dict[int, None] = {}  # suspended by this pass, in order
        while True:
            bound = free + preemptible
            m = bisect_right(sizes, bound)
            if m == 0:
                break  # no waiting job is narrow enough (always so when bound is 0)
            j = heads[0] if m == 1 else min(heads[:m])
            # move the scan position to j: jobs before it are no longer preemptible
            r2 = bisect_left(running, j, r)
            if r2 != r:
                preemptible -= sum(map(procs.__getitem__, running[r:r2]))
                r = r2
            p = procs[j]
            if p > free:
                if p > free + preemptible:
                    continue  # j waits; the bound just fell below p
                while free < p:  # suspend from the lowest priority upward
                    v = running.pop()
                    pv = procs[v]
                    free += pv
                    preemptible -= pv
                    suspended[v] = None
                    self._push(v)
            free -= p
            self._pop(p)
            running.insert(r, j)
            r += 1
            if j in suspended:
                del suspended[j]  # suspended and resumed by this pass: it never stops
            else:
                starts.append(Start(j))
        if not suspended:
            return starts
        keep = self._keep_progress
        out: list[Decision] = [Suspend(v, keep) for v in suspended]
        out.extend(starts)  # after every Suspend: the engine sees the processors freed
        return out


class AbsolutePriority(PriorityPreemptive):
    """`pps` with absolute priorities (module docstring): the general pass.

    Waiting jobs are scanned by (priority descending, submission order); a job starts if it
    fits, else, unless preemption is "none", `choose_victims` names the running jobs to
    preempt; a suspended or requeued victim goes back to the waiting set, where the scan may
    still reach it.
    """

    needs_kernel: ClassVar[bool] = True  # checkpoint overheads and on_end: the general kernel

    def setup(self, view: ClusterView) -> None:
        self._procs = view.procs
        attrs = view.attributes
        prio = attrs.get("priority") if self.params.priority == "attribute" else None
        if self.params.priority == "attribute" and prio is None:
            raise ConfigError(
                "pps priority", "attribute", "jobs with a 'priority' attribute (none given)"
            )
        self._prio = prio
        self._ckpt = attrs.get("checkpointable")
        self._global = attrs.get("global")
        self._waiting: dict[int, None] = {}
        self._active: dict[int, float] = {}  # running job -> start key (larger: more recent)
        self._starts = 0
        self._dirty = False
        mode = self.params.preemption
        self._mode = mode
        self._overhead = float(self.params.checkpoint_overhead)

    def _priority(self, job: int) -> float:
        return float(self._prio[job]) if self._prio is not None else -float(job)

    def on_submit(self, job: int) -> None:
        self._waiting[job] = None
        self._dirty = True

    def on_end(self, job: int) -> None:
        """The job ended; its nodes may stay held a while (mu_env): no longer a victim."""
        self._active.pop(job, None)

    def on_finish(self, job: int) -> None:
        self._active.pop(job, None)
        self._dirty = True

    def _victim_decision(self, v: int) -> Decision:
        """How victim ``v`` is preempted in this mode (and whether it waits again)."""
        mode = self._mode
        if mode == "cancel":
            return Kill(v)
        if mode == "requeue":
            return Suspend(v, False)
        if mode == "suspend":
            return Suspend(v, True)
        # checkpoint: a job is checkpointable unless its attribute says 0 (no attribute:
        # every job is, as the parameter promises)
        if self._ckpt is None or self._ckpt[v]:
            if self._global is not None and self._global[v]:
                return Evict(v, self._overhead)
            return Suspend(v, True, self._overhead)
        return Suspend(v, False)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        if not self._dirty or not self._waiting:
            self._dirty = False
            return _NOTHING
        self._dirty = False
        procs = self._procs
        prio = self._priority
        free = view.free_procs
        waiting = self._waiting
        running = self._active
        heap = [(-prio(j), j) for j in waiting]
        heap.sort()
        stops: list[Decision] = []
        starts: list[Decision] = []
        preempt = self._mode != "none"
        while heap:
            _, j = heappop(heap)
            if j not in waiting:
                continue
            p = procs[j]
            if p > free:
                if not preempt:
                    continue
                pj = prio(j)
                victims = choose_victims(
                    p, pj, free, [(v, prio(v), key, procs[v]) for v, key in running.items()]
                )
                if victims is None:
                    continue
                for v in victims:
                    del running[v]
                    free += procs[v]
                    decision = self._victim_decision(v)
                    stops.append(decision)
                    if type(decision) is Suspend:
                        waiting[v] = None
                        heappush(heap, (-prio(v), v))
            del waiting[j]
            free -= p
            self._starts += 1
            running[j] = float(self._starts)
            starts.append(Start(j))
        if not stops:
            return starts
        return stops + starts  # every preemption first: the engine sees the processors freed
