"""Grid queues described by node types (issue 24: "Grid queues accept the same node types").

A queue may list ``[[sites.queues.nodes]]`` tables (a cluster file's ``[[nodes]]`` keys)
instead of ``groups``; its pool then has, per node type, a group of (power, count x cores)
processors. Grid jobs ask only for processor counts, and plain requests on nodes reduce
exactly to a pool of their cores (tests/reference_nodes.py, "Reduction to the processor
model"), so a platform written with node types must run exactly as the same platform written
with groups: that is what these tests check, job by job, with the groups written by hand.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.grid.platforms import load_platform
from schedlab.platform.cluster import NodeType
from schedlab.platform.description import DEFAULT_MAX_NODES, Platform, Queue
from schedlab.platform.files import PlatformFileError
from schedlab.simulation import run_grid
from schedlab.workload.grid import GridWorkload
from schedlab.workload.models.grid import generate_grid

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

HEAD = """\
seed = 3
[wan]
bandwidth_mbit = 100
latency_s = 0.01
"""

# lyon/batch: 4 CPU nodes of 8 cores at 80 NCU/s and 2 GPU nodes of 8 cores at 120 NCU/s,
# i.e. groups [[120.0, 16], [80.0, 32]]; lyon/express: 1 node of 4 cores at 80;
# cern/default: 3 nodes of 8 cores at 100, i.e. [[100.0, 24]]
GROUPS = (
    HEAD
    + """\
[[sites]]
name = "lyon"
[sites.lan]
bandwidth_mbit = 1000
[[sites.queues]]
name = "batch"
policy = "easy"
t_max = 20000
mu_rec = 2
mu_env = 1
groups = [[80.0, 32], [120.0, 16]]
[[sites.queues]]
name = "express"
placement = "slowest"
groups = [[80.0, 4]]
[[sites]]
name = "cern"
[[sites.queues]]
name = "default"
policy = "pps"
groups = [[100.0, 24]]
"""
)

NODE_TYPES = (
    HEAD
    + """\
[[sites]]
name = "lyon"
[sites.lan]
bandwidth_mbit = 1000
[[sites.queues]]
name = "batch"
policy = "easy"
t_max = 20000
mu_rec = 2
mu_env = 1
[[sites.queues.nodes]]
name = "cpu"
count = 4
cores = 8
memory = "64G"
power = 80.0
[[sites.queues.nodes]]
name = "gpu"
count = 2
cores = 8
memory = "256G"
gpus = 4
power = 120.0
[sites.queues.nodes.gres]
nvme = 2
[[sites.queues]]
name = "express"
placement = "slowest"
[[sites.queues.nodes]]
name = "small"
count = 1
cores = 4
memory = 16384
power = 80.0
[[sites]]
name = "cern"
[[sites.queues]]
name = "default"
policy = "pps"
[[sites.queues.nodes]]
name = "node"
count = 3
cores = 8
memory = "32G"
power = 100.0
"""
)


def write(tmp_path: Path, text: str, name: str = "platform.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def both(tmp_path: Path) -> tuple[Platform, Platform]:
    """The platform written with groups, and with node types."""
    return (
        load_platform(write(tmp_path, GROUPS, "groups.toml")),
        load_platform(write(tmp_path, NODE_TYPES, "nodes.toml")),
    )


# -- the queue's pool is its node types' cores --------------------------------------------------
def test_node_types_give_the_pools_of_the_equivalent_groups(tmp_path: Path) -> None:
    groups, nodes = both(tmp_path)
    assert nodes.pool_specs() == groups.pool_specs()  # names, groups, policies, seeds
    batch = nodes.queues()[0]
    assert batch.groups == ((120.0, 16), (80.0, 32)) and batch.nodes == 48
    assert [q.nodes for q in nodes.queues()] == [48, 4, 24]
    assert nodes.total_nodes == 76 and nodes.mean_power == groups.mean_power
    assert all(not q.node_types for q in groups.queues())


def test_memory_gpus_and_gres_are_recorded_on_the_queue(tmp_path: Path) -> None:
    _, nodes = both(tmp_path)
    cpu, gpu = nodes.queues()[0].node_types
    assert cpu == NodeType("cpu", 4, 8, 64 * 1024.0, 0, {}, 80.0)
    assert gpu == NodeType("gpu", 2, 8, 256 * 1024.0, 4, {"nvme": 2}, 120.0)
    assert nodes.queues()[1].node_types[0].memory_mib == 16384.0
    assert nodes.queues()[0].where == "sites[0].queues[0]"
    # a value: equal, picklable (sweep workers) and kept when every queue's policy changes
    assert pickle.loads(pickle.dumps(nodes)) == nodes
    tdcs = nodes.with_queue_policy("fcfs", {})
    assert tdcs.queues()[0].node_types == (cpu, gpu) and tdcs.pool_specs()[0].policy == "fcfs"


def test_a_queue_built_in_code_from_node_types() -> None:
    types = (NodeType("a", 2, 4, power=10.0), NodeType("b", 1, 2, power=10.0))
    queue = Queue("s", "q", (), node_types=types)
    assert queue.groups == ((10.0, 10),)
    assert Queue("s", "q", ((10.0, 10),), node_types=types) == queue
    with pytest.raises(ConfigError, match="the groups of its node types"):
        Queue("s", "q", ((10.0, 9),), node_types=types)
    with pytest.raises(ConfigError, match="distinct names"):
        Queue("s", "q", (), node_types=(types[0], types[0]))


# -- same runs, job by job ----------------------------------------------------------------------
def wide(workload: GridWorkload, seed: int) -> GridWorkload:
    """``workload`` with jobs of 1 to 4 processors (the generator's are sequential)."""
    procs = np.random.default_rng(seed).integers(1, 5, len(workload))
    return dataclasses.replace(workload, procs=procs)


@pytest.mark.parametrize("meta", ["push", "pilot_simple"])
def test_a_node_type_platform_runs_as_its_groups_job_by_job(tmp_path: Path, meta: str) -> None:
    groups, nodes = both(tmp_path)
    results = []
    for platform in (groups, nodes):
        workload = generate_grid(platform, meta_jobs=60, local_jobs=20, seed=5)
        if meta == "push":
            workload = wide(workload, 5)
        results.append(run_grid(platform, workload, meta, seed=2, check=True))
    by_groups, by_nodes = results
    jobs = by_nodes.jobs
    # not vacuous: every pool ran jobs, on both node types' powers, and many waited
    assert len(jobs) == 100 and set(jobs.pool) == {"lyon/batch", "lyon/express", "cern/default"}
    assert {80.0, 100.0, 120.0} <= set(jobs.node_power) and (jobs.wait_time > 0).sum() > 40
    pd.testing.assert_frame_equal(by_nodes.jobs, by_groups.jobs)
    timing = ("wall_time",)  # how long the run took, not what it did
    summaries = [{k: v for k, v in r.summary().items() if k not in timing} for r in results]
    assert summaries[0] == summaries[1]


def test_grid_run_writes_the_same_job_table(tmp_path: Path) -> None:
    tables = []
    for name, text in (("groups", GROUPS), ("nodes", NODE_TYPES)):
        out = tmp_path / f"{name}.csv"
        args = ["grid", "run", str(write(tmp_path, text, f"{name}.toml")), "--meta", "push"]
        args += ["--generator", "meta_jobs=30,local_jobs=10", "--check", "--jobs-out", str(out)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        tables.append(out.read_bytes())
    assert tables[0] == tables[1] and tables[0].count(b"\n") == 51


# -- mistakes name the file and the key path ----------------------------------------------------
def refused(tmp_path: Path, text: str) -> PlatformFileError:
    path = write(tmp_path, text)
    with pytest.raises(PlatformFileError) as info:
        load_platform(path)
    assert str(info.value).startswith(f"{path}: "), str(info.value)
    return info.value


def test_node_types_beside_groups_are_refused(tmp_path: Path) -> None:
    text = NODE_TYPES.replace('name = "express"\n', 'name = "express"\ngroups = [[80.0, 4]]\n')
    error = refused(tmp_path, text)
    assert error.option == "sites[0].queues[1].groups"
    assert "no groups beside node types" in error.allowed


def test_node_types_in_a_site_that_deals_its_own_nodes_are_refused(tmp_path: Path) -> None:
    for site_keys in ("groups = [[80.0, 76]]", "nodes = 76\nsample = true"):
        text = NODE_TYPES.replace('name = "lyon"\n', f'name = "lyon"\n{site_keys}\n')
        error = refused(tmp_path, text)
        assert error.option == "sites[0].queues[0].nodes"
        assert error.value == "2 node types" and "dealt to its queues" in error.allowed


def test_a_site_node_count_beside_node_types_is_refused(tmp_path: Path) -> None:
    text = NODE_TYPES.replace('name = "cern"\n', 'name = "cern"\nnodes = 3\n')
    error = refused(tmp_path, text)
    assert error.option == "sites[1].nodes" and "sites[1].queues[0].nodes" in error.allowed


@pytest.mark.parametrize(
    ("old", "new", "option", "words"),
    [
        ('memory = "256G"', 'memory = "lots"', "sites[0].queues[0].nodes[1].memory", "256G"),
        ('memory = "256G"\n', "", "sites[0].queues[0].nodes[1].memory", "memory"),
        ('memory = "32G"', 'memory = "0.5"', "sites[1].queues[0].nodes[0].memory", "1 MiB"),
        ("gpus = 4", "gpus = -1", "sites[0].queues[0].nodes[1].gpus", "0..1,024"),
        ("nvme = 2", "gpu = 2", "sites[0].queues[0].nodes[1].gres.gpu", "gpus = N"),
        ("gpus = 4", "disk = 4", "sites[0].queues[0].nodes[1].disk", "one of the keys"),
        ('name = "gpu"', 'name = "cpu"', "sites[0].queues[0].nodes[1].name", "no other"),
        ("cores = 4", "cores = 0", "sites[0].queues[1].nodes[0].cores", "cores per node"),
        ("power = 100.0", "power = 0", "sites[1].queues[0].nodes[0].power", "1e-06"),
    ],
)
def test_bad_node_types_name_their_key(
    tmp_path: Path, old: str, new: str, option: str, words: str
) -> None:
    assert old in NODE_TYPES
    error = refused(tmp_path, NODE_TYPES.replace(old, new, 1))
    assert error.option == option and words in str(error)


def test_node_types_that_are_not_tables_are_refused(tmp_path: Path) -> None:
    for value in ("[]", "[1, 2]"):
        text = GROUPS.replace("groups = [[80.0, 4]]", f"nodes = {value}")
        error = refused(tmp_path, text)
        assert error.option == "sites[0].queues[1].nodes"
        assert "[[sites.queues.nodes]]" in error.allowed


def test_node_types_count_their_nodes_towards_max_nodes(tmp_path: Path) -> None:
    # one node type over the ceiling: at its count
    error = refused(tmp_path, "max_nodes = 5\n" + NODE_TYPES)
    assert error.option == "sites[0].queues[0].nodes[1].count"
    assert "at most 5 nodes" in error.allowed and "max_nodes = N" in error.allowed
    # over the ceiling across queues and sites: 6 + 1 + 3 = 10 nodes
    error = refused(tmp_path, "max_nodes = 9\n" + NODE_TYPES)
    assert error.option == "sites[1].queues" and error.value == "10 nodes"
    assert "max_nodes = N" in error.allowed
    # nodes, not cores (76 cores): exactly the ceiling passes
    assert load_platform(write(tmp_path, "max_nodes = 10\n" + NODE_TYPES)).total_nodes == 76
    # a huge node type over the default ceiling, and raised deliberately
    huge = NODE_TYPES.replace("count = 3\n", "count = 2000000\n")
    error = refused(tmp_path, huge)
    assert error.option == "sites[1].queues[0].nodes[0].count"
    assert f"{DEFAULT_MAX_NODES:,}" in error.allowed
    raised = load_platform(write(tmp_path, "max_nodes = 2000007\n" + huge))
    assert raised.queues()[2].groups == ((100.0, 16_000_000),)


# -- nothing else changes -----------------------------------------------------------------------
def canonical(platform: Platform) -> str:
    """What a run is built from, written out field by field (no dataclass repr, so that a
    field added later does not change it)."""
    pools = [
        (
            s.name,
            s.groups,
            s.policy,
            sorted(s.params.items()),
            s.t_max,
            repr(s.mu_rec),
            repr(s.mu_env),
            s.placement,
            s.seed,
        )
        for s in platform.pool_specs()
    ]
    sites = [(s.name, s.lan.bandwidth, s.lan.latency) for s in platform.sites]
    return repr(
        (
            pools,
            sites,
            platform.wan.bandwidth,
            platform.wan.latency,
            platform.control_message,
            platform.seed,
            platform.stream,
            platform.stream_settings,
        )
    )


# digests of `canonical` for each example as read by the reader before node types existed
EXAMPLE_DIGESTS = {
    "platform-dirac": "d4b54ce72b76e433",
    "platform-heterogeneous": "f6c3f30f7480460a",
    "platform-tdcs": "c79b9410f303b5ec",
}


@pytest.mark.parametrize("name", sorted(EXAMPLE_DIGESTS))
def test_every_platform_example_parses_as_before(name: str) -> None:
    platform = load_platform(EXAMPLES / f"{name}.toml")
    assert all(q.node_types == () for q in platform.queues())
    digest = hashlib.sha256(canonical(platform).encode()).hexdigest()[:16]
    assert digest == EXAMPLE_DIGESTS[name]
    assert math.isfinite(platform.mean_power)


def test_every_platform_example_is_pinned() -> None:
    names = {p.stem for p in EXAMPLES.glob("platform-*.toml")}
    assert names == set(EXAMPLE_DIGESTS)
