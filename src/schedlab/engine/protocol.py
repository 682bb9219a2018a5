"""What a cluster policy sees (ClusterView), what it must provide (Policy) and what it may
provide (the optional hooks, read once per run through `policy_hooks`).

The view holds plain Python lists indexed by job (position in the submit-ordered workload,
or, inside a pool, the order in which jobs reached the pool: append-only local numbering).
List indexing is the cheapest lookup Python has, and the hot loops of the policies do little
else. Policies read the view; only the engine writes it. Inside a pool the lists grow as jobs
arrive, so a policy keeps references to them (never copies) and grows its own per-job state
in ``on_submit``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from schedlab.engine.decisions import Decision, Start
from schedlab.engine.durations import RIGID, SpeedupModel

if TYPE_CHECKING:
    from schedlab.engine.jobs import JobSpecs


@dataclass(eq=False)
class ClusterView:
    """The cluster and the jobs as a policy may see them (never the actual run times).

    Attributes are updated in place by the engine: ``now`` and ``free_procs`` before every
    pass, ``started_at``/``executed_time`` as jobs run. Times are seconds.
    """

    total_procs: int
    submit_at: Sequence[float]
    requested_time: Sequence[float]
    procs: Sequence[int]
    user: Sequence[int]
    now: float = 0.0
    free_procs: int = 0
    # Start of each job's current (or last) run segment; NaN before the first start.
    segment_start_at: MutableSequence[float] | None = None
    # Work done before the current segment (seconds of run time), for preemptive policies.
    executed_time: MutableSequence[float] | None = None
    kill_on_overrun: bool = True
    # Per-job attributes beyond SWF (``Workload.ATTRIBUTES``), e.g. ``deadline_time``.
    attributes: Mapping[str, Sequence[float]] = field(default_factory=dict)
    # Per-job speed-up model (`engine.durations`); None: every job is rigid.
    speedup: Sequence[SpeedupModel] | None = None
    # Per-job position in the whole workload (the global id; None: the same as the index),
    # and the local number of the job whose end released it (-1: none, or not in this view)
    global_id: Sequence[int] | None = None
    parent: Sequence[int] | None = None

    @property
    def jobs(self) -> int:
        return len(self.submit_at)

    def is_moldable(self, job: int) -> bool:
        """True when ``job`` may be started on another processor count than ``procs[job]``."""
        return self.speedup is not None and self.speedup[job] is not RIGID

    def time_on(self, job: int, procs: int) -> float:
        """Requested time of ``job`` on ``procs`` processors (s): the model's, never computed
        by a policy. ``requested_time[job]`` is the time on ``self.procs[job]``."""
        if self.speedup is None:
            return self.requested_time[job]
        model = self.speedup[job]
        own = model.time_factor(self.procs[job])
        return self.requested_time[job] * model.time_factor(procs) / own


@runtime_checkable
class Policy(Protocol):
    """A cluster scheduling policy (DESIGN.md section 2).

    The engine calls ``setup`` once, then, at every instant, ``on_finish`` for each job that
    ended (completion or overrun kill), ``on_submit`` for each new job, and finally
    ``schedule`` once. ``schedule`` returns the decisions to apply now, in order.
    Jobs ended by the policy's own ``Kill`` decisions get no ``on_finish`` call.
    """

    name: ClassVar[str]

    def setup(self, view: ClusterView) -> None: ...

    def on_submit(self, job: int) -> None: ...

    def on_finish(self, job: int) -> None: ...

    def schedule(self, now: float, view: ClusterView) -> list[Decision]: ...


@runtime_checkable
class Steps(Protocol):
    """A policy that only ever starts waiting jobs at their own size, written as one `step` per
    instant: the fast path's lean protocol (issue 26), without a call per arrival and per end
    or a `Start` per started job.

    ``step(now, free, submitted, ended)`` is called after the instant's ends and arrivals:
    ``free`` processors are free, jobs ``0 .. submitted - 1`` have been submitted (in index
    order), ``ended`` lists the jobs that ended since the last call, in order (read it
    during the call, do not keep it). It returns the jobs to start now, in order. It must
    answer exactly what ``on_finish`` for each ended job, ``on_submit`` for each new one and
    ``schedule`` would, and the engine may skip the call at an instant where no job ended and
    no processor is free (nothing can start; the arrivals are told at the next call).
    `StepPolicy` gives such a policy the classic methods, for the kernel and for wrappers.
    """

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]: ...


def step_of(policy: object) -> Callable[[float, int, int, list[int]], list[int]] | None:
    """``policy.step`` when its class defines one (`Steps`), else None.

    Looked up on the class: a proxy that forwards attributes (the invariant checker's) must
    not pass for a `Steps` policy, or its own bookkeeping would be bypassed. A subclass that
    overrides a classic method (``schedule``, ``on_submit``, ``on_finish``) below the class
    that defines ``step`` gets the classic protocol: its override is what it means.
    """
    mro = type(policy).__mro__
    owner = next((c for c in mro if "step" in c.__dict__), None)
    if owner is None or not callable(owner.__dict__["step"]):
        return None
    for name in ("schedule", "on_submit", "on_finish"):
        definer = next((c for c in mro if name in c.__dict__), None)
        if definer is not None and definer is not owner and issubclass(definer, owner):
            return None
    return policy.step  # type: ignore[attr-defined]


class StepPolicy:
    """The classic protocol (`Policy`) over a policy's `step`: arrivals and ends are noted and
    told at the next pass, so both engines run the same code. Subclasses call
    ``super().setup(view)`` and define ``step``."""

    _submitted: int = 0
    _ended: list[int]

    def setup(self, view: ClusterView) -> None:
        self._submitted = 0
        self._ended = []

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        raise NotImplementedError

    def on_submit(self, job: int) -> None:
        self._submitted = job + 1  # jobs arrive in index order (both engines number so)

    def on_finish(self, job: int) -> None:
        self._ended.append(job)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        ended = self._ended
        if ended:
            self._ended = []
        starts = self.step(now, view.free_procs, self._submitted, ended)
        return [Start(j) for j in starts]


# -- optional hooks: a policy defines them only when it needs them ----------------------------
@runtime_checkable
class Clairvoyant(Protocol):
    """A policy that plans on the realised instance before the run (CPA, SPEC 7): ``prepare``
    gets every job of the run and the machine size; such a policy runs on the kernel."""

    def prepare(self, jobs: JobSpecs, procs: int) -> None: ...


@runtime_checkable
class AddsColumns(Protocol):
    """A policy that adds per-job columns to the result (``priority``, ``deadline``, a planned
    allocation...): numpy arrays indexed like its view's jobs, read after the run."""

    def job_columns(self) -> dict[str, Any]: ...


@runtime_checkable
class HearsEnds(Protocol):
    """A policy told of a job's end at the end itself, while the nodes are still held (mu_env,
    before ``on_finish``): a preemptive policy must not pick an ended job as a victim."""

    def on_end(self, job: int) -> None: ...


@dataclass(frozen=True)
class PolicyHooks:
    """The optional hooks of one policy, looked up in one place (`policy_hooks`).

    ``prepare``, ``job_columns`` and ``on_end``: the `Clairvoyant`, `AddsColumns` and
    `HearsEnds` methods, or None. ``needs_kernel`` (a class attribute, default False): the
    policy uses what only the general kernel does (checkpoint overheads, evictions, on_end).
    ``preempts`` (a class attribute, default True when unknown): it may suspend or requeue
    jobs, so a sweep records its time series while simulating (otherwise the series is rebuilt
    from the per-job table).
    """

    prepare: Callable[[JobSpecs, int], None] | None = None
    job_columns: Callable[[], dict[str, Any]] | None = None
    on_end: Callable[[int], None] | None = None
    needs_kernel: bool = False
    preempts: bool = True


def policy_hooks(policy: object) -> PolicyHooks:
    """The optional hooks of ``policy`` (an instance; a class gives its flags only)."""
    instance = not isinstance(policy, type)
    return PolicyHooks(
        prepare=policy.prepare if instance and isinstance(policy, Clairvoyant) else None,
        job_columns=(policy.job_columns if instance and isinstance(policy, AddsColumns) else None),
        on_end=policy.on_end if instance and isinstance(policy, HearsEnds) else None,
        needs_kernel=bool(getattr(policy, "needs_kernel", False)),
        preempts=bool(getattr(policy, "preempts", True)),
    )
