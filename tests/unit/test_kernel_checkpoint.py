"""Checkpoint overhead in the kernel (paper 003, SPEC 6): ``Suspend(job, overhead=c)`` and
``Evict(job, overhead=c)`` keep the work done and make the next restart cost c seconds
without work, wherever it happens. Hand-computed timelines, the checker on (work conserved
net of the overhead)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from redispatch import Redispatch
from schedlab.engine.checker import KernelChecker
from schedlab.engine.decisions import Evict, Start, Suspend, WakeAt
from schedlab.engine.kernel import JobSpecs, Kernel, KernelRun
from schedlab.engine.protocol import ClusterView
from schedlab.errors import PolicyError
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy


class Scripted:
    """Returns the decisions a test wrote for each instant (and wakes itself for them)."""

    name: ClassVar[str] = "scripted"

    def __init__(self, script: dict[float, list[Any]]) -> None:
        self.script = script

    def setup(self, view: ClusterView) -> None:
        self.first = True

    def on_submit(self, job: int) -> None:
        pass

    def on_finish(self, job: int) -> None:
        pass

    def schedule(self, now: float, view: ClusterView) -> list[Any]:
        out: list[Any] = []
        if self.first:
            self.first = False
            out.extend(WakeAt(t) for t in self.script if t > now)
        out.extend(self.script.pop(now, []))
        return out


def jobs(works: list[float], **kw: Any) -> JobSpecs:
    return JobSpecs.rigid(
        submit_at=[0.0] * len(works),
        run_time=works,
        requested_time=[w * 10 for w in works],
        procs=[1] * len(works),
        **kw,
    )


def one_pool(works: list[float], script: dict[float, list[Any]]) -> KernelRun:
    checker = KernelChecker()
    kernel = Kernel(
        jobs=jobs(works), pools=[(PoolSpec.cluster(1), Scripted(script))], tracer=checker
    )
    result = kernel.run()
    checker.audit(kernel)
    return result


def test_a_checkpointed_job_pays_the_overhead_once_at_restart() -> None:
    """Job 0 (100 s) runs 0-10, is suspended with a 5 s checkpoint overhead while job 1
    (10 s) runs 10-20, restarts at 20: 20-25 overhead, 90 s of work: ends at 115."""
    result = one_pool(
        [100, 10],
        {0: [Start(0)], 10: [Suspend(0, True, 5.0), Start(1)], 20: [Start(0)]},
    )
    assert result.finished_at.tolist() == [115.0, 20.0]
    assert result.overhead_time.tolist() == [5.0, 0.0]
    assert result.preemptions.tolist() == [1, 0]
    assert result.wasted_time.tolist() == [0.0, 0.0]


def test_a_restart_stopped_during_its_overhead_pays_the_rest_later() -> None:
    """Restart at 20 (5 s overhead), stopped at 22 (plain suspend) while job 2 (3 s) runs:
    3 s still to pay at 25, work from 28, 90 s left: ends at 118; 5 s of overhead in all."""
    result = one_pool(
        [100, 10, 3],
        {
            0: [Start(0)],
            10: [Suspend(0, True, 5.0), Start(1)],
            20: [Start(0)],
            22: [Suspend(0), Start(2)],
            25: [Start(0)],
        },
    )
    assert result.finished_at.tolist() == [118.0, 20.0, 25.0]
    assert result.overhead_time.tolist() == [5.0, 0.0, 0.0]


def test_a_requeue_restarts_from_scratch_without_overhead() -> None:
    """Checkpointed at 10 (5 s), restarted at 20 (overhead to 25), requeued at 30: the
    attempt's 20 s are lost; restarted at 40 from scratch with no overhead: ends at 140."""
    result = one_pool(
        [100, 10, 10],
        {
            0: [Start(0)],
            10: [Suspend(0, True, 5.0), Start(1)],
            20: [Start(0)],
            30: [Suspend(0, False, 5.0), Start(2)],
            40: [Start(0)],
        },
    )
    assert result.finished_at.tolist() == [140.0, 20.0, 40.0]
    assert result.overhead_time.tolist() == [5.0, 0.0, 0.0]
    assert result.wasted_time.tolist() == [20.0, 0.0, 0.0]


def test_a_negative_overhead_is_a_policy_error() -> None:
    with pytest.raises(PolicyError, match="overhead"):
        one_pool([100, 10], {0: [Start(0)], 10: [Suspend(0, True, -1.0), Start(1)]})


def test_an_evicted_job_restarts_elsewhere_with_its_work_and_the_overhead() -> None:
    """Job 0 (100 work) on pool 0 (power 1) 0-10, evicted with a 5 s overhead, restarted at
    once on pool 1 (power 2): 10-15 overhead, 90 work / 2 = 45 s: ends at 60."""
    checker = KernelChecker()
    fast = PoolSpec(name="fast", groups=((2.0, 1),))
    kernel = Kernel(
        jobs=jobs([100], target_actor=0),
        pools=[
            (PoolSpec.cluster(1), Scripted({0: [Start(0)], 10: [Evict(0, 5.0)]})),
            (fast, make_policy("fcfs")),
        ],
        actors=[Redispatch()],
        tracer=checker,
    )
    result = kernel.run()
    checker.audit(kernel)
    assert result.finished_at.tolist() == [60.0]
    assert result.overhead_time.tolist() == [5.0]
    assert result.evictions.tolist() == [1]
    assert result.pool.tolist() == [1]
    assert result.node_power.tolist() == [2.0]
