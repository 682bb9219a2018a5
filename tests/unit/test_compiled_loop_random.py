"""Random small kernels run on both loops (the C one of engine/_ckernel.c and `Kernel._loop`)
end in the same state, bit for bit: node groups of several powers, random placement, two
pools, kills, delays, dependants, moldable jobs, actors that listen, the invariant checker;
a run that fails must fail alike and leave the same state (tests/loop_twins.py)."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st

from loop_twins import (
    ClassicFcfs,
    assert_same,
    both_loops,
    kernel_state,
    needs_c_loop,
)
from schedlab.engine.actors import JobEvent, PlatformView
from schedlab.engine.checker import KernelChecker
from schedlab.engine.decisions import ActorDecision, Dispatch
from schedlab.engine.durations import RIGID, Amdahl, PowerLaw, SpeedupModel
from schedlab.engine.kernel import JobSpecs, Kernel
from schedlab.engine.protocol import ClusterView, Policy, step_of
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy
from schedlab.schedulers.easy import EasyBackfilling

# -- random small kernels -----------------------------------------------------------------------


class RecordingEasy(EasyBackfilling):
    """EASY (a `Steps` policy still) that logs every step and the view it reads then."""

    name: ClassVar[str] = "recording-easy"

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.view = view
        self.log: list[tuple[Any, ...]] = []

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        view = self.view
        self.log.append((now, free, submitted, list(ended), view.now, view.free_procs))
        starts = super().step(now, free, submitted, ended)
        self.log.append(tuple(starts))
        return starts


POLICIES: dict[str, Callable[[], Policy]] = {
    **{
        name: functools.partial(make_policy, name)
        for name in ("fcfs", "easy", "conservative", "pps", "fs0.5mpx")
    },
    "recording-easy": RecordingEasy,
    "classic-fcfs": ClassicFcfs,
}
MODELS: dict[str, SpeedupModel] = {
    "rigid": RIGID,
    "amdahl": Amdahl(0.7),
    "power": PowerLaw(0.5),
}


class Router:
    """An actor that sends each job to its pool after ``delay``; it may listen to its jobs'
    events (and watch pool 0's), logging each with the time the kernel says it is. It keeps
    the kernel's log of the pools whose counts changed (`KernelCore.watch_pools`), whole."""

    name: ClassVar[str] = "router"

    def __init__(self, pools: Sequence[int], delay: float, listening: bool) -> None:
        self.pools = list(pools)
        self.delay = delay
        self.listens = frozenset(JobEvent) if listening else frozenset()
        self.watches: tuple[int, ...] = (0,) if listening else ()
        self.log: list[tuple[float, int, int]] = []
        self.arrived: list[int] = []
        self.changes: list[int] = []

    def setup(self, index: int, platform: PlatformView) -> None:
        self.platform = platform
        self.changes = platform.watch_pools()

    def on_arrival(self, job: int) -> None:
        self.arrived.append(job)

    def on_message(self, message: object) -> None:
        pass

    def on_job_event(self, job: int, event: JobEvent) -> None:
        self.log.append((self.platform.now, job, int(event)))

    def schedule(self, now: float) -> list[ActorDecision]:
        out: list[ActorDecision] = [Dispatch(j, self.pools[j], self.delay) for j in self.arrived]
        self.arrived.clear()
        return out


@dataclasses.dataclass(frozen=True)
class PoolCase:
    """One pool of a `KernelCase`: its node groups (power, count), its batch system's
    options and its policy (a key of `POLICIES`)."""

    groups: tuple[tuple[float, int], ...]
    placement: str
    seed: int
    t_max: float
    mu_rec: float
    mu_env: float
    policy: str

    @property
    def total(self) -> int:
        return sum(count for _, count in self.groups)


@dataclasses.dataclass(frozen=True)
class KernelCase:
    """A small kernel run (hypothesis shows it when a run differs)."""

    pools: tuple[PoolCase, ...]
    submit: tuple[float, ...]
    run: tuple[float, ...]
    requested: tuple[float, ...]
    procs: tuple[int, ...]
    target: tuple[int, ...]  # pool of each job
    parent: tuple[int, ...]
    think: tuple[float, ...]
    models: tuple[str, ...] | None
    attributes: bool  # two per-job attributes, which the pools' views copy at admission
    actor: str  # "none", "router", "listening"
    delay: float
    kill_on_overrun: bool
    traced: bool

    def kernel(self) -> Kernel:
        n = len(self.submit)
        specs = JobSpecs.rigid(
            submit_at=list(self.submit),
            run_time=list(self.run),
            requested_time=list(self.requested),
            procs=list(self.procs),
            parent=list(self.parent),
            think=list(self.think),
            speedup=None if self.models is None else [MODELS[m] for m in self.models],
            target_actor=-1 if self.actor == "none" else 0,
            attributes=(
                {"weight": [0.5 * j for j in range(n)], "org": [j % 3 for j in range(n)]}
                if self.attributes
                else None
            ),
        )
        specs = dataclasses.replace(specs, target_pool=list(self.target))
        pools = [
            PoolSpec(
                name=f"pool{i}",
                groups=p.groups,
                t_max=p.t_max,
                mu_rec=p.mu_rec,
                mu_env=p.mu_env,
                placement=p.placement,
                seed=p.seed,
            )
            for i, p in enumerate(self.pools)
        ]
        actors = (
            []
            if self.actor == "none"
            else [Router(self.target, self.delay, self.actor != "router")]
        )
        return Kernel(
            jobs=specs,
            pools=[(spec, POLICIES[p.policy]()) for spec, p in zip(pools, self.pools)],
            actors=actors,
            kill_on_overrun=self.kill_on_overrun,
            tracer=KernelChecker() if self.traced else None,
        )


def run_case(case: KernelCase) -> dict[str, Any]:
    """The state a fresh kernel of ``case`` ends in (a kernel runs once); a run that fails
    (a policy's own error, on either loop alike) gives its error and the state it left."""
    kernel = case.kernel()
    try:
        outcome = kernel.run()
    except Exception as error:  # (compared: the other loop must fail alike)
        return {"raised": (type(error).__name__, str(error)), **kernel_state(kernel)}
    return kernel_state(kernel, outcome)


@st.composite
def kernel_cases(draw: st.DrawFn) -> KernelCase:
    """Small runs (`KernelCase`): few distinct times (ties), requested times below and above
    the run times, powers whose quotients are not exact in binary."""
    npools = draw(st.sampled_from([1, 1, 2]))
    pools = []
    for _ in range(npools):
        powers = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=1, max_size=3))
        counts = draw(st.lists(st.integers(1, 4), min_size=len(powers), max_size=len(powers)))
        pools.append(
            PoolCase(
                groups=tuple(zip(powers, counts)),
                placement=draw(st.sampled_from(["fastest", "fastest", "slowest", "random"])),
                seed=draw(st.integers(0, 3)),
                t_max=draw(st.sampled_from([math.inf, math.inf, 6.0])),
                mu_rec=draw(st.sampled_from([0.0, 0.0, 0.0, 1.0])),
                mu_env=draw(st.sampled_from([0.0, 0.0, 0.0, 0.5])),
                policy=draw(st.sampled_from(sorted(POLICIES))),
            )
        )
    kill = draw(st.booleans())
    n = draw(st.integers(1, 24))
    submit, run, requested, procs, target, parent, think = [], [], [], [], [], [], []
    for j in range(n):
        submit.append(draw(st.sampled_from([0.0, 0.0, 1.0, 2.0, 2.5, 3.0, 5.0, 8.0])))
        r = draw(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 4.75, 9.0]))
        run.append(r)
        requested.append(draw(st.sampled_from([0.5, 1.0, 2.0, 3.0, 5.0, 12.0])))
        p = draw(st.integers(0, npools - 1))
        target.append(p)
        procs.append(draw(st.integers(1, pools[p].total)))
        dependant = j > 0 and draw(st.integers(0, 3)) == 0
        parent.append(draw(st.integers(0, j - 1)) if dependant else -1)
        think.append(draw(st.sampled_from([0.0, 0.0, 1.5])) if dependant else 0.0)
    submit.sort()  # (roots are released in id order: the kernel refuses time running back)
    models = None
    if draw(st.integers(0, 3)) == 0:  # moldable jobs: the loop calls time_factor
        models = tuple(draw(st.sampled_from(sorted(MODELS))) for _ in range(n))
    return KernelCase(
        pools=tuple(pools),
        submit=tuple(submit),
        run=tuple(run),
        requested=tuple(requested),
        procs=tuple(procs),
        target=tuple(target),
        parent=tuple(parent),
        think=tuple(think),
        models=models,
        attributes=draw(st.booleans()),
        actor=draw(st.sampled_from(["none", "none", "router", "listening"])),
        delay=draw(st.sampled_from([0.0, 0.0, 1.5])),
        kill_on_overrun=kill,
        traced=draw(st.integers(0, 4)) == 0,
    )


def check_case(case: KernelCase) -> None:
    with_c, with_python = both_loops(lambda: run_case(case))
    assert_same(with_c, with_python, "kernel")


@needs_c_loop
@settings(max_examples=60, deadline=None)
@given(case=kernel_cases())
def test_random_kernels_end_in_the_same_state_on_either_loop(case: KernelCase) -> None:
    """Random small runs built on the kernel itself: ties of submit times, kills over the
    requested time and t_max, sizes up to the pool, one to three node groups of different
    powers, any placement (random: a seeded draw per start), one or two pools, `Steps` and
    classic policies (preemptive ones too), dependants, moldable jobs, receive and release
    delays, per-job attributes, an actor in front that may listen (and reads the log of
    the pools' changes), the invariant checker. Both loops leave the same outcome and the
    same state: every column of the job table, the pools' nodes and views, the events
    pushed, and what the policies and actors were told, and when (a run that fails, as a
    policy may on such inputs, fails alike and leaves the same state)."""
    check_case(case)


@needs_c_loop
def test_the_policies_of_the_random_kernels_speak_both_protocols() -> None:
    """The random kernels mix the C loop's own case, `Steps` policies, with classic ones."""
    steps = {name for name, make in POLICIES.items() if step_of(make()) is not None}
    assert steps == {"fcfs", "easy", "recording-easy"}
