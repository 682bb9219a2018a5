"""The results store and the runner: atomic runs, resume, failures, lock, parallel = serial."""

from __future__ import annotations

import json
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


def test_sweep_writes_every_run_and_a_catalog(tmp_path: Path) -> None:
    """Each run gets a complete folder; the catalog has one row per run with its metrics."""
    runs = _runs()
    with ResultStore(tmp_path) as store:
        progress = run_sweep(runs, store, workers=1)
    assert progress.done == len(runs) and progress.failed == 0
    for run in runs:
        folder = tmp_path / "runs" / run.run_id
        names = sorted(p.name for p in folder.iterdir())
        assert names == [
            "config.json",
            "jobs.parquet",
            "meta.json",
            "summary.json",
            "timeseries.parquet",
        ]
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
