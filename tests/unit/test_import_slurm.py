"""Slurm ``sacct --parsable2`` output to a Workload (importers.slurm, docs/importers.md).

tests/data/logs/sacct.txt is written from the sacct man page: 22 records (allocations,
steps, array tasks, a pending array range, a heterogeneous job, every final state and
every time-limit form). Expected values below are worked out by hand from its lines;
times are relative to the first submit, 2024-03-01T00:00:00 = 1709251200.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.workload.importers import read_trace, sniff_format
from schedlab.workload.importers.common import parse_duration, parse_instant
from schedlab.workload.importers.slurm import read_sacct
from schedlab.workload.job import F

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SACCT = LOGS / "sacct.txt"
KEPT_IDS = [100, 101, 102, 105, 106, 107, 110, 112, 113, 114, 115]


def row(workload, job_id: int) -> np.ndarray:
    return workload.fields[list(workload.job_id).index(job_id)]


def test_one_job_per_allocation_and_every_other_record_counted_by_reason() -> None:
    """Steps, unstarted array ranges, unfinished and requeued records are skipped with
    their reason; jobs that never ran are SWF's nonpositive_run_time (103, 116)."""
    wl, _ = read_sacct(SACCT)
    assert list(wl.job_id) == KEPT_IDS
    assert {k: v for k, v in wl.skipped.items() if v} == {
        "job_step": 3,
        "unstarted_array_tasks": 1,
        "not_finished": 3,
        "requeued": 1,
        "nonpositive_run_time": 2,
    }
    # 22 records = 11 kept + 10 skipped + 1 heterogeneous component merged into job 110
    assert len(wl) + wl.total_skipped + 1 == 22


def test_fields_of_a_completed_job() -> None:
    """Job 100: Submit 00:00:00, Start 00:00:10, Elapsed 1 h, 4 CPUs, TotalCPU 3 h,
    Timelimit 2 h, ReqMem 4000Mc (4000 MB per CPU)."""
    wl, _ = read_sacct(SACCT)
    r = row(wl, 100)
    assert r[F["submit_time"]] == 0
    assert r[F["wait_time"]] == 10
    assert r[F["run_time"]] == 3600
    assert r[F["allocated_procs"]] == 4 and r[F["requested_procs"]] == 4
    assert r[F["avg_cpu_time"]] == 3 * 3600 / 4
    assert r[F["requested_time"]] == 7200
    assert r[F["requested_memory"]] == 4000 * 1024
    assert r[F["status"]] == 1


@pytest.mark.parametrize(
    ("job_id", "status"),
    [(101, 0), (102, 5), (105, 0), (107, 0), (112, 0), (113, 0), (114, 1), (115, 0)],
)
def test_states_map_to_swf_status(job_id: int, status: int) -> None:
    """FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL -> 0; 'CANCELLED by
    1001' -> 5; COMPLETED -> 1."""
    wl, _ = read_sacct(SACCT)
    assert row(wl, job_id)[F["status"]] == status


@pytest.mark.parametrize(
    ("job_id", "seconds"),
    [(101, 86400), (102, -1), (105, 600), (106, -1), (107, 2 * 86400), (112, 300)],
)
def test_time_limit_forms(job_id: int, seconds: int) -> None:
    """1-00:00:00, UNLIMITED, 10:00 (MM:SS), Partition_Limit, 2-00:00:00, 05:00."""
    wl, _ = read_sacct(SACCT)
    assert row(wl, job_id)[F["requested_time"]] == seconds


def test_requested_memory_per_node_is_shared_by_the_cpus() -> None:
    """101: 16Gn on 2 nodes for 8 CPUs = 4 GB per CPU; 102: 2G (no letter: per node) on
    1 node for 2 CPUs = 1 GB per CPU; 105: no ReqMem -> -1."""
    wl, _ = read_sacct(SACCT)
    assert row(wl, 101)[F["requested_memory"]] == 4 * 1024**2
    assert row(wl, 102)[F["requested_memory"]] == 1024**2
    assert row(wl, 105)[F["requested_memory"]] == -1


def test_array_tasks_are_separate_jobs_with_their_raw_ids() -> None:
    wl, _ = read_sacct(SACCT)
    assert row(wl, 105)[F["wait_time"]] == 0 and row(wl, 105)[F["run_time"]] == 600
    assert row(wl, 106)[F["wait_time"]] == 60 and row(wl, 106)[F["run_time"]] == 300


def test_heterogeneous_components_are_merged() -> None:
    """110+0 (2 CPUs, partition cpu) and 110+1 (6 CPUs, gpu) start together: one job of
    8 CPUs, in the first component's partition."""
    wl, _ = read_sacct(SACCT)
    r = row(wl, 110)
    assert r[F["allocated_procs"]] == 8 and r[F["requested_procs"]] == 8
    assert r[F["run_time"]] == 1200 and r[F["requested_time"]] == 1800
    assert r[F["partition_id"]] == 1


def test_requeued_record_is_skipped_and_the_final_run_kept() -> None:
    wl, _ = read_sacct(SACCT)
    r = row(wl, 114)
    assert r[F["wait_time"]] == 600 and r[F["run_time"]] == 600


def test_names_are_numbered_and_queues_and_partitions_named_in_the_header() -> None:
    """Users by first appearance: alice 1, bob 2, carol 3 (job 103, skipped later), dave 4,
    erin 5, frank 6; QOS -> queue, Partition -> partition."""
    wl, _ = read_sacct(SACCT)
    users = {int(j): int(u) for j, u in zip(wl.job_id, wl.user_id, strict=True)}
    assert users[100] == 1 and users[101] == 2 and users[105] == 4 and users[110] == 6
    assert row(wl, 107)[F["queue_id"]] == 3  # QOS long
    assert row(wl, 112)[F["partition_id"]] == 2  # gpu
    for line in ("Queue: 1 normal", "Queue: 3 long", "Partition: 1 cpu", "Partition: 2 gpu"):
        assert line in wl.header
    assert "UnixStartTime: 1709251200" in wl.header


def test_machine_size_is_the_peak_of_processors_in_use_with_a_note() -> None:
    """Intervals (start, end, CPUs): 100 (10, 3610, 4), 101 (120, 1920, 8), 107 (1230,
    8430, 32), 110 (3000, 4200, 8), ...: 44 at t = 1230 and again at t = 3000."""
    wl, notes = read_sacct(SACCT)
    assert wl.max_procs == 44
    assert "MaxProcs: 44" in wl.header
    assert len(notes) == 1 and "machine size 44" in notes[0] and "peak" in notes[0]
    given, notes = read_sacct(SACCT, max_procs=64)
    assert given.max_procs == 64 and notes == []
    assert np.array_equal(given.fields, wl.fields)


def test_gzip_parsable_and_sniffing_give_the_same_jobs(tmp_path: Path) -> None:
    """A gzipped copy, and --parsable output (every line ends with '|'), read the same;
    the content says it is sacct output, whatever the file is called."""
    wl, _ = read_sacct(SACCT)
    text = SACCT.read_text()
    zipped = tmp_path / "log.gz"
    zipped.write_bytes(gzip.compress(text.encode()))
    trailing = tmp_path / "trailing.txt"
    trailing.write_text("".join(line + "|\n" for line in text.splitlines()))
    for path in (zipped, trailing):
        assert sniff_format(str(path)) == "slurm"
        other = read_trace(str(path))
        assert np.array_equal(other.fields, wl.fields)
        assert other.skipped == wl.skipped
    assert np.array_equal(read_trace(f"slurm:{SACCT}").fields, wl.fields)


def test_array_tasks_without_raw_ids_get_new_ids_above_every_id(tmp_path: Path) -> None:
    path = tmp_path / "sacct.txt"
    path.write_text(
        "JobID|Submit|Start|Elapsed|AllocCPUS|State\n"
        "7_1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|1|COMPLETED\n"
        "9|2024-01-01T00:00:10|Unknown|00:00:00|0|PENDING\n"
        "7_2|2024-01-01T00:00:00|2024-01-01T00:00:05|00:02:00|1|COMPLETED\n"
        "8|2024-01-01T00:00:20|2024-01-01T00:00:20|00:00:30|2|COMPLETED\n"
    )
    wl, _ = read_sacct(path)
    assert sorted(zip(wl.job_id.tolist(), wl.run_time.tolist())) == [
        (8, 30.0),
        (10, 60.0),
        (11, 120.0),
    ]


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("1|2024-01-01T00:00:00|2024-01-01T00:00:00|2 hours|1|COMPLETED", "Elapsed", "2 hours"),
        ("1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|1|DONE", "State", "DONE"),
        ("1|2024-02-30T00:00:00|2024-01-01T00:00:00|00:01:00|1|COMPLETED", "Submit", "2024-02-30"),
        ("1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|four|COMPLETED", "AllocCPUS", "four"),
        ("x1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|1|COMPLETED", "JobID", "x1"),
    ],
)
def test_a_bad_value_names_file_line_and_column(
    tmp_path: Path, line: str, field: str, value: str
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(
        "JobID|Submit|Start|Elapsed|AllocCPUS|State\n"
        "1|2024-01-01T00:00:00|2024-01-01T00:00:00|00:01:00|1|COMPLETED\n" + line + "\n"
    )
    with pytest.raises(WorkloadError) as err:
        read_sacct(path)
    assert err.value.line == 3 and err.value.field == field
    assert value in str(err.value) and str(path) in str(err.value)


def test_a_line_with_a_value_too_many_or_no_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("JobID|Submit|Elapsed|AllocCPUS\n1|2024-01-01T00:00:00|00:01:00|1|extra\n")
    with pytest.raises(WorkloadError, match="expected 4 '\\|'-separated values") as err:
        read_sacct(path)
    assert err.value.line == 2
    path.write_text("1|2024-01-01T00:00:00|00:01:00|1\n")  # sacct --noheader
    with pytest.raises(WorkloadError, match="missing: JobID, Submit") as err:
        read_sacct(path)
    assert err.value.line == 1 and err.value.field == "header"


@pytest.mark.parametrize(
    ("text", "bare", "seconds"),
    [
        ("01:02:03", 1.0, 3723.0),
        ("10:00", 1.0, 600.0),
        ("1-00:00:00", 1.0, 86400.0),
        ("2-03", 1.0, 2 * 86400 + 3 * 3600),
        ("2-03:04", 1.0, 2 * 86400 + 3 * 3600 + 4 * 60),
        ("00:01.500", 1.0, 1.5),
        ("90", 60.0, 5400.0),
        ("90", 1.0, 90.0),
    ],
)
def test_durations(text: str, bare: float, seconds: float) -> None:
    assert parse_duration(text, bare=bare) == seconds


@pytest.mark.parametrize("text", ["1:2:3:4", "abc", "1.5:00", "-5", "1-"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_instants() -> None:
    base = 1709251200  # 2024-03-01T00:00:00Z
    assert parse_instant("2024-03-01T12:00:00") == base + 43200
    assert parse_instant("2024-03-01 12:00") == base + 43200
    assert parse_instant("2024-03-01T12:00:00Z") == base + 43200
    assert parse_instant("2024-03-01T12:00:00+01:00") == base + 39600
    assert parse_instant("2024-03-01T00:00:00.250") == base + 0.25
    assert parse_instant(str(base)) == base
    assert parse_instant("Unknown") is None and parse_instant("None") is None
    for bad in ("2024-02-30T00:00:00", "2024-13-01", "yesterday", "inf"):
        with pytest.raises(ValueError):
            parse_instant(bad)
