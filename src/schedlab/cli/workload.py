"""``schedlab workload info``, ``generate`` and ``convert``: a workload on its own."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from schedlab.cli.common import (
    ColumnsOpt,
    WorkloadArg,
    check_outputs,
    columns_option,
    job_attributes,
    out,
    print_json,
    wrote,
)
from schedlab.errors import ConfigError, printable
from schedlab.outputs import is_stdout

if TYPE_CHECKING:
    from schedlab.workload.job import Workload

workload_app = typer.Typer(no_args_is_help=True, help="Inspect, generate and convert workloads.")


@workload_app.command("info")
def workload_info(
    workload: WorkloadArg,
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
    columns: ColumnsOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """Size, span, load, partitions and skipped jobs of a workload.

    A trace of several partitions (SWF field 16) gets a table of them: jobs, share of the
    work, peak of processors in use and offered load on that peak; offered loads above 1
    are warned about.
    """
    from schedlab.workload.info import describe
    from schedlab.workload.load import load_workload

    wl = load_workload(
        workload, max_procs=procs, columns=columns_option(columns), note_partitions=False
    )
    info = describe(wl)
    if as_json:
        print_json(info)
        return
    from schedlab.humanize import Grid, fit, short_source

    rows = _info_rows(info, wl.header_values.get("TimeZoneString"))
    title = short_source(printable(str(info["source"])))
    for table in fit(Grid(title, ["", ""], rows, show_header=False), out.width):
        out.print(table)
    _print_partitions(info["partitions"])
    for warning in info["warnings"]:
        out.print(f"warning: {printable(warning)}", highlight=False)


def _info_rows(info: dict[str, Any], zone: str | None) -> list[list[str]]:
    """The rows of `workload info` in units (`schedlab.humanize`): submissions as dates
    when the log says when it started (UnixStartTime, in its TimeZoneString), else as
    times from its origin; --json keeps the raw numbers."""
    from schedlab.humanize import (
        human_count,
        human_date,
        human_duration,
        metric_label,
        metric_text,
    )

    try:
        start: float | None = float(info.get("unix_start_time") or "")
    except ValueError:
        start = None

    def when(seconds: float) -> str:
        if start is None:
            return f"{human_duration(seconds)} from the log's origin"
        return human_date(start + seconds, zone)

    rows = []
    for key, value in info.items():
        if key in ("source", "skipped_by_reason", "header", "partitions", "warnings"):
            continue
        if key in ("first_submit", "last_submit"):
            rows.append([f"{key.split('_')[0]} submission", when(float(value))])
        elif key == "span_days":
            rows.append(["submission span", human_duration(float(value) * 86400.0)])
        elif key == "unix_start_time":
            text = human_date(start, zone) if start is not None else printable(str(value))
            rows.append(["log start (UnixStartTime)", text or "-"])
        else:  # header text comes from the file
            rows.append([metric_label(key), printable(metric_text(key, value))])
        if key == "skipped":
            for reason, count in info["skipped_by_reason"].items():
                rows.append([f"  skipped: {reason}", human_count(count)])
    return rows


def _print_partitions(rows: list[dict[str, Any]], limit: int = 40) -> None:
    """The partitions table of `workload info` (the most jobs first), when there are any."""
    if not rows or (len(rows) == 1 and rows[0]["partition"] < 0):
        return
    from schedlab.humanize import Grid, fit, human_share

    shown = sorted(rows, key=lambda r: (-r["jobs"], r["partition"]))[:limit]
    body = []
    for r in shown:
        body.append(
            [
                str(r["partition"]) if r["partition"] >= 0 else "-",
                printable(r["name"]),
                f"{r['jobs']:,}",
                human_share(r["work_share"]),
                f"{r['peak_procs']:,}" + ("" if r["waits_known"] else "*"),
                f"{r['offered_load']:.3f}",
            ]
        )
    notes = []
    if not all(r["waits_known"] for r in shown):
        notes.append("* jobs without a wait time counted from their submit")
    if len(rows) > limit:
        notes.append(f"the {limit} with the most jobs; --json lists all {len(rows)}")
    headers = ["partition", "name", "jobs", "work share", "peak procs in use", "offered load"]
    grid = Grid(
        f"{len(rows)} partitions (SWF field 16)",
        headers,
        body,
        keys=2,
        right=[True, False, True, True, True, True],
        caption="; ".join(notes) or None,
        letters=("", "N", ""),
    )
    for table in fit(grid, out.width):
        out.print(table)


@workload_app.command("generate")
def workload_generate(
    spec: Annotated[
        str,
        typer.Argument(
            help="Model spec: lublin:jobs=10000,procs=256,seed=1, "
            "hlw:n=128,nodes=64,pi=0.99,seed=1 or mmc:servers=4,load=0.9,jobs=10000,seed=1"
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output .swf or .swf.gz")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Generate a workload from a model and write it as SWF."""
    from schedlab.workload.load import is_model_spec, load_workload
    from schedlab.workload.swf import write_swf

    if not is_model_spec(spec):
        from schedlab.workload.load import MODELS

        raise ConfigError("model spec", spec, [f"{m}:key=value,..." for m in MODELS])
    check_outputs({"--output": output}, force=force, tables=False)
    wl = load_workload(spec)
    write_swf(wl, output)
    wrote(f"{len(wl):,} jobs to {'standard output' if is_stdout(output) else output}")


@workload_app.command("convert")
def workload_convert(
    source: WorkloadArg,
    output: Annotated[Path, typer.Argument(help="Output .swf or .swf.gz")],
    procs: Annotated[int | None, typer.Option(help="Machine size override.")] = None,
    columns: ColumnsOpt = None,
    load_factor: Annotated[float, typer.Option(help="Scale the load: submit times x 1/F.")] = 1.0,
    drop_status: Annotated[
        str | None, typer.Option(help="Drop jobs with these SWF statuses, e.g. 0,5.")
    ] = None,
    first: Annotated[int | None, typer.Option(help="Keep only the first N jobs.")] = None,
    start: Annotated[
        float | None, typer.Option(help="Keep jobs submitted at or after this time (s).")
    ] = None,
    end: Annotated[
        float | None, typer.Option(help="Keep jobs submitted before this time (s).")
    ] = None,
    estimates: Annotated[
        str | None,
        typer.Option(help="Add Tsafrir-model estimates (field 9) where missing: seed=S,..."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing OUTPUT.")] = False,
) -> None:
    """Transform a workload (clean, cut, rescale, add estimates) and write it as SWF.

    Also turns a Slurm, PBS or CSV log into SWF (found by its content, or named: slurm:,
    pbs:, csv:). The output's fields are integers (fractional values are rounded: submit
    times down, durations up), its MaxJobs/MaxRecords count the jobs written, and a
    `; schedlab:` header line records what was applied. OUTPUT is never the input; an
    existing OUTPUT needs --force.
    """
    from schedlab.scenario import require_jobs
    from schedlab.workload import transforms
    from schedlab.workload.export import for_swf
    from schedlab.workload.importers import parse_source
    from schedlab.workload.load import load_workload
    from schedlab.workload.swf import write_swf

    path = parse_source(source).path  # the file, without a slurm:/pbs:/csv: prefix
    check_outputs({"OUTPUT": output}, force=force, inputs=[path], tables=False)
    wl = load_workload(
        source, max_procs=procs, columns=columns_option(columns), note_partitions=False
    )
    applied: list[str] = []
    if procs is not None:
        applied.append(f"machine size set to {procs}")
    if drop_status:
        try:
            statuses = tuple(int(s) for s in drop_status.split(","))
        except ValueError:
            raise ConfigError("--drop-status", drop_status, "comma-separated integers") from None
        wl = transforms.clean_by_status(wl, drop=statuses)
        applied.append(f"jobs with status {drop_status} dropped")
    if start is not None or end is not None:
        wl = transforms.time_window(
            wl, float("-inf") if start is None else start, float("inf") if end is None else end
        )
        applied.append(f"submit times in [{start or '-inf'}, {end or 'inf'}) s kept")
    if first is not None:
        wl = transforms.first_jobs(wl, first)
        applied.append(f"first {first} jobs kept")
    if load_factor != 1.0:
        wl = transforms.scale_load(wl, load_factor)
        applied.append(f"load factor {load_factor:g} (submit times x 1/{load_factor:g})")
    wl = job_attributes(wl, estimates, None, None)
    if estimates is not None:
        applied.append(f"Tsafrir estimates added where missing ({estimates})")
    require_jobs(wl)
    _note_dropped_requests(wl)
    wl = for_swf(wl, source=Path(path).name, applied=applied)
    write_swf(wl, output)
    wrote(f"{len(wl):,} jobs to {'standard output' if is_stdout(output) else output}")


def _note_dropped_requests(wl: Workload) -> None:
    """Say what of the jobs' node requests SWF cannot carry (docs/importers.md): it keeps
    processors (fields 5/8) and memory per processor (field 10) only."""
    import numpy as np

    from schedlab.notes import note

    lost = {
        "node counts": "req_nodes",
        "cores per node": "req_cores_per_node",
        "memory per node": "req_mem_per_node",
        "GPUs": "req_gpus_per_node",
        "exclusive nodes": "exclusive",
    }
    given = {  # (> 0: jobs with GPUs, asking for whole nodes; NaN: unknown)
        what: int(np.count_nonzero(wl.attributes[name] > 0))
        for what, name in lost.items()
        if name in wl.attributes
    }
    given = {what: n for what, n in given.items() if n}
    if given:
        counts = ", ".join(
            f"{what} ({n:,} {'job' if n == 1 else 'jobs'})" for what, n in given.items()
        )
        note(
            f"SWF has no field for {counts}: not written (SWF keeps processors, fields 5/8, "
            "and requested memory per processor, field 10, where the log gave it)"
        )
