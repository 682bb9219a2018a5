"""The in-memory workload: a columnar, submit-ordered table of rigid jobs.

Jobs live in numpy columns rather than one object each: a 243k-job trace then costs a few
tens of MB and every transform or metric is a vector operation. The 18 raw SWF fields of every
kept job are carried along (`fields`) so that a trace written back is the trace that was read
(SPEC section 2); the engine's view of a job (submit, run, requested time, processors) is
derived from them with the conventions of SPEC section 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from schedlab.errors import ConfigError, WorkloadError
from schedlab.validators import MAX_TIME as MAX_TIME  # re-exported: readers bound times by it
from schedlab.validators import check_int

# Name of each of the 18 SWF fields, in file order (field k of the format is index k - 1).
SWF_FIELDS: tuple[str, ...] = (
    "job_id",
    "submit_time",
    "wait_time",
    "run_time",
    "allocated_procs",
    "avg_cpu_time",
    "used_memory",
    "requested_procs",
    "requested_time",
    "requested_memory",
    "status",
    "user_id",
    "group_id",
    "executable_id",
    "queue_id",
    "partition_id",
    "preceding_job_id",
    "think_time",
)
N_FIELDS = len(SWF_FIELDS)
F = {name: i for i, name in enumerate(SWF_FIELDS)}

# Per-job attributes beyond the 18 SWF fields (SPEC 1), by name -> numpy dtype.
# ``deadline_time``: seconds from submission by which a non-priority job must end (DBF,
# N'Takpé and Suter); NaN for priority jobs. Relative on purpose: load scaling moves submissions and
# a deadline rule such as "submit + max(24 h, 2 x run)" must move with them.
# ``parallel_fraction``: pi of Amdahl's law for a moldable job (engine.durations); NaN for a
# rigid one. Its run and requested times are those at its requested size; a moldable-aware
# policy may start it on another processor count (the engine computes the time).
# ``req_nodes``, ``req_cores_per_node``, ``req_mem_per_node`` (MiB), ``req_gpus_per_node``
# and ``exclusive`` (1.0 whole nodes asked for, 0.0 not): what a job of a Slurm, PBS or CSV
# log asks of the nodes (docs/importers.md); NaN where the log does not say. A job whose
# ``req_nodes`` is NaN is a plain processor request (SWF fields 5/8).
ATTRIBUTES: dict[str, type] = {
    "deadline_time": np.float64,
    "parallel_fraction": np.float64,
    "req_nodes": np.float64,
    "req_cores_per_node": np.float64,
    "req_mem_per_node": np.float64,
    "req_gpus_per_node": np.float64,
    "exclusive": np.float64,
}

# Reasons a job of a trace is not simulated; counted, never dropped silently (SPEC 2).
SKIP_REASONS: tuple[str, ...] = ("nonpositive_run_time", "nonpositive_procs", "wider_than_machine")

# Largest machine size (processors) schedlab accepts: 2**31 - 1. The largest machines have
# about 10**7 cores, so this leaves two orders of magnitude of room, while sums of processor
# counts over billions of jobs stay exact in the engine's 64-bit integers (int64 in numpy,
# `long long` in the C profile) and in float64. Bigger values are typos or corrupt headers.
MAX_PROCS = 2**31 - 1
# Job ids (SWF field 1) are integers of magnitude below 2**53: the fields are float64, which
# hold every such integer exactly (and the per-job table's int64 `job_id` holds them too).
JOB_ID_LIMIT = 2**53
JOB_ID_EXPECTED = f"expected an integer job id of magnitude below 2**53 ({JOB_ID_LIMIT})"
# Latest instant (s) a submit time may reach after generation or load scaling: at 1e15 s
# float64 still resolves 1/8 s, so a run time added to a submit time keeps its value.
# (Defined in `validators`, so the platform layer below `workload` bounds times with it.)
# Processor counts beyond this are clipped before the int64 cast (they are far wider than
# MAX_PROCS anyway, and the cast of a larger float would wrap to a negative number).
_PROCS_CLIP = float(2**62)


def check_max_procs(value: object, option: str = "max_procs", *, unset: str = "") -> int:
    """`value` as an int if it is a machine size in 1..MAX_PROCS, else ConfigError(option).

    `unset` is appended to the allowed text (e.g. what leaving the option out means).
    """
    allowed = f"an integer number of processors from 1 to {MAX_PROCS}{unset}"
    return check_int(option, value, low=1, high=MAX_PROCS, allowed=allowed)


def derived_procs(fields: np.ndarray) -> np.ndarray:
    """Processors of each job: allocated (field 5) if > 0, else requested (field 8).

    Non-integral counts are truncated; counts beyond 2**62 (wider than any machine) are
    clipped to it rather than wrapped around by the int64 conversion; NaN gives 0.
    """
    alloc = fields[:, F["allocated_procs"]]
    procs = np.where(alloc > 0, alloc, fields[:, F["requested_procs"]])
    procs = np.clip(np.nan_to_num(procs, nan=0.0), -_PROCS_CLIP, _PROCS_CLIP)
    return procs.astype(np.int64)


def bad_job_ids(fields: np.ndarray) -> np.ndarray:
    """Row indices whose job id (field 1) is not an integer of magnitude below 2**53."""
    ids = fields[:, F["job_id"]]
    with np.errstate(invalid="ignore"):
        ok = (np.abs(ids) < JOB_ID_LIMIT) & (ids == np.trunc(ids))
    return np.flatnonzero(~ok)


def _as_int64(column: np.ndarray) -> np.ndarray:
    """An integer SWF column as int64; values int64 cannot hold (NaN, |v| >= 2**63) -> -1.

    -1 is SWF's "unknown", which is what such a value tells; the cast would otherwise wrap
    it to -2**63 with a RuntimeWarning.
    """
    with np.errstate(invalid="ignore"):
        fits = np.abs(column) < 2.0**63
    if fits.all():
        return column.astype(np.int64)
    return np.where(fits, column, -1.0).astype(np.int64)


def derived_requested_time(fields: np.ndarray) -> np.ndarray:
    """User estimate of each job: requested time (field 9) if > 0, else the run time."""
    req = fields[:, F["requested_time"]]
    return np.where(req > 0, req, fields[:, F["run_time"]])


@dataclass(eq=False)
class Workload:
    """Jobs to simulate, sorted by submit time (ties keep trace order).

    `fields` is an (n, 18) float64 array of raw SWF values; `max_procs` the machine size P;
    `header` the SWF header lines (without the leading ';'); `skipped` counts the jobs of
    the source that were not kept, by reason; `source` names where the jobs came from.
    `attributes` holds per-job values SWF has no field for (SPEC 1: priority, deadline, ...),
    one array of n values per name, kept aligned with the rows by every transform; see
    `ATTRIBUTES` for the names the library understands.
    """

    fields: np.ndarray
    max_procs: int
    header: list[str] = field(default_factory=list)
    source: str = "<memory>"
    skipped: dict[str, int] = field(default_factory=dict)
    reordered: int = 0
    attributes: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.fields = np.ascontiguousarray(self.fields, dtype=np.float64).reshape(-1, N_FIELDS)
        self.max_procs = check_max_procs(self.max_procs)
        n = self.fields.shape[0]
        for name, values in self.attributes.items():
            if name not in ATTRIBUTES:
                raise ConfigError("job attribute", name, sorted(ATTRIBUTES))
            if len(values) != n:
                raise ConfigError(
                    f"job attribute {name}", f"{len(values)} values", f"{n}, one per job"
                )

    # -- construction -----------------------------------------------------------------
    @classmethod
    def from_fields(
        cls,
        fields: np.ndarray,
        *,
        max_procs: int | None = None,
        header: list[str] | None = None,
        source: str = "<memory>",
        skipped: Mapping[str, int] | None = None,
        attributes: Mapping[str, np.ndarray] | None = None,
    ) -> Workload:
        """Apply SPEC section 2 to raw SWF rows: skip unrunnable jobs, sort by submit time.

        Machine size: `max_procs` if given (1 to `MAX_PROCS`, else ConfigError), else the
        widest runnable job that fits in `MAX_PROCS` (1 if there is none); jobs wider than
        the machine, including any wider than `MAX_PROCS`, are skipped as
        ``wider_than_machine``. Every row may be skipped: the result then has no jobs.
        ``attributes`` (one value per row) follow their rows. A job id (field 1) that is
        not an integer of magnitude below 2**53 raises `WorkloadError` naming `source`.
        """
        fields = np.asarray(fields, dtype=np.float64).reshape(-1, N_FIELDS)
        if max_procs is not None:
            max_procs = check_max_procs(max_procs)
        bad_ids = bad_job_ids(fields)
        if bad_ids.size:
            row = int(bad_ids[0])
            raise WorkloadError(
                source,
                f"{JOB_ID_EXPECTED}, in row {row + 1}",
                field="1 (job_id)",
                value=repr(float(fields[row, F["job_id"]])),
            )
        counts = {reason: 0 for reason in SKIP_REASONS}
        if skipped:
            for k, v in skipped.items():
                counts[k] = counts.get(k, 0) + int(v)
        run = fields[:, F["run_time"]]
        procs = derived_procs(fields)
        bad_run = ~(run > 0)
        bad_procs = ~bad_run & ~(procs > 0)
        keep = ~bad_run & ~bad_procs
        counts["nonpositive_run_time"] += int(bad_run.sum())
        counts["nonpositive_procs"] += int(bad_procs.sum())
        if max_procs is None:
            fits = keep & (procs <= MAX_PROCS)
            max_procs = int(procs[fits].max()) if fits.any() else 1
        too_wide = keep & (procs > max_procs)
        counts["wider_than_machine"] += int(too_wide.sum())
        keep &= ~too_wide
        kept = fields[keep]
        attrs = {k: np.asarray(v)[keep] for k, v in (attributes or {}).items()}
        submit = kept[:, F["submit_time"]]
        reordered = int(np.count_nonzero(np.diff(submit) < 0)) if len(submit) > 1 else 0
        if reordered:
            order = np.argsort(submit, kind="stable")
            kept = kept[order]
            attrs = {k: v[order] for k, v in attrs.items()}
        return cls(
            fields=kept,
            max_procs=max_procs,
            header=list(header or []),
            source=source,
            skipped=counts,
            reordered=reordered,
            attributes=attrs,
        )

    @classmethod
    def from_columns(
        cls,
        *,
        submit_time: np.ndarray,
        run_time: np.ndarray,
        procs: np.ndarray,
        requested_time: np.ndarray | None = None,
        user_id: np.ndarray | None = None,
        group_id: np.ndarray | None = None,
        queue_id: np.ndarray | None = None,
        status: np.ndarray | None = None,
        max_procs: int | None = None,
        header: list[str] | None = None,
        source: str = "<memory>",
    ) -> Workload:
        """Build a workload from per-job columns (generators, tests); job ids are 1..n."""
        n = len(submit_time)
        fields = np.full((n, N_FIELDS), -1.0)
        fields[:, F["job_id"]] = np.arange(1, n + 1)
        fields[:, F["submit_time"]] = submit_time
        fields[:, F["run_time"]] = run_time
        fields[:, F["allocated_procs"]] = procs
        fields[:, F["requested_procs"]] = procs
        if requested_time is not None:
            fields[:, F["requested_time"]] = requested_time
        fields[:, F["status"]] = 1 if status is None else status
        for name, col in (("user_id", user_id), ("group_id", group_id), ("queue_id", queue_id)):
            if col is not None:
                fields[:, F[name]] = col
        return cls.from_fields(fields, max_procs=max_procs, header=header, source=source)

    def with_fields(self, fields: np.ndarray, **changes: object) -> Workload:
        """A copy of this workload with the same jobs, their values in ``fields`` changed.

        Same machine, header, source and job attributes; ``changes`` overrides any of them.
        Use `take` to keep a subset of the jobs.
        """
        attrs: dict[str, object] = {
            "max_procs": self.max_procs,
            "header": list(self.header),
            "source": self.source,
            "skipped": dict(self.skipped),
            "reordered": self.reordered,
            "attributes": {k: v.copy() for k, v in self.attributes.items()},
        }
        attrs.update(changes)
        return Workload(fields=fields, **attrs)  # type: ignore[arg-type]

    def take(self, rows: np.ndarray | slice, **changes: object) -> Workload:
        """A copy holding only ``rows`` (a boolean mask, indices or a slice), attributes too."""
        attributes = {k: np.array(v[rows]) for k, v in self.attributes.items()}
        return self.with_fields(np.array(self.fields[rows]), attributes=attributes, **changes)

    def with_attribute(self, name: str, values: np.ndarray) -> Workload:
        """A copy with job attribute ``name`` set (one value per job, see `ATTRIBUTES`)."""
        attributes = {k: v.copy() for k, v in self.attributes.items()}
        attributes[name] = np.asarray(values, dtype=ATTRIBUTES.get(name, np.float64)).copy()
        return self.with_fields(self.fields.copy(), attributes=attributes)

    # -- columns ------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.fields.shape[0])

    def column(self, name: str) -> np.ndarray:
        """Raw SWF column by its name in SWF_FIELDS."""
        return self.fields[:, F[name]]

    @property
    def job_id(self) -> np.ndarray:
        return _as_int64(self.fields[:, F["job_id"]])

    @property
    def submit_time(self) -> np.ndarray:
        return self.fields[:, F["submit_time"]]

    @property
    def run_time(self) -> np.ndarray:
        return self.fields[:, F["run_time"]]

    @property
    def requested_time(self) -> np.ndarray:
        return derived_requested_time(self.fields)

    @property
    def procs(self) -> np.ndarray:
        return derived_procs(self.fields)

    @property
    def user_id(self) -> np.ndarray:
        return _as_int64(self.fields[:, F["user_id"]])

    @property
    def group_id(self) -> np.ndarray:
        return _as_int64(self.fields[:, F["group_id"]])

    @property
    def queue_id(self) -> np.ndarray:
        return _as_int64(self.fields[:, F["queue_id"]])

    @property
    def status(self) -> np.ndarray:
        return _as_int64(self.fields[:, F["status"]])

    @property
    def header_values(self) -> dict[str, str]:
        """`Key: value` header lines as a dict (the first occurrence of a key wins).

        First, as `read_swf` reads the machine size: a `; MaxProcs:` comment further down a
        file (e.g. from concatenated traces) does not override the header at its top.
        """
        out: dict[str, str] = {}
        for line in self.header:
            key, sep, value = line.partition(":")
            if sep:
                out.setdefault(key.strip(), value.strip())
        return out

    @property
    def total_skipped(self) -> int:
        return int(sum(self.skipped.values()))

    def offered_load(self) -> float:
        """Sum(procs x run) / (P x submit span): the load the trace offers the machine."""
        if len(self) < 2:
            return 0.0
        span = float(self.submit_time[-1] - self.submit_time[0])
        if span <= 0:
            return float("inf")
        work = float(np.dot(self.procs.astype(np.float64), self.run_time))
        return work / (self.max_procs * span)
