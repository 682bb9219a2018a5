"""Slurm, PBS and CSV logs from a hostile world (issue 22, items 2, 5, 7 and 8).

Every minimal case here is one the issue found: huge numbers and ids, a CSV cell beyond the
csv module's field limit, Unicode line separators inside a value, far-future times, a
duplicated column, fractional or non-ASCII counts, impossible zones and dates. Each gives
one `WorkloadError` naming the file, line and field (never a traceback, never a silently
wrong job), or, for the separators, reads exactly as if the value held a plain letter.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from schedlab.errors import WorkloadError
from schedlab.workload.importers import read_trace
from schedlab.workload.importers.common import (
    MAX_INSTANT,
    OutOfRange,
    parse_duration,
    parse_instant,
    split_lines,
)
from schedlab.workload.importers.csvlog import MAX_CELL
from schedlab.workload.job import MAX_TIME, F

# Unicode line breaks that str.splitlines cuts at and "\n"-only splitting does not.
SEPARATORS = ["\u2028", "\u2029", "\u0085", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"]
# A message quotes at most ~200 characters of what it got (beyond the file's name).
LONGEST_MESSAGE = 600

SACCT_HEADER = "JobID|JobName|Submit|Start|Elapsed|Timelimit|AllocCPUS|State"
SACCT_JOB = "{id}|sim|2024-03-01T00:00:00|2024-03-01T00:00:10|01:00:00|02:00:00|4|COMPLETED"
PBS_JOB = (
    "03/01/2024 00:12:00;E;{id}.srv;user=alice jobname=sim queue=batch ctime=1709251260 "
    "start=1709251320 end=1709251920 exec_host=n1/0-3 Resource_List.nodes=1:ppn=4 "
    "Resource_List.walltime=01:00:00 resources_used.walltime=00:10:00 Exit_status=0"
)
CSV_HEADER = "job_id,submit,run,procs,status,user"
CSV_JOB = "{id},1709251200,600,4,1,alice"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def sacct(tmp_path: Path, *rows: str, header: str = SACCT_HEADER) -> Path:
    return write(tmp_path, "sacct.txt", "\n".join([header, *rows]) + "\n")


def pbs(tmp_path: Path, *rows: str) -> Path:
    return write(tmp_path, "acct", "\n".join(rows) + "\n")


def csv_log(tmp_path: Path, *rows: str, header: str = CSV_HEADER) -> Path:
    return write(tmp_path, "jobs.csv", "\n".join([header, *rows]) + "\n")


def refused(source: str, *, line: int | None, field: str | None, words: str = "") -> str:
    """Read ``source``: a WorkloadError naming the line and field, short; its message."""
    with pytest.raises(WorkloadError) as info:
        read_trace(source)
    err = info.value
    message = str(err)
    assert err.line == line, message
    if field is not None:
        assert err.field is not None and field in err.field, message
    assert words in message, message
    assert len(message) - len(err.path) < LONGEST_MESSAGE, message[:1000]
    assert "\n" not in message
    return message


def job(line: str, **cells: str) -> str:
    """A sacct record with some cells replaced (by column name)."""
    names = SACCT_HEADER.split("|")
    values = line.split("|")
    for name, value in cells.items():
        values[names.index(name)] = value
    return "|".join(values)


# -- shared: lines, instants, durations --------------------------------------------------------


def test_lines_end_at_newline_only() -> None:
    """A form feed, U+2028, ... inside a value is part of it; a CRLF loses its CR only."""
    text = "a" + "b".join(SEPARATORS) + "c\r\nd\re\n"
    assert split_lines(text) == ["a" + "b".join(SEPARATORS) + "c", "d\re", ""]


@pytest.mark.parametrize("zone", ["+99:99", "+24:00", "-25:00", "+01:60", "+0199"])
def test_impossible_time_zone_offsets_are_refused(zone: str) -> None:
    with pytest.raises(OutOfRange):
        parse_instant(f"2024-03-01T00:00:00{zone}")


def test_real_time_zone_offsets_still_read() -> None:
    assert parse_instant("2024-03-01T01:00:00+01:00") == parse_instant("2024-03-01T00:00:00Z")
    assert parse_instant("2024-03-01T00:00:00+14:00") == 1709251200 - 14 * 3600
    assert parse_instant("2024-03-01T00:00:00-0930") == 1709251200 + 9.5 * 3600


@pytest.mark.parametrize("text", ["1e300", "1e400", str(int(MAX_INSTANT) + 1), "-6e14"])
def test_instants_beyond_the_bound_are_refused(text: str) -> None:
    with pytest.raises(OutOfRange, match="within"):
        parse_instant(text)


@pytest.mark.parametrize(
    "text", ["9" * 400 + "-00:00:00", "9" * 400, "1" + "0" * 16, "999999999999:00:00"]
)
def test_durations_beyond_the_bound_are_refused_not_overflowing(text: str) -> None:
    with pytest.raises(OutOfRange, match="at most 1e"):
        parse_duration(text)


def test_largest_duration_is_read() -> None:
    assert parse_duration(str(int(MAX_TIME))) == MAX_TIME


# -- Slurm ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("digits", [400, 5000, 17])
def test_slurm_huge_job_ids(tmp_path: Path, digits: int) -> None:
    """A JobID of 400 digits was an OverflowError, of 5,000 Python's int-size ValueError."""
    path = sacct(tmp_path, SACCT_JOB.format(id=1), SACCT_JOB.format(id="9" * digits))
    refused(f"slurm:{path}", line=3, field="JobID", words="below 2**53")


def test_slurm_huge_ids_of_steps_and_raw_ids(tmp_path: Path) -> None:
    step = sacct(tmp_path, SACCT_JOB.format(id="9" * 400 + ".batch"))
    refused(f"slurm:{step}", line=2, field="JobID", words="below 2**53")
    header = SACCT_HEADER.replace("JobID|", "JobID|JobIDRaw|")
    raw = sacct(tmp_path, SACCT_JOB.format(id="104_1|" + "9" * 30), header=header)
    refused(f"slurm:{raw}", line=2, field="JobIDRaw", words="below 2**53")


@pytest.mark.parametrize("cpus", ["9" * 400, "9" * 5000, "2147483648", "1e3"])
def test_slurm_huge_counts(tmp_path: Path, cpus: str) -> None:
    path = sacct(tmp_path, job(SACCT_JOB.format(id=1), AllocCPUS=cpus))
    refused(f"slurm:{path}", line=2, field="AllocCPUS", words="whole number")


@pytest.mark.parametrize("cpus", ["٣", "٤", "３", "²"])
def test_slurm_non_ascii_digits_are_refused(tmp_path: Path, cpus: str) -> None:
    """Python's int() takes '٣' (Arabic-Indic three): a log's counts are ASCII."""
    path = sacct(tmp_path, job(SACCT_JOB.format(id=1), AllocCPUS=cpus))
    message = refused(f"slurm:{path}", line=2, field="AllocCPUS")
    if cpus != "²":
        assert "ASCII digits" in message


def test_slurm_non_ascii_digits_in_a_job_id_are_refused(tmp_path: Path) -> None:
    path = sacct(tmp_path, SACCT_JOB.format(id="١٢٣"))
    refused(f"slurm:{path}", line=2, field="JobID", words="job id")


@pytest.mark.parametrize("submit", ["1e300", "1e16", "600000000000000", "inf", "nan"])
def test_slurm_submit_far_in_the_future(tmp_path: Path, submit: str) -> None:
    """SLURM_TIME_FORMAT=%s epoch seconds beyond 5e14 s: the clock would leave 1e15 s."""
    path = sacct(tmp_path, SACCT_JOB.format(id=1), job(SACCT_JOB.format(id=2), Submit=submit))
    refused(f"slurm:{path}", line=3, field="Submit")


def test_slurm_submit_in_year_9999_stays_below_max_time(tmp_path: Path) -> None:
    """The latest date sacct can print is still a finite, bounded clock."""
    late = job(SACCT_JOB.format(id=2), Submit="9999-12-31T23:59:59", Start="Unknown")
    notes: list[str] = []
    wl = read_trace(f"slurm:{sacct(tmp_path, SACCT_JOB.format(id=1), late)}", on_note=notes.append)
    assert 0 < wl.submit_time.max() < MAX_TIME
    # finite and exact, but a span of 7,976 years is worth a word to the user
    assert any("span 7,976 years" in n and "9999-12-31" in n for n in notes), notes


def test_a_log_of_a_few_years_says_nothing_of_its_span(tmp_path: Path) -> None:
    notes: list[str] = []
    later = job(SACCT_JOB.format(id=2), Submit="2030-03-01T00:00:00", Start="Unknown")
    read_trace(f"slurm:{sacct(tmp_path, SACCT_JOB.format(id=1), later)}", on_note=notes.append)
    assert not any("check its dates" in n for n in notes), notes


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("Elapsed", "9" * 400 + ":00:00"),
        ("Elapsed", "99999999999-00:00:00"),
        ("Timelimit", "1" + "0" * 15),  # minutes
        ("Timelimit", "9" * 5000),
    ],
)
def test_slurm_huge_durations(tmp_path: Path, column: str, value: str) -> None:
    path = sacct(tmp_path, job(SACCT_JOB.format(id=1), **{column: value}))
    refused(f"slurm:{path}", line=2, field=column, words="at most 1e+15 s")


@pytest.mark.parametrize("zone", ["+99:99", "+24:00"])
def test_slurm_impossible_zone(tmp_path: Path, zone: str) -> None:
    path = sacct(tmp_path, job(SACCT_JOB.format(id=1), Submit=f"2024-03-01T00:00:00{zone}"))
    refused(f"slurm:{path}", line=2, field="Submit", words="time-zone offset")


def test_slurm_huge_memory(tmp_path: Path) -> None:
    header = SACCT_HEADER + "|ReqMem"
    path = sacct(tmp_path, SACCT_JOB.format(id=1) + "|" + "9" * 400 + "Gc", header=header)
    refused(f"slurm:{path}", line=2, field="ReqMem", words="2**53 KB")


@pytest.mark.parametrize("column", ["Submit", "submit", "AllocCPUS", "JobID"])
def test_slurm_duplicated_column_is_refused(tmp_path: Path, column: str) -> None:
    """The last Submit won, silently: which column holds the value cannot be told."""
    header = SACCT_HEADER + "|" + column
    row = job(SACCT_JOB.format(id=1)) + "|2025-01-01T00:00:00"
    message = refused(f"slurm:{sacct(tmp_path, row, header=header)}", line=1, field="header")
    assert f"column {column} appears twice" in message


def test_slurm_unread_duplicated_column_and_alias_are_kept(tmp_path: Path) -> None:
    """A column the reader does not read may repeat; AllocCPUS wins over its alias NCPUS."""
    header = SACCT_HEADER + "|Comment|Comment|NCPUS"
    row = SACCT_JOB.format(id=1) + "|a|b|64"
    wl = read_trace(f"slurm:{sacct(tmp_path, row, header=header)}")
    assert wl.fields[0, F["allocated_procs"]] == 4


@pytest.mark.parametrize("separator", SEPARATORS)
def test_slurm_line_separators_inside_a_job_name(tmp_path: Path, separator: str) -> None:
    """U+2028 & co. in a JobName split the record; now the job reads, and an error on a
    later line names that line."""
    name = job(SACCT_JOB.format(id=1), JobName=f"a{separator}b")
    good = read_trace(f"slurm:{sacct(tmp_path, name, SACCT_JOB.format(id=2))}")
    assert good.job_id.tolist() == [1, 2]
    bad = job(SACCT_JOB.format(id=3), AllocCPUS="x")
    path = sacct(tmp_path, name, SACCT_JOB.format(id=2), bad)
    refused(f"slurm:{path}", line=4, field="AllocCPUS")


def test_slurm_crlf_lines_still_read(tmp_path: Path) -> None:
    text = "\r\n".join([SACCT_HEADER, SACCT_JOB.format(id=1), SACCT_JOB.format(id=2)]) + "\r\n"
    wl = read_trace(f"slurm:{write(tmp_path, 'sacct.txt', text)}")
    assert wl.job_id.tolist() == [1, 2]


# -- PBS -----------------------------------------------------------------------------------------


def pbs_job(job_id: int | str = 1, **values: str) -> str:
    """A PBS E record with some key=value pairs replaced or added."""
    record = PBS_JOB.format(id=job_id)
    for key, value in values.items():
        pairs = record.split(" ")
        hit = [i for i, p in enumerate(pairs) if p.startswith(f"{key}=")]
        if hit:
            pairs[hit[0]] = f"{key}={value}"
        else:
            pairs.append(f"{key}={value}")
        record = " ".join(pairs)
    return record


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("exec_host", "n1/0*" + "9" * 5000),
        ("exec_host", "n1/0-" + "9" * 400),
        ("exec_host", "n1/0*2147483647+n2/0*1"),
        ("exec_host", "n1/" + ",".join(["0*2000000000"] * 3)),
        ("Resource_List.nodes", "9" * 5000 + ":ppn=2"),
        ("Resource_List.nodes", "2:ppn=" + "9" * 400),
        ("Resource_List.select", "9" * 400 + ":ncpus=2"),
        ("Resource_List.select", "65536:ncpus=65536"),
        ("Resource_List.ncpus", "9" * 400),
        ("resources_used.ncpus", "9" * 400),
    ],
)
def test_pbs_huge_cpu_counts(tmp_path: Path, key: str, value: str) -> None:
    values = {key: value}
    if key in ("Resource_List.select", "Resource_List.ncpus", "resources_used.ncpus"):
        values["exec_host"] = "-"  # (unknown: the request is read)
    if key == "resources_used.ncpus":
        values["exec_host"] = "NA"
    path = pbs(tmp_path, pbs_job(1, **values))
    refused(f"pbs:{path}", line=1, field=key, words="2147483647")


@pytest.mark.parametrize("key", ["Resource_List.mem", "resources_used.mem", "Resource_List.pmem"])
def test_pbs_huge_memory(tmp_path: Path, key: str) -> None:
    values = {key: "9" * 5000 + "gb"}
    if key == "Resource_List.pmem":
        values["Resource_List.mem"] = "NA"
    refused(f"pbs:{pbs(tmp_path, pbs_job(1, **values))}", line=1, field=key, words="2**53 KB")


@pytest.mark.parametrize("digits", [400, 5000])
def test_pbs_huge_job_id(tmp_path: Path, digits: int) -> None:
    path = pbs(tmp_path, pbs_job(1), pbs_job("9" * digits))
    refused(f"pbs:{path}", line=2, field="JOBID", words="below 2**53")


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("ctime", "1" + "0" * 30),
        ("start", "9" * 400),
        ("end", "600000000000000"),
        ("resources_used.walltime", "9" * 400),
        ("Resource_List.walltime", "999999999999:00:00"),
    ],
)
def test_pbs_huge_times(tmp_path: Path, key: str, value: str) -> None:
    refused(f"pbs:{pbs(tmp_path, pbs_job(1, **{key: value}))}", line=1, field=key)


@pytest.mark.parametrize("date", ["13/45/2024", "02/30/2024", "00/01/2024", "03/01/2024 24"])
def test_pbs_impossible_record_dates(tmp_path: Path, date: str) -> None:
    record = pbs_job(1)
    if date.endswith(" 24"):
        record = record.replace(" 00:12:00;", " 24:12:00;")
    else:
        record = date + record[len("03/01/2024") :]
    path = pbs(tmp_path, pbs_job(2), record)
    refused(f"pbs:{path}", line=2, field="date", words="MM/DD/YYYY")


def test_pbs_leap_day_reads(tmp_path: Path) -> None:
    record = "02/29/2024" + pbs_job(1)[len("03/01/2024") :]
    assert len(read_trace(f"pbs:{pbs(tmp_path, record)}")) == 1


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("Resource_List.ncpus", "٣"),
        ("resources_used.walltime", "٣٠"),
        ("ctime", "١٧٠٩٢٥١٢٦٠"),
        ("exec_host", "n1/٣"),
        ("Resource_List.nodes", "٣:ppn=2"),
    ],
)
def test_pbs_non_ascii_digits_are_refused(tmp_path: Path, key: str, value: str) -> None:
    values = {key: value}
    if key in ("Resource_List.ncpus", "Resource_List.nodes"):
        values["exec_host"] = "NA"
    refused(f"pbs:{pbs(tmp_path, pbs_job(1, **values))}", line=1, field=key)


def test_pbs_key_given_twice_with_different_values(tmp_path: Path) -> None:
    record = pbs_job(1) + " exec_host=n1/0-63"
    refused(f"pbs:{pbs(tmp_path, record)}", line=1, field="exec_host", words="each key once")
    same = pbs_job(1) + " exec_host=n1/0-3 comment=a comment=b"
    assert read_trace(f"pbs:{pbs(tmp_path, same)}").fields[0, F["allocated_procs"]] == 4


@pytest.mark.parametrize("separator", SEPARATORS)
def test_pbs_line_separators_inside_a_value(tmp_path: Path, separator: str) -> None:
    name = pbs_job(1, jobname=f"a{separator}b")
    good = read_trace(f"pbs:{pbs(tmp_path, name, pbs_job(2))}")
    assert good.job_id.tolist() == [1, 2]
    path = pbs(tmp_path, name, pbs_job(2), pbs_job(3, Exit_status="x"))
    refused(f"pbs:{path}", line=3, field="Exit_status")


# -- CSV -----------------------------------------------------------------------------------------


def csv_job(job_id: int | str = 1, **cells: str) -> str:
    names = CSV_HEADER.split(",")
    values = CSV_JOB.format(id=job_id).split(",")
    for name, value in cells.items():
        values[names.index(name)] = value
    return ",".join(values)


@pytest.mark.parametrize("status", ["1e400", "1e300", "2147483648", "1.5", "inf"])
def test_csv_status_beyond_an_integer(tmp_path: Path, status: str) -> None:
    """status=1e400 was an OverflowError (int of an infinite float)."""
    path = csv_log(tmp_path, csv_job(1), csv_job(2, status=status))
    refused(f"csv:{path}", line=3, field="status")


@pytest.mark.parametrize("procs", ["4.5", "0.5", "1e300", "1e400", "2147483648", "٣"])
def test_csv_procs_not_a_whole_count(tmp_path: Path, procs: str) -> None:
    """procs=4.5 was truncated to 4 (the Slurm reader refuses 4.5)."""
    path = csv_log(tmp_path, csv_job(1, procs=procs))
    refused(f"csv:{path}", line=2, field="procs")


def test_csv_whole_procs_written_as_floats_still_read(tmp_path: Path) -> None:
    wl = read_trace(f"csv:{csv_log(tmp_path, csv_job(1, procs='4.0'), csv_job(2, procs='-1'))}")
    assert wl.fields[:, F["allocated_procs"]].tolist() == [4]
    assert wl.skipped["nonpositive_procs"] == 1


@pytest.mark.parametrize("digits", [400, 5000])
def test_csv_huge_job_id(tmp_path: Path, digits: int) -> None:
    path = csv_log(tmp_path, csv_job("9" * digits))
    refused(f"csv:{path}", line=2, field="job_id", words="below 2**53")


@pytest.mark.parametrize(
    ("column", "value"),
    [("submit", "1e300"), ("submit", "6e14"), ("run", "1e300"), ("run", "1e400")],
)
def test_csv_huge_times(tmp_path: Path, column: str, value: str) -> None:
    path = csv_log(tmp_path, csv_job(1), csv_job(2, **{column: value}))
    refused(f"csv:{path}", line=3, field=column)


def test_csv_huge_memory(tmp_path: Path) -> None:
    path = csv_log(tmp_path, csv_job(1) + ",1e400", header=CSV_HEADER + ",used_memory")
    refused(f"csv:{path}", line=2, field="used_memory", words="finite")


def test_csv_run_derived_from_end_and_start_stays_bounded(tmp_path: Path) -> None:
    """start = submit + wait, run = end - start: each value bounded, the result too."""
    header = "submit,start,wait,end,procs"
    row = "-400000000000000,,0,400000000000000,1"
    wl = read_trace(f"csv:{csv_log(tmp_path, row, header=header)}")
    assert wl.run_time.tolist() == [8e14]
    row = "-400000000000000,,900000000000000,400000000000000,1"  # start past end: never ran
    assert len(read_trace(f"csv:{csv_log(tmp_path, row, header=header)}")) == 0


def test_csv_cell_over_the_field_limit_in_a_read_column(tmp_path: Path) -> None:
    """_csv.Error: field larger than field limit (131072) was a traceback."""
    path = csv_log(tmp_path, csv_job(1), csv_job(2, user="x" * (MAX_CELL + 1)))
    message = refused(f"csv:{path}", line=3, field="user", words="131,072 characters")
    assert "131,073" in message


def test_csv_long_cell_of_an_unread_column_is_read(tmp_path: Path) -> None:
    """A job script or comment column may be long: only read columns are limited."""
    header = CSV_HEADER + ",script"
    long = '"' + "echo hi\n" * 40000 + '"'  # 320,000 characters on lines 2 to 40,002
    rows = (csv_job(1) + "," + long, csv_job(2) + ",x", csv_job(3, procs="y") + ",x")
    with pytest.raises(WorkloadError) as info:
        read_trace(f"csv:{csv_log(tmp_path, *rows, header=header)}")
    assert info.value.line == 40004  # job 2 is on line 40,003
    path = csv_log(tmp_path, csv_job(1) + "," + long, csv_job(2) + ",x", header=header)
    assert read_trace(f"csv:{path}").job_id.tolist() == [1, 2]


@pytest.mark.parametrize("column", ["submit", "SUBMIT", "procs", "user"])
def test_csv_duplicated_header_column(tmp_path: Path, column: str) -> None:
    path = csv_log(tmp_path, csv_job(1) + ",5", header=f"{CSV_HEADER},{column}")
    message = refused(f"csv:{path}", line=1, field="header", words="appears 2 times")
    assert column in message


def test_csv_duplicated_column_named_by_columns(tmp_path: Path) -> None:
    header = "Submitted,run,procs,Submitted"
    path = csv_log(tmp_path, "0,10,1,5", header=header)
    with pytest.raises(WorkloadError, match="'Submitted' appears 2 times"):
        read_trace(f"csv:{path}?submit=Submitted")


def test_csv_unread_duplicated_column_is_kept(tmp_path: Path) -> None:
    path = csv_log(tmp_path, csv_job(1) + ",a,b", header=CSV_HEADER + ",note,note")
    assert len(read_trace(f"csv:{path}")) == 1


@pytest.mark.parametrize("separator", SEPARATORS)
@pytest.mark.parametrize("quoted", [False, True])
def test_csv_line_separators_inside_a_cell(tmp_path: Path, separator: str, quoted: bool) -> None:
    user = f"a{separator}b"
    user = f'"{user}"' if quoted else user
    good = read_trace(f"csv:{csv_log(tmp_path, csv_job(1, user=user), csv_job(2))}")
    assert good.job_id.tolist() == [1, 2]
    assert good.user_id.tolist() == [1, 2]
    path = csv_log(tmp_path, csv_job(1, user=user), csv_job(2), csv_job(3, procs="x"))
    refused(f"csv:{path}", line=4, field="procs")


def test_csv_quoted_newline_keeps_line_numbers(tmp_path: Path) -> None:
    """A record spanning lines: later errors name the line they are on."""
    path = csv_log(tmp_path, csv_job(1, user='"a\nb\nc"'), csv_job(2, procs="x"))
    refused(f"csv:{path}", line=5, field="procs")


def test_csv_lone_carriage_return_is_one_line(tmp_path: Path) -> None:
    path = csv_log(tmp_path, csv_job(1), csv_job(2, user="a\rb"))
    refused(f"csv:{path}", line=3, field=None, words="carriage return")


def test_csv_numeric_names_beyond_float_precision_are_numbered(tmp_path: Path) -> None:
    """User ids of 400 digits overflowed the float64 field: numbered like names instead."""
    wl = read_trace(f"csv:{csv_log(tmp_path, csv_job(1, user='9' * 400), csv_job(2, user='7'))}")
    assert wl.user_id.tolist() == [1, 2]
    wl = read_trace(f"csv:{csv_log(tmp_path, csv_job(1, user='12'), csv_job(2, user='7'))}")
    assert wl.user_id.tolist() == [12, 7]


def test_csv_error_messages_quote_little_of_a_huge_header(tmp_path: Path) -> None:
    header = ",".join(f"column_{i}_" + "x" * 1000 for i in range(300))
    path = csv_log(tmp_path, ",".join(["1"] * 300), header=header)
    with pytest.raises(WorkloadError) as info:
        read_trace(f"csv:{path}")
    assert info.value.line == 1
    assert len(str(info.value)) - len(info.value.path) < LONGEST_MESSAGE
    with pytest.raises(WorkloadError) as info:
        read_trace(f"csv:{path}?submit=" + "y" * 5000)
    assert len(str(info.value)) - len(info.value.path) < LONGEST_MESSAGE


# -- the command line ----------------------------------------------------------------------------


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from schedlab.cli import main; main()", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
        timeout=120,
    )


def test_columns_on_an_empty_or_corrupt_csv_blames_the_file(tmp_path: Path) -> None:
    """It blamed --columns ('only for a CSV log (empty.csv is swf)')."""
    empty = write(tmp_path, "empty.csv", "")
    corrupt = tmp_path / "corrupt.csv"
    corrupt.write_bytes(b"\x1f\x8b\x08\x00 not gzip at all")
    for path, words in ((empty, "empty"), (corrupt, "gzip")):
        proc = cli("workload", "info", str(path), "--columns", "submit=Submitted")
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.splitlines()
        assert len(lines) == 1, proc.stderr
        assert path.name in lines[0] and words in lines[0], lines[0]
        assert "--columns" not in lines[0], lines[0]


def test_columns_on_an_swf_file_still_blames_the_option(tmp_path: Path) -> None:
    path = write(
        tmp_path, "t.swf", "; MaxProcs: 4\n1 0 -1 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
    )
    proc = cli("workload", "info", str(path), "--columns", "submit=Submitted")
    assert proc.returncode == 2 and "--columns" in proc.stderr, proc.stderr


def test_cli_huge_job_id_is_one_short_line(tmp_path: Path) -> None:
    path = sacct(tmp_path, SACCT_JOB.format(id=1), SACCT_JOB.format(id="9" * 5000))
    proc = cli("workload", "info", f"slurm:{path}")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "sacct.txt:3:" in lines[0] and "JobID" in lines[0], lines
    assert len(lines[0]) < LONGEST_MESSAGE
