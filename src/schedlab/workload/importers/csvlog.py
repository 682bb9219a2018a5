"""Job logs as CSV with named columns: any export a site can make (a database query, a
spreadsheet, schedlab's own ``--jobs-out`` table).

The first line names the columns (separated by ``,``, or ``;`` or tabs when the header
holds no comma). Which column holds what is told by ``--columns KEY=COLUMN,...`` (or
``csv:PATH?KEY=COLUMN,...``, see `importers`); a column named like a key (any case, or one
of the alternative names below) is taken without being told. Keys and their SWF fields:

================  ===========================================  ==========================
key               also found as                                SWF field
================  ===========================================  ==========================
job_id            jobid, id                                    1 (else new ids 1, 2, ...)
submit            submit_time, submitted_at                    2 (required)
start             start_time, started_at                       3 wait = start - submit
end               end_time, finished_at                        4 run = end - start
wait              wait_time                                    3 (if no start)
run               run_time                                     4 (required, or start+end)
procs             allocated_procs                              5
requested_procs   -                                            8 (procs or this required)
requested_time    -                                            9
avg_cpu_time      -                                            6
used_memory       -                                            7 (KB per processor)
requested_memory  -                                            10 (KB per processor)
status            -                                            11
user, group       user_id, group_id                            12, 13
executable        executable_id                                14
queue             queue_id                                     15
partition         partition_id                                 16
nodes             req_nodes, nnodes                            attribute ``req_nodes``
cores_per_node    req_cores_per_node                           ``req_cores_per_node``
gpus              -                                            ``req_gpus_per_node`` (*)
gpus_per_node     req_gpus_per_node                            ``req_gpus_per_node``
mem               -                                            ``req_mem_per_node`` (*)
mem_per_node      req_mem_per_node                             ``req_mem_per_node``
mem_per_core      mem_per_cpu                                  ``req_mem_per_node`` (*)
exclusive         -                                            ``exclusive``
================  ===========================================  ==========================

**Resources asked for** (the workload attributes of `common`; docs/importers.md): ``nodes``
and the per-node keys are taken as they are; (*) ``gpus`` and ``mem`` are the job's totals,
shared out over its ``nodes`` (GPUs rounded up; without a node count they are not used, and
a note counts such jobs), ``mem_per_core`` is multiplied by the cores per node. A per-node
key wins over the total. Without ``cores_per_node``, the cores per node are
``requested_procs`` (else ``procs``) over ``nodes``, rounded up. GPU and node counts are
whole numbers (``0`` nodes or cores: unknown; ``0`` GPUs: none). Memory is MiB as a plain
number, or a number with a unit ``K``, ``M``, ``G``, ``T`` or ``P`` (also ``KB``/``KiB``,
..., all 1024-based; ``B`` bytes): ``64G``, ``4000M``, ``1.5T``; ``0``: unknown.
``exclusive`` is ``1``/``0``, ``true``/``false`` or ``yes``/``no``. Columns named ``nodes``,
``gpus``, ``mem`` or ``exclusive`` are taken without ``--columns``, like the others.

Values: times (submit, start, end) are epoch seconds, plain seconds or dates
(``2024-03-01T12:00:00``, ``2024-03-01 12:00``, with an optional zone; no zone: UTC);
durations are seconds or ``[D-]HH:MM:SS``; counts are numbers. A status is an SWF code
(1 done, 0 failed, 5 cancelled, ...) or a word: ``completed``/``done``, ``failed``,
``cancelled``/``canceled`` or a Slurm state (whose records still running are skipped as
``not_finished``, see `importers.slurm`). Names (user, group, executable, queue,
partition) are kept as numbers when every value of the column is a whole number, else
numbered in order of first appearance. Empty cells, ``NA``, ``None``, ``Unknown`` and
negative numbers mean unknown (-1 in SWF).

**Refused** (one error naming the file, line and column; bounds in `common`): a column
this reader reads named twice in the header, a processor, node or GPU count that is not
a whole number (``4.5``; ``4.0`` is 4) or beyond 2**31 - 1, a status that is not a whole number
of magnitude below 2**31, a job id of 2**53 or more, non-ASCII digits, infinite numbers
(``1e400``), times beyond 5e14 s from 1970, durations beyond 1e15 s, memory beyond 2**53
KB (a node's memory too), and a value over 131,072 characters (`MAX_CELL`) in a column
this reader reads (cells of other columns may be longer: a job script, a comment). A
quoted value may span lines; a record's errors name the line it starts on.
"""

from __future__ import annotations

import csv
import os
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from schedlab.errors import ConfigError, WorkloadError, printable
from schedlab.workload.importers.common import (
    COUNT_EXPECTED,
    MAX_MEMORY_MIB,
    MEMORY_EXPECTED,
    Job,
    JobLog,
    Numbering,
    OutOfRange,
    Request,
    checked_memory,
    is_unknown,
    listed,
    parse_duration,
    parse_field,
    parse_instant,
    parse_job_id,
    per_node,
    read_text,
    shown,
    split_lines,
)
from schedlab.workload.importers.slurm import SLURM_SKIPPED, SLURM_STATUS, slurm_state
from schedlab.workload.job import MAX_PROCS, MAX_TIME, Workload

__all__ = ["COLUMN_KEYS", "MAX_CELL", "parse_columns", "read_csv_log"]

# key -> the header names (lower case) taken for it without --columns.
COLUMN_KEYS: dict[str, tuple[str, ...]] = {
    "job_id": ("job_id", "jobid", "id"),
    "submit": ("submit", "submit_time", "submitted_at"),
    "start": ("start", "start_time", "started_at"),
    "end": ("end", "end_time", "finished_at"),
    "wait": ("wait", "wait_time"),
    "run": ("run", "run_time"),
    "procs": ("procs", "allocated_procs"),
    "requested_procs": ("requested_procs",),
    "requested_time": ("requested_time",),
    "avg_cpu_time": ("avg_cpu_time",),
    "used_memory": ("used_memory",),
    "requested_memory": ("requested_memory",),
    "status": ("status",),
    "user": ("user", "user_id"),
    "group": ("group", "group_id"),
    "executable": ("executable", "executable_id"),
    "queue": ("queue", "queue_id"),
    "partition": ("partition", "partition_id"),
    "nodes": ("nodes", "req_nodes", "nnodes"),
    "cores_per_node": ("cores_per_node", "req_cores_per_node"),
    "gpus": ("gpus",),
    "gpus_per_node": ("gpus_per_node", "req_gpus_per_node"),
    "mem": ("mem",),
    "mem_per_node": ("mem_per_node", "req_mem_per_node"),
    "mem_per_core": ("mem_per_core", "mem_per_cpu"),
    "exclusive": ("exclusive",),
}
_NAME_KEYS = ("user", "group", "executable", "queue", "partition")
# The keys of what a job asks of the nodes (module docstring).
_RESOURCE_KEYS = frozenset(
    (
        "nodes",
        "cores_per_node",
        "gpus",
        "gpus_per_node",
        "mem",
        "mem_per_node",
        "mem_per_core",
        "exclusive",
    )
)
_STATUS_WORDS = {
    "done": 1,
    "completed": 1,
    "success": 1,
    "failed": 0,
    "cancelled": 5,
    "canceled": 5,
}
# (re.ASCII: digits are 0-9 only; Python's \d takes every script's digits)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_WHOLE = re.compile(r"\d+", re.ASCII)
_NEGATIVE = re.compile(r"-\d+", re.ASCII)  # SWF's -1: unknown
_SIZE = re.compile(
    r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?) ?([KMGTP]?)(I?B)?", re.ASCII | re.IGNORECASE
)
_SIZE_MIB = {"": 1.0, "K": 1.0 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0**2, "P": 1024.0**3}
_FLAGS = {"1": 1.0, "0": 0.0, "true": 1.0, "false": 0.0, "yes": 1.0, "no": 0.0}
_NAIVE_DATE = re.compile(r"\d{4}-\d\d-\d\d(?:[T ][\d:.]+)?", re.ASCII)
# Names of a column whose values are all whole numbers of at most this many digits are
# kept as numbers (exact in float64); longer ones are numbered like any name.
_NAME_DIGITS = 15
# Characters a value of a column read here may hold: the csv module's own default limit.
MAX_CELL = 131072
# The csv module's limit while reading (cells of unread columns may be longer; a file is
# at most the input size limit anyway); restored after.
_FIELD_LIMIT = 2**31 - 1
_STATUS_LIMIT = 2**31
_COLUMNS_USAGE = "KEY=COLUMN,... with KEY one of " + ", ".join(COLUMN_KEYS)


def parse_columns(text: str, option: str = "--columns") -> dict[str, str]:
    """``"submit=Submitted,run=Elapsed"`` -> ``{"submit": "Submitted", "run": "Elapsed"}``;
    ConfigError naming ``option`` for an unknown key, a key given twice or no ``=``."""
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, column = item.partition("=")
        key, column = key.strip().lower(), column.strip()
        if not sep or not column:
            raise ConfigError(option, text, _COLUMNS_USAGE)
        if key not in COLUMN_KEYS:
            raise ConfigError(f"{option} key", key, list(COLUMN_KEYS))
        if key in out:
            raise ConfigError(f"{option} key", key, "each key once")
        out[key] = column
    if not out:
        raise ConfigError(option, text, _COLUMNS_USAGE)
    return out


def read_csv_log(
    path: str | os.PathLike[str],
    *,
    columns: Mapping[str, str] | None = None,
    max_procs: int | None = None,
) -> tuple[Workload, list[str]]:
    """Read a CSV job log (module docstring) into a `Workload`, with the notes worth telling
    the user. ``columns`` maps keys to the header's column names (`parse_columns`).
    ``WorkloadError`` names the file, line and column of the first unreadable value."""
    name = os.fspath(path)
    where = printable(name)
    lines = split_lines(read_text(name, where))
    at = next((i for i, line in enumerate(lines) if line.strip()), None)
    if at is None:
        raise WorkloadError(where, "no jobs (the file is empty)")
    delimiter = _delimiter(lines[at])
    records = _records(where, lines, at, delimiter)
    names = [n.strip() for n in records[0][1]]
    index = _column_index(where, at + 1, lines[at], names, columns or {})
    log = JobLog(where, "CSV job log")
    rows = [row for _, row in records[1:]]
    numeric = {key: _all_whole(rows, index.get(key), len(names)) for key in _NAME_KEYS}
    naive = False
    for lineno, row in records[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(names):
            raise WorkloadError(
                where,
                f"expected {len(names)} values as in the header line, found {len(row)}",
                line=lineno,
                value=shown(delimiter.join(row)),
            )
        log.records += 1
        naive = _read_row(log, _Row(where, lineno, names, index, row), numeric) or naive
    if naive:
        log.notes.append("dates without a zone were read as UTC")
    return log.build(source=name, max_procs=max_procs)


def _records(where: str, lines: list[str], at: int, delimiter: str) -> list[tuple[int, list[str]]]:
    """(line it starts on, values) of every record from line ``at + 1`` (the header): a
    quoted value may span lines, so a record's line is counted, not its position."""
    reader = csv.reader((line + "\n" for line in lines[at:]), delimiter=delimiter)
    records: list[tuple[int, list[str]]] = []
    first = at + 1
    limit = csv.field_size_limit(_FIELD_LIMIT)
    try:
        for cells in reader:
            records.append((first, cells))
            first = at + reader.line_num + 1
    except csv.Error as exc:
        why = str(exc)
        if "new-line" in why:  # a lone \r inside a line
            why = "a carriage return (\\r) inside a value that is not quoted"
        raise WorkloadError(
            where, f"cannot read this CSV record: {printable(why)}", line=first
        ) from None
    finally:
        csv.field_size_limit(limit)
    return records


@dataclass(frozen=True)
class _Row:
    """One line of the CSV, with what its errors name."""

    where: str
    lineno: int
    names: list[str]
    index: dict[str, int]
    cells: list[str]

    def cell(self, key: str) -> str | None:
        """The value of column ``key`` (None without one); `MAX_CELL` characters at most."""
        if key not in self.index:
            return None
        text = self.cells[self.index[key]]
        if len(text) > MAX_CELL:
            limit = f"a value of at most {MAX_CELL:,} characters (this one has {len(text):,})"
            raise self.error(key, limit, text)
        return text.strip()

    def field(self, key: str) -> str:
        """How errors name column ``key``: the key and the CSV column it reads."""
        if key not in self.index:
            return key
        return f"{key} (column {shown(self.names[self.index[key]])})"

    def error(self, key: str, expected: str, text: str) -> WorkloadError:
        return WorkloadError(
            self.where,
            f"expected {expected}",
            line=self.lineno,
            field=self.field(key),
            value=shown(text),
        )

    def value(self, key: str, parse: Callable[[str], float | None], expected: str) -> float | None:
        """Column ``key`` through ``parse``; None if the column is absent or unknown."""
        return parse_field(
            self.cell(key),
            parse,
            expected,
            where=self.where,
            line=self.lineno,
            field=self.field(key),
        )


def _read_row(log: JobLog, row: _Row, numeric: dict[str, bool]) -> bool:
    """Add the job of ``row`` to ``log`` (or count it skipped); True if it holds a date
    without a zone."""
    job_id = row.value("job_id", _job_id, "a whole number")
    if job_id is not None:
        log.saw_id(int(job_id))
    status = _status(row)
    if isinstance(status, str):  # a state whose records are skipped (still running, ...)
        log.skip(status)
        return False
    when = "epoch seconds or a date such as 2024-03-01T12:00:00"
    submit, start, end = (row.value(k, parse_instant, when) for k in ("submit", "start", "end"))
    naive = any(
        _NAIVE_DATE.fullmatch(row.cell(k) or "") is not None for k in ("submit", "start", "end")
    )
    lasting = "seconds or a duration [D-]HH:MM:SS"
    wait = row.value("wait", _duration, lasting)
    if start is None and wait is not None and submit is not None:
        start = submit + wait
    run = row.value("run", _duration, lasting)
    if run is None and start is not None and end is not None:
        run = end - start
    numbers = {key: row.value(key, _count, COUNT_EXPECTED) for key in ("procs", "requested_procs")}
    numbers.update(
        (key, row.value(key, _memory, "a number (KB per processor)"))
        for key in ("used_memory", "requested_memory")
    )

    def name(key: str, numbering: Numbering) -> int:
        text = row.cell(key)
        if text is None or is_unknown(text) or _NEGATIVE.fullmatch(text):
            return -1
        return int(text) if numeric[key] else numbering(text)

    job = Job(
        job_id=None if job_id is None else int(job_id),
        submit=submit,
        start=start,
        run=run,
        procs=numbers["procs"],
        requested_procs=numbers["requested_procs"],
        requested_time=row.value("requested_time", _duration, lasting),
        avg_cpu_time=row.value("avg_cpu_time", _duration, lasting),
        used_memory=numbers["used_memory"],
        requested_memory=numbers["requested_memory"],
        status=status,
        user=name("user", log.users),
        group=name("group", log.groups),
        executable=name("executable", log.executables),
        queue=name("queue", log.queues),
        partition=name("partition", log.partitions),
        line=row.lineno,
    )
    # (after the SWF fields and their errors)
    job.request = _request(row, numbers["requested_procs"] or numbers["procs"])
    log.jobs.append(job)
    return naive


def _request(row: _Row, procs: float | None) -> Request | None:
    """What the row's job asks of the nodes (module docstring); None without any of the
    resource columns."""
    if not _RESOURCE_KEYS & row.index.keys():
        return None
    whole, memory = "a whole number", "a memory size such as 64G or 4000 (MiB)"
    nodes = row.value("nodes", _count, whole) or None
    cores = row.value("cores_per_node", _count, whole) or None
    if cores is None:
        cores = per_node(procs, nodes, whole=True)
    gpus = row.value("gpus_per_node", _count, whole)
    total_gpus = row.value("gpus", _count, whole)
    if gpus is None:
        gpus = per_node(total_gpus, nodes, whole=True)
    mem = row.value("mem_per_node", _mem_mib, memory)
    per_core = row.value("mem_per_core", _mem_mib, memory)
    total_mem = row.value("mem", _mem_mib, memory)
    if mem is None and per_core is not None and cores is not None:
        mem = per_core * cores
        if not mem <= MAX_MEMORY_MIB:
            raise row.error(
                "mem_per_core",
                f"{MEMORY_EXPECTED} per node (here x {cores:.0f} cores per node)",
                row.cell("mem_per_core") or "",
            )
    if mem is None:
        mem = per_node(total_mem, nodes, whole=False)
    unplaced = []
    if nodes is None and gpus is None and total_gpus:
        unplaced.append("GPUs")
    if nodes is None and mem is None and total_mem is not None:
        unplaced.append("memory")
    return Request(
        nodes=nodes,
        cores_per_node=cores,
        mem_per_node=mem,
        gpus_per_node=gpus,
        exclusive=row.value("exclusive", _flag, "1/0, true/false or yes/no"),
        unplaced=tuple(unplaced),
    )


def _delimiter(header: str) -> str:
    if "," in header:
        return ","
    if "\t" in header:
        return "\t"
    return ";" if ";" in header else ","


def _column_index(
    where: str, lineno: int, line: str, names: list[str], columns: Mapping[str, str]
) -> dict[str, int]:
    """Key -> column position: ``columns`` first, then the header's own names. A column
    named twice (any case) is refused when it is read: which one holds the value?"""
    lower = {n.lower(): i for i, n in reversed(list(enumerate(names)))}
    times = Counter(n.lower() for n in names)

    def position(column: str) -> int:
        if times[column.lower()] > 1:
            raise WorkloadError(
                where,
                f"column {shown(column)!r} appears {times[column.lower()]} times in the "
                "header: which one holds the value? Keep one, or rename the others",
                line=lineno,
                field="header",
                value=shown(line),
            )
        return lower[column.lower()]

    index: dict[str, int] = {}
    for key, column in columns.items():
        if column.lower() not in lower:
            raise WorkloadError(
                where,
                f"no column {shown(column)!r} (given as {key}=) in the header; it has "
                + listed(names),
                line=lineno,
                field="header",
                value=shown(line),
            )
        index[key] = position(column)
    taken = set(index.values())
    for key, aliases in COLUMN_KEYS.items():
        if key in index:
            continue
        for alias in aliases:
            if alias in lower and lower[alias] not in taken:
                index[key] = position(alias)
                break
    missing = [
        label
        for label, ok in (
            ("submit", "submit" in index),
            ("run (or start and end)", "run" in index or {"start", "end"} <= index.keys()),
            ("procs (or requested_procs)", "procs" in index or "requested_procs" in index),
        )
        if not ok
    ]
    if missing:
        raise WorkloadError(
            where,
            f"no column for {', '.join(missing)}: name them with --columns "
            f"(or csv:PATH?KEY=COLUMN,...), e.g. --columns submit=Submitted,run=Elapsed,"
            f"procs=CPUs; the header has " + listed(names),
            line=lineno,
            field="header",
            value=shown(line),
        )
    return index


def _duration(text: str) -> float | None:
    """Seconds (negative: unknown) or a duration; OutOfRange beyond `MAX_TIME`."""
    if _NUMBER.fullmatch(text):
        seconds = float(text)
        if seconds < 0:
            return None
        if not seconds <= MAX_TIME:
            raise OutOfRange(f"a duration of at most {MAX_TIME:g} s (about 31 million years)")
        return seconds
    return parse_duration(text)


def _amount(text: str) -> float | None:
    """A finite number (negative: unknown)."""
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    number = float(text)
    if number < 0:
        return None
    if number == float("inf"):
        raise OutOfRange("a finite number")
    return number


def _count(text: str) -> float | None:
    """Processors: a whole number up to `MAX_PROCS` (``4.0`` is 4, ``4.5`` refused, as
    the Slurm reader refuses it; negative: unknown)."""
    number = _amount(text)
    if number is None:
        return None
    if number != int(number):
        raise ValueError(text)
    if number > MAX_PROCS:
        raise OutOfRange(COUNT_EXPECTED)
    return number


def _memory(text: str) -> float | None:
    number = _amount(text)
    return None if number is None else checked_memory(number)


def _mem_mib(text: str) -> float | None:
    """MiB of a memory size (module docstring); None for 0 or a negative number."""
    m = _SIZE.fullmatch(text)
    if m is None:
        raise ValueError(text)
    prefix, suffix = m[2].upper(), (m[3] or "").upper()
    if not prefix and suffix == "IB":  # ("64iB")
        raise ValueError(text)
    number = float(m[1])
    if number <= 0:
        return None
    mib = number * (_SIZE_MIB[prefix] if prefix or not suffix else 1.0 / 1024**2)  # (B: bytes)
    return checked_memory(mib * 1024.0) / 1024.0


def _flag(text: str) -> float | None:
    """1.0 or 0.0 of an ``exclusive`` cell; None for a negative number (unknown)."""
    word = text.lower()
    if word in _FLAGS:
        return _FLAGS[word]
    number = _amount(text)
    if number is None or number in (0.0, 1.0):
        return number
    raise ValueError(text)


def _job_id(text: str) -> float:
    return float(parse_job_id(text))


def _status(row: _Row) -> int | str:
    """SWF status of the row's status cell (-1 unknown), or the reason to skip its record."""
    text = row.cell("status")
    if text is None or is_unknown(text):
        return -1
    if _NUMBER.fullmatch(text):
        code = float(text)
        if abs(code) < _STATUS_LIMIT and code == int(code):
            return int(code)
        raise row.error("status", "a whole status code of magnitude below 2**31", text)
    word = text.lower()
    if word in _STATUS_WORDS:
        return _STATUS_WORDS[word]
    state = slurm_state(text)
    if state in SLURM_STATUS:
        return SLURM_STATUS[state]
    if state in SLURM_SKIPPED:
        return SLURM_SKIPPED[state]
    raise row.error(
        "status", "an SWF status code, completed, failed, cancelled or a Slurm state", text
    )


def _all_whole(rows: list[list[str]], column: int | None, width: int) -> bool:
    """True when every known value of ``column`` is a whole number (names kept as is)."""
    if column is None:
        return False
    cells = (row[column].strip() for row in rows if len(row) == width)
    return all(
        (_WHOLE.fullmatch(c) and len(c) <= _NAME_DIGITS) or _NEGATIVE.fullmatch(c) or is_unknown(c)
        for c in cells
    )
