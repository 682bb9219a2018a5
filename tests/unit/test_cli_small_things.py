"""What a user trips on (issue 23, items 4 and 7): a moldable-job policy given rigid jobs says
so, as dbf without deadlines does; ``run --json`` records what ran."""

from __future__ import annotations

import pytest
from test_cli import invoke_json, run_main

from schedlab.notes import set_quiet

RIGID = "lublin:jobs=60,procs=16,seed=3"


@pytest.fixture(autouse=True)
def notes_on() -> None:
    set_quiet(False)


@pytest.mark.parametrize("policy", ["cpa", "fs", "fs0.5x", "rand"])
def test_a_moldable_policy_on_rigid_jobs_says_so(
    policy: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(monkeypatch, capsys, "run", RIGID, "--policy", policy)
    assert code == 0, err
    assert f"{policy} schedules moldable jobs and no job here is moldable" in err
    assert "--moldable pi=X" in err


def test_moldable_jobs_or_a_rigid_policy_say_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ("run", RIGID, "--policy", "cpa", "--moldable", "pi=0.9"),
        ("run", "hlw:n=2,nodes=8,seed=1", "--policy", "fs"),
        ("run", RIGID, "--policy", "easy"),
    ):
        code, out, err = run_main(monkeypatch, capsys, *args)
        assert code == 0, err
        assert "schedules moldable jobs" not in err


def test_run_json_records_the_policy_its_parameters_and_the_workload() -> None:
    data = invoke_json("run", RIGID, "--policy", "multifactor", "--param", "weight_age=2", "--json")
    assert data["policy"] == "multifactor" and data["workload"] == RIGID
    assert data["params"]["weight_age"] == 2  # given, beside the defaults it ran with
    assert len(data["params"]) > 1
