"""What the log importers share: reading a (gzipped) text file, times and durations as
logs write them, names numbered as SWF numbers them, and the step from parsed jobs to a
`Workload` exactly as `read_swf` builds one.

Every importer turns each record of its log into a `Job` (absolute times, in seconds) or
counts it in a skip reason; `JobLog.build` then does what the SWF format implies:

* **Time origin.** Submit times become seconds since the earliest submit (rounded down to
  a whole second), as in the Parallel Workloads Archive; that instant is written in a
  ``UnixStartTime`` header line. Dates without a time zone are read as UTC (logs do not
  say their zone; only differences matter to a simulation).
* **Fields.** wait (3) = start - submit when both are known; run (4) from the log's
  elapsed time, else end - start; average CPU time (6), used memory (7, KB per processor)
  and requested memory (10, KB per processor) when the log has them; the rest -1
  (unknown). Jobs without a submit time cannot be placed in time and are skipped as
  ``no_submit_time``.
* **Names.** Users (12), groups (13), job names (14, the "executable"), queues (15) and
  partitions (16) are numbered 1, 2, ... in order of first appearance. Queue and
  partition names are kept in ``Queue: <n> <name>`` and ``Partition: <n> <name>`` header
  lines, as the archive writes them; user and group names are not kept (the archive
  anonymises them too).
* **Job ids.** The log's own integer id when it has one; jobs without one (array tasks
  whose raw id the log does not give) get ids above the largest id of any record of the
  log, in file order.
* **Machine size.** ``max_procs`` when given (``--procs``); else the peak of processors
  allocated at one instant in the log (start to start + run; at least the widest job),
  said in a ``Note:`` header line and returned as a note; the widest job when the log has
  no start times. The peak is a lower bound of the real machine: give it when known.
* **Skipped records** are counted by reason in `Workload.skipped`, next to the SWF
  reasons (run time or processors <= 0, wider than the machine) that
  `Workload.from_fields` applies to the jobs.

What a log may hold is bounded where it is read, so that the simulation clock stays where
float64 resolves it (`MAX_TIME`, 1e15 s) and nothing overflows; a value beyond a bound is
a `WorkloadError` naming the file, line and field, never a skipped job or a traceback:

* **Lines** end at ``\n`` only (a ``\r`` before it is dropped): a form feed, a vertical
  tab, ``\x1c``-``\x1e``, U+0085, U+2028 or U+2029 inside a value is part of the value
  (`split_lines`), so it neither splits a record nor shifts the line numbers.
* **Digits** are ASCII: ``٣`` or ``²`` is not a number (Python's `int` would take ``٣``).
* **Instants** (dates, epoch seconds) lie within `MAX_INSTANT` (5e14 s, 15 million years)
  of 1970, so any difference of two (a submit time from the log's first, a wait, End -
  Start) stays within `MAX_TIME`; time-zone offsets are below 24 hours, minutes below 60.
* **Durations** (run, requested and CPU times) are at most `MAX_TIME` seconds.
* **Counts** of processors, nodes or GPUs are whole numbers up to `MAX_PROCS` (2**31 - 1);
  **job ids** whole numbers below 2**53 (`JOB_ID_LIMIT`, what float64 holds exactly);
  **memory** sizes at most `MAX_MEMORY_KB` (2**53 KB, 8 EiB; `MAX_MEMORY_MIB` per node).
* `JobLog.build` checks the SWF times it writes once more (submit, wait, run and
  requested time within `MAX_TIME`), naming the record's line, whatever path made them.

**Resources asked for** (`Request`, docs/importers.md): what a job asks of the nodes
becomes the workload attributes ``req_nodes``, ``req_cores_per_node``,
``req_mem_per_node`` (MiB), ``req_gpus_per_node`` and ``exclusive`` (`job.ATTRIBUTES`),
NaN where the log does not say; SWF fields 5/8 and 10 stay as they are. Totals are shared
out over the nodes (`per_node`): memory exactly, counts rounded up (a job of 10 CPUs on 3
nodes needs 4 on its busiest node). A job without a node count has no per-node values
from totals (its GPUs or memory are then counted in a note): it is a plain processor
request. A log none of whose jobs says anything of its resources gives a workload without
these attributes, as an SWF trace does.
"""

from __future__ import annotations

import calendar
import math
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TypeVar

import numpy as np

from schedlab.errors import WorkloadError, printable
from schedlab.workload.job import (
    JOB_ID_LIMIT,
    MAX_PROCS,
    MAX_TIME,
    N_FIELDS,
    F,
    Workload,
    derived_procs,
)
from schedlab.workload.partitions import peak_in_use

__all__ = [
    "COUNT_EXPECTED",
    "MAX_INSTANT",
    "MAX_MEMORY_KB",
    "MAX_MEMORY_MIB",
    "REQUEST_ATTRIBUTES",
    "UNKNOWN_WORDS",
    "Job",
    "JobLog",
    "Numbering",
    "OutOfRange",
    "Request",
    "checked_memory",
    "is_unknown",
    "listed",
    "parse_count",
    "parse_duration",
    "parse_field",
    "parse_instant",
    "parse_job_id",
    "per_node",
    "read_text",
    "shown",
    "split_lines",
    "whole_number",
]

_MAX_SHOWN = 120
# Values meaning "not known" in the logs (sacct prints Unknown/None, CSV exports NA or "").
UNKNOWN_WORDS = frozenset({"", "unknown", "none", "na", "n/a", "null", "-"})
# Instants (s since 1970) a log may hold: any two differ by at most MAX_TIME (docstring).
MAX_INSTANT = MAX_TIME / 2
# Memory sizes (KB): 2**53 KB = 8 EiB, beyond any machine, exact in float64.
MAX_MEMORY_KB = float(2**53)
MAX_MEMORY_MIB = MAX_MEMORY_KB / 1024.0  # the same bound for a node's memory in MiB
MEMORY_EXPECTED = "a memory size of at most 2**53 KB (8 EiB)"
COUNT_EXPECTED = f"a whole number from 0 to {MAX_PROCS}"
# A whole number with more digits is beyond every bound above (and int() of thousands of
# digits is slow, refused by Python beyond 4300).
_MAX_DIGITS = 20
# (re.ASCII: \d is 0-9 only, \s ASCII white space; Python's \d takes every script's digits)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_WHOLE = re.compile(r"\d+", re.ASCII)
_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?"
    r"(Z|[+-]\d\d(?::?\d\d)?)?",
    re.ASCII,
)
_DURATION = re.compile(r"(?:(\d+)-)?(\d+(?::\d+){0,2}(?:\.\d+)?)", re.ASCII)
_INSTANT_RANGE = f"within {MAX_INSTANT:g} s (15 million years) of 1970"
_DURATION_RANGE = f"a duration of at most {MAX_TIME:g} s (about 31 million years)"


class OutOfRange(ValueError):
    """A value read as a number that is beyond what the field allows: `parse_field`
    words the error with ``expected`` (the bound) instead of the format it expected."""

    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, cut at ``\\n`` only, a ``\\r`` before it dropped.

    Not `str.splitlines`: it also cuts at form feeds, ``\\v``, ``\\x1c``-``\\x1e``,
    U+0085, U+2028 and U+2029, which a job name or a CSV cell may hold; each would split
    a record in two and shift every later line number."""
    lines = text.split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def listed(names: list[str], limit: int = 200) -> str:
    """Names quoted and joined for a message, cut at about ``limit`` characters."""
    out = ", ".join(repr(shown(n)) for n in names[:50])
    if len(out) > limit or len(names) > 50:
        out = out[:limit] + f"... ({len(names)} in all)"
    return out


def whole_number(text: str) -> int:
    """The value of ASCII digits ``text`` (ValueError otherwise, or beyond 20 digits: no
    bound of the importers is that large)."""
    if not _WHOLE.fullmatch(text) or len(text.lstrip("0")) > _MAX_DIGITS:
        raise ValueError(text)
    return int(text)


def parse_count(text: str) -> float:
    """A count of processors or nodes: ASCII digits, at most `MAX_PROCS`."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(text)
    if len(text.lstrip("0")) > _MAX_DIGITS or int(text) > MAX_PROCS:
        raise OutOfRange(COUNT_EXPECTED)
    return float(text)


def parse_job_id(text: str) -> int:
    """A job id: ASCII digits below 2**53 (`JOB_ID_LIMIT`; SWF's fields are float64)."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(text)
    if len(text.lstrip("0")) > _MAX_DIGITS or int(text) >= JOB_ID_LIMIT:
        raise OutOfRange(f"a job id below 2**53 ({JOB_ID_LIMIT})")
    return int(text)


def checked_memory(kb: float) -> float:
    """``kb`` if a memory size up to `MAX_MEMORY_KB`, else OutOfRange."""
    if not kb <= MAX_MEMORY_KB:  # (NaN too)
        raise OutOfRange(MEMORY_EXPECTED)
    return kb


def per_node(total: float | None, nodes: float | None, *, whole: bool) -> float | None:
    """``total`` (CPUs, GPUs: ``whole``; memory) shared out over ``nodes``: a count is
    rounded up (the busiest node's share), memory is divided exactly. None when either
    is unknown or there are no nodes."""
    if total is None or not nodes:
        return None
    if whole:
        return float(-(-int(total) // int(nodes)))
    return total / nodes


def _non_ascii_digit(text: str) -> bool:
    return any(not c.isascii() and unicodedata.category(c) == "Nd" for c in text)


def read_text(path: str, where: str) -> str:
    """The text of file ``path`` (named ``where`` in errors), gunzipped when it starts
    with the gzip magic bytes; invalid UTF-8 is replaced, a BOM dropped."""
    from schedlab.workload.swf import read_bytes

    return read_bytes(path, where, kind="a log file").decode("utf-8", errors="replace")


def shown(text: str) -> str:
    """A value as an error shows it: printable and at most a line long."""
    out = printable(text[: _MAX_SHOWN * 4])
    return out if len(out) <= _MAX_SHOWN else out[: _MAX_SHOWN - 3] + "..."


def is_unknown(text: str) -> bool:
    return text.strip().lower() in UNKNOWN_WORDS


_T = TypeVar("_T")


def parse_field(
    text: str | None,
    parse: Callable[[str], _T | None],
    expected: str,
    *,
    where: str,
    line: int,
    field: str,
) -> _T | None:
    """A field of a log record through ``parse`` (a number, or what a field such as a
    TRES list holds): None if absent or unknown; text that ``parse`` refuses is a
    WorkloadError naming the file, line and field."""
    if text is None or is_unknown(text):
        return None
    try:
        return parse(text)
    except OutOfRange as exc:
        expected = exc.expected
    except ValueError:
        if _non_ascii_digit(text):
            expected = f"{expected} (ASCII digits 0-9 only)"
    raise WorkloadError(where, f"expected {expected}", line=line, field=field, value=shown(text))


def parse_instant(text: str) -> float | None:
    """Seconds since the Unix epoch of a date (``2024-03-01T12:00:00``, a space instead of
    the T, optional seconds, fraction and zone ``Z``/``+01:00``; no zone: UTC) or a plain
    number of seconds; None for an unknown value (`UNKNOWN_WORDS`). ValueError otherwise;
    OutOfRange beyond `MAX_INSTANT` or for a zone offset of 24 hours or more."""
    t = text.strip()
    if t.lower() in UNKNOWN_WORDS:
        return None
    if _NUMBER.fullmatch(t):
        value = float(t)
        if not abs(value) <= MAX_INSTANT:  # (inf too)
            raise OutOfRange(f"epoch seconds {_INSTANT_RANGE}")
        return value
    m = _ISO.fullmatch(t)
    if m is None:
        raise ValueError(t)
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    hour, minute, second = int(m[4] or 0), int(m[5] or 0), int(m[6] or 0)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        raise ValueError(t)
    try:
        seconds = calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))
    except (OverflowError, ValueError):
        raise ValueError(t) from None
    if day > calendar.monthrange(year, month)[1]:
        raise ValueError(t)
    offset = 0
    zone = m[8]
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours >= 24 or minutes >= 60:
            raise OutOfRange("a time-zone offset such as +01:00 (below 24 hours, minutes 0-59)")
        offset = hours * 3600 + minutes * 60
        offset = offset if zone[0] == "+" else -offset
    value = seconds + float(m[7] or 0.0) - offset
    if not abs(value) <= MAX_INSTANT:  # (years 0000-9999 all are; kept for safety)
        raise OutOfRange(f"a date {_INSTANT_RANGE}")
    return value


def parse_duration(text: str, *, bare: float = 1.0) -> float:
    """Seconds of ``[D-]HH:MM:SS[.fff]``, ``MM:SS[.fff]``, ``D-HH`` or ``D-HH:MM`` (the
    forms of Slurm and PBS), or of a bare number times ``bare`` (1: seconds, as PBS and
    CSV mean it; 60: minutes, as Slurm means it). ValueError for anything else,
    OutOfRange beyond `MAX_TIME`."""
    t = text.strip()
    m = _DURATION.fullmatch(t)
    if m is None:
        raise ValueError(t)
    parts = m[2].split(":")
    if any("." in p for p in parts[:-1]):
        raise ValueError(t)
    values = [float(p) for p in parts]  # (float of many digits is inf, never an error)
    if m[1] is not None:  # D-HH[:MM[:SS]]
        values += [0.0] * (3 - len(values))
        hours, minutes, seconds = values
        total = float(m[1]) * 86400 + hours * 3600 + minutes * 60 + seconds
    elif len(values) == 3:
        total = values[0] * 3600 + values[1] * 60 + values[2]
    elif len(values) == 2:
        total = values[0] * 60 + values[1]
    else:
        total = values[0] * bare
    if not total <= MAX_TIME:  # (inf and NaN too)
        raise OutOfRange(_DURATION_RANGE)
    return total


class Numbering:
    """Names -> 1, 2, ... in order of first appearance (SWF numbers users, queues, ...)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, name: str | None) -> int:
        """The number of ``name``; -1 (unknown) for no name."""
        if name is None or is_unknown(name):
            return -1
        return self.ids.setdefault(name.strip(), len(self.ids) + 1)

    def header(self, key: str) -> list[str]:
        """``Key: <n> <name>`` lines, as the archive names queues and partitions."""
        return [f"{key}: {number} {printable(name)}" for name, number in self.ids.items()]


# Job attribute -> the `Request` field that holds it (module docstring).
REQUEST_ATTRIBUTES = {
    "req_nodes": "nodes",
    "req_cores_per_node": "cores_per_node",
    "req_mem_per_node": "mem_per_node",
    "req_gpus_per_node": "gpus_per_node",
    "exclusive": "exclusive",
}


@dataclass
class Request:
    """What a job asks of the nodes (module docstring); None where the log does not say.
    ``unplaced`` names what the log gave as a job total that no node count shares out
    (``"GPUs"``, ``"memory"``), for the note of `JobLog.build`."""

    nodes: float | None = None
    cores_per_node: float | None = None
    mem_per_node: float | None = None  # MiB
    gpus_per_node: float | None = None
    exclusive: float | None = None
    unplaced: tuple[str, ...] = ()

    def known(self) -> bool:
        return any(getattr(self, name) is not None for name in REQUEST_ATTRIBUTES.values())


@dataclass
class Job:
    """One job of a log: absolute times (s since the epoch), None where unknown."""

    job_id: int | None
    submit: float | None
    start: float | None = None
    run: float | None = None
    procs: float | None = None  # allocated processors
    requested_procs: float | None = None
    requested_time: float | None = None
    avg_cpu_time: float | None = None
    used_memory: float | None = None  # KB per processor
    requested_memory: float | None = None  # KB per processor
    status: int = -1
    user: int = -1
    group: int = -1
    executable: int = -1
    queue: int = -1
    partition: int = -1
    line: int | None = None  # of the record in the log (for errors)
    request: Request | None = None  # nodes, cores, memory, GPUs asked for


def _value(x: float | None) -> float:
    return -1.0 if x is None else float(x)


class JobLog:
    """Jobs and skip counts gathered from one log, turned into a `Workload` by `build`."""

    def __init__(self, where: str, kind: str) -> None:
        self.where = where  # the file as errors name it
        self.kind = kind  # "Slurm sacct output", ... (for the header)
        self.jobs: list[Job] = []
        self.skipped: Counter[str] = Counter()
        self.records = 0
        self.users = Numbering()
        self.groups = Numbering()
        self.executables = Numbering()
        self.queues = Numbering()
        self.partitions = Numbering()
        self.notes: list[str] = []  # extra header notes (what the importer decided)
        self.largest_id = 0  # of every record, kept or not: new ids go above it

    def saw_id(self, job_id: int) -> None:
        """Note a job id of the log (new ids are made above the largest, `build`)."""
        self.largest_id = max(self.largest_id, job_id)

    def skip(self, reason: str) -> None:
        self.skipped[reason] += 1

    def build(self, *, source: str, max_procs: int | None) -> tuple[Workload, list[str]]:
        """The `Workload` (module docstring) and the notes worth telling the user."""
        placed = [job for job in self.jobs if job.submit is not None]
        if len(placed) < len(self.jobs):
            self.skipped["no_submit_time"] += len(self.jobs) - len(placed)
        if not placed and not self.skipped:
            raise WorkloadError(self.where, f"no jobs (the file holds no {self.kind} records)")
        submits = [float(j.submit) for j in placed if j.submit is not None]
        origin = math.floor(min(submits, default=0.0))
        fields = np.full((len(placed), N_FIELDS), -1.0)
        known = (j.job_id for j in self.jobs if j.job_id is not None)
        next_id = 1 + max(self.largest_id, max(known, default=0))
        for row, job in zip(fields, placed, strict=True):
            if job.job_id is None:
                job.job_id = next_id
                next_id += 1
            submit = float(job.submit)  # type: ignore[arg-type]
            self._check_times(job, submit - origin)
            row[F["job_id"]] = job.job_id
            row[F["submit_time"]] = submit - origin
            if job.start is not None:
                row[F["wait_time"]] = max(job.start - submit, 0.0)
            row[F["run_time"]] = _value(job.run)
            row[F["allocated_procs"]] = _value(job.procs)
            row[F["avg_cpu_time"]] = _value(job.avg_cpu_time)
            row[F["used_memory"]] = _value(job.used_memory)
            row[F["requested_procs"]] = _value(job.requested_procs)
            row[F["requested_time"]] = _value(job.requested_time)
            row[F["requested_memory"]] = _value(job.requested_memory)
            row[F["status"]] = job.status
            row[F["user_id"]] = job.user
            row[F["group_id"]] = job.group
            row[F["executable_id"]] = job.executable
            row[F["queue_id"]] = job.queue
            row[F["partition_id"]] = job.partition
        notes: list[str] = []
        if max_procs is None:
            max_procs, note = _inferred_size(fields)
            notes.append(note)
        span = max(submits, default=origin) - origin
        if span > LONG_SPAN:  # finite and simulated exactly, but likely a mistyped date
            notes.append(
                f"the log's submit times span {span / YEAR:,.0f} years (from "
                f"{_date(origin)} to {_date(origin + span)}): check its dates"
            )
        attributes, unplaced = _request_attributes(placed)
        header = self._header(source, len(placed), origin, max_procs, notes)
        if unplaced:  # (told, not written: SWF has no field for what it is about)
            notes.append(unplaced)
        workload = Workload.from_fields(
            fields,
            max_procs=max_procs,
            header=header,
            source=source,
            skipped=dict(self.skipped),
            attributes=attributes,
        )
        return workload, notes

    def _check_times(self, job: Job, submit: float) -> None:
        """Refuse a job whose SWF times leave `MAX_TIME` (the readers bound every value
        they read; this holds whatever they derived from those, e.g. End - Start)."""
        wait = None if job.start is None else job.start - float(job.submit or 0.0)
        for name, value in (
            ("submit time (from the log's first submit)", submit),
            ("wait time (start - submit)", wait),
            ("run time", job.run),
            ("requested time", job.requested_time),
            ("average CPU time", job.avg_cpu_time),
        ):
            if value is not None and not abs(value) <= MAX_TIME:
                raise WorkloadError(
                    self.where,
                    f"expected a {name} of at most {MAX_TIME:g} s (about 31 million years)",
                    line=job.line,
                    value=f"{value:g} s",
                )

    def _header(
        self, source: str, jobs: int, origin: float, max_procs: int, notes: list[str]
    ) -> list[str]:
        header = [
            f"Conversion: schedlab from {self.kind} {printable(os.path.basename(source))}",
            f"MaxJobs: {jobs}",
            f"MaxRecords: {self.records}",
            f"UnixStartTime: {int(origin)}",
            f"MaxProcs: {max_procs}",
        ]
        if self.queues.ids:
            header.append(f"MaxQueues: {len(self.queues.ids)}")
            header.extend(self.queues.header("Queue"))
        if self.partitions.ids:
            header.append(f"MaxPartitions: {len(self.partitions.ids)}")
            header.extend(self.partitions.header("Partition"))
        header.extend(f"Note: {text}" for text in self.notes + notes)
        skipped = ", ".join(f"{n} {reason}" for reason, n in sorted(self.skipped.items()) if n)
        if skipped:
            header.append(f"Note: records skipped by the importer: {skipped}")
        return header


def _request_attributes(jobs: list[Job]) -> tuple[dict[str, np.ndarray], str]:
    """The request attributes of ``jobs`` (none when no job says anything of its
    resources) and a note on the jobs whose GPUs or memory no node count shares out."""
    requests = [job.request for job in jobs]
    lost = Counter(what for r in requests if r is not None for what in r.unplaced)
    note = ""
    if lost:
        count = sum(1 for r in requests if r is not None and r.unplaced)
        jobs_text = "1 job gives" if count == 1 else f"{count:,} jobs give"
        note = (
            f"{jobs_text} {' and '.join(sorted(lost))} as a total without a node count: not "
            "shared out over nodes (such a job is a plain processor request; give the log's "
            "node counts)"
        )
    if not any(r is not None and r.known() for r in requests):
        return {}, note
    nan = float("nan")
    attributes = {
        name: np.array(
            [nan if r is None or getattr(r, key) is None else getattr(r, key) for r in requests],
            dtype=np.float64,
        )
        for name, key in REQUEST_ATTRIBUTES.items()
    }
    return attributes, note


YEAR = 365.25 * 86400
LONG_SPAN = 50 * YEAR  # a log spanning more says so: schedlab runs it, but a date is suspect


def _date(epoch: float) -> str:
    """An epoch second as a UTC date, or the number when Python's dates cannot hold it."""
    try:
        return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return f"{epoch:.0f} s"


def _inferred_size(fields: np.ndarray) -> tuple[int, str]:
    """Machine size of a log that does not give one, and the note saying how it was found."""
    procs = derived_procs(fields)
    run = fields[:, F["run_time"]]
    runnable = (run > 0) & (procs > 0) & (procs <= MAX_PROCS)
    if not runnable.any():
        return 1, "machine size 1: the log has no runnable job (give --procs)"
    widest = int(procs[runnable].max())
    timed = runnable & (fields[:, F["wait_time"]] >= 0)
    if not timed.any():
        return widest, (
            f"machine size {widest} = the widest job: the log gives no machine size and no "
            "start times (give --procs, or procs in a sweep, for the real size)"
        )
    start = fields[timed, F["submit_time"]] + fields[timed, F["wait_time"]]
    _, peaks = peak_in_use(start, start + run[timed], procs[timed])
    peak = int(peaks[0])
    size = min(max(peak, widest), MAX_PROCS)
    return size, (
        f"machine size {size} = the peak of processors allocated at once in the log (the "
        "log gives no machine size; this is a lower bound: give --procs, or procs in a "
        "sweep, for the real size)"
    )
