"""DIRAC pull meta-schedulers (paper 001, SPEC 5): the task queue's job classes and FRFS
matcher, static agents (ε, one outstanding request, retry, re-evaluation on the starts and
ends of their queue) and pilots (simple, filling, wasted, t_max, the probe readings), with the
matcher's requests counted by kind. Hand-computed scenarios; every run has the kernel's
checker on.

Unless a test says otherwise: FCFS pools, no t_max, no service times, no message time,
ε = 0.3, retry = 30 s (``R30``; the default is 60 s); every global job goes to actor 0 with
organisation 0. With no message time a request and its reply take no time but one kernel
round each, so "t=0" below is a sequence of rounds at the same instant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from schedlab.engine.checker import KernelChecker
from schedlab.engine.kernel import JobSpecs, Kernel, KernelRun
from schedlab.errors import ConfigError, PolicyError
from schedlab.grid.context import GridContext
from schedlab.grid.dirac import (
    DiracParams,
    PilotFilling,
    PilotParams,
    PilotSimple,
    Probe,
    StaticAgents,
    TaskQueue,
)
from schedlab.grid.registry import (
    MetaScheduler,
    available_meta_schedulers,
    make_meta_scheduler,
    params_of,
)
from schedlab.platform.pool import PoolSpec
from schedlab.schedulers import make_policy

R30 = DiracParams(retry=30.0)


def pools(nodes: Sequence[int], power: float = 1.0, **kw: Any) -> list[tuple[PoolSpec, Any]]:
    out = []
    for i, n in enumerate(nodes):
        policy = make_policy("fcfs")
        out.append((PoolSpec(name=f"q{i}", groups=((power, n),), policy=policy, **kw), policy))
    return out


def jobs(
    submit: Sequence[float],
    work: Sequence[float],
    procs: Sequence[int] = (),
    org: Sequence[int] = (),
    local: Sequence[int] = (),
) -> JobSpecs:
    """Global jobs (to actor 0), except those listed in ``local`` (straight to pool 0)."""
    specs = JobSpecs.rigid(
        submit_at=submit,
        run_time=work,
        requested_time=work,
        procs=list(procs) or [1] * len(submit),
        target_actor=0,
        attributes={"org": list(org) or [0] * len(submit)},
    )
    for j in local:
        specs.target_actor[j] = -1
        specs.target_pool[j] = 0
    return specs


def run(
    meta: MetaScheduler,
    specs: JobSpecs,
    platform: list[tuple[PoolSpec, Any]],
    *,
    message_time: Sequence[float] | None = None,
    seed: int = 0,
) -> tuple[Kernel, KernelRun]:
    n = len(platform)
    context = GridContext(
        pool_names=tuple(spec.name for spec, _ in platform),
        pool_sites=tuple(range(n)),
        site_names=tuple(f"site{i}" for i in range(n)),
        message_time=tuple(message_time) if message_time is not None else (0.0,) * n,
        seed=seed,
    )
    checker = KernelChecker()
    kernel = Kernel(jobs=specs, pools=platform, actors=meta.actors(context), tracer=checker)
    result = kernel.run()
    checker.audit(kernel)
    return kernel, result


def check_pilots(kernel: Kernel, result: KernelRun) -> None:
    """Pilots never run past their pool's t_max; payloads run inside their pilot's life."""
    for j in range(kernel.n, len(kernel.state)):  # the spawned pilots
        t_max = kernel.pools[int(result.pool[j])].t_max
        assert result.finished_at[j] - result.started_at[j] <= t_max + 1e-9
    for j in range(kernel.n):
        host = int(result.host[j])
        if host >= 0:
            assert result.started_at[host] <= result.started_at[j]
            assert result.finished_at[j] <= result.finished_at[host]


# -- registry, parameters, task queue -------------------------------------------------------


def test_registered_and_parameters_checked() -> None:
    """static, pilot_simple and pilot_filling are registered with ε and retry checked; the
    counters have every kind even before a run."""
    assert {"static", "pilot_simple", "pilot_filling"} <= set(available_meta_schedulers())
    meta = make_meta_scheduler("pilot_filling", epsilon=0.5, retry=10)
    assert isinstance(meta, PilotFilling)
    assert params_of(meta) == {"epsilon": 0.5, "retry": 10, "jitter": 0.0, "probe": "unclaimed"}
    assert params_of(StaticAgents()) == {"epsilon": 0.3, "retry": 60.0, "jitter": 0.0}
    assert params_of(PilotSimple(R30)) == {
        "epsilon": 0.3,
        "retry": 30.0,
        "jitter": 0.0,
        "probe": "unclaimed",
    }
    assert params_of(make_meta_scheduler("pilot_simple", probe="literal"))["probe"] == "literal"
    for bad_probe in ("claimed", 1):
        with pytest.raises(ConfigError):
            make_meta_scheduler("pilot_simple", probe=bad_probe)
    with pytest.raises(ConfigError):
        make_meta_scheduler("static", probe="literal")  # static agents do not probe
    assert StaticAgents().counters() == {
        "matcher_requests": 0,
        "matcher_requests_agent": 0,
        "matcher_requests_first_pull": 0,
        "matcher_requests_refill": 0,
        "pilots": 0,
        "wasted_pilots": 0,
    }
    bad_params: list[dict[str, Any]] = [
        {"epsilon": 0},
        {"retry": -1.0},
        {"retry": math.inf},
        {"jitter": 1.0},
        {"eps": 1.0},
    ]
    for bad in bad_params:
        with pytest.raises(ConfigError):
            make_meta_scheduler("static", **bad)
    with pytest.raises(ConfigError):
        DiracParams(retry=0.0)


def test_task_queue_frfs_across_classes_fifo_within() -> None:
    """Classes in creation order, FIFO inside; the first class whose head fits is served; an
    emptied class is deleted and made anew at the end."""
    tq = TaskQueue()
    for job, key in [(0, (2, 0)), (1, (1, 0)), (2, (2, 0)), (3, (1, 1)), (4, (1, 0))]:
        tq.add(job, key)
    assert list(tq.classes()) == [((2, 0), [0, 2]), ((1, 0), [1, 4]), ((1, 1), [3])]
    small = {1, 3, 4}  # the one-processor jobs
    found = tq.first(lambda j: j in small)
    assert found == ((1, 0), 1)  # class (2, 0) comes first but its head does not fit
    assert tq.take((1, 0)) == 1 and tq.take((1, 0)) == 4
    assert tq.first(lambda j: j in small) == ((1, 1), 3)
    tq.add(5, (1, 0))  # (1, 0) was emptied: it is made anew, last
    assert [k for k, _ in tq.classes()] == [(2, 0), (1, 1), (1, 0)]
    assert len(tq) == 4
    tq.put_back(4, (1, 0))
    assert list(tq.classes())[-1] == ((1, 0), [4, 5])
    assert tq.first(lambda j: False) is None


# -- static agents --------------------------------------------------------------------------


def test_static_one_outstanding_request_and_epsilon() -> None:
    """One pool of 1 node (ε x nodes = 0.3: the agent asks only while nothing waits), message
    time 1 s, four jobs of work 10 released at 0.
      t=0 ask -> matcher at 1 gives j0 -> reply at 2, j0 submitted, starts 2 (ends 12)
      t=2 j0 started: depth 0 -> ask -> j1 at 3 -> reply at 4: j1 waits (depth 1: no ask)
      t=12 j0 ends, j1 starts: ask -> j2 at 13, submitted at 14, waits; j1 ends 22
      t=22 j2 starts: ask -> j3 at 23, submitted at 24; starts 32, ends 42
      t=32 j3 starts: the task queue is empty and no job is left to come: the agent stops.
    Four requests, all positive; never two outstanding (a second request at t=2, before the
    first reply, would have been counted).
    """
    meta = StaticAgents(R30)
    _, result = run(meta, jobs([0, 0, 0, 0], [10] * 4), pools([1]), message_time=[1.0])
    assert result.admitted_at.tolist() == [2, 4, 14, 24]
    assert result.started_at.tolist() == [2, 12, 22, 32]
    assert meta.request_times()["agent"] == [1, 3, 13, 23]
    assert meta.counters()["matcher_requests"] == 4


def test_static_epsilon_bounds_the_queue() -> None:
    """One pool of 10 nodes, 15 jobs of work 100 at t=0. ε = 0.3: the agent asks while fewer
    than 3 jobs wait: 10 start, 3 wait, so 13 are submitted at t=0 and the last 2 only when
    the first 10 end (t=100). ε = 0.5 (< 5 waiting): all 15 at t=0."""
    specs = jobs([0] * 15, [100] * 15)
    _, result = run(StaticAgents(R30), specs, pools([10]))
    assert (result.admitted_at == 0).sum() == 13
    assert result.admitted_at.tolist()[13:] == [100, 100]
    _, result = run(StaticAgents(DiracParams(epsilon=0.5, retry=30.0)), specs, pools([10]))
    assert (result.admitted_at == 0).sum() == 15


def test_static_retry_after_a_negative_answer() -> None:
    """One pool of 1 node; j0 (work 5) at 0, j1 (work 5) at 10.
      t=0 ask -> j0, starts 0; j0 started: ask -> nothing (j1 not there yet): negative
      retry 30: the next request at 30 -> j1 starts 30 (wait 20).
      retry 7: 7 negative again (j1 comes at 10), 14 -> j1 starts 14 (wait 4).
    A longer retry asks less often and lets jobs wait longer in the task queue."""
    specs = jobs([0, 10], [5, 5])
    meta = StaticAgents(R30)
    _, result = run(meta, specs, pools([1]))
    assert result.started_at.tolist() == [0, 30]
    assert meta.request_times()["agent"] == [0, 0, 30]
    meta = StaticAgents(DiracParams(retry=7.0))
    _, result = run(meta, specs, pools([1]))
    assert result.started_at.tolist() == [0, 14]
    assert meta.request_times()["agent"] == [0, 0, 7, 14]


def test_static_frfs_by_class_creation_fifo_within_class() -> None:
    """One pool of 2 nodes (the agent asks while nothing waits), all released at t=0, work 10:
    j0 (1 proc, org 0), j1 (1, org 1), j2 (1, org 0), j3 (2, org 0), j4 (1, org 1).
    Classes in creation order: (1, 0) [j0, j2], (1, 1) [j1, j4], (2, 0) [j3].
      t=0 j0 -> starts; j2 -> starts (both nodes); j1 -> waits: stop
      t=10 j0, j2 end, j1 starts: ask -> j4 starts; ask -> j3 waits
      t=20 j1, j4 end: j3 starts, ends 30.
    j2 overtakes j1 and j4 overtakes j3: the matcher serves classes, not arrival order."""
    specs = jobs([0] * 5, [10] * 5, procs=[1, 1, 1, 2, 1], org=[0, 1, 0, 0, 1])
    _, result = run(StaticAgents(R30), specs, pools([2]))
    assert result.started_at.tolist() == [0, 10, 0, 20, 10]
    assert result.admitted_at.tolist() == [0, 0, 0, 10, 10]


def test_static_agents_skip_queues_too_small_and_refuse_impossible_jobs() -> None:
    """q0 has 1 node, q1 2. Released at 0: j0 (2 procs, work 10), j1 (1 proc, work 10).
    Both agents ask at t=0 in pool order: q0's description (1 processor) skips class (2, 0)
    and gets j1; q1's gets j0. A 3-processor job fits no queue: refused at its arrival."""
    specs = jobs([0, 0], [10, 10], procs=[2, 1])
    _, result = run(StaticAgents(R30), specs, pools([1, 2]))
    assert result.pool.tolist() == [1, 0]
    assert result.started_at.tolist() == [0, 0]
    with pytest.raises(PolicyError, match="job 0 .*fits no queue"):
        run(StaticAgents(R30), jobs([0], [10], procs=[3]), pools([1, 2]))


def test_agents_look_again_when_a_local_job_starts_not_on_a_timer() -> None:
    """Shared pool of 1 node: local jobs L0, L1 (work 100) at 0 go straight to it; the global
    job G (work 50) at 0. The agents watch their queue: they hear every start and end in it.
      t=0 L0 starts, L1 waits: depth 1 >= 0.3, the agent does not ask (and sets no timer)
      t=100 L0 ends and L1 starts (heard): depth 0, it asks at once.
    Static: G is submitted at 100, waits for L1, runs 200-250; one request, at 100.
    Pilot (simple): the probe at 100 is positive, the pilot waits for L1, starts at 200 and
    pulls G (200-250); the pilot's start makes the agent look again: its probe, sent after the
    pull, finds the task queue empty (the last one: no job is left to come).
    The run has only the instants 0, 100, 200 and 250: no poll, no wake-up between."""
    specs = jobs([0, 0, 0], [100, 100, 50], local=[0, 1])
    meta = StaticAgents(R30)
    _, result = run(meta, specs, pools([1]))
    assert result.admitted_at[2] == 100
    assert result.started_at.tolist() == [0, 100, 200]
    assert meta.request_times()["agent"] == [100]
    assert result.instants == 4

    pilots = PilotSimple(R30)
    kernel, result = run(pilots, specs, pools([1]))
    check_pilots(kernel, result)
    assert result.started_at.tolist() == [0, 100, 200, 200]  # L0, L1, G, the pilot
    assert result.host[2] == 3
    assert pilots.request_times() == {"agent": [100, 200], "first_pull": [200], "refill": []}
    assert result.instants == 4


def test_static_agent_looks_again_on_a_local_end_in_its_queue() -> None:
    """Shared pool of 2 nodes (ε x nodes = 0.6: the agent asks while nothing waits), retry
    30 s. In submission order: local L0 (work 100) and L1 (work 70) at 0, global G1 (work
    10) at 0, local L2 (work 100) at 5, global G2 (work 10) at 10.
      t=0 L0, L1 start (no node left): the agent asks, gets G1, which waits: it stops.
      t=5 L2 arrives, waits behind G1 (depth 2).
      t=70 L1 ends (heard), G1 starts: depth 1 (L2): no request.
      t=80 G1 ends (its own), L2 starts: depth 0: it asks, gets G2 (in the task queue since
           10), which waits for L0 (ends 100): G2 runs 100-110.
    Every request follows a start or an end in the queue: G2, released at 10, is asked for
    at 80, when L2 starts, not at a multiple of the retry period."""
    specs = jobs([0, 0, 0, 5, 10], [100, 70, 10, 100, 10], local=[0, 1, 3])
    meta = StaticAgents(R30)
    _, result = run(meta, specs, pools([2]))
    assert result.started_at.tolist() == [0, 0, 70, 80, 100]  # L0, L1, G1, L2, G2
    assert (result.admitted_at[2], result.admitted_at[4]) == (0, 80)
    assert meta.request_times()["agent"] == [0, 80]


# -- pilots ---------------------------------------------------------------------------------


def test_simple_pilot_runs_one_payload_then_exits() -> None:
    """One pool of 1 node of power 2, t_max 1000; j0 (work 100: 50 s) and j1 (work 40: 20 s)
    at t=0, one class [j0, j1].
      t=0 probe + (j0 fits) -> pilot P0 submitted, starts; probe again + (j0 is still queued:
          probes take nothing) -> P1 submitted, waits (depth 1); P0 pulls j0 (2000 NCU left)
      t=50 j0 ends, P0 exits (simple); P1 starts, pulls j1 (50-70); the agent probes: -
    Two pilots, none wasted; requests: 3 probes, 2 first pulls, no refill."""
    meta = PilotSimple(R30)
    kernel, result = run(meta, jobs([0, 0], [100, 40]), pools([1], power=2.0, t_max=1000))
    check_pilots(kernel, result)
    assert result.started_at.tolist()[:2] == [0, 50]
    assert result.finished_at.tolist()[:2] == [50, 70]
    p0, p1 = result.host.tolist()[:2]
    assert p0 != p1 and min(p0, p1) >= 2
    assert result.finished_at[p0] == 50 and not result.killed[p0]
    assert meta.counters() == {
        "matcher_requests": 5,
        "matcher_requests_agent": 3,
        "matcher_requests_first_pull": 2,
        "matcher_requests_refill": 0,
        "pilots": 2,
        "wasted_pilots": 0,
    }


def test_filling_pilot_runs_payloads_while_time_allows_and_a_pilot_with_none_is_wasted() -> None:
    """The same platform and jobs, filling pilots.
      t=0 P0 pulls j0 (0-50); P1 submitted, waits behind P0
      t=50 P0 refills: (1000 - 50) s x 2 = 1900 NCU >= 40: j1 runs in P0 (50-70)
      t=70 P0 refills: nothing left -> exits; P1 starts, its first pull gets nothing: it exits
           at once, wasted.
    Requests: 2 probes, 2 first pulls, 2 refills."""
    meta = PilotFilling(R30)
    kernel, result = run(meta, jobs([0, 0], [100, 40]), pools([1], power=2.0, t_max=1000))
    check_pilots(kernel, result)
    assert result.started_at.tolist()[:2] == [0, 50]
    assert result.finished_at.tolist()[:2] == [50, 70]
    p0 = int(result.host[0])
    assert result.host[1] == p0
    p1 = 3 if p0 == 2 else 2
    assert result.started_at[p1] == result.finished_at[p1] == 70
    assert meta.counters() == {
        "matcher_requests": 6,
        "matcher_requests_agent": 2,
        "matcher_requests_first_pull": 2,
        "matcher_requests_refill": 2,
        "pilots": 2,
        "wasted_pilots": 1,
    }
    times = meta.request_times()
    assert times == {"agent": [0, 0], "first_pull": [0, 70], "refill": [50, 70]}


def test_filling_pilot_takes_no_payload_longer_than_its_remaining_time() -> None:
    """One pool of 1 node of power 1, t_max 100; j0 (work 60) and j1 (work 50) at 0.
      P0 runs j0 0-60; at 60 its refill offers 40 s x 1 < 50: nothing fits, P0 exits (it ran
      one payload: not wasted); P1, queued since t=0, starts at 60 and runs j1 60-110.
    No pilot lives longer than t_max."""
    meta = PilotFilling(R30)
    kernel, result = run(meta, jobs([0, 0], [60, 50]), pools([1], t_max=100))
    check_pilots(kernel, result)
    assert result.started_at.tolist()[:2] == [0, 60]
    assert result.host[0] != result.host[1]
    assert meta.counters()["wasted_pilots"] == 0
    assert meta.counters()["matcher_requests_refill"] == 2  # at 60 (-) and at 110 (-)


def test_pilots_keep_the_round_trip_out_of_their_remaining_time() -> None:
    """Message time 5 s, one pool of 1 node of power 1, t_max 100. A pilot of this queue can
    offer at most 100 - 2 x 5 = 90 NCU: a job of 95 is refused at arrival. j0 of work 80:
      probe sent 0, matched 5, reply 10: P0 submitted, starts 10, pulls: matched 15, reply 20,
      j0 runs 20-100, P0 exits at 100 (lived 90 <= 100). The agent's second probe (sent at
      10 after P0 started, behind P0's pull) finds the queue empty at 15.
    The payload's global wait is 20 s: from its submission to its start inside the pilot."""
    meta = PilotSimple(R30)
    kernel, result = run(meta, jobs([0], [80]), pools([1], t_max=100), message_time=[5.0])
    check_pilots(kernel, result)
    pilot = int(result.host[0])
    assert result.started_at[0] - result.submitted_at[0] == 20
    assert (result.started_at[pilot], result.finished_at[pilot]) == (10, 100)
    assert not result.killed[pilot]
    assert meta.request_times() == {"agent": [5, 15], "first_pull": [15], "refill": []}
    with pytest.raises(PolicyError, match="fits no pilot"):
        run(PilotSimple(R30), jobs([0], [95]), pools([1], t_max=100), message_time=[5.0])


@pytest.mark.parametrize("probe", ["literal", "unclaimed", "unclaimed_own"])
def test_pilots_on_a_larger_platform_count_consistently(probe: Probe) -> None:
    """Two pools of 3 nodes, mu_rec 3.75 s, mu_env 2 s, message time 0.5 s, 40 jobs in three
    classes: every job runs once inside a pilot of its pool, payloads never overlap in a
    pilot, requests by kind add up, a first pull per started pilot; every promise is released
    by the end (each pilot pulled)."""
    rng = np.random.default_rng(3)
    submit = np.cumsum(rng.exponential(10.0, 40)).tolist()
    work = rng.uniform(20, 120, 40).tolist()
    params = PilotParams(retry=30.0, probe=probe)
    for meta in (PilotSimple(params), PilotFilling(params)):
        kernel, result = run(
            meta,
            jobs(submit, work, org=[i % 3 for i in range(40)]),
            pools([3, 3], t_max=400, mu_rec=3.75, mu_env=2.0),
            message_time=[0.5, 0.5],
        )
        check_pilots(kernel, result)
        counts = meta.counters()
        assert counts["pilots"] == len(kernel.state) - kernel.n
        assert counts["matcher_requests_first_pull"] == counts["pilots"]
        assert counts["matcher_requests"] == sum(
            counts[f"matcher_requests_{k}"] for k in ("agent", "first_pull", "refill")
        )
        hosts = result.host[:40]
        assert (hosts >= 40).all() and not result.killed[:40].any()
        for pilot in set(hosts.tolist()):
            spans = sorted(
                (result.started_at[j], result.finished_at[j])
                for j in np.flatnonzero(hosts == pilot)
            )
            assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        used = len(set(hosts.tolist()))
        assert counts["wasted_pilots"] == counts["pilots"] - used
        if isinstance(meta, PilotSimple):
            assert used == 40 and counts["matcher_requests_refill"] == 0
        assert meta.actor is not None
        assert not any(meta.actor._promised.values())
        assert not any(meta.actor._promised_own.values())


LITERAL = PilotParams(retry=30.0, probe="literal")


def test_agents_answered_together_ask_together_unless_jittered() -> None:
    """The literal probe (positive while any job fits). Three pools of 4 nodes (ε x nodes =
    1.2: an agent probes again while one pilot of its own is queued or in transit), filling
    pilots, retry 30 s; j0 at 0, j1 at 100, j2 at 200 (work 10).
      t=0 every agent probes: each submits two pilots for j0 (its second probe is answered
          before any pilot has pulled): 6 pilots, 5 wasted; all three get their negative
          answer at 0, so they ask at 30, 60, 90, 120 in step: j1 (arrived at 100) is seen by
          all three at 120 -> again 6 pilots; j2 at 210 -> 6 more: 18 pilots, 15 wasted.
    With jitter 0.5 each wait is drawn in [15, 45) s: the agents drift apart, j1 and j2 are
    each seen by one agent only (2 pilots each); the same seed gives the same run."""
    specs = jobs([0, 100, 200], [10, 10, 10])
    meta = PilotFilling(LITERAL)
    _, result = run(meta, specs, pools([4, 4, 4]))
    assert result.started_at.tolist()[:3] == [0, 120, 210]
    assert (meta.counters()["pilots"], meta.counters()["wasted_pilots"]) == (18, 15)

    jittered = PilotParams(retry=30.0, jitter=0.5, probe="literal")
    meta = PilotFilling(jittered)
    _, a = run(meta, specs, pools([4, 4, 4]), seed=0)
    assert (meta.counters()["pilots"], meta.counters()["wasted_pilots"]) == (10, 7)
    _, b = run(PilotFilling(jittered), specs, pools([4, 4, 4]), seed=0)
    assert a.started_at.tolist() == b.started_at.tolist()
    assert 100 <= a.started_at[1] < 145 and a.started_at[1] != 120


@pytest.mark.parametrize(
    ("probe", "pilots", "wasted", "probes"),
    [("literal", 18, 15, 39), ("unclaimed", 3, 0, 27), ("unclaimed_own", 9, 6, 33)],
)
def test_probe_readings_with_agents_in_step(
    probe: Probe, pilots: int, wasted: int, probes: int
) -> None:
    """The scenario above (no jitter) under each reading of "the matcher has work". A pilot
    is promised from its positive probe until its first pull reaches the matcher. With no
    message time, an agent's probe sent with its pilot is matched in the round the pilot
    starts, before the pilot's pull (sent in that round).
      t=0 the three probes reach the matcher in pool order, with j0 alone in the task queue.
        literal: each agent's first two probes are positive (the second is sent with its
          first pilot) and its third, sent with its second pilot, is matched after the pulls:
          negative. 6 pilots, 5 wasted, 9 probes.
        unclaimed: q0's probe is positive (j0 now promised to q0's pilot P); q1's and q2's
          are negative (1 job, 1 promise); q0's second probe, sent with P, is answered before
          P's pull: negative. 1 pilot, none wasted, 4 probes.
        unclaimed_own: each agent's first probe is positive (no pilot of its own promised),
          its second negative: 3 pilots, 2 wasted, 6 probes.
      All three agents end t=0 answered "no", so they ask in step at 30, 60, 90 (3 negative
      probes each time: the task queue is empty), 120 (j1: as at t=0), 150, 180 and 210 (j2:
      as at t=0, except that once j2 is pulled no job is left, so the agents stop: no
      literal third probe). Probes: literal 9 + 9 + 6 + 5 x 3 = 39; unclaimed 3 x 4 + 15 =
      27; unclaimed_own 3 x 6 + 15 = 33."""
    specs = jobs([0, 100, 200], [10, 10, 10])
    meta = PilotFilling(PilotParams(retry=30.0, probe=probe))
    kernel, result = run(meta, specs, pools([4, 4, 4]))
    check_pilots(kernel, result)
    assert result.started_at.tolist()[:3] == [0, 120, 210]
    counts = meta.counters()
    assert (counts["pilots"], counts["wasted_pilots"]) == (pilots, wasted)
    assert counts["matcher_requests_agent"] == probes


def test_unclaimed_probe_counts_pilots_waiting_in_mu_rec() -> None:
    """One pool of 10 nodes (ε x nodes = 3), mu_rec 5 s, filling pilots, retry 30 s; j0
    (work 10) at 0. A pilot stays "received" 5 s before it can start and pull.
      literal: probe + -> P0 (depth 1), probe + -> P1 (2), probe + -> P2 (3: stop); at 5 the
        three start and pull: P0 gets j0 (5-15), P1 and P2 get nothing: 3 pilots, 2 wasted.
        The starts make the agent probe again, after the pulls: negative (4 probes).
      unclaimed: probe + -> P0 (j0 promised to it); probe - (1 job, 1 promise): the agent
        waits the retry period; at 5 P0 starts and gets j0; at 30 nothing is left: the agent
        stops. 1 pilot, none wasted, 2 probes.
    j0 starts at 5 either way."""
    specs = jobs([0], [10])
    platform = pools([10], mu_rec=5.0)
    literal = PilotFilling(LITERAL)
    kernel, result = run(literal, specs, platform)
    check_pilots(kernel, result)
    assert result.started_at[0] == 5
    assert literal.request_times()["agent"] == [0, 0, 0, 5]
    assert (literal.counters()["pilots"], literal.counters()["wasted_pilots"]) == (3, 2)
    unclaimed = PilotFilling(R30)
    kernel, result = run(unclaimed, specs, pools([10], mu_rec=5.0))
    check_pilots(kernel, result)
    assert result.started_at[0] == 5
    assert unclaimed.request_times()["agent"] == [0, 0]
    assert (unclaimed.counters()["pilots"], unclaimed.counters()["wasted_pilots"]) == (1, 0)


def test_pilots_without_t_max_ask_for_no_limit() -> None:
    """A queue without t_max (a platform derived from a trace): pilots ask for an unlimited
    time and a filling pilot takes every job. One node, j0 and j1 (work 10) at 0: P0 runs j0
    0-10 and j1 10-20, exits at 20; P1 (submitted at 0 behind P0) starts at 20, is wasted."""
    meta = PilotFilling(R30)
    kernel, result = run(meta, jobs([0, 0], [10, 10]), pools([1]))
    check_pilots(kernel, result)
    assert result.started_at.tolist() == [0, 10, 0, 20]
    assert result.host.tolist()[:2] == [2, 2]
    assert kernel.requested_time[2] == math.inf
    assert meta.counters()["wasted_pilots"] == 1
