"""PBS accounting logs: Torque, PBS Pro and OpenPBS ``server_priv/accounting/YYYYMMDD``.

Every line is one record ``MM/DD/YYYY HH:MM:SS;TYPE;JOBID;key=value key=value ...``
(a value with spaces is double-quoted). TYPE ``E`` (the job ended) carries what a job
did; the other records (``Q`` queued, ``S`` started, ``D`` deleted, ``A`` aborted, ``R``
rerun, ``C``/``T`` checkpoint and restart, reservations, licenses, ...) are skipped as
``non_end_record``, except that a ``D`` record marks its job as cancelled. Several daily
files may be concatenated (``cat 2024* > log``). The SWF fields (`common` gives the
shared rules):

==========================================================  ===============================
PBS (E record)                                              SWF
==========================================================  ===============================
JOBID ``123.server`` (array subjob ``123[4].server``: new)  1 job id
``ctime`` (creation = submission), else ``qtime``           2 submit time
``start``                                                   3 wait = start - submit
``resources_used.walltime``, else ``end`` - ``start``       4 run time
CPUs of ``exec_host``, else ``resources_used.ncpus``        5 allocated processors
``resources_used.cput`` / processors                        6 average CPU time
``resources_used.mem`` / processors                         7 used memory (KB per proc.)
``Resource_List.ncpus``, else the CPUs of                   8 requested processors
``Resource_List.select`` or ``Resource_List.nodes``, else
``Resource_List.nodect``
``Resource_List.walltime``                                  9 requested time
``Resource_List.mem`` / processors, else ``.pmem``          10 requested memory
``Exit_status``: 0 -> 1, other -> 0; a ``D`` record -> 5    11 status
``user``, ``group``                                         12, 13 (numbered)
``jobname``                                                 14 executable (numbered)
``queue``                                                   15 queue (names in ``Queue:``)
==========================================================  ===============================

``ctime`` rather than ``qtime``: qtime is when the job entered its current queue, later
than the submission when a routing queue moved it. Times are epoch seconds; durations
``HH:MM:SS`` or seconds; sizes ``<n>[b|kb|mb|gb|tb|w]`` (bytes by default, a word is 8
bytes). Processors: ``exec_host=n1/0+n1/1+n2/0-3,5`` (Torque: one per index, ranges
count each) and ``exec_host=n1/0*4+n2/0*4`` (PBS Pro: ``*N`` CPUs); ``nodes=2:ppn=8``
(16), ``nodes=n1:ppn=4+n2:ppn=4`` (8), ``select=2:ncpus=4+1:ncpus=8`` (16). PBS has no
partitions (field 16 stays -1). The E record of an array job itself (``123[].server``) is
skipped as ``array_parent``: its subjobs have their own records.

**Resources asked for** (the workload attributes of `common`; docs/importers.md), from
the E record's ``Resource_List``:

* ``select=2:ncpus=32:ngpus=4:mem=256gb`` (PBS Pro, OpenPBS): each chunk is taken for a
  node (the log says where chunks went only in ``exec_vnode``): nodes = the chunk counts
  added, cores, GPUs and memory per node = the chunk's ``ncpus`` (1 when not given),
  ``ngpus`` (0) and ``mem``. Chunks that differ (``1:ncpus=32:ngpus=4+4:ncpus=8``) give
  the total nodes and the *largest* per-node values (here 5 nodes of 32 cores and 4 GPUs):
  a node model with one shape per job over-asks for the smaller chunks, never under-asks.
* ``nodes=2:ppn=16`` (Torque; ``n1:ppn=4+n2:ppn=4``, ``:gpus=2``): nodes = the counts
  (a host name counts one), cores per node ``ppn`` (1), GPUs per node ``gpus`` (0); the
  largest per-node values when the parts differ.
* Else ``nodect`` nodes, with ``ncpus`` shared out over them (rounded up).
* Memory per node: the chunks' ``mem``, else ``Resource_List.mem`` (the job's total) over
  the nodes, else ``pmem`` (per process) times the cores per node. GPUs per node: the
  chunks' ``ngpus``, else ``Resource_List.ngpus`` (the job's total) over the nodes
  (rounded up), else 0 when ``select`` or ``nodes`` gives the job's shape.
* ``exclusive``: 1 when ``place`` holds ``excl`` or ``exclhost`` (``place=scatter:excl``),
  0 when ``place`` is given without them (``shared``, ``free``, ``pack``, ``scatter``:
  the job did not ask for whole nodes), unknown without ``place``.

**Refused** (one error naming the file, line and key; bounds in `common`): a record date
that is not a calendar date (``13/45/2024``), a key this reader reads given twice with
different values in one record, job ids of 2**53 or more, processor and node counts
beyond 2**31 - 1 (also as the sum of ``exec_host``, ``nodes`` or ``select``; GPU counts
too), memory beyond 2**53 KB (also per node, from ``pmem``), non-ASCII digits, times
beyond 5e14 s from 1970, durations beyond 1e15 s.
"""

from __future__ import annotations

import calendar
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from schedlab.errors import WorkloadError, printable
from schedlab.workload.importers.common import (
    COUNT_EXPECTED,
    MAX_INSTANT,
    MAX_MEMORY_MIB,
    MEMORY_EXPECTED,
    Job,
    JobLog,
    OutOfRange,
    Request,
    checked_memory,
    parse_count,
    parse_duration,
    parse_field,
    parse_job_id,
    per_node,
    read_text,
    shown,
    split_lines,
    whole_number,
)
from schedlab.workload.job import MAX_PROCS, Workload

__all__ = [
    "RECORD",
    "Shape",
    "cpus_of_exec_host",
    "cpus_of_nodes",
    "cpus_of_select",
    "read_pbs",
    "shape_of_nodes",
    "shape_of_select",
]

# (re.ASCII: digits are 0-9 only, and values end at ASCII white space only, so that a
# U+2028 or U+0085 in a job name stays in it)
RECORD = re.compile(r"(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d);([A-Za-z]);([^;]*);(.*)", re.ASCII)
_PAIR = re.compile(r'([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)', re.ASCII)
_JOB_ID = re.compile(r"(\d+)(?:\[(\d*)\]|-(\d+))?(?:\..*)?", re.ASCII)
_INT = re.compile(r"[+-]?\d+", re.ASCII)
_NUMBER = re.compile(r"\d+(?:\.\d+)?", re.ASCII)
_SIZE = re.compile(r"(\d+)(b|kb|mb|gb|tb|pb|w|kw|mw|gw|tw)?", re.IGNORECASE | re.ASCII)
# The keys this reader reads: one given twice with different values is refused.
_READ = frozenset(
    {
        "ctime",
        "qtime",
        "start",
        "end",
        "exec_host",
        "resources_used.walltime",
        "resources_used.ncpus",
        "resources_used.cput",
        "resources_used.mem",
        "Resource_List.ncpus",
        "Resource_List.select",
        "Resource_List.nodes",
        "Resource_List.nodect",
        "Resource_List.walltime",
        "Resource_List.mem",
        "Resource_List.pmem",
        "Resource_List.ngpus",
        "Resource_List.place",
        "Exit_status",
        "user",
        "group",
        "jobname",
        "queue",
    }
)
_EPOCH_EXPECTED = "epoch seconds"
_DIGITS = re.compile(r"\d+", re.ASCII)
_TOO_MANY_CPUS = f"at most {MAX_PROCS} CPUs in all"
_TOO_MANY_NODES = f"at most {MAX_PROCS} nodes in all"
_TOO_MANY_GPUS = f"at most {MAX_PROCS} GPUs per node"
_EXCLUSIVE_PLACES = frozenset({"excl", "exclhost"})
_T = TypeVar("_T")
_SIZE_BYTES = {
    "b": 1,
    "kb": 1024,
    "mb": 1024**2,
    "gb": 1024**3,
    "tb": 1024**4,
    "pb": 1024**5,
    "w": 8,
    "kw": 8 * 1024,
    "mw": 8 * 1024**2,
    "gw": 8 * 1024**3,
    "tw": 8 * 1024**4,
}


def read_pbs(
    path: str | os.PathLike[str], *, max_procs: int | None = None
) -> tuple[Workload, list[str]]:
    """Read a PBS/Torque/OpenPBS accounting log (module docstring) into a `Workload`, with
    the notes worth telling the user. ``WorkloadError`` names the file, line and key of
    the first value that cannot be read."""
    name = os.fspath(path)
    where = printable(name)
    log = JobLog(where, "PBS accounting log")
    deleted: set[str] = set()
    text = read_text(name, where)
    for lineno, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        m = RECORD.fullmatch(line.strip())
        if m is None:
            raise WorkloadError(
                where,
                "expected a PBS accounting record MM/DD/YYYY HH:MM:SS;TYPE;JOBID;key=value ...",
                line=lineno,
                value=shown(line),
            )
        _check_date(where, lineno, m)
        log.records += 1
        kind, job_text = m[7].upper(), m[8].strip()
        number = _JOB_ID.fullmatch(job_text)
        if number is not None:
            job_id = parse_field(
                number[1], parse_job_id, "", where=where, line=lineno, field="JOBID"
            )
            log.saw_id(int(job_id or 0))
        if kind == "D":
            deleted.add(job_text)
        if kind != "E":
            log.skip("non_end_record")
            continue
        _end_record(log, where, lineno, job_text, m[9], job_text in deleted)
    return log.build(source=name, max_procs=max_procs)


def _check_date(where: str, lineno: int, m: re.Match[str]) -> None:
    """Refuse a record whose MM/DD/YYYY HH:MM:SS is not a calendar date and time."""
    month, day, year, hour, minute, second = (int(m[i]) for i in range(1, 7))
    if (
        1 <= month <= 12
        and 1 <= day <= calendar.monthrange(max(year, 1), month)[1]
        and hour < 24
        and minute < 60
        and second < 61
    ):
        return
    raise WorkloadError(
        where,
        "expected a date and time MM/DD/YYYY HH:MM:SS (month 01-12, a day of that month, "
        "hour 00-23)",
        line=lineno,
        field="date",
        value=shown(m.group(0)[:19]),
    )


def _end_record(
    log: JobLog, where: str, lineno: int, job_text: str, message: str, deleted: bool
) -> None:
    ids = _JOB_ID.fullmatch(job_text)
    if ids is None:
        raise WorkloadError(
            where,
            "expected a job id such as 123.server or 123[4].server",
            line=lineno,
            field="JOBID",
            value=shown(job_text),
        )
    if ids[2] == "":  # 123[]: the array job itself
        log.skip("array_parent")
        return
    pairs: dict[str, str] = {}
    for key, text in _PAIR.findall(message):
        value_text = _unquoted(text)
        if key in _READ and pairs.get(key, value_text) != value_text:
            raise WorkloadError(
                where,
                "expected each key once in a record (given twice, with different values)",
                line=lineno,
                field=key,
                value=shown(f"{pairs[key]} / {value_text}"),
            )
        pairs[key] = value_text

    def value(key: str, parse: Callable[[str], float | None], expected: str) -> float | None:
        return parse_field(pairs.get(key), parse, expected, where=where, line=lineno, field=key)

    def epoch(key: str) -> float | None:
        return value(key, _epoch, _EPOCH_EXPECTED)

    def walltime(key: str) -> float | None:
        return value(key, parse_duration, "a duration HH:MM:SS or seconds")

    def size_kb(key: str) -> float | None:
        return value(key, _size_kb, "a size such as 4gb or 1024kb")

    submit = epoch("ctime")
    if submit is None:
        submit = epoch("qtime")
    start, end = epoch("start"), epoch("end")
    run = walltime("resources_used.walltime")
    if run is None and start is not None and end is not None:
        run = end - start
    procs = value("exec_host", cpus_of_exec_host, "hosts such as n1/0-3+n2/0*4")
    if procs is None:
        procs = value("resources_used.ncpus", parse_count, COUNT_EXPECTED)
    requested = value("Resource_List.ncpus", parse_count, COUNT_EXPECTED)
    if requested is None:
        requested = value("Resource_List.select", cpus_of_select, "chunks such as 2:ncpus=4")
    if requested is None:
        requested = value("Resource_List.nodes", cpus_of_nodes, "nodes such as 2:ppn=8")
    if requested is None:
        requested = value("Resource_List.nodect", parse_count, COUNT_EXPECTED)
    width = procs or requested
    cput = walltime("resources_used.cput")
    used = size_kb("resources_used.mem")
    asked = size_kb("Resource_List.mem")

    def per_proc(x: float | None) -> float | None:
        return None if x is None or not width else x / width

    requested_memory = per_proc(asked) if asked is not None else size_kb("Resource_List.pmem")
    exit_status = value("Exit_status", _integer, "an integer exit status")
    if deleted:
        status = 5
    elif exit_status is None:
        status = -1
    else:
        status = 1 if exit_status == 0 else 0
    plain = ids[2] is None and ids[3] is None
    job = Job(
        job_id=int(ids[1]) if plain else None,
        submit=submit,
        start=start,
        run=run,
        procs=procs,
        requested_procs=requested,
        requested_time=walltime("Resource_List.walltime"),
        avg_cpu_time=per_proc(cput),
        used_memory=per_proc(used),
        requested_memory=requested_memory,
        status=status,
        user=log.users(pairs.get("user")),
        group=log.groups(pairs.get("group")),
        executable=log.executables(pairs.get("jobname")),
        queue=log.queues(pairs.get("queue")),
        line=lineno,
    )
    job.request = _request(pairs, where, lineno)  # (after the SWF fields and their errors)
    log.jobs.append(job)


def _request(pairs: dict[str, str], where: str, lineno: int) -> Request:
    """What the job asked of the nodes, from its ``Resource_List`` (module docstring)."""

    def value(key: str, parse: Callable[[str], _T | None], expected: str) -> _T | None:
        return parse_field(pairs.get(key), parse, expected, where=where, line=lineno, field=key)

    def count(key: str) -> float | None:
        return value(f"Resource_List.{key}", parse_count, COUNT_EXPECTED)

    def size(key: str) -> float | None:
        kb = value(f"Resource_List.{key}", _size_kb, "a size such as 4gb or 1024kb")
        return None if kb is None else kb / 1024.0

    shape = value("Resource_List.select", shape_of_select, "chunks such as 2:ncpus=4:ngpus=1")
    if shape is None:
        shape = value("Resource_List.nodes", shape_of_nodes, "nodes such as 2:ppn=8")
    ngpus, total_mem, pmem = count("ngpus"), size("mem"), size("pmem")
    nodes: float | None
    cores: float | None
    if shape is not None:
        nodes, cores = shape.nodes or None, shape.cores
    else:
        nodes = count("nodect") or None
        cores = per_node(count("ncpus"), nodes, whole=True)
    mem = None if shape is None else shape.mem
    if mem is None and total_mem is not None:
        mem = per_node(total_mem, nodes, whole=False)
    if mem is None and total_mem is None and pmem is not None and cores is not None:
        mem = pmem * cores
        if not mem <= MAX_MEMORY_MIB:
            raise WorkloadError(
                where,
                f"expected {MEMORY_EXPECTED} per node (here pmem x {cores:.0f} CPUs per node)",
                line=lineno,
                field="Resource_List.pmem",
                value=shown(pairs.get("Resource_List.pmem", "")),
            )
    if shape is not None and shape.gpus is not None:
        gpus: float | None = shape.gpus
    elif ngpus is not None:
        gpus = per_node(ngpus, nodes, whole=True)
    else:
        gpus = None if shape is None else 0.0
    unplaced = []
    if nodes is None and ngpus:
        unplaced.append("GPUs")
    if nodes is None and total_mem is not None:
        unplaced.append("memory")
    place = pairs.get("Resource_List.place", "").strip().lower()
    exclusive = None
    if place:
        exclusive = 1.0 if _EXCLUSIVE_PLACES & set(place.split(":")) else 0.0
    return Request(
        nodes=nodes,
        cores_per_node=cores,
        mem_per_node=mem,
        gpus_per_node=gpus,
        exclusive=exclusive,
        unplaced=tuple(unplaced),
    )


@dataclass(frozen=True)
class Shape:
    """The nodes of a ``select`` or ``nodes`` request and the largest per-node cores,
    memory (MiB; None when no chunk gives it) and GPUs (None when no chunk gives them)."""

    nodes: float
    cores: float
    mem: float | None
    gpus: float | None


def _shape(parts: list[tuple[int, dict[str, str]]], cores_key: str, gpus_key: str) -> Shape:
    """The `Shape` of chunks (count, {resource: value}): counts added, largest values."""
    nodes = 0
    cores = 1
    mems: list[float] = []
    gpus: list[int] = []
    for count, resources in parts:
        nodes += count
        if nodes > MAX_PROCS:
            raise OutOfRange(_TOO_MANY_NODES)
        if cores_key in resources:
            cores = max(cores, _cpu_number(resources[cores_key]))
        if gpus_key in resources:
            gpus.append(_cpu_number(resources[gpus_key]))
        if "mem" in resources:
            mems.append(_size_kb(resources["mem"]) / 1024.0)
    _total(cores)
    if max(gpus, default=0) > MAX_PROCS:
        raise OutOfRange(_TOO_MANY_GPUS)
    return Shape(
        nodes=float(nodes),
        cores=float(cores),
        mem=max(mems, default=None),
        gpus=float(max(gpus)) if gpus else None,
    )


def _resources(tokens: list[str]) -> dict[str, str]:
    return dict(token.partition("=")[::2] for token in tokens if "=" in token)


def shape_of_select(text: str) -> Shape:
    """The `Shape` of a PBS Pro ``select`` (module docstring): ``2:ncpus=32:ngpus=4:mem=256gb``
    2 nodes of 32 cores, 256 GiB and 4 GPUs; a chunk without a count is one chunk."""
    parts = []
    for part in text.split("+"):
        tokens = part.split(":")
        count = _chunks(tokens[0])
        if tokens[0].isdigit():
            tokens.pop(0)
        parts.append((count, _resources(tokens)))
    return _shape(parts, "ncpus", "ngpus")


def shape_of_nodes(text: str) -> Shape:
    """The `Shape` of a Torque ``nodes`` request (module docstring): ``2:ppn=16:gpus=2`` 2
    nodes of 16 cores and 2 GPUs; ``n1:ppn=4+n2:ppn=4`` 2 nodes of 4."""
    parts = []
    for part in text.split("+"):
        tokens = part.split(":")
        if not tokens[0]:
            raise ValueError(text)
        parts.append((_chunks(tokens[0]), _resources(tokens[1:])))
    return _shape(parts, "ppn", "gpus")


def _unquoted(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def _epoch(text: str) -> float:
    if not _NUMBER.fullmatch(text):
        raise ValueError(text)
    value = float(text)
    if not value <= MAX_INSTANT:
        raise OutOfRange(f"{_EPOCH_EXPECTED} of at most {MAX_INSTANT:g} (15 million years)")
    return value


def _integer(text: str) -> float:
    if not _INT.fullmatch(text):
        raise ValueError(text)
    return float(text)  # (only compared with 0: float of many digits is inf, no error)


def _size_kb(text: str) -> float:
    m = _SIZE.fullmatch(text)
    if m is None:
        raise ValueError(text)
    return checked_memory(float(m[1]) * _SIZE_BYTES[(m[2] or "b").lower()] / 1024.0)


def _total(total: int) -> float:
    """A sum of CPUs, at most `MAX_PROCS` (else OutOfRange)."""
    if total > MAX_PROCS:
        raise OutOfRange(_TOO_MANY_CPUS)
    return float(total)


def _cpu_number(text: str) -> int:
    """A number of a CPU spec (an index, a count): ASCII digits; OutOfRange when it has
    more digits than any CPU count can (a corrupt record, not a machine)."""
    if _DIGITS.fullmatch(text) and len(text.lstrip("0")) > 20:
        raise OutOfRange(_TOO_MANY_CPUS)
    return whole_number(text)


def cpus_of_exec_host(text: str) -> float:
    """CPUs of an ``exec_host`` value: ``n1/0+n1/1`` 2, ``n1/0-3,5`` 5, ``n1/0*4+n2/0*4`` 8;
    a host without ``/`` counts one."""
    total = 0
    for part in text.split("+"):
        host, slash, spec = part.partition("/")
        if not host:
            raise ValueError(text)
        if not slash:
            total += 1
            continue
        for item in spec.split(","):
            index, star, count = item.partition("*")
            low, dash, high = index.partition("-")
            first = _cpu_number(low)
            if star:
                total += _cpu_number(count)
            elif dash:
                last = _cpu_number(high)
                if last < first:
                    raise ValueError(text)
                total += last - first + 1
            else:
                total += 1
            _total(total)
    return _total(total)


def cpus_of_nodes(text: str) -> float:
    """CPUs of a Torque ``nodes`` request: ``2:ppn=8`` 16, ``n1:ppn=4+n2:ppn=4`` 8, ``3`` 3,
    ``n1`` 1 (a count or a host name, then ``:ppn=`` CPUs per node; other properties are
    ignored)."""
    total = 0
    for part in text.split("+"):
        tokens = part.split(":")
        if not tokens[0]:
            raise ValueError(text)
        nodes = _chunks(tokens[0])
        ppn = 1
        for token in tokens[1:]:
            key, _, val = token.partition("=")
            if key == "ppn":
                ppn = _cpu_number(val)
        total += nodes * ppn
        _total(total)
    return _total(total)


def cpus_of_select(text: str) -> float:
    """CPUs of a PBS Pro ``select``: ``2:ncpus=4+1:ncpus=8`` 16; a chunk without a count is
    one chunk, without ``ncpus`` one CPU."""
    total = 0
    for part in text.split("+"):
        tokens = part.split(":")
        chunks = _chunks(tokens[0])
        if tokens[0].isdigit():
            tokens.pop(0)
        ncpus = 1
        for token in tokens:
            key, _, val = token.partition("=")
            if key == "ncpus":
                ncpus = _cpu_number(val)
        total += chunks * ncpus
        _total(total)
    return _total(total)


def _chunks(token: str) -> int:
    """The count a ``nodes``/``select`` chunk starts with; 1 for a host name or none.
    Digits of another script (``٣``) are refused, not taken for a host name."""
    if token.isdigit():  # (str.isdigit: any script's digits, refused by _cpu_number)
        return _cpu_number(token)
    return 1
