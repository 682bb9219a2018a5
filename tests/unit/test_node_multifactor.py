"""Multifactor on nodes (`schedlab.schedulers.nodes.multifactor`): TRES billing weights as
Slurm's TRESBillingWeights, fair share charged in billing units, and the processor policy's
decisions on single-core nodes with plain requests (issue 24)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab
from reference_nodes import check_node_schedule, processor_capacities, reference_simulate_nodes
from schedlab.engine.nodeloop import simulate_nodes
from schedlab.errors import ConfigError
from schedlab.platform.placement import Allocation, Request, fits_ever
from schedlab.schedulers.nodes.fairshare import TresWeights, billing, parse_tres_weights
from schedlab.schedulers.nodes.multifactor import NodeMultifactor, NodeMultifactorParams
from schedlab.schedulers.nodes.registry import make_node_policy
from schedlab.workload.job import Workload
from strategies import SmallWorkload, fuzz, small_workloads

GIB = 1024.0


# -- TRES billing weights ----------------------------------------------------------------------
def test_weights_parse_as_slurm_writes_them() -> None:
    assert parse_tres_weights("CPU=1.0") == TresWeights(1.0, 0.0, 0.0, 0.0)
    weights = parse_tres_weights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0")
    assert weights == TresWeights(cpu=1.0, mem=0.25 / 1024, gpu=2.0, node=0.0)
    # keys are case-insensitive, spaces around tokens are allowed, Mem is per MiB bare
    assert parse_tres_weights(" cpu = .5 , mem=2 , gres/GPU=3, NODE=10 ") == TresWeights(
        0.5, 2.0, 3.0, 10.0
    )
    assert parse_tres_weights("Mem=1K").mem == 1024.0
    assert parse_tres_weights("Mem=1T").mem == 1 / 1024**2
    assert parse_tres_weights("Mem=3M").mem == 3.0


@pytest.mark.parametrize(
    "text",
    ["", "CPU", "CPU=", "CPU=-1", "CPU=1,CPU=2", "GPU=1", "GRES/gpu:a100=1", "CPU=1G",
     "CPU=1;Mem=2", "CPU=nan", "CPU=1e999", 1.0, None],
)  # fmt: skip
def test_invalid_weights_are_refused_naming_the_param(text: object) -> None:
    with pytest.raises(ConfigError) as caught:
        NodeMultifactorParams(tres_weights=text)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "multifactor tres_weights" in message
    assert "CPU=1.0,Mem=0.25G,GRES/gpu=2.0" in message


def test_params_by_name_and_their_checks() -> None:
    policy = make_node_policy("multifactor", tres_weights="cpu=2", max_tres=True)
    assert isinstance(policy, NodeMultifactor)
    assert policy.params.tres_weights == "cpu=2" and policy.params.max_tres
    with pytest.raises(ConfigError, match="multifactor tres_weights"):
        make_node_policy("multifactor", tres_weights="CPU=x")
    with pytest.raises(ConfigError, match="multifactor max_tres"):
        NodeMultifactorParams(max_tres="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="multifactor calc_period"):
        NodeMultifactorParams(calc_period=0.0)  # the processor policy's checks still hold


def test_billing_by_hand() -> None:
    """Two nodes of 8 cores, 16 GiB and 4 GPUs held: 16 cores, 32 GiB, 8 GPUs, 2 nodes."""
    alloc = Allocation((3, 7), (8, 8), (16 * GIB, 16 * GIB), (4, 4))
    assert billing(alloc, parse_tres_weights("CPU=1.0")) == 16.0
    weights = parse_tres_weights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0")
    assert billing(alloc, weights) == 16.0 + 8.0 + 16.0  # 32 GiB x 0.25 = 8
    assert billing(alloc, weights, max_tres=True) == 16.0  # max(16, 8, 16)
    with_nodes = parse_tres_weights("CPU=1,GRES/gpu=3,Node=5")
    assert billing(alloc, with_nodes) == 16.0 + 24.0 + 10.0
    assert billing(alloc, with_nodes, max_tres=True) == 24.0 + 10.0  # nodes are added
    assert billing(alloc, parse_tres_weights("Mem=1")) == 32 * GIB  # per MiB
    # an exclusive job holds (and is billed for) every core and GPU of its node
    whole = Allocation((0,), (32,), (GIB,), (4,), exclusive=True)
    assert billing(whole, parse_tres_weights("CPU=1,GRES/gpu=1")) == 36.0


# -- fair share charged in billing units -------------------------------------------------------
def _two_users(tres_weights: str, then: bool = True) -> tuple[NodeMultifactor, list[float]]:
    """One node of 8 cores and 4 GPUs. User 0 runs a GPU job (4 cores, 4 GPUs), user 1 a CPU
    job (4 cores) for an hour; ``then`` at 4000 s each submits a job of the whole node.
    Fair share only, no decay."""
    policy = NodeMultifactor(
        NodeMultifactorParams(
            weight_age=0.0,
            weight_job_size=0.0,
            calc_period=60.0,
            decay_half_life=0.0,
            tres_weights=tres_weights,
        )
    )
    requests = [Request(1, 4, 0.0, 4), Request(1, 4), Request(1, 8), Request(1, 8)]
    k = 4 if then else 2
    run = simulate_nodes(
        [0.0, 0.0, 4000.0, 4000.0][:k],
        [3600.0, 3600.0, 100.0, 100.0][:k],
        [3600.0, 3600.0, 100.0, 100.0][:k],
        requests[:k],
        [(8, math.inf, 4)],
        policy,
        user=[0, 1, 0, 1][:k],
    )
    return policy, run.started_at.tolist()


def test_gpu_weights_lower_a_gpu_users_fair_share() -> None:
    """By cores alone both users used the same; with GPUs billed 2 each, the GPU user used
    (4 + 4 x 2) / 4 = 3 times as much, and with 10 each 11 times: the heavier the GPUs
    weigh, the lower the GPU user's fair share, and its next job goes after the other's."""
    plain, _ = _two_users("CPU=1.0", then=False)
    assert plain.usage(0) == plain.usage(1) == 4 * 3600.0
    assert plain.fair_share(0) == plain.fair_share(1) == 0.5  # 2^(-1/2 x 2)
    priced, _ = _two_users("CPU=1.0,GRES/gpu=2.0", then=False)
    assert priced.usage(0) == pytest.approx(3 * priced.usage(1))
    assert priced.usage(1) == plain.usage(1)
    dearer, _ = _two_users("CPU=1.0,GRES/gpu=10.0", then=False)
    assert dearer.usage(0) == pytest.approx(11 * dearer.usage(1))
    assert dearer.fair_share(0) < priced.fair_share(0) < plain.fair_share(0)
    assert priced.fair_share(0) == pytest.approx(2 ** (-2 * 3 / 4))
    # who goes first when both want the whole node: arrival order, then the CPU user
    assert _two_users("CPU=1.0")[1] == [0.0, 0.0, 4000.0, 4100.0]
    assert _two_users("CPU=1.0,GRES/gpu=2.0")[1] == [0.0, 0.0, 4100.0, 4000.0]


# -- the processor policy on single-core nodes -------------------------------------------------
PARAMS = st.fixed_dictionaries(
    {
        "weight_age": st.sampled_from([0.0, 1000.0]),
        "weight_fairshare": st.sampled_from([1.0, 10000.0]),
        "weight_job_size": st.sampled_from([0.0, 1000.0]),
        "max_age": st.sampled_from([30.0, 1e6]),
        "decay_half_life": st.sampled_from([0.0, 50.0]),
        "favor_small": st.booleans(),
        "calc_period": st.sampled_from([1.0, 7.0]),
    }
)


@fuzz(60)
@given(
    w=small_workloads(max_jobs=30, max_procs=8),
    users=st.lists(st.integers(0, 3), min_size=30, max_size=30),
    params=PARAMS,
    kill=st.booleans(),
)
def test_single_core_nodes_start_jobs_as_the_processor_policy(
    w: SmallWorkload, users: list[int], params: dict, kill: bool
) -> None:
    user = users[: len(w.submit)]
    req = w.req if kill else [max(r, q) for r, q in zip(w.run, w.req)]
    workload = Workload.from_columns(
        submit_time=np.array(w.submit),
        run_time=np.array(w.run),
        procs=np.array(w.procs),
        requested_time=np.array(w.req),
        user_id=np.array(user),
        max_procs=w.total,
    )
    jobs = schedlab.simulate(workload, "multifactor", kill_on_overrun=kill, **params).jobs
    policy = NodeMultifactor(NodeMultifactorParams(**params))
    requests = [Request.processors(p) for p in w.procs]
    run = simulate_nodes(
        w.submit, w.run, req, requests, processor_capacities(w.total), policy,
        kill_on_overrun=kill, user=user,
    )  # fmt: skip
    np.testing.assert_array_equal(jobs["started_at"].to_numpy(), run.started_at)


# -- every node respected on multi-resource clusters -------------------------------------------
@fuzz(40)
@given(
    w=small_workloads(max_jobs=30, max_procs=1),
    shapes=st.lists(
        st.builds(
            Request,
            nodes=st.integers(1, 3),
            cores_per_node=st.sampled_from([1, 2, 4]),
            mem_per_node=st.sampled_from([0.0, 700.5, 2048.0]),
            gpus_per_node=st.sampled_from([0, 0, 1, 2]),
            exclusive=st.sampled_from([False, False, True]),
        ),
        min_size=1,
        max_size=4,
    ),
    picks=st.lists(st.integers(0, 3), min_size=30, max_size=30),
    weights=st.sampled_from(["CPU=1.0", "CPU=1,Mem=0.5G,GRES/gpu=4", "GRES/gpu=1,Node=2"]),
    max_tres=st.booleans(),
    rule=st.sampled_from(["first_fit", "best_fit"]),
)
def test_multi_resource_runs_respect_every_node(
    w: SmallWorkload,
    shapes: list[Request],
    picks: list[int],
    weights: str,
    max_tres: bool,
    rule: str,
) -> None:
    capacities = [(4, 4096.0, 2)] * 2 + [(4, 2048.0, 0)] * 3
    requests = [shapes[k % len(shapes)] for k in picks[: len(w.submit)]]
    requests = [r if fits_ever(capacities, r) else Request.processors(3) for r in requests]
    policy = NodeMultifactor(
        NodeMultifactorParams(calc_period=3.0, tres_weights=weights, max_tres=max_tres)
    )
    user = [j % 3 for j in range(len(w.submit))]
    run = simulate_nodes(
        w.submit, w.run, w.req, requests, capacities, policy, rule, user=user, check=True
    )
    check_node_schedule(capacities, requests, run.started_at, run.finished_at, run.allocation)
    assert all(policy.usage(u) >= 0 for u in range(3))


@fuzz(60)
@given(
    w=small_workloads(max_jobs=40, max_procs=1),
    shapes=st.lists(
        st.builds(
            Request,
            nodes=st.integers(1, 3),
            cores_per_node=st.sampled_from([1, 2, 4]),
            mem_per_node=st.sampled_from([0.0, 700.5, 2048.0]),
            gpus_per_node=st.sampled_from([0, 0, 1, 2]),
            exclusive=st.sampled_from([False, False, True]),
        ),
        min_size=2,
        max_size=5,
    ),
    picks=st.lists(st.integers(0, 4), min_size=40, max_size=40),
    rule=st.sampled_from(["first_fit", "best_fit"]),
)
def test_equal_priorities_are_node_easy(
    w: SmallWorkload, shapes: list[Request], picks: list[int], rule: str
) -> None:
    """With every weight 0 all priorities tie, the queue is in arrival order and no tick
    comes during the run: the node reference's EASY, job for job."""
    capacities = [(4, 4096.0, 2)] * 2 + [(4, 2048.0, 0)] * 3
    requests = [shapes[k % len(shapes)] for k in picks[: len(w.submit)]]
    requests = [r if fits_ever(capacities, r) else Request.processors(3) for r in requests]
    zero = {"weight_age": 0.0, "weight_fairshare": 0.0, "weight_job_size": 0.0}
    policy = NodeMultifactor(NodeMultifactorParams(calc_period=1e9, **zero))
    run = simulate_nodes(w.submit, w.run, w.req, requests, capacities, policy, rule)
    ref = reference_simulate_nodes(w.submit, w.run, w.req, requests, capacities, "easy", rule)
    assert run.started_at.tolist() == ref["start"]
    assert run.allocation == ref["allocation"]


def test_a_refused_request_is_tried_again_after_a_start() -> None:
    """The case of test_node_easy_reference.py: X (long) is refused the core H needs on
    node 0, S takes that core, and Y, of X's request, then goes to node 1 and starts."""
    capacities = [(2, math.inf, 2), (2, math.inf, 0)]
    requests = [
        Request(1, 1, 0.0, 2),
        Request(1, 2, 0.0, 2),
        Request(1, 1),
        Request(1, 1, 512.0),
        Request(1, 1),
    ]
    submit = [0.0, 1.0, 1.0, 1.0, 1.0]
    run = [10.0, 10.0, 100.0, 5.0, 100.0]
    zero = {"weight_age": 0.0, "weight_fairshare": 0.0, "weight_job_size": 0.0}
    policy = NodeMultifactor(NodeMultifactorParams(calc_period=1e9, **zero))
    out = simulate_nodes(submit, run, run, requests, capacities, policy)
    assert out.started_at.tolist() == [0.0, 10.0, 10.0, 1.0, 1.0]
    ref = reference_simulate_nodes(submit, run, run, requests, capacities, "easy")
    assert out.started_at.tolist() == ref["start"] and out.allocation == ref["allocation"]
