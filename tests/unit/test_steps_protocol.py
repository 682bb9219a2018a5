"""The fast path's lean protocol (`engine.protocol.Steps`): one `step` per instant with the
instant's ends and arrivals, starts answered as job indices, no call where nothing can start;
and the classic protocol given to such a policy by `StepPolicy`, so both engines run it."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_engine import workload

import schedlab
from schedlab.engine import ClusterView, Decision
from schedlab.engine.checker import CheckedPolicy
from schedlab.engine.protocol import StepPolicy, step_of
from schedlab.errors import PolicyError
from schedlab.schedulers import make_policy
from schedlab.schedulers.easy import EasyBackfilling
from strategies import SmallWorkload, small_workloads


class GreedySteps(StepPolicy):
    """Starts waiting jobs in index order while they fit; logs every call."""

    name: ClassVar[str] = "greedy-steps"

    def setup(self, view: ClusterView) -> None:
        super().setup(view)
        self.procs = view.procs
        self.waiting: list[int] = []
        self.known = 0
        self.calls: list[tuple[float, int, int, list[int]]] = []

    def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
        self.calls.append((now, free, submitted, list(ended)))
        self.waiting.extend(range(self.known, submitted))
        self.known = submitted
        out, rest = [], []
        for j in self.waiting:
            if self.procs[j] <= free:
                free -= self.procs[j]
                out.append(j)
            else:
                rest.append(j)
        self.waiting = rest
        return out


def test_step_gets_ends_and_arrivals_and_is_skipped_when_nothing_can_start() -> None:
    # 2 processors; job 0 takes both until 10; jobs 1 and 2 arrive at 3 and 5 (machine full:
    # no call), job 3 at 10 with the end of job 0
    jobs = [(0, 10, 10, 2), (3, 1, 1, 1), (5, 1, 1, 1), (10, 1, 1, 2)]
    policy = GreedySteps()
    result = schedlab.simulate(workload(jobs, 2), policy)
    assert policy.calls == [
        (0.0, 2, 1, []),
        (10.0, 2, 4, [0]),  # none at 3 and 5: no job ended and no processor is free
        (11.0, 2, 4, [1, 2]),
        (12.0, 2, 4, [3]),
    ]
    assert result.jobs["started_at"].tolist() == [0.0, 10.0, 10.0, 11.0]


def test_the_kernel_calls_step_as_the_fast_path_does() -> None:
    """A one-pool kernel run gives a `Steps` policy the same calls as the fast path: the
    ends and the count of jobs in the pool's view, nothing where nothing can start."""
    jobs = [(0, 10, 10, 2), (3, 1, 1, 1), (5, 1, 1, 1), (10, 1, 1, 2)]
    fast, general = GreedySteps(), GreedySteps()
    schedlab.simulate(workload(jobs, 2), fast)
    result = schedlab.simulate(workload(jobs, 2), general, engine="general")
    assert general.calls == fast.calls and len(fast.calls) == 4
    assert result.jobs["started_at"].tolist() == [0.0, 10.0, 10.0, 11.0]


def test_the_classic_protocol_calls_step_at_every_instant() -> None:
    jobs = [(0, 10, 10, 2), (3, 1, 1, 1), (5, 1, 1, 1), (10, 1, 1, 2)]
    policy = GreedySteps()
    # the invariant checker wraps the policy: the engine then speaks the classic protocol
    result = schedlab.simulate(workload(jobs, 2), policy, check=True)
    assert [c[0] for c in policy.calls] == [0.0, 3.0, 5.0, 10.0, 11.0, 12.0]
    assert policy.calls[1] == (3.0, 0, 2, [])
    assert result.jobs["started_at"].tolist() == [0.0, 10.0, 10.0, 11.0]


@pytest.mark.parametrize(
    "answer, message",
    [
        ([0, 0], "job is running"),
        ([2], "job is pending"),
        ([0, 1], "needs 3 processors"),
        ([-1], r"Start\(job -1\).*no such job"),
        ([3], r"Start\(job 3\).*no such job"),
    ],
)
def test_a_bad_step_answer_is_a_policy_error(answer: list[int], message: str) -> None:
    class Bad(GreedySteps):
        def step(self, now: float, free: int, submitted: int, ended: list[int]) -> list[int]:
            return list(answer) if now == 0.0 else []

    jobs = [(0, 1, 1, 1), (0, 1, 1, 3), (5, 1, 1, 1)]  # job 2 arrives at 5
    with pytest.raises(PolicyError, match=message):
        schedlab.simulate(workload(jobs, 3), Bad())


def test_step_of_takes_the_class_step_only() -> None:
    easy = make_policy("easy")
    assert step_of(easy) is not None
    # a forwarding proxy is not a Steps policy: its own bookkeeping must run
    assert step_of(CheckedPolicy(easy)) is None

    class Overridden(EasyBackfilling):
        def schedule(self, now: float, view: ClusterView) -> list[Decision]:
            return super().schedule(now, view)

    assert step_of(Overridden()) is None  # the override is what the subclass means
    assert step_of(make_policy("conservative")) is None  # the classic protocol only


@pytest.mark.parametrize("policy", ["fcfs", "easy"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=small_workloads(max_jobs=60, max_procs=8))
def test_step_and_classic_protocols_agree(policy: str, w: SmallWorkload) -> None:
    """The fast path's `step` loop, the fast path's classic loop (under the checker), the
    kernel's `step` calls and the kernel's classic calls (through `StepPolicy`, behind a
    forwarding proxy) start and end every job at the same time."""
    wl = w.workload()
    runs: list[Any] = [
        schedlab.simulate(wl, policy),
        schedlab.simulate(wl, policy, check=True),
        schedlab.simulate(wl, policy, engine="general"),
        schedlab.simulate(wl, CheckedPolicy(make_policy(policy)), engine="general"),
    ]
    for other in runs[1:]:
        for column in ("started_at", "finished_at", "killed"):
            np.testing.assert_array_equal(
                runs[0].jobs[column].to_numpy(), other.jobs[column].to_numpy()
            )
