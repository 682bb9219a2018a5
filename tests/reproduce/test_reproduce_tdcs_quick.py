"""`schedlab reproduce tdcs --quick --json` (paper 003, 3 seeds x 48 h): the JSON interface
of issue 12, the cache of per-run results, and the components adding up. The measured
outcome and its reading are in docs/reproductions.md, "Absolute priorities across
clusters (paper 003)"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.experiments.store import ResultStore

DISPATCHERS = {"tdcs", "tdcs_no_preemption", "round_robin", "least_loaded", "random"}
ROW_KEYS = {
    "dispatcher",
    "seed",
    "high_priority_mean_processing_time",
    "global_queue_time",
    "transfer_time",
    "local_queue_time",
    "run_time",
    "low_priority_throughput",
    "lost_work",
}


def invoke(out: Path) -> dict[str, Any]:
    args = ["reproduce", "tdcs", "--quick", "--json", "--out", str(out), "--workers", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def tdcs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("tdcs") / "reproduce-tdcs"
    return invoke(out), out


def test_the_json_is_the_issue_interface(tdcs: tuple[dict[str, Any], Path]) -> None:
    """{"rows": [{the keys}, ...], "horizon": [[H, high processing, low wait], ...]}."""
    data, out = tdcs
    assert set(data) == {"rows", "horizon", "out"}
    rows = data["rows"]
    assert {r["dispatcher"] for r in rows} == DISPATCHERS
    assert len(rows) == 5 * 3
    for r in rows:
        assert set(r) == ROW_KEYS
        parts = sum(r[k] for k in ("global_queue_time", "transfer_time", "local_queue_time",
                                   "run_time"))  # fmt: skip
        assert parts == pytest.approx(r["high_priority_mean_processing_time"])
        assert r["low_priority_throughput"] > 0 and r["lost_work"] >= 0
        if r["dispatcher"] != "tdcs":
            assert r["dispatcher"] == "tdcs_no_preemption" or r["global_queue_time"] == 0
    assert [h for h, _, _ in data["horizon"]] == [1, 2, 4, 8, 16, None]
    unlimited = [r for r in rows if r["dispatcher"] == "tdcs"]
    mean = sum(r["high_priority_mean_processing_time"] for r in unlimited) / len(unlimited)
    assert data["horizon"][-1][1] == pytest.approx(mean)
    assert (out / "tdcs_components.svg").is_file() and (out / "tdcs_horizon.svg").is_file()


def test_a_rerun_reads_the_cache(tdcs: tuple[dict[str, Any], Path]) -> None:
    """Every run is kept in OUT (a results folder of the sweep layer, as for the other
    reproductions); a rerun gives the same JSON from them."""
    data, out = tdcs
    assert len(ResultStore(out).done_ids()) == 5 * 3 + 5 * 3
    again = invoke(out)
    assert again == data
