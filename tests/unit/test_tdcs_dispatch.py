"""Paper 003's dispatcher (SPEC 6) on hand-computed scenarios: candidate rules, estimates,
ties, the horizon, the global queue's re-examination, transfers and evictions.

Every run goes through `run_tdcs` with the kernel's invariant checker on."""

from __future__ import annotations

from typing import Any

import pytest

from schedlab.errors import ConfigError
from schedlab.grid.registry import make_meta_scheduler
from schedlab.platform.description import Link, Platform
from schedlab.platform.network import Network
from schedlab.results import Result as TdcsResult
from schedlab.simulation import run_tdcs
from tdcs_cases import platform, workload


def run(plat: Platform, jobs: list[dict[str, Any]], **kw: Any) -> TdcsResult:
    kw.setdefault("checkpoint_overhead", 0.0)
    return run_tdcs(plat, workload(jobs), kw.pop("dispatcher", "tdcs"), check=True, **kw)


def col(result: TdcsResult, name: str) -> list[Any]:
    return list(result.columns[name])


def test_equal_estimates_go_to_the_lowest_index() -> None:
    """Three identical empty clusters: the same estimate everywhere, the first cluster."""
    r = run(platform([(1.0, 2)] * 3), [{"work": 50.0, "prio": 2}])
    assert col(r, "cluster") == ["c0"]
    assert col(r, "started_at") == [0.0]


def test_equal_estimates_go_to_the_faster_cluster() -> None:
    """c0 (power 1, free): T = 198. c1 (power 2) runs a local job of the same priority with
    requested end 0 + 200 / 2 = 100: at t = 1, T = 99 + 198 / 2 = 198. Tie: the faster c1,
    where the global job starts when the local one ends (100)."""
    jobs = [
        {"work": 200.0, "prio": 2, "pool": 1},
        {"submit": 1.0, "work": 198.0, "prio": 2},
    ]
    r = run(platform([(1.0, 1), (2.0, 1)]), jobs)
    assert col(r, "cluster") == ["c1", "c1"]
    assert col(r, "started_at") == [0.0, 100.0]
    assert col(r, "local_queue_time")[1] == pytest.approx(99.0)


@pytest.mark.parametrize(("rule", "cluster"), [("queue", "c0"), ("queue_and_running", "c1")])
def test_queue_rule_ignores_running_jobs(rule: str, cluster: str) -> None:
    """c0 (power 2) runs a local low job ending at 5 (requested 10 at power 2); c1 (power 1)
    is empty. A low global job (requested 100) at t = 1: "queue" keeps c0 (nothing waits
    there; T = 4 + 50 = 54 < 100), "queue_and_running" excludes it (a job of its priority
    runs there) and sends it to c1."""
    jobs = [{"work": 10.0, "prio": 1, "pool": 0}, {"submit": 1.0, "work": 100.0, "prio": 1}]
    r = run(platform([(2.0, 1), (1.0, 1)]), jobs, candidate_rule=rule)
    assert col(r, "cluster")[1] == cluster


def test_waiting_job_of_equal_priority_excludes_a_cluster() -> None:
    """Rule "queue": c0 holds a low job running and another waiting, so it is no candidate
    for a low global job, which goes to the slower but empty c1 at once."""
    jobs = [
        {"work": 1000.0, "prio": 1, "pool": 0},
        {"work": 5.0, "prio": 1, "pool": 0},
        {"submit": 1.0, "work": 100.0, "prio": 1},
    ]
    r = run(platform([(1.0, 1), (0.5, 1)]), jobs)
    assert col(r, "cluster")[2] == "c1"
    assert col(r, "started_at")[2] == 1.0


@pytest.mark.parametrize(
    ("rule", "cluster", "start"), [("queue", "c0", 50.0), ("fits_by_preemption", "c1", 1.0)]
)
def test_fits_by_preemption(rule: str, cluster: str, start: float) -> None:
    """A high job of 2 processors (requested 100) at t = 1. c0 (2 nodes, power 1) runs a high
    local job of 1 processor until 50: T = 49 + 100 = 149. c1 (2 nodes, power 0.5) runs a
    low local job on both nodes: it fits by preemption, T = 200. "queue" takes c0 (it waits
    until 50); "fits_by_preemption" only admits c1, where the low job is preempted at once."""
    jobs = [
        {"work": 50.0, "prio": 2, "pool": 0},
        {"work": 1000.0, "prio": 1, "pool": 1, "procs": 2},
        {"submit": 1.0, "work": 100.0, "prio": 2, "procs": 2},
    ]
    r = run(platform([(1.0, 2), (0.5, 2)]), jobs, candidate_rule=rule)
    assert col(r, "cluster")[2] == cluster
    assert col(r, "started_at")[2] == start
    assert col(r, "preemptions")[1] == (1 if cluster == "c1" else 0)


@pytest.mark.parametrize(("horizon", "starts"), [(None, [0.0, 0.0]), (1, [0.0, 100.0])])
def test_horizon(horizon: int | None, starts: list[float]) -> None:
    """Two high global jobs at 0 on one cluster of 4 nodes. Unlimited: the second waits
    for the first to start (it is in transit, the "queue" rule), which happens within the
    instant, and the start makes the dispatcher look again: both start at 0. H = 1: the
    second stays in the global queue until the first ends (the horizon decrement), 100."""
    jobs = [{"work": 100.0, "prio": 2}, {"work": 100.0, "prio": 2}]
    r = run(platform([(1.0, 4)]), jobs, horizon=horizon)
    assert col(r, "started_at") == starts
    assert col(r, "global_queue_time") == starts


def test_global_queue_is_reexamined_by_priority() -> None:
    """One node. Local high L runs 0-100 and local high W waits; low G1 (t = 1) and high G2
    (t = 2) have no candidate. At 100 W starts: the queue is read again, G2 (higher) goes
    first and blocks G1 (a high job in transit). G2 waits for W (ends 150), starts and ends
    at 160; G1, sent when G2 starts (150), starts at 160."""
    jobs = [
        {"work": 100.0, "prio": 2, "pool": 0},
        {"work": 50.0, "prio": 2, "pool": 0},
        {"submit": 1.0, "work": 10.0, "prio": 1},
        {"submit": 2.0, "work": 10.0, "prio": 2},
    ]
    r = run(platform([(1.0, 1)]), jobs)
    assert col(r, "started_at") == [0.0, 100.0, 160.0, 150.0]
    assert col(r, "global_queue_time")[2:] == [149.0, 98.0]
    assert col(r, "local_queue_time")[2:] == [10.0, 50.0]


def test_transfer_time_is_message_plus_input() -> None:
    """Access links of 8 Mbit/s (1e6 bytes/s), 10 ms WAN latency, 30 kB messages: a job
    entering at c0, sent to the only cluster large enough, c1, pays one message (0.01 +
    0.03 s) and its 1 MB input (0.01 + 1 s): 1.05 s before it can start."""
    plat = platform([(1.0, 1), (1.0, 2)], lan=Link.mbit(8), wan=Link(latency=0.01),
                    control_message=30000.0)  # fmt: skip
    r = run(plat, [{"work": 10.0, "prio": 2, "procs": 2, "input": 1e6}])
    assert col(r, "cluster") == ["c1"]
    assert col(r, "transfer_time")[0] == pytest.approx(1.05)
    assert col(r, "started_at")[0] == pytest.approx(1.05)
    net = Network.of(plat)
    assert net.transfer_time(0, 0, 1e9) == 0.0
    assert net.message_time(1, 0) == pytest.approx(0.04)


def test_evicted_background_job_restarts_elsewhere_with_its_checkpoint() -> None:
    """A checkpointable background global job B (work 100) starts at 0 on c0 (1 node); a
    high local job arrives there at 10 and preempts it: B is evicted to the global queue
    with 10 work units done and restarts at once on c1, after moving input and checkpoint
    (2 x 1 MB at 1e6 bytes/s, plus message and latencies: 2.05 s); it pays the 5 s
    overhead and the 90 units left."""
    plat = platform([(1.0, 1), (1.0, 1)], lan=Link.mbit(8), wan=Link(latency=0.01),
                    control_message=30000.0)  # fmt: skip
    jobs = [
        {"work": 100.0, "prio": 0, "ckpt": 1, "input": 1e6},
        {"submit": 10.0, "work": 20.0, "prio": 2, "pool": 0},
    ]
    r = run(plat, jobs, checkpoint_overhead=5.0)
    assert col(r, "cluster") == ["c1", "c0"]
    assert col(r, "evictions")[0] == 1
    assert col(r, "transfer_time")[0] == pytest.approx(2.05)
    assert col(r, "finished_at")[0] == pytest.approx(10.0 + 2.05 + 5.0 + 90.0)
    assert col(r, "lost_work")[0] == 0.0


def test_baselines() -> None:
    """Four global jobs at 0 on three clusters: round robin takes them in turn; least
    loaded the emptiest relative to its size (ties to the lowest index)."""
    jobs = [{"work": 100.0, "prio": 1, "procs": 2}] * 4
    plat = platform([(1.0, 2), (1.0, 4), (1.0, 8)])
    rr = run(plat, jobs, dispatcher="round_robin")
    assert col(rr, "cluster") == ["c0", "c1", "c2", "c0"]
    ll = run(plat, jobs, dispatcher="least_loaded")
    # all empty: c0 (2/2 = 1.0 after); then c1 (0 < 1; 2/4 after); then c2 (0; 2/8 after);
    # the fourth sees 1.0, 0.5, 0.25: c2 again
    assert col(ll, "cluster") == ["c0", "c1", "c2", "c2"]
    rnd = [col(run(plat, jobs, dispatcher="random", seed=3), "cluster") for _ in range(2)]
    assert rnd[0] == rnd[1]


def test_parameters_are_checked() -> None:
    with pytest.raises(ConfigError, match="candidate_rule"):
        make_meta_scheduler("tdcs", candidate_rule="nearest")
    with pytest.raises(ConfigError, match="horizon"):
        make_meta_scheduler("tdcs", horizon=-1)
    with pytest.raises(ConfigError, match="preemption"):
        run(platform([(1.0, 1)]), [{"work": 1.0}], preemption="pause")
