"""`schedlab reproduce dirac --quick --json` (paper 001, 3 seeds, fewer Δt points): the JSON
interface of issue 11, and the paper's directions that hold on the reduced experiment. The
whole experiment and its reading (what agrees, what does not, by how much) are in
docs/reproductions.md, "Push against DIRAC pull (paper 001)"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from schedlab.cli import app

STRATEGIES = ("push", "static", "pilot_simple", "pilot_filling")
STRATEGY_KEYS = {
    "mean_response_time",
    "mean_wait_time",
    "makespan",
    "matcher_requests",
    "wasted_pilots",
    "local_mean_response_time",
    "mean_execution_time",
}


@pytest.fixture(scope="module")
def dirac(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    out = tmp_path_factory.mktemp("dirac") / "reproduce-dirac"
    args = ["reproduce", "dirac", "--quick", "--json", "--out", str(out), "--workers", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), out


def test_the_json_is_the_issue_interface(dirac: tuple[dict[str, Any], Path]) -> None:
    """{"dedicated": C, "shared": C}, C = {"strategies": {the four}, "push_wait_vs_refresh":
    [[dt, wait], ...], "dirac_mean_wait_time": x}; means over the seeds."""
    data, out = dirac
    for context in ("dedicated", "shared"):
        c = data[context]
        assert set(c["strategies"]) == set(STRATEGIES)
        for name in STRATEGIES:
            s = c["strategies"][name]
            assert set(s) >= STRATEGY_KEYS, name
            assert s["seeds"] == 3
            assert s["mean_response_time"] > s["mean_wait_time"] >= 0
            assert s["makespan"] > 0
        curve = c["push_wait_vs_refresh"]
        assert [dt for dt, _ in curve] == sorted(dt for dt, _ in curve)
        assert curve[0][0] == 0
        assert curve[0][1] == pytest.approx(c["strategies"]["push"]["mean_wait_time"])
        assert c["dirac_mean_wait_time"] == c["strategies"]["static"]["mean_wait_time"]
        assert c["strategies"]["push"]["matcher_requests"] == 0
        assert c["strategies"]["static"]["matcher_requests"] > 0
        assert c["strategies"]["static"]["wasted_pilots"] == 0
    assert data["dedicated"]["strategies"]["push"]["local_mean_response_time"] is None
    assert data["shared"]["strategies"]["push"]["local_mean_response_time"] > 0
    for name in ("rows.json", "tables.md"):
        assert (out / name).is_file()
    for name in ("figure7_states", "figure8_wait_vs_refresh", "figure9_strategies"):
        assert (out / f"dirac_{name}.svg").stat().st_size > 10_000


def test_push_wait_grows_with_refresh_and_passes_diracs(
    dirac: tuple[dict[str, Any], Path],
) -> None:
    """Figure 8: push's mean wait grows with Δt (a stale information system piles jobs on
    one site) and passes DIRAC's; in the dedicated context within the paper's range (it
    says about 95 s), in the shared one only far past it (docs/reproductions.md)."""
    data, _ = dirac
    for context in ("dedicated", "shared"):
        c = data[context]
        waits = [w for _, w in c["push_wait_vs_refresh"]]
        assert waits[-1] > 3 * waits[0], context
        assert all(b > a for a, b in zip(waits, waits[1:])), context
        assert waits[-1] > c["dirac_mean_wait_time"] > waits[0], context
        assert c["crossover_refresh"] is not None and c["crossover_refresh"] > 0
    assert data["dedicated"]["crossover_refresh"] < 200


def test_push_has_the_best_dedicated_makespan_when_ties_go_to_free_processors(
    dirac: tuple[dict[str, Any], Path],
) -> None:
    """Figure 9: push at Δt = 0 has the best makespan, in the dedicated context, once its
    ties go to the queue with the most free processors. Under SPEC 5's rule (ties to the
    lowest site) it does not: at load 0.83 most depths are 0 and the first site gets the
    jobs while the others have free nodes (docs/reproductions.md)."""
    data, _ = dirac
    dedicated = data["dedicated"]
    assert dedicated["best_makespan_push_tie_free"] == "push"
    free = dedicated["sensitivity"]["push_tie_free"]
    assert free["seeds"] == 3
    assert free["makespan"] < dedicated["strategies"]["push"]["makespan"]
    assert free["mean_wait_time"] < dedicated["strategies"]["push"]["mean_wait_time"]


def test_filling_pilots_have_the_lowest_mean_response(
    dirac: tuple[dict[str, Any], Path],
) -> None:
    """Figure 9: the filling pilots give the meta-jobs the lowest mean response time; in the
    shared context by far (the paper: about 50 % better than push)."""
    data, _ = dirac
    for context in ("dedicated", "shared"):
        assert data[context]["lowest_mean_response_time"] == "pilot_filling", context
    assert data["shared"]["response_gain_filling_vs_push"] > 25


def test_filling_pilot_agents_probe_less_than_static_agents_request(
    dirac: tuple[dict[str, Any], Path],
) -> None:
    """Section 8: fewer matcher requests with pilots (699) than with static agents (872),
    where the 699 are the pilot agents' probes (grid/dirac.py): true of the filling pilots.
    Counting the pilots' own pulls too, the pilots need more (docs/reproductions.md)."""
    data, _ = dirac
    for context in ("dedicated", "shared"):
        strategies = data[context]["strategies"]
        probes = strategies["pilot_filling"]["matcher_requests_agent"]
        assert probes < strategies["static"]["matcher_requests"], context


def test_a_second_run_simulates_nothing(dirac: tuple[dict[str, Any], Path]) -> None:
    _, out = dirac
    runs = sorted(p.name for p in (out / "runs").iterdir())
    args = ["reproduce", "dirac", "--quick", "--json", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0
    assert sorted(p.name for p in (out / "runs").iterdir()) == runs
