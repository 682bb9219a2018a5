"""Runs on a cluster of node types in sweep files (issue 24): the ``cluster`` key of a
``[[workloads]]`` entry, its run ids, its errors (named by key path) and a tiny sweep of a
mixed CPU/GPU cluster through ``schedlab sweep``, resumed."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.scenarios import records_timeseries, scenario_of
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import Sweep, load_sweep
from schedlab.experiments.sweep_entries import WORKLOAD_KEYS
from schedlab.platform.cluster import read_cluster
from schedlab.scenario import Scenario, run
from schedlab.schedulers.nodes.registry import available_node_policies

# 4 CPU nodes of 4 cores and 8 GiB, 1 GPU node of 2 cores, 16 GiB and 2 GPUs: 18 cores
CLUSTER = """
name = "tiny"
[[nodes]]
name = "cpu"
count = 4
cores = 4
memory = "8G"
[[nodes]]
name = "gpu"
count = 1
cores = 2
memory = "16G"
gpus = 2
"""

# jobs with nodes, GPUs and memory (CSV columns found by their names), and one plain
# processor request (job 5: no node count)
JOBS = """
job_id,submit,run,requested_time,procs,nodes,gpus,mem,user
1,0,100,200,4,1,0,4G,1
2,5,50,100,2,1,2,8G,2
3,10,300,400,8,2,0,2G,1
4,12,60,100,1,1,1,1G,3
5,20,80,100,16,,,,2
6,30,40,50,2,1,2,1G,3
7,31,500,600,4,1,,,1
8,40,20,30,1,1,1,1G,2
"""

ON_CLUSTER = '[[workloads]]\npath = "jobs.csv"\ncluster = "cluster.toml"\n'


def node_policy() -> str:
    """A node policy to run (FCFS once it is written); the end-to-end tests wait for one."""
    names = available_node_policies()
    for name in ("fcfs", "easy", "conservative"):
        if name in names:
            return name
    pytest.skip("no node policy installed yet")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def sweep_of(tmp_path: Path, body: str) -> Sweep:
    write(tmp_path / "cluster.toml", CLUSTER)
    write(tmp_path / "jobs.csv", JOBS)
    return load_sweep(write(tmp_path / "s.toml", body))


def error_of(tmp_path: Path, body: str) -> str:
    with pytest.raises(ConfigError) as info:
        sweep_of(tmp_path, body)
    return str(info.value)


# --- RunConfig ------------------------------------------------------------------------------


def test_cluster_enters_the_run_id_only_when_set() -> None:
    """Runs without a cluster keep their pinned ids (test_sweep_grid); with one, the stored
    path enters the dict and the id, and from_dict reads it back."""
    plain = RunConfig(
        workload="lublin:jobs=50,procs=8,seed=1",
        policy="easy",
        params={"backfill_order": "sjf"},
        load_factor=0.8,
        seed=1,
    )
    assert plain.run_id == "d0a7673f90cc8c3b" and "cluster" not in plain.to_dict()
    assert not plain.on_nodes
    on = RunConfig(workload="jobs.csv", policy="fcfs", cluster="sub/cluster.toml")
    assert on.on_nodes and on.to_dict()["cluster"] == "sub/cluster.toml"
    back = RunConfig.from_dict(json.loads(json.dumps(on.to_dict())))
    assert back == on and back.run_id == on.run_id
    assert on.run_id != RunConfig(workload="jobs.csv", policy="fcfs").run_id


# --- parsing --------------------------------------------------------------------------------


def test_cluster_runs_differ_from_the_same_entry_on_procs(tmp_path: Path) -> None:
    """The path is stored normalised, relative to the sweep file; procs is unset; the
    default label says which cluster; the same entry without cluster is another run."""
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        path = "jobs.csv"
        cluster = "./sub/../cluster.toml"
        [[workloads]]
        path = "jobs.csv"
        procs = 18
        [[policies]]
        name = "conservative"
        [grid]
        load_factor = [1.0, 1.5]
        kill_on_overrun = [true, false]
        """,
    )
    on, off = sweep.runs[:4], sweep.runs[4:]
    assert len(on) == len(off) == 4
    assert {r.cluster for r in on} == {"cluster.toml"} and {r.procs for r in on} == {None}
    assert {r.cluster for r in off} == {None} and {r.procs for r in off} == {18}
    assert not {r.run_id for r in on} & {r.run_id for r in off}
    assert on[0].workload_label == "jobs.csv on cluster"
    assert off[0].workload_label == "jobs.csv"
    assert "cluster" in WORKLOAD_KEYS


def test_a_model_is_generated_for_the_clusters_cores(tmp_path: Path) -> None:
    """A model spec may leave out its machine size: it is stored as the cluster's cores;
    the scenario has the cluster, no procs, and a workload of 18 processors."""
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        model = "lublin:jobs=30"
        cluster = "cluster.toml"
        [[policies]]
        name = "conservative"
        [grid]
        seed = 3
        """,
    )
    (only,) = sweep.runs
    assert only.workload == "lublin:jobs=30,procs=18,seed=3" and only.cluster == "cluster.toml"
    scenario = scenario_of(only, str(sweep.base_dir))
    assert scenario.cluster == read_cluster(tmp_path / "cluster.toml")
    assert scenario.procs is None and scenario.workload.max_procs == 18
    assert scenario.options.timeseries is False  # node policies never preempt


def test_records_timeseries_on_node_types(tmp_path: Path) -> None:
    """A node run records no series (rebuilt from the jobs); processor runs are as before."""
    cluster = read_cluster(write(tmp_path / "cluster.toml", CLUSTER))
    assert records_timeseries("pps") and not records_timeseries("easy")
    assert not records_timeseries("pps", cluster) and not records_timeseries("easy", cluster)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (ON_CLUSTER + "procs = 18\n", ["workloads[0].cluster", "without procs"]),
        (ON_CLUSTER + "[grid]\nprocs = 18\n", ["workloads[0].cluster", "grid.procs"]),
        (
            ON_CLUSTER + 'platform = "cluster.toml"\n',
            ["workloads[0].cluster", "without platform"],
        ),
        (
            '[[workloads]]\npath = "jobs.csv"\n' + ON_CLUSTER.replace("cluster.toml", "nope.toml"),
            ["workloads[1].cluster", "nope.toml", "an existing cluster file"],
        ),
        (ON_CLUSTER.replace('"cluster.toml"', "3"), ["workloads[0].cluster", "cluster file"]),
        (
            '[[workloads]]\nmodel = "lublin:jobs=30,procs=16"\ncluster = "cluster.toml"\n',
            ["workloads[0].model", "procs is the cluster's cores (18)"],
        ),
    ],
)
def test_errors_name_the_key_path(tmp_path: Path, body: str, words: list[str]) -> None:
    message = error_of(tmp_path, body + '[[policies]]\nname = "conservative"\n')
    for word in words:
        assert word in message, message


def test_a_mistake_in_the_cluster_file_names_the_entry(tmp_path: Path) -> None:
    write(tmp_path / "bad.toml", CLUSTER.replace('"16G"', '"16Q"'))
    body = ON_CLUSTER.replace("cluster.toml", "bad.toml") + '[[policies]]\nname = "conservative"\n'
    message = error_of(tmp_path, body)
    assert "workloads[0].cluster (nodes[1].memory)" in message and "16Q" in message


def test_a_policy_without_a_node_version_is_refused(tmp_path: Path) -> None:
    """pps is exact only on a pooled processor count: the error names the policy, the entry
    and why; the same policy on the procs entry alone is fine."""
    message = error_of(
        tmp_path,
        '[[workloads]]\npath = "jobs.csv"\nprocs = 18\n'
        + ON_CLUSTER
        + '[[policies]]\nname = "conservative"\n[[policies]]\nname = "pps"\n',
    )
    assert "workloads[1].cluster" in message and "policy pps" in message
    assert "preemptions" in message  # pooled_only_reason
    alone = sweep_of(
        tmp_path, '[[workloads]]\npath = "jobs.csv"\nprocs = 18\n[[policies]]\nname = "pps"\n'
    )
    assert len(alone) == 1


# --- running --------------------------------------------------------------------------------


def test_a_tiny_cluster_sweep_runs_resumes_and_matches_a_direct_run(tmp_path: Path) -> None:
    """`schedlab sweep` runs the entry on the nodes (GPU jobs on the GPU node), a second
    call runs nothing, and the stored per-job table is that of the Scenario run directly."""
    policy = node_policy()
    write(tmp_path / "cluster.toml", CLUSTER)
    write(tmp_path / "jobs.csv", JOBS)
    sweep_file = write(
        tmp_path / "s.toml",
        f"""
        [[workloads]]
        path = "jobs.csv"
        cluster = "cluster.toml"
        [[workloads]]
        path = "jobs.csv"
        procs = 18
        [[policies]]
        name = "{policy}"
        """,
    )
    out = tmp_path / "out"
    args = ["sweep", str(sweep_file), "--out", str(out), "--workers", "1", "--json"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["done"], report["failed"]) == (2, 0), report
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert (json.loads(again.stdout)["done"], json.loads(again.stdout)["skipped"]) == (0, 2)

    sweep = load_sweep(sweep_file)
    on = next(r for r in sweep.runs if r.cluster is not None)
    store = ResultStore(out)
    jobs = store.jobs(on.run_id)
    assert store.config(on.run_id)["cluster"] == "cluster.toml"
    gpu_jobs = jobs[jobs["gpus"] > 0]
    assert len(gpu_jobs) == 4 and set(gpu_jobs["nodes_used"]) == {"gpu0"}
    assert store.meta(on.run_id)["timeseries_recorded"] is False
    assert int(store.timeseries(on.run_id)["running"].iloc[-1]) == 0
    direct = run(
        Scenario(
            workload=str(tmp_path / "jobs.csv"),
            policy=policy,
            cluster=read_cluster(tmp_path / "cluster.toml"),
        )
    ).columns
    assert np.array_equal(jobs["started_at"].to_numpy(), direct["started_at"])
    assert list(jobs["nodes_used"]) == list(direct["nodes_used"])
