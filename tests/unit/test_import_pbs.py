"""PBS/Torque/OpenPBS accounting records to a Workload (importers.pbs, docs/importers.md).

tests/data/logs/pbs_accounting.txt is written from the Torque and PBS Pro accounting
documentation: 27 records, 10 of them E (end) records, with Torque ``nodes=...:ppn=``
and ``exec_host=n/0+n/1`` forms, PBS Pro ``select=`` and ``exec_host=n/0*8``, a job
deleted while running (D then E), an array job and its subjobs, a job that failed to
start (Exit_status -11, no run time) and a quoted job name. Times are relative to the
first ctime, 1709251200 (job 200).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schedlab.errors import WorkloadError
from schedlab.workload.importers import read_trace, sniff_format
from schedlab.workload.importers.pbs import (
    cpus_of_exec_host,
    cpus_of_nodes,
    cpus_of_select,
    read_pbs,
)
from schedlab.workload.job import F

PBS = Path(__file__).resolve().parents[1] / "data" / "logs" / "pbs_accounting.txt"


def row(workload, job_id: int) -> np.ndarray:
    return workload.fields[list(workload.job_id).index(job_id)]


def test_end_records_become_jobs_and_the_rest_is_counted() -> None:
    """10 E records: 8 jobs, the array parent 204[] skipped, job 205 (run time 0) skipped
    by the SWF rule; the 17 other records are non_end_record."""
    wl, _ = read_pbs(PBS)
    assert sniff_format(str(PBS)) == "pbs"
    assert sorted(wl.job_id.tolist()) == [200, 201, 202, 203, 206, 207, 209, 210]
    assert {k: v for k, v in wl.skipped.items() if v} == {
        "non_end_record": 17,
        "array_parent": 1,
        "nonpositive_run_time": 1,
    }


def test_fields_of_a_torque_job() -> None:
    """200: ctime +0, start +10, used walltime 1 h, exec_host n1/0-3 (4 CPUs), nodes=1:ppn=4,
    walltime 2 h, cput 3 h, mem used 4194304 kb, mem asked 8 gb, Exit_status 0."""
    wl, _ = read_pbs(PBS)
    r = row(wl, 200)
    assert r[F["submit_time"]] == 0 and r[F["wait_time"]] == 10
    assert r[F["run_time"]] == 3600
    assert r[F["allocated_procs"]] == 4 and r[F["requested_procs"]] == 4
    assert r[F["requested_time"]] == 7200
    assert r[F["avg_cpu_time"]] == 3 * 3600 / 4
    assert r[F["used_memory"]] == 4194304 / 4
    assert r[F["requested_memory"]] == 8 * 1024**2 / 4
    assert r[F["status"]] == 1


def test_deleted_job_is_cancelled_and_submitted_at_its_ctime() -> None:
    """201: a D record before its E record -> status 5 (Exit_status 271 alone would say
    failed); submit = ctime (+60), not qtime (+90, after the routing queue)."""
    wl, _ = read_pbs(PBS)
    r = row(wl, 201)
    assert r[F["status"]] == 5
    assert r[F["submit_time"]] == 60 and r[F["wait_time"]] == 60
    assert r[F["allocated_procs"]] == 4 and r[F["run_time"]] == 600


def test_pbs_pro_job_with_select_and_starred_exec_host() -> None:
    wl, _ = read_pbs(PBS)
    r = row(wl, 202)
    assert r[F["allocated_procs"]] == 16 and r[F["requested_procs"]] == 16
    assert r[F["run_time"]] == 1800 and r[F["requested_time"]] == 1800
    assert r[F["status"]] == 0  # Exit_status 1
    assert r[F["queue_id"]] == 2  # workq, after batch


def test_run_time_from_end_minus_start_and_walltime_in_seconds() -> None:
    """203 has no resources_used.walltime: run = end - start = 300; its walltime 3600 is
    plain seconds; 207's used walltime '60' too."""
    wl, _ = read_pbs(PBS)
    assert row(wl, 203)[F["run_time"]] == 300
    assert row(wl, 203)[F["requested_time"]] == 3600
    assert row(wl, 207)[F["run_time"]] == 60


def test_array_subjobs_get_new_ids_in_file_order_above_every_id() -> None:
    """The largest id of any record is 208 (a job only queued): 204[2] (ended first) gets
    209, 204[1] gets 210."""
    wl, _ = read_pbs(PBS)
    assert row(wl, 209)[F["run_time"]] == 50 and row(wl, 209)[F["wait_time"]] == 10
    assert row(wl, 210)[F["run_time"]] == 100


def test_quoted_values_and_names() -> None:
    """jobname="my job" is one value; executables are numbered by first E record."""
    wl, _ = read_pbs(PBS)
    assert row(wl, 207)[F["executable_id"]] == 5  # post, small, arr, bad, my job
    assert "Queue: 1 batch" in wl.header and "Queue: 2 workq" in wl.header
    assert (wl.column("partition_id") == -1).all()


def test_machine_size_is_the_peak_of_processors_in_use() -> None:
    """At t = 600: 200 (4) + 201 (4) + 202 (16) + 203 (1) = 25 CPUs; again at t = 1800."""
    wl, notes = read_pbs(PBS)
    assert wl.max_procs == 25 and "machine size 25" in notes[0]
    assert read_trace(f"pbs:{PBS}", max_procs=40).max_procs == 40


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("n1/0+n1/1", 2), ("n1/0-3,5", 5), ("n1/0*4+n2/0*4", 8), ("n1", 1), ("a/0+b/2-3", 3)],
)
def test_exec_host_cpus(text: str, cpus: int) -> None:
    assert cpus_of_exec_host(text) == cpus


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("2:ppn=8", 16), ("n1:ppn=4+n2:ppn=4", 8), ("3", 3), ("n1", 1), ("1:ppn=2:gpus=1", 2)],
)
def test_nodes_cpus(text: str, cpus: int) -> None:
    assert cpus_of_nodes(text) == cpus


@pytest.mark.parametrize(
    ("text", "cpus"), [("2:ncpus=4+1:ncpus=8", 16), ("ncpus=3", 3), ("2:mem=4gb", 2)]
)
def test_select_cpus(text: str, cpus: int) -> None:
    assert cpus_of_select(text) == cpus


@pytest.mark.parametrize("text", ["n1/x", "n1/3-1", "/0", "n1/0*"])
def test_bad_exec_host(text: str) -> None:
    with pytest.raises(ValueError):
        cpus_of_exec_host(text)


def test_errors_name_file_line_and_key(tmp_path: Path) -> None:
    good = "03/01/2024 00:00:00;Q;1.srv;queue=batch\n"
    path = tmp_path / "acct"
    path.write_text(good + "this is not a record\n")
    with pytest.raises(WorkloadError, match="expected a PBS accounting record") as err:
        read_pbs(path)
    assert err.value.line == 2
    path.write_text(good + "03/01/2024 00:00:00;E;1.srv;ctime=10 start=soon end=20\n")
    with pytest.raises(WorkloadError, match="epoch seconds") as err:
        read_pbs(path)
    assert err.value.line == 2 and err.value.field == "start" and err.value.value == "soon"
    path.write_text(good + "03/01/2024 00:00:00;E;1.srv;ctime=1 Resource_List.walltime=1h\n")
    with pytest.raises(WorkloadError) as err:
        read_pbs(path)
    assert err.value.field == "Resource_List.walltime"
