"""Centralized push meta-schedulers (paper 001, SPEC 5): least known depth through an
information system refreshed lazily at k x Δt and frozen in between, random and round-robin
baselines. Hand-computed scenarios: every run has the kernel's checker on.

Unless a test says otherwise: pools of one node of power 1 (a job of work w runs w s), FCFS,
no t_max, no service times, no message time; every job goes to the meta-scheduler.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.engine.checker import KernelChecker
from schedlab.engine.kernel import JobSpecs, Kernel, KernelRun
from schedlab.errors import ConfigError, PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.push import CentralizedPush, PushParams, PushRandom, PushRoundRobin
from schedlab.grid.registry import (
    MetaScheduler,
    available_meta_schedulers,
    make_meta_scheduler,
    params_of,
)
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy


def pools(nodes: Sequence[int], **kw: Any) -> list[tuple[PoolSpec, Any]]:
    out = []
    for i, n in enumerate(nodes):
        policy = make_policy("fcfs")
        out.append((PoolSpec(name=f"q{i}", groups=((1.0, n),), policy=policy, **kw), policy))
    return out


def jobs(submit: Sequence[float], work: Sequence[float], procs: Sequence[int] = ()) -> JobSpecs:
    return JobSpecs.rigid(
        submit_at=submit,
        run_time=work,
        requested_time=work,
        procs=list(procs) or [1] * len(submit),
        target_actor=0,
        attributes={"org": [0] * len(submit)},
    )


def run(
    meta: MetaScheduler,
    specs: JobSpecs,
    platform: list[tuple[PoolSpec, Any]],
    *,
    sites: Sequence[int] | None = None,
    message_time: Sequence[float] | None = None,
    seed: int = 0,
) -> tuple[Kernel, KernelRun]:
    n = len(platform)
    sites = list(sites) if sites is not None else list(range(n))
    context = GridContext(
        pool_names=tuple(spec.name for spec, _ in platform),
        pool_sites=tuple(sites),
        site_names=tuple(f"site{s}" for s in range(max(sites) + 1)),
        message_time=tuple(message_time) if message_time is not None else (0.0,) * n,
        seed=seed,
    )
    checker = KernelChecker()
    kernel = Kernel(jobs=specs, pools=platform, actors=meta.actors(context), tracer=checker)
    result = kernel.run()
    checker.audit(kernel)
    return kernel, result


def test_registered_and_parameters_checked() -> None:
    """The three push meta-schedulers are registered; refresh is checked by type and range."""
    assert {"push", "push_random", "push_round_robin"} <= set(available_meta_schedulers())
    meta = make_meta_scheduler("push", refresh=5)
    assert isinstance(meta, CentralizedPush)
    assert params_of(meta) == {"refresh": 5, "tie": "site"}
    assert meta.counters() == {} and meta.request_times() == {}
    with pytest.raises(ConfigError):
        make_meta_scheduler("push", refresh=-1.0)
    with pytest.raises(ConfigError):
        make_meta_scheduler("push", period=1.0)
    with pytest.raises(ConfigError):
        PushParams(refresh=math.inf)
    with pytest.raises(ConfigError, match="site, free"):
        make_meta_scheduler("push", tie="fastest")


def test_exact_depth_ties_to_lowest_pool() -> None:
    """Δt = 0: each job goes to the smallest exact depth (waiting jobs only), ties to the
    lowest site then pool.

    Works 100, except job 3 (10). Depth = jobs waiting (running ones do not count):
      t=0 j0: A 0, B 0 -> A (tie), starts 0, ends 100
      t=1 j1: A 0, B 0 -> A (tie), waits                     A = 1
      t=2 j2: A 1, B 0 -> B, starts 2, ends 102
      t=3 j3: A 1, B 0 -> B, waits                            B = 1
      t=4 j4: A 1, B 1 -> A (tie), waits                     A = 2
      t=5 j5: A 2, B 1 -> B                                   B = 2
    A runs j0 0-100, j1 100-200, j4 200-300; B runs j2 2-102, j3 102-112, j5 112-212.
    """
    specs = jobs([0, 1, 2, 3, 4, 5], [100, 100, 100, 10, 100, 100])
    _, result = run(CentralizedPush(), specs, pools([1, 1]))
    assert result.pool.tolist() == [0, 0, 1, 1, 0, 1]
    assert result.started_at.tolist() == [0, 100, 2, 102, 200, 112]
    assert result.finished_at.tolist() == [100, 200, 102, 112, 300, 212]


def test_ties_lowest_site_then_lowest_queue() -> None:
    """Pools q0 (site 1), q1 (site 0), q2 (site 0); works 100.
    t=0 j0: all 0 -> q1 (site 0, lower pool than q2), starts
    t=1 j1: all 0 -> q1 again (j0 runs, nothing waits), waits   q1 = 1
    t=2 j2: q0 0, q1 1, q2 0 -> q2 (site 0 before q0's site 1)
    t=3 j3: q0 0, q1 1, q2 0 (j2 runs) -> q2, waits              q2 = 1
    t=4 j4: q0 0 -> q0
    """
    specs = jobs([0, 1, 2, 3, 4], [100] * 5)
    _, result = run(CentralizedPush(), specs, pools([1, 1, 1]), sites=[1, 0, 0])
    assert result.pool.tolist() == [1, 1, 2, 2, 0]
    assert result.started_at.tolist() == [0, 100, 2, 102, 4]


def test_ties_by_free_processors() -> None:
    """tie = "free": among equal depths, the most free processors, then the lowest site.
    The jobs of test_exact_depth_ties_to_lowest_pool:
      t=0 j0: depths 0 0, free 1 1 -> A, starts 0, ends 100
      t=1 j1: depths 0 0, free 0 1 -> B (the site rule said A), starts 1, ends 101
      t=2 j2: depths 0 0, free 0 0 -> A, waits                   A = 1
      t=3 j3: A 1, B 0 -> B, waits                                B = 1
      t=4 j4: A 1, B 1, free 0 0 -> A                             A = 2
      t=5 j5: A 2, B 1 -> B
    A runs j0 0-100, j2 100-200, j4 200-300; B runs j1 1-101, j3 101-111, j5 111-211.
    """
    specs = jobs([0, 1, 2, 3, 4, 5], [100, 100, 100, 10, 100, 100])
    _, result = run(make_meta_scheduler("push", tie="free"), specs, pools([1, 1]))
    assert result.pool.tolist() == [0, 1, 0, 1, 0, 1]
    assert result.started_at.tolist() == [0, 1, 100, 101, 200, 111]


def test_free_processors_are_frozen_with_the_depths() -> None:
    """Δt = 10: the copy read at t=0 (free 1 1) still says A is free at t=1, so j1 goes to A
    and waits; read exactly (Δt = 0) it goes to B."""
    specs = jobs([0, 1], [100, 100])
    _, frozen = run(make_meta_scheduler("push", tie="free", refresh=10), specs, pools([1, 1]))
    assert frozen.pool.tolist() == [0, 0]
    assert frozen.started_at.tolist() == [0, 100]
    _, exact = run(make_meta_scheduler("push", tie="free"), specs, pools([1, 1]))
    assert exact.pool.tolist() == [0, 1]


def test_received_jobs_count_in_transit_do_not_and_dispatch_takes_message_time() -> None:
    """Message times 5 s to both pools; works 100; Δt = 0.
      t=0 j0 -> q0 (tie); arrives at 5 (the dispatch takes q0's message time), starts 5
      t=1 j1: j0 is in transit, not counted: q0 0, q1 0 -> q0; arrives at 6, waits
      t=6 j2: j1 arrived at this instant (job events before the actor's pass): q0 1 -> q1,
              arrives 11, starts 11.
    With mu_rec = 3 (second run), received jobs not admitted yet count as well: j0 arrives
    at 5 and is admitted at 8, j1 arrives at 6 (admitted 9): at t=6 both are received, q0's
    depth is 2 -> j2 to q1, where it arrives at 11 and is admitted at 14.
    """
    specs = jobs([0, 1, 6], [100, 100, 100])
    _, result = run(CentralizedPush(), specs, pools([1, 1]), message_time=[5.0, 5.0])
    assert result.pool.tolist() == [0, 0, 1]
    assert result.admitted_at.tolist() == [5, 6, 11]
    assert result.started_at.tolist() == [5, 105, 11]

    specs = jobs([0, 1, 6], [100, 100, 100])
    _, result = run(CentralizedPush(), specs, pools([1, 1], mu_rec=3.0), message_time=[5, 5])
    assert result.pool.tolist() == [0, 0, 1]
    assert result.admitted_at.tolist() == [8, 9, 14]


def test_same_instant_arrivals_see_each_other_when_exact() -> None:
    """Three jobs released at t=0, no transfer delay, Δt = 0: each dispatch reaches its
    queue within the pass, and the exact depth counts it: q0, q1, q0 (ties by pool)."""
    specs = jobs([0, 0, 0], [100, 100, 100])
    meta = CentralizedPush()
    _, result = run(meta, specs, pools([1, 1]))
    assert result.pool.tolist() == [0, 1, 0]


def test_frozen_snapshot_sends_a_burst_to_one_pool_and_refreshes_lazily() -> None:
    """Δt = 10: the copy is read at the first arrival of each period and never updated after a
    dispatch (Figure 8's plateau). Works 100.
      t=0  (period 0) read: q0 0, q1 0 -> j0 q0; t=1, 2, 3: the same copy -> j1-j3 all to q0
      t=10 (period 1) read: q0 3 waiting, q1 0 -> j4 q1; t=11: same copy -> j5 q1
      no arrival in period 2 [20, 30): no read at 20 (lazy)
      t=35 (period 3) read: q0 3 (j0 ends at 100), q1 1 (j4 runs, j5 waits) -> j6 q1
    The same jobs with Δt = 0 spread over both pools from t=1 on.
    """
    submit = [0, 1, 2, 3, 10, 11, 35]
    meta = CentralizedPush(PushParams(refresh=10.0))
    _, result = run(meta, jobs(submit, [100] * 7), pools([1, 1]))
    assert result.pool.tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert meta.actor is not None
    assert meta.actor.refreshes == [0.0, 10.0, 35.0]  # type: ignore[attr-defined]
    assert result.started_at.tolist() == [0, 100, 200, 300, 10, 110, 210]

    _, exact = run(CentralizedPush(), jobs(submit, [100] * 7), pools([1, 1]))
    assert exact.pool.tolist() == [0, 0, 1, 1, 0, 1, 0]


def test_refresh_boundary_is_inclusive() -> None:
    """An arrival exactly at k x Δt sees a new copy (the refresh at that instant), even with a
    period that is not a binary fraction (0.1 x 3 = 0.30000000000000004)."""
    meta = CentralizedPush(PushParams(refresh=0.1))
    run(meta, jobs([0.0, 0.15, 0.3], [100] * 3), pools([1, 1]))
    assert meta.actor is not None
    assert meta.actor.refreshes == [0.0, 0.15, 0.3]  # type: ignore[attr-defined]


def test_jobs_never_go_to_a_pool_too_small() -> None:
    """q0 has 1 node, q1 2: a 2-processor job goes to q1 even though q0 looks emptier; a
    3-processor job fits no pool and is refused with the job named."""
    specs = jobs([0, 1, 2], [100, 100, 100], procs=[1, 1, 2])
    _, result = run(CentralizedPush(), specs, pools([1, 2]))
    # j0 -> q0 (tie); j1 -> q0 (nothing waits); q0 1, q1 0 -> j2 q1 anyway
    assert result.pool.tolist() == [0, 0, 1]
    specs = jobs([0, 1, 2], [100, 100, 100], procs=[1, 2, 2])
    for meta in (CentralizedPush(), PushRandom(), PushRoundRobin()):
        _, result = run(meta, specs, pools([1, 2]))
        assert result.pool.tolist()[1:] == [1, 1]
    with pytest.raises(PolicyError, match="job 0 needs 3 processors"):
        run(CentralizedPush(), jobs([0], [10], procs=[3]), pools([1, 2]))


def test_round_robin_cycles_and_skips_small_pools() -> None:
    """Pools of 1, 2 and 1 nodes; sizes 1, 1, 1, 2, 1, 1: q0, q1, q2, then the 2-processor
    job's turn is q0 (too small) -> q1, and the turn goes on after it: q2, q0."""
    specs = jobs([0, 1, 2, 3, 4, 5], [10] * 6, procs=[1, 1, 1, 2, 1, 1])
    _, result = run(PushRoundRobin(), specs, pools([1, 2, 1]))
    assert result.pool.tolist() == [0, 1, 2, 1, 2, 0]


def test_random_is_seeded_by_the_context() -> None:
    """The same seed gives the same choices (those of numpy's generator for that seed);
    another seed others; both pools are used."""
    specs = jobs(list(range(40)), [5] * 40)
    _, a = run(PushRandom(), specs, pools([1, 1]), seed=7)
    _, b = run(PushRandom(), specs, pools([1, 1]), seed=7)
    _, c = run(PushRandom(), specs, pools([1, 1]), seed=8)
    assert a.pool.tolist() == b.pool.tolist()
    assert a.pool.tolist() != c.pool.tolist()
    assert set(a.pool.tolist()) == {0, 1}
    expected = np.random.default_rng(7).integers(2, size=40)
    assert a.pool.tolist() == expected.tolist()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    nodes=st.lists(st.sampled_from([1, 2, 3, 5]), min_size=1, max_size=6),
    arrivals=st.lists(
        st.tuples(
            st.integers(0, 30), st.integers(1, 40), st.integers(1, 5), st.booleans()
        ),
        min_size=1,
        max_size=40,
    ),
    delays=st.lists(st.sampled_from([0.0, 0.0, 2.0, 7.5]), min_size=6, max_size=6),
    mu_rec=st.sampled_from([0.0, 1.0, 4.0]),
    mu_env=st.sampled_from([0.0, 2.0]),
    tie=st.sampled_from(["site", "free"]),
    seed=st.integers(0, 3),
)
def test_exact_least_depth_heaps_choose_the_plain_minimum(
    nodes: list[int],
    arrivals: list[tuple[int, int, int, bool]],
    delays: list[float],
    mu_rec: float,
    mu_env: float,
    tie: str,
    seed: int,
) -> None:
    """Δt = 0: the heaps fed by the kernel's log of changed pools pick, at every decision,
    the pool the minimum of (depth, [most free processors,] site, pool) over the eligible
    pools reads from every pool (pools of several sizes, same-instant bursts, transfer,
    receive and release delays, sites shared by several pools)."""
    n = len(nodes)
    jobs_ = sorted(arrivals)
    widest = max(nodes)
    specs = jobs(
        [float(t) for t, _, _, _ in jobs_],
        [float(w) for _, w, _, _ in jobs_],
        [min(q, widest) for _, _, q, _ in jobs_],
    )
    seen: list[tuple[int, int]] = []

    class Checked(CentralizedPush):  # type: ignore[misc]
        def actors(self, context: GridContext) -> list[Any]:
            (actor,) = super().actors(context)
            least = actor._least

            def both(job: int, pools_: list[int]) -> int:
                chosen = least(job, pools_)
                states = actor._platform.pools
                depth = [s.queued + s.received + e for s, e in zip(states, actor._extra)]
                free = [s.free_total if tie == "free" else 0 for s in states]
                expected = min(pools_, key=lambda p: (depth[p], -free[p], actor._order[p]))
                assert chosen == expected, (job, chosen, expected, depth)
                seen.append((job, chosen))
                return chosen

            actor._least = both
            return [actor]

    sites = [i // 2 for i in range(n)] if seed % 2 else list(range(n))
    meta = Checked(PushParams(tie=tie))
    platform = pools(nodes, mu_rec=mu_rec, mu_env=mu_env)
    run(meta, specs, platform, sites=sites, message_time=delays[:n])
    assert len(seen) == len(jobs_)
