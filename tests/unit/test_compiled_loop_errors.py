"""Errors on both loops of the kernel (the C one of engine/_ckernel.c and `Kernel._loop`): a
policy's bad answers, livelocks, and exceptions of the code the loop calls come out of the C
loop as they come out of the Python one, with the same message and the same state behind
them (tests/loop_twins.py)."""

from __future__ import annotations

import dataclasses
import math
from array import array
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np
import pytest
from test_kernel import Chatty, specs  # (actors answering each other forever; jobs)

from loop_twins import (
    ClassicFcfs,
    assert_same,
    both_loops,
    both_loops_raise,
    kernel_state,
    needs_c_loop,
)
from schedlab.engine.decisions import Decision, Start, WakeAt
from schedlab.engine.durations import RIGID
from schedlab.engine.kernel import Kernel, KernelRun
from schedlab.engine.protocol import ClusterView, Policy, StepPolicy
from schedlab.errors import PolicyError
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy

# -- errors ---------------------------------------------------------------------------------------


# two jobs of 3 processors at 0, one of 1 at 1, on 4 processors
ERROR_JOBS = ((0.0, 5.0, 3), (0.0, 5.0, 3), (1.0, 5.0, 1))


class Scripted(StepPolicy):
    """A `Steps` policy whose answer is a given function of its step's arguments."""

    name: ClassVar[str] = "scripted"

    def __init__(self, answer: Callable[[float, int, int, list[int]], Any]) -> None:
        self.answer = answer

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        return self.answer(now, free, submitted, ended)


class Boom(Exception):
    """What the code a loop calls raises."""


def _then_boom(now: float, free: int, submitted: int, ended: list[int]) -> Iterator[int]:
    yield 0
    raise Boom(f"after one start at t={now}")


def _again_when_ended(now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
    return [0] if now == 0 or ended == [0] else []


BAD_ANSWERS: dict[str, tuple[Callable[..., Any], type[BaseException], str]] = {
    "no-such-job": (lambda now, free, n, ended: [n], PolicyError, "no such job"),
    "negative": (lambda now, free, n, ended: [-1], PolicyError, "no such job"),
    "beyond-64-bits": (lambda now, free, n, ended: [2**70], PolicyError, "no such job"),
    "twice": (lambda now, free, n, ended: [0, 0], PolicyError, "job is running"),
    "too-wide": (
        lambda now, free, n, ended: [0, 1],
        PolicyError,
        "needs 3 processors but only 1 are free",
    ),
    "ended-job": (_again_when_ended, PolicyError, "job is done"),
    "a-float": (lambda now, free, n, ended: [0.0], TypeError, ""),
    "a-string": (lambda now, free, n, ended: ["0"], TypeError, ""),
    "not-iterable": (lambda now, free, n, ended: None, TypeError, "not iterable"),
    "raises-midway": (_then_boom, Boom, "after one start at t=0.0"),
}


class ScriptedClassic:
    """A classic policy whose ``schedule`` answers a given function of what a step would
    get (the time, the free processors, the jobs submitted, those ended since)."""

    name: ClassVar[str] = "scripted-classic"

    def __init__(self, answer: Callable[[float, int, int, list[int]], Any]) -> None:
        self.answer = answer
        self.submitted = 0
        self.ended: list[int] = []

    def setup(self, view: ClusterView) -> None:
        self.submitted, self.ended = 0, []

    def on_submit(self, job: int) -> None:
        self.submitted = job + 1

    def on_finish(self, job: int) -> None:
        self.ended.append(job)

    def schedule(self, now: float, view: ClusterView) -> list[Decision]:
        ended, self.ended = self.ended, []
        return self.answer(now, view.free_procs, self.submitted, ended)


def as_starts(
    answer: Callable[[float, int, int, list[int]], Any],
) -> Callable[[float, int, int, list[int]], Any]:
    """A `Steps` answer as a classic policy's: each job number a `Start` (read lazily from
    an iterator, so that its error comes where the loop reads it; what is not iterable as
    it is)."""

    def decide(now: float, free: int, submitted: int, ended: list[int]) -> Any:
        starts = answer(now, free, submitted, ended)
        if isinstance(starts, list):
            return [Start(j) for j in starts]
        return starts if starts is None else (Start(j) for j in starts)

    return decide


class LateStart(Start):
    """Not a `Start` to the kernel, which looks decisions up by their exact type."""


BAD_DECISIONS: dict[str, tuple[Callable[..., Any], type[BaseException], str]] = {
    "other-size": (
        lambda now, free, n, ended: [Start(0, 2)],
        PolicyError,
        "a rigid job runs on its own 3 processors",
    ),
    "not-a-decision": (lambda now, free, n, ended: [("start", 0)], PolicyError, "not a decision"),
    "a-start-subclass": (lambda now, free, n, ended: [LateStart(0)], PolicyError, "decision"),
}
BAD_POLICIES = [
    *(
        pytest.param(Scripted, answer, expected, message, id=f"steps-{name}")
        for name, (answer, expected, message) in BAD_ANSWERS.items()
    ),
    *(
        pytest.param(ScriptedClassic, as_starts(answer), expected, message, id=f"classic-{name}")
        for name, (answer, expected, message) in BAD_ANSWERS.items()
    ),
    *(
        pytest.param(ScriptedClassic, answer, expected, message, id=f"classic-{name}")
        for name, (answer, expected, message) in BAD_DECISIONS.items()
    ),
]


@needs_c_loop
@pytest.mark.parametrize(("kind", "answer", "expected", "message"), BAD_POLICIES)
def test_a_bad_answer_of_a_policy_fails_the_same_on_either_loop(
    kind: Callable[[Callable[..., Any]], Policy],
    answer: Callable[..., Any],
    expected: type[BaseException],
    message: str,
) -> None:
    """A `Steps` policy, or a classic one answering `Start` decisions (whose plain starts
    the C loop makes itself too), that starts no such job (past the end, negative, beyond
    64 bits), a job twice, more processors than are free, an ended job, or answers what is
    not a job number or not a list, or raises while its answer is read; a classic one that
    starts a rigid job on another size, or answers what is not a decision: the same
    exception with the same message from either loop, and the state it leaves is the same
    (what was started before the bad start stays started, nothing of the bad one is
    applied)."""
    kernels: list[Kernel] = []

    def run() -> None:
        kernel = Kernel(jobs=specs(ERROR_JOBS), pools=[(PoolSpec.cluster(4), kind(answer))])
        kernels.append(kernel)
        kernel.run()

    from_c, _ = both_loops_raise(run, expected)
    assert message in str(from_c)
    assert_same(kernel_state(kernels[0]), kernel_state(kernels[1]), "state")


UNUSUAL_ANSWERS = [
    pytest.param(Scripted, lambda starts: [np.int64(j) for j in starts], id="numpy-ints"),
    pytest.param(Scripted, lambda starts: tuple(starts), id="tuple"),
    pytest.param(Scripted, lambda starts: iter(starts), id="iterator"),
    pytest.param(Scripted, lambda starts: array("q", starts), id="typed-array"),
    pytest.param(Scripted, lambda starts: [j == 1 for j in starts], id="bools"),
    pytest.param(
        ScriptedClassic, lambda starts: [Start(j, 1) for j in starts], id="start-own-size-given"
    ),
    pytest.param(
        ScriptedClassic, lambda starts: [Start(np.int64(j)) for j in starts], id="start-numpy"
    ),
    pytest.param(ScriptedClassic, lambda starts: (Start(j) for j in starts), id="generator"),
    pytest.param(
        ScriptedClassic,
        lambda starts: [WakeAt(0.0), *(Start(j) for j in starts), WakeAt(math.inf)],
        id="wakes-that-wake-nothing",
    ),
]


@needs_c_loop
@pytest.mark.parametrize(("kind", "answer"), UNUSUAL_ANSWERS)
def test_unusual_but_valid_answers_run_the_same(
    kind: Callable[[Callable[..., Any]], Policy], answer: Callable[[list[int]], Any]
) -> None:
    """An answer read by the C loop as Python reads it: job numbers that are numpy integers
    (not ints: the loop hands them to the Python method), a tuple, an iterator, a typed
    array, False and True for jobs 0 and 1; `Start` decisions with the job's own size given
    (not the C loop's plain start), of a numpy integer, from a generator, between wake-ups
    that wake nothing. Each gives the outcome of plain job numbers."""

    def run() -> KernelRun:
        known = [0]

        def decide(now: float, free: int, submitted: int, ended: list[int]) -> Any:
            starts = list(range(known[0], submitted))  # (every job fits as it arrives)
            known[0] = submitted
            return answer(starts)

        jobs = specs([(0.0, 3.0, 1), (1.0, 3.0, 1)])
        return Kernel(jobs=jobs, pools=[(PoolSpec.cluster(2), kind(decide))]).run()

    with_c, with_python = both_loops(run)
    assert_same(with_c, with_python)
    assert with_c.started_at.tolist() == [0.0, 1.0]
    assert with_c.finished_at.tolist() == [3.0, 4.0]


@needs_c_loop
def test_a_livelock_on_the_c_loops_own_path_is_the_same_error() -> None:
    """Jobs of zero run time on one processor, all at t=0: each start ends in the same
    instant and lets the next start, one round each, all in the C loop. With as many rounds
    allowed as the run needs both loops end it alike; with one fewer both raise the same
    livelock error."""
    jobs = specs([(0.0, 0.0, 1)] * 20)

    def run(max_rounds: int) -> KernelRun:
        kernel = Kernel(
            jobs=jobs, pools=[(PoolSpec.cluster(1), make_policy("fcfs"))], max_rounds=max_rounds
        )
        return kernel.run()

    with_c, with_python = both_loops(lambda: run(1000))
    assert_same(with_c, with_python)
    assert with_c.instants == 1 and with_c.rounds > 20  # (one instant)
    assert_same(*both_loops(lambda: run(with_c.rounds)))
    from_c, _ = both_loops_raise(lambda: run(with_c.rounds - 1), PolicyError)
    assert f"livelock at t=0.0: more than {with_c.rounds - 1} rounds" in str(from_c)


@needs_c_loop
def test_a_livelock_of_actors_is_the_same_error() -> None:
    """Two actors answering each other at zero delay (messages delivered by the C loop, the
    actors asked through Python): the same livelock error from either loop."""

    def run() -> None:
        Kernel(
            jobs=specs([(3.0, 1.0, 1)], target_actor=0),
            pools=[(PoolSpec.cluster(1), make_policy("fcfs"))],
            actors=[Chatty(1), Chatty(0)],
            max_rounds=40,
        ).run()

    from_c, _ = both_loops_raise(run, PolicyError)
    assert "livelock at t=3.0: more than 40 rounds" in str(from_c)


@dataclasses.dataclass
class Fragile:
    """A speed-up model that raises once armed (after the kernel read the workload)."""

    name: ClassVar[str] = "fragile"
    armed: bool = False

    def time_factor(self, procs: int) -> float:
        if self.armed:
            raise Boom(f"time_factor({procs})")
        return 1.0 / procs


class FailingFcfs(ClassicFcfs):
    """The classic FCFS above, raising in the hook named ``where`` at its job 2."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def on_submit(self, job: int) -> None:
        if self.where == "on_submit" and job == 2:
            raise Boom(f"on_submit({job})")
        super().on_submit(job)

    def on_finish(self, job: int) -> None:
        if self.where == "on_finish" and job == 2:
            raise Boom(f"on_finish({job})")
        super().on_finish(job)


class FailingObserver:
    """An observer that raises after the instant at t=4."""

    def after_step(self, now: float, kernel: Any) -> None:
        if now == 4.0:
            raise Boom(f"observer after_step at t={now}")

    def finish(self, kernel: Any) -> None:
        pass


def _raising_kernel(where: str) -> Kernel:
    jobs = [(0.0, 2.0, 1), (1.0, 2.0, 2), (2.0, 1.0, 1), (4.0, 3.0, 1), (6.0, 1.0, 2)]
    if where == "time_factor":
        fragile = Fragile()
        made = specs(jobs, speedup=[RIGID, RIGID, RIGID, fragile, RIGID])
        kernel = Kernel(jobs=made, pools=[(PoolSpec.cluster(2), make_policy("easy"))])
        fragile.armed = True
        return kernel
    if where in ("step", "schedule"):

        def answer(now: float, free: int, submitted: int, ended: list[int]) -> list[Any]:
            if now == 4.0:
                raise Boom(f"{where} at t={now}")
            return []

        policy: Policy = Scripted(answer) if where == "step" else ScriptedClassic(answer)
    elif where in ("on_submit", "on_finish"):
        policy = FailingFcfs(where)
    else:
        policy = make_policy("fcfs")
    observers = [FailingObserver()] if where == "observer" else []
    return Kernel(jobs=specs(jobs), pools=[(PoolSpec.cluster(2), policy)], observers=observers)


@needs_c_loop
@pytest.mark.parametrize(
    "where", ["step", "schedule", "on_submit", "on_finish", "time_factor", "observer"]
)
def test_an_exception_in_code_the_loop_calls_comes_out_unchanged(where: str) -> None:
    """An exception raised by a policy's step, a classic policy's schedule, on_submit or
    on_finish (which the C loop calls itself), a moldable job's speed-up model (its admission and
    start in C) or an observer leaves the C loop as it is: the same class, the same message,
    nothing chained to it, and the same state behind it as the Python loop leaves."""
    kernels: list[Kernel] = []

    def run() -> None:
        kernel = _raising_kernel(where)
        kernels.append(kernel)
        kernel.run()

    from_c, _ = both_loops_raise(run, Boom)
    assert where in str(from_c)
    assert_same(kernel_state(kernels[0]), kernel_state(kernels[1]), "state")
