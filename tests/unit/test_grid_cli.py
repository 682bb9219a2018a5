"""`schedlab grid run` from the command line: the summary, the per-site/org/stream metrics,
the per-job table and the state counts over time, and the errors a user can make."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from schedlab.cli import app

PLATFORM = str(Path(__file__).parents[2] / "examples" / "platform-dirac.toml")
SMALL = "meta_jobs=60,local_jobs=20"


def grid_run(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, ["grid", "run", PLATFORM, "--generator", SMALL, *args])
    return result.exit_code, result.stdout, result.exception


def test_json_summary_with_per_site_metrics_agrees_with_the_job_table(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs.csv"
    code, out, exc = grid_run(
        "--meta", "static", "--by", "site", "--json", "--check", "--jobs-out", str(jobs)
    )
    assert code == 0, exc
    data = json.loads(out)
    table = pd.read_csv(jobs)
    assert data["jobs"] == len(table) == 60 + 3 * 20
    assert data["global_jobs"] == 60 and data["local_jobs"] == 60
    rows = data["by_site"]
    assert [r["site"] for r in rows] == ["site1", "site2", "site3"]
    assert sum(r["jobs"] for r in rows) == data["jobs"]
    for row in rows:
        mine = table[table["site"] == row["site"]]
        assert row["jobs"] == len(mine)
        assert row["mean_response_time"] == pytest.approx(mine["response_time"].mean())
        assert row["mean_local_wait_time"] == pytest.approx(mine["local_wait_time"].mean())
    assert data["matcher_requests"] == data["matcher_requests_agent"] > 0


def test_timeseries_out_counts_every_job_once_and_the_matchers_requests(tmp_path: Path) -> None:
    series = tmp_path / "series.parquet"
    code, out, exc = grid_run("--meta", "pilot_filling", "--json", "--timeseries-out", str(series))
    assert code == 0, exc
    data = json.loads(out)
    frame = pd.read_parquet(series)
    assert len(frame) == 200
    assert (frame[["queued", "running", "done"]].sum(axis=1) <= data["jobs"]).all()
    assert frame["done"].iloc[-1] == data["jobs"]
    assert frame["done"].is_monotonic_increasing
    kinds = ["agent", "first_pull", "refill"]
    assert frame["matcher_requests"].sum() == data["matcher_requests"]
    for kind in kinds:
        assert frame[f"matcher_requests_{kind}"].sum() == data[f"matcher_requests_{kind}"]
    # an existing file is kept unless --force
    before = series.read_bytes()
    code, _, exc = grid_run("--timeseries-out", str(series))
    assert code != 0 and "--force" in str(exc)
    assert series.read_bytes() == before
    code, _, exc = grid_run("--timeseries-out", str(series), "--by", "org", "--force")
    assert code == 0, exc
    by_org = pd.read_parquet(series)
    assert set(by_org["org"]) == {0, 1}  # organisations "meta" and "local" (the default)
    assert by_org.groupby("org")["done"].max().sum() == data["jobs"]


def test_push_table_and_bad_options() -> None:
    code, out, exc = grid_run("--meta", "push", "--param", "tie=free", "--by", "stream")
    assert code == 0, exc
    assert "per stream" in out and "global" in out and "local" in out
    code, _, exc = grid_run("--by", "queue")
    assert code != 0 and "site, org, stream" in str(exc)
    code, _, exc = grid_run("--meta", "push", "--param", "tie=fastest")
    assert code != 0 and "site, free" in str(exc)
