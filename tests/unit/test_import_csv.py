"""CSV job logs with named columns (importers.csvlog, docs/importers.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.importers import parse_source, read_trace, sniff_format
from schedlab.workload.importers.csvlog import parse_columns, read_csv_log

JOBS = Path(__file__).resolve().parents[1] / "data" / "logs" / "jobs.csv"
COLUMNS = (
    "job_id=JobNumber,submit=Submitted,start=Started,end=Finished,procs=CPUs,"
    "requested_time=Limit,user=Owner,status=Outcome,partition=Site"
)


def test_named_columns_dates_epochs_and_zones() -> None:
    """Row 1: 00:00Z, started 00:01Z, ended 01:01Z; row 2: submitted 01:10+01:00 (= 00:10Z),
    started at epoch 1709252000 (00:13:20Z), ended '2024-03-01 00:23:20' (UTC); row 3
    never ran; row 4 in epochs; row 5 RUNNING (skipped); row 6 has no id."""
    wl, notes = read_csv_log(JOBS, columns=parse_columns(COLUMNS))
    assert sniff_format(str(JOBS)) == "csv"
    assert wl.job_id.tolist() == [1, 2, 4, 6]
    assert wl.submit_time.tolist() == [0, 600, 1800, 2400]
    assert wl.column("wait_time").tolist() == [60, 200, 0, 0]
    assert wl.run_time.tolist() == [3600, 600, 30, 50]
    assert wl.column("requested_time").tolist() == [7200, 900, 3600, -1]
    assert wl.status.tolist() == [1, 0, 1, 5]
    assert wl.user_id.tolist() == [1, 2, 1, 4]  # alice, bob, (carol), dave
    assert wl.column("partition_id").tolist() == [1, 2, 1, 2]
    assert {k: v for k, v in wl.skipped.items() if v} == {
        "not_finished": 1,
        "nonpositive_run_time": 1,
    }
    assert wl.max_procs == 6  # 4 + 2 CPUs at t = 200
    assert "Note: dates without a zone were read as UTC" in wl.header
    assert "machine size 6" in notes[0]


def test_columns_in_the_workload_string_are_the_same_as_the_option() -> None:
    by_option = read_trace(str(JOBS), columns=parse_columns(COLUMNS))
    by_string = read_trace(f"csv:{JOBS}?{COLUMNS}")
    assert np.array_equal(by_option.fields, by_string.fields)
    with pytest.raises(ConfigError, match="not with columns in the workload too"):
        read_trace(f"csv:{JOBS}?{COLUMNS}", columns={"submit": "Submitted"})
    with pytest.raises(ConfigError, match="only for a CSV log"):
        read_trace(
            str(Path(__file__).parents[1] / "data" / "logs" / "sacct.txt"), columns={"a": "b"}
        )


def test_columns_named_like_the_keys_need_no_mapping(tmp_path: Path) -> None:
    """Whole-number user ids are kept; without start times the machine is the widest job."""
    path = tmp_path / "jobs.csv"
    path.write_text(
        "submit,run,procs,requested_time,user\n0,100,2,200,7\n10,50,1,,7\n30,20,4,60,9\n"
    )
    wl, notes = read_csv_log(path)
    assert wl.submit_time.tolist() == [0, 10, 30]
    assert wl.user_id.tolist() == [7, 7, 9]
    assert wl.column("requested_time").tolist() == [200, -1, 60]
    assert wl.job_id.tolist() == [1, 2, 3]
    assert wl.max_procs == 4 and "widest job" in notes[0]


def test_semicolons_durations_and_status_words(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text(
        "Submit;Runtime;Cores;State\n"
        "2024-01-01T00:00:00Z;01:00:00;2;done\n"
        "2024-01-01T00:00:30Z;1-00:00:00;1;CANCELLED by 5\n"
        "2024-01-01T00:01:00Z;90;1;PENDING\n"
    )
    wl = read_trace(f"csv:{path}?submit=Submit,run=Runtime,procs=Cores,status=State")
    assert wl.run_time.tolist() == [3600, 86400]
    assert wl.status.tolist() == [1, 5]
    assert wl.skipped["not_finished"] == 1


def test_parse_columns_mistakes() -> None:
    assert parse_columns(" submit = A B ,run=C") == {"submit": "A B", "run": "C"}
    for bad, match in (("submitted=A", "--columns key"), ("submit", "KEY=COLUMN"),
                       ("run=a,run=b", "each key once"), ("", "KEY=COLUMN")):  # fmt: skip
        with pytest.raises(ConfigError, match=match):
            parse_columns(bad)


def test_prefix_parsing() -> None:
    src = parse_source("csv:a/b.csv?submit=S,run=R")
    assert (src.format, src.path, src.columns) == ("csv", "a/b.csv", {"submit": "S", "run": "R"})
    assert src.prefix + src.path + src.suffix == "csv:a/b.csv?submit=S,run=R"
    assert parse_source("slurm:x.txt").format == "slurm"
    assert parse_source("x.txt") == parse_source("x.txt")
    assert parse_source("lublin:jobs=5").format is None  # not a log prefix


def test_errors_name_the_line_and_the_column(tmp_path: Path) -> None:
    path = tmp_path / "jobs.csv"
    path.write_text("Submitted,Elapsed,CPUs\n0,10,1\n5,ten,1\n")
    with pytest.raises(WorkloadError) as err:
        read_trace(f"csv:{path}?submit=Submitted,run=Elapsed,procs=CPUs")
    assert err.value.line == 3 and err.value.field == "run (column Elapsed)"
    with pytest.raises(WorkloadError, match="no column 'Cores'") as err:
        read_csv_log(path, columns={"submit": "Submitted", "run": "Elapsed", "procs": "Cores"})
    assert err.value.line == 1 and err.value.field == "header"
    with pytest.raises(WorkloadError, match="no column for procs") as err:
        read_csv_log(path, columns={"submit": "Submitted", "run": "Elapsed"})
    path.write_text("submit,run,procs\n0,10,1\n5,10\n")
    with pytest.raises(WorkloadError, match="expected 3 values") as err:
        read_csv_log(path)
    assert err.value.line == 3


def test_schedlab_per_job_table_reads_back_without_columns(tmp_path: Path) -> None:
    """`run --jobs-out` names its columns like the keys (submitted_at, started_at,
    finished_at, run_time, procs, user, ...): the jobs read back as they were, submit
    times counted from the first (whole) second; user -1 stays unknown."""
    import schedlab

    original = schedlab.simulate("lublin:jobs=60,procs=16,seed=3", policy="easy")
    path = tmp_path / "jobs.csv"
    original.write_jobs(path)
    back, _ = read_csv_log(path)
    source = original.workload
    origin = np.floor(source.submit_time[0])
    assert np.array_equal(back.job_id, source.job_id)
    assert np.allclose(back.submit_time, source.submit_time - origin)
    assert np.array_equal(back.run_time, source.run_time)
    assert np.array_equal(back.procs, source.procs)
    assert (back.user_id == -1).all() and (source.user_id == -1).all()
