"""Sweep files: TOML -> checked, expanded, deduplicated runs with stable ids."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

import schedlab
from schedlab.errors import ConfigError
from schedlab.experiments.config import RunConfig
from schedlab.experiments.scenarios import apply_transforms, load_run_workload, resolve_workload
from schedlab.experiments.sweep import Sweep, load_sweep, parse_sweep

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SHARED_WORKLOADS = REPO.parent / "shared" / "workloads"

MODEL = "lublin:jobs=50,procs=8"

INTERFACE_GRID = """
[[policies]]
name = "easy"
[grid]
load_factor = [0.8, 1.0]
seed = [1, 2]
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def tiny_trace(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    schedlab.write_swf(schedlab.generate_lublin(jobs=50, procs=8, seed=1), path)
    return path


def sweep_of(tmp_path: Path, text: str, name: str = "s.toml") -> Sweep:
    return load_sweep(write(tmp_path / name, text))


def model_sweep(tmp_path: Path, body: str, model: str = MODEL) -> Sweep:
    """A sweep with one model workload and the given policies/grid text."""
    return sweep_of(tmp_path, f'[[workloads]]\nmodel = "{model}"\n' + textwrap.dedent(body))


def error_of(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        sweep_of(tmp_path, text)
    return info.value


# --- expansion ----------------------------------------------------------------------------


def test_interface_example_with_a_model_gives_four_runs(tmp_path: Path) -> None:
    """1 model x 1 policy x 2 load factors x 2 seeds = 4 runs, grid keys in file order."""
    sweep = model_sweep(tmp_path, INTERFACE_GRID)
    assert [(r.load_factor, r.seed) for r in sweep.runs] == [
        (0.8, 1),
        (0.8, 2),
        (1.0, 1),
        (1.0, 2),
    ]
    assert {r.policy for r in sweep.runs} == {"easy"}
    assert sweep.runs[0].workload == "lublin:jobs=50,procs=8,seed=1"
    assert len({r.run_id for r in sweep.runs}) == 4


def test_interface_example_with_a_trace_collapses_seeds(tmp_path: Path) -> None:
    """An SWF trace has nothing random: seeds are None and do not multiply runs."""
    tiny_trace(tmp_path / "t.swf")
    sweep = sweep_of(tmp_path, '[[workloads]]\npath = "t.swf"\n' + INTERFACE_GRID)
    assert [(r.load_factor, r.seed) for r in sweep.runs] == [(0.8, None), (1.0, None)]


def test_order_is_workloads_then_policies_then_params_then_grid(tmp_path: Path) -> None:
    """Runs come in file order: workloads, policies, list parameters, grid (last fastest)."""
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        model = "lublin:jobs=50,procs=8"
        label = "a"
        [[workloads]]
        model = "lublin:jobs=60,procs=8"
        label = "b"
        [[policies]]
        name = "fcfs"
        [[policies]]
        name = "easy"
        backfill_order = ["fcfs", "sjf"]
        [grid]
        seed = [1, 2]
        """,
    )
    got = [(r.label, sweep.policy_label(r), r.seed) for r in sweep.runs]
    expected = [
        (w, p, s)
        for w in "ab"
        for p in ("fcfs", "easy(backfill_order=fcfs)", "easy(backfill_order=sjf)")
        for s in (1, 2)
    ]
    assert got == expected


def test_list_parameters_multiply(tmp_path: Path) -> None:
    """A list-valued policy parameter gives one run per value, with a label per value."""
    sweep = model_sweep(
        tmp_path,
        """
        [[policies]]
        name = "easy"
        label = "EASY"
        backfill_order = ["fcfs", "sjf"]
        """,
    )
    assert [r.params for r in sweep.runs] == [
        {"backfill_order": "fcfs"},
        {"backfill_order": "sjf"},
    ]
    assert [sweep.policy_label(r) for r in sweep.runs] == [
        "EASY(backfill_order=fcfs)",
        "EASY(backfill_order=sjf)",
    ]


def test_params_are_stored_complete_so_defaults_dedupe(tmp_path: Path) -> None:
    """`easy` and `easy` with its default written out are one run (defaults filled in)."""
    sweep = model_sweep(
        tmp_path,
        """
        [[policies]]
        name = "easy"
        [[policies]]
        name = "easy"
        backfill_order = "fcfs"
        [[policies]]
        name = "conservative"
        """,
    )
    assert [(r.policy, r.params) for r in sweep.runs] == [
        ("easy", {"backfill_order": "fcfs"}),
        ("conservative", {"compress": True}),
    ]


def test_duplicates_are_removed_keeping_the_first(tmp_path: Path) -> None:
    """Repeated workloads, policies and grid values give each distinct run once."""
    tiny_trace(tmp_path / "t.swf")
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        path = "t.swf"
        [[workloads]]
        path = "./sub/../t.swf"
        [[policies]]
        name = "fcfs"
        [[policies]]
        name = "fcfs"
        [grid]
        load_factor = [1, 1.0, 2]
        """,
    )
    assert [r.load_factor for r in sweep.runs] == [1.0, 2.0]
    assert len(sweep) == 2


def test_model_spec_key_order_and_spec_seed(tmp_path: Path) -> None:
    """Model specs are canonical (sorted keys); a seed in the spec is used without grid.seed."""
    a = model_sweep(tmp_path / "a", '[[policies]]\nname = "fcfs"\n', "lublin:procs=8,jobs=50")
    b = model_sweep(tmp_path / "b", '[[policies]]\nname = "fcfs"\n', MODEL)
    assert a.runs[0].run_id == b.runs[0].run_id
    assert a.runs[0].seed is None
    c = model_sweep(
        tmp_path / "c", '[[policies]]\nname = "fcfs"\n', "lublin:seed=7,jobs=50,procs=8"
    )
    assert c.runs[0].seed == 7
    assert c.runs[0].workload == "lublin:jobs=50,procs=8,seed=7"
    assert c.runs[0].label == "lublin:jobs=50,procs=8"


def test_transforms_in_fixed_order(tmp_path: Path) -> None:
    """drop_status, window, first become transforms in that order, whatever the file order."""
    tiny_trace(tmp_path / "t.swf")
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        path = "t.swf"
        first = 10
        window = [0, 1e9]
        drop_status = [5, 0, 5]
        [[policies]]
        name = "fcfs"
        """,
    )
    run = sweep.runs[0]
    assert run.transforms == (
        ("clean_by_status", {"drop": [0, 5]}),
        ("time_window", {"start": 0.0, "end": 1e9}),
        ("first_jobs", {"n": 10}),
    )
    workload = load_run_workload(run, sweep.base_dir)
    assert len(workload) == 10


def test_job_attribute_transforms(tmp_path: Path) -> None:
    """estimates, non_priority, deadlines and jobs come after the others, in that order, and
    give the workload its estimates, its non-priority jobs and its batch."""
    import numpy as np

    tiny_trace(tmp_path / "t.swf")
    (tmp_path / "d.csv").write_text("job_id,deadline\n1,1e9\n")
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        path = "t.swf"
        jobs = [3, 33]
        deadlines = "d.csv"
        non_priority = {every = 3, deadline = "b"}
        estimates = {seed = 2}
        drop_status = [5]
        [[policies]]
        name = "dbf"
        """,
    )
    run = sweep.runs[0]
    assert [name for name, _ in run.transforms] == [
        "clean_by_status",
        "add_estimates",
        "mark_non_priority",
        "deadlines_from_table",
        "job_range",
    ]
    assert run.transforms[-2][1] == {"path": str(tmp_path / "d.csv")}
    workload = load_run_workload(run, sweep.base_dir)
    assert len(workload) == 30
    assert workload.job_id[0] == 4  # the batch is cut last
    slack = workload.attributes["deadline_time"]
    # every 3rd job of the whole trace (positions 2, 5, ...) is marked: here 2, 5, ... - 3
    assert np.isfinite(slack).tolist() == [(i + 3) % 3 == 2 for i in range(30)]
    assert (workload.requested_time >= workload.run_time).all()  # Tsafrir estimates
    result = schedlab.simulate(workload, run.policy, **run.params)
    assert "dbf_class" in result.jobs


def test_requested_from_run_gives_exact_estimates(tmp_path: Path) -> None:
    """requested_from_run = true comes after estimates (it overrides them) and before the
    non-priority marks; false is the same run as leaving it out."""
    tiny_trace(tmp_path / "t.swf")
    sweep = sweep_of(
        tmp_path,
        """
        [[workloads]]
        path = "t.swf"
        non_priority = {every = 3, deadline = "a"}
        requested_from_run = true
        estimates = {seed = 2}
        [[workloads]]
        path = "t.swf"
        label = "plain"
        requested_from_run = false
        [[policies]]
        name = "conservative"
        """,
    )
    exact, plain = sweep.runs
    assert [name for name, _ in exact.transforms] == [
        "add_estimates",
        "requested_from_run",
        "mark_non_priority",
    ]
    assert plain.transforms == ()
    workload = load_run_workload(exact, sweep.base_dir)
    assert (workload.column("requested_time") == workload.column("run_time")).all()


@pytest.mark.parametrize(
    ("body", "option"),
    [
        ("requested_from_run = 1", "workloads[0].requested_from_run"),
        ("non_priority = {every = 0}", "workloads[0].non_priority.every"),
        ('non_priority = {every = 3, deadline = "c"}', "workloads[0].non_priority.deadline"),
        ("non_priority = {fraction = 0.5}", "workloads[0].non_priority.seed"),
        ("non_priority = {every = 3, colour = 1}", "workloads[0].non_priority"),
        ("estimates = {seed = 1, max_fraction = 2.0}", "workloads[0].estimates.max_fraction"),
        ("estimates = 3", "workloads[0].estimates"),
        ("jobs = [5, 5]", "workloads[0].jobs"),
        ('deadlines = "nope.csv"', "workloads[0].deadlines"),
    ],
)
def test_job_attribute_transform_errors(tmp_path: Path, body: str, option: str) -> None:
    """Bad transform parameters fail when the file is read, naming the key path."""
    err = error_of(tmp_path, W + body + "\n" + P)
    assert err.option == option


def test_load_run_workload_applies_procs(tmp_path: Path) -> None:
    """load_run_workload resolves the path, sets the machine size and applies transforms."""
    tiny_trace(tmp_path / "traces" / "t.swf")
    sweep = sweep_of(
        tmp_path,
        '[[workloads]]\npath = "traces/t.swf"\nprocs = 16\nfirst = 5\n'
        '[[policies]]\nname = "fcfs"\n',
    )
    workload = load_run_workload(sweep.runs[0], sweep.base_dir)
    assert (len(workload), workload.max_procs) == (5, 16)
    assert apply_transforms(workload, ()) is workload


def test_relative_paths_are_stored_normalised(tmp_path: Path) -> None:
    """A relative path is stored as written (normalised) and resolved against base_dir."""
    tiny_trace(tmp_path / "traces" / "t.swf.gz")
    sweep = sweep_of(
        tmp_path,
        '[[workloads]]\npath = "./traces/x/../t.swf.gz"\n[[policies]]\nname = "fcfs"\n',
        name="exp/../s.toml",
    )
    run = sweep.runs[0]
    assert run.workload == "traces/t.swf.gz"
    assert run.workload_label == "t"
    assert sweep.workload_source(run) == str(tmp_path / "traces" / "t.swf.gz")
    assert resolve_workload(MODEL, tmp_path) == MODEL


def test_ids_are_stable_across_loads_and_moves(tmp_path: Path) -> None:
    """Loading twice, or moving the sweep file with its traces, keeps every run id."""
    text = '[[workloads]]\npath = "data/t.swf"\n[[policies]]\nname = "easy"\n' + INTERFACE_GRID
    first = tmp_path / "one"
    tiny_trace(first / "data" / "t.swf")
    write(first / "s.toml", text)
    ids = [r.run_id for r in load_sweep(first / "s.toml").runs]
    assert ids == [r.run_id for r in load_sweep(first / "s.toml").runs]
    moved = tmp_path / "elsewhere" / "two"
    shutil.copytree(first, moved)
    shutil.rmtree(first)
    assert ids == [r.run_id for r in load_sweep(moved / "s.toml").runs]


@pytest.mark.parametrize(
    "change",
    [
        ("load_factor = 1.0", "load_factor = 1.5"),
        ("seed = 1", "seed = 2"),
        ("kill_on_overrun = true", "kill_on_overrun = false"),
        ("procs = 8", "procs = 16"),
        ('name = "easy"', 'name = "conservative"'),
        ('backfill_order = "fcfs"', 'backfill_order = "sjf"'),
        ("first = 40", "first = 30"),
        ("jobs=50", "jobs=51"),
    ],
)
def test_ids_differ_when_any_field_differs(tmp_path: Path, change: tuple[str, str]) -> None:
    """Changing any part of a run's configuration changes its id; the label does not."""
    base = """
    [[workloads]]
    model = "lublin:jobs=50,procs=8"
    first = 40
    label = "x"
    [[policies]]
    name = "easy"
    backfill_order = "fcfs"
    [grid]
    load_factor = 1.0
    seed = 1
    kill_on_overrun = true
    procs = 8
    """
    old, new = change
    if "conservative" in new:  # conservative has no backfill_order
        base = base.replace('backfill_order = "fcfs"', "")
    a = sweep_of(tmp_path, base, "a.toml").runs[0]
    b = sweep_of(tmp_path, base.replace(old, new), "b.toml").runs[0]
    relabelled = sweep_of(tmp_path, base.replace('"x"', '"y"'), "c.toml").runs[0]
    assert a.run_id != b.run_id
    assert a.run_id == relabelled.run_id


def test_out_is_resolved_against_the_sweep_folder(tmp_path: Path) -> None:
    """`out` is relative to the sweep file's folder; absent, it is None."""
    body = '[[workloads]]\nmodel = "lublin:jobs=50,procs=8"\n[[policies]]\nname = "fcfs"\n'
    sweep = sweep_of(tmp_path, 'out = "../results"\n' + body, name="exp/s.toml")
    assert sweep.out == str(tmp_path / "results")
    assert sweep_of(tmp_path, body).out is None
    absolute = tmp_path / "abs"
    assert sweep_of(tmp_path, f'out = "{absolute.as_posix()}"\n' + body).out == str(absolute)


def test_parse_sweep_takes_parsed_data(tmp_path: Path) -> None:
    """parse_sweep works on a dict; the description is kept and describe() gives rows."""
    data = {
        "description": "d",
        "workloads": [{"model": MODEL}],
        "policies": [{"name": "fcfs"}],
        "grid": {"seed": 3},
    }
    sweep = parse_sweep(data, tmp_path, "inline")
    assert (sweep.source, sweep.description, sweep.base_dir) == ("inline", "d", tmp_path)
    (row,) = sweep.describe()
    assert row["run_id"] == sweep.runs[0].run_id
    assert (row["workload"], row["policy"], row["params"]) == (MODEL, "fcfs", "")
    assert (row["load_factor"], row["seed"]) == (1.0, 3)
    assert RunConfig.from_dict(sweep.runs[0].to_dict()).run_id == row["run_id"]


# --- errors -------------------------------------------------------------------------------

ANY = object()  # an error value not compared (NaN)
W = '[[workloads]]\nmodel = "lublin:jobs=50,procs=8"\n'
P = '[[policies]]\nname = "fcfs"\n'


ERROR_CASES = [
    ("extra = 1\n" + W + P, "extra", 1, "workloads, policies, grid"),
    (P, "workloads", None, "[[workloads]]"),
    (W, "policies", None, "[[policies]]"),
    ('workloads = "x"\n' + P, "workloads", "x", "array of tables"),
    ("out = 3\n" + W + P, "out", 3, "folder path"),
    ("description = 3\n" + W + P, "description", 3, "a string"),
    ('[[workloads]]\nlabel = "x"\n' + P, "workloads[0]", None, "exactly one of path or model"),
    (
        '[[workloads]]\npath = "a.swf"\nmodel = "lublin"\n' + P,
        "workloads[0]",
        {"path": "a.swf", "model": "lublin"},
        "exactly one",
    ),
    (W + "colour = 1\n" + P, "workloads[0].colour", 1, "path, model, label, procs"),
    (
        '[[workloads]]\nmodel = "nope:jobs=5"\n' + P,
        "workloads[0].model",
        "nope:jobs=5",
        "lublin",
    ),
    (
        '[[workloads]]\nmodel = "lublin:jobs=5"\n' + P,
        "workloads[0].model",
        "lublin:jobs=5",
        "procs",
    ),
    (
        '[[workloads]]\nmodel = "lublin:jobs=5,procs=8,foo=1"\n' + P,
        "workloads[0].model",
        "lublin:jobs=5,procs=8,foo=1",
        "seed",
    ),
    (W + "first = 0\n" + P, "workloads[0].first", 0, "integer >= 1"),
    (W + "window = [10, 5]\n" + P, "workloads[0].window", [10, 5], "end > start"),
    (W + 'drop_status = ["x"]\n' + P, "workloads[0].drop_status", ["x"], "status codes"),
    (W + "procs = 0\n" + P, "workloads[0].procs", 0, "integer >= 1"),
    (
        W + 'label = "a"\n' + W.replace("50", "60") + 'label = "a"\n' + P,
        "workloads[1].label",
        "a",
        "workloads[0]",
    ),
    (W + "procs = 4\n" + P + "[grid]\nprocs = 8\n", "workloads[0].procs", 4, "grid.procs"),
    (
        W.replace("procs=8", "procs=8,seed=3") + P + "[grid]\nseed = [1]\n",
        "workloads[0].model",
        "lublin:jobs=50,procs=8,seed=3",
        "without seed=",
    ),
    (
        W + '[[policies]]\nname = "lifo"\n',
        "policies[0].name",
        "lifo",
        "conservative, cpa, dbf, easy, fcfs",
    ),
    (W + "[[policies]]\nlabel = 'x'\n", "policies[0].name", None, "easy"),
    (
        W + '[[policies]]\nname = "fcfs"\nbackfill_order = "sjf"\n',
        "policies[0].backfill_order",
        "sjf",
        "parameter of fcfs: (none)",
    ),
    (
        W + '[[policies]]\nname = "easy"\nbackfil_order = "sjf"\n',
        "policies[0].backfil_order",
        "sjf",
        "backfill_order",
    ),
    (
        W + P + '[[policies]]\nname = "easy"\nbackfill_order = ["fcfs", "lifo"]\n',
        "policies[1].backfill_order",
        "lifo",
        "sjf",
    ),
    (
        W + '[[policies]]\nname = "easy"\nbackfill_order = []\n',
        "policies[0].backfill_order",
        [],
        "non-empty list",
    ),
    (
        W + '[[policies]]\nname = "conservative"\ncompress = "yes"\n',
        "policies[0].compress",
        "yes",
        "true or false",
    ),
    (
        W + P + "[grid]\nspeed = 1\n",
        "grid.speed",
        1,
        "load_factor, seed, kill_on_overrun, procs",
    ),
    (W + P + "[grid]\nload_factor = [1, 0]\n", "grid.load_factor", 0, "> 0"),
    (W + P + "[grid]\nload_factor = nan\n", "grid.load_factor", ANY, "finite"),
    (W + P + "[grid]\nload_factor = []\n", "grid.load_factor", [], "non-empty list"),
    (W + P + "[grid]\nseed = [1.5]\n", "grid.seed", 1.5, "integers >= 0"),
    (W + P + "[grid]\nkill_on_overrun = 1\n", "grid.kill_on_overrun", 1, "true or false"),
    (W + P + "[grid]\nprocs = [0]\n", "grid.procs", 0, "integers >= 1"),
    ("grid = 3\n" + W + P, "grid", 3, "a table"),
]


@pytest.mark.parametrize(
    ("text", "option", "value", "allowed"),
    ERROR_CASES,
    ids=[case[1] for case in ERROR_CASES],
)
def test_errors_name_key_value_and_allowed(
    tmp_path: Path, text: str, option: str, value: object, allowed: str
) -> None:
    """Every invalid file raises ConfigError naming the key path, the value and the choices."""
    err = error_of(tmp_path, text)
    assert err.option == option
    if value is not ANY:
        assert err.value == value
    assert allowed in err.allowed
    assert option in str(err)


def test_missing_trace_file(tmp_path: Path) -> None:
    """A path that is not an existing file names workloads[i].path, the value and .swf."""
    err = error_of(tmp_path, P.replace("fcfs", "easy") + '[[workloads]]\npath = "gone.swf.gz"\n')
    assert (err.option, err.value) == ("workloads[0].path", "gone.swf.gz")
    assert "an existing .swf/.swf.gz file" in err.allowed
    (tmp_path / "folder.swf").mkdir()
    err = error_of(tmp_path, P + '[[workloads]]\npath = "folder.swf"\n')
    assert err.option == "workloads[0].path"


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    """A TOML syntax error becomes a ConfigError naming the file, the line and its text."""
    path = write(tmp_path / "bad.toml", W + P + "[grid]\nseed == 1\nload_factor = 1\n")
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert (info.value.option, info.value.value) == (f"{path} line 6", "seed == 1")
    assert "valid TOML" in info.value.allowed
    write(path, W + P + "[grid]\nload_factor = [0.8, 1.0\n")
    with pytest.raises(ConfigError) as info:
        load_sweep(path)  # tomllib reports "end of document": the last line is named
    assert (info.value.option, info.value.value) == (f"{path} line 6", "load_factor = [0.8, 1.0")


def test_missing_sweep_file(tmp_path: Path) -> None:
    """A sweep file that does not exist is a ConfigError naming it."""
    with pytest.raises(ConfigError) as info:
        load_sweep(tmp_path / "none.toml")
    assert info.value.value == str(tmp_path / "none.toml")


# --- the examples -------------------------------------------------------------------------


@pytest.mark.skipif(
    not all(
        (SHARED_WORKLOADS / name).is_file()
        for name in ("KTH-SP2-1996-2.swf.gz", "HPC2N-2002-2.1-cln.swf.gz")
    ),
    reason="needs the real traces in ../shared/workloads",
)
def test_example_sweep_file() -> None:
    """examples/sweep.toml: 2 traces (first 5000 jobs) x 3 policies x 2 loads = 12 runs; its
    traces are named by file name and found in the trace folder (issue 23), stored as if that
    folder were written in the path."""
    sweep = load_sweep(EXAMPLES / "sweep.toml", traces=SHARED_WORKLOADS)
    assert len(sweep.runs) == 12
    assert {r.policy for r in sweep.runs} == {"fcfs", "easy", "conservative"}
    assert {r.workload_label for r in sweep.runs} == {"KTH-SP2-1996-2", "HPC2N-2002-2.1-cln"}
    assert all(r.workload.startswith("../../shared/workloads/") for r in sweep.runs)
    assert all(r.transforms == (("first_jobs", {"n": 5000}),) for r in sweep.runs)


def test_example_quick_sweep_file() -> None:
    """examples/quick-sweep.toml: model workloads only, 2 x 3 policies x 3 seeds = 18 runs
    (3 seeds: `results` shows an interval, issue 23)."""
    sweep = load_sweep(EXAMPLES / "quick-sweep.toml")
    assert len(sweep.runs) == 18
    assert {r.seed for r in sweep.runs} == {1, 2, 3}
    assert all(r.workload.startswith("lublin:") for r in sweep.runs)
    run = sweep.runs[0]
    assert len(load_run_workload(run, sweep.base_dir)) == 500
