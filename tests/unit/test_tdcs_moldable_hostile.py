"""Hostile inputs of `tdcs run`, the HLW and M/M/c models, the moldable policies and `pps`
checkpoints (issue 22, items 1, 2, 3, 6 and 7): each minimal case of the issue ends in one
line naming the option, file, line or key (exit code 2) or in a documented finite result;
never a traceback, a hang, a MemoryError, a replaced input or non-finite JSON."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedlab
from in_process import main_in_process
from schedlab.errors import ConfigError
from schedlab.grid.platforms import load_platform_source
from schedlab.grid.tdcs import CONFIGURATIONS, local_manager
from schedlab.inputs import is_recorded_input, tracking
from schedlab.schedulers.moldable.cpa import CpaInstance, list_schedule, plan_cpa
from schedlab.schedulers.pps import MAX_CHECKPOINT_OVERHEAD, PpsParams
from schedlab.simulation import run_tdcs
from schedlab.workload.job import Workload
from schedlab.workload.load import load_workload, parse_model_spec
from schedlab.workload.models.hlw import MAX_TASKS, generate_hlw
from schedlab.workload.models.mmc import generate_mmc
from schedlab.workload.models.tdcs import MAX_JOBS, TdcsWorkload, generate_tdcs

# -- helpers --------------------------------------------------------------------------------


cli = main_in_process  # (the name every test here calls)


def one_error_line(err: str) -> str:
    """The single ``schedlab: error:`` line of ``err`` (asserts there is exactly one line)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("schedlab: error: "), err
    return lines[0]


def strict_json(text: str) -> Any:
    """``text`` parsed as RFC 8259 JSON: NaN or Infinity is an error, not a number."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"non-finite number {constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


def trace(folder: Path, queues: list[int] | None = None) -> Path:
    """A small SWF trace: five jobs, ids 1..5, sizes 1 to 8, queue (priority) per job."""
    queues = queues or [0, 0, 1, 1, 2]
    lines = ["; MaxProcs: 64"]
    for i, queue in enumerate(queues):
        size = 2 ** (i % 4)
        run = 600 + 100 * i
        lines.append(
            f"{i + 1} {60 * i} -1 {run} {size} -1 -1 {size} {2 * run} -1 1 1 -1 -1 {queue} -1 -1 -1"
        )
    path = folder / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def plat() -> Any:
    return load_platform_source("builtin:tdcs")


# -- item 1: an input is never replaced --------------------------------------------------------


def test_priority_table_is_never_replaced_by_jobs_out(tmp_path: Path) -> None:
    """The issue's case, end to end in a fresh process: refused (exit 2, one line naming
    --jobs-out and the file), the table byte for byte as it was."""
    swf = trace(tmp_path)
    table = tmp_path / "prio.csv"
    table.write_text("job_id,priority\n1,2\n2,1\n")
    before = table.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "schedlab", "tdcs", "run", "--workload", str(swf),
         "--priority-from", str(table), "--jobs-out", str(table), "--force"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    line = one_error_line(done.stderr)
    assert "--jobs-out" in line and "prio.csv" in line
    assert table.read_bytes() == before


def test_priority_table_is_read_as_a_recorded_input(tmp_path: Path, plat: Any) -> None:
    """Read through `read_input`: recorded, so no later output (whatever option) may
    replace it, even one the command did not list as an input."""
    swf = trace(tmp_path)
    table = tmp_path / "prio.csv"
    table.write_text("job_id,priority\n3,5\n")
    with tracking():
        wl = TdcsWorkload.from_swf(
            load_workload(str(swf)), plat, priority_from=str(table), mode="local"
        )
        assert is_recorded_input(table)
    assert wl.priority.tolist() == [0, 0, 5, 0, 0]


# -- item 2: no impossible numbers, strict JSON ----------------------------------------------


@pytest.mark.parametrize("value", ["1e308", "inf", "-1"])
def test_checkpoint_overhead_is_bounded(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, out, err = cli(capsys, "tdcs", "run", "--hours", "1", "--checkpoint-overhead", value)
    assert code == 2 and not out
    assert "--checkpoint-overhead" in one_error_line(err)


def test_checkpoint_overhead_bound_in_the_library() -> None:
    with pytest.raises(ConfigError, match="checkpoint-overhead"):
        local_manager("checkpoint", 1e308)
    assert local_manager("checkpoint", MAX_CHECKPOINT_OVERHEAD)[1]["checkpoint_overhead"] == 1e9
    with pytest.raises(ConfigError, match="pps checkpoint_overhead"):
        PpsParams(preemption="checkpoint", checkpoint_overhead=1e308)


def test_the_largest_overhead_gives_finite_metrics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """At the bound, restarts cost 1e9 s: the clock stays far below 1e15 s, every metric
    is finite or null with a reason, and the checker is clean."""
    swf = trace(tmp_path, queues=[0, 0, 0, 0, 2])
    code, out, err = cli(
        capsys, "tdcs", "run", "--workload", str(swf), "--checkpoint-overhead", "1e9",
        "--check", "--json",
    )  # fmt: skip
    assert code == 0, err
    doc = strict_json(out)
    assert doc["jobs"] == 5 and doc["makespan"] < 1e15


def test_tdcs_json_is_strict_with_undefined_metrics(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A trace of one priority level: the low and background wait times apply to no job,
    printed as null with a reason under "undefined", never as NaN."""
    swf = trace(tmp_path, queues=[0, 0, 0, 0, 0])
    code, out, err = cli(capsys, "tdcs", "run", "--workload", str(swf), "--json")
    assert code == 0, err
    doc = strict_json(out)
    assert doc["low_priority_mean_wait_time"] is None
    assert "no job" in doc["undefined"]["low_priority_mean_wait_time"]
    assert doc["dispatcher"] == "tdcs" and doc["jobs"] == 5


def test_tdcs_json_of_the_generator_is_strict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "tdcs", "run", "--hours", "0.5", "--json")
    assert code == 0, err
    doc = strict_json(out)
    assert doc["jobs"] > 0
    assert all(v is None or not isinstance(v, float) or math.isfinite(v) for v in doc.values())


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("mmc:servers=2,load=1e-300,jobs=50", "mmc load"),
        ("mmc:servers=2,load=0.005,jobs=50", "mmc load"),
        ("mmc:servers=2,load=11,jobs=50", "mmc load"),
        ("mmc:servers=2,load=0.5,jobs=50,service=1e-300", "mmc service"),
        ("mmc:servers=1,load=0.01,jobs=10000000,service=1e9", "mmc jobs"),
    ],
)
def test_mmc_specs_outside_the_meaningful_range_are_refused(
    capsys: pytest.CaptureFixture[str], spec: str, key: str
) -> None:
    """load in [0.01, 10], service in [1e-6, 1e9] s, arrivals spanning at most 1e14 s;
    refused when the spec is read, before anything is drawn, and at the CLI in one line."""
    with pytest.raises(ConfigError) as info:
        parse_model_spec(spec)
    assert info.value.option == key
    code, out, err = cli(capsys, "run", spec, "--json")
    assert code == 2 and not out
    assert key in one_error_line(err)


def test_mmc_at_the_low_load_bound_has_finite_meaningful_metrics() -> None:
    """The issue's load=1e-300 gave a mean slowdown of 0.0; at the bound the slowdown is
    1 (no job waits, none is lost in the clock's rounding)."""
    result = schedlab.simulate("mmc:servers=2,load=0.01,jobs=50,seed=3", "fcfs", check=True)
    summary = result.summary()
    assert summary["mean_slowdown"] == pytest.approx(1.0)
    assert summary["makespan"] < 1e15


# -- item 3: ceilings on what generators build and moldable policies do ----------------------


def test_tdcs_hours_beyond_the_job_ceiling_are_refused_before_drawing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's --hours 1e7 (about 2.4e8 jobs): refused at once, naming --hours and how
    to raise the ceiling."""
    code, out, err = cli(capsys, "tdcs", "run", "--hours", "1e7")
    assert code == 2 and not out
    line = one_error_line(err)
    assert "--hours" in line and "--max-jobs" in line and f"{MAX_JOBS:,}" in line


def test_tdcs_job_ceiling_can_be_raised_or_lowered_deliberately(plat: Any) -> None:
    with pytest.raises(ConfigError, match="max_jobs"):
        generate_tdcs(plat, hours=10, max_jobs=20)
    assert len(generate_tdcs(plat, hours=10, max_jobs=10_000)) > 20
    with pytest.raises(ConfigError, match="tdcs generator load"):
        generate_tdcs(plat, hours=1, load=math.inf)
    with pytest.raises(ConfigError, match="max_jobs"):
        generate_tdcs(plat, hours=1, load=1e300)


def test_tdcs_max_jobs_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "tdcs", "run", "--hours", "10", "--max-jobs", "20")
    assert code == 2 and "--hours" in one_error_line(err)
    code, _, err = cli(capsys, "tdcs", "run", "--hours", "1", "--max-jobs", "0")
    assert code == 2 and "--max-jobs" in one_error_line(err)


def test_hlw_task_ceiling_is_named_and_can_be_raised() -> None:
    with pytest.raises(ConfigError, match="max_tasks=N") as info:
        generate_hlw(n=MAX_TASKS, nodes=4)
    assert info.value.option == "hlw n"
    with pytest.raises(ConfigError, match="max_tasks"):
        generate_hlw(n=3, nodes=4, max_tasks=100)  # 2 x 3 x 60 = 360 tasks at most
    wl = generate_hlw(n=3, nodes=4, opt_max=10, max_tasks=60)
    assert len(wl) <= 60 and wl.source.endswith(",max_tasks=60")
    again = load_workload(wl.source)
    assert again.fields.tobytes() == wl.fields.tobytes()


def test_hlw_work_that_would_pass_the_clock_bound_is_refused() -> None:
    """Every task may be at most 1e15 s, but a chain of them could then end past 1e15 s:
    n x opt_max x (w1 + w2) is bounded instead."""
    with pytest.raises(ConfigError) as info:
        parse_model_spec("hlw:n=1,nodes=4,w1=1e15")
    assert info.value.option == "hlw w1"
    with pytest.raises(ConfigError) as info:
        generate_hlw(n=10, nodes=4, w2=1e13)
    assert info.value.option == "hlw w2"
    assert len(generate_hlw(n=1, nodes=4, opt_max=1, w1=1e14, w2=1e14)) >= 1


def test_hlw_tasks_too_short_for_the_clock_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found by the option fuzz: w1 = 1e14 beside w2 = 15 put 15 s tasks on a clock near
    1e14 s, where float64 steps by 1/64 s, and --check failed (work not conserved). The
    instance's work may be at most 1e9 times its shortest task: refused, naming w2."""
    spec = "hlw:n=2,nodes=4,opt_max=3,w1=1e14"
    code, out, err = cli(capsys, "run", spec, "--policy", "fs0.5", "--check", "--json")
    assert code == 2 and not out
    assert "hlw w2" in one_error_line(err)
    code, out, err = cli(
        capsys, "run", "hlw:n=2,nodes=4,opt_max=3,w1=1e5", "--policy", "fs0.5", "--check",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    assert strict_json(out)["jobs"] >= 2
    assert len(generate_hlw(n=2, nodes=4, opt_max=3, w1=1e14, p=0)) >= 2  # no tau2 task


def test_mmc_job_ceiling_is_named_and_can_be_raised() -> None:
    with pytest.raises(ConfigError, match="max_jobs=N"):
        generate_mmc(servers=2, load=0.5, jobs=20, max_jobs=10)
    wl = generate_mmc(servers=2, load=0.5, jobs=20, max_jobs=20)
    assert len(wl) == 20 and wl.source.endswith(",max_jobs=20")


def test_cpa_on_a_huge_machine_fails_in_bounded_work(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's hlw:n=2,nodes=2147483647 --policy cpa ran for minutes: the allocation
    is now bounded by max_iterations (1,000,000 by default, a few seconds); the error names
    the parameter and how to raise it."""
    spec = "hlw:n=2,nodes=2147483647"
    with pytest.raises(ConfigError) as info:
        schedlab.simulate(spec, "cpa", max_iterations=1000)
    assert info.value.option == "cpa max_iterations"
    assert "--param max_iterations=N" in str(info.value)
    code, out, err = cli(capsys, "run", spec, "--policy", "cpa", "--param", "max_iterations=500")
    assert code == 2 and not out
    assert "max_iterations" in one_error_line(err)


def test_cpa_list_schedule_on_a_huge_machine_needs_no_per_processor_memory() -> None:
    """A rigid-only instance on 2^31 - 1 processors: no allocation iteration, and the
    non-insertion list schedule keeps runs of free times, not one entry per processor."""
    from schedlab.engine.durations import RIGID

    inst = CpaInstance(
        work=[5.0, 3.0, 2.0],
        models=[RIGID] * 3,
        size=[2**30, 2**30 - 1, 2**31 - 1],
        parent=[-1, -1, -1],
        think=[0.0] * 3,
        release_at=[0.0] * 3,
    )
    plan = plan_cpa(inst, 2**31 - 1, insertion=False, max_iterations=10)
    assert plan.start_at.tolist() == [0.0, 0.0, 5.0]
    assert plan.makespan == 7.0


def _naive_list_schedule(
    inst: CpaInstance, procs: list[int], total: int
) -> tuple[list[float], list[float]]:
    """The non-insertion list schedule with one free time per processor (the former code)."""
    from bisect import bisect_right

    from schedlab.schedulers.moldable.cpa import bottom_levels

    bl = bottom_levels(inst, procs)
    order = sorted(range(len(inst)), key=lambda j: (-bl[j], inst.depth[j], j))
    start = [0.0] * len(inst)
    end = [0.0] * len(inst)
    origin = min(inst.release_at[r] for r in inst.roots)
    free_at = [origin] * total
    for j in order:
        p = inst.parent[j]
        ready = inst.release_at[j] if p < 0 else end[p] + inst.think[j]
        q = procs[j]
        s = max(free_at[q - 1], ready)
        e = s + inst.time(j, q)
        del free_at[:q]
        k = bisect_right(free_at, e)
        free_at[k:k] = [e] * q
        start[j], end[j] = s, e
    return start, end


@settings(max_examples=60, derandomize=True, database=None, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda total: st.tuples(
            st.just(total),
            st.lists(
                st.tuples(st.integers(1, total), st.integers(1, 20), st.integers(-1, 10)),
                min_size=1,
                max_size=12,
            ),
        )
    )
)
def test_runs_of_free_times_schedule_as_one_entry_per_processor(case: Any) -> None:
    """The run-length list schedule gives exactly the former per-processor one."""
    from schedlab.engine.durations import RIGID

    total, tasks = case
    n = len(tasks)
    parent = [p if 0 <= p < j else -1 for j, (_, _, p) in enumerate(tasks)]
    inst = CpaInstance(
        work=[float(w) for _, w, _ in tasks],
        models=[RIGID] * n,
        size=[q for q, _, _ in tasks],
        parent=parent,
        think=[0.0] * n,
        release_at=[0.0] * n,
    )
    procs = [q for q, _, _ in tasks]
    start, end, _ = list_schedule(inst, procs, total, insertion=False)
    assert (start, end) == _naive_list_schedule(inst, procs, total)


def test_refn_on_a_huge_machine_makes_slots_only_when_used(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's hlw:n=2,nodes=2147483647 --policy refn raised MemoryError (a list of
    2^31 slots): now two chains use two slots, the run is checked and finite."""
    code, out, err = cli(
        capsys, "run", "hlw:n=2,nodes=2147483647", "--policy", "refn", "--check", "--json"
    )
    assert code == 0, err
    doc = strict_json(out)
    assert doc["jobs"] > 0 and doc["procs"] == 2**31 - 1


def test_refn_slots_are_taken_lowest_first() -> None:
    """Four chains on two nodes under RefN: chains take slots 0 and 1, the next ones the
    slot that frees first; every task of a chain runs on its chain's slot."""
    result = schedlab.simulate("hlw:n=4,nodes=2,seed=5,opt_max=3", "refn", check=True)
    jobs = result.jobs
    assert set(jobs["slot"].tolist()) == {0, 1}
    assert (jobs.groupby("user")["slot"].nunique() == 1).all()  # user = chain
    first = jobs[jobs["started_at"] == 0].sort_values("job_id")
    assert first["slot"].tolist() == [0, 1]


# -- item 6: refused up front, with the command's own words -----------------------------------


@pytest.mark.parametrize("name", ["push", "pilot_filling", "direct", "nosuch"])
def test_tdcs_run_takes_only_tdcs_dispatchers(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, out, err = cli(capsys, "tdcs", "run", "--hours", "1", "--dispatcher", name)
    assert code == 2 and not out
    line = one_error_line(err)
    assert "--dispatcher" in line
    assert "tdcs, tdcs_no_preemption, round_robin, least_loaded, random" in line


def test_run_tdcs_refuses_other_meta_schedulers_and_empty_workloads(plat: Any) -> None:
    wl = generate_tdcs(plat, hours=0.5, seed=2)
    with pytest.raises(ConfigError, match="tdcs dispatcher"):
        run_tdcs(plat, wl, "push")
    empty = generate_tdcs(plat, hours=1e-9)
    assert len(empty) == 0
    with pytest.raises(ConfigError, match="at least one job"):
        run_tdcs(plat, empty, "tdcs")
    assert set(CONFIGURATIONS) == {
        "tdcs", "tdcs_no_preemption", "round_robin", "least_loaded", "random",
        # the ablations of issue 25 (docs/reproductions.md, "Post-hoc analyses")
        "least_loaded_speed", "tdcs_no_candidate_rule", "tdcs_speed_blind",
        "tdcs_step6_literal",
    }  # fmt: skip


def test_a_span_that_draws_no_job_is_refused_naming_hours(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's --hours 1e-9 exited 0 with "jobs": 0 and null metrics."""
    code, out, err = cli(capsys, "tdcs", "run", "--hours", "1e-9", "--json")
    assert code == 2 and not out
    assert "--hours" in one_error_line(err)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--preemption", "pause"], "--preemption"),
        (["--hours", "nan"], "--hours"),
        (["--hours", "-1"], "--hours"),
        (["--load", "0"], "--load"),
        (["--priority-from", "prio.csv"], "--priority-from"),  # a table without a trace
        (["--dispatcher", "round_robin", "--horizon", "2"], "--horizon"),  # tdcs only
        (["--dispatcher", "random", "--candidate-rule", "queue"], "--candidate-rule"),
    ],
)
def test_bad_tdcs_options_are_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], option: str
) -> None:
    code, out, err = cli(capsys, "tdcs", "run", *args)
    assert code == 2 and not out
    assert option in one_error_line(err)


# -- item 7: wrong input is not silently accepted -------------------------------------------


@pytest.mark.parametrize(
    ("rows", "line", "field"),
    [
        ("job_id,priority\n1,2\n3,1\n1,0\n", 4, "job_id"),  # job 1 twice
        ("job_id,priority\n1,100000000000000000000000\n", 2, "priority"),  # beyond int64
        ("job_id,priority\n1,1e23\n", 2, "priority"),
        ("job_id,priority\n1,2\nx,1\n", 3, "job_id"),
        ("job_id,priority\n\n2,9007199254740993\n", 3, "priority"),  # past 2**53
        ("job_id,priority\n1,\u0663\n", 2, "priority"),  # non-ASCII digit
        ("job_id,priority\n1_0,1\n", 2, "job_id"),  # int() would read 10
    ],
)
def test_bad_priority_rows_name_file_line_and_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rows: str, line: int, field: str
) -> None:
    swf = trace(tmp_path)
    table = tmp_path / "prio.csv"
    table.write_text(rows, encoding="utf-8")
    code, out, err = cli(
        capsys, "tdcs", "run", "--workload", str(swf), "--priority-from", str(table)
    )
    assert code == 2 and not out
    text = one_error_line(err)
    assert f"prio.csv:{line}:" in text and f"field {field}" in text


def test_priority_rows_of_unknown_jobs_are_counted_and_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Rows naming jobs the trace does not hold (a table of the whole log, a trace cut
    short) are reported in one note with their count and the first one, like skipped SWF
    jobs; the run goes on with the rows that match."""
    swf = trace(tmp_path)
    table = tmp_path / "prio.csv"
    table.write_text("job_id,priority\n1,2\n77,1\n88,1\n")
    code, out, err = cli(
        capsys, "tdcs", "run", "--workload", str(swf), "--priority-from", str(table), "--json"
    )
    assert code == 0, err
    assert "2 row(s) name jobs the workload does not hold (first: job 77 at line 3)" in err
    assert strict_json(out)["jobs"] == 5


def test_a_huge_priority_cell_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A cell over the csv module's field limit (131,072 characters) and one of 5,000
    digits: each one line with the file and line, quoting at most 200 characters."""
    swf = trace(tmp_path)
    table = tmp_path / "prio.csv"
    for cell in ('"' + "9" * 200_000 + '"', "9" * 5000):
        table.write_text(f"job_id,priority\n1,{cell}\n")
        code, _, err = cli(
            capsys, "tdcs", "run", "--workload", str(swf), "--priority-from", str(table)
        )
        assert code == 2
        text = one_error_line(err)
        assert "prio.csv:2" in text and len(text) < 600


def test_priority_table_that_is_a_directory_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    swf = trace(tmp_path)
    code, _, err = cli(
        capsys, "tdcs", "run", "--workload", str(swf), "--priority-from", str(tmp_path)
    )
    assert code == 2 and "directory" in one_error_line(err)


def test_moldable_keys_given_twice_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "run", "mmc:servers=2,load=0.5,jobs=20", "--moldable", "pi=0.5,pi=0.9"
    )
    assert code == 2 and not out
    line = one_error_line(err)
    assert "--moldable" in line and "pi is given twice" in line


def _preempting_trace() -> Workload:
    """Job 0 (2 of 4 processors, 100 s) runs from 0; job 1 (4 processors) waits; job 2
    (2 processors, 100 s) starts at 2 beside job 0. At 100 job 0 ends and job 1, earlier
    so of higher priority, preempts job 2 (98 s done)."""
    return Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 2.0]),
        run_time=np.array([100.0, 10.0, 100.0]),
        procs=np.array([2, 4, 2]),
        max_procs=4,
    )


def test_pps_checkpoint_keeps_the_work_of_jobs_without_the_attribute() -> None:
    """No `checkpointable` attribute: every job is checkpointable (the parameter's
    promise; an SWF trace or a model cannot mark jobs, so before, every victim lost its
    work). The victim keeps its 98 s, pays the 5 s overhead at its restart at 110 and ends
    at 117; under requeue it starts over and ends at 210, its 98 s lost. A job whose
    attribute is 0 is still requeued (test_pps_absolute.py)."""
    w = _preempting_trace()
    ckpt = schedlab.simulate(
        w, "pps", preemption="checkpoint", checkpoint_overhead=5.0, check=True
    ).jobs
    requeue = schedlab.simulate(w, "pps", preemption="requeue", check=True).jobs
    assert ckpt["finished_at"].tolist() == [100, 110, 117]
    assert ckpt["wasted_time"].tolist() == [0, 0, 0]
    assert requeue["finished_at"].tolist() == [100, 110, 210]
    assert requeue["wasted_time"].tolist() == [0, 0, 98]


def test_pps_checkpoint_help_says_which_jobs_are_checkpointable() -> None:
    doc = PpsParams.__doc__ or ""
    assert "checkpointable unless" in " ".join(doc.split())


def test_hlw_in_the_workload_usage() -> None:
    """The ceilings' keys are keys of their specs (parse_model_spec accepts them)."""
    assert parse_model_spec("hlw:n=2,nodes=4,max_tasks=1000")[1]["max_tasks"] == 1000
    assert parse_model_spec("mmc:servers=2,load=0.5,jobs=5,max_jobs=5")[1]["max_jobs"] == 5
    with pytest.raises(ConfigError):
        parse_model_spec("mmc:servers=2,load=0.5,jobs=5,max_jobs=0")
