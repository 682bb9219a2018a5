"""Metrics of runs on nodes (`schedlab.metrics.nodes`, issue 24 item 5): what each job held,
the Slurm hostlists, per-resource utilization, GPU-hours and fragmentation, each computed by
hand on a few jobs; fragmentation also against a slow sweep that rebuilds the node state at
every instant (`placement.NodeState`, `fitting_nodes`); and the one-run plot's GPU figure,
drawn only for runs with GPUs."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedlab
from schedlab.metrics import nodes as node_metrics
from schedlab.metrics.nodes import (
    NODE_KEYS,
    held_resources,
    hostlist,
    hostlists,
    node_capacities,
    node_summary,
    occupancy_series,
)
from schedlab.platform.cluster import ClusterSpec, NodeType
from schedlab.platform.placement import Allocation, NodeState, Request, fitting_nodes, place
from schedlab.workload.load import load_workload
from strategies import fuzz

H = 3600.0  # the scenarios count in hours


def _alloc(
    nodes: tuple[int, ...],
    cores: tuple[int, ...],
    memory: float = 0.0,
    gpus: int = 0,
    exclusive: bool = False,
) -> Allocation:
    k = len(nodes)
    return Allocation(nodes, cores, (memory,) * k, (gpus,) * k, exclusive)


def _summary(
    cluster: ClusterSpec | list[tuple[int, float, int]], jobs: list[tuple], warmup: int = 0
) -> dict[str, float]:
    """``jobs``: (submit h, start h, end h, request, allocation) in submit order."""
    submit, start, end = (np.array([j[k] * H for j in jobs]) for k in range(3))
    requests = [j[3] for j in jobs]
    allocations = [j[4] for j in jobs]
    cores, _, gpus = node_capacities(cluster)
    held = held_resources(allocations, cores, gpus)
    return node_summary(
        cluster,
        submit,
        start,
        end,
        held[0],
        held[1],
        held[2],
        requests,
        allocations,
        warmup=warmup,
    )


# -- two nodes: a GPU job, an exclusive job, a job waiting behind a fragmented cluster ----------

# cpu0: 4 cores, 8 GiB; gpu0: 4 cores, 8 GiB, 2 GPUs
MIXED = ClusterSpec("mixed", (NodeType("cpu", 1, 4, 8192.0, 0), NodeType("gpu", 1, 4, 8192.0, 2)))
MIXED_JOBS = [
    # J0: a GPU job on gpu0, 0-6 h: 2 cores, 1 GiB, 2 GPUs
    (0, 0, 6, Request(1, 2, 1024.0, 2), _alloc((1,), (2,), 1024.0, 2)),
    # J1: exclusive on cpu0, 0-4 h: asks 1 core and 2 GiB, holds the 4 cores
    (0, 0, 4, Request(1, 1, 2048.0, 0, True), _alloc((0,), (4,), 2048.0, 0, True)),
    # J2: 3 cores on one node, submitted at 1 h: cpu0 is held whole, gpu0 has 2 free cores:
    # it waits until J1 ends (4 h) while gpu0's 2 free cores are stranded
    (1, 4, 8, Request(1, 3), _alloc((0,), (3,))),
    # J3: 4 processors anywhere, submitted at 5 h: 1 + 2 free until J0 ends at 6 h
    (5, 6, 7, Request.processors(4), _alloc((0, 1), (1, 3))),
]


def test_held_resources_count_whole_nodes_for_exclusive_jobs() -> None:
    """J1 asks 1 core but holds cpu0's 4 (and its 2 GiB); J3 holds 4 cores on 2 nodes; a job
    never started holds nothing."""
    cores, _, gpus = node_capacities(MIXED)
    allocations = [j[4] for j in MIXED_JOBS] + [None]
    held = held_resources(allocations, cores, gpus)
    assert held[0].tolist() == [2, 4, 3, 4, 0]
    assert held[1].tolist() == [1024.0, 2048.0, 0.0, 0.0, 0.0]
    assert held[2].tolist() == [2, 0, 0, 0, 0]
    assert held[3].tolist() == [1, 1, 1, 2, 0]
    assert [a.dtype.kind for a in held] == ["i", "f", "i", "i"]
    # an exclusive allocation holds the whole node's GPUs even if it recorded fewer
    whole = held_resources([_alloc((1,), (1,), 0.0, 0, True)], cores, gpus)
    assert (whole[0][0], whole[2][0]) == (4, 2)


def test_mixed_cluster_by_hand() -> None:
    """Span 0-8 h, 8 cores, 16 GiB, 2 GPUs. Cores: 2x6 + 4x4 + 3x4 + 4x1 = 44 of 64 core-h.
    Memory: 1x6 + 2x4 = 14 of 128 GiB-h. GPUs: 2x6 = 12 of 16 GPU-h, 4 idle. Some job waits
    1-4 h (J2, stranded: gpu0's 2 free cores, too few for 3: 6 core-h) and 5-6 h (J3, a plain
    request: nothing stranded): 6 / (8 x 4) = 0.1875."""
    out = _summary(MIXED, MIXED_JOBS)
    assert list(out) == list(NODE_KEYS)
    assert out["core_utilization"] == pytest.approx(44 / 64)
    assert out["memory_utilization"] == pytest.approx(14 / 128)
    assert out["gpu_utilization"] == pytest.approx(12 / 16)
    assert out["gpu_hours_used"] == pytest.approx(12)
    assert out["gpu_hours_idle"] == pytest.approx(4)
    assert out["fragmented_core_hours"] == pytest.approx(6)
    assert out["fragmentation"] == pytest.approx(6 / 32)


def test_warmup_leaves_jobs_out_but_keeps_their_nodes() -> None:
    """Without J0: span still 0-8 h, cores 32 of 64 core-h, no GPU-hours used; J0 still holds
    gpu0's cores, so J2's wait strands the same 6 core-h."""
    out = _summary(MIXED, MIXED_JOBS, warmup=1)
    assert out["core_utilization"] == pytest.approx(32 / 64)
    assert out["gpu_hours_used"] == 0 and out["gpu_hours_idle"] == pytest.approx(16)
    assert out["fragmented_core_hours"] == pytest.approx(6)
    assert out["fragmentation"] == pytest.approx(6 / 32)


def test_an_exclusive_job_cannot_use_a_node_with_a_job_on_it() -> None:
    """Two nodes of 4 cores, memory unconstrained, no GPUs (so no memory or GPU keys). K2
    (exclusive) waits 0-2 h: node0 has 3 free cores but K0 runs there, node1 is full: 3 x 2 =
    6 core-h stranded over 8 cores x 2 h. Cores: 1x2 + 4x3 + 4x2 = 22 of 32 core-h."""
    cluster = [(4, math.inf, 0), (4, math.inf, 0)]
    jobs = [
        (0, 0, 2, Request(1, 1), _alloc((0,), (1,))),
        (0, 0, 3, Request(1, 4), _alloc((1,), (4,))),
        (0, 2, 4, Request(1, 1, 0.0, 0, True), _alloc((0,), (4,), 0.0, 0, True)),
    ]
    out = _summary(cluster, jobs)
    assert list(out) == ["core_utilization", "fragmentation", "fragmented_core_hours"]
    assert out["core_utilization"] == pytest.approx(22 / 32)
    assert out["fragmented_core_hours"] == pytest.approx(6)
    assert out["fragmentation"] == pytest.approx(6 / 16)


def test_free_cores_without_the_memory_are_stranded() -> None:
    """Two nodes of 8 cores and 4 GiB: L0 takes node0's memory with 1 core, L1 node1's cores;
    L2 (2 cores, 1 GiB) waits 0-1 h beside node0's 7 free cores: 7 core-h over 16 x 1.
    Memory: 4 + 1 of 8 x 2 GiB-h."""
    cluster = [(8, 4096.0, 0), (8, 4096.0, 0)]
    jobs = [
        (0, 0, 1, Request(1, 1, 4096.0), _alloc((0,), (1,), 4096.0)),
        (0, 0, 2, Request(1, 8), _alloc((1,), (8,))),
        (0, 1, 2, Request(1, 2, 1024.0), _alloc((0,), (2,), 1024.0)),
    ]
    out = _summary(cluster, jobs)
    assert out["fragmented_core_hours"] == pytest.approx(7)
    assert out["fragmentation"] == pytest.approx(7 / 16)
    assert out["memory_utilization"] == pytest.approx((4 + 1) / 16)


def test_each_wait_strands_by_its_own_next_job() -> None:
    """Two nodes of 4 cores. C (3 cores) waits 1-2 h beside node1's 2 free cores: 2 core-h.
    Nobody waits 2-3 h; D (2 nodes x 2 cores), submitted at 3 h with nothing else happening
    then, waits until 6 h: node1 fits its share, node0 has 1 free core that does not: 3
    core-h. 5 core-h over 8 cores x 4 h of waiting. (A sweep that let D's wait continue C's
    would count C's 2 cores at 3-4 h.)"""
    cluster = [(4, math.inf, 0), (4, math.inf, 0)]
    jobs = [
        (0, 0, 2, Request(1, 4), _alloc((0,), (4,))),
        (0, 0, 4, Request(1, 2), _alloc((1,), (2,))),
        (1, 2, 6, Request(1, 3), _alloc((0,), (3,))),
        (3, 6, 7, Request(2, 2), _alloc((0, 1), (2, 2))),
    ]
    out = _summary(cluster, jobs)
    assert out["fragmented_core_hours"] == pytest.approx(5)
    assert out["fragmentation"] == pytest.approx(5 / 32)
    assert out["core_utilization"] == pytest.approx((8 + 8 + 12 + 4) / 56)


def test_nothing_waits_nothing_is_stranded() -> None:
    jobs = [
        (0, 0, 1, Request(1, 1), _alloc((0,), (1,))),
        (2, 2, 3, Request(1, 1), _alloc((1,), (1,))),
    ]
    out = _summary([(2, 1024.0, 0), (2, 1024.0, 0)], jobs)
    assert out["fragmentation"] == 0 and out["fragmented_core_hours"] == 0
    assert out["core_utilization"] == pytest.approx(2 / (4 * 3))
    empty = node_summary([(1, 1.0, 1)], *([np.zeros(0)] * 6), [], [])
    assert empty == dict.fromkeys(NODE_KEYS, 0.0)


# -- against a slow sweep ---------------------------------------------------------------------


def _greedy(
    caps: list[tuple[int, float, int]],
    submit: list[float],
    run: list[float],
    requests: list[Request],
) -> tuple[np.ndarray, np.ndarray, list[Allocation | None]]:
    """A list scheduler on nodes: at each instant, ends, then every waiting job that fits, in
    submit order (it backfills anything, so jobs wait behind a fragmented cluster)."""
    n = len(submit)
    state = NodeState(caps)
    start, end = np.full(n, np.nan), np.full(n, np.nan)
    allocations: list[Allocation | None] = [None] * n
    waiting: list[int] = []
    instants = sorted(set(submit))
    while instants:
        now = instants.pop(0)
        for j in range(n):
            if end[j] == now:
                state.release(allocations[j])
        waiting += [j for j in range(n) if submit[j] == now]
        for j in list(waiting):
            alloc = place(state, requests[j])
            if alloc is not None:
                state.allocate(alloc)
                allocations[j], start[j], end[j] = alloc, now, now + run[j]
                waiting.remove(j)
                instants = sorted(set(instants) | {now + run[j]})
    return start, end, allocations


def _slow_stranded(caps, submit, start, end, requests, allocations) -> tuple[float, float]:
    """(stranded core-seconds, seconds some job waits): the node state rebuilt at every
    instant, the next job found by scanning, its share tested by `fitting_nodes`."""
    times = sorted({*submit, *start[np.isfinite(start)], *end[np.isfinite(end)]})
    stranded = waiting = 0.0
    for t0, t1 in zip(times, times[1:]):
        state = NodeState(caps)
        for j, alloc in enumerate(allocations):
            if alloc is not None and start[j] <= t0 < end[j]:
                state.allocate(alloc)
        queue = [j for j in range(len(submit)) if submit[j] <= t0 and not start[j] <= t0]
        if not queue:
            continue
        waiting += t1 - t0
        head = min(queue, key=lambda j: (submit[j], j))
        if requests[head].nodes is not None:
            stuck = ~fitting_nodes(state, requests[head])
            stranded += float(state.free_cores[stuck].sum()) * (t1 - t0)
    return stranded, waiting


@st.composite
def _runs(draw: st.DrawFn) -> tuple:
    caps = draw(
        st.lists(
            st.tuples(
                st.integers(1, 4), st.sampled_from([2048.0, 4096.0, math.inf]), st.integers(0, 2)
            ),
            min_size=1,
            max_size=4,
        )
    )
    least_cores = min(c for c, _, _ in caps)
    least_memory = min(m for _, m, _ in caps)
    least_gpus = min(g for _, _, g in caps)
    node_request = st.builds(
        Request,
        nodes=st.integers(1, len(caps)),
        cores_per_node=st.integers(1, least_cores),
        mem_per_node=st.sampled_from([0.0, 1024.0, 2048.0]).filter(lambda m: m <= least_memory),
        gpus_per_node=st.integers(0, least_gpus),
        exclusive=st.booleans(),
    )
    plain = st.builds(Request.processors, st.integers(1, sum(c for c, _, _ in caps)))
    n = draw(st.integers(2, 8))
    requests = draw(st.lists(st.one_of(node_request, plain), min_size=n, max_size=n))
    submit = sorted(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    return caps, [float(s) for s in submit], [float(r) for r in run], requests


@fuzz(120)
@given(_runs(), st.booleans())
def test_fragmentation_equals_a_slow_sweep(case: tuple, chunked: bool) -> None:
    """Random small clusters and jobs, placed by a greedy list scheduler (about a third of
    the cases strand cores); ``chunked``: the fast sweep works one instant at a time,
    carrying the node state from chunk to chunk."""
    caps, submit, run, requests = case
    start, end, allocations = _greedy(caps, submit, run, requests)
    submitted = np.array(submit)
    stranded, waiting = _slow_stranded(caps, submitted, start, end, requests, allocations)
    cores, _, gpus = node_capacities(caps)
    held = held_resources(allocations, cores, gpus)
    saved = node_metrics._CHUNK_CELLS, node_metrics._MIN_ROWS
    if chunked:
        node_metrics._CHUNK_CELLS, node_metrics._MIN_ROWS = 1, 1
    try:
        out = node_summary(caps, submitted, start, end, *held[:3], requests, allocations)
    finally:
        node_metrics._CHUNK_CELLS, node_metrics._MIN_ROWS = saved
    assert out["fragmented_core_hours"] == pytest.approx(stranded / H, abs=1e-12)
    expected = stranded / (int(cores.sum()) * waiting) if waiting else 0.0
    assert out["fragmentation"] == pytest.approx(expected, abs=1e-12)


# -- hostlists and occupancy ------------------------------------------------------------------

HOSTS = ClusterSpec(
    "hosts", (NodeType("cpu", 400, 64), NodeType("gpu", 8, 32, gpus=4), NodeType("big", 2, 128))
)


def test_hostlist_forms() -> None:
    """Nodes 400..403 are gpu0..gpu3; ranges and singles mix; types in node order; order and
    repeats of the input do not matter."""
    assert HOSTS.first_node == (0, 400, 408)
    assert hostlist([400, 401, 402, 403], HOSTS) == "gpu[0-3]"
    assert hostlist([407], HOSTS) == "gpu7"
    assert hostlist([0], HOSTS) == "cpu0"
    assert hostlist([409, 3, 400, 5, 4, 401, 402, 407], HOSTS) == "cpu[3-5],gpu[0-2,7],big1"
    assert hostlist([3, 3, 1], HOSTS) == "cpu[1,3]"
    assert hostlist([], HOSTS) == ""
    for bad in (-1, 410):
        with pytest.raises(ValueError, match=f"node {bad} is not a node of cluster hosts"):
            hostlist([bad], HOSTS)


def test_hostlists_per_job() -> None:
    allocations = [_alloc((399, 400), (1, 1)), None, _alloc((399, 400), (2, 2)), _alloc((7,), (1,))]
    out = hostlists(allocations, HOSTS)
    assert out.dtype == object
    assert out.tolist() == ["cpu399,gpu0", "", "cpu399,gpu0", "cpu7"]


def test_occupancy_series_by_hand() -> None:
    """Jobs (start, end, cores, GPUs): (0, 10, 2, 1), (5, 10, 4, 0), (5, 20, 1, 2), one never
    started: cores 2, 7, 1, 0 from 0, 5, 10, 20; GPUs 1, 3, 2, 0."""
    times, cores, gpus = occupancy_series(
        np.array([0.0, 5.0, 5.0, np.nan]),
        np.array([10.0, 10.0, 20.0, np.nan]),
        np.array([2, 4, 1, 8]),
        np.array([1, 0, 2, 8]),
    )
    assert times.tolist() == [0, 5, 10, 20]
    assert cores.tolist() == [2, 7, 1, 0]
    assert gpus.tolist() == [1, 3, 2, 0]


# -- the one-run plot ---------------------------------------------------------------------------

single = pytest.importorskip("schedlab.report.single")


GPU_CLUSTER = ClusterSpec(
    "gpu-test", (NodeType("cpu", 2, 4, 8192.0), NodeType("gpu", 2, 4, 8192.0, gpus=2))
)


@pytest.fixture(scope="module")
def runs() -> tuple[schedlab.SimulationResult, schedlab.SimulationResult]:
    """The same 40 jobs on 4 nodes, as plain processor requests (no GPU asked: the cluster
    has GPUs all the same) and with every third job asking 1 node x 2 cores x 1 GPU."""
    workload = load_workload("lublin:jobs=40,procs=16,seed=3")
    n = len(workload)
    gpu_jobs = np.arange(n) % 3 == 0
    asks = {
        "req_nodes": np.where(gpu_jobs, 1.0, np.nan),
        "req_cores_per_node": np.where(gpu_jobs, 2.0, np.nan),
        "req_gpus_per_node": np.where(gpu_jobs, 1.0, np.nan),
    }
    with_gpus = dataclasses.replace(workload, attributes={**workload.attributes, **asks})
    return (
        schedlab.simulate(workload, "fcfs", cluster=GPU_CLUSTER),
        schedlab.simulate(with_gpus, "fcfs", cluster=GPU_CLUSTER),
    )


def test_the_gpu_figure_only_for_runs_with_gpus(runs: tuple) -> None:
    """On a cluster with GPUs the fifth figure draws GPUs busy / 4 (solid) beside cores
    busy / 16 (dashed), within [0, 1], the Gantt window shaded; the panels get a fifth axes
    and the page a fifth chart. A processor run keeps the four figures as they were."""
    plain, gpu_run = runs
    assert gpu_run.columns["gpus"].max() == 1
    figs = single.figures_of(gpu_run)
    assert list(figs) == [*single.FIGURES, single.GPU_FIGURE]
    ax = figs[single.GPU_FIGURE].axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"cores", "GPUs"}
    assert lines["cores"].get_linestyle() == "--" and lines["GPUs"].get_linestyle() == "-"
    gpu_share = np.asarray(lines["GPUs"].get_ydata())
    assert 0 < gpu_share.max() <= 1 and gpu_share.min() >= 0
    assert ax.get_ylim() == (0, 1.05)
    assert ax.patches  # the Gantt window
    assert len(single.panels(gpu_run).axes) == 5
    page = single.render_html(gpu_run)
    assert 'data-figures="5"' in page and 'data-chart="gpus"' in page

    # no GPU asked: the panel still shows the idle GPUs; a run without a cluster has none
    assert list(single.figures_of(plain)) == [*single.FIGURES, single.GPU_FIGURE]
    processors = schedlab.simulate("lublin:jobs=40,procs=16,seed=3", "fcfs")
    assert list(single.figures_of(processors)) == list(single.FIGURES)
    assert len(single.panels(processors).axes) == 4
