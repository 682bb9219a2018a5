"""`schedlab reproduce hlw --quick --json` (paper 004, 10 instances per scenario): the JSON
interface of issue 10, and the findings that hold on the reduced experiment. The whole
experiment (100 instances) and its reading are in docs/reproductions.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedlab.cli import app

ALGORITHMS = {"FS", "FS0.5", "FS0.5X", "FS0.5mPX", "rand", "Ref4", "RefN", "CPA"}
SCENARIO_KEYS = {
    "name",
    "n_over_N",
    "pi",
    "nodes",
    "instances",
    "median_normalized_cmax",
    "improvement_over_best_reference",
    "paper_improvement",
}


@pytest.fixture(scope="module")
def hlw(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("hlw") / "reproduce-hlw"
    args = ["reproduce", "hlw", "--quick", "--json", "--out", str(out), "--workers", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), out


def test_the_json_is_the_issue_interface(hlw: tuple[dict[str, Any], Path]) -> None:
    data, out = hlw
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert sorted(scenarios) == list("abcdef")
    for s in scenarios.values():
        assert set(s) >= SCENARIO_KEYS
        assert s["instances"] == 10
        medians = s["median_normalized_cmax"]
        assert {"FS", "FS0.5", "FS0.5X", "FS0.5mPX", "Ref4", "RefN"} <= set(medians)
        assert set(medians) <= ALGORITHMS
        assert all(v >= 1.0 for v in medians.values())  # the lower bound holds
    assert {"rand", "CPA"} <= set(scenarios["a"]["median_normalized_cmax"])
    expected = {"a": (2, 0.99, 64), "b": (16, 0.99, 4), "c": (0.125, 0.99, 64),
                "d": (0.125, 0.9, 64), "e": (0.125, 1.0, 64), "f": (4, 0.9, 64)}  # fmt: skip
    for name, (ratio, pi, nodes) in expected.items():
        s = scenarios[name]
        assert (s["n_over_N"], s["pi"], s["nodes"]) == (ratio, pi, nodes)
    assert {s["name"]: s["paper_improvement"] for s in data["scenarios"]} == {
        "a": 4.0, "b": 2.0, "c": 3.0, "d": 11.0, "e": 4.0, "f": 22.0
    }  # fmt: skip
    assert (out / "hlw_normalized_cmax.svg").stat().st_size > 10_000
    assert (out / "tables.md").read_text().count("|") > 100


def test_findings_that_hold_on_the_reduced_experiment(hlw: tuple[dict[str, Any], Path]) -> None:
    """FS0.5mPX beats the best reference in a, b, c, e and f; CPA and rand are poor in a;
    RefN leaves most nodes idle at n/N = 1/8. (Scenario d does not agree with the paper:
    docs/reproductions.md says by how much and why.)"""
    data, _ = hlw
    scenarios = {s["name"]: s for s in data["scenarios"]}
    for name in "abcef":
        assert scenarios[name]["improvement_over_best_reference"] > 0, name
    a = scenarios["a"]["median_normalized_cmax"]
    assert a["CPA"] > a["FS0.5mPX"] and a["rand"] > a["Ref4"] > a["FS0.5mPX"]
    for name in "cde":
        assert scenarios[name]["median_normalized_cmax"]["RefN"] > 5
    present = scenarios["f"]["sensitivity_share_of_present"]["improvement_over_best_reference"]
    assert present > 15 and not math.isnan(present)


def test_a_second_run_simulates_nothing(hlw: tuple[dict[str, Any], Path]) -> None:
    _, out = hlw
    runs = sorted(p.name for p in (out / "runs").iterdir())
    result = CliRunner().invoke(app, ["reproduce", "hlw", "--quick", "--json", "--out", str(out)])
    assert result.exit_code == 0
    assert sorted(p.name for p in (out / "runs").iterdir()) == runs
