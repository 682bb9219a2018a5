"""Slurm accounting logs: the output of ``sacct --parsable2`` (docs/importers.md).

Get one with, for example (``--parsable`` works too; ``--noheader`` does not: the header
line names the columns)::

    sacct --allusers --parsable2 --starttime 2024-03-01 --endtime 2024-04-01 \\
      --format JobID,JobIDRaw,JobName,Submit,Start,End,Elapsed,Timelimit,AllocCPUS,\\
    ReqCPUS,ReqMem,NNodes,ReqNodes,ReqTRES,AllocTRES,TotalCPU,User,Group,Partition,QOS,State

Columns are found by name, in any order and case; others are ignored. Required: ``JobID``,
``Submit``, ``Elapsed`` (or ``Start`` and ``End``) and ``AllocCPUS``/``NCPUS`` (or
``ReqCPUS``). The SWF fields (`common` gives the shared rules):

==============================  =========================================================
sacct                           SWF
==============================  =========================================================
JobIDRaw, else JobID            1 job id (array tasks without JobIDRaw: new ids)
Submit                          2 submit time
Start                           3 wait = Start - Submit
Elapsed (else End - Start)      4 run time
AllocCPUS or NCPUS              5 allocated processors
TotalCPU / AllocCPUS            6 average CPU time
ReqCPUS                         8 requested processors
Timelimit                       9 requested time (``UNLIMITED``, ``Partition_Limit``: -1)
ReqMem (with NNodes)            10 requested memory, KB per processor
State                           11 status (below)
User, Group                     12, 13 (numbered)
JobName                         14 executable (numbered)
QOS                             15 queue (numbered, names in ``Queue:`` lines)
Partition                       16 partition (numbered, names in ``Partition:`` lines)
==============================  =========================================================

Dates (``2024-03-01T12:00:00``; ``Unknown``/``None``: not known) are read as UTC, since
sacct prints the cluster's local time without a zone; ``SLURM_TIME_FORMAT=%s`` epoch
seconds are read too. Durations are ``[D-]HH:MM:SS[.fff]`` or ``MM:SS[.fff]``; a bare
number is minutes (Slurm's unit). ``ReqMem`` is ``<n>[K|M|G|T][n|c]``: ``c`` per CPU,
``n`` or no letter per node (times NNodes / AllocCPUS); no unit is megabytes. (Field 10
reads a ``ReqMem`` without a letter as per node, older Slurm's meaning; the resources below
read it as Slurm 21.08 and later print it, the job's total. They differ for jobs of
several nodes only.)

**Resources asked for** (the workload attributes of `common`; docs/importers.md): from
``ReqNodes``, ``ReqCPUS``, ``ReqMem`` and ``ReqTRES`` (``billing=8,cpu=8,gres/gpu=4,
mem=64G,node=1``), what the job requested; a value these do not give comes from the
allocation (``NNodes``, ``AllocCPUS``, ``AllocTRES``). One exception: ``ReqNodes`` (and
``ReqTRES`` ``node=``) is the *minimum* node count Slurm was asked for, so a job that ran
on more nodes (``NNodes`` or ``AllocTRES`` ``node=`` larger) takes the allocation's shape
(nodes, CPUs, memory, GPUs of ``AllocTRES``/``AllocCPUS``): its run time is the one of
that shape. Cores per node = CPUs / nodes, rounded up. Memory per node: ``ReqMem`` with
``n`` as it is, with ``c`` (per CPU) times the cores per node; ``ReqMem`` without a letter
(Slurm 21.08 and later print the job's total, as the TRES ``mem=`` is) and TRES ``mem=``
divided by the nodes; ``0`` (``--mem=0``: all of a node's memory, whose size the log does
not hold) is unknown. GPUs per node: the TRES ``gres/gpu=`` count (all of the job's GPUs),
else the sum of the typed ``gres/gpu:a100=4`` counts, divided by the nodes, rounded up; a
TRES list without a GPU asks for none (0). Sizes are ``<n>[K|M|G|T|P]`` (1024-based; no
letter: MB). ``exclusive`` stays unknown (NaN): sacct records no ``--exclusive``
(``Flags`` holds only how the job was scheduled) and a whole-node allocation
(``AllocCPUS`` above ``ReqCPUS``) may as well be a rounding up to whole cores. The parts
of a heterogeneous job add their nodes and keep the largest per-node values.

**States** -> SWF status: COMPLETED 1; CANCELLED (also ``CANCELLED by 123``) 5; FAILED,
TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL, DEADLINE, PREEMPTED 0 (the job did not
complete and was not cancelled by anyone). Records still PENDING, RUNNING, SUSPENDED
(and Slurm's other transient states) are skipped as ``not_finished``; REQUEUED ones (an
earlier run of a job that ran again: sacct ``--duplicates``) as ``requeued``; REVOKED
(the job ran on another cluster of a federation) as ``revoked``.

**What is kept**: one job per allocation. Job steps (``123.batch``, ``123.extern``,
``123.0``, ``123_4.1``) are skipped as ``job_step``: their resources are inside their
job's allocation. Array tasks (``123_4``) are separate jobs; a record of array tasks that
never started (``123_[5-9]``, ``123_[5,7]``) is skipped as ``unstarted_array_tasks``.
The components of a heterogeneous job (``123+0``, ``123+1``) start together, so they are
merged into one job ``123``: processors added, run and requested time the longest,
average CPU time and memory weighted by processors, the first failure's status.

**Refused** (one error naming the file, line and column; bounds in `common`): a column
this reader reads named twice in the header (which one would hold the value?), job ids
of 2**53 or more, counts beyond 2**31 - 1 (CPUs, nodes, GPUs, also as the sum of typed
GPUs), memory beyond 2**53 KB (also per node, from a per-CPU ``ReqMem``), a TRES list
that is not ``name=value,...`` or names a TRES read here twice with different values,
non-ASCII digits, dates beyond 5e14 s from 1970 or with a zone offset of 24 hours or
more, durations beyond 1e15 s.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from schedlab.errors import WorkloadError, printable
from schedlab.workload.importers.common import (
    COUNT_EXPECTED,
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
    parse_instant,
    parse_job_id,
    per_node,
    read_text,
    shown,
    split_lines,
)
from schedlab.workload.job import MAX_PROCS, Workload

__all__ = ["SLURM_SKIPPED", "SLURM_STATUS", "Tres", "parse_tres", "read_sacct", "slurm_state"]

# Final states -> SWF status (module docstring).
SLURM_STATUS: dict[str, int] = {
    "COMPLETED": 1,
    "CANCELLED": 5,
    "FAILED": 0,
    "TIMEOUT": 0,
    "NODE_FAIL": 0,
    "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0,
    "DEADLINE": 0,
    "PREEMPTED": 0,
}
# Other states -> the reason their records are skipped.
SLURM_SKIPPED: dict[str, str] = {
    **dict.fromkeys(
        (
            "PENDING",
            "RUNNING",
            "SUSPENDED",
            "CONFIGURING",
            "COMPLETING",
            "RESIZING",
            "SIGNALING",
            "STAGE_OUT",
            "STOPPED",
            "RESV_DEL_HOLD",
            "POWER_UP_NODE",
            "UPDATE_DB",
        ),
        "not_finished",
    ),
    **dict.fromkeys(("REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "SPECIAL_EXIT"), "requeued"),
    "REVOKED": "revoked",
}
# Alternative column names (lower case) -> the name used here.
_ALIASES = {"ncpus": "alloccpus", "allocnodes": "nnodes"}
# The columns this reader reads (lower case, aliases included): named twice, refused.
_READ = frozenset(
    {
        "jobid",
        "jobidraw",
        "jobname",
        "submit",
        "start",
        "end",
        "elapsed",
        "timelimit",
        "alloccpus",
        "reqcpus",
        "reqmem",
        "reqnodes",
        "reqtres",
        "alloctres",
        "nnodes",
        "totalcpu",
        "user",
        "group",
        "partition",
        "qos",
        "state",
        *_ALIASES,
    }
)
# (re.ASCII: digits are 0-9 only)
_ARRAY_RANGE = re.compile(r"\d+_\[[^\]]*\]", re.ASCII)
_ARRAY_TASK = re.compile(r"\d+_\d+", re.ASCII)
_HET = re.compile(r"(\d+)\+\d+", re.ASCII)
_PLAIN = re.compile(r"\d+", re.ASCII)
_MEMORY = re.compile(r"(\d+(?:\.\d+)?)([KMGTP]?)([nc]?)", re.IGNORECASE | re.ASCII)
_MEMORY_KB = {"K": 1.0, "M": 1024.0, "G": 1024.0**2, "T": 1024.0**3, "P": 1024.0**4}
_LIMITLESS = frozenset({"unlimited", "partition_limit", "infinite"})
_TRES_SIZE = re.compile(r"(\d+(?:\.\d+)?)([KMGTP]?)", re.IGNORECASE | re.ASCII)
_TRES_EXPECTED = "TRES such as cpu=8,mem=64G,node=1,gres/gpu=4"
_MEMORY_EXPECTED = "a memory size such as 4000Mc, 16Gn or 16G"
_GPUS_EXPECTED = f"at most {MAX_PROCS} GPUs in all"


def slurm_state(text: str) -> str:
    """The state word of a State cell: ``CANCELLED by 123`` -> ``CANCELLED``."""
    words = text.split()
    return words[0].rstrip("+").upper() if words else ""


def read_sacct(
    path: str | os.PathLike[str], *, max_procs: int | None = None
) -> tuple[Workload, list[str]]:
    """Read ``sacct --parsable2`` output (module docstring) into a `Workload`, with the notes
    worth telling the user (how the machine size was found). ``WorkloadError`` names the
    file, line and column of the first value that cannot be read."""
    name = os.fspath(path)
    where = printable(name)
    return _SacctReader(name, where).read(max_procs)


class _SacctReader:
    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where
        self.log = JobLog(where, "Slurm sacct output")
        self.het: dict[int, Job] = {}
        self.merged = 0

    def read(self, max_procs: int | None) -> tuple[Workload, list[str]]:
        lines = split_lines(read_text(self.name, self.where))
        at = next((i for i, line in enumerate(lines) if line.strip()), None)
        if at is None:
            raise WorkloadError(self.where, "no jobs (the file is empty)")
        names = lines[at].split("|")
        trailing = len(names) > 1 and names[-1] == ""  # --parsable ends every line with '|'
        if trailing:
            names = names[:-1]
        self.names = [n.strip() for n in names]
        self.columns = self._column_index(at + 1, lines[at])
        self._check_header(at + 1, lines[at])
        for lineno in range(at + 2, len(lines) + 1):
            line = lines[lineno - 1]
            if not line.strip():
                continue
            cells = line.split("|")
            if trailing and len(cells) == len(self.names) + 1 and cells[-1] == "":
                cells = cells[:-1]
            if len(cells) != len(self.names):
                raise WorkloadError(
                    self.where,
                    f"expected {len(self.names)} '|'-separated values as in the header line, "
                    f"found {len(cells)} (a job name holding '|'?)",
                    line=lineno,
                    value=shown(line),
                )
            self.log.records += 1
            self._record(lineno, cells)
        if self.merged:
            self.log.notes.append(
                f"{self.merged} later component record(s) of heterogeneous jobs merged into "
                "their job (processors added)"
            )
        self.log.notes.append(
            "sacct prints local times without a zone: they were read as UTC (a daylight "
            "saving change moves the submit times after it by an hour)"
        )
        return self.log.build(source=self.name, max_procs=max_procs)

    def _column_index(self, lineno: int, line: str) -> dict[str, int]:
        """Column (lower case, aliases resolved) -> position. A column read here and named
        twice is refused; of a column and its alias (AllocCPUS, NCPUS) the column wins."""
        seen: dict[str, int] = {}
        for i, name in enumerate(self.names):
            low = name.lower()
            if low in _READ and low in seen:
                raise WorkloadError(
                    self.where,
                    f"column {shown(name)} appears twice in the header line (columns "
                    f"{seen[low] + 1} and {i + 1}): which one holds the value? Keep one",
                    line=lineno,
                    field="header",
                    value=shown(line),
                )
            seen.setdefault(low, i)
        columns: dict[str, int] = {}
        for low, i in seen.items():
            key = _ALIASES.get(low, low)
            if key not in columns or low == key:
                columns[key] = i
        return columns

    def _check_header(self, lineno: int, line: str) -> None:
        has = self.columns.__contains__
        missing = [
            label
            for label, ok in (
                ("JobID", has("jobid")),
                ("Submit", has("submit")),
                ("Elapsed (or Start and End)", has("elapsed") or (has("start") and has("end"))),
                ("AllocCPUS, NCPUS or ReqCPUS", has("alloccpus") or has("reqcpus")),
            )
            if not ok
        ]
        if missing:
            raise WorkloadError(
                self.where,
                f"a sacct --parsable2 header line naming the columns; missing: "
                f"{', '.join(missing)} (run sacct without --noheader, with these in --format)",
                line=lineno,
                field="header",
                value=shown(line),
            )

    def _cell(self, cells: list[str], key: str) -> str | None:
        index = self.columns.get(key)
        return None if index is None else cells[index].strip()

    def _parse(
        self,
        lineno: int,
        cells: list[str],
        key: str,
        parse: Callable[[str], float | None],
        expected: str,
    ) -> float | None:
        """Column ``key`` of a record through ``parse``; None if absent or unknown."""
        text = self._cell(cells, key)
        field = self.names[self.columns[key]] if key in self.columns else key
        return parse_field(text, parse, expected, where=self.where, line=lineno, field=field)

    def _job_number(self, lineno: int, key: str, digits: str) -> int:
        """The job id ``digits`` of column ``key`` (below 2**53, else WorkloadError)."""
        field = self.names[self.columns[key]]
        number = parse_field(digits, parse_job_id, "", where=self.where, line=lineno, field=field)
        return int(number or 0)

    def _record(self, lineno: int, cells: list[str]) -> None:
        log = self.log
        job_text = self._cell(cells, "jobid") or ""
        for key in ("jobid", "jobidraw"):
            number = _PLAIN.match(self._cell(cells, key) or "")  # the id's leading number
            if number is not None:
                log.saw_id(self._job_number(lineno, key, number[0]))
        if "." in job_text:
            log.skip("job_step")
            return
        if _ARRAY_RANGE.fullmatch(job_text):
            log.skip("unstarted_array_tasks")
            return
        het = _HET.fullmatch(job_text)
        if not (het or _ARRAY_TASK.fullmatch(job_text) or _PLAIN.fullmatch(job_text)):
            raise WorkloadError(
                self.where,
                "expected a job id such as 123, 123_4 (array task), 123+0 (heterogeneous "
                "job) or 123.batch (step)",
                line=lineno,
                field=self.names[self.columns["jobid"]],
                value=shown(job_text),
            )
        status = -1
        state_text = self._cell(cells, "state")
        if state_text is not None:
            state = slurm_state(state_text)
            if state in SLURM_SKIPPED:
                log.skip(SLURM_SKIPPED[state])
                return
            if state not in SLURM_STATUS:
                raise WorkloadError(
                    self.where,
                    "expected a Slurm job state: "
                    + ", ".join(sorted(SLURM_STATUS) + sorted(SLURM_SKIPPED)),
                    line=lineno,
                    field=self.names[self.columns["state"]],
                    value=shown(state_text),
                )
            status = SLURM_STATUS[state]
        job = self._job(lineno, cells, job_text, status)
        if het is not None:
            leader = self._job_number(lineno, "jobid", het[1])
            job.job_id = leader
            if leader in self.het:
                _merge(self.het[leader], job)
                self.merged += 1
                return
            self.het[leader] = job
        log.jobs.append(job)

    def _job(self, lineno: int, cells: list[str], job_text: str, status: int) -> Job:
        def instant(key: str) -> float | None:
            return self._parse(
                lineno, cells, key, parse_instant, "a date such as 2024-03-01T12:00:00"
            )

        def count(key: str) -> float | None:
            return self._parse(lineno, cells, key, parse_count, COUNT_EXPECTED)

        def duration(key: str, bare: float, what: str) -> float | None:
            return self._parse(lineno, cells, key, lambda t: parse_duration(t, bare=bare), what)

        elapsed = "a duration [D-]HH:MM:SS"
        submit, start, end = instant("submit"), instant("start"), instant("end")
        run = duration("elapsed", 60.0, elapsed)
        if run is None and start is not None and end is not None:
            run = end - start
        procs = count("alloccpus")
        nodes = count("nnodes")
        cpu = duration("totalcpu", 60.0, elapsed)
        raw = self._cell(cells, "jobidraw")
        if raw is not None and _PLAIN.fullmatch(raw):
            job_id: int | None = self._job_number(lineno, "jobidraw", raw)
        elif _PLAIN.fullmatch(job_text):
            job_id = self._job_number(lineno, "jobid", job_text)
        else:
            job_id = None  # an array task: a new id (common)
        log = self.log
        job = Job(
            job_id=job_id,
            submit=submit,
            start=start,
            run=run,
            procs=procs,
            requested_procs=count("reqcpus"),
            requested_time=self._parse(
                lineno, cells, "timelimit", _time_limit, f"{elapsed}, UNLIMITED or Partition_Limit"
            ),
            avg_cpu_time=None if cpu is None or not procs else cpu / procs,
            requested_memory=self._parse(
                lineno,
                cells,
                "reqmem",
                lambda t: _memory_per_cpu(t, procs, nodes),
                "a memory size such as 4000Mc, 16Gn or 16G",
            ),
            status=status,
            user=log.users(self._cell(cells, "user")),
            group=log.groups(self._cell(cells, "group")),
            executable=log.executables(self._cell(cells, "jobname")),
            queue=log.queues(self._cell(cells, "qos")),
            partition=log.partitions(self._cell(cells, "partition")),
            line=lineno,
        )
        # (after the SWF fields: a record's first error is the one it always was)
        job.request = self._request(lineno, cells, procs, job.requested_procs, nodes)
        return job

    def _request(
        self,
        lineno: int,
        cells: list[str],
        alloc_cpus: float | None,
        req_cpus: float | None,
        nnodes: float | None,
    ) -> Request:
        """What the job asked of the nodes (module docstring)."""

        def count(key: str) -> float | None:
            value = self._parse(lineno, cells, key, parse_count, COUNT_EXPECTED)
            return value or None  # (0 nodes or CPUs: not known)

        def tres(key: str) -> Tres:
            return (
                parse_field(
                    self._cell(cells, key),
                    _cached_tres,
                    _TRES_EXPECTED,
                    where=self.where,
                    line=lineno,
                    field=self._field(key),
                )
                or Tres()
            )

        asked, held = tres("reqtres"), tres("alloctres")
        req_mem = parse_field(
            self._cell(cells, "reqmem"),
            _cached_req_mem,
            _MEMORY_EXPECTED,
            where=self.where,
            line=lineno,
            field=self._field("reqmem"),
        )
        r_nodes = _first(count("reqnodes"), asked.nodes)
        a_nodes = _first(nnodes or None, held.nodes)
        r_cpus = _first(req_cpus or None, asked.cpus)
        a_cpus = _first(alloc_cpus or None, held.cpus)
        wider = r_nodes is not None and a_nodes is not None and a_nodes > r_nodes
        first, then = (held, asked) if wider else (asked, held)  # (module docstring)
        nodes = a_nodes if wider else _first(r_nodes, a_nodes)
        cpus = _first(a_cpus, r_cpus) if wider else _first(r_cpus, a_cpus)
        gpus = _first(first.gpus, then.gpus)
        cores = per_node(cpus, nodes, whole=True)
        total_mem = _first(first.mem, then.mem)
        if req_mem is None or req_mem[1] == "":
            total_mem = _first(total_mem, None if req_mem is None else req_mem[0])
            mem = per_node(total_mem, nodes, whole=False)
        elif req_mem[1] == "n":
            mem = req_mem[0]
        else:  # per CPU
            mem = None if cores is None else req_mem[0] * cores
            if mem is not None and not mem <= MAX_MEMORY_MIB:
                raise WorkloadError(
                    self.where,
                    f"expected {MEMORY_EXPECTED} per node (here ReqMem per CPU x "
                    f"{cores:.0f} CPUs per node)",
                    line=lineno,
                    field=self._field("reqmem"),
                    value=shown(self._cell(cells, "reqmem") or ""),
                )
        unplaced = []
        if nodes is None and gpus:
            unplaced.append("GPUs")
        if nodes is None and mem is None and total_mem is not None:
            unplaced.append("memory")
        return Request(
            nodes=nodes,
            cores_per_node=cores,
            mem_per_node=mem,
            gpus_per_node=per_node(gpus, nodes, whole=True),
            unplaced=tuple(unplaced),
        )

    def _field(self, key: str) -> str:
        """The header's name of column ``key`` (as errors name it)."""
        return self.names[self.columns[key]] if key in self.columns else key


@dataclass(frozen=True)
class Tres:
    """What a TRES list (``ReqTRES``, ``AllocTRES``) says of a job: its nodes, CPUs,
    memory (MiB, the job's total) and GPUs (the job's total; 0 when the list names none).
    None: not said (``Tres()``: no list at all)."""

    nodes: float | None = None
    cpus: float | None = None
    mem: float | None = None
    gpus: float | None = None


def parse_tres(text: str) -> Tres:
    """A TRES list ``billing=8,cpu=8,gres/gpu=4,mem=64G,node=1`` (module docstring): names
    are read in any case, the others (billing, energy, licenses, ...) ignored. ValueError
    for anything but ``name=value,...``; OutOfRange for a count or size beyond its bound
    or a name read here given twice with different values."""
    values: dict[str, str] = {}
    for item in text.split(","):
        name, eq, value = item.strip().partition("=")
        name = name.lower()
        if not eq or not name:
            raise ValueError(text)
        if name in values and values[name] != value and _read_tres(name):
            raise OutOfRange(f"each TRES once ({shown(name)} given twice, with different values)")
        values[name] = value
    typed = [parse_count(v) for k, v in values.items() if k.startswith("gres/gpu:")]
    gpus = parse_count(values["gres/gpu"]) if "gres/gpu" in values else float(sum(typed))
    if gpus > MAX_PROCS:
        raise OutOfRange(_GPUS_EXPECTED)
    nodes, cpus, mem = (
        (parse(values[name]) or None) if name in values else None  # (0: not known)
        for name, parse in (("node", parse_count), ("cpu", parse_count), ("mem", _tres_mem))
    )
    return Tres(nodes=nodes, cpus=cpus, mem=mem, gpus=gpus)


def _read_tres(name: str) -> bool:
    return name in ("node", "cpu", "mem", "gres/gpu") or name.startswith("gres/gpu:")


def _tres_mem(text: str) -> float:
    """MiB of a TRES ``mem=`` value (``64G``, ``1.50T``, ``4000M``; no letter: MB)."""
    m = _TRES_SIZE.fullmatch(text)
    if m is None:
        raise ValueError(text)
    return checked_memory(float(m[1]) * _MEMORY_KB[(m[2] or "M").upper()]) / 1024.0


def _req_mem(text: str) -> tuple[float, str] | None:
    """(MiB, ``n`` per node / ``c`` per CPU / ``""`` the job's total) of a ReqMem cell;
    None for 0 (``--mem=0``: a whole node's memory, unknown here)."""
    m = _MEMORY.fullmatch(text)
    if m is None:
        raise ValueError(text)
    kb = checked_memory(float(m[1]) * _MEMORY_KB[(m[2] or "M").upper()])
    return (kb / 1024.0, m[3].lower()) if kb > 0 else None


# Logs repeat the same few TRES lists and sizes: each text is parsed once (Tres is frozen;
# refusals are not cached, they raise again).
_cached_tres = functools.lru_cache(maxsize=1 << 16)(parse_tres)
_cached_req_mem = functools.lru_cache(maxsize=1 << 12)(_req_mem)


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def _time_limit(text: str) -> float | None:
    """Seconds of a Timelimit; None (-1 in SWF) when there is none or it is the partition's."""
    if text.lower() in _LIMITLESS:
        return None
    return parse_duration(text, bare=60.0)


def _memory_per_cpu(text: str, procs: float | None, nodes: float | None) -> float | None:
    """KB per processor of a ReqMem cell (module docstring); None when it cannot be said."""
    m = _MEMORY.fullmatch(text)
    if m is None:
        raise ValueError(text)
    kb = checked_memory(float(m[1]) * _MEMORY_KB[(m[2] or "M").upper()])
    if kb <= 0:
        return None
    if m[3].lower() == "c":
        return kb
    if not procs or not nodes:
        return None
    return kb * nodes / procs


def _weighted(a: float | None, wa: float, b: float | None, wb: float) -> float | None:
    if a is None or b is None or wa + wb <= 0:
        return None
    return (a * wa + b * wb) / (wa + wb)


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _merge(job: Job, part: Job) -> None:
    """Merge a later component of a heterogeneous job into ``job`` (module docstring)."""
    wa, wb = job.procs or 0.0, part.procs or 0.0
    job.avg_cpu_time = _weighted(job.avg_cpu_time, wa, part.avg_cpu_time, wb)
    job.requested_memory = _weighted(job.requested_memory, wa, part.requested_memory, wb)
    job.procs = _add(job.procs, part.procs)
    job.requested_procs = _add(job.requested_procs, part.requested_procs)
    for name in ("run", "requested_time"):
        a, b = getattr(job, name), getattr(part, name)
        setattr(job, name, None if a is None or b is None else max(a, b))
    for name in ("submit", "start"):
        a, b = getattr(job, name), getattr(part, name)
        setattr(job, name, b if a is None else a if b is None else min(a, b))
    if job.status == 1 and part.status != 1:
        job.status = part.status
    job.request = _merged_request(job.request, part.request)


def _merged_request(a: Request | None, b: Request | None) -> Request | None:
    """The request of two components of a heterogeneous job: their nodes added, the larger
    per-node values; unknown where either is unknown."""
    if a is None or b is None:
        return None

    def larger(x: float | None, y: float | None) -> float | None:
        return None if x is None or y is None else max(x, y)

    return Request(
        nodes=_add(a.nodes, b.nodes),
        cores_per_node=larger(a.cores_per_node, b.cores_per_node),
        mem_per_node=larger(a.mem_per_node, b.mem_per_node),
        gpus_per_node=larger(a.gpus_per_node, b.gpus_per_node),
        exclusive=larger(a.exclusive, b.exclusive),
        unplaced=tuple(sorted(set(a.unplaced) | set(b.unplaced))),
    )
