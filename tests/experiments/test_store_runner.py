"""The results store and the runner: atomic runs, resume, failures, lock, parallel = serial,
damaged runs named (and repaired by a sweep), seeds of any size in the catalog."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import execute_run, run_sweep
from schedlab.experiments.store import ResultStore, RunOutcome


def _runs() -> list[RunConfig]:
    return [
        RunConfig(workload=f"lublin:jobs=300,procs=32,seed={seed}", policy=policy, seed=seed)
        for seed in (1, 2)
        for policy in ("fcfs", "easy", "conservative")
    ]


def _files(root: Path) -> dict[str, bytes]:
    """Every result file (not meta.json: it holds timings) by relative path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted((root / "runs").rglob("*"))
        if p.is_file() and p.name != "meta.json"
    }


def test_execute_run_returns_results_and_never_raises() -> None:
    """A good config yields summary + Parquet tables; a bad one yields its error, no raise."""
    good = execute_run(_runs()[1].to_dict())
    assert good.ok and good.summary is not None and good.summary["jobs"] == 300
    assert "wall_time" not in good.summary  # timings live in meta, results stay deterministic
    assert good.jobs is not None and good.jobs[:4] == b"PAR1"
    assert good.meta is not None and good.meta["wall_time"] > 0
    bad = execute_run({**_runs()[0].to_dict(), "policy": "nope"})
    assert not bad.ok and "nope" in (bad.error or "") and "fcfs" in (bad.error or "")


def test_a_rebuilt_time_series_equals_the_recorded_one(tmp_path: Path) -> None:
    """The series a sweep no longer stores (non-preempting policies) is rebuilt from the
    jobs exactly as the simulation records it; pps, which suspends, still stores its own."""
    from schedlab import simulate
    from schedlab.workload.load import load_workload

    runs = [r for r in _runs() if r.policy == "easy"][:1]
    pps = RunConfig.from_dict({**runs[0].to_dict(), "policy": "pps"})
    with ResultStore(tmp_path) as store:
        run_sweep([*runs, pps], store, workers=1)
    store = ResultStore(tmp_path)
    rebuilt = store.timeseries(runs[0].run_id)
    recorded = simulate(load_workload(runs[0].workload), "easy", timeseries=True).timeseries
    for column in ("time", "queued", "running", "busy_procs"):
        assert rebuilt[column].tolist() == recorded[column].tolist()
    assert (tmp_path / "runs" / pps.run_id / "timeseries.parquet").is_file()
    assert len(store.timeseries(pps.run_id)) > 0


def test_sweep_writes_every_run_and_a_catalog(tmp_path: Path) -> None:
    """Each run gets a complete folder; the catalog has one row per run with its metrics."""
    runs = _runs()
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.done == len(runs) and progress.failed == 0
    for run in runs:
        folder = tmp_path / "runs" / run.run_id
        names = sorted(p.name for p in folder.iterdir())
        # fcfs/easy/conservative never suspend a job: their time series is rebuilt from the
        # per-job table when read, not stored (pps records it: test below)
        assert names == ["config.json", "jobs.parquet", "meta.json", "summary.json"]
        assert json.loads((folder / "meta.json").read_text())["timeseries_recorded"] is False
        assert json.loads((folder / "config.json").read_text())["policy"] == run.policy
    catalog = ResultStore(tmp_path).catalog()
    assert sorted(catalog["run_id"]) == sorted(r.run_id for r in runs)
    assert (catalog["status"] == "done").all()
    assert catalog["mean_wait_time"].notna().all()
    import pandas as pd

    assert len(pd.read_parquet(tmp_path / "catalog.parquet")) == len(runs)
    assert not any((tmp_path / "tmp").iterdir())


def test_rerun_skips_finished_runs_and_never_rewrites_them(tmp_path: Path) -> None:
    """A second sweep runs nothing and leaves every file untouched (mtime and bytes)."""
    runs = _runs()
    with ResultStore(tmp_path) as store:
        run_sweep(runs, store, workers=1)
    before = {
        p: (p.stat().st_mtime_ns, p.read_bytes())
        for p in (tmp_path / "runs").rglob("*")
        if p.is_file()
    }
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.skipped == len(runs) and progress.done == 0
    after = {
        p: (p.stat().st_mtime_ns, p.read_bytes())
        for p in (tmp_path / "runs").rglob("*")
        if p.is_file()
    }
    assert after == before


def test_changed_sweep_runs_only_what_is_new(tmp_path: Path) -> None:
    """Adding runs to a sweep runs exactly the new ones."""
    runs = _runs()
    with ResultStore(tmp_path) as store:
        run_sweep(runs[:4], store, workers=1)
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.skipped == 4 and progress.done == len(runs) - 4


def test_failed_run_is_recorded_and_does_not_stop_the_others(tmp_path: Path) -> None:
    """A run that raises is recorded with its error; the other runs complete."""
    runs = _runs()[:2] + [RunConfig(workload="/no/such/trace.swf", policy="easy")]
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.done == 2 and progress.failed == 1
    failure = json.loads(next((tmp_path / "failed").glob("*.json")).read_text())
    assert "no such file" in failure["error"] and "Traceback" in failure["traceback"]
    catalog = ResultStore(tmp_path).catalog()
    assert sorted(catalog["status"]) == ["done", "done", "failed"]


def test_failure_record_is_removed_when_the_run_later_succeeds(tmp_path: Path) -> None:
    """A failed run retried successfully leaves no failure record behind."""
    run = _runs()[0]
    store = ResultStore(tmp_path)
    store.open_for_writing()
    store.write(RunOutcome(run_id=run.run_id, config=run.to_dict(), error="boom"))
    assert store.failed_ids() == {run.run_id}
    store.write(execute_run(run.to_dict()))
    store.close()
    assert store.failed_ids() == set() and store.done_ids() == {run.run_id}


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    """Two sweeps cannot write one results folder at the same time."""
    with ResultStore(tmp_path), pytest.raises(ConfigError, match="no other running sweep"):
        ResultStore(tmp_path).open_for_writing()


def test_leftovers_of_a_killed_writer_are_cleared(tmp_path: Path) -> None:
    """Half-written temporary run folders are removed when the store is opened again."""
    (tmp_path / "tmp" / "abc-123").mkdir(parents=True)
    (tmp_path / "tmp" / "abc-123" / "jobs.parquet").write_bytes(b"half")
    with ResultStore(tmp_path):
        pass
    assert not any((tmp_path / "tmp").iterdir())


def test_parallel_processes_give_the_same_bytes_as_serial(tmp_path: Path) -> None:
    """Two worker processes produce results byte-identical to one process."""
    runs = _runs()
    with ResultStore(tmp_path / "serial") as store:
        run_sweep(runs, store, workers=1)
    with ResultStore(tmp_path / "parallel") as store:
        run_sweep(runs, store, workers=2)
    assert _files(tmp_path / "serial") == _files(tmp_path / "parallel")


# -- damaged runs ------------------------------------------------------------------------
SCHEDLAB = [sys.executable, "-c", "from schedlab.cli import main; main()"]


def _cut_in_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _two_runs(root: Path, policy: str | None = None) -> list[RunConfig]:
    runs = _runs()[:2]
    if policy is not None:
        runs = [RunConfig.from_dict({**r.to_dict(), "policy": policy}) for r in runs]
    with ResultStore(root) as store:
        run_sweep(runs, store, workers=1)
    return runs


@pytest.mark.parametrize("name", ["summary.json", "config.json", "meta.json"])
def test_truncated_run_file_names_the_run_and_the_repair(tmp_path: Path, name: str) -> None:
    """A run file cut short (a crash before it reached the disk) gives a ConfigError naming
    the run and the file and saying that `schedlab sweep` repairs it, not a JSONDecodeError."""
    runs = _two_runs(tmp_path)
    damaged = runs[1].run_id
    path = tmp_path / "runs" / damaged / name
    _cut_in_half(path)
    store = ResultStore(tmp_path)
    with pytest.raises(ConfigError) as info:
        store.catalog()
    message = str(info.value)
    assert f"run {damaged}" in message and str(path) in message
    assert "`schedlab sweep` on this folder again to repair it" in message
    reader = {"summary.json": store.summary, "config.json": store.config, "meta.json": store.meta}
    with pytest.raises(ConfigError, match=damaged):
        reader[name](damaged)
    store.summary(runs[0].run_id)  # the intact run still reads


@pytest.mark.parametrize("table", ["jobs", "timeseries"])
def test_damaged_or_missing_table_names_the_run(tmp_path: Path, table: str) -> None:
    """A truncated or missing Parquet table of a run gives the same clear error (pps: a
    policy that suspends jobs, whose time series is stored)."""
    runs = _two_runs(tmp_path, "pps" if table == "timeseries" else None)
    damaged = runs[0].run_id
    path = tmp_path / "runs" / damaged / f"{table}.parquet"
    read = getattr(ResultStore(tmp_path), table)
    _cut_in_half(path)
    with pytest.raises(ConfigError, match=f"run {damaged}.*repair"):
        read(damaged)
    path.unlink()
    with pytest.raises(ConfigError, match=f"run {damaged}.*repair"):
        read(damaged)
    with pytest.raises(FileNotFoundError):  # a run that is not there is no damaged run
        read("0123456789abcdef")


def test_sweep_repairs_a_damaged_run(tmp_path: Path) -> None:
    """Opening the folder for writing removes the damaged run (``repaired_runs``), the sweep
    runs it again, and it reads as before the damage."""
    runs = _two_runs(tmp_path)
    damaged = runs[1].run_id
    before = _files(tmp_path)
    _cut_in_half(tmp_path / "runs" / damaged / "summary.json")
    with ResultStore(tmp_path) as store:
        assert store.repaired_runs == [damaged]
        progress = run_sweep(runs, store, workers=1)
    assert progress.skipped == 1 and progress.done == 1
    assert _files(tmp_path) == before
    assert len(ResultStore(tmp_path).catalog()) == 2


def test_damaged_failure_record_is_named_and_cleared_by_a_sweep(tmp_path: Path) -> None:
    """A failure record cut short: named on reading; the next sweep drops it (the failed
    run is run again anyway)."""
    run = RunConfig(workload="/no/such/trace.swf", policy="easy")
    with ResultStore(tmp_path) as store:
        run_sweep([run], store, workers=1)
    path = tmp_path / "failed" / f"{run.run_id}.json"
    _cut_in_half(path)
    with pytest.raises(ConfigError, match=f"run {run.run_id}"):
        ResultStore(tmp_path).catalog()
    with ResultStore(tmp_path):
        assert not path.exists()


def test_results_and_report_name_the_damaged_run(tmp_path: Path) -> None:
    """`schedlab results` (table and --json) and `schedlab report` on a folder with a
    truncated summary.json: exit code 2 and one line naming the run, no traceback."""
    runs = _two_runs(tmp_path / "out")
    damaged = runs[0].run_id
    _cut_in_half(tmp_path / "out" / "runs" / damaged / "summary.json")
    commands = [
        ["results", str(tmp_path / "out")],
        ["results", str(tmp_path / "out"), "--json"],
        ["report", str(tmp_path / "out"), "-o", str(tmp_path / "report.html")],
    ]
    for command in commands:
        result = subprocess.run(
            [*SCHEDLAB, *command], capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 2, (command, result.stderr)
        assert damaged in result.stderr and "schedlab sweep" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr


# -- big seeds ---------------------------------------------------------------------------
def test_catalog_keeps_seeds_beyond_int64_as_strings(tmp_path: Path) -> None:
    """A seed above 2**63 - 1 (any Python int is a seed) no longer breaks the catalog: the
    seed column is written as decimal strings, every digit kept."""
    big = 2**64 + 5
    runs = [
        RunConfig(workload="lublin:jobs=100,procs=32", policy="easy", seed=seed)
        for seed in (1, big)
    ]
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.done == 2 and progress.failed == 0
    import pandas as pd

    catalog = pd.read_parquet(tmp_path / "catalog.parquet")
    assert sorted(catalog["seed"]) == sorted(["1", str(big)])
    assert sorted(ResultStore(tmp_path).catalog()["seed"]) == [1, big]


def test_int_columns_beyond_int64_become_strings() -> None:
    """int64 bounds stay int64; one value beyond (either side) turns the column to strings."""
    import pyarrow as pa

    from schedlab.experiments.arrow import python_array

    edge = python_array([2**63 - 1, None, -(2**63)])
    assert edge.type == pa.int64() and edge.to_pylist() == [2**63 - 1, None, -(2**63)]
    over = python_array([1, None, 2**63])
    assert over.type == pa.string() and over.to_pylist() == ["1", None, str(2**63)]
    under = python_array([-(2**63) - 1, 2])
    assert under.to_pylist() == [str(-(2**63) - 1), "2"]
    mixed = python_array([0.5, 2**70])
    assert mixed.type == pa.string() and mixed.to_pylist() == ["0.5", str(2**70)]
