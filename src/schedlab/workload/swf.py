"""Read and write the Standard Workload Format (docs/model.md, "Workloads").

An SWF file holds one job per line as 18 whitespace-separated numbers, plus header lines
that start with ';' (`; Key: value`). Field k of a line (1-based) is column k - 1 of
`Workload.fields`, named as in `schedlab.workload.job.SWF_FIELDS`:

====  ===================  ======================================================
SWF   name                 what the engine derives from it
====  ===================  ======================================================
1     job_id               `job_id` of the per-job table
2     submit_time          `submitted_at` (seconds, SWF time origin)
3     wait_time            (kept, unused: the simulation computes its own waits)
4     run_time             `run_time`; jobs with run time <= 0 are skipped
5     allocated_procs      `procs` if > 0 ...
6     avg_cpu_time         (kept)
7     used_memory          (kept)
8     requested_procs      ... else `procs`; jobs with procs <= 0 are skipped
9     requested_time       `requested_time` if > 0, else the run time
10    requested_memory     (kept)
11    status               1 done, 0 failed, 5 cancelled (see `clean_by_status`)
12    user_id              `user`
13    group_id             (kept)
14    executable_id        (kept)
15    queue_id             (kept)
16    partition_id         (kept)
17    preceding_job_id     a dependant: submitted when this earlier job ends ...
18    think_time           ... plus this many seconds (workload/dependencies.py)
====  ===================  ======================================================

Reading is vectorised (one decompression, one pass of the C tokenizer ``_cswf`` over the job
lines, or one `numpy.loadtxt` call, bit-identical and about 10x slower, when that optional
extension was not compiled): a 243k-job trace takes about 0.15 s. Only when that fast path
fails does a slow line-by-line pass run, whose job is to name the first bad line, field and
text in a `WorkloadError`. Text shown in an error is made printable: control characters
appear escaped (``\x1b``, ``\r``), as in repr.

Header lines: a comment line anywhere in the file (``;`` first) is a header line and is kept
in `Workload.header`, in file order. **The first line of a key wins**: the machine size
comes from the first ``MaxProcs`` line (then the first ``MaxNodes`` line), and
`Workload.header_values` / `swf_header_value` give the first value of a key. A ``; MaxProcs:``
comment further down (concatenated traces, notes) therefore never overrides the header at
the top, which describes the machine the jobs ran on.

Moldability (a schedlab extension): SWF has no field for it, so a header line
``; MoldableAmdahlPi: <pi>`` says that every job of the file is moldable under Amdahl's law
with parallel fraction pi in [0, 1] (Lanore and Klein (ComPAS 2013); the `parallel_fraction`
job attribute: run and requested times are those at the job's requested size). `read_swf`
gives every job that attribute when the header has the key (the first line of the key
counts, as above; a value that is not a plain number in [0, 1] is a `WorkloadError` naming
the file, line and key).
`write_swf` writes the line when every job has the same fraction (the header's first such
line is kept if it says that value, else replaced), and removes every such line otherwise:
like deadlines, per-job moldability (different fractions, or some jobs rigid) is not written
to SWF, and a stale line must not make a rigid workload moldable when it is read back.

Ranges: a machine size (``MaxProcs``/``MaxNodes`` header or `max_procs`) is at most
`MAX_PROCS` (2**31 - 1; a larger header value is an error naming its line, overridable with
`max_procs`); a job wider than that is skipped as ``wider_than_machine``, whatever its
width. A job id (field 1) must be an integer of magnitude below 2**53 (exact in float64 and
int64), a submit time (field 2) within +-1e15 s and a run or requested time (fields 4, 9)
at most 1e15 s (`MAX_TIME`, where float64 still resolves 1/8 s: a run time added to a
much later instant would be rounded away), else the line is malformed. A file whose jobs
are all skipped gives a workload with no jobs (and the skip counts), not an error.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
from collections.abc import Sequence

import numpy as np

from schedlab.errors import WorkloadError, printable
from schedlab.inputs import read_input
from schedlab.outputs import write_atomic
from schedlab.workload.cparser import load_c_parser, parser_note_for
from schedlab.workload.job import (
    JOB_ID_EXPECTED,
    MAX_PROCS,
    MAX_TIME,
    N_FIELDS,
    SWF_FIELDS,
    F,
    Workload,
    bad_job_ids,
    check_max_procs,
    derived_procs,
)

__all__ = [
    "MOLDABLE_PI_KEY",
    "moldable_pi_header",
    "parser_note",
    "read_swf",
    "swf_header_value",
    "write_swf",
]

_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
# Bytes that may appear in the job lines of a well-formed file; anything else (letters of
# "nan"/"inf", ';', '_', non-ASCII, ...) sends the file down the validating slow path.
_NUMERIC_BYTES = b"0123456789eE.+- \t\r\n"
# A plain decimal number: what SWF writers produce. No nan/inf, hex or digit separators.
_NUMBER = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
# An integer header value with more digits than this is beyond any machine size (int() of
# thousands of digits is slow, and refused by Python beyond 4300).
_MAX_INT_DIGITS = 30
# Integral values below this print as integers; beyond it float repr is exact and shorter.
_INT_LIMIT = 2.0**62
_MAX_SHOWN = 120
# The header key of the moldability extension (module docstring) and the number it holds.
MOLDABLE_PI_KEY = "MoldableAmdahlPi"
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


# -- reading ---------------------------------------------------------------------------------


def read_swf(path: str | os.PathLike[str], *, max_procs: int | None = None) -> Workload:
    """Read a `.swf` or `.swf.gz` trace into a submit-ordered `Workload` (docs/model.md).

    Gzip is recognised by its magic bytes, whatever the file is called. Machine size:
    `max_procs` if given (1 to `MAX_PROCS`), else the first header `MaxProcs` (if > 0),
    else the first `MaxNodes` (if > 0), else the widest job. Jobs that cannot run (run time
    or procs <= 0, wider than the machine) are counted in `Workload.skipped`, possibly all
    of them; out-of-order submits are sorted (stably).
    Raises `WorkloadError` naming the file, line and field of the first malformed line,
    `ConfigError` for a `max_procs` out of range.
    """
    if max_procs is not None:
        max_procs = check_max_procs(
            max_procs, "max_procs", unset=" (leave it unset to use the header's MaxProcs)"
        )
    name = os.fspath(path)
    where = printable(name)  # the file as errors name it (no raw control characters)
    data = read_bytes(name, where)
    lines, header_at, body = _split_header(data)
    header = [text for _, text in header_at]
    fields = _parse_fast(body)
    if fields is not None and _has_out_of_range(fields):
        fields = None  # the slow pass names the line and field
    if fields is None:
        fields = _parse_slow(where, lines if lines is not None else data.split(b"\n"))
    if fields.shape[0] == 0:
        raise WorkloadError(where, "no jobs (the file has no job lines)")
    if max_procs is None:
        max_procs = _header_machine_size(where, header_at)
    pi = _header_moldable_pi(where, header_at)
    attributes = None if pi is None else {"parallel_fraction": np.full(fields.shape[0], pi)}
    return Workload.from_fields(
        fields,
        max_procs=None if max_procs is None else int(max_procs),
        header=header,
        source=name,
        attributes=attributes,
    )


def read_bytes(name: str, where: str, kind: str = "an SWF file") -> bytes:
    """The content of file `name` (called `where` in errors, a directory is "not `kind`"),
    decompressed when it starts with the gzip magic bytes, without a UTF-8 BOM; regular
    files only, within the input size limit (`schedlab.inputs`)."""
    return read_input(name, kind=kind, where=where)


def _is_comment(line: bytes) -> bool:
    return line.lstrip()[:1] == b";"


def _header_text(line: bytes) -> str:
    """Header line without its ';', one leading space and line end (text is kept as is)."""
    text = line.lstrip()[1:].rstrip(b"\r\n")
    if text[:1] == b" ":
        text = text[1:]
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        return text.decode("latin-1")


def _split_header(data: bytes) -> tuple[list[bytes] | None, list[tuple[int, str]], bytes]:
    """Separate header lines (with 1-based line numbers) from the job lines.

    Headers sit on top in practice: then the job lines are one slice of `data` and no line
    list is built (the first tuple member is None). Comment lines further down cost a split.
    """
    header_at: list[tuple[int, str]] = []
    pos = 0
    lineno = 0
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        line = data[pos:end]
        if _is_comment(line):
            lineno += 1
            header_at.append((lineno, _header_text(line)))
        elif line.strip():
            break
        else:
            lineno += 1
        pos = end + 1
    body = data[pos:]
    if b";" not in body:
        return None, header_at, body
    lines = data.split(b"\n")
    kept: list[bytes] = []
    for number, line in enumerate(lines[lineno:], start=lineno + 1):
        if _is_comment(line):
            header_at.append((number, _header_text(line)))
        else:
            kept.append(line)
    return lines, header_at, b"\n".join(kept)


# The C tokenizer: job lines to float64 rows (in a bytearray), None where loadtxt would fail.
_C_PARSE_JOBS = load_c_parser()


def parser_note() -> str:
    """Which parser reads SWF job lines (for ``schedlab --version``; nothing else says it:
    without the extension reading is slower, never different)."""
    return parser_note_for(_C_PARSE_JOBS is not None)


def _parse_fast(body: bytes) -> np.ndarray | None:
    """Job lines to an (n, 18) array in one C pass; None if anything looks wrong.

    The C tokenizer and `_parse_loadtxt` accept the same bodies and give the same bits
    (tests/unit/test_cswf.py); the tokenizer is about 10x faster.
    """
    if not body or body.isspace():  # (isspace stops at the first job byte; strip would copy)
        return np.empty((0, N_FIELDS))
    if _C_PARSE_JOBS is None:
        return _parse_loadtxt(body)
    values = _C_PARSE_JOBS(body)
    if values is None:
        return None
    return np.frombuffer(values, dtype=np.float64).reshape(-1, N_FIELDS)


def _parse_loadtxt(body: bytes) -> np.ndarray | None:
    """`_parse_fast` without the C extension: numpy's C parser, after the checks that keep
    out what loadtxt would accept and the slow path would not (nan, inf, lone CR, ...)."""
    if body.translate(None, _NUMERIC_BYTES):
        return None
    if b"\r" in body and body.count(b"\r") != body.count(b"\r\n"):
        return None
    try:
        fields = np.loadtxt(io.BytesIO(body), dtype=np.float64, comments=None, ndmin=2)
    except ValueError:
        return None
    if fields.shape[1] != N_FIELDS or not np.isfinite(fields).all():
        return None
    return fields


def _field_name(index: int) -> str:
    """'5 (allocated_procs)' for index 4: the number users see in SWF docs, then our name."""
    if index < N_FIELDS:
        return f"{index + 1} ({SWF_FIELDS[index]})"
    return f"{index + 1} (beyond the 18 SWF fields)"


def _shown(text: bytes | str) -> str:
    """A bad token or line as shown in an error: printable, invalid UTF-8 as \\xNN, short."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="backslashreplace")
    out = printable(text[: _MAX_SHOWN * 4])
    return out if len(out) <= _MAX_SHOWN else out[: _MAX_SHOWN - 3] + "..."


# Time fields and the values they may take (seconds): up to MAX_TIME (1e15 s) float64 still
# resolves 1/8 s; far beyond, a run time added to a submit time would be rounded away.
_SUBMIT, _RUN, _REQUESTED = F["submit_time"], F["run_time"], F["requested_time"]
_TIME_EXPECTED = f"expected at most {MAX_TIME:g} seconds (about 31 million years)"
_SUBMIT_EXPECTED = f"expected a time from {-MAX_TIME:g} to {MAX_TIME:g} seconds"


def _has_out_of_range(fields: np.ndarray) -> bool:
    """True if a job id or a time field of `fields` is outside what `_check_value` allows."""
    if bad_job_ids(fields).size:
        return True
    return bool(
        (np.abs(fields[:, _SUBMIT]) > MAX_TIME).any()
        or (fields[:, _RUN] > MAX_TIME).any()
        or (fields[:, _REQUESTED] > MAX_TIME).any()
    )


def _check_value(name: str, lineno: int, index: int, value: float, token: bytes) -> None:
    """Field rules beyond "a finite number": job ids are integers below 2**53 in magnitude;
    submit times lie within +-MAX_TIME, run and requested times at most MAX_TIME (negative
    values mean unknown and are skipped or replaced by the conventions of docs/model.md,
    "Workloads")."""
    if index == 0:
        if abs(value) < 2.0**53 and value == math.trunc(value):
            return
        expected = JOB_ID_EXPECTED
    elif index == _SUBMIT:
        if abs(value) <= MAX_TIME:
            return
        expected = _SUBMIT_EXPECTED
    elif index in (_RUN, _REQUESTED):
        if value <= MAX_TIME:
            return
        expected = _TIME_EXPECTED
    else:
        return
    raise WorkloadError(name, expected, line=lineno, field=_field_name(index), value=_shown(token))


def _parse_slow(name: str, lines: list[bytes]) -> np.ndarray:
    """Validate every line; raise on the first bad one, else return the parsed rows."""
    rows: list[list[float]] = []
    for lineno, line in enumerate(lines, start=1):
        if _is_comment(line) or not line.strip():
            continue
        tokens = line.split()
        if len(tokens) != N_FIELDS:
            where = min(len(tokens), N_FIELDS)
            found = f"expected {N_FIELDS} fields, found {len(tokens)}"
            shown = line.strip() if len(tokens) < N_FIELDS else tokens[N_FIELDS]
            raise WorkloadError(
                name, found, line=lineno, field=_field_name(where), value=_shown(shown)
            )
        row: list[float] = []
        for index, token in enumerate(tokens):
            if _NUMBER.fullmatch(token) is None:
                raise WorkloadError(
                    name,
                    "expected a number",
                    line=lineno,
                    field=_field_name(index),
                    value=_shown(token),
                )
            value = float(token)
            if not math.isfinite(value):
                raise WorkloadError(
                    name,
                    "expected a finite number",
                    line=lineno,
                    field=_field_name(index),
                    value=_shown(token),
                )
            _check_value(name, lineno, index, value, token)
            row.append(value)
        rows.append(row)
    return np.array(rows, dtype=np.float64).reshape(-1, N_FIELDS)


def _first_entry(
    header_at: Sequence[tuple[int | None, str]], key: str
) -> tuple[int, int | None, str] | None:
    """(position in the header list, line number, value text) of the first `key:` line."""
    for position, (lineno, text) in enumerate(header_at):
        k, sep, value = text.partition(":")
        if sep and k.strip() == key:
            return position, lineno, value.strip()
    return None


def _parse_header_int(text: str) -> int | None:
    """The integer `text` spells, None if it is not one. Huge values are capped at
    10**_MAX_INT_DIGITS (keeping their sign): every such value is out of range anyway."""
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > _MAX_INT_DIGITS:
        return -(10**_MAX_INT_DIGITS) if text.startswith("-") else 10**_MAX_INT_DIGITS
    return int(text)


def _header_int(
    header_at: Sequence[tuple[int | None, str]], key: str, *, name: str | None
) -> tuple[int | None, int | None]:
    """First `key:` header value as an int and its position in the header list.

    Only the first line of a key counts (module docstring). With `name` set, a value that
    is not an integer raises `WorkloadError`; without it (when writing) such a value counts
    as absent.
    """
    entry = _first_entry(header_at, key)
    if entry is None:
        return None, None
    position, lineno, text = entry
    value = _parse_header_int(text)
    if value is None and name is not None:
        raise WorkloadError(
            name,
            "header value is not an integer",
            line=lineno,
            field=key,
            value=_shown(text),
        )
    return value, position


def _header_machine_size(
    name: str | None, header_at: Sequence[tuple[int | None, str]]
) -> int | None:
    """Machine size the header gives: MaxProcs if > 0, else MaxNodes if > 0, else None.

    The first line of each key counts. A value that is not an integer, or a size above
    `MAX_PROCS`, raises `WorkloadError` naming the line and key.
    """
    for key in ("MaxProcs", "MaxNodes"):
        entry = _first_entry(header_at, key)
        if entry is None:
            continue
        _, lineno, text = entry
        value = _parse_header_int(text)
        where = name or "<header>"
        if value is None:
            raise WorkloadError(
                where, "header value is not an integer", line=lineno, field=key, value=_shown(text)
            )
        if value > MAX_PROCS:
            raise WorkloadError(
                where,
                f"machine size above {MAX_PROCS} processors, the largest schedlab simulates "
                "(give the machine size with max_procs, --procs on the command line, to "
                "override the header)",
                line=lineno,
                field=key,
                value=_shown(text),
            )
        if value > 0:
            return value
    return None


def _header_moldable_pi(name: str, header_at: Sequence[tuple[int | None, str]]) -> float | None:
    """Amdahl's pi from the first ``MoldableAmdahlPi`` line, None without one; a value
    that is not a plain number in [0, 1] raises `WorkloadError` naming the line and key."""
    entry = _first_entry(header_at, MOLDABLE_PI_KEY)
    if entry is None:
        return None
    _, lineno, text = entry
    if _PLAIN_NUMBER.fullmatch(text) is not None:
        value = float(text)
        if 0.0 <= value <= 1.0:
            return value
    raise WorkloadError(
        name,
        "expected a parallel fraction (Amdahl's pi) from 0 to 1",
        line=lineno,
        field=MOLDABLE_PI_KEY,
        value=_shown(text),
    )


def moldable_pi_header(pi: float) -> str:
    """The header line (without ';') that makes every job moldable with fraction ``pi``;
    repr is the shortest text that reads back to the same float."""
    return f"{MOLDABLE_PI_KEY}: {float(pi)!r}"


def swf_header_value(workload: Workload, key: str) -> str | None:
    """Value of the first `key:` header line, or None (keys are case-sensitive, as in SWF)."""
    return workload.header_values.get(key)


# -- writing ---------------------------------------------------------------------------------


def write_swf(workload: Workload, path: str | os.PathLike[str]) -> None:
    """Write `workload` as SWF; gzip-compressed (deterministic bytes) if `path` ends in .gz.

    The file is written whole or not at all (a temporary file renamed into place); it
    replaces an existing `path` (the CLI checks first, see `schedlab.outputs`).

    Header lines come first ('; ' + text), then one line per job with its 18 fields:
    integral values as integers, others as the shortest text that reads back to the same
    float, so `read_swf` returns identical fields, header and machine size. If the header
    would not give back `workload.max_procs` (e.g. it was overridden), its `MaxProcs` line
    is replaced, or one is appended. The ``MoldableAmdahlPi`` line is written (or replaced)
    when every job has the same `parallel_fraction`, and removed otherwise (module
    docstring), so the attribute reads back when it can be said in SWF.
    """
    name = os.fspath(path)
    fields = np.asarray(workload.fields, dtype=np.float64).reshape(-1, N_FIELDS)
    header = _header_for(workload, fields, name)
    _check_finite(name, fields, len(header))
    text_parts = [_header_lines(header), _job_lines(fields)]
    data = "".join(text_parts).encode("utf-8")
    if name.lower().endswith(".gz"):
        # Level 5: within 2% of level 6's size on real traces, in 60% of the time.
        data = gzip.compress(data, compresslevel=5, mtime=0)
    try:
        write_atomic(name, data)
    except OSError as exc:
        raise WorkloadError(name, f"cannot write: {exc.strerror or exc}") from None


def _header_for(workload: Workload, fields: np.ndarray, name: str) -> list[str]:
    """The header to write, with MaxProcs and MoldableAmdahlPi fixed up so that reading
    gives `max_procs` and the moldability back (``name``: the output, for errors)."""
    header: list[str] = []
    for text in workload.header:
        header.extend(text.split("\n"))
    at: list[tuple[int | None, str]] = [(None, text) for text in header]
    try:
        implied = _header_machine_size("<header>", at)
    except WorkloadError:  # a malformed MaxProcs/MaxNodes would stop the reader: replace it
        implied = -1
    if implied is None:
        # Mirror Workload.from_fields: the widest runnable job, 1 if there is none.
        procs = derived_procs(fields)
        runnable = (fields[:, F["run_time"]] > 0) & (procs > 0)
        implied = int(procs[runnable].max()) if runnable.any() else 1
    if implied != workload.max_procs:
        line = f"MaxProcs: {workload.max_procs}"
        _, position = _header_int(at, "MaxProcs", name=None)
        if position is None:
            header.append(line)
        else:
            header[position] = line
    return _with_moldability(header, workload, name)


def _with_moldability(header: list[str], workload: Workload, name: str) -> list[str]:
    """``header`` with its ``MoldableAmdahlPi`` line saying the workload's one fraction, or
    with no such line when the jobs have no single fraction (module docstring)."""
    pi = _uniform_fraction(workload, name)
    entry = _first_entry([(None, text) for text in header], MOLDABLE_PI_KEY)
    if pi is None:
        # every line goes: a later one would become the first when read back
        return [text for text in header if _first_entry([(None, text)], MOLDABLE_PI_KEY) is None]
    if entry is None:
        header.append(moldable_pi_header(pi))
    elif _PLAIN_NUMBER.fullmatch(entry[2]) is None or float(entry[2]) != pi:
        header[entry[0]] = moldable_pi_header(pi)  # (a line that says pi already stays as is)
    return header


def _uniform_fraction(workload: Workload, name: str) -> float | None:
    """The `parallel_fraction` every job shares, None if jobs differ, some are rigid (NaN)
    or there are none. A shared value outside [0, 1] cannot be read back: WorkloadError
    naming the output ``name``."""
    values = workload.attributes.get("parallel_fraction")
    if values is None or len(values) == 0:
        return None
    first = float(values[0])
    if math.isnan(first) or not bool(np.all(values == first)):
        return None
    if not 0.0 <= first <= 1.0:
        raise WorkloadError(
            name,
            "cannot write a parallel fraction outside [0, 1]",
            field=MOLDABLE_PI_KEY,
            value=repr(first),
        )
    return first


def _header_lines(header: list[str]) -> str:
    return "".join(f"; {text}\n" if text else ";\n" for text in header)


def _check_finite(name: str, fields: np.ndarray, n_header: int) -> None:
    bad = np.argwhere(~np.isfinite(fields))
    if len(bad):
        row, col = (int(v) for v in bad[0])
        raise WorkloadError(
            name,
            "cannot write a non-finite value",
            line=n_header + row + 1,
            field=_field_name(col),
            value=repr(float(fields[row, col])),
        )


def _job_lines(fields: np.ndarray) -> str:
    """One text line per row; vectorised where it matters (the integral bulk of the data)."""
    if not len(fields):
        return ""
    integral = (
        (fields == np.trunc(fields))
        & (np.abs(fields) < _INT_LIMIT)
        & ~((fields == 0) & np.signbit(fields))
    )
    rows = np.where(integral, fields, 0.0).astype(np.int64).tolist()
    if not integral.all():
        at_row, at_col = np.nonzero(~integral)
        values = fields[at_row, at_col].tolist()
        # Python floats print with the shortest repr that round-trips (e.g. '12.5', '-0.0').
        for i, j, value in zip(at_row.tolist(), at_col.tolist(), values, strict=True):
            rows[i][j] = value
    line = " ".join(["%s"] * N_FIELDS) + "\n"
    return "".join([line % tuple(row) for row in rows])
