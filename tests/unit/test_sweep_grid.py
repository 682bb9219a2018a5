"""Grid runs in sweep files (issue 11 item 5): workloads with a platform, [[meta_schedulers]],
their run ids, errors that name the key path, and a tiny grid sweep through the runner."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import execute_run, run_sweep
from schedlab.experiments.scenarios import load_grid_run, load_run_workload
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import GRID_WORKLOAD_KEYS, Sweep, load_sweep, parse_sweep
from schedlab.grid.platforms import load_platform_source
from schedlab.metrics.summary import all_summary_keys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
PLATFORM = EXAMPLES / "platform-dirac.toml"

SMALL = "generator = {meta_jobs = 40, local_jobs = 0}"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def grid_sweep(tmp_path: Path, body: str) -> Sweep:
    tmp_path.mkdir(parents=True, exist_ok=True)
    shutil.copy(PLATFORM, tmp_path / "platform.toml")
    return load_sweep(write(tmp_path / "s.toml", body))


def error_of(tmp_path: Path, body: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        grid_sweep(tmp_path, body)
    return info.value


# --- run ids -------------------------------------------------------------------------------


def test_cluster_run_ids_are_unchanged() -> None:
    """Run ids computed before grid runs existed (commit 382d212) stay the same: the grid
    keys enter a run's dict only when set."""
    run = RunConfig(
        workload="lublin:jobs=50,procs=8,seed=1",
        policy="easy",
        params={"backfill_order": "sjf"},
        load_factor=0.8,
        seed=1,
    )
    assert run.run_id == "d0a7673f90cc8c3b"
    assert not {"platform", "stream", "generator"} & set(run.to_dict())
    run = RunConfig(
        workload="traces/KTH.swf.gz",
        policy="fcfs",
        transforms=(("first_jobs", {"n": 5000}),),
        procs=100,
        kill_on_overrun=False,
    )
    assert run.run_id == "bbe2aa4d16308f42"
    quick = [r.run_id for r in load_sweep(EXAMPLES / "quick-sweep.toml").runs]
    # fcfs seeds 1 and 2, easy seed 1: the example has a third seed since issue 23
    assert quick[:2] == ["22c800526c9dd44e", "907d71791c505742"]
    assert quick[3] == "04a5dbf53282466d"
    assert len(quick) == 18


def test_grid_keys_enter_the_run_id_and_come_back(tmp_path: Path) -> None:
    """A grid run's config round-trips through to_dict/from_dict with the same id."""
    sweep = grid_sweep(
        tmp_path,
        f"""
        [[workloads]]
        platform = "platform.toml"
        {SMALL}
        [[meta_schedulers]]
        name = "push"
        """,
    )
    (run,) = sweep.runs
    data = run.to_dict()
    assert data["platform"] == "platform.toml"
    assert data["generator"] == {"local_jobs": 0, "meta_jobs": 40}
    assert "stream" not in data
    assert RunConfig.from_dict(json.loads(json.dumps(data))).run_id == run.run_id
    assert run.is_grid and run.workload == "grid"
    assert run.params == {"refresh": 0.0, "tie": "site"}


# --- expansion -----------------------------------------------------------------------------


def test_meta_scheduler_lists_multiply_and_pair_with_grid_workloads(tmp_path: Path) -> None:
    """[[meta_schedulers]] pair with grid workloads, [[policies]] with cluster ones; list
    parameters and grid seeds multiply; parameters are stored complete."""
    sweep = grid_sweep(
        tmp_path,
        f"""
        [[workloads]]
        platform = "platform.toml"
        {SMALL}
        label = "dedicated"
        [[workloads]]
        model = "lublin:jobs=30,procs=8"
        label = "cluster"
        [[meta_schedulers]]
        name = "push"
        refresh = [0, 5, 10]
        [[meta_schedulers]]
        name = "static"
        [[policies]]
        name = "fcfs"
        [grid]
        seed = [1, 2]
        """,
    )
    grid = [r for r in sweep.runs if r.is_grid]
    cluster = [r for r in sweep.runs if not r.is_grid]
    assert len(grid) == 4 * 2 and len(cluster) == 2
    assert [(sweep.policy_label(r), r.seed) for r in grid[:6]] == [
        ("push(refresh=0.0)", 1), ("push(refresh=0.0)", 2),
        ("push(refresh=5.0)", 1), ("push(refresh=5.0)", 2),
        ("push(refresh=10.0)", 1), ("push(refresh=10.0)", 2),
    ]  # fmt: skip
    static = grid[-1]
    assert static.policy == "static"
    assert {"epsilon", "retry", "jitter"} <= set(static.params)
    assert {r.policy for r in cluster} == {"fcfs"}
    assert all(r.platform is None for r in cluster)


def test_same_settings_written_otherwise_give_the_same_run(tmp_path: Path) -> None:
    """Integers for float settings and parameters, key order: one run id."""
    a = grid_sweep(
        tmp_path / "a",
        """
        [[workloads]]
        platform = "platform.toml"
        generator = {local_jobs = 0, meta_jobs = 40, meta_interarrival = 19}
        [[meta_schedulers]]
        name = "push"
        refresh = 5
        """,
    )
    b = grid_sweep(
        tmp_path / "b",
        """
        [[workloads]]
        platform = "platform.toml"
        generator = {meta_interarrival = 19.0, meta_jobs = 40, local_jobs = 0}
        [[meta_schedulers]]
        name = "push"
        refresh = 5.0
        """,
    )
    assert a.runs[0].run_id == b.runs[0].run_id


def test_grid_runs_do_not_multiply_by_cluster_only_settings(tmp_path: Path) -> None:
    """kill_on_overrun and procs have no meaning for a grid run: no extra grid runs."""
    sweep = grid_sweep(
        tmp_path,
        f"""
        [[workloads]]
        platform = "platform.toml"
        {SMALL}
        [[meta_schedulers]]
        name = "push"
        [grid]
        kill_on_overrun = [true, false]
        procs = [8, 16]
        load_factor = [1.0, 0.5]
        """,
    )
    assert [r.load_factor for r in sweep.runs] == [1.0, 0.5]


def test_generator_seed_is_used_without_a_grid_seed(tmp_path: Path) -> None:
    sweep = grid_sweep(
        tmp_path,
        """
        [[workloads]]
        platform = "platform.toml"
        generator = {meta_jobs = 40, local_jobs = 0, seed = 7}
        [[meta_schedulers]]
        name = "push"
        """,
    )
    assert sweep.runs[0].seed == 7 and "seed" not in (sweep.runs[0].generator or {})


def test_builtin_platform_is_the_example_file() -> None:
    """builtin:dirac (paper 001's Table 2, shipped in the package) reads exactly like
    examples/platform-dirac.toml."""
    from schedlab.examples_files import example_text
    from schedlab.grid.platforms import load_platform

    assert tomllib.loads(example_text("platform-dirac")) == tomllib.loads(PLATFORM.read_text())
    built_in = load_platform_source("builtin:dirac")
    example = load_platform(PLATFORM)
    assert built_in.pool_specs() == example.pool_specs()
    assert built_in.mean_power == pytest.approx(96.0)


def test_trace_grid_workload(tmp_path: Path) -> None:
    """An SWF trace as a grid workload: stream, transforms, seeds for the meta-scheduler."""
    trace = schedlab.generate_lublin(jobs=30, procs=1, seed=1)
    schedlab.write_swf(trace, tmp_path / "t.swf")
    sweep = grid_sweep(
        tmp_path,
        """
        [[workloads]]
        platform = "platform.toml"
        path = "t.swf"
        stream = "global"
        first = 20
        [[meta_schedulers]]
        name = "push_random"
        [grid]
        seed = [1, 2]
        """,
    )
    assert [r.seed for r in sweep.runs] == [1, 2]
    run = sweep.runs[0]
    assert (run.workload, run.stream, run.generator) == ("t.swf", "global", None)
    assert run.transforms == (("first_jobs", {"n": 20}),)
    platform, workload = load_grid_run(run, sweep.base_dir)
    assert len(workload) == 20 and bool(workload.is_global.all())
    assert len(platform.sites) == 3
    with pytest.raises(ConfigError, match="load_grid_run"):
        load_run_workload(run, sweep.base_dir)


# --- errors --------------------------------------------------------------------------------

G = '[[workloads]]\nplatform = "platform.toml"\n' + SMALL + "\n"
M = '[[meta_schedulers]]\nname = "push"\n'
C = '[[workloads]]\nmodel = "lublin:jobs=30,procs=8"\n'
P = '[[policies]]\nname = "fcfs"\n'
ANY = object()  # an error value not compared

ERROR_CASES = [
    (G, "meta_schedulers", None, "[[meta_schedulers]]"),
    (G + M + P, "policies", ANY, "only with a cluster workload"),
    (C + P + M, "meta_schedulers", ANY, "only with a grid workload"),
    (C + G + M, "policies", None, "[[policies]]"),
    ('[[workloads]]\nplatform = "nope.toml"\n' + M, "workloads[0].platform", "nope.toml",
     "platform .toml file"),
    ('[[workloads]]\nplatform = "builtin:nope"\n' + M, "workloads[0].platform", "builtin:nope",
     "builtin:dirac"),
    ('[[workloads]]\nplatform = "platform.toml"\nmodel = "lublin:jobs=3,procs=2"\n' + M,
     "workloads[0].model", ANY, "keys of a grid workload"),
    ('[[workloads]]\nplatform = "platform.toml"\ngenerator = {metajobs = 4}\n' + M,
     "workloads[0].generator.metajobs", 4, "meta_jobs"),
    ('[[workloads]]\nplatform = "platform.toml"\ngenerator = {meta_jobs = -4}\n' + M,
     "workloads[0].generator.meta_jobs", -4, "an integer"),
    ('[[workloads]]\nplatform = "platform.toml"\ngenerator = {size_shape = 0}\n' + M,
     "workloads[0].generator.size_shape", 0.0, "a number > 0"),
    ('[[workloads]]\nplatform = "platform.toml"\ngenerator = 3\n' + M,
     "workloads[0].generator", 3, "a table"),
    ('[[workloads]]\nplatform = "platform.toml"\nstream = "local"\n' + M,
     "workloads[0].stream", "local", "only with path"),
    ('[[workloads]]\nplatform = "platform.toml"\ngenerator = {seed = 2}\n' + M
     + "[grid]\nseed = 1\n", "workloads[0].generator.seed", 2, "grid.seed"),
    (G + '[[meta_schedulers]]\nname = "pull"\n', "meta_schedulers[0].name", "pull", "push"),
    (G + '[[meta_schedulers]]\nname = "push"\nrefresh = -5\n',
     "meta_schedulers[0].refresh", -5.0, "seconds >= 0"),
    (G + '[[meta_schedulers]]\nname = "push"\nrefresh = "x"\n',
     "meta_schedulers[0].refresh", "x", "a number"),
    (G + '[[meta_schedulers]]\nname = "static"\nepsilon = [0.3, 0]\n',
     "meta_schedulers[0].epsilon", 0.0, "> 0"),
    (G + '[[meta_schedulers]]\nname = "push"\ndelta = 1\n',
     "meta_schedulers[0].delta", 1, "a parameter of push: refresh"),
    ("meta_schedulers = 3\n" + G, "meta_schedulers", 3, "array of tables"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "option", "value", "allowed"), ERROR_CASES)
def test_errors_name_the_key_path(
    tmp_path: Path, body: str, option: str, value: object, allowed: str
) -> None:
    """Each mistake names its key path, the value and what is allowed."""
    exc = error_of(tmp_path, body)
    assert exc.option == option
    if value is not ANY:
        assert exc.value == value
    assert allowed in str(exc.allowed)


def test_a_mistake_in_the_platform_file_names_the_workload(tmp_path: Path) -> None:
    write(tmp_path / "bad.toml", '[[sites]]\nname = "a"\nnodes = 0\n')
    exc = error_of(tmp_path, '[[workloads]]\nplatform = "bad.toml"\n' + M)
    assert exc.option.startswith("workloads[0].platform (sites[0]")


def test_grid_workload_keys_are_listed() -> None:
    assert {"platform", "generator", "path", "stream", "label"} <= set(GRID_WORKLOAD_KEYS)


# --- running -------------------------------------------------------------------------------


def test_execute_run_stores_a_grid_run(tmp_path: Path) -> None:
    """summary = GridResult.summary() without wall_time; the time series has the states,
    busy processors and the matcher's requests per bin; every summary key is a known
    metric."""
    sweep = grid_sweep(tmp_path, G + '[[meta_schedulers]]\nname = "static"\n[grid]\nseed = 3\n')
    (run,) = sweep.runs
    outcome = execute_run(run.to_dict(), str(sweep.base_dir))
    assert outcome.ok, outcome.traceback
    assert outcome.summary is not None and "wall_time" not in outcome.summary
    assert outcome.summary["global_jobs"] == 40
    assert outcome.summary["matcher_requests"] > 0
    assert set(outcome.summary) <= set(all_summary_keys())
    store = ResultStore(tmp_path / "out")
    with store:
        store.write(outcome)
    series = store.timeseries(run.run_id)
    assert {"time", "queued", "running", "done", "busy_procs", "matcher_requests"} <= set(
        series.columns
    )
    assert int(series["matcher_requests"].sum()) == outcome.summary["matcher_requests"]
    assert int(series["done"].iloc[-1]) == 40
    assert int(series["busy_procs"].max()) <= 60
    jobs = store.jobs(run.run_id)
    assert len(jobs) == 40 and set(jobs["stream"]) == {"global"}


def test_load_factor_divides_grid_submit_times(tmp_path: Path) -> None:
    sweep = grid_sweep(tmp_path, G + M + "[grid]\nload_factor = [1.0, 2.0]\n")
    one, two = (load_grid_run(r, sweep.base_dir)[1] for r in sweep.runs)
    assert np.allclose(two.submit_at, one.submit_at / 2)


def test_a_tiny_grid_sweep_runs_and_results_read_it(tmp_path: Path) -> None:
    """A grid sweep (and a cluster workload beside it) through run_sweep with one worker;
    `schedlab results` (tables and --json) and `schedlab report` read the folder."""
    sweep = grid_sweep(
        tmp_path,
        f"""
        [[workloads]]
        platform = "platform.toml"
        {SMALL}
        label = "dedicated"
        [[meta_schedulers]]
        name = "push"
        refresh = [0, 50]
        [[meta_schedulers]]
        name = "pilot_filling"
        [grid]
        seed = [1, 2, 3]
        """,
    )
    store = ResultStore(tmp_path / "out")
    with store:
        progress = run_sweep(
            sweep.runs,
            store,
            base_dir=str(sweep.base_dir),
            policy_labels=sweep.policy_labels,
            workers=1,
        )
    assert (progress.done, progress.failed) == (9, 0), progress.failures
    runner = CliRunner()
    result = runner.invoke(app, ["results", str(tmp_path / "out"), "--json"])
    assert result.exit_code == 0, result.output
    records = json.loads(result.stdout)["runs"]
    assert len(records) == 9
    assert {r["policy"] for r in records} == {"push", "pilot_filling"}
    assert all(r["global_mean_wait_time"] is not None for r in records)
    assert all("wasted_pilots" in r for r in records)
    result = runner.invoke(app, ["results", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    # readable labels, not keys (issue 23)
    assert "meta-jobs: mean global wait" in result.output and "matcher requests" in result.output
    args = ["results", str(tmp_path / "out"), "-m", "wasted_pilots", "-m", "global_makespan"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "push(refresh=50.0)" in result.output
    report = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(tmp_path / "out"), "-o", str(report)])
    assert result.exit_code == 0, result.output
    page = report.read_text()
    assert 'data-chart="queue-dedicated-1.0"' in page
    assert 'data-chart="utilization-dedicated-1.0"' in page
    assert "no run records" not in page


def test_example_grid_sweep_parses() -> None:
    """examples/grid-sweep.toml (docs/experiments.md) is a valid sweep."""
    sweep = load_sweep(EXAMPLES / "grid-sweep.toml")
    assert sweep.runs and all(r.is_grid for r in sweep.runs)
    data = tomllib.loads((EXAMPLES / "grid-sweep.toml").read_text())
    again = parse_sweep(data, EXAMPLES, "inline")
    assert [r.run_id for r in again.runs] == [r.run_id for r in sweep.runs]
