"""The general kernel's rules: decisions validated, rounds bounded, only what had an event
scheduled, dependants, moldable jobs, work kept in work units (issue 9)."""

from __future__ import annotations

import gc
import weakref
from array import array
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pytest

import schedlab
from schedlab.engine.actors import DirectDispatch, JobEvent, PlatformView
from schedlab.engine.checker import KernelChecker
from schedlab.engine.decisions import Dispatch, End, RunIn, Send, Spawn, Start
from schedlab.engine.durations import RIGID, Amdahl, PowerLaw, duration
from schedlab.engine.jobs import PREEMPTION
from schedlab.engine.kernel import JobSpecs, Kernel
from schedlab.engine.protocol import ClusterView
from schedlab.errors import ConfigError, PolicyError
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy
from schedlab.workload.job import N_FIELDS, F, Workload


def specs(jobs: Sequence[tuple[float, float, int]], **kw: Any) -> JobSpecs:
    """(submit, run, procs) jobs, requested = run."""
    return JobSpecs.rigid(
        submit_at=[j[0] for j in jobs],
        run_time=[j[1] for j in jobs],
        requested_time=[j[1] for j in jobs],
        procs=[j[2] for j in jobs],
        **kw,
    )


class Chatty:
    """Two of these answer every message with another, forever, at zero delay."""

    name: ClassVar[str] = "chatty"

    def __init__(self, peer: int) -> None:
        self.peer = peer
        self.inbox = 0

    def setup(self, index: int, platform: PlatformView) -> None:
        self.index = index

    def on_arrival(self, job: int) -> None:
        self.inbox += 1

    def on_message(self, message: object) -> None:
        self.inbox += 1

    def on_job_event(self, job: int, event: JobEvent) -> None:
        pass

    def schedule(self, now: float) -> list[Any]:
        out = [Send(self.peer, "ping")] * self.inbox
        self.inbox = 0
        return out


def test_a_livelock_of_zero_delay_messages_is_a_policy_error() -> None:
    kernel = Kernel(
        jobs=specs([(0, 1, 1)], target_actor=0),
        pools=[(PoolSpec.cluster(1), make_policy("fcfs"))],
        actors=[Chatty(1), Chatty(0)],
        max_rounds=50,
    )
    with pytest.raises(PolicyError, match="livelock at t=0.0: more than 50 rounds"):
        kernel.run()


class Holder(DirectDispatch):
    """Keeps its jobs; returns whatever decisions a test hands it, once, at its first pass."""

    name: ClassVar[str] = "holder"

    def __init__(self, decisions: list[Any]) -> None:
        super().__init__()
        self.decisions = decisions
        self.events: list[tuple[int, JobEvent]] = []

    def on_job_event(self, job: int, event: JobEvent) -> None:
        self.events.append((job, event))

    def schedule(self, now: float) -> list[Any]:
        out, self.decisions = self.decisions, []
        return out


@pytest.mark.parametrize(
    ("decisions", "message"),
    [
        ([Dispatch(1, 0)], r"Dispatch\(job 1\).*not released to this actor"),
        ([Dispatch(0, 3)], "Dispatch to no pool 3"),
        ([Dispatch(0, 0, -1.0)], "delay -1.0 < 0"),
        ([RunIn(0, 0)], "host is not a running job of this actor"),
        ([End(0)], r"End\(job 0\).*not a running job"),
        ([Send(5, "x")], "Send to no actor 5"),
        ([Spawn(0, 9, 10.0)], "Spawn of 9 processors"),
        ([Spawn(0, 1, 0.0)], "requested time 0.0"),
        (["not a decision"], "not a decision"),
    ],
)
def test_invalid_actor_decisions_name_the_actor_and_the_rule(
    decisions: list[Any], message: str
) -> None:
    kernel = Kernel(
        jobs=specs([(0, 1, 1), (5, 1, 1)], target_actor=0),
        pools=[(PoolSpec.cluster(2), make_policy("fcfs"))],
        actors=[Holder(decisions)],
    )
    with pytest.raises(PolicyError, match=message):
        kernel.run()


def test_a_rigid_job_cannot_be_started_on_another_size() -> None:
    class Wide:
        name: ClassVar[str] = "wide"

        def setup(self, view: ClusterView) -> None:
            pass

        def on_submit(self, job: int) -> None:
            pass

        def on_finish(self, job: int) -> None:
            pass

        def schedule(self, now: float, view: ClusterView) -> list[Any]:
            return [Start(0, 2)] if now == 0 else []

    kernel = Kernel(jobs=specs([(0, 1, 1)]), pools=[(PoolSpec.cluster(4), Wide())])
    with pytest.raises(PolicyError, match=r"rigid job runs on its own 1 processors"):
        kernel.run()


def test_only_pools_and_actors_with_an_event_are_asked() -> None:
    """Two pools, jobs only in the second between t=0 and t=10: pool 0 is never asked."""
    calls: list[tuple[str, float]] = []

    class Counting:
        name: ClassVar[str] = "counting"

        def __init__(self, label: str) -> None:
            self.label = label
            self.fcfs = make_policy("fcfs")

        def setup(self, view: ClusterView) -> None:
            self.fcfs.setup(view)

        def on_submit(self, job: int) -> None:
            self.fcfs.on_submit(job)

        def on_finish(self, job: int) -> None:
            self.fcfs.on_finish(job)

        def schedule(self, now: float, view: ClusterView) -> list[Any]:
            calls.append((self.label, now))
            return self.fcfs.schedule(now, view)

    jobs = specs([(0, 4, 1), (2, 3, 1), (20, 1, 1)])
    jobs.target_pool = [1, 1, 0]
    kernel = Kernel(
        jobs=jobs,
        pools=[(PoolSpec.cluster(1), Counting("a")), (PoolSpec.cluster(1), Counting("b"))],
    )
    kernel.run()
    assert calls == [("b", 0.0), ("b", 2.0), ("b", 4.0), ("b", 7.0), ("a", 20.0), ("a", 21.0)]


def workload_with_parents(parents: dict[int, tuple[int, float]], runs: list[float]) -> Workload:
    n = len(runs)
    rows = np.full((n, N_FIELDS), -1.0)
    rows[:, F["job_id"]] = np.arange(1, n + 1)
    rows[:, F["submit_time"]] = 0.0
    rows[:, F["run_time"]] = runs
    rows[:, F["allocated_procs"]] = 1
    rows[:, F["requested_time"]] = runs
    for child, (parent_id, think) in parents.items():
        rows[child, F["preceding_job_id"]] = parent_id
        rows[child, F["think_time"]] = think
    return Workload.from_fields(rows, max_procs=4)


def test_a_killed_parent_still_releases_its_dependants() -> None:
    """A job killed at its requested time ends all the same: its dependant follows."""
    wl = workload_with_parents({1: (1, 2.0)}, [10.0, 5.0])
    fields = wl.fields.copy()
    fields[0, F["requested_time"]] = 4.0  # job 1 asks 4 s, runs 10: killed at 4
    result = schedlab.simulate(wl.with_fields(fields), "fcfs", check=True)
    jobs = result.jobs
    assert jobs["killed"].tolist() == [True, False]
    assert jobs["submitted_at"].tolist() == [0.0, 6.0]
    assert jobs["started_at"].tolist() == [0.0, 6.0]


def test_a_chain_of_dependants_and_unresolved_references() -> None:
    """1 -> 2 -> 3 (think 1 each); job 4 names job 9 (absent) and job 5 names itself: roots."""
    wl = workload_with_parents({1: (1, 1.0), 2: (2, 1.0), 3: (9, 0.0), 4: (5, 0.0)}, [2.0] * 5)
    from schedlab.workload.dependencies import dependencies

    deps = dependencies(wl)
    assert deps.parent.tolist() == [-1, 0, 1, -1, -1] and deps.unresolved == 2
    jobs = schedlab.simulate(wl, "easy", check=True).jobs
    assert jobs["started_at"].tolist() == [0.0, 3.0, 6.0, 0.0, 0.0]


def test_moldable_jobs_under_a_rigid_policy_keep_the_trace_times() -> None:
    """A rigid policy runs a moldable job at its requested size: its time is the trace's."""
    wl = schedlab.generate_lublin(jobs=300, procs=32, seed=4, kind="all")
    rigid = schedlab.simulate(wl, "easy").jobs
    moldable = schedlab.simulate(wl, "easy", speedup=Amdahl(0.9), check=True).jobs
    np.testing.assert_allclose(moldable["finished_at"], rigid["finished_at"], rtol=1e-12)
    np.testing.assert_array_equal(moldable["procs"], rigid["procs"])


def test_duration_models() -> None:
    assert duration(12.0, 4, 1.0, Amdahl(0.5)) == 7.5
    assert duration(12.0, 4, 2.0, Amdahl(1.0)) == 1.5
    assert duration(8.0, 4, 1.0, PowerLaw(0.5)) == 4.0
    assert duration(8.0, 64, 2.0, RIGID) == 4.0
    with pytest.raises(ConfigError, match="amdahl pi"):
        Amdahl(1.5)
    with pytest.raises(ConfigError, match="node power"):
        duration(1.0, 1, 0.0)


def test_work_is_conserved_across_suspensions_on_mixed_node_powers() -> None:
    """PPS in a pool of two speeds: suspended jobs resume on other nodes, work in units."""
    rng = np.random.default_rng(3)
    n = 300
    submit = np.sort(rng.integers(0, 3000, n)).astype(float)
    run = rng.integers(1, 200, n).astype(float)
    procs = rng.integers(1, 6, n)
    jobs = JobSpecs.rigid(
        submit_at=submit.tolist(),
        run_time=run.tolist(),
        requested_time=(run * 3).tolist(),
        procs=procs.tolist(),
    )
    pool = PoolSpec(name="mixed", groups=((3.0, 4), (1.0, 4)))
    checker = KernelChecker()
    kernel = Kernel(jobs=jobs, pools=[(pool, make_policy("pps"))], tracer=checker)
    run_out = kernel.run()
    checker.audit(kernel)  # work conserved, durations from the model, groups never over
    assert run_out.preemptions.sum() > 0
    assert set(np.unique(run_out.node_power)) == {1.0, 3.0}
    assert not run_out.killed.any()


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "dbf", "pps"])
def test_every_policy_runs_unchanged_inside_pools(policy: str) -> None:
    """Two pools of mixed node powers, t_max, service delays, behind a dispatcher: each
    registry policy runs inside them, all invariants checked; a pool's local numbering is
    not the global one (jobs alternate between the pools)."""
    from schedlab.workload.deadlines import mark_non_priority
    from schedlab.workload.models.tsafrir import add_estimates

    wl = add_estimates(schedlab.generate_lublin(jobs=600, procs=16, seed=2, kind="all"), seed=1)
    wl = mark_non_priority(wl, every=3, deadline="a")

    class Alternate(DirectDispatch):
        name: ClassVar[str] = "alternate"

        def schedule(self, now: float) -> list[Any]:
            out = [Dispatch(j, j % 2, 1.0 * (j % 3)) for j in self._arrived]
            self._arrived.clear()
            return out

    jobs = JobSpecs.rigid(
        submit_at=wl.submit_time.tolist(),
        run_time=wl.run_time.tolist(),
        requested_time=wl.requested_time.tolist(),
        procs=wl.procs.tolist(),
        target_actor=0,
        attributes={k: v.tolist() for k, v in wl.attributes.items()},
    )
    pools = [
        PoolSpec(name="a", groups=((2.0, 8), (1.0, 8)), t_max=20_000.0, mu_rec=3.0, mu_env=2.0),
        PoolSpec(name="b", groups=((1.5, 16),), placement="slowest", mu_rec=1.0),
    ]
    checker = KernelChecker()
    kernel = Kernel(
        jobs=jobs,
        pools=[(p, make_policy(policy)) for p in pools],
        actors=[Alternate()],
        tracer=checker,
    )
    run = kernel.run()
    checker.audit(kernel)
    assert set(run.pool.tolist()) == {0, 1}
    assert (run.started_at >= run.admitted_at).all()
    assert (run.admitted_at >= run.submitted_at + 1.0).all()  # mu_rec >= 1 s in both pools
    powers = set(np.unique(run.node_power[run.pool == 0]).tolist())
    assert powers <= {1.0, 2.0} and 2.0 in powers
    assert set(np.unique(run.node_power[run.pool == 1]).tolist()) == {1.5}
    assert not run.killed[run.pool == 1].any() or kernel.kill_on_overrun


class OnePilot(DirectDispatch):
    """Spawns one pilot at the first instant, runs every job it receives inside it, and
    ends the pilot when they are done."""

    listens: ClassVar[frozenset[JobEvent]] = frozenset(JobEvent)

    def setup(self, index: int, platform: PlatformView) -> None:
        super().setup(index, platform)
        self.pilot = -1
        self.asked = False
        self.running = 0
        self.platform = platform

    def on_job_event(self, job: int, event: JobEvent) -> None:
        if event is JobEvent.SPAWNED:
            self.pilot = job
        elif job != self.pilot and event in (JobEvent.ENDED, JobEvent.KILLED):
            self.running -= 1

    def schedule(self, now: float) -> list[Any]:
        if not self.asked:
            self.asked = True
            return [Spawn(0, 2, 1000.0, tag="pilot")]
        if self.pilot < 0 or self.platform.state[self.pilot] != 2:  # not running yet
            return []
        out: list[Any] = [RunIn(j, self.pilot) for j in self._arrived]
        self.running += len(self._arrived)
        self._arrived.clear()
        if not out and not self.running and not self.platform.unreleased[0]:
            out.append(End(self.pilot))
        return out


@pytest.mark.parametrize("policy", ["fcfs", "conservative"])
def test_a_spawned_job_has_every_column_a_root_has(policy: str) -> None:
    """The job table grows every per-job column for a spawned job, as for a root: after a
    run with a pilot, every column (and every attribute) has one value per job, the pilot's
    are the declared start values where nothing set them, and no per-job list of the table
    lives outside its declared columns. A pool whose policy only starts jobs (fcfs speaks
    `Steps`) makes a run without the preemption accounts; one that may preempt
    (conservative speaks the classic protocol) has them all."""
    jobs = specs([(0.0, 5.0, 1), (1.0, 5.0, 1)], target_actor=0, attributes={"org": [3, 4]})
    kernel = Kernel(
        jobs=jobs,
        pools=[(PoolSpec.cluster(4), make_policy(policy))],
        actors=[OnePilot(0)],
        tracer=KernelChecker(),
    )
    run = kernel.run()
    table = kernel.jobs
    assert run.spawned == 1 and len(table) == 3
    assert table.preemptive == (policy == "conservative")
    declared = {name for name, _, _ in table.COLUMNS}
    if not table.preemptive:
        declared -= PREEMPTION
        assert not run.preemptions.any() and not run.wasted_time.any()
        assert len(run.suspended_time) == len(run.overhead_time) == 3
    assert {name for name, _, _ in table.columns} == declared
    columns = {name for name, value in vars(table).items() if isinstance(value, list | array)}
    assert columns == declared
    for name, _, code in table.columns:
        column = getattr(table, name)
        assert len(column) == 3, name
        # a typed column stays typed as it grows (8 bytes a job, no Python object each)
        assert (column.typecode if isinstance(column, array) else "") == code, name
    assert list(table.attributes["org"][:2]) == [3, 4] and np.isnan(table.attributes["org"][2])
    pilot = 2
    assert table.tag[pilot] == "pilot" and table.open_ended[pilot]
    assert table.user[pilot] == -1 and table.parent[pilot] == -1 and table.work[pilot] == np.inf
    assert run.host.tolist() == [pilot, pilot, -1]
    assert run.finished_at[pilot] >= max(run.finished_at[:2])


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_a_closed_kernel_frees_its_job_table_without_the_collector(policy: str) -> None:
    """`Kernel.close` leaves no reference cycle that holds the job table: with the cyclic
    collector off, the table is gone as soon as the kernel is closed (before, `Decisions`,
    which holds bound methods of its own, kept it until the collector's next pass: through
    the metrics, a third of a million-job grid's peak memory). The outcome's arrays, views
    of the columns they were read from, stay valid."""
    jobs = specs([(0.0, 5.0, 1), (1.0, 5.0, 1)], target_actor=0)
    kernel = Kernel(
        jobs=jobs, pools=[(PoolSpec.cluster(4), make_policy(policy))], actors=[OnePilot(0)]
    )
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        run = kernel.run()
        table = weakref.ref(kernel.jobs)
        kernel.close()
        assert table() is None
    finally:
        if collecting:
            gc.enable()
    assert run.spawned == 1 and run.host.tolist() == [2, 2, -1]
    assert run.finished_at[:2].tolist() == [5.0, 6.0]


def test_every_event_goes_on_the_heap_at_the_rank_of_its_kind(monkeypatch: Any) -> None:
    """The callers of the event queue's `push` pass each event's rank themselves (the hot
    path looks nothing up): over runs that make every kind of event (ends and node
    releases, releases of dependants, arrivals and admissions, messages, wake-ups of pools
    and actors), each one's rank is the one `engine.events.RANK` writes for its kind (every
    push is recorded, at the queue)."""
    from schedlab.engine import core
    from schedlab.engine.events import RANK, EventKind
    from schedlab.engine.queue import PyEventQueue
    from schedlab.grid.platforms import load_platform_source
    from schedlab.workload.streams import platform_stream

    seen: set[tuple[int, int]] = set()

    class Recording(PyEventQueue):
        def push(self, t: float, rank: int, order: int, kind: int, *args: Any) -> None:
            seen.add((kind, rank))
            super().push(t, rank, order, kind, *args)

    monkeypatch.setattr(core, "EventQueue", Recording)
    dirac = load_platform_source("builtin:dirac")  # mu_rec, mu_env, messages, pilots
    stream = platform_stream(dirac, {"meta_jobs": 40, "local_jobs": 10}, seed=1)
    for meta in ("static", "pilot_filling", "push"):
        schedlab.run_grid(dirac, stream, meta, seed=1)
    schedlab.simulate("hlw:n=4,nodes=8,seed=1", "fs0.5mpx")  # dependants
    schedlab.simulate("lublin:jobs=200,procs=32,seed=1", "conservative", engine="general")
    assert {EventKind(kind) for kind, _ in seen} == set(EventKind)
    assert all(RANK[EventKind(kind)] == rank for kind, rank in seen)


@pytest.mark.parametrize(
    ("release", "parent", "named"),
    [
        ([5.0, 0.0, 5.0], [-1, -1, -1], "job 1 at 0.0 after job 0 at 5.0"),
        ([0.0, 9.0, 1.0, 3.0], [-1, -1, 1, -1], "job 3 at 3.0 after job 1 at 9.0"),
        ([0.0, float("nan")], [-1, -1], "job 1 at nan after job 0 at 0.0"),
    ],
)
def test_roots_released_out_of_order_are_refused_before_the_run(
    release: list[float], parent: list[int], named: str
) -> None:
    """Both loops stream the jobs without a parent in id order: a later one released earlier
    (or at NaN) would run time backwards, so the kernel refuses it at construction, naming
    the pair (a dependant's own release time is not read: job 2 of the second case)."""
    specs = JobSpecs.rigid(
        submit_at=release,
        run_time=[1.0] * len(release),
        requested_time=[1.0] * len(release),
        procs=[1] * len(release),
        parent=parent,
    )
    with pytest.raises(ConfigError, match="JobSpecs.release_at") as info:
        Kernel(jobs=specs, pools=[(PoolSpec.cluster(2), make_policy("easy"))])
    assert named in str(info.value)
