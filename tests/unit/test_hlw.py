"""The HLW multi-level application of paper 004 (SPEC 7) and the SWF moldability header.

Expected values come from the paper's model, not from the generator: E[opt] = (1 + 60) / 2 =
30.5 steps, a tau2 task in a share p = 0.33 of the steps, so a chain's expected sequential
work is 30.5 x (w1 + p w2) = 30.5 x 5.95 = 181.475 time units. Tolerances are five standard
errors of the sample at hand.
"""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.dependencies import dependencies
from schedlab.workload.job import F, Workload
from schedlab.workload.load import SIZE_KEYS, load_workload, parse_model_spec
from schedlab.workload.models.hlw import MAX_TASKS, check_hlw_params, generate_hlw
from schedlab.workload.swf import MOLDABLE_PI_KEY, read_swf, write_swf

PAPER_5_2 = {"pi": 0.99, "w1": 1.0, "w2": 15.0, "p": 0.33, "opt_min": 1, "opt_max": 60}
runner = CliRunner()


# -- helpers ---------------------------------------------------------------------------------
def chains_of(w: Workload) -> dict[int, list[int]]:
    """Each chain (user) as its rows in dependency order, following field 17 from the root."""
    ids = w.job_id.tolist()
    row_of = {job: row for row, job in enumerate(ids)}
    child: dict[int, int] = {}
    roots = []
    for row, parent in enumerate(w.fields[:, F["preceding_job_id"]].tolist()):
        if parent < 0:
            roots.append(row)
        else:
            assert row_of[int(parent)] not in child, "a task with two next tasks"
            child[row_of[int(parent)]] = row
    out = {}
    for root in roots:
        rows = [root]
        while rows[-1] in child:
            rows.append(child[rows[-1]])
        out[int(w.user_id[root])] = rows
    return out


def steps_of(w: Workload, rows: list[int]) -> list[list[int]]:
    """A chain's rows grouped in steps: each starts with a tau1 (queue 1)."""
    steps: list[list[int]] = []
    for row in rows:
        if w.queue_id[row] == 1:
            steps.append([row])
        else:
            assert steps, "a chain starts with a tau2"
            steps[-1].append(row)
    return steps


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


# -- the model -------------------------------------------------------------------------------
def test_defaults_are_paper_004_section_5_2() -> None:
    """w1 = 1, w2 = 15, P_tau2 = 0.33, opt in [1, 60], pi = 0.99, for the generator and the
    spec check alike."""
    for fn in (generate_hlw, check_hlw_params):
        params = inspect.signature(fn).parameters
        assert {k: params[k].default for k in PAPER_5_2} == PAPER_5_2, fn.__name__
        assert params["seed"].default == 0


def test_chains_are_steps_of_a_tau1_and_maybe_a_tau2() -> None:
    """n chains (one per user 1..n), each a line of tasks: every step a tau1 of time w1,
    then at most one tau2 of time w2; every job 1 processor, pi, submit 0, think time 0."""
    w = generate_hlw(n=50, nodes=16, seed=4)
    chains = chains_of(w)
    assert sorted(chains) == list(range(1, 51))
    assert sum(len(rows) for rows in chains.values()) == len(w)
    for user, rows in chains.items():
        assert (w.user_id[rows] == user).all()
        for step in steps_of(w, rows):
            assert len(step) in (1, 2)
            assert w.run_time[step[0]] == 1.0
            if len(step) == 2:
                assert w.queue_id[step[1]] == 2 and w.run_time[step[1]] == 15.0
    assert set(w.queue_id.tolist()) == {1, 2}
    assert (w.requested_time == w.run_time).all()
    assert (w.fields[:, F["allocated_procs"]] == 1).all()
    assert (w.fields[:, F["requested_procs"]] == 1).all()
    assert (w.submit_time == 0).all() and (w.fields[:, F["think_time"]] == 0).all()
    assert np.array_equal(w.attributes["parallel_fraction"], np.full(len(w), 0.99))
    assert w.max_procs == 16 and w.job_id.tolist() == list(range(1, len(w) + 1))
    values = w.header_values
    assert values["MaxJobs"] == str(len(w)) and values["MaxProcs"] == "16"
    assert values[MOLDABLE_PI_KEY] == "0.99"
    assert "seed=4" in values["Note"] and "n=50" in values["Note"]


def test_parents_come_first_and_jobs_go_by_step_then_kind_then_chain() -> None:
    """Field 17 names an earlier job of the same chain (the engine resolves all of them);
    job order is (step, tau1 before tau2, chain), so chains interleave."""
    w = generate_hlw(n=30, nodes=8, seed=11)
    parent = w.fields[:, F["preceding_job_id"]]
    has = parent > 0
    assert (parent[has] < w.job_id[has]).all()
    assert (parent[~has] == -1).all() and int((~has).sum()) == 30
    deps = dependencies(w)
    assert deps.unresolved == 0 and deps.count == len(w) - 30
    assert (w.user_id[deps.parent[has]] == w.user_id[has]).all()
    key = np.zeros((len(w), 3), dtype=np.int64)
    for user, rows in chains_of(w).items():
        for s, step in enumerate(steps_of(w, rows)):
            for kind, row in enumerate(step):
                key[row] = (s, kind, user)
    as_tuples = [tuple(k) for k in key.tolist()]
    assert as_tuples == sorted(as_tuples)
    assert w.user_id[:30].tolist() == list(range(1, 31))  # the first tau1 of every chain


def test_shares_steps_and_work_match_the_model_over_many_seeds() -> None:
    """Over 40 seeds x 100 chains: the tau2 share of steps ~ p, steps per chain uniform on
    [1, 60] (mean 30.5), sequential work per chain ~ 30.5 x (1 + 0.33 x 15)."""
    steps: list[int] = []
    tau2 = tau1 = 0
    work: list[float] = []
    for seed in range(40):
        w = generate_hlw(n=100, nodes=64, seed=seed)
        queue = w.queue_id
        tau1 += int((queue == 1).sum())
        tau2 += int((queue == 2).sum())
        steps.extend(np.bincount(w.user_id[queue == 1], minlength=101)[1:].tolist())
        work.extend(np.bincount(w.user_id, weights=w.run_time, minlength=101)[1:].tolist())
    share = tau2 / tau1
    assert abs(share - 0.33) < 5 * math.sqrt(0.33 * 0.67 / tau1), share
    opt = np.array(steps)
    assert opt.min() == 1 and opt.max() == 60
    sd_opt = math.sqrt((60**2 - 1) / 12)
    assert abs(opt.mean() - 30.5) < 5 * sd_opt / math.sqrt(len(opt)), opt.mean()
    counts = np.bincount(opt, minlength=61)[1:]  # 4000 draws: about 66.7 per value
    assert counts.min() > 66.7 - 5 * math.sqrt(66.7) and counts.max() < 66.7 + 5 * math.sqrt(66.7)
    mean_x = 1 + 0.33 * 15
    var_chain = 30.5 * 225 * 0.33 * 0.67 + sd_opt**2 * mean_x**2  # var of a sum of opt steps
    assert abs(np.mean(work) - 30.5 * mean_x) < 5 * math.sqrt(var_chain / len(work))


def test_parameters_shape_the_instance() -> None:
    """p = 0: no tau2; p = 1: every step has one; opt_min = opt_max fixes the steps; w1,
    w2 and pi go to the run times and the attribute as given."""
    none = generate_hlw(n=5, nodes=4, p=0, opt_min=7, opt_max=7)
    assert len(none) == 35 and set(none.queue_id.tolist()) == {1}
    every = generate_hlw(n=5, nodes=4, p=1, opt_min=3, opt_max=3, w1=2.5, w2=40, pi=0.9)
    assert len(every) == 30 and every.queue_id.tolist().count(2) == 15
    assert sorted(set(every.run_time.tolist())) == [2.5, 40.0]
    assert (every.attributes["parallel_fraction"] == 0.9).all()


def test_same_seed_same_bits_other_seed_other_instance() -> None:
    a = generate_hlw(n=20, nodes=8, seed=5)
    b = generate_hlw(n=20, nodes=8, seed=5)
    c = generate_hlw(n=20, nodes=8, seed=6)
    assert a.fields.tobytes() == b.fields.tobytes() and a.header == b.header
    assert (
        a.attributes["parallel_fraction"].tobytes() == b.attributes["parallel_fraction"].tobytes()
    )
    assert len(a) != len(c) or a.fields.tobytes() != c.fields.tobytes()


@pytest.mark.parametrize(
    ("changes", "option"),
    [
        ({"n": 0}, "hlw n"),
        ({"n": 2.0}, "hlw n"),
        ({"n": True}, "hlw n"),
        ({"n": MAX_TASKS}, "hlw n"),  # 2 x n x 60 tasks in the worst case
        ({"nodes": 0}, "hlw nodes"),
        ({"nodes": 2**31}, "hlw nodes"),
        ({"pi": 1.01}, "hlw pi"),
        ({"pi": -0.1}, "hlw pi"),
        ({"pi": float("nan")}, "hlw pi"),
        ({"pi": "x"}, "hlw pi"),
        ({"w1": 0}, "hlw w1"),
        ({"w2": float("inf")}, "hlw w2"),
        ({"w2": 10**400}, "hlw w2"),
        ({"p": 1.5}, "hlw p"),
        ({"opt_min": 0}, "hlw opt_min"),
        ({"opt_min": 5, "opt_max": 4}, "hlw opt_max"),
        ({"opt_max": MAX_TASKS}, "hlw opt_max"),
        ({"seed": -1}, "hlw seed"),
        ({"seed": 1.5}, "hlw seed"),
    ],
)
def test_bad_parameters_are_config_errors_naming_them(changes: dict, option: str) -> None:
    params: dict = {"n": 4, "nodes": 8, **changes}
    with pytest.raises(ConfigError) as err:
        generate_hlw(**params)
    assert err.value.option == option
    with pytest.raises(ConfigError):
        check_hlw_params(**params)


def test_spec_is_registered_and_checked_when_read() -> None:
    """`hlw:n=..,nodes=..`: required keys, values checked by parse_model_spec, nodes is the
    size --procs overrides (and may then be left out)."""
    name, params = parse_model_spec("hlw:n=3,nodes=4,pi=0.9,seed=2,w1=1,w2=15,p=0.5")
    assert name == "hlw" and params["pi"] == 0.9 and SIZE_KEYS["hlw"] == "nodes"
    w = load_workload("hlw:n=3,nodes=4,pi=0.9,seed=2,w1=1,w2=15,p=0.5")
    assert w.fields.tobytes() == generate_hlw(3, 4, pi=0.9, seed=2, p=0.5).fields.tobytes()
    assert load_workload("hlw:n=3,seed=2", max_procs=5).max_procs == 5
    with pytest.raises(ConfigError, match="nodes=N"):
        parse_model_spec("hlw:n=3")
    with pytest.raises(ConfigError, match="hlw pi"):
        parse_model_spec("hlw:n=3,nodes=4,pi=2")
    assert w.source.startswith("hlw:") and load_workload(w.source).fields.tobytes() == (
        w.fields.tobytes()
    )


# -- SWF persistence -------------------------------------------------------------------------
def test_generate_write_read_round_trip(tmp_path: Path) -> None:
    """`workload generate` then read_swf: same fields, header, machine size, dependencies and
    pi for every job."""
    out = tmp_path / "h.swf"
    runner.invoke(app, ["workload", "generate", "hlw:n=6,nodes=32,seed=3,pi=0.9", "-o", str(out)])
    w = generate_hlw(n=6, nodes=32, seed=3, pi=0.9)
    back = read_swf(out)
    assert back.fields.tobytes() == w.fields.tobytes()
    assert back.header == w.header and back.max_procs == 32
    assert back.attributes.keys() == {"parallel_fraction"}
    assert back.attributes["parallel_fraction"].tobytes() == (
        w.attributes["parallel_fraction"].tobytes()
    )
    assert np.array_equal(dependencies(back).parent, dependencies(w).parent)
    gz = tmp_path / "h.swf.gz"
    write_swf(back, gz)
    assert read_swf(gz).attributes["parallel_fraction"].tolist() == [0.9] * len(w)


SWF_LINES = (
    "1 0 -1 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1\n"
    "2 0 -1 20 2 -1 -1 2 20 -1 1 1 -1 -1 1 -1 -1 -1\n"
)


def test_header_gives_every_job_pi_first_line_wins(tmp_path: Path) -> None:
    path = tmp_path / "m.swf"
    path.write_text(
        f"; MaxProcs: 4\n; {MOLDABLE_PI_KEY}: 0.5\n;{MOLDABLE_PI_KEY}: 0.7\n{SWF_LINES}"
    )
    assert read_swf(path).attributes["parallel_fraction"].tolist() == [0.5, 0.5]
    path.write_text(f"; MaxProcs: 4\n{SWF_LINES}")
    assert "parallel_fraction" not in read_swf(path).attributes


@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "x", "", "0x1", "1e999", "\x1b[31m"])
def test_a_malformed_pi_names_file_line_and_key(tmp_path: Path, value: str) -> None:
    path = tmp_path / "bad.swf"
    path.write_text(f"; MaxProcs: 4\n; Note: x\n; {MOLDABLE_PI_KEY}: {value}\n{SWF_LINES}")
    with pytest.raises(WorkloadError) as err:
        read_swf(path)
    assert err.value.line == 3 and err.value.field == MOLDABLE_PI_KEY
    assert str(err.value).startswith(f"{path}:3: field {MOLDABLE_PI_KEY}")
    assert str(err.value).isprintable()


def test_write_keeps_one_pi_and_drops_mixed_or_rigid(tmp_path: Path) -> None:
    """One value for all jobs: the line is written (replacing a stale one); mixed values or
    NaN: every line goes, so the file reads back without moldability, and nothing raises."""
    path = tmp_path / "m.swf"
    path.write_text(
        f"; MaxProcs: 4\n; {MOLDABLE_PI_KEY}: .5\n; {MOLDABLE_PI_KEY}: 0.7\n{SWF_LINES}"
    )
    w = read_swf(path)
    out = tmp_path / "out.swf"
    write_swf(w.with_attribute("parallel_fraction", np.array([0.25, 0.25])), out)
    assert read_swf(out).attributes["parallel_fraction"].tolist() == [0.25, 0.25]
    assert out.read_text().count(f"; {MOLDABLE_PI_KEY}: 0.25\n") == 1
    for values in ([0.25, 0.5], [0.25, np.nan], [np.nan, np.nan]):
        write_swf(w.with_attribute("parallel_fraction", np.array(values)), out)
        assert MOLDABLE_PI_KEY not in out.read_text()
        assert "parallel_fraction" not in read_swf(out).attributes
    write_swf(w, out)  # read, then written unchanged: the header too, ".5" as it was
    assert (
        read_swf(out).header
        == w.header
        == ["MaxProcs: 4", f"{MOLDABLE_PI_KEY}: .5", f"{MOLDABLE_PI_KEY}: 0.7"]
    )
    rigid = Workload.from_fields(w.fields, max_procs=4, header=w.header)
    write_swf(rigid, out)
    assert "parallel_fraction" not in read_swf(out).attributes
    fresh = Workload.from_fields(w.fields, max_procs=4).with_attribute(
        "parallel_fraction", np.array([1.0, 1.0])
    )
    write_swf(fresh, out)
    assert f"; {MOLDABLE_PI_KEY}: 1.0\n" in out.read_text()
    with pytest.raises(WorkloadError, match=MOLDABLE_PI_KEY):
        write_swf(w.with_attribute("parallel_fraction", np.array([2.0, 2.0])), out)


# -- simulation ------------------------------------------------------------------------------
def test_fcfs_replays_the_file_with_dependencies(tmp_path: Path) -> None:
    """`schedlab run FILE --policy fcfs --check`: every task is released when its parent ends
    (submitted_at == parent's finished_at), starts no earlier, and normalized_cmax >= 1."""
    swf = tmp_path / "h.swf"
    invoke("workload", "generate", "hlw:n=12,nodes=8,seed=2", "-o", str(swf))
    jobs_out = tmp_path / "jobs.csv"
    out = invoke(
        "run", str(swf), "--policy", "fcfs", "--check", "--json", "--jobs-out", str(jobs_out)
    )
    summary = json.loads(out)
    table = pd.read_csv(jobs_out).set_index("job_id")
    w = read_swf(swf)
    assert summary["jobs"] == len(w) == len(table) and summary["normalized_cmax"] >= 1
    assert 0 < summary["filling"] <= 1
    parent = pd.Series(w.fields[:, F["preceding_job_id"]], index=w.job_id).astype(int)
    dependants = parent[parent > 0]
    assert len(dependants) == len(w) - 12
    np.testing.assert_array_equal(
        table.loc[dependants.index, "submitted_at"].to_numpy(),
        table.loc[dependants.to_numpy(), "finished_at"].to_numpy(),
    )
    assert (table["started_at"] >= table["submitted_at"]).all()
    assert (table["procs"] == 1).all()
    assert (table.loc[parent[parent < 0].index, "submitted_at"] == 0).all()


def test_with_a_node_per_chain_fcfs_never_waits() -> None:
    """nodes >= n: every chain runs on its own node (RefN), Cmax = the longest chain's work."""
    w = generate_hlw(n=6, nodes=6, seed=9)
    result = schedlab.simulate(w, "fcfs", check=True)
    jobs = result.jobs
    assert (jobs["wait_time"] == 0).all()
    longest = np.bincount(w.user_id, weights=w.run_time).max()
    assert jobs["finished_at"].max() == longest


def test_a_hand_computed_instance_on_one_node() -> None:
    """n = 2, seed 1, opt in [1, 3], one node. Realised: chain 1 = tau1 (job 1), tau1 (3),
    tau2 (5); chain 2 = tau1 (2), tau1 (4), tau2 (6) (two steps each, the second with a
    tau2). FCFS by release, ties in job order: job 1 [0, 1]; job 2 (released at 0) [1, 2];
    job 3 (released at 1) [2, 3]; job 4 (released at 2) [3, 4]; job 5 (at 3) [4, 19];
    job 6 (at 4) [19, 34]. Cmax = 34 = the sum of the sequential times."""
    w = generate_hlw(n=2, nodes=1, seed=1, opt_max=3)
    assert w.run_time.tolist() == [1, 1, 1, 1, 15, 15]
    assert w.fields[:, F["preceding_job_id"]].tolist() == [-1, -1, 1, 2, 3, 4]
    assert w.user_id.tolist() == [1, 2, 1, 2, 1, 2]
    jobs = schedlab.simulate(w, "fcfs", check=True).jobs.set_index("job_id")
    assert jobs["submitted_at"].tolist() == [0, 0, 1, 2, 3, 4]
    assert jobs["started_at"].tolist() == [0, 1, 2, 3, 4, 19]
    assert jobs["finished_at"].tolist() == [1, 2, 3, 4, 19, 34]
    assert jobs["finished_at"].max() == w.run_time.sum() == 34
    summary = schedlab.simulate(w, "fcfs").summary()
    assert summary["normalized_cmax"] == pytest.approx(1.0) and summary["filling"] == 1.0
