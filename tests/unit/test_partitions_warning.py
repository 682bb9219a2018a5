"""Traces of several partitions are not silently simulated as one machine (issue 13, part 5;
workload.partitions, workload.info, load_workload)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedlab.notes import set_quiet
from schedlab.workload import load
from schedlab.workload.info import describe
from schedlab.workload.job import N_FIELDS, F, Workload
from schedlab.workload.load import load_workload
from schedlab.workload.partitions import partition_rows, several_partitions_note
from workloads import trace_path

SACCT = Path(__file__).resolve().parents[1] / "data" / "logs" / "sacct.txt"


def two_partitions() -> Workload:
    """Partition 1: (submit 0, run 10, 2 procs) and (submit 5, run 10, 3 procs), both
    starting at once: peak 5 on [5, 10), work 50. Partition 2: (submit 10, run 20, 4
    procs): peak 4, work 80. Submit span 10 s."""
    fields = np.full((3, N_FIELDS), -1.0)
    fields[:, F["job_id"]] = [1, 2, 3]
    fields[:, F["submit_time"]] = [0, 5, 10]
    fields[:, F["wait_time"]] = [0, 0, 0]
    fields[:, F["run_time"]] = [10, 10, 20]
    fields[:, F["allocated_procs"]] = [2, 3, 4]
    fields[:, F["partition_id"]] = [1, 1, 2]
    return Workload.from_fields(fields, max_procs=8, header=["Partition: 2 big one"])


@pytest.fixture(autouse=True)
def fresh_notes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no trace told about and notes on."""
    monkeypatch.setattr(load, "_TOLD_PARTITIONS", set())
    set_quiet(False)


def test_partition_rows_by_hand() -> None:
    rows = partition_rows(two_partitions())
    assert [(r.partition, r.name, r.jobs, r.peak_procs) for r in rows] == [
        (1, "", 2, 5),
        (2, "big one", 1, 4),
    ]
    assert rows[0].work_share == pytest.approx(50 / 130)
    assert rows[0].offered_load == pytest.approx(50 / (5 * 10))
    assert rows[1].offered_load == pytest.approx(80 / (4 * 10))


def test_info_warns_of_offered_loads_above_one() -> None:
    """The whole trace offers 130 / (8 x 10) = 1.625 > 1; partition 2 offers 2.0 on its
    peak of 4; partition 1 exactly 1.0 (not above)."""
    info = describe(two_partitions())
    assert len(info["partitions"]) == 2
    warnings = info["warnings"]
    assert len(warnings) == 2
    assert "offered load 1.62 > 1" in warnings[0] and "8 processors" in warnings[0]
    assert warnings[1].startswith("partition 2 (big one): offered load 2 > 1")


def test_one_partition_says_nothing() -> None:
    wl = two_partitions()
    one = wl.with_fields(np.where(np.arange(N_FIELDS) == F["partition_id"], 1.0, wl.fields))
    assert several_partitions_note(one, "x.swf", is_swf=True) is None
    warnings = describe(one)["warnings"]  # the machine's load only, no partition table
    assert len(warnings) == 1 and warnings[0].startswith("offered load 1.62 > 1")


def test_note_names_the_partitions_and_the_grid_command() -> None:
    text = several_partitions_note(two_partitions(), "t.swf", is_swf=True)
    assert text is not None
    assert "2 partitions (1: 2 jobs, 2 big one: 1 job)" in text
    assert "one machine of 8 processors" in text
    assert "schedlab grid run --workload t.swf --mode local" in text
    log = several_partitions_note(two_partitions(), "slurm:t.txt", is_swf=False)
    assert log is not None and "schedlab workload convert slurm:t.txt OUT.swf" in log


def test_load_workload_tells_once_and_quiet_silences(capsys: pytest.CaptureFixture[str]) -> None:
    load_workload(str(SACCT))
    err = capsys.readouterr().err
    assert err.count("2 partitions (1 cpu: 9 jobs, 2 gpu: 2 jobs)") == 1
    assert "one machine of 44 processors" in err
    load_workload(str(SACCT))
    assert "partitions" not in capsys.readouterr().err  # once per trace and process
    load.__dict__["_TOLD_PARTITIONS"].clear()
    set_quiet(True)
    try:
        load_workload(str(SACCT))
    finally:
        set_quiet(False)
    assert capsys.readouterr().err == ""
    load_workload(str(SACCT), note_partitions=False)
    assert "partitions" not in capsys.readouterr().err


def test_lcg_grid_log_is_warned_about(capsys: pytest.CaptureFixture[str]) -> None:
    """LCG-2005: 170 partitions (grid sites), the largest named in the note."""
    path = str(trace_path("LCG-2005-1.swf.gz"))
    load_workload(path)
    err = capsys.readouterr().err
    assert "170 partitions (" in err and "and 165 more" in err
    assert f"schedlab grid run --workload {path} --mode local" in err


def test_metacentrum_offered_load_above_one_is_warned_about() -> None:
    """METACENTRUM-2009-2 has no header: the machine is its widest job (60 processors),
    far too small for 14 clusters' work."""
    info = describe(
        load_workload(str(trace_path("METACENTRUM-2009-2.swf.gz")), note_partitions=False)
    )
    assert info["procs"] == 60
    assert len(info["partitions"]) == 14
    assert any(w.startswith("offered load 4.99 > 1") for w in info["warnings"])


def test_a_tiny_log_is_too_short_to_judge() -> None:
    """Three jobs within 10 s offer 1.62 on 8 processors: a number, not a finding (issue 23)."""
    warning = describe(two_partitions())["warnings"][0]
    assert "3 jobs submitted within 10 s make too short a log to judge a load" in warning
    assert "grow without bound" not in warning


def test_a_long_log_keeps_the_overload_warning() -> None:
    info = describe(
        load_workload(str(trace_path("METACENTRUM-2009-2.swf.gz")), note_partitions=False)
    )
    assert "waits grow without bound" in info["warnings"][0]
    assert "too short" not in info["warnings"][0]


def test_one_job_is_one_job_not_one_jobs() -> None:
    wl = two_partitions()  # partition 2 holds a single job
    text = several_partitions_note(wl, "t.swf", is_swf=True)
    assert text is not None and "2 big one: 1 job" in text and "1 jobs" not in text
    assert "3 jobs submitted" in describe(wl)["warnings"][0]
