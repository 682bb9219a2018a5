"""Hostile input (issue 8, item 5): out-of-range sizes and times, odd headers and bytes.

Every case ends either in a usable workload or in a SchedlabError whose message names the
culprit in words a user can act on; never in an OverflowError or a silently wrong number.
"""

from __future__ import annotations

import gzip
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from test_swf import job  # noqa: E402

from schedlab.errors import ConfigError, WorkloadError
from schedlab.experiments.sweep import MAX_RUNS, load_sweep, parse_sweep
from schedlab.workload.deadlines import deadlines_from_table, mark_non_priority
from schedlab.workload.job import MAX_PROCS, MAX_TIME, N_FIELDS, F, Workload
from schedlab.workload.load import load_workload, parse_model_spec
from schedlab.workload.models.lublin import MAX_JOBS, generate_lublin
from schedlab.workload.models.tsafrir import add_estimates
from schedlab.workload.swf import read_swf, swf_header_value, write_swf
from schedlab.workload.transforms import (
    clean_by_status,
    first_jobs,
    job_range,
    raise_requested_to_run,
    scale_load,
    time_window,
)

HUGE = 99999999999999999999  # what `--procs 99999999999999999999` passes on


def swf(tmp_path: Path, lines: Sequence[str], name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines))
    return path


def read_error(path: Path, **kwargs: object) -> WorkloadError:
    with pytest.raises(WorkloadError) as info:
        read_swf(path, **kwargs)  # type: ignore[arg-type]
    return info.value


# -- 1. machine sizes and processor counts that do not fit ----------------------------------


@pytest.mark.parametrize("value", ["9999999999999999999999999", str(MAX_PROCS + 1), "9" * 5000])
def test_header_machine_size_beyond_the_bound_names_line_and_field(
    tmp_path: Path, value: str
) -> None:
    """A MaxProcs above 2**31 - 1 (even 5000 digits) is a WorkloadError on its line."""
    err = read_error(swf(tmp_path, ["; Version: 2.2", f"; MaxProcs: {value}", job()]))
    assert (err.line, err.field) == (2, "MaxProcs")
    assert str(MAX_PROCS) in str(err)
    assert "max_procs" in str(err)  # says how to override it


def test_header_machine_size_at_the_bound_is_accepted(tmp_path: Path) -> None:
    """MaxProcs = 2**31 - 1 is the largest machine schedlab simulates."""
    w = read_swf(swf(tmp_path, [f"; MaxProcs: {MAX_PROCS}", job(allocated_procs=MAX_PROCS)]))
    assert w.max_procs == MAX_PROCS
    assert w.procs.tolist() == [MAX_PROCS]


def test_huge_header_is_overridable_with_max_procs(tmp_path: Path) -> None:
    """max_procs= (--procs) replaces a header that is out of range."""
    path = swf(tmp_path, ["; MaxProcs: 9999999999999999999999999", job()])
    assert read_swf(path, max_procs=4).max_procs == 4


@pytest.mark.parametrize("bad", [HUGE, MAX_PROCS + 1, 2**63, np.uint64(2**63)])
def test_max_procs_argument_beyond_the_bound_is_a_config_error(tmp_path: Path, bad: int) -> None:
    """read_swf / load_workload refuse a machine size that does not fit: option max_procs."""
    path = swf(tmp_path, [job()])
    for call in (read_swf, load_workload):
        with pytest.raises(ConfigError) as info:
            call(path, max_procs=bad)
        assert info.value.option == "max_procs"
        assert str(MAX_PROCS) in info.value.allowed


def test_model_machine_size_beyond_the_bound_is_a_config_error() -> None:
    """procs= in a spec, or --procs for a spec, is checked as the option procs."""
    with pytest.raises(ConfigError) as info:
        load_workload(f"lublin:jobs=5,procs={HUGE}")
    assert info.value.option == "procs"
    with pytest.raises(ConfigError) as info:
        load_workload("lublin:jobs=5,procs=8", max_procs=HUGE)
    assert info.value.option == "procs"
    with pytest.raises(ConfigError) as info:
        generate_lublin(5, MAX_PROCS + 1)
    assert info.value.option == "procs"


def test_from_fields_and_workload_refuse_machine_sizes_beyond_the_bound() -> None:
    """Workload.from_fields(max_procs=...) (simulate's procs= override) checks the bound."""
    fields = np.array([[float(v) for v in job().split()]])
    with pytest.raises(ConfigError) as info:
        Workload.from_fields(fields, max_procs=HUGE)
    assert info.value.option == "max_procs"
    with pytest.raises(ConfigError):
        Workload(fields=fields, max_procs=0)


@pytest.mark.parametrize(
    "values",
    [
        {"allocated_procs": "99999999999999999999"},
        {"allocated_procs": "1e25"},
        {"allocated_procs": -1, "requested_procs": "1e300"},
        {"allocated_procs": MAX_PROCS + 1},
    ],
    ids=["field5-int", "field5-float", "field8", "just-above"],
)
def test_job_wider_than_any_machine_is_wider_than_machine(
    tmp_path: Path, values: dict[str, str]
) -> None:
    """A job of 1e25 processors is skipped as too wide (not as nonpositive: no int64 wrap),
    with or without a header, and does not set the machine size."""
    lines = [job(job_id=1, allocated_procs=4), job(job_id=2, **values)]
    for header in ([], ["; MaxProcs: 8"]):
        w = read_swf(swf(tmp_path, header + lines))
        assert w.skipped["wider_than_machine"] == 1
        assert w.skipped["nonpositive_procs"] == 0
        assert w.max_procs == (8 if header else 4)
        assert w.job_id.tolist() == [1]


def test_machine_size_without_header_ignores_jobs_beyond_the_bound() -> None:
    """Without a header, the widest job that fits sets the machine size (1 if none fits)."""
    fields = np.full((2, N_FIELDS), -1.0)
    fields[:, F["job_id"]] = [1, 2]
    fields[:, F["run_time"]] = 10
    fields[:, F["allocated_procs"]] = [1e30, np.nan]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "invalid value encountered in cast"
        w = Workload.from_fields(fields)
    assert (w.max_procs, len(w)) == (1, 0)
    assert w.skipped["wider_than_machine"] == 1
    assert w.skipped["nonpositive_procs"] == 1


@pytest.mark.parametrize("token", ["1e300", "1.5", "9007199254740993", "-1e16", "2e53"])
def test_job_id_that_is_not_an_exact_integer_names_line_and_field_1(
    tmp_path: Path, token: str
) -> None:
    """Job ids are integers below 2**53 in magnitude (exact in float64 and in the int64
    per-job table); anything else is a malformed line, not -9223372036854775808."""
    err = read_error(swf(tmp_path, ["; MaxProcs: 4", job(job_id=1), job(job_id=token)]))
    assert (err.line, err.field, err.value) == (3, "1 (job_id)", token)
    assert "integer job id" in str(err)


def test_job_ids_up_to_the_bound_are_kept_exactly(tmp_path: Path) -> None:
    """2**53 - 1, -1 (unknown) and 0 are valid ids and come back exact."""
    ids = [2**53 - 1, -1, 0]
    w = read_swf(swf(tmp_path, [job(job_id=i, submit_time=k) for k, i in enumerate(ids)]))
    assert w.job_id.tolist() == ids


def test_from_fields_refuses_job_ids_that_are_not_exact_integers() -> None:
    """In-memory rows follow the reader's job id rule (WorkloadError naming field 1)."""
    fields = np.array([[float(v) for v in job().split()]])
    fields[0, F["job_id"]] = 1e300
    with pytest.raises(WorkloadError) as info:
        Workload.from_fields(fields, source="mine")
    assert info.value.field == "1 (job_id)"
    assert str(info.value).startswith("mine")


def test_integer_columns_beyond_int64_read_as_unknown(tmp_path: Path) -> None:
    """A user id of 1e300 is shown as -1 (SWF's unknown), without wrap or warning."""
    w = read_swf(swf(tmp_path, [job(user_id="1e300", group_id="-1e300", queue_id=3)]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (w.user_id.tolist(), w.group_id.tolist(), w.queue_id.tolist()) == ([-1], [-1], [3])


@pytest.mark.parametrize(
    ("field", "token"),
    [
        ("submit_time", "1e300"),
        ("submit_time", "-2e15"),
        ("run_time", "1e16"),
        ("requested_time", "1e300"),
    ],
)
def test_times_beyond_1e15_seconds_name_line_and_field(
    tmp_path: Path, field: str, token: str
) -> None:
    """Submit, run and requested times beyond 1e15 s would lose run times to rounding."""
    err = read_error(swf(tmp_path, [job(), job(**{field: token})]))
    assert err.line == 2
    assert err.field == f"{F[field] + 1} ({field})"
    assert err.value == token


def test_times_at_the_bound_and_unknown_times_are_read(tmp_path: Path) -> None:
    """1e15 s is allowed; -1e300 run/requested times are unknown (skipped/replaced)."""
    lines = [
        job(job_id=1, submit_time=MAX_TIME, run_time=MAX_TIME, requested_time=MAX_TIME),
        job(job_id=2, run_time="-1e300"),
        job(job_id=3, requested_time="-1e300"),
    ]
    w = read_swf(swf(tmp_path, lines))
    assert w.job_id.tolist() == [3, 1]
    assert w.skipped["nonpositive_run_time"] == 1


# -- 2. the first header wins ---------------------------------------------------------------


def test_maxprocs_comment_between_jobs_does_not_override_the_header(tmp_path: Path) -> None:
    """A `; MaxProcs: 1` line further down is kept as a header line but the top one sets P."""
    lines = [
        "; MaxProcs: 64",
        job(job_id=1, allocated_procs=32),
        "; MaxProcs: 1",
        job(job_id=2, allocated_procs=16),
    ]
    w = read_swf(swf(tmp_path, lines))
    assert w.max_procs == 64
    assert len(w) == 2 and w.skipped["wider_than_machine"] == 0
    assert w.header == ["MaxProcs: 64", "MaxProcs: 1"]
    assert w.header_values["MaxProcs"] == "64"
    assert swf_header_value(w, "MaxProcs") == "64"


def test_first_maxprocs_wins_even_when_a_later_one_is_malformed(tmp_path: Path) -> None:
    """Only the first line of a key is read: a later junk value is not an error."""
    w = read_swf(swf(tmp_path, ["; MaxProcs: 8", job(), "; MaxProcs: lots"]))
    assert w.max_procs == 8


def test_first_header_rule_survives_write_and_read(tmp_path: Path) -> None:
    """Written back (headers on top, in order), the file gives the same machine size."""
    path = swf(tmp_path, ["; MaxProcs: 64", job(), "; MaxProcs: 2", "; MaxNodes: 3"])
    w = read_swf(path)
    write_swf(w, tmp_path / "back.swf")
    back = read_swf(tmp_path / "back.swf")
    assert back.max_procs == w.max_procs == 64
    assert back.header == w.header
    over = read_swf(path, max_procs=16)
    write_swf(over, tmp_path / "over.swf")
    assert read_swf(tmp_path / "over.swf").max_procs == 16


# -- 3. control characters are shown escaped --------------------------------------------------


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (job(run_time="1\x1b[31m0"), "1\\x1b[31m0"),
        (job(think_time="-1\x07"), "-1\\x07"),
        (job(run_time="1\x000"), "1\\x000"),
        (job(run_time="1\u202e0"), "1\\u202e0"),
        (job(run_time="t\xe9n"), "tén"),
    ],
    ids=["ansi", "bell", "nul", "bidi", "latin"],
)
def test_control_characters_of_a_bad_token_are_escaped(
    tmp_path: Path, line: str, shown: str
) -> None:
    """The value of the error is printable (repr-like escapes); so is its message."""
    err = read_error(swf(tmp_path, [job(), line]))
    assert err.value == shown
    assert str(err).isprintable()


def test_invalid_utf8_and_carriage_returns_are_escaped(tmp_path: Path) -> None:
    """Undecodable bytes show as \\xNN, a lone \\r inside a short line as \\r."""
    path = tmp_path / "b.swf"
    path.write_bytes(job().encode() + b"\n1 2\r3 \xff\n")
    err = read_error(path)
    assert err.line == 2
    assert err.value is not None and err.value.isprintable()
    assert "\\r" in err.value and "\\xff" in err.value
    assert str(err).isprintable()


def test_header_value_with_control_characters_is_escaped(tmp_path: Path) -> None:
    """A malformed MaxProcs with an escape sequence is shown escaped."""
    err = read_error(swf(tmp_path, ["; MaxProcs: 1\x1b[31m", job()]))
    assert (err.field, err.value) == ("MaxProcs", "1\\x1b[31m")
    assert str(err).isprintable()


def test_file_name_with_control_characters_is_escaped(tmp_path: Path) -> None:
    """Errors name the file with its control characters escaped."""
    path = swf(tmp_path, ["1 2 3"], name="a\x1bb.swf")
    err = read_error(path)
    assert "a\\x1bb.swf:1" in str(err)
    assert str(err).isprintable()


# -- 4. zero runnable jobs ------------------------------------------------------------------


def test_file_whose_jobs_are_all_skipped_reads_as_an_empty_workload(tmp_path: Path) -> None:
    """Every job skipped: a valid workload of 0 jobs with the counts (not an error here)."""
    lines = ["; MaxProcs: 4", job(run_time=0), job(allocated_procs=9), job(allocated_procs=0)]
    w = read_swf(swf(tmp_path, lines))
    assert len(w) == 0
    assert w.fields.shape == (0, N_FIELDS)
    assert w.max_procs == 4
    assert w.skipped == {"nonpositive_run_time": 1, "nonpositive_procs": 1, "wider_than_machine": 1}
    for column in (w.job_id, w.submit_time, w.run_time, w.requested_time, w.procs, w.user_id):
        assert column.shape == (0,)
    assert w.offered_load() == 0.0


def test_transforms_of_an_empty_workload_give_empty_workloads(tmp_path: Path) -> None:
    """Transforms keep returning valid (empty) workloads when nothing is left."""
    w = read_swf(swf(tmp_path, ["; MaxProcs: 4", job(run_time=-1)]))
    results = [
        scale_load(w, 1e-300),
        scale_load(w, 1e300),
        clean_by_status(w),
        first_jobs(w, 3),
        job_range(w, 0, 5),
        time_window(w, 0, 10),
        raise_requested_to_run(w),
        add_estimates(w, seed=1),
        mark_non_priority(w, every=3),
        mark_non_priority(w, fraction=0.5, seed=1),
    ]
    for out in results:
        assert len(out) == 0 and out.max_procs == 4
        assert out.skipped["nonpositive_run_time"] == 1


def test_from_fields_with_every_row_skipped() -> None:
    """All rows skipped (or no rows): no crash, machine size 1 unless given."""
    fields = np.full((3, N_FIELDS), -1.0)
    fields[:, F["job_id"]] = [1, 2, 3]
    assert Workload.from_fields(fields).max_procs == 1
    assert len(Workload.from_fields(fields, max_procs=7)) == 0
    assert len(Workload.from_fields(np.empty((0, N_FIELDS)))) == 0


# -- 5. ranges: load factor, model parameters -------------------------------------------------


def small(submit: Sequence[float]) -> Workload:
    n = len(submit)
    return Workload.from_columns(
        submit_time=np.asarray(submit, dtype=float), run_time=np.ones(n), procs=np.ones(n)
    )


@pytest.mark.parametrize("factor", [1e-308, 5e-324, 1e-300, 1e-10])
def test_load_factor_that_sends_submit_times_beyond_1e15_s_is_refused(factor: float) -> None:
    """The error names load_factor and the range allowed for this workload."""
    with pytest.raises(ConfigError) as info:
        scale_load(small([0.0, 10.0, 1e6]), factor)
    err = info.value
    assert err.option == "load_factor"
    assert "for this workload" in err.allowed
    assert "1e+06 s" in err.allowed  # the largest submit time, which sets the bound


def test_load_factor_range_shown_in_the_error_is_accepted() -> None:
    """The lower bound the message gives is a factor that works (and gives finite times)."""
    w = small([0.0, 10.0, 1e6])
    with pytest.raises(ConfigError) as info:
        scale_load(w, 1e-10)
    low = float(info.value.allowed.split(">= ")[1].split()[0])
    scaled = scale_load(w, low)
    assert np.isfinite(scaled.submit_time).all() and scaled.submit_time.max() <= MAX_TIME


def test_load_factor_that_underflows_submit_times_is_refused() -> None:
    """A factor so large that a nonzero submit time would become denormal is refused."""
    w = small([0.0, 1e-300, 5.0])
    with pytest.raises(ConfigError) as info:
        scale_load(w, 1e10)
    assert info.value.option == "load_factor"
    assert " to " in info.value.allowed  # a two-sided range here


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"start_time": 1e300}, "start_time"),
        ({"start_time": -1.0}, "start_time"),
        ({"start_time": 10**400}, "start_time"),
        ({"load": 1e-300}, "load"),
        ({"load": 1e4}, "load"),
        ({"load": 10**400}, "load"),
        ({"jobs": MAX_JOBS + 1}, "jobs"),
        ({"jobs": 10**30}, "jobs"),
        ({"procs": 2**31}, "procs"),
        ({"seed": 1.5}, "seed"),
        ({"seed": "x"}, "seed"),
        ({"seed": True}, "seed"),
        ({"kind": 3}, "kind"),
    ],
)
def test_lublin_parameters_out_of_range(kwargs: dict[str, object], option: str) -> None:
    """Each parameter has a range; values outside fail fast with the option's name."""
    args: dict[str, object] = {"jobs": 20, "procs": 8, **kwargs}
    with pytest.raises(ConfigError) as info:
        generate_lublin(**args)  # type: ignore[arg-type]
    assert info.value.option == option
    for word in ("None", "numpy", "Generator"):
        assert word not in info.value.allowed


def test_lublin_huge_job_count_is_refused_before_drawing() -> None:
    """A typo of a billion jobs fails in validation (a spec is checked when parsed)."""
    with pytest.raises(ConfigError) as info:
        parse_model_spec("lublin:jobs=1000000000000,procs=8")
    assert info.value.option == "jobs"


def test_lublin_low_load_that_fits_keeps_run_times() -> None:
    """A very low load that the check lets through keeps submit times within 1e15 s."""
    w = generate_lublin(5, 8, seed=1, load=1e-9)
    assert w.submit_time.max() <= MAX_TIME
    assert (w.run_time >= 1).all()


@pytest.mark.parametrize(
    ("params", "option"),
    [
        ({"max_estimate": 1e300}, "max_estimate"),
        ({"zipf_exponent": 1e300}, "zipf_exponent"),
        ({"short_bias": 1e300}, "short_bias"),
        ({"round_values": (60.0, 1e300)}, "round_values"),
        ({"max_estimate": 10**400}, "max_estimate"),
        ({"seed": -1}, "seed"),
        ({"seed": 2.5}, "seed"),
    ],
)
def test_tsafrir_parameters_out_of_range(params: dict[str, object], option: str) -> None:
    """The estimate model's numbers have ranges too; the seed message is a user's."""
    args: dict[str, object] = {"seed": 1, **params}
    with pytest.raises(ConfigError) as info:
        add_estimates(small([0.0, 5.0]), **args)  # type: ignore[arg-type]
    assert info.value.option == option
    for word in ("None", "numpy", "Generator"):
        assert word not in info.value.allowed


# -- 6. model spec messages -----------------------------------------------------------------


def test_missing_procs_says_what_to_type() -> None:
    """`lublin:jobs=5` names the missing key, what it means and the spec's form."""
    with pytest.raises(ConfigError) as info:
        parse_model_spec("lublin:jobs=5")
    text = str(info.value)
    assert "'lublin:jobs=5'" in text
    assert "missing procs=N: the machine size" in text
    assert "lublin:jobs=N,procs=N" in text
    assert "must set" not in text


@pytest.mark.parametrize(
    "spec",
    [
        "lublin",
        "lublin:jobs=5,procs=8,seed=None",
        "lublin:jobs=5,procs=8,seed=-3",
        "lublin:jobs=5,procs=8,seed=x",
        "lublin:jobs=5,procs=8,load=None",
        "lublin:jobs=5,procs=8,load=nan",
        "lublin:jobs=5,procs=8,kind=None",
        "lublin:jobs=5,procs=8,start_time=inf",
        "lublin:jobs=5,procs=8,jobs=6",
        "lublin:jobs=5,procs=8,foo=1",
        "lublin:jobs",
        "lublin:jobs=1e999,procs=8",
        "lublin:jobs=" + "9" * 5000 + ",procs=8",
    ],
)
def test_model_spec_errors_speak_to_a_cli_user(spec: str) -> None:
    """No message mentions Python's None or numpy types as what is allowed."""
    with pytest.raises(ConfigError) as info:
        load_workload(spec)
    allowed = info.value.allowed
    for word in ("None", "numpy", "Generator", "NoneType"):
        assert word not in allowed


def test_max_procs_supplies_a_missing_procs() -> None:
    """`lublin:jobs=5` with --procs 8 is complete (procs comes from the option)."""
    assert load_workload("lublin:jobs=5", max_procs=8).max_procs == 8


def test_model_spec_that_is_too_long_for_a_file_name_is_parsed_as_a_spec() -> None:
    """A long spec string does not trip the file-system check (ENAMETOOLONG)."""
    with pytest.raises(ConfigError):
        load_workload("lublin:jobs=5,procs=8," + "x" * 5000)
    with pytest.raises(WorkloadError):
        load_workload("y" * 5000)


# -- other inputs the fuzzers reach -----------------------------------------------------------


def test_read_swf_of_a_name_with_a_nul_character(tmp_path: Path) -> None:
    """A NUL in a file name is a WorkloadError, not a ValueError from open()."""
    with pytest.raises(WorkloadError):
        read_swf(str(tmp_path / "a\x00b.swf"))


def test_truncated_gzip_is_a_workload_error(tmp_path: Path) -> None:
    """A cut gzip stream names the file."""
    data = gzip.compress((job() + "\n").encode() * 100)
    path = tmp_path / "cut.swf.gz"
    path.write_bytes(data[: len(data) // 2])
    err = read_error(path)
    assert "gzip" in str(err)


def test_clean_by_status_refuses_codes_beyond_float_range() -> None:
    """A status code of 10**400 is a ConfigError, not an OverflowError."""
    with pytest.raises(ConfigError):
        clean_by_status(small([0.0]), drop=[10**400])


def test_mark_non_priority_with_huge_every_and_bad_seeds() -> None:
    """every beyond int64 marks nothing; a bad seed for fraction= is a ConfigError."""
    w = small([0.0, 1.0, 2.0])
    marked = mark_non_priority(w, every=2**70)
    assert np.isnan(marked.attributes["deadline_time"]).all()
    for seed in (-1, "x", 1.5, None):
        with pytest.raises(ConfigError) as info:
            mark_non_priority(w, fraction=0.5, seed=seed)  # type: ignore[arg-type]
        assert info.value.option == "seed"
    with pytest.raises(ConfigError):
        mark_non_priority(w, every=1, deadline=10**400)


def test_deadline_table_with_non_integer_job_ids(tmp_path: Path) -> None:
    """inf / 1.5 job ids and unparsable tables are WorkloadErrors naming the file."""
    w = small([0.0, 1.0])
    bad = tmp_path / "d.csv"
    bad.write_text("job_id,deadline\ninf,5\n")
    with pytest.raises(WorkloadError) as info:
        deadlines_from_table(w, bad)
    assert (info.value.line, info.value.field) == (2, "job_id")
    bad.write_text("job_id,deadline\n1.5,5\n")
    with pytest.raises(WorkloadError):
        deadlines_from_table(w, bad)
    bad.write_text('job_id,deadline\n1,"5\n')
    with pytest.raises(WorkloadError):
        deadlines_from_table(w, bad)
    broken = tmp_path / "d.parquet"
    broken.write_bytes(b"not parquet")
    with pytest.raises(WorkloadError):
        deadlines_from_table(w, broken)


# -- sweep files ------------------------------------------------------------------------------


def sweep_error(tmp_path: Path, text: str) -> ConfigError:
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    return info.value


POLICY = '\n[[policies]]\nname = "easy"\n'


@pytest.mark.parametrize(
    ("text", "option"),
    [
        (f'[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\nprocs = {HUGE}\n', "workloads[0].procs"),
        (
            f'[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\n[grid]\nprocs = [{2**31}]\n',
            "grid.procs",
        ),
        (
            f'[[workloads]]\nmodel = "lublin:jobs=5,procs={HUGE}"\n',
            "workloads[0].model",
        ),
        ('[[workloads]]\nmodel = "lublin:jobs=5,procs=8,start_time=1e300"\n', "workloads[0].model"),
        ('[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\ndrop_status = [1e400]\n', None),
        (
            f'[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\ndrop_status = [{2**70}]\n',
            "workloads[0].drop_status",
        ),
        ('[[workloads]]\npath = "~nosuchuser_schedlab/x.swf"\n', "workloads[0].path"),
        ('[[workloads]]\npath = "' + "p" * 5000 + '.swf"\n', "workloads[0].path"),
        (
            'out = "~nosuchuser_schedlab/out"\n[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\n',
            "out",
        ),
        (
            f'[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\n[grid]\nload_factor = {10**400}\n',
            None,
        ),
        (
            '[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\n'
            f"non_priority = {{every = {2**70}, deadline = {10**30}}}\n",
            "workloads[0].non_priority.deadline",
        ),
        (
            '[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\nestimates = {seed = -1}\n',
            "workloads[0].estimates.seed",
        ),
    ],
)
def test_sweep_inputs_out_of_range_are_config_errors(
    tmp_path: Path, text: str, option: str | None
) -> None:
    """Huge sizes, unknown home folders, over-long names, huge ints: ConfigError each."""
    err = sweep_error(tmp_path, text + POLICY)
    if option is not None:
        assert err.option == option


def test_sweep_with_too_many_runs_is_refused_before_expansion(tmp_path: Path) -> None:
    """A product of long lists beyond MAX_RUNS fails at once, naming the count."""
    seeds = list(range(1000))
    data = {
        "workloads": [{"model": "lublin:jobs=5,procs=8"}],
        "policies": [{"name": "easy"}],
        "grid": {"seed": seeds, "load_factor": [0.5 + i / 1000 for i in range(1001)]},
    }
    with pytest.raises(ConfigError) as info:
        parse_sweep(data, tmp_path, "mem")
    assert info.value.option == "sweep size"
    assert str(MAX_RUNS) in info.value.allowed


@pytest.mark.parametrize(
    ("table", "option", "allowed"),
    [
        ("estimates = {}", "workloads[0].estimates", "a table that sets seed"),
        ("non_priority = {foo = 1}", "workloads[0].non_priority", "every, fraction"),
    ],
)
def test_sweep_transform_parameters_are_named_in_the_file_terms(
    tmp_path: Path, table: str, option: str, allowed: str
) -> None:
    """A missing or unknown transform parameter is named, with the parameters there are
    (not Python's "got an unexpected keyword argument")."""
    err = sweep_error(
        tmp_path, f'[[workloads]]\nmodel = "lublin:jobs=5,procs=8"\n{table}\n' + POLICY
    )
    assert err.option == option
    assert allowed in err.allowed
    assert "keyword" not in err.allowed
