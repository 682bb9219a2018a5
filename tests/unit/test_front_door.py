"""One front door (issue 21): every run is a Scenario and gives one Result, whatever door it
came through; TDCS runs go through the grid door and the sweep layer like any other."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import schedlab
from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.analysis import runs_json
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import load_sweep
from schedlab.grid.platforms import load_platform_source
from schedlab.results import Result
from schedlab.scenario import RunOptions, Scenario, run
from schedlab.simulation import run_grid, run_tdcs
from schedlab.workload.models.tdcs import generate_tdcs
from schedlab.workload.streams import platform_stream


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_grid_door_and_tdcs_door_write_the_same_table(tmp_path: Path) -> None:
    """`grid run builtin:tdcs --meta tdcs` runs the stream the platform ships with (the TDCS
    generator) under its own local managers, and writes what `tdcs run` writes."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    invoke("-q", "tdcs", "run", "--seed", "3", "--jobs-out", str(a))
    invoke(
        "-q", "grid", "run", "builtin:tdcs", "--meta", "tdcs", "--seed", "3", "--jobs-out", str(b)
    )
    assert a.read_bytes() == b.read_bytes()
    table = pd.read_csv(a)
    assert len(table) > 100 and table["transfer_time"].sum() > 0


def test_the_grid_door_pays_the_network() -> None:
    """A dispatcher gets its network from the platform: run_grid with tdcs on a platform
    whose links are not free charges transfers, exactly as run_tdcs does (no bind())."""
    plat = load_platform_source("builtin:tdcs")
    wl = generate_tdcs(plat, hours=12, seed=5)
    grid = run_grid(plat, wl, "tdcs", seed=5, check=True)
    tdcs = run_tdcs(plat, wl, "tdcs", seed=5, check=True)
    assert grid.kind == tdcs.kind == "tdcs"
    moved = grid.columns["transfer_time"][grid.columns["origin"] != grid.columns["cluster"]]
    assert len(moved) and np.all(moved > 0)
    for name, values in tdcs.columns.items():
        assert np.array_equal(values, grid.columns[name]), name


def test_every_door_builds_the_same_scenario() -> None:
    """simulate and run_grid are builders: the Scenario they make, run directly, gives the
    same per-job table."""
    spec = "lublin:jobs=400,procs=64,seed=2"
    door = schedlab.simulate(spec, "conservative", load_factor=1.2)
    direct = run(Scenario(workload=spec, policy="conservative", load_factor=1.2))
    assert isinstance(door, Result) and door.kind == direct.kind == "cluster"
    pd.testing.assert_frame_equal(door.jobs, direct.jobs)
    plat = load_platform_source("builtin:dirac")
    stream = platform_stream(plat, {"meta_jobs": 100, "local_jobs": 50}, seed=4)
    via_grid = run_grid(plat, stream, "pilot_filling", seed=4)
    scenario = Scenario(workload=stream, platform=plat, meta="pilot_filling", seed=4)
    pd.testing.assert_frame_equal(via_grid.jobs, run(scenario).jobs)
    assert via_grid.kind == "grid" and via_grid.summary()["pilots"] > 0


def test_a_scenario_is_checked_before_any_work() -> None:
    """A platform run names its meta-scheduler; a cluster run takes no grid stream; the
    engine path is one of the allowed ones."""
    plat = load_platform_source("builtin:dirac")
    stream = platform_stream(plat, {"meta_jobs": 5, "local_jobs": 0}, seed=1)
    with pytest.raises(ConfigError, match="meta"):
        run(Scenario(workload=stream, platform=plat))
    with pytest.raises(ConfigError, match="platform"):
        run(Scenario(workload=stream))
    with pytest.raises(ConfigError, match="engine"):
        run(Scenario(workload="lublin:jobs=10", options=RunOptions(engine="fast")))


TDCS_SWEEP = """
[[workloads]]
platform = "builtin:tdcs"
generator = {hours = 4}
label = "tdcs-4h"
[[meta_schedulers]]
name = "tdcs"
horizon = [2, 0]
[[meta_schedulers]]
name = "tdcs_no_preemption"
[[meta_schedulers]]
name = "least_loaded"
preemption = ["checkpoint", "suspend"]
[grid]
seed = [1, 2]
"""


def test_a_tdcs_sweep_runs_resumes_and_reports(tmp_path: Path) -> None:
    """TDCS dispatchers, horizons, preemption modes and platforms are sweep keys; the runs
    are those of run_tdcs, resume, and appear in `results` and `report`."""
    sweep_file = tmp_path / "tdcs.toml"
    sweep_file.write_text(TDCS_SWEEP)
    sweep = load_sweep(sweep_file)
    assert len(sweep) == (2 + 1 + 2) * 2
    labels = set(sweep.policy_labels.values())
    assert {"tdcs(horizon=2)", "tdcs_no_preemption", "least_loaded(preemption=suspend)"} <= labels
    out = tmp_path / "out"
    invoke("-q", "sweep", str(sweep_file), "--out", str(out), "--workers", "2")
    again = CliRunner().invoke(app, ["sweep", str(sweep_file), "--out", str(out)])
    assert again.exit_code == 0 and "0 done now, 10 already" in again.output
    store = ResultStore(out)
    no_preemption = next(
        r for r in sweep.runs if sweep.policy_label(r) == "tdcs_no_preemption" and r.seed == 2
    )
    stored = store.summary(no_preemption.run_id)
    plat = load_platform_source("builtin:tdcs")
    direct = run_tdcs(plat, generate_tdcs(plat, hours=4, seed=2), "tdcs_no_preemption", seed=2)
    expected = direct.summary()
    for key in ("high_priority_mean_processing_time", "transfer_time", "preemptions", "jobs"):
        assert stored[key] == expected[key], key
    assert stored["preemptions"] == 0 and stored["configuration"] == "tdcs_no_preemption"
    records = runs_json(store)["runs"]
    assert all(r["high_priority_mean_processing_time"] > 0 for r in records)
    table = json.loads(invoke("results", str(out), "--json"))
    assert {r["policy"] for r in table["runs"]} >= {"tdcs", "least_loaded"}
    shown = invoke("results", str(out), "--markdown", "-")
    assert "high_priority_mean_processing_time" in shown and "preemption=suspend" in shown
    report = tmp_path / "report.html"
    invoke("-q", "report", str(out), "-o", str(report))
    assert "tdcs_no_preemption" in report.read_text() or "preemption=none" in report.read_text()


@pytest.mark.parametrize(
    ("entry", "option", "allowed"),
    [
        ('name = "push"\npreemption = "suspend"', "meta_schedulers[0].preemption", "dispatcher"),
        ('name = "tdcs_no_preemption"\npreemption = "suspend"', "meta_schedulers[0].preemption",
         "fixes it"),
        ('name = "tdcs"\npreemption = "pause"', "meta_schedulers[0].preemption", "checkpoint"),
        ('name = "tdcs"\ncheckpoint_overhead = -1', "meta_schedulers[0].checkpoint_overhead",
         ">= 0"),
        ('name = "tdcs"\nhorizon = -2', "meta_schedulers[0].horizon", "integer"),
    ],
)  # fmt: skip
def test_tdcs_sweep_keys_are_checked(tmp_path: Path, entry: str, option: str, allowed: str) -> None:
    """Local-manager keys only for TDCS dispatchers, never over a configuration that fixes
    them; bad values name their key path."""
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(
        '[[workloads]]\nplatform = "builtin:tdcs"\ngenerator = {hours = 1}\n'
        f"[[meta_schedulers]]\n{entry}\n"
    )
    with pytest.raises(ConfigError) as info:
        load_sweep(sweep_file)
    assert info.value.option == option
    assert allowed in str(info.value.allowed)


def test_a_platform_stream_is_checked_where_it_is_read(tmp_path: Path) -> None:
    """A platform file's [stream] names a known generator and its settings."""
    bad = tmp_path / "p.toml"
    bad.write_text(
        '[stream]\ngenerator = "tdcs"\nhourz = 3\n[[sites]]\nname = "a"\ngroups = [[1.0, 4]]\n'
        '[[sites.queues]]\nname = "q"\n'
    )
    with pytest.raises(ConfigError) as info:
        load_platform_source(str(bad))
    assert info.value.option == "stream.hourz" and "hours" in str(info.value.allowed)
    bad.write_text(bad.read_text().replace('"tdcs"\nhourz = 3', '"lcg"'))
    with pytest.raises(ConfigError, match="grid, tdcs"):
        load_platform_source(str(bad))


def test_a_warm_up_cut_applies_to_every_kind_of_run() -> None:
    """RunOptions.warmup is the default of summary() and by(); a platform run counts only
    the jobs after the cut too, and runs on the kernel whatever the options say."""
    plat = load_platform_source("builtin:dirac")
    stream = platform_stream(plat, {"meta_jobs": 60, "local_jobs": 20}, seed=3)
    whole = run(Scenario(workload=stream, platform=plat, meta="push"))
    cut = run(Scenario(workload=stream, platform=plat, meta="push", options=RunOptions(warmup=30)))
    assert whole.summary()["jobs"] == len(stream) and cut.summary()["jobs"] == len(stream) - 30
    pd.testing.assert_frame_equal(whole.jobs, cut.jobs)  # the cut is in the metrics only
    assert cut.summary() == {**whole.summary(warmup=30), "wall_time": cut.wall_time}
    assert int(cut.by("stream")["jobs"].sum()) == len(stream) - 30
    with pytest.raises(ConfigError, match="kernel"):
        run(
            Scenario(
                workload=stream, platform=plat, meta="push", options=RunOptions(engine="inlined")
            )
        )
    cluster = run(
        Scenario(workload="lublin:jobs=200,procs=32,seed=1", options=RunOptions(warmup=50))
    )
    assert cluster.summary()["jobs"] == 150 and len(cluster.jobs) == 200
