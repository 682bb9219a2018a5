"""Fuzzing the log importers (issue 22, item 10): Slurm sacct, PBS accounting and CSV logs
from a hostile world.

Property: a valid log with a few mutations (huge numbers, 1e400, nan, -0, non-ASCII digits,
Unicode line separators, cells beyond the csv field limit, duplicated columns, impossible
dates and zones, stray quotes and delimiters; also in what a job asks of the nodes, issue
24: TRES lists, PBS chunks and places, CSV sizes) either reads into a `Workload` that keeps
the invariants the engine relies on, or raises a `SchedlabError` whose message is one printable
line; never another exception. Deterministic (``derandomize=True``, no example database)
and sized to run in seconds; the command-line test at the end checks that such errors reach
the user as one line on stderr with exit code 2.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import SchedlabError
from schedlab.workload.importers import read_trace
from schedlab.workload.importers.common import MAX_MEMORY_MIB
from schedlab.workload.job import MAX_PROCS, MAX_TIME, N_FIELDS, Workload
from strategies import fuzz


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


# -- valid logs ---------------------------------------------------------------------------------

SACCT_COLUMNS = (
    "JobID|JobIDRaw|JobName|User|Partition|QOS|Submit|Start|End|Elapsed|Timelimit|"
    "AllocCPUS|ReqCPUS|ReqMem|NNodes|TotalCPU|State|ReqNodes|ReqTRES|AllocTRES"
)
SACCT_RECORDS = [
    "100|100|sim|alice|cpu|normal|2024-03-01T00:00:00|2024-03-01T00:00:10|"
    "2024-03-01T01:00:10|01:00:00|02:00:00|4|4|4000Mc|1|03:00:00|COMPLETED|1|"
    "billing=4,cpu=4,mem=16000M,node=1|cpu=4,mem=16000M,node=1",
    "100.batch|100.batch|batch||||2024-03-01T00:00:10|2024-03-01T00:00:10|"
    "2024-03-01T01:00:10|01:00:00||4|4|4000Mc|1|02:59:58|COMPLETED|1||cpu=4,mem=16000M,node=1",
    "101|101|post|bob|gpu|high|2024-03-01T00:01:00|2024-03-01T00:02:00|"
    "2024-03-01T00:32:00|00:30:00|1-00:00:00|8|8|16Gn|2|00:00:00|FAILED|1|"
    "cpu=8,gres/gpu=4,gres/gpu:a100=4,mem=32G,node=1|cpu=8,gres/gpu:a100=4,mem=32G,node=2",
    "104_1|105|arr|dave|cpu|normal|2024-03-01T00:10:00|2024-03-01T00:10:00|"
    "2024-03-01T00:20:00|00:10:00|10:00|1|1||1|00:09:00|TIMEOUT|1|cpu=1,node=1|",
    "110+0|110|het|erin|cpu|normal|2024-03-01T00:40:00|2024-03-01T00:41:00|"
    "2024-03-01T00:51:00|00:10:00|01:00:00|2|2|1G|1|00:00:00|COMPLETED|1|cpu=2,node=1|",
    "110+1|111|het|erin|gpu|normal|2024-03-01T00:40:00|2024-03-01T00:41:00|"
    "2024-03-01T00:51:00|00:10:00|01:00:00|4|4|1G|1|00:00:00|COMPLETED|1|"
    "cpu=4,gres/gpu:v100=2,node=1|",
    "112|112|x|bob|cpu|normal|1709254800|1709254860|1709255160|5|UNLIMITED|2|2|2G|1|"
    "00:00:00|CANCELLED by 1001|||",
]
SACCT = "\n".join([SACCT_COLUMNS, *SACCT_RECORDS]) + "\n"

PBS_RECORDS = [
    "03/01/2024 00:00:00;Q;200.srv;queue=batch",
    "03/01/2024 00:12:00;D;201.srv;requestor=bob@login1",
    "03/01/2024 00:12:00;E;201.srv;user=bob group=chem jobname=post queue=batch "
    "ctime=1709251260 qtime=1709251290 start=1709251320 exec_host=n2/0+n2/1+n3/0-1 "
    "Resource_List.nodes=2:ppn=2:gpus=1 Resource_List.walltime=01:00:00 end=1709251920 "
    "Exit_status=271 resources_used.cput=00:20:00 resources_used.mem=2048kb "
    "resources_used.walltime=00:10:00 Resource_List.pmem=512mb Resource_List.place=pack",
    "03/01/2024 00:15:00;E;203.srv;user=alice group=phys jobname=small queue=batch "
    "ctime=1709251800 start=1709251800 exec_host=n1/4 Resource_List.ncpus=1 "
    "Resource_List.walltime=3600 end=1709252100 Exit_status=0 Resource_List.mem=1gb "
    "Resource_List.ngpus=1",
    "03/01/2024 00:17:40;E;204[2].srv;user=dave jobname=arr queue=batch ctime=1709252200 "
    "start=1709252210 exec_host=n1/6 Resource_List.select=1:ncpus=1 end=1709252260 "
    "Exit_status=0 resources_used.walltime=00:00:50",
    '03/01/2024 00:36:40;E;202.srv;user=carol jobname="my job" queue=workq ctime=1709251500 '
    "start=1709251600 exec_host=n4/0*8+n5/0*8 Resource_List.select=1:ncpus=8:ngpus=2:mem=4gb"
    "+1:ncpus=4 Resource_List.mem=8gb end=1709253400 Exit_status=1 "
    "resources_used.walltime=00:30:00 Resource_List.place=scatter:excl Resource_List.nodect=2",
]
PBS = "\n".join(PBS_RECORDS) + "\n"

CSV = """\
job_id,submit,start,end,run,procs,requested_time,used_memory,status,user,queue,nodes,gpus,\
mem,mem_per_core,exclusive
1,2024-03-01T00:00:00Z,2024-03-01T00:01:00Z,2024-03-01T01:01:00Z,,4,02:00:00,1024,done,alice,\
q1,2,4,64G,,yes
2,2024-03-01T01:10:00+01:00,1709252000,,600,2,900,,failed,bob,q2,1,0,,1.5GiB,0
3,1709253000,1709253000,1709253030,,1,0-01:00,NA,COMPLETED,"carol, jr",q1,,1,4000,,NA
4,1709253600,,,50,8,,,5,alice,q2,2,,1T,,1
"""

LOGS = {"slurm": SACCT, "pbs": PBS, "csv": CSV}
# What separates the values of a line (PBS: key=value pairs; only values are replaced).
SEPARATOR = {"slurm": "|", "pbs": " ", "csv": ","}

NASTY_TOKENS = [
    "9" * 400,
    "9" * 5000,
    "9007199254740993",
    "2147483648",
    "1e400",
    "-1e400",
    "1e300",
    "1e16",
    "6e14",
    "nan",
    "inf",
    "-0",
    "-0.0",
    "0",
    "4.5",
    "-1",
    "٣",
    "١٧٠٩٢٥١٢٠٠",
    "²",
    "３",
    "x" * 131073,
    "a\u2028b",
    "\u2029",
    "\x85",
    "\x0c",
    "\x0b",
    "\x1c",
    "\x1d\x1e",
    "\r",
    "\x00",
    "\x1b[31m",
    "",
    "Unknown",
    "None",
    '"',
    '"a\nb"',
    "a|b",
    ",",
    ";",
    "=",
    "2024-03-01T00:00:00+99:99",
    "2024-03-01T00:00:00+24:00",
    "2024-02-30T00:00:00",
    "9999-12-31T23:59:59",
    "0000-01-01T00:00:00",
    "13/45/2024",
    "99999999-00:00:00",
    "1" + "0" * 15,
    "UNLIMITED",
    "n1/0*99999999999",
    "n1/0-99999999999",
    "99999:ppn=99999",
    "65536:ncpus=65536",
    "9" * 30 + "gb",
    "PENDING",
    "CANCELLED by 1",
    "cpu=1e400,gres/gpu=٣",
    "cpu=8,gres/gpu:a=2147483647,gres/gpu:b=1",
    "cpu=8,mem=1G,mem=2G,node=1",
    "mem=" + "9" * 30 + "T",
    "4294967296Gc",
    "2:ncpus=4:ngpus=99999999999",
    "2147483647:ncpus=0+1:ncpus=0",
    "scatter:excl",
    "64iB",
    "1.5T",
]
INSERTS = ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1e", "\r", "\n", "\r\n", "٣"]

token_strategy = st.one_of(
    st.sampled_from(NASTY_TOKENS),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)


@st.composite
def mutated_log(draw: st.DrawFn, fmt: str) -> bytes:
    """The valid log of format ``fmt`` with one to four mutations."""
    sep = SEPARATOR[fmt]
    lines = [line.split(sep) for line in LOGS[fmt].splitlines()]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(
            st.sampled_from(
                ["replace"] * 5 + ["insert", "insert", "duplicate column", "duplicate line"]
            )
        )
        row = draw(st.integers(0, len(lines) - 1))
        cells = lines[row]
        col = draw(st.integers(0, len(cells) - 1))
        if kind == "replace":
            key, eq, _ = cells[col].partition("=")
            token = draw(token_strategy)
            cells[col] = f"{key}={token}" if fmt == "pbs" and eq else token
        elif kind == "insert":
            at = draw(st.integers(0, len(cells[col])))
            cells[col] = cells[col][:at] + draw(st.sampled_from(INSERTS)) + cells[col][at:]
        elif kind == "duplicate column":  # the same column (or PBS key) twice on every line
            for line in lines:
                if col < len(line):
                    line.append(line[col])
        else:
            lines.insert(row, list(cells))
    text = "\n".join(sep.join(cells) for cells in lines) + "\n"
    data = text.encode("utf-8", errors="surrogatepass")
    packing = draw(st.sampled_from(["plain", "plain", "plain", "crlf", "gzip"]))
    if packing == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif packing == "gzip":
        data = gzip.compress(data, mtime=0)
    return data


def check_workload(w: Workload) -> None:
    """What every workload an importer returns guarantees (SPEC 2 conventions)."""
    assert 1 <= w.max_procs <= MAX_PROCS
    assert w.fields.shape == (len(w), N_FIELDS)
    procs = w.procs
    assert ((procs >= 1) & (procs <= w.max_procs)).all()
    submit, run = w.submit_time, w.run_time
    assert np.isfinite(w.fields).all()
    assert ((submit >= 0) & (submit <= MAX_TIME)).all()
    assert ((run > 0) & (run <= MAX_TIME)).all()
    assert (np.diff(submit) >= 0).all()
    for name in ("wait_time", "requested_time", "avg_cpu_time"):
        assert (w.column(name) <= MAX_TIME).all(), name
    ids = w.fields[:, 0]
    assert (ids == np.trunc(ids)).all() and (np.abs(ids) < 2**53).all()
    assert all(v >= 0 for v in w.skipped.values())
    for name, values in w.attributes.items():  # the node requests (issue 24): NaN or bounded
        assert values.shape == (len(w),), name
        known = values[~np.isnan(values)]
        high = MAX_MEMORY_MIB if name == "req_mem_per_node" else MAX_PROCS
        assert ((known >= 0) & (known <= high)).all(), name
        if name == "exclusive":
            assert np.isin(known, (0.0, 1.0)).all()
        elif name != "req_mem_per_node":
            assert (known == np.trunc(known)).all(), name


def read_log(folder: Path, fmt: str, data: bytes) -> None:
    path = folder / f"fuzz.{fmt}"
    path.write_bytes(data)
    try:
        w = read_trace(f"{fmt}:{path}")
    except SchedlabError as exc:
        message = str(exc)
        assert message.isprintable(), message  # one line, no raw control characters
        assert len(message) - len(str(path)) < 800, message[:1000]
        return
    check_workload(w)


def test_the_valid_logs_read(folder: Path) -> None:
    """The mutations start from logs that read (so a refusal is the mutation's doing)."""
    for fmt, text in LOGS.items():
        path = folder / f"valid.{fmt}"
        path.write_text(text)
        w = read_trace(f"{fmt}:{path}")
        assert len(w) >= 4, fmt
        check_workload(w)


@fuzz(400)
@given(data=mutated_log("slurm"))
def test_mutated_sacct_reads_or_raises_a_schedlab_error(folder: Path, data: bytes) -> None:
    read_log(folder, "slurm", data)


@fuzz(400)
@given(data=mutated_log("pbs"))
def test_mutated_pbs_reads_or_raises_a_schedlab_error(folder: Path, data: bytes) -> None:
    read_log(folder, "pbs", data)


@fuzz(400)
@given(data=mutated_log("csv"))
def test_mutated_csv_reads_or_raises_a_schedlab_error(folder: Path, data: bytes) -> None:
    read_log(folder, "csv", data)


@fuzz(100)
@given(fmt=st.sampled_from(sorted(LOGS)), data=st.binary(max_size=400))
def test_arbitrary_bytes_as_a_log(folder: Path, fmt: str, data: bytes) -> None:
    read_log(folder, fmt, data)


# -- the command line: one line per error ----------------------------------------------------------


def _cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", "from schedlab.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
    )


def test_cli_prints_each_log_error_as_one_line(tmp_path: Path) -> None:
    """`schedlab workload info` and `schedlab run` on hostile logs: exit code 2, one stderr
    line naming the file and the line (after a U+2028 and a form feed that must not shift
    it), no raw control character."""
    sacct_lines = SACCT.splitlines()
    sacct_lines[3] = sacct_lines[3].replace("|post|", "|po\u2028st\x0c|")
    sacct_lines[4] = "9" * 5000 + sacct_lines[4][len("104_1") :]
    pbs_lines = PBS.splitlines()
    pbs_lines[2] = pbs_lines[2].replace("jobname=post", "jobname=po\u2028st\x85")
    pbs_lines[4] = "13/45/2024" + pbs_lines[4][len("03/01/2024") :]
    csv_lines = CSV.splitlines()
    csv_lines[1] = csv_lines[1].replace(",alice,", ',"al\u2028ice\x0c",')
    csv_lines[3] = csv_lines[3].replace("carol, jr", "\x1b[31m" + "x" * 131073)
    cases = [
        ("slurm", "sacct.txt", sacct_lines, 5),
        ("pbs", "acct", pbs_lines, 5),
        ("csv", "jobs.csv", csv_lines, 4),
    ]
    runs = []
    for fmt, name, lines, line in cases:
        path = tmp_path / name
        path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
        for command in (["workload", "info"], ["run"]):
            runs.append((name, line, _cli(*command, f"{fmt}:{path}")))
    for name, line, proc in runs:
        _, stderr = proc.communicate(timeout=120)
        lines = stderr.splitlines()
        assert proc.returncode == 2, (name, stderr)
        assert len(lines) == 1, (name, stderr)
        assert f"{name}:{line}:" in lines[0], (name, stderr)
        assert "\x1b" not in stderr
        assert len(lines[0]) < 600, lines[0][:1000]
