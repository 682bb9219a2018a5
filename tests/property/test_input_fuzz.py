"""Fuzzing the input side (issue 8, item 5): files, model specs and sweeps from a hostile world.

Property: whatever the bytes, spec string or sweep data, schedlab either gives a usable
result or raises one of its own errors (a `SchedlabError`); never another exception. When a
workload is read it satisfies the basic invariants the engine relies on.

Deterministic (``derandomize=True``, no example database) and sized to run in seconds; the
command-line test at the end checks that such errors reach the user as one line.
"""

from __future__ import annotations

import contextlib
import gzip
import math
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedlab.errors import SchedlabError
from schedlab.experiments.sweep import (
    GRID_KEYS,
    TOP_LEVEL_KEYS,
    WORKLOAD_KEYS,
    load_sweep,
    parse_sweep,
)
from schedlab.workload.job import MAX_PROCS, MAX_TIME, N_FIELDS, Workload
from schedlab.workload.load import is_model_spec, load_workload, parse_model_spec
from schedlab.workload.models.lublin import MAX_JOBS
from schedlab.workload.swf import read_swf
from strategies import fuzz


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    """A scratch folder with a valid trace and deadline table for sweeps to point at."""
    with tempfile.TemporaryDirectory() as name:
        path = Path(name)
        (path / "t.swf").write_text(VALID_SWF)
        (path / "d.csv").write_text("job_id,deadline\n1,1000\n")
        yield path


# -- SWF files ------------------------------------------------------------------------------

VALID_SWF = """\
; Version: 2.2
; MaxProcs: 8
; MaxRuntime: 3600
1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1
2 10 -1 50 -1 -1 -1 2 -1 -1 1 2 1 -1 1 -1 -1 -1
3 20 -1 300 8 -1 -1 8 600 -1 0 1 1 -1 0 -1 -1 -1
4 15 -1 10 1 -1 -1 1 60 -1 5 3 2 -1 1 -1 -1 -1
5 40 -1 70 2 -1 -1 2 100 -1 1 2 1 -1 1 -1 -1 -1
"""
VALID_LINES = VALID_SWF.splitlines()

# Tokens the reliability run fed in: huge numbers, non-finite ones, signed zero, letters,
# control characters, nothing at all.
NASTY_TOKENS = [
    "99999999999999999999",
    "9999999999999999999999999",
    "9223372036854775808",
    "-9223372036854775809",
    "1e300",
    "-1e300",
    "1e-320",
    "1e999",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "-0",
    "-0.0",
    "0",
    "1.5",
    "0x10",
    "1_000",
    "abc",
    "\x1b[31m",
    "1\r",
    "\r",
    "\x00",
    "\x07",
    "\u202e",
    "é",
    ";",
    "",
    "+",
    ".",
    "e5",
    "2147483648",
    "2147483647",
    "9" * 400,
]
HEADER_LINES = [
    "; MaxProcs: 1",
    "; MaxProcs: 0",
    "; MaxProcs: -5",
    "; MaxProcs: 9999999999999999999999999",
    "; MaxProcs: 2147483647",
    "; MaxProcs: lots",
    "; MaxNodes: 3",
    "; MaxRuntime: 1e300",
    "; MaxProcs: \x1b[31m",
    "; MoldableAmdahlPi: 0.5",
    "; MoldableAmdahlPi: 2",
    "; MoldableAmdahlPi: nan",
    "; MoldableAmdahlPi: \x1b[31m",
    ";",
    "",
    "   ",
]

token_strategy = st.one_of(
    st.sampled_from(NASTY_TOKENS),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=6),
)


@st.composite
def mutated_swf(draw: st.DrawFn) -> bytes:
    """The valid SWF text above with a few mutations (tokens, fields, lines, gzip)."""
    lines = [line.split(" ") if not line.startswith(";") else [line] for line in VALID_LINES]
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["replace"] * 4 + ["delete", "duplicate", "header", "header"]))
        row = draw(st.integers(0, len(lines) - 1))
        tokens = lines[row]
        if kind == "header":
            lines.insert(row, [draw(st.sampled_from(HEADER_LINES))])
            continue
        if tokens[0].startswith(";"):
            continue
        col = draw(st.integers(0, len(tokens) - 1))
        if kind == "replace":
            tokens[col] = draw(token_strategy)
        elif kind == "delete" and len(tokens) > 1:
            del tokens[col]
        else:
            tokens.insert(col, tokens[col])
    text = "\n".join(" ".join(tokens) for tokens in lines) + draw(st.sampled_from(["\n", ""]))
    data = text.encode("utf-8", errors="surrogatepass")
    packing = draw(st.sampled_from(["plain", "plain", "gzip", "gzip-truncated", "crlf"]))
    if packing == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif packing.startswith("gzip"):
        data = gzip.compress(data, mtime=0)
        if packing == "gzip-truncated":
            data = data[: draw(st.integers(0, len(data) - 1))]
    return data


def check_workload(w: Workload) -> None:
    """What every workload the reader returns guarantees (SPEC 2 conventions)."""
    assert 1 <= w.max_procs <= MAX_PROCS
    assert w.fields.shape == (len(w), N_FIELDS)
    procs = w.procs
    assert ((procs >= 1) & (procs <= w.max_procs)).all()
    submit, run = w.submit_time, w.run_time
    assert np.isfinite(submit).all() and np.isfinite(run).all()
    assert (np.abs(submit) <= MAX_TIME).all() and (run > 0).all() and (run <= MAX_TIME).all()
    assert (np.diff(submit) >= 0).all()
    requested = w.requested_time
    assert np.isfinite(requested).all() and (requested > 0).all()
    ids = w.fields[:, 0]
    assert (ids == np.trunc(ids)).all() and (np.abs(ids) < 2**53).all()
    assert w.job_id.tolist() == [int(i) for i in ids]
    assert all(v >= 0 for v in w.skipped.values())


def read_bytes_as_swf(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "fuzz.swf"
        path.write_bytes(data)
        try:
            w = read_swf(path)
        except SchedlabError as exc:
            assert str(exc).isprintable(), str(exc)  # one line, no raw control characters
            return
        check_workload(w)


@fuzz(150)
@given(
    data=st.one_of(st.binary(max_size=600), st.binary(max_size=300).map(lambda b: b"\x1f\x8b" + b))
)
def test_arbitrary_bytes_read_or_raise_a_schedlab_error(data: bytes) -> None:
    """Any bytes: a workload that keeps the invariants, or a SchedlabError."""
    read_bytes_as_swf(data)


@fuzz(400)
@given(data=mutated_swf())
def test_mutated_swf_reads_or_raises_a_schedlab_error(data: bytes) -> None:
    """Mutated valid files: huge/odd tokens, missing or extra fields, stray MaxProcs lines,
    CRLF, truncated gzip. Only SchedlabErrors escape; whatever reads keeps the invariants."""
    read_bytes_as_swf(data)


@fuzz(100)
@given(
    data=mutated_swf(),
    max_procs=st.one_of(st.integers(min_value=-5, max_value=2**70), st.sampled_from([MAX_PROCS])),
)
def test_mutated_swf_with_a_machine_size_override(data: bytes, max_procs: int) -> None:
    """The same with `max_procs` (--procs): in range it is the machine size."""
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "fuzz.swf"
        path.write_bytes(data)
        try:
            w = read_swf(path, max_procs=max_procs)
        except SchedlabError:
            return
        assert w.max_procs == max_procs
        check_workload(w)


# -- model specs ----------------------------------------------------------------------------

MODEL_KEYS = ["jobs", "procs", "seed", "load", "kind", "start_time", "foo", "", "Jobs"]
# Job counts: small ones (generated), ones beyond MAX_JOBS (refused before drawing) or junk;
# never a valid large count, which would be generated for real.
jobs_strategy = st.one_of(
    st.integers(1, 200).map(str),
    st.integers(min_value=MAX_JOBS + 1, max_value=2**80).map(str),
    st.integers(min_value=-(2**80), max_value=0).map(str),
    st.sampled_from(["1e300", "5.5", "nan", "", "x", "9" * 5000, "-0", "true"]),
)
value_strategy = st.one_of(
    st.integers(1, 200).map(str),  # mostly small, valid counts
    st.integers(min_value=-(2**80), max_value=2**80).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "batch",
            "interactive",
            "mixed",
            "all",
            "None",
            "true",
            "1e300",
            "1e-300",
            "-0",
            "9" * 5000,
        ]
    ),
    st.text(max_size=5),
)


@st.composite
def model_specs(draw: st.DrawFn) -> str:
    """Mostly well-formed lublin specs with odd values, sometimes plain junk."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=40))
    items = []
    for key in draw(st.lists(st.sampled_from(MODEL_KEYS), max_size=6)):
        sep = draw(st.sampled_from(["=", "=", "=", "", "=="]))
        value = draw(jobs_strategy if key == "jobs" else value_strategy)
        items.append(f"{key}{sep}{value}")
    name = draw(st.sampled_from(["lublin", "lublin", "lublin", "Lublin", "dirac"]))
    return f"{name}:{','.join(items)}" if draw(st.booleans()) or items else name


@fuzz(200)
@given(spec=model_specs())
def test_model_specs_parse_generate_or_raise_a_schedlab_error(spec: str) -> None:
    """parse_model_spec + load_workload: a workload or a SchedlabError, never anything
    else; huge job counts are refused by validation (so this stays fast)."""
    try:
        _, params = parse_model_spec(spec)
    except SchedlabError as exc:
        assert "None" not in getattr(exc, "allowed", "")
        params = None
    if not is_model_spec(spec):
        return  # (a path: load_workload would look for a file of that name)
    try:
        w = load_workload(spec)
    except SchedlabError as exc:
        assert params is None or "load" in params, exc  # parse passed: only the fitted load
        return
    assert params is not None
    assert len(w) == params["jobs"] and w.max_procs == params["procs"]
    check_workload(w)


# -- sweep files ----------------------------------------------------------------------------

VALID_SWEEP = """\
out = "results"
[[workloads]]
model = "lublin:jobs=50,procs=8"
first = 20
[[workloads]]
path = "t.swf"
drop_status = [0, 5]
window = [0, 100]
estimates = {seed = 1}
non_priority = {every = 3, deadline = "a"}
deadlines = "d.csv"
jobs = [0, 3]
[[policies]]
name = "easy"
backfill_order = ["fcfs", "sjf"]
[[policies]]
name = "conservative"
[grid]
load_factor = [0.8, 1.0]
seed = [1, 2]
procs = [8]
kill_on_overrun = [true]
"""

TOML_VALUES = [
    "1",
    "-1",
    "0",
    "99999999999999999999999",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "-0.0",
    "1.5",
    "true",
    '"x"',
    '""',
    '"~nosuchuser_schedlab/x"',
    '"/"',
    '"\\u001b[31m"',
    "[]",
    "[1, 2]",
    "[[1]]",
    "{}",
    "{seed = -1}",
    "{every = 99999999999999999999}",
    '"lublin:jobs=5"',
    '"lublin:jobs=99999999999,procs=8"',
    '"lublin:jobs=5,procs=99999999999999999999"',
    "1979-05-27T07:32:00Z",
    "9" * 5000,
    "[" * 50 + "1" + "]" * 50,
    "[",
    "=",
]


@st.composite
def mutated_sweep(draw: st.DrawFn) -> str:
    """The valid sweep above with values replaced, lines deleted or duplicated."""
    lines = VALID_SWEEP.splitlines()
    for _ in range(draw(st.integers(1, 4))):
        row = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["value", "value", "delete", "duplicate", "junk"]))
        if kind == "value" and " = " in lines[row]:
            key = lines[row].split(" = ")[0]
            lines[row] = f"{key} = {draw(st.sampled_from(TOML_VALUES))}"
        elif kind == "delete":
            del lines[row]
        elif kind == "duplicate":
            lines.insert(row, lines[row])
        else:
            lines.insert(row, draw(st.text(max_size=20)))
        if not lines:
            break
    return "\n".join(lines) + "\n"


def load_sweep_text(folder: Path, text: str) -> None:
    path = folder / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    with contextlib.suppress(SchedlabError):
        load_sweep(path)


@fuzz(200)
@given(text=mutated_sweep())
def test_mutated_sweep_files_load_or_raise_a_schedlab_error(folder: Path, text: str) -> None:
    """Sweep files with junk values (huge ints, ~unknown users, deep arrays, bad specs):
    load_sweep gives a Sweep or a SchedlabError."""
    load_sweep_text(folder, text)


@fuzz(100)
@given(text=st.text(max_size=200))
def test_arbitrary_text_as_a_sweep_file(folder: Path, text: str) -> None:
    """Any text at all: a Sweep or a SchedlabError."""
    load_sweep_text(folder, text)


scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.sampled_from(["t.swf", "d.csv", "easy", "fcfs", "sjf", "a", "lublin:jobs=5,procs=8", "~x"]),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def table(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict with some of `keys` (and now and then another key) mapped to any value."""
    return st.dictionaries(
        st.one_of(st.sampled_from(keys), st.text(max_size=5)), values, max_size=4
    )


workload_tables = st.one_of(
    st.fixed_dictionaries(
        {"model": st.sampled_from(["lublin:jobs=5,procs=8", "lublin:jobs=5"])},
        optional={k: values for k in WORKLOAD_KEYS if k not in ("model", "path")},
    ),
    st.fixed_dictionaries(
        {"path": st.just("t.swf")}, optional={k: values for k in WORKLOAD_KEYS if k != "path"}
    ),
    table(list(WORKLOAD_KEYS)),
)
policy_tables = st.one_of(
    st.fixed_dictionaries(
        {"name": st.sampled_from(["easy", "conservative", "dbf", "pps", "fcfs", "nope"])},
        optional={
            "label": values,
            "backfill_order": values,
            "compress": values,
            "preemption": values,
        },
    ),
    table(["name", "label"]),
)
sweep_data = st.one_of(
    st.fixed_dictionaries(
        {
            "workloads": st.one_of(st.lists(workload_tables, max_size=2), values),
            "policies": st.one_of(st.lists(policy_tables, max_size=2), values),
        },
        optional={
            "grid": st.one_of(
                st.dictionaries(st.sampled_from(list(GRID_KEYS)), values, max_size=4), values
            ),
            "out": values,
            "description": values,
        },
    ),
    table(list(TOP_LEVEL_KEYS)),
)


@fuzz(300)
@given(data=sweep_data)
def test_structured_sweep_data_parses_or_raises_a_schedlab_error(
    folder: Path, data: dict[str, Any]
) -> None:
    """parse_sweep on any shape of data (what TOML can hold and more): a Sweep or a
    SchedlabError; the runs of a Sweep have JSON-able configurations (their ids work)."""
    try:
        sweep = parse_sweep(data, folder, "fuzz")
    except SchedlabError:
        return
    for run in sweep.runs:
        assert len(run.run_id) == 16
        assert run.procs is None or 1 <= run.procs <= MAX_PROCS
        assert math.isfinite(run.load_factor) and run.load_factor > 0


# -- the command line: one line per error, line numbers intact --------------------------------

GOOD_JOB = "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1"


def _cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", "from schedlab.cli import main; main()", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
    )


def test_cli_prints_each_input_error_as_one_line_with_its_line_number(tmp_path: Path) -> None:
    """`schedlab run` and `schedlab workload info` on bad files: exit code 2, one stderr
    line, and `file.swf:<line>:` printed literally (rich must not read `:100:` as an emoji
    code, nor a control character of the file reach the terminal raw)."""
    cases: list[tuple[Path, int]] = []
    bad_token = tmp_path / "a" / "file.swf"  # a bad token on line 100
    bad_token.parent.mkdir()
    bad_token.write_text(
        "; MaxProcs: 4\n" + (GOOD_JOB + "\n") * 98 + GOOD_JOB.replace(" 10 ", " ten ") + "\n"
    )
    cases.append((bad_token, 100))
    escape = tmp_path / "b" / "file.swf"  # an ANSI escape sequence on line 3
    escape.parent.mkdir()
    escape.write_text(
        "; MaxProcs: 4\n" + GOOD_JOB + "\n" + GOOD_JOB.replace(" 10 ", " 1\x1b[31m0 ") + "\n"
    )
    cases.append((escape, 3))
    huge = tmp_path / "c" / "file.swf"  # a machine size beyond 2**31 - 1 on line 2
    huge.parent.mkdir()
    huge.write_text("; Version: 2.2\n; MaxProcs: 9999999999999999999999999\n" + GOOD_JOB + "\n")
    cases.append((huge, 2))
    job_id = tmp_path / "d" / "file.swf"  # a job id 1e300 on line 1
    job_id.parent.mkdir()
    job_id.write_text("1e300" + GOOD_JOB[1:] + "\n")
    cases.append((job_id, 1))
    runs = [
        (path, line, _cli(*command, str(path)))
        for path, line in cases
        for command in (["run"], ["workload", "info"])
    ]
    for path, line, proc in runs:
        _, stderr = proc.communicate(timeout=120)
        lines = stderr.splitlines()
        assert proc.returncode == 2, (path, stderr)
        assert len(lines) == 1, (path, stderr)
        assert f"file.swf:{line}:" in lines[0], (path, stderr)
        assert "\x1b" not in stderr


def test_cli_rejects_a_machine_size_that_does_not_fit(tmp_path: Path) -> None:
    """`--procs 99999999999999999999` is one line naming the option, exit code 2."""
    path = tmp_path / "ok.swf"
    path.write_text(GOOD_JOB + "\n")
    proc = _cli("run", str(path), "--procs", "99999999999999999999")
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr
    assert len(stderr.splitlines()) == 1, stderr
    assert "procs" in stderr
