"""``schedlab run``, ``policies``, ``example`` and ``demo``: one policy on one workload."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from schedlab.cli.common import (
    ColumnsOpt,
    JobsOutOpt,
    WorkloadArg,
    check_outputs,
    columns_option,
    job_attributes,
    out,
    parse_items,
    parse_params,
    print_frame,
    print_json,
    print_registered,
    print_summary,
    progress_callback,
    wrote,
)
from schedlab.errors import ConfigError, OutputError
from schedlab.metrics.keys import HEADLINE_KEYS
from schedlab.notes import note
from schedlab.outputs import is_stdout, same_file, write_atomic

commands = typer.Typer()

BY_COLUMNS = ("user", "group", "queue", "priority", "gpus")


def _effective_params(instance: Any, given: dict[str, Any]) -> dict[str, Any]:
    """The policy's parameters as it runs them (defaults filled in) when it declares them
    as a dataclass, else those given: what ``--json`` records beside the metrics."""
    import dataclasses

    declared = getattr(instance, "params", None)
    if dataclasses.is_dataclass(declared) and not isinstance(declared, type):
        return dataclasses.asdict(declared)
    return dict(given)


def _note_rigid_workload(policy: str, wl: Any) -> None:
    """A policy written for moldable jobs, given none, says so (as dbf does without deadlines):
    every job then runs rigid at its recorded size, which is not what the policy is for."""
    from schedlab.scenario import speedup_models
    from schedlab.schedulers.registry import policy_class

    try:  # (a built-in is found without reading the plug-ins' entry points)
        moldable = getattr(policy_class(policy), "moldable", False)
    except ConfigError:  # an unknown name: the run says so, listing the names
        return
    if not moldable:
        return
    if speedup_models(wl) is None:
        note(
            f"{policy} schedules moldable jobs and no job here is moldable (give --moldable "
            "pi=X, an hlw: workload or an SWF with a MoldableAmdahlPi header line), so every "
            "job runs rigid at its recorded size"
        )


def _has_deadlines(wl: Any) -> bool:
    """True when at least one job of ``wl`` is non-priority (carries a deadline)."""
    import numpy as np

    slack = wl.attributes.get("deadline_time")
    return slack is not None and bool(np.any(~np.isnan(slack)))


def _warmup_option(warmup: str | None, skip_first: int | None) -> str | None:
    """The warm-up cut of --warmup / --skip-first (one of them at most), checked."""
    from schedlab.metrics.summary import warmup_jobs

    if warmup is not None and skip_first is not None:
        raise ConfigError("--warmup/--skip-first", (warmup, skip_first), "one of them")
    cut = warmup if warmup is not None else None if skip_first is None else str(skip_first)
    if cut is not None:
        option = "--warmup" if warmup is not None else "--skip-first"
        try:
            warmup_jobs(cut, 0)  # syntax and range only: the job count is not known yet
        except ConfigError:
            raise ConfigError(option, cut, "N jobs (N >= 0) or X% (0 <= X < 100)") from None
    return cut


def _cluster_option(platform: Path | None, placement: str | None, procs: int | None) -> Any:
    """The `ClusterSpec` of --platform (with --placement), checked before any work."""
    if platform is None:
        if placement is not None:
            raise ConfigError("--placement", placement, "only with --platform CLUSTER.toml")
        return None
    import dataclasses

    from schedlab.platform.cluster import PLACEMENT_RULES, read_cluster

    if procs is not None:
        raise ConfigError("--procs", procs, "none with --platform (its nodes are the machine)")
    cluster = read_cluster(platform)
    if placement is not None:
        if placement not in PLACEMENT_RULES:
            raise ConfigError("--placement", placement, PLACEMENT_RULES)
        cluster = dataclasses.replace(cluster, placement=placement)
    return cluster


def _note_partitions_on_nodes(wl: Any, cluster: Any) -> None:
    """A log of several partitions on a cluster whose node types list none: every job may
    run on every node, which is rarely how the site runs them; say how to say otherwise."""
    import numpy as np

    from schedlab.workload.partitions import partition_names

    if cluster.partitions or cluster.is_processor_model:
        return
    ids = np.unique(wl.column("partition_id"))
    ids = ids[ids >= 0]
    if len(ids) < 2:
        return
    names = partition_names(wl)
    shown = ", ".join(names.get(int(i), str(int(i))) for i in ids[:5])
    more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
    note(
        f"{wl.source}: jobs of {len(ids)} partitions ({shown}{more}) may run on any node of "
        f"{cluster.name}; to keep a partition's jobs on its nodes, list partitions = "
        '["NAME"] in those node types'
    )


@commands.command()
def run(
    workload: WorkloadArg,
    policy: Annotated[
        str, typer.Option("--policy", "-p", help="Policy name (see `schedlab policies`).")
    ] = "easy",
    procs: Annotated[
        int | None, typer.Option(help="Machine size; default: the trace's MaxProcs.")
    ] = None,
    platform: Annotated[
        Path | None,
        typer.Option(
            help="The machine as node types (a cluster file of [[nodes]] tables: cores, memory, "
            "GPUs); jobs are then placed on nodes. See `schedlab example cluster-gpu`."
        ),
    ] = None,
    placement: Annotated[
        str | None,
        typer.Option(help="With --platform: first_fit or best_fit (default: the file's)."),
    ] = None,
    columns: ColumnsOpt = None,
    load_factor: Annotated[float, typer.Option(help="Scale the load: submit times x 1/F.")] = 1.0,
    kill_on_overrun: Annotated[
        bool, typer.Option(help="Kill jobs at their requested time.")
    ] = True,
    param: Annotated[
        list[str], typer.Option("--param", help="Policy parameter KEY=VALUE (repeatable).")
    ] = [],  # noqa: B006
    jobs_out: JobsOutOpt = None,
    timeseries_out: Annotated[
        Path | None,
        typer.Option(help="Write queue length and busy processors over time (.csv or .parquet)."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            help="Also show metrics per class: user, group, queue, priority, or gpus (GPUs "
            "held, with --platform)."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as one JSON object.")
    ] = False,
    check: Annotated[bool, typer.Option(help="Check the invariants while simulating.")] = False,
    estimates: Annotated[
        str | None,
        typer.Option(
            help="Add Tsafrir-model estimates where missing: seed=S (then any other "
            "KEY=VALUE of the model, comma-separated)."
        ),
    ] = None,
    non_priority: Annotated[
        str | None,
        typer.Option(
            help="Mark non-priority jobs with deadlines (for dbf): every=3 or "
            "fraction=0.3,seed=1, then deadline=a, b or seconds, comma-separated (a: "
            "max(24h, 2 x run), b: max(72h, 2 x run))."
        ),
    ] = None,
    deadlines: Annotated[
        Path | None,
        typer.Option(help="Absolute deadlines by job id from a CSV/Parquet (job_id,deadline)."),
    ] = None,
    moldable: Annotated[
        str | None,
        typer.Option(
            help="Make jobs moldable (Amdahl): pi=0.9, optionally with fraction=0.5,seed=1 "
            "(comma-separated); rigid policies still run them at their size."
        ),
    ] = None,
    warmup: Annotated[
        str | None,
        typer.Option(
            help="Leave the first jobs out of the metrics (still simulated): N jobs or X% of "
            "them, e.g. 10%."
        ),
    ] = None,
    skip_first: Annotated[
        int | None, typer.Option(help="Leave the first N jobs out of the metrics (= --warmup N).")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            help="Draw the run: utilization, queue length, wait CDF and a Gantt chart "
            "(.html page, or one .png/.svg/.pdf image)."
        ),
    ] = None,
    plot_window: Annotated[
        str | None,
        typer.Option(
            help="Gantt window of --plot, START:END in s or with a unit (e.g. 2d:3d); "
            "default: the busiest 2 days."
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Replace existing --jobs-out, --timeseries-out or --plot files."
        ),
    ] = False,
) -> None:
    """Replay WORKLOAD through one policy and report the metrics.

    Tables show durations as 2h 13m; --json gives seconds. --jobs-out - writes the per-job
    CSV to standard output (the summary table then goes to stderr).
    """
    import time

    from schedlab.outputs import write_table
    from schedlab.schedulers.registry import make_policy
    from schedlab.simulation import simulate
    from schedlab.workload.job import Workload
    from schedlab.workload.load import load_workload

    clock = time.perf_counter()
    params = parse_params(param)
    # fail fast, before a long read and simulation, on anything we can check now
    cluster = _cluster_option(platform, placement, procs)
    if cluster is not None and not cluster.is_processor_model:
        from schedlab.node_run import node_policy_of

        effective = _effective_params(node_policy_of(policy, params)[1], params)
    else:
        effective = _effective_params(make_policy(policy, **params), params)
    inputs = [workload, deadlines, platform]
    to_stdout = check_outputs(
        {"--jobs-out": jobs_out, "--timeseries-out": timeseries_out}, force=force, inputs=inputs
    )
    if jobs_out is not None and timeseries_out is not None and same_file(jobs_out, timeseries_out):
        raise OutputError("--timeseries-out", str(timeseries_out), "is also --jobs-out")
    if to_stdout and as_json:
        raise OutputError(to_stdout[0], "-", "standard output already carries --json")
    plot_gantt = None
    if plot is not None:
        from schedlab.report.single import check_plot_path, parse_window

        check_plot_path(plot, option="--plot")
        check_outputs({"--plot": plot}, force=force, inputs=inputs, tables=False)
        if plot_window is not None:
            plot_gantt = parse_window(plot_window, option="--plot-window")
    elif plot_window is not None:
        raise ConfigError("--plot-window", plot_window, "only with --plot FILE")
    if by is not None and by not in BY_COLUMNS:
        raise ConfigError("--by", by, BY_COLUMNS)
    if by == "gpus" and (cluster is None or cluster.is_processor_model):
        raise ConfigError("--by", by, "gpus only with --platform CLUSTER.toml of node types")
    cut = _warmup_option(warmup, skip_first)
    machine = cluster.cores if cluster is not None else procs
    wl = load_workload(
        workload,
        max_procs=machine,
        columns=columns_option(columns),
        note_partitions=cluster is None,
    )
    if cluster is not None:
        _note_partitions_on_nodes(wl, cluster)
    wl = job_attributes(wl, estimates, non_priority, deadlines)
    if moldable is not None:
        from schedlab.workload.transforms import make_moldable

        items = parse_items("--moldable", moldable)
        try:
            wl = make_moldable(wl, **items)
        except TypeError:
            raise ConfigError("--moldable", moldable, "pi=X[,fraction=X][,seed=N]") from None
    if by == "priority" and "deadline_time" not in wl.attributes:
        raise ConfigError("--by", by, "priority only with --non-priority or --deadlines")
    if policy == "dbf" and not _has_deadlines(wl):
        note(
            "dbf: no job has a deadline (give --non-priority or --deadlines), so every job is "
            "a priority job and DBF is exactly conservative backfilling here"
        )
    _note_rigid_workload(policy, wl)
    if cut is not None:
        from schedlab.metrics.summary import warmup_jobs

        warmup_jobs(cut, len(wl))  # a cut of every job fails now, not after simulating
    bar, update = progress_callback(not as_json, len(wl))
    if bar is not None:
        bar.start()
    try:
        result = simulate(
            wl,
            policy,
            cluster=cluster,
            load_factor=load_factor,
            kill_on_overrun=kill_on_overrun,
            check=check,
            timeseries=timeseries_out is not None or plot is not None,
            progress=update,
            **params,
        )
    finally:
        if bar is not None:
            bar.stop()
    if jobs_out is not None:
        result.write_jobs(jobs_out)
    if timeseries_out is not None and result.timeseries is not None:
        write_table(result.timeseries, timeseries_out)
    if plot is not None:
        from schedlab.report.single import plot as plot_run

        plot_run(result, plot, window=plot_gantt)
    summary = result.summary(warmup=cut or 0)
    if cut:
        summary["warmup_jobs"] = len(wl) - summary["jobs"]
    # the run's own workload: on node types it also skips the jobs no node can hold
    ran = result.workload
    skipped_by = {r: n for r, n in (ran.skipped if isinstance(ran, Workload) else {}).items() if n}
    if as_json:
        summary["skipped_by_reason"] = skipped_by
        if by is not None:
            summary[f"by_{by}"] = result.by(by, warmup=cut or 0).to_dict(orient="records")
        summary["total_wall_time"] = time.perf_counter() - clock
        print_json({"policy": policy, "params": effective, "workload": wl.source, **summary})
        return
    title = f"{policy} on {wl.source}"
    if cluster is not None:
        title += f" ({cluster.name}: {cluster.nodes:,} nodes, {cluster.placement})"
    if cut:
        title += f" (first {summary['warmup_jobs']:,} jobs left out of the metrics)"
    shown = print_summary(  # on stderr when stdout carries the per-job table
        title,
        {"value": summary},
        keys=[k for k in summary if k != "warmup_jobs"],
        after={"skipped": [(f"  skipped: {r}", f"{n:,}") for r, n in skipped_by.items()]},
        outputs=(jobs_out, timeseries_out),
    )
    if by is not None:
        print_frame(result.by(by, warmup=cut or 0), title=f"per {by}", console=shown)
    if jobs_out is not None and not is_stdout(jobs_out):
        wrote(f"per-job table to {jobs_out}")
    if plot is not None:
        wrote(f"plot to {plot}")


@commands.command()
def policies() -> None:
    """List the registered policies and their parameters, and which run on node types."""
    from schedlab.schedulers.nodes.registry import available_node_policies, pooled_only_reason
    from schedlab.schedulers.registry import available_policies, policy_class

    names = available_policies()
    print_registered("policies", names, policy_class)
    on_nodes = available_node_policies()
    table = Table(title="on node types (run --platform CLUSTER.toml)")
    table.add_column("name")
    table.add_column("on nodes")
    for name in names:
        reason = pooled_only_reason(name)
        table.add_row(name, "yes" if name in on_nodes else f"refused: {reason}")
    out.print(table)


@commands.command()
def example(
    name: Annotated[
        str | None,
        typer.Argument(help="The example to print (without a name: list them)."),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write it to a file (- = stdout).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing output file.")
    ] = False,
) -> None:
    """Print an example sweep or platform file shipped with schedlab.

    quick-sweep, grid-sweep and tdcs-sweep need no other file:
      schedlab example quick-sweep > quick-sweep.toml
      schedlab sweep quick-sweep.toml --dry-run
    Their results go to results/ beside the saved file.

    sweep reads two traces of the Parallel Workloads Archive (its comments
    say which): schedlab sweep sweep.toml --traces DIR (the folder holding
    them), or set SCHEDLAB_TRACES=DIR. Every file's comments say how to run it.
    """
    from schedlab.cli.common import first_sentence
    from schedlab.examples_files import example_header, example_names, example_text

    if name is None:
        table = Table(title="examples (schedlab example NAME > NAME.toml)")
        table.add_column("name", no_wrap=True)
        table.add_column("what it is")
        for item in example_names():
            table.add_row(item, first_sentence(example_header(item)))
        out.print(table)
        return
    text = example_text(name)
    if output is None:
        sys.stdout.write(text)
        return
    check_outputs({"--output": output}, force=force, tables=False)
    write_atomic(output, text.encode("utf-8"))
    wrote(output)


@commands.command()
def demo(
    jobs: Annotated[int, typer.Option(help="Jobs to generate.")] = 5000,
    procs: Annotated[int, typer.Option(help="Processors of the simulated machine.")] = 128,
    seed: Annotated[int, typer.Option(help="Seed of the workload model.")] = 1,
    load: Annotated[float, typer.Option(help="Offered load of the generated workload.")] = 0.7,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare FCFS, EASY and conservative backfilling on a generated workload (no download)."""
    from schedlab.simulation import simulate
    from schedlab.workload.models.lublin import generate_lublin

    wl = generate_lublin(jobs=jobs, procs=procs, seed=seed, load=load, kind="all")
    rows = {}
    for name in ("fcfs", "easy", "conservative"):
        rows[name] = simulate(wl, name).summary()
    if as_json:
        print_json({"workload": wl.source, "policies": rows})
        return
    print_summary(
        f"{jobs:,} Lublin-Feitelson jobs on {procs} processors (load {load}, seed {seed})",
        rows,
        keys=(*HEADLINE_KEYS, "killed", "wall_time"),
        header=True,
    )
    fcfs, easy, cbf = rows["fcfs"], rows["easy"], rows["conservative"]
    easy_gain = 1 - easy["mean_wait_time"] / max(fcfs["mean_wait_time"], 1e-9)
    out.print(
        "What it shows: the same jobs under three policies. With FCFS a wide job at the head "
        "of the queue holds everyone back while processors stand idle: the machine is busy "
        f"only {fcfs['utilization']:.0%} of the time although the jobs offer {load:.0%}, so "
        "the queue keeps growing and waits explode. EASY backfilling lets later jobs jump "
        "ahead when that does not delay the head: "
        f"{easy_gain:.0%} less mean wait than FCFS, utilization {easy['utilization']:.0%}. "
        "Conservative backfilling gives every job a reservation when it arrives, so no job is "
        "ever delayed by a later one; here its mean wait is "
        f"{cbf['mean_wait_time'] / max(easy['mean_wait_time'], 1e-9):.2f}x EASY's and its "
        f"bounded slowdown {cbf['mean_bounded_slowdown']:.0f} against EASY's "
        f"{easy['mean_bounded_slowdown']:.0f}. These jobs carry no user estimates (requested "
        "time = run time), the best case for backfilling. Next: `schedlab run` on a trace "
        "from the Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/"
        "), or `schedlab example` for ready-made sweeps.",
        highlight=False,
    )
