"""Fuzzing the options of `tdcs run`, the HLW and M/M/c specs and ``--moldable`` (issue 22,
item 10): hostile values either give one error line (exit code 2) or a run whose metrics
are finite, whose JSON is strict and whose invariant checker (``--check``) stayed clean.

Every run goes through the console entry point in this process (errors as one line, files
recorded as inputs), with ``--check --json``. Deterministic (``derandomize=True``, no example
database) and kept tiny: a value that would be accepted is always a small one (minutes of
arrivals, a few chains, tens of jobs), a large one is always one the ceilings refuse, so the
file runs in well under a minute on one core.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from in_process import main_in_process
from schedlab.workload.job import MAX_TIME
from strategies import fuzz


def run_cli(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    return main_in_process(capsys, "--quiet", *args)


def _refuse(constant: str) -> Any:
    raise AssertionError(f"non-finite number {constant} printed as JSON")


def check_outcome(code: int, out: str, err: str) -> dict[str, Any] | None:
    """Exit 2 with one ``schedlab: error:`` line and nothing on stdout, or exit 0 with strict
    JSON whose numbers are finite and possible (the summary, returned)."""
    if code != 0:
        assert code == 2, (code, err)
        if "Usage:" in err and "schedlab: error:" not in err:
            return None  # click's own refusal of a value of the wrong type (a usage line)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("schedlab: error: "), err
        assert lines[0].isprintable() and len(lines[0]) < 2000
        assert not out
        return None
    doc = json.loads(out, parse_constant=_refuse)
    assert isinstance(doc, dict)
    for key, value in doc.items():
        if isinstance(value, float):
            assert math.isfinite(value), key
        if value is None:
            assert key in doc.get("undefined", {}), key  # null only with a reason
    assert doc["jobs"] >= 1
    makespan = doc.get("makespan")
    assert makespan is None or 0 <= makespan <= MAX_TIME
    utilization = doc.get("utilization")
    assert utilization is None or 0 <= utilization <= 1 + 1e-9
    return doc


def assign(
    draw: st.DrawFn, table: dict[str, tuple[list[Any], list[Any]]], keys: list[str]
) -> dict[str, Any]:
    """A value for each of ``keys``: hostile (the second pool) for at most two of them,
    valid and small (the first pool) for the others, so that runs get through as often as
    refusals; a key whose valid pool is empty is left out unless drawn hostile."""
    hostile = [k for k in keys if table[k][1]]
    bad = (
        set(draw(st.lists(st.sampled_from(hostile), max_size=2, unique=True))) if hostile else set()
    )
    values: dict[str, Any] = {}
    for key in keys:
        valid, wrong = table[key]
        if key in bad:
            values[key] = draw(st.sampled_from(wrong))
        elif valid:
            values[key] = draw(st.sampled_from(valid))
    return values


# -- tdcs run -------------------------------------------------------------------------------

# (valid and small values, hostile ones): a draw takes a valid value more often than not,
# so that runs get through as well as refusals
HOURS = (["0.25", "0.5", "0.3"], ["1e-9", "0", "-1", "nan", "inf", "1e308", "1e7", "5e5", "x"])
LOADS = (["0.85", "0.3", "2"], ["0", "-0.5", "nan", "inf", "1e-300", "1e300", "1e-3"])
OVERHEADS = (["60", "0", "1e9", "5e-324"], ["-1", "nan", "inf", "1e308", "1e15", "1e9.5"])
HORIZONS = ([None, "0", "1", "3", str(2**63), "9" * 30], ["-1", "1.5"])
DISPATCHERS = (
    ["tdcs", "tdcs_no_preemption", "round_robin", "least_loaded", "random"],
    ["push", "pilot_filling", "pilot_simple", "direct", "static", "TDCS", "", "tdcs "],
)
PREEMPTIONS = (["checkpoint", "suspend", "requeue", "cancel", "none"], ["pause", ""])
RULES = ([None, "queue", "queue_and_running", "fits_by_preemption"], ["nearest"])
MAX_JOBS = ([None, "1000000", "10000", str(2**70)], ["0", "-5", "10"])
SEEDS = (["0", "1", "7", str(2**63 - 1), str(2**64)], ["-1"])


TDCS_OPTIONS: dict[str, tuple[list[Any], list[Any]]] = {
    "--hours": HOURS,
    "--load": LOADS,
    "--dispatcher": DISPATCHERS,
    "--preemption": PREEMPTIONS,
    "--checkpoint-overhead": OVERHEADS,
    "--seed": SEEDS,
    "--horizon": HORIZONS,
    "--candidate-rule": RULES,
    "--max-jobs": MAX_JOBS,
}


@st.composite
def tdcs_options(draw: st.DrawFn) -> list[str]:
    args = ["tdcs", "run", "--check", "--json"]
    for option, value in assign(draw, TDCS_OPTIONS, sorted(TDCS_OPTIONS)).items():
        if value is not None:
            args += [option, value]
    return args


@fuzz(60)
@given(args=tdcs_options())
def test_tdcs_run_options(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    doc = check_outcome(*run_cli(capsys, args))
    if doc is not None:
        assert doc["preemptions"] >= 0 and doc["killed"] >= 0


# -- hlw specs ------------------------------------------------------------------------------

# (valid, hostile) values per key; a valid value is always a small instance, a large one is
# always refused (never a valid large instance, which would be drawn and run for real)
HLW_VALUES: dict[str, tuple[list[str], list[str]]] = {
    "n": (["1", "2", "3"], ["0", "-1", "1.5", "10000000", "9" * 400, "nan", "x"]),
    "nodes": (["1", "2", "4", "64", "2147483647"], ["2147483648", "0", "-4", "1e9", "true"]),
    "pi": (["0", "0.5", "0.99", "1", "1e-320"], ["1.01", "-0.1", "nan", "inf"]),
    "seed": (["0", "1", str(2**64)], ["-1", "1.5", "nan"]),
    "w1": (["1", "0.001", "1e9", "5e-324"], ["1e14", "1e15", "1e16", "0", "-1", "inf", "nan"]),
    "w2": (["15", "1e-6", "1e8"], ["1e13", "1e300", "0", "inf"]),
    "p": (["0", "0.33", "1"], ["2", "-0.5", "nan"]),
    "opt_min": (["1", "2"], ["0", "5000001", "x"]),
    "opt_max": (["1", "2", "3"], ["0", "5000000"]),
    "max_tasks": (["100", "10000000", str(2**80)], ["1", "0"]),
    "bogus": ([], ["1"]),
}
HLW_POLICIES = ["fs", "fs0.5", "fs0.5x", "fs0.5mpx", "rand", "ref4", "refn", "cpa", "easy"]


@st.composite
def hlw_runs(draw: st.DrawFn) -> list[str]:
    keys = draw(st.lists(st.sampled_from(sorted(HLW_VALUES)), max_size=5, unique=True))
    items = {"n": "2", "nodes": "4", "opt_max": "3"}  # small unless the draw changes it
    items.update(assign(draw, HLW_VALUES, keys))
    text = ",".join(f"{k}={v}" for k, v in items.items())
    if draw(st.integers(0, 9)) == 9:
        text += f",{draw(st.sampled_from(sorted(items)))}=1"  # a key twice
    policy = draw(st.sampled_from(HLW_POLICIES))
    args = ["run", f"hlw:{text}", "--policy", policy, "--check", "--json"]
    if policy == "cpa":
        args += ["--param", "max_iterations=20000"]  # tiny: refused in a blink when huge
    return args


@fuzz(80)
@given(args=hlw_runs())
def test_hlw_specs(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    check_outcome(*run_cli(capsys, args))


# -- mmc specs ------------------------------------------------------------------------------

MMC_VALUES: dict[str, tuple[list[str], list[str]]] = {
    "servers": (["1", "2", "8", "1000000"], ["1000001", "0", "-1", "1.5", "nan"]),
    "load": (["0.5", "0.9", "1", "10", "0.01"], ["1e-300", "0.001", "11", "0", "nan", "inf"]),
    "jobs": (["1", "5", "50"], ["0", "-3", "10000001", "1e300", "9" * 400, "x"]),
    "seed": (["0", "3", str(2**63 - 1)], [str(2**63), "-1"]),
    "service": (["1", "1e-6", "1e9"], ["1e10", "1e-7", "0", "-1", "inf", "5e-324"]),
    "max_jobs": (["50", str(2**70)], ["1", "0"]),
}


@st.composite
def mmc_runs(draw: st.DrawFn) -> list[str]:
    items = {"servers": "2", "load": "0.5", "jobs": "5"}
    keys = draw(st.lists(st.sampled_from(sorted(MMC_VALUES)), max_size=4, unique=True))
    items.update(assign(draw, MMC_VALUES, keys))
    if draw(st.integers(0, 9)) == 9:
        del items[draw(st.sampled_from(sorted(items)))]  # a required key missing
    text = ",".join(f"{k}={v}" for k, v in items.items())
    policy = draw(st.sampled_from(["fcfs", "easy", "pps", "conservative"]))
    return ["run", f"mmc:{text}", "--policy", policy, "--check", "--json"]


@fuzz(60)
@given(args=mmc_runs())
def test_mmc_specs(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    doc = check_outcome(*run_cli(capsys, args))
    if doc is not None:
        assert doc["mean_slowdown"] >= 1 - 1e-9  # (0.0 was the impossible number)


# -- --moldable -----------------------------------------------------------------------------

MOLDABLE_VALUES: dict[str, tuple[list[str], list[str]]] = {
    "pi": (["0.9", "0.5", "0", "1"], ["1.5", "-0.1", "nan", "inf", "1e400", "x", ""]),
    "fraction": (["1", "0.5", "0"], ["2", "-1", "nan"]),
    "seed": (["0", "1", str(2**70)], ["-1", "1.5", "9" * 400]),
    "alpha": ([], ["0.5"]),  # not a key of --moldable
}


@st.composite
def moldable_runs(draw: st.DrawFn) -> list[str]:
    keys = ["pi", *draw(st.lists(st.sampled_from(sorted(MOLDABLE_VALUES)), max_size=3))]
    if draw(st.integers(0, 9)) == 9:
        keys.remove("pi")  # pi missing (or only given by the draw)
    chosen = assign(draw, MOLDABLE_VALUES, sorted(set(keys)))
    items = [f"{k}={chosen[k]}" for k in keys if k in chosen]  # (repeats: refused)
    if draw(st.integers(0, 9)) == 9:
        items.append(draw(st.sampled_from(["pi", "=0.5", ",", "pi==0.5"])))
    policy = draw(st.sampled_from(["fs", "fs0.5x", "rand", "refn", "cpa", "easy", "fcfs"]))
    workload = draw(
        st.sampled_from(["mmc:servers=4,load=0.7,jobs=12,seed=2", "hlw:n=2,nodes=4,opt_max=2"])
    )
    args = ["run", workload, "--policy", policy, "--check", "--json"]
    return [*args, "--moldable", ",".join(items)]


@fuzz(60)
@given(args=moldable_runs())
def test_moldable_specs(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    check_outcome(*run_cli(capsys, args))
