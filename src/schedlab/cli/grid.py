"""``schedlab grid run``, ``grid meta`` and ``tdcs run``: meta-schedulers and dispatchers
over the clusters of a platform."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from schedlab.cli.common import (
    GRID,
    TDCS,
    JobsOutOpt,
    check_outputs,
    parse_items,
    parse_params,
    print_frame,
    print_json,
    print_registered,
    print_summary,
)
from schedlab.errors import ConfigError
from schedlab.metrics.keys import GRID_STREAM_KEYS
from schedlab.notes import note
from schedlab.outputs import same_file

grid_app = typer.Typer(no_args_is_help=True, help="Grids: meta-schedulers over several clusters.")
tdcs_app = typer.Typer(
    no_args_is_help=True,
    help="Absolute priorities across clusters (dispatchers): Baranov and Tikhomirov "
    "(Computational Technologies 2017).",
)

GROUP_COLUMNS = (*GRID_STREAM_KEYS, "killed")  # of the per-site, org or stream table


def grid_workload(
    platform: Any,
    workload: str | None,
    mode: str,
    generator: dict[str, Any],
    seed: int,
) -> Any:
    """The stream of a platform run: the one the platform ships with (``workload`` None:
    its ``[stream]`` generator, by default that of Caron et al., LIP RR-2005-13), or an SWF
    trace replayed as a global or local stream."""
    if workload is None:
        from schedlab.workload.streams import platform_stream

        try:
            return platform_stream(platform, generator, seed)
        except ConfigError as exc:
            if exc.option.startswith("stream."):
                raise ConfigError("--generator", generator, exc.allowed) from None
            raise
    from schedlab.workload.grid import GridWorkload
    from schedlab.workload.importers import read_trace

    return GridWorkload.from_swf(read_trace(workload, on_note=note), platform, mode)


@grid_app.command("run")
def grid_run(
    platform_file: Annotated[
        Path | None,
        typer.Argument(
            help="A platform (TOML, e.g. `schedlab example platform-dirac`); with --workload and "
            "no platform, one is derived from the trace (peak concurrency per partition)."
        ),
    ] = None,
    meta: Annotated[
        str,
        typer.Option(
            help="Meta-scheduler: push, push_random, push_round_robin, static, "
            "pilot_simple, pilot_filling, direct, or a dispatcher of Baranov and Tikhomirov: "
            "tdcs, round_robin, least_loaded, random (see `schedlab grid meta`)."
        ),  # fmt: skip
    ] = "push",
    refresh: Annotated[
        float | None, typer.Option(help="push: information refresh period Δt (s); 0: exact.")
    ] = None,
    param: Annotated[
        list[str], typer.Option("--param", help="Meta-scheduler parameter KEY=VALUE.")
    ] = [],  # noqa: B006
    workload: Annotated[
        str | None,
        typer.Option(
            help="An SWF grid trace (e.g. LCG-2005); default: the generator of Caron et al. "
            "(LIP RR-2005-13)."
        ),
    ] = None,
    mode: Annotated[
        str, typer.Option(help="A trace's jobs: global (to the meta-scheduler) or local.")
    ] = "global",
    generator: Annotated[
        str | None,
        typer.Option(help="Generator settings, e.g. meta_jobs=500,local_jobs=0 (dedicated)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the generator and the meta-scheduler.")] = 1,
    check: Annotated[bool, typer.Option(help="Check the kernel's invariants.")] = False,
    jobs_out: JobsOutOpt = None,
    timeseries_out: Annotated[
        Path | None,
        typer.Option(
            help="Write jobs queued/running/done over time (200 points; per --by group if "
            "given, else with the matcher's requests per bin) (.csv or .parquet)."
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(help="Also show the metrics per site, org or stream."),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing --jobs-out/--timeseries-out.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Simulate a grid: a meta-scheduler over the platform's clusters (Caron et al., LIP
    RR-2005-13)."""
    from schedlab.grid.registry import make_meta_scheduler
    from schedlab.metrics.grid import GROUP_KEYS, check_group_key
    from schedlab.results import TDCS_GROUP_KEYS
    from schedlab.simulation import run_grid
    from schedlab.workload.models.tdcs import TdcsWorkload

    params = parse_params(param)
    if refresh is not None:
        params["refresh"] = refresh
    instance = make_meta_scheduler(meta, **params)
    if by is not None and by not in TDCS_GROUP_KEYS:
        check_group_key(by)
    check_outputs(
        {"--jobs-out": jobs_out, "--timeseries-out": timeseries_out},
        force=force,
        inputs=[workload, platform_file],
    )
    if jobs_out is not None and timeseries_out is not None and same_file(jobs_out, timeseries_out):
        raise ConfigError("--timeseries-out", str(timeseries_out), "a file other than --jobs-out")
    if platform_file is not None:
        from schedlab.grid.platforms import load_platform_source

        platform = load_platform_source(str(platform_file))  # a file, or builtin:NAME
    elif workload is not None:
        from schedlab.workload.grid import derive_platform
        from schedlab.workload.importers import read_trace

        platform = derive_platform(read_trace(workload))
    else:
        raise ConfigError("PLATFORM", None, "a platform file, or --workload TRACE to derive one")
    settings = parse_items("--generator", generator or "")
    try:
        wl = grid_workload(platform, workload, mode, settings, seed)
        wl.check_platform(platform)  # (the run does it too) every job ends before 1e15 s
    except ConfigError as exc:  # a generator's setting: name the option that set it
        key = exc.option.rsplit(" ", 1)[-1]
        if workload is not None or (key not in settings and key != "seed"):
            raise
        option = "--seed" if key == "seed" else f"--generator {key}"
        raise ConfigError(option, exc.value, exc.allowed) from None
    if not len(wl):  # every metric would be undefined
        if workload is not None:
            raise ConfigError("--workload", workload, "a trace with at least one job to run")
        raise ConfigError(
            "--generator",
            generator or "(the platform's stream)",
            "settings that draw at least one job (these draw none: a longer span, a higher "
            "load or more jobs)",
        )
    if by is not None:  # a TDCS stream is also split by priority, origin or cluster
        check_group_key(by, TDCS_GROUP_KEYS if isinstance(wl, TdcsWorkload) else GROUP_KEYS)
    from schedlab.grid.dirac import check_polling

    submits = getattr(wl, "grid", wl).submit_at  # DIRAC agents poll while jobs are to come
    check_polling(instance, len(platform.queues()), float(submits.max()), "--param retry")
    # every file read so far (the platform, its measured service times, a trace) is an input
    # no output may replace: refused now, before the run, whatever option named it
    check_outputs(
        {"--jobs-out": jobs_out, "--timeseries-out": timeseries_out},
        force=force,
        inputs=[workload, platform_file],
    )
    result = run_grid(platform, wl, instance, seed=seed, check=check)
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    if timeseries_out is not None:
        from schedlab.outputs import write_table

        write_table(result.series(by), timeseries_out)
    summary = result.summary()
    groups = result.by(by) if by is not None else None
    if as_json:
        extra = {} if groups is None else {f"by_{by}": groups.to_dict(orient="records")}
        print_json({"meta": meta, "params": result.meta_params, **summary, **extra})
        return
    stream = (  # the title names files, not paths, and the settings given, not all
        f"{Path(workload).name} ({mode} jobs)"
        if workload is not None
        else f"its stream{f' ({generator})' if generator else ''}, seed {seed}"
    )
    shown = print_summary(
        f"{meta} on {platform.source}: {stream}",
        {"value": summary},
        style=GRID,
        outputs=(jobs_out, timeseries_out),
    )
    if groups is not None:
        print_frame(groups, f"per {by}", wanted=GROUP_COLUMNS, console=shown)


@grid_app.command("meta")
def grid_meta() -> None:
    """List the registered meta-schedulers and their parameters."""
    from schedlab.grid.registry import available_meta_schedulers, meta_scheduler_class

    print_registered("meta-schedulers", available_meta_schedulers(), meta_scheduler_class)


@tdcs_app.command("run")
def tdcs_run(
    platform_file: Annotated[
        Path | None,
        typer.Argument(
            help="A platform (TOML); default: builtin:tdcs (`schedlab example platform-tdcs`)."
        ),
    ] = None,
    dispatcher: Annotated[
        str,
        typer.Option(
            help="tdcs, tdcs_no_preemption, round_robin, least_loaded or random; ablations: "
            "least_loaded_speed, tdcs_no_candidate_rule, tdcs_speed_blind, tdcs_step6_literal."
        ),
    ] = "tdcs",
    preemption: Annotated[
        str, typer.Option(help="Local managers: checkpoint, suspend, requeue, cancel or none.")
    ] = "checkpoint",
    checkpoint_overhead: Annotated[
        float, typer.Option(help="Seconds a restart from a checkpoint costs.")
    ] = 60.0,
    horizon: Annotated[
        int | None,
        typer.Option(help="tdcs and its ablations: global jobs a cluster may hold (0: unlimited)."),
    ] = None,
    candidate_rule: Annotated[
        str | None,
        typer.Option(help="tdcs: queue, queue_and_running or fits_by_preemption."),
    ] = None,
    workload: Annotated[
        str | None, typer.Option(help="An SWF trace; default: the pre-registered generator.")
    ] = None,
    priority_from: Annotated[
        str,
        typer.Option(help="Trace priorities: queue (field 15), none, or a CSV job_id,priority."),
    ] = "queue",
    origin: Annotated[
        str, typer.Option(help="Trace origins: round_robin or partition (field 16).")
    ] = "round_robin",
    hours: Annotated[float, typer.Option(help="Generator: hours of arrivals.")] = 72.0,
    load: Annotated[float, typer.Option(help="Generator: offered load.")] = 0.85,
    max_jobs: Annotated[
        int,
        typer.Option(
            help="Generator: the most jobs it may draw; --hours and --load that would draw "
            "more are refused (raise it deliberately for longer runs)."
        ),
    ] = 1_000_000,
    seed: Annotated[int, typer.Option(help="Seed of the generator and of random.")] = 1,
    check: Annotated[bool, typer.Option(help="Check the kernel's invariants.")] = False,
    jobs_out: JobsOutOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --jobs-out.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Simulate the system of Baranov and Tikhomirov (Computational Technologies 2017): a
    dispatcher over clusters with priority managers."""
    from schedlab.grid.tdcs import CONFIGURATIONS, local_manager
    from schedlab.simulation import run_tdcs
    from schedlab.workload.models.tdcs import TdcsWorkload

    # options first, before any file is read or job drawn
    if dispatcher not in CONFIGURATIONS:
        raise ConfigError("--dispatcher", dispatcher, tuple(CONFIGURATIONS))
    for option, value in (("--horizon", horizon), ("--candidate-rule", candidate_rule)):
        field = option[2:].replace("-", "_")
        if value is not None and field not in _params_of(CONFIGURATIONS[dispatcher][0]):
            names = sorted(c for c, (m, _) in CONFIGURATIONS.items() if field in _params_of(m))
            raise ConfigError(option, value, f"only with --dispatcher {' or '.join(names)}")
    local_manager(preemption, checkpoint_overhead)  # --preemption, --checkpoint-overhead
    table = None if priority_from in ("queue", "none") else priority_from
    if table is not None and workload is None:
        raise ConfigError(
            "--priority-from", priority_from, "a table only with --workload (a trace)"
        )
    check_outputs({"--jobs-out": jobs_out}, force=force, inputs=[workload, platform_file, table])
    from schedlab.grid.platforms import load_platform_source

    # a file, or builtin:NAME
    platform = load_platform_source("builtin:tdcs" if platform_file is None else str(platform_file))
    if workload is None:
        wl = _tdcs_stream(platform, hours, load, seed, max_jobs)
    else:
        from schedlab.workload.importers import read_trace

        wl = TdcsWorkload.from_swf(
            read_trace(workload, on_note=note),
            platform,
            priority_from=priority_from,
            origin=origin,
            on_note=note,
        )
    params: dict[str, Any] = {}
    if horizon is not None:
        params["horizon"] = horizon
    if candidate_rule is not None:
        params["candidate_rule"] = candidate_rule
    result = run_tdcs(
        platform,
        wl,
        dispatcher,
        preemption=preemption,
        checkpoint_overhead=checkpoint_overhead,
        seed=seed,
        check=check,
        **params,
    )
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    summary = result.summary()
    if as_json:
        print_json({"dispatcher": dispatcher, "params": params, **summary})
        return
    print_summary(
        f"{dispatcher} on {platform.source}: {wl.source}",
        {"value": summary},
        style=TDCS,
        outputs=(jobs_out,),
    )


def _params_of(meta: str) -> set[str]:
    """The parameter names of a dispatcher (which `tdcs run` options it takes)."""
    import dataclasses

    from schedlab.grid.registry import meta_scheduler_class

    return {f.name for f in dataclasses.fields(meta_scheduler_class(meta).Params)}


# the generator's parameters -> the options of `tdcs run` that set them
_TDCS_OPTIONS = {
    "tdcs generator hours": "--hours",
    "tdcs generator load": "--load",
    "tdcs generator seed": "--seed",
    "tdcs generator max_jobs": "--max-jobs",
}


def _tdcs_stream(platform: Any, hours: float, load: float, seed: int, max_jobs: int) -> Any:
    """The pre-registered streams for `tdcs run`: errors name its options, and a span too
    short to draw a single job is refused (every metric would be undefined)."""
    from schedlab.workload.models.tdcs import generate_tdcs

    try:
        wl = generate_tdcs(platform, hours=hours, load=load, seed=seed, max_jobs=max_jobs)
    except ConfigError as exc:
        option = _TDCS_OPTIONS.get(exc.option)
        if option is None:
            raise
        raise ConfigError(option, exc.value, exc.allowed) from None
    if not len(wl):
        raise ConfigError(
            "--hours",
            hours,
            f"enough hours to draw at least one job at --load {load:g} (this span draws none)",
        )
    return wl
