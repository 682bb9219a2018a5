"""Runs on node types through the front door (issue 24): `schedlab run LOG --platform
CLUSTER.toml`, `simulate(..., cluster=...)`, partitions, what is refused and why."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from in_process import main_in_process
from schedlab import simulate
from schedlab.platform.cluster import ClusterSpec, read_cluster
from schedlab.platform.node_types import NodeType
from schedlab.platform.placement import NodeState, Request, never_fits_reason, place
from schedlab.workload.job import Workload

ROOT = Path(__file__).resolve().parents[2]
SACCT_GPU = ROOT / "tests" / "data" / "logs" / "sacct_gpu.txt"
CLUSTER_GPU = ROOT / "src" / "schedlab" / "examples" / "cluster-gpu.toml"

SMALL = """
name = "small"
[[nodes]]
name = "cpu"
count = 3
cores = 8
memory = "32G"
partitions = ["cpu"]
[[nodes]]
name = "gpu"
count = 2
cores = 8
memory = "64G"
gpus = 4
partitions = ["gpu"]
"""


def test_the_issue_command_replays_a_slurm_log_with_gpus_on_the_mixed_cluster(capsys, tmp_path):
    """Done means: schedlab run sacct.txt --platform cluster-gpu.toml --policy easy --by gpus,
    with --check clean; the per-job table keeps its columns and adds the nodes used."""
    jobs_out = tmp_path / "jobs.csv"
    code, out, err = main_in_process(
        capsys,
        "run", str(SACCT_GPU), "--platform", str(CLUSTER_GPU), "--policy", "easy",
        "--by", "gpus", "--check", "--json", "--jobs-out", str(jobs_out),
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    for key in ("gpu_utilization", "gpu_hours_used", "gpu_hours_idle", "core_utilization",
                "memory_utilization", "fragmentation"):  # fmt: skip
        assert 0 <= summary[key] < np.inf, key
    assert 0 < summary["gpu_utilization"] <= 1
    # the job asking 16 GPUs on one node fits no node of 8: skipped, counted by reason
    assert summary["skipped_by_reason"]["gpus_per_node_above_every_node"] == 1
    by = {row["gpus"]: row for row in summary["by_gpus"]}
    assert 0 in by and any(g > 0 for g in by)
    assert sum(row["jobs"] for row in summary["by_gpus"]) == summary["jobs"]
    jobs = pd.read_csv(jobs_out, keep_default_na=False)
    for column in ("job_id", "submitted_at", "started_at", "finished_at", "nodes_used"):
        assert column in jobs.columns
    gpu_jobs = jobs[jobs["gpus"] > 0]
    assert len(gpu_jobs) > 0
    # GPUs exist on the gpu nodes only: every job holding GPUs ran there alone
    assert gpu_jobs["nodes_used"].str.fullmatch(r"gpu(\[[0-9,-]+\]|[0-9]+)").all()
    assert (jobs["started_at"] >= jobs["submitted_at"]).all()


def test_single_core_nodes_are_the_processor_model_bit_for_bit(lublin_small):
    """A cluster of single-core nodes without memory limits is --procs P: same table."""
    wl = lublin_small
    cluster = ClusterSpec.single_core(wl.max_procs)
    for policy in ("fcfs", "easy", "conservative"):
        a = simulate(wl, policy, cluster=cluster).jobs
        b = simulate(wl, policy).jobs
        pd.testing.assert_frame_equal(a, b)


@pytest.fixture
def lublin_small() -> Workload:
    from schedlab.workload.models.lublin import generate_lublin

    return generate_lublin(jobs=300, procs=32, seed=3, load=0.9, kind="all")


def _workload(rows, partitions=None) -> Workload:
    """Jobs (submit, run, req, nodes, cores/node, gpus/node, partition) of a small log."""
    n = len(rows)
    fields = np.full((n, 18), -1.0)
    for j, (submit, run, req, nodes, cores, _gpus, part) in enumerate(rows):
        fields[j, 0] = j + 1
        fields[j, 1] = submit
        fields[j, 3] = run
        fields[j, 4] = fields[j, 7] = nodes * cores
        fields[j, 8] = req
        fields[j, 15] = part
    header = [f"Partition: {k} {name}" for k, name in (partitions or {}).items()]
    attrs = {
        "req_nodes": np.array([r[3] for r in rows], dtype=float),
        "req_cores_per_node": np.array([r[4] for r in rows], dtype=float),
        "req_gpus_per_node": np.array([r[5] for r in rows], dtype=float),
    }
    return Workload.from_fields(fields, max_procs=40, header=header, attributes=attrs)


def test_partitions_keep_jobs_on_their_nodes_and_skip_the_unknown(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    cluster = read_cluster(path)
    assert cluster.partitions == ("cpu", "gpu")
    rows = [
        (0, 100, 100, 1, 8, 0, 1),  # cpu partition: only cpu nodes
        (0, 100, 100, 1, 8, 0, 1),
        (0, 100, 100, 1, 8, 0, 1),
        (0, 100, 100, 1, 8, 0, 1),  # the cpu nodes are full: waits, never goes to gpu nodes
        (0, 100, 100, 1, 2, 1, 2),  # gpu partition
        (0, 100, 100, 1, 2, 0, 3),  # partition "debug": no node lists it -> skipped
        (0, 100, 100, 1, 2, 0, -1),  # no partition: any node
    ]
    wl = _workload(rows, {1: "cpu", 2: "gpu", 3: "debug"})
    result = simulate(wl, "fcfs", cluster=cluster, check=True)
    jobs = result.jobs
    assert len(jobs) == 6
    assert result.workload.skipped["no_node_in_its_partition"] == 1
    assert list(jobs["nodes_used"][:4]) == ["cpu0", "cpu1", "cpu2", "cpu0"]
    assert list(jobs["started_at"][:4]) == [0, 0, 0, 100]
    assert jobs["nodes_used"][4].startswith("gpu")
    # FCFS: the job without a partition waits behind the fourth cpu job
    assert jobs["started_at"][5] == 100


def test_placement_respects_partition_masks():
    state = NodeState([(4, 100.0, 0), (4, 100.0, 2), (4, 100.0, 0)], partitions=[0b01, 0b10, -1])
    gpu = Request(nodes=1, cores_per_node=2, gpus_per_node=1, partition=1)
    assert place(state, gpu).nodes == (1,)
    assert place(state, Request(nodes=2, cores_per_node=1, partition=0)).nodes == (0, 2)
    assert place(state, Request.processors(9, partition=0)) is None  # 8 cores in partition 0
    assert place(state, Request.processors(8, partition=0)).nodes == (0, 2)
    assert never_fits_reason(state, Request(nodes=1, cores_per_node=1, partition=5)) is None
    lonely = NodeState([(4, 100.0, 0)], partitions=[0b01])
    reason = never_fits_reason(lonely, Request(nodes=1, cores_per_node=1, partition=1))
    assert reason == "no_node_in_its_partition"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--policy", "pps"], ["pps", "node"]),
        (["--procs", "64"], ["--procs", "--platform"]),
        (["--placement", "worst_fit"], ["--placement", "first_fit"]),
    ],
)
def test_what_node_types_refuse_is_said_before_any_work(capsys, args, words):
    code, out, err = main_in_process(
        capsys, "run", str(SACCT_GPU), "--platform", str(CLUSTER_GPU), *args
    )
    assert code == 2
    assert "Traceback" not in err
    for word in words:
        assert word in err


def test_by_gpus_and_placement_need_a_cluster(capsys):
    code, _, err = main_in_process(capsys, "run", str(SACCT_GPU), "--by", "gpus")
    assert code == 2 and "--platform" in err
    code, _, err = main_in_process(capsys, "run", str(SACCT_GPU), "--placement", "best_fit")
    assert code == 2 and "--platform" in err


def test_node_power_other_than_one_is_refused_on_a_cluster_run(lublin_small):
    cluster = ClusterSpec(name="fast", node_types=(NodeType("n", 8, 4, 8192.0, power=2.0),))
    with pytest.raises(Exception, match="power"):
        simulate(lublin_small, "easy", cluster=cluster)


def test_policies_lists_which_run_on_node_types(capsys):
    code, out, _ = main_in_process(capsys, "policies")
    assert code == 0
    assert "on node types" in out
    assert "refused" in out and "pps" in out
