"""What the paper reproductions share: where the traces are, running the runs, the outputs.

A reproduction is a sweep built in code (`parse_sweep` on a dict), run by `run_sweep` into a
results folder like any other sweep, so an interrupted reproduction resumes where it stopped
and never rewrites a finished run. Its tables are then computed from that folder.

Reproductions only compute: the `Reproduction` they return carries what its figures are
drawn from (``figure_data``), and the report layer (`draw_figures`) draws them (the
experiments layer never imports the report layer).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from schedlab.errors import ConfigError, SchedlabError, WorkloadError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.runner import SweepProgress, run_sweep
from schedlab.experiments.store import ResultStore
from schedlab.experiments.sweep import Sweep, parse_sweep
from schedlab.outputs import atomic_output, write_atomic

if TYPE_CHECKING:
    from typing_extensions import Unpack

TRACES_ENV = "SCHEDLAB_TRACES"
_DEFAULT_TRACE_DIRS = ("../shared/workloads", "shared/workloads", "workloads")


def find_traces(option: str | os.PathLike[str] | None) -> Path:
    """The folder of PWA traces: ``--traces``, else $SCHEDLAB_TRACES, else ../shared/workloads."""
    if option is not None:
        folder = Path(option).expanduser()
        if not folder.is_dir():
            raise ConfigError("--traces", str(option), "an existing folder of .swf.gz traces")
        return folder.resolve()
    env = os.environ.get(TRACES_ENV)
    if env:
        folder = Path(env).expanduser()
        if not folder.is_dir():
            raise ConfigError(TRACES_ENV, env, "an existing folder of .swf.gz traces")
        return folder.resolve()
    for candidate in _DEFAULT_TRACE_DIRS:
        folder = Path(candidate)
        if folder.is_dir():
            return folder.resolve()
    raise ConfigError(
        "--traces",
        None,
        f"no folder of PWA traces found (looked in {', '.join(_DEFAULT_TRACE_DIRS)}); "
        f"pass --traces DIR or set {TRACES_ENV}=DIR",
    )


def trace_file(folder: Path, name: str) -> str:
    """Absolute path of trace ``name`` in ``folder``; WorkloadError if it is missing."""
    path = folder / name
    if not path.is_file():
        raise WorkloadError(str(path), "trace needed by this reproduction is missing")
    return str(path)


def sweep_of(parts: Sequence[Mapping[str, Any]], base_dir: Path, source: str) -> Sweep:
    """Several sweep dicts (e.g. one per kill_on_overrun setting) as one list of runs."""
    runs: list[RunConfig] = []
    labels: dict[str, str] = {}
    for data in parts:
        sweep = parse_sweep(data, base_dir, source)
        for run in sweep.runs:
            if run.run_id not in labels:
                runs.append(run)
                labels[run.run_id] = sweep.policy_label(run)
    return Sweep(source=source, base_dir=base_dir, out=None, runs=runs, policy_labels=labels)


class RunOptions(TypedDict, total=False):
    """How a reproduction's runs execute (the options of `schedlab reproduce`): local
    ``workers`` (default: all cores), a progress callback, or ``dask``: on a Dask cluster,
    "local" or a scheduler address, as `schedlab sweep --dask`."""

    workers: int | None
    on_change: Callable[[SweepProgress], None] | None
    dask: str | None


def execute(sweep: Sweep, out: Path, **options: Unpack[RunOptions]) -> ResultStore:
    """Run what is not done yet into ``out`` (`RunOptions`); a failed run stops the
    reproduction."""
    workers, dask = options.get("workers"), options.get("dask")
    store = ResultStore(out)
    with store:
        progress = run_sweep(
            sweep.runs,
            store,
            base_dir=str(sweep.base_dir),
            policy_labels=sweep.policy_labels,
            executor="dask" if dask else "local",
            workers=workers,
            dask_address=dask,
            on_change=options.get("on_change"),
        )
    if progress.failures:
        first = progress.failures[0]
        raise SchedlabError(
            f"{len(progress.failures)} run(s) of the reproduction failed (first: "
            f"{first.config.get('label')} / {first.config.get('policy')}: {first.error}); "
            f"details in {out / 'failed'}"
        )
    return store


def change(new: float, old: float) -> float:
    """Relative change from ``old`` to ``new`` in percent (NaN when old is 0)."""
    if old == 0 or math.isnan(old) or math.isnan(new):
        return math.nan
    return (new - old) / abs(old) * 100.0


def fmt(value: Any, digits: int = 3) -> str:
    """A table cell: numbers with ``digits`` significant digits, NaN as '-'."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, int):
        return str(value)
    if abs(value) >= 10**digits:
        return f"{value:.0f}"
    return f"{value:.{digits}g}"


def fmt_pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:+.1f}%"


def fmt_change(new: float, old: float) -> str:
    """A table cell: the relative change from ``old`` to ``new`` (`change`), '-' if none."""
    return fmt_pct(change(new, old))


@dataclass(frozen=True)
class Claim:
    """One sentence of a paper tested on our runs: what the paper says (``claim``, with
    the paper's value), what we measured (``ours``), whether the claim holds, and under
    which reading of the paper (``reading``: the main one, or a named sensitivity reading).
    ``name`` is a stable identifier (tests and scripts look claims up by it)."""

    name: str
    claim: str
    paper: Any
    ours: Any
    holds: bool
    reading: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "claim": self.claim,
            "paper": self.paper,
            "ours": _finite(self.ours),
            "holds": bool(self.holds),
            "reading": self.reading,
        }


def _finite(value: Any) -> Any:
    """JSON-safe: a float that is not finite becomes None (null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _cell(value: Any) -> str:
    """A claim's value as a cell: numbers as `fmt`, anything else (names, lists) as text."""
    if (
        value is None
        or isinstance(value, str)
        or (isinstance(value, int | float) and not isinstance(value, bool))
    ):
        return fmt(value)
    return str(value)


def claims_table(claims: Sequence[Claim]) -> tuple[str, list[str], list[list[str]]]:
    """The claims as a table: claim, the paper's value, ours, holds, reading."""
    rows = [
        [c.claim, _cell(c.paper), _cell(c.ours), "yes" if c.holds else "no", c.reading]
        for c in claims
    ]
    return ("The paper's claims, tested", ["claim", "paper", "ours", "holds", "reading"], rows)


@dataclass
class Reproduction:
    """The outcome of one reproduction: JSON rows, side-by-side tables, notes, files, and
    what its figures are drawn from."""

    paper: str  # the paper cited (authors, title, venue) and what is compared
    rows: list[dict[str, Any]]
    tables: list[tuple[str, list[str], list[list[str]]]]  # (title, header, rows of cells)
    notes: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    # the data `report.reproduce.draw_figures` draws (per paper; never in the JSON)
    figure_data: dict[str, Any] = field(default_factory=dict)
    # the paper's claims tested on these runs (in the JSON as "claims" when there are any)
    claims: list[Claim] = field(default_factory=list)

    def claims_json(self) -> dict[str, Any]:
        """``{"claims": [...]}`` when the reproduction tests claims, else nothing."""
        return {"claims": [c.to_json() for c in self.claims]} if self.claims else {}

    def to_json(self) -> dict[str, Any]:
        return {"paper": self.paper, "rows": self.rows, **self.claims_json(), "notes": self.notes}

    def markdown(self) -> str:
        parts = [f"## {self.paper}\n"]
        for title, header, rows in self.tables:
            parts.append(f"### {title}\n")
            parts.append("| " + " | ".join(header) + " |")
            parts.append("|" + "---|" * len(header))
            parts.extend("| " + " | ".join(r) + " |" for r in rows)
            parts.append("")
        if self.notes:
            parts.append("Notes:\n")
            parts.extend(f"- {n}" for n in self.notes)
        return "\n".join(parts) + "\n"

    def write(self, out: Path) -> None:
        """rows.json, tables.md and one CSV per table into ``out``."""
        import csv

        out.mkdir(parents=True, exist_ok=True)
        rows_json = json.dumps(self.to_json(), indent=1, allow_nan=True)
        write_atomic(out / "rows.json", rows_json.encode())
        write_atomic(out / "tables.md", self.markdown().encode())
        self.files += [out / "rows.json", out / "tables.md"]
        for i, (_, header, rows) in enumerate(self.tables, 1):
            path = out / f"table{i}.csv"
            with atomic_output(path) as tmp, tmp.open("w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(header)
                writer.writerows(rows)
            self.files.append(path)
