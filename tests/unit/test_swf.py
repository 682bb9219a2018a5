"""SWF reading and writing: the conventions of SPEC section 2, errors, round trips."""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedlab.errors import ConfigError, WorkloadError
from schedlab.workload.job import N_FIELDS, F, Workload
from schedlab.workload.swf import read_swf, swf_header_value, write_swf

# -- helpers -----------------------------------------------------------------------------------


def job(**values: float | str) -> str:
    """One SWF job line: a 1-proc, 10 s, completed job at t=0 unless `values` say otherwise."""
    row: list[float | str] = [-1] * N_FIELDS
    row[F["job_id"]] = 1
    row[F["submit_time"]] = 0
    row[F["run_time"]] = 10
    row[F["allocated_procs"]] = 1
    row[F["status"]] = 1
    for name, value in values.items():
        row[F[name]] = value
    return " ".join(str(v) for v in row)


def write_text(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def bits(array: np.ndarray) -> np.ndarray:
    """The raw bits of a float array: equality then also tells -0.0 from 0.0."""
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


def same_workload(a: Workload, b: Workload) -> bool:
    return (
        np.array_equal(bits(a.fields), bits(b.fields))
        and a.header == b.header
        and a.max_procs == b.max_procs
    )


# -- SPEC 2 conventions ------------------------------------------------------------------------


def test_procs_come_from_field_5_else_field_8(tmp_path: Path) -> None:
    """Processors are field 5 when > 0, else field 8 (requested processors)."""
    path = write_text(
        tmp_path / "p.swf",
        [
            job(job_id=1, allocated_procs=4, requested_procs=8),
            job(job_id=2, allocated_procs=-1, requested_procs=8),
            job(job_id=3, allocated_procs=0, requested_procs=2),
        ],
    )
    w = read_swf(path)
    assert w.procs.tolist() == [4, 8, 2]
    assert w.max_procs == 8


def test_requested_time_comes_from_field_9_else_run_time(tmp_path: Path) -> None:
    """Requested time is field 9 when > 0, else the run time; field 9 itself is kept raw."""
    path = write_text(
        tmp_path / "r.swf",
        [
            job(job_id=1, run_time=10, requested_time=60),
            job(job_id=2, run_time=20, requested_time=-1),
            job(job_id=3, run_time=30, requested_time=0),
        ],
    )
    w = read_swf(path)
    assert w.requested_time.tolist() == [60, 20, 30]
    assert w.column("requested_time").tolist() == [60, -1, 0]


def test_unrunnable_jobs_are_skipped_and_counted_by_reason(tmp_path: Path) -> None:
    """Run time <= 0, procs <= 0 (both fields) and wider-than-machine jobs are counted."""
    path = write_text(
        tmp_path / "s.swf",
        [
            "; MaxProcs: 8",
            job(job_id=1),
            job(job_id=2, run_time=0),
            job(job_id=3, run_time=-1),
            job(job_id=4, allocated_procs=-1, requested_procs=-1),
            job(job_id=5, allocated_procs=0, requested_procs=0),
            job(job_id=6, allocated_procs=9),
            job(job_id=7, allocated_procs=8),
        ],
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 7]
    assert w.skipped == {
        "nonpositive_run_time": 2,
        "nonpositive_procs": 2,
        "wider_than_machine": 1,
    }
    assert len(w) + w.total_skipped == 7


def test_machine_size_prefers_maxprocs_to_maxnodes(tmp_path: Path) -> None:
    """Header MaxProcs wins over MaxNodes (SMP machines: processors, not nodes)."""
    path = write_text(tmp_path / "m.swf", ["; MaxNodes: 4", "; MaxProcs: 32", job()])
    assert read_swf(path).max_procs == 32


@pytest.mark.parametrize("maxprocs_line", [None, "; MaxProcs: -1", "; MaxProcs: 0"])
def test_machine_size_falls_back_to_maxnodes(tmp_path: Path, maxprocs_line: str | None) -> None:
    """Without a positive MaxProcs, MaxNodes gives the machine size."""
    lines = ["; MaxNodes: 16"] + ([maxprocs_line] if maxprocs_line else []) + [job()]
    assert read_swf(write_text(tmp_path / "n.swf", lines)).max_procs == 16


def test_machine_size_falls_back_to_widest_job(tmp_path: Path) -> None:
    """Without MaxProcs or MaxNodes the widest runnable job sets the machine size."""
    path = write_text(
        tmp_path / "w.swf",
        [
            "; Version: 2.2",
            job(job_id=1, allocated_procs=3),
            job(job_id=2, allocated_procs=12),
            job(job_id=3, allocated_procs=99, run_time=-1),
        ],
    )
    assert read_swf(path).max_procs == 12


def test_max_procs_argument_overrides_header(tmp_path: Path) -> None:
    """`max_procs=` beats the header, and jobs wider than it are skipped as too wide."""
    path = write_text(
        tmp_path / "o.swf",
        ["; MaxProcs: 64", job(job_id=1, allocated_procs=4), job(job_id=2, allocated_procs=40)],
    )
    w = read_swf(path, max_procs=16)
    assert w.max_procs == 16
    assert w.job_id.tolist() == [1]
    assert w.skipped["wider_than_machine"] == 1


@pytest.mark.parametrize("bad", [0, -4, 2.5, True, "16"])
def test_invalid_max_procs_argument_is_a_config_error(tmp_path: Path, bad: object) -> None:
    """A machine size that is not a positive integer is refused, naming the option."""
    path = write_text(tmp_path / "x.swf", [job()])
    with pytest.raises(ConfigError, match="max_procs"):
        read_swf(path, max_procs=bad)  # type: ignore[arg-type]


def test_malformed_header_machine_size_names_the_line(tmp_path: Path) -> None:
    """A MaxProcs header that is not an integer is an error naming its line."""
    path = write_text(tmp_path / "h.swf", ["; Version: 2.2", "; MaxProcs: lots", job()])
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    assert info.value.line == 2
    assert info.value.field == "MaxProcs"
    assert read_swf(path, max_procs=4).max_procs == 4


def test_out_of_order_submits_are_sorted_stably(tmp_path: Path) -> None:
    """Jobs come out in submit order; equal submit times keep their file order."""
    path = write_text(
        tmp_path / "o.swf",
        [
            job(job_id=1, submit_time=50),
            job(job_id=2, submit_time=10),
            job(job_id=3, submit_time=50),
            job(job_id=4, submit_time=10),
            job(job_id=5, submit_time=30),
        ],
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [2, 4, 5, 1, 3]
    assert w.submit_time.tolist() == [10, 10, 30, 50, 50]
    assert w.reordered == 2


# -- file handling -----------------------------------------------------------------------------


def test_gzip_and_plain_files_read_the_same(tmp_path: Path) -> None:
    """.swf and .swf.gz give the same workload; gzip is detected by magic bytes, not name."""
    lines = ["; MaxProcs: 8", job(job_id=1), job(job_id=2, submit_time=5, run_time=2.5)]
    plain = write_text(tmp_path / "t.swf", lines)
    text = plain.read_bytes()
    (tmp_path / "t.swf.gz").write_bytes(gzip.compress(text))
    (tmp_path / "gz_named.swf").write_bytes(gzip.compress(text))
    (tmp_path / "plain_named.swf.gz").write_bytes(text)
    reference = read_swf(plain)
    for name in ("t.swf.gz", "gz_named.swf", "plain_named.swf.gz"):
        assert same_workload(read_swf(tmp_path / name), reference), name


def test_header_lines_are_kept_without_semicolon_and_one_space(tmp_path: Path) -> None:
    """Header keeps every ';' line in order, minus ';' and at most one leading space."""
    path = write_text(
        tmp_path / "h.swf",
        [
            "; Version: 2.2",
            ";Computer: X",
            ";",
            ";   indented note  ",
            "; Queue:  0  interactive    ",
            job(job_id=1),
            "; trailing comment",
            job(job_id=2),
        ],
    )
    w = read_swf(path)
    assert w.header == [
        "Version: 2.2",
        "Computer: X",
        "",
        "  indented note  ",
        "Queue:  0  interactive    ",
        "trailing comment",
    ]
    assert len(w) == 2
    assert swf_header_value(w, "Computer") == "X"
    assert swf_header_value(w, "MaxProcs") is None


def test_empty_lines_and_crlf_line_ends_are_accepted(tmp_path: Path) -> None:
    """Blank lines are ignored anywhere and Windows line ends read like Unix ones."""
    path = tmp_path / "e.swf"
    path.write_bytes(
        ("; Version: 2.2\r\n\r\n" + job(job_id=1) + "\r\n   \r\n" + job(job_id=2) + "\r\n").encode()
    )
    w = read_swf(path)
    assert w.job_id.tolist() == [1, 2]
    assert w.header == ["Version: 2.2"]


def test_utf8_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    """A UTF-8 BOM before the first header line does not hide that line."""
    path = tmp_path / "bom.swf"
    path.write_bytes(b"\xef\xbb\xbf; MaxProcs: 4\n" + job().encode() + b"\n")
    w = read_swf(path)
    assert (w.header, w.max_procs, len(w)) == (["MaxProcs: 4"], 4, 1)


def test_integer_and_float_texts_are_accepted(tmp_path: Path) -> None:
    """Fields may be written as integers or floats ('12.5', '1e3', '+5', '.5', '7.')."""
    line = job(run_time="12.5", wait_time="1e3", avg_cpu_time=".5", used_memory="7.")
    path = write_text(tmp_path / "f.swf", [line.replace(" 1 ", " +1 ", 1)])
    w = read_swf(path)
    assert w.run_time.tolist() == [12.5]
    assert w.column("wait_time").tolist() == [1000.0]
    assert w.column("avg_cpu_time").tolist() == [0.5]
    assert w.column("used_memory").tolist() == [7.0]


def test_missing_file_is_a_workload_error(tmp_path: Path) -> None:
    """A path that does not exist raises WorkloadError 'no such file' naming it."""
    path = tmp_path / "absent.swf"
    with pytest.raises(WorkloadError, match="no such file") as info:
        read_swf(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("lines", [[], ["; Version: 2.2", ";", ""], ["", "   "]])
def test_file_without_job_lines_is_an_error(tmp_path: Path, lines: list[str]) -> None:
    """A file with no job line at all (empty, header only) raises 'no jobs'."""
    with pytest.raises(WorkloadError, match="no jobs"):
        read_swf(write_text(tmp_path / "empty.swf", lines))


def test_corrupt_gzip_is_a_workload_error(tmp_path: Path) -> None:
    """Gzip magic followed by garbage raises WorkloadError, not a zlib exception."""
    path = tmp_path / "bad.swf.gz"
    path.write_bytes(b"\x1f\x8b" + b"not really gzip data")
    with pytest.raises(WorkloadError, match="gzip"):
        read_swf(path)


# -- malformed lines ---------------------------------------------------------------------------

_GOOD = job(job_id=1)


@pytest.mark.parametrize(
    ("bad_line", "message", "field", "value"),
    [
        (" ".join(_GOOD.split()[:17]), "expected 18 fields, found 17", "18 (think_time)", None),
        (_GOOD + " 7", "expected 18 fields, found 19", "19", "7"),
        (_GOOD.replace(" 1 ", " x1 ", 1), "expected a number", "5 (allocated_procs)", "x1"),
        (_GOOD.replace(" 10 ", " nan ", 1), "expected a number", "4 (run_time)", "nan"),
        (_GOOD.replace(" 10 ", " inf ", 1), "expected a number", "4 (run_time)", "inf"),
        (_GOOD.replace(" 10 ", " 1e999 ", 1), "finite", "4 (run_time)", "1e999"),
        (_GOOD.replace(" 10 ", " 1_0 ", 1), "expected a number", "4 (run_time)", "1_0"),
        (_GOOD + " ; note", "expected 18 fields, found 20", "19", ";"),
    ],
    ids=["too-few", "too-many", "not-a-number", "nan", "inf", "overflow", "underscore", "inline"],
)
def test_malformed_line_error_names_file_line_and_field(
    tmp_path: Path, bad_line: str, message: str, field: str, value: str | None
) -> None:
    """A bad job line raises WorkloadError with file name, 1-based line number and field."""
    path = write_text(
        tmp_path / "bad.swf",
        ["; Version: 2.2", "; MaxProcs: 4", _GOOD, "", bad_line, _GOOD],
    )
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    err = info.value
    text = str(err)
    assert err.line == 5
    assert f"{path}:5" in text
    assert message in text
    assert err.field is not None and err.field.startswith(field)
    assert f"field {err.field}" in text
    if value is not None:
        assert err.value == value


def test_first_of_several_bad_lines_is_reported(tmp_path: Path) -> None:
    """With more than one bad line, the error points at the first one."""
    path = write_text(tmp_path / "bad.swf", [_GOOD, "1 2 3", _GOOD, "also bad"])
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    assert info.value.line == 2


def test_malformed_line_in_gzip_file_is_located(tmp_path: Path) -> None:
    """Line numbers in errors are those of the decompressed text."""
    text = "\n".join(["; a", "; b", _GOOD, _GOOD.replace(" 10 ", " ten ", 1)]) + "\n"
    path = tmp_path / "bad.swf.gz"
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(WorkloadError) as info:
        read_swf(path)
    assert (info.value.line, info.value.field) == (4, "4 (run_time)")


# -- writing and round trips -------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".swf", ".swf.gz"])
def test_round_trip_is_lossless(tmp_path: Path, suffix: str) -> None:
    """read(write(read(f))) gives identical fields, header and machine size."""
    src = write_text(
        tmp_path / "src.swf",
        [
            "; Version: 2.2",
            ";   spaced  ",
            ";",
            "; MaxProcs: 128",
            job(job_id=7, submit_time=5, run_time=12.5, wait_time=0.1, avg_cpu_time=1e-7),
            job(job_id=3, submit_time=1, run_time=3, used_memory=123456789012345678),
            job(job_id=4, submit_time=1, run_time=2, think_time=-0.0),
        ],
    )
    first = read_swf(src)
    out = tmp_path / f"out{suffix}"
    write_swf(first, out)
    second = read_swf(out)
    assert same_workload(first, second)
    assert second.column("wait_time")[-1] == 0.1
    assert second.job_id.tolist() == [3, 4, 7]
    think = second.column("think_time")[1]
    assert think == 0 and np.signbit(think)


def test_write_prints_integral_values_as_integers(tmp_path: Path) -> None:
    """Integral values print without '.0'; others keep their shortest exact text."""
    w = Workload.from_fields(
        np.array([[1, 0, -1, 12.5, 4, -1, -1, 4, 3600, -1, 1, 2, 3, 4, 5, 6, -1, 0.1]]),
    )
    out = tmp_path / "o.swf"
    write_swf(w, out)
    assert out.read_text().splitlines() == ["1 0 -1 12.5 4 -1 -1 4 3600 -1 1 2 3 4 5 6 -1 0.1"]


def test_gzip_output_is_deterministic_and_detected(tmp_path: Path) -> None:
    """Writing .gz twice gives the same bytes (no timestamp) and gzip magic."""
    w = read_swf(write_text(tmp_path / "a.swf", [job(job_id=1), job(job_id=2, submit_time=9)]))
    write_swf(w, tmp_path / "x.swf.gz")
    write_swf(w, tmp_path / "y.swf.gz")
    data = (tmp_path / "x.swf.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert data == (tmp_path / "y.swf.gz").read_bytes()


def test_overridden_machine_size_survives_a_round_trip(tmp_path: Path) -> None:
    """A machine size that the header would not give back is written as MaxProcs."""
    src = write_text(tmp_path / "s.swf", ["; MaxNodes: 8", "; MaxProcs: 64", job()])
    w = read_swf(src, max_procs=32)
    write_swf(w, tmp_path / "o.swf")
    back = read_swf(tmp_path / "o.swf")
    assert back.max_procs == 32
    assert back.header == ["MaxNodes: 8", "MaxProcs: 32"]

    bare = Workload.from_fields(np.array([[float(v) for v in job().split()]]), max_procs=5)
    write_swf(bare, tmp_path / "b.swf")
    assert read_swf(tmp_path / "b.swf").max_procs == 5


def test_writing_a_non_finite_value_is_an_error(tmp_path: Path) -> None:
    """NaN or inf in the fields cannot be written (the reader would refuse them)."""
    fields = np.array([[float(v) for v in job().split()]])
    fields[0, F["used_memory"]] = np.nan
    w = Workload(fields=fields, max_procs=1)
    with pytest.raises(WorkloadError) as info:
        write_swf(w, tmp_path / "n.swf")
    assert info.value.field == "7 (used_memory)"


_numbers = st.one_of(
    st.integers(min_value=-1, max_value=10**15).map(float),
    st.floats(allow_nan=False, allow_infinity=False),
)
_rows = st.lists(
    st.tuples(
        st.lists(_numbers, min_size=N_FIELDS, max_size=N_FIELDS),
        st.one_of(
            st.integers(min_value=1, max_value=10**6).map(float),
            st.floats(min_value=1e-6, max_value=1e9),
        ),
        st.integers(min_value=1, max_value=4096),
    ),
    min_size=1,
    max_size=25,
)
_header = st.lists(
    st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n\r"), max_size=30),
    max_size=5,
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=_rows, header=_header, extra_procs=st.one_of(st.none(), st.integers(0, 100)))
def test_random_rows_survive_write_then_read(
    tmp_path: Path,
    rows: list[tuple[list[float], float, int]],
    header: list[str],
    extra_procs: int | None,
) -> None:
    """Property: any finite rows, header and machine size come back bit-identical."""
    fields = np.array([values for values, _, _ in rows], dtype=np.float64)
    fields[:, F["run_time"]] = [run for _, run, _ in rows]
    fields[:, F["allocated_procs"]] = [procs for _, _, procs in rows]
    # The reader's ranges: integer job ids below 2**53, times within 1e15 s.
    fields[:, F["job_id"]] = np.trunc(np.clip(fields[:, F["job_id"]], -(2.0**52), 2.0**52))
    fields[:, F["submit_time"]] = np.clip(fields[:, F["submit_time"]], -1e15, 1e15)
    fields[:, F["requested_time"]] = np.minimum(fields[:, F["requested_time"]], 1e15)
    header = [text for text in header if "MaxProcs" not in text and "MaxNodes" not in text]
    widest = int(fields[:, F["allocated_procs"]].max())
    max_procs = None if extra_procs is None else widest + extra_procs
    original = Workload.from_fields(fields, max_procs=max_procs, header=header)
    out = tmp_path / "p.swf"
    write_swf(original, out)
    first = read_swf(out)
    assert np.array_equal(bits(first.fields), bits(original.fields))
    assert first.max_procs == original.max_procs
    write_swf(first, out)
    assert same_workload(read_swf(out), first)


# -- real traces -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def workloads_dir() -> Path:
    """The shared trace folder next to the repository (../shared/workloads)."""
    path = Path(__file__).resolve().parents[2].parent / "shared" / "workloads"
    if not path.is_dir():
        pytest.skip(f"real traces not available: {path} does not exist")
    return path


def trace(workloads_dir: Path, name: str) -> Path:
    path = workloads_dir / name
    if not path.is_file():
        pytest.skip(f"trace {name} not found in {workloads_dir}")
    return path


def raw_rows(path: Path) -> np.ndarray:
    """Every job line of a trace, parsed independently of read_swf."""
    with gzip.open(path, "rt") as fh:
        return np.loadtxt(fh, comments=";", ndmin=2)


@pytest.mark.trace
def test_sdsc_blue_counts_add_up(workloads_dir: Path) -> None:
    """SDSC-BLUE: 243,306 job lines = kept + skipped; MaxProcs 1152; header kept."""
    path = trace(workloads_dir, "SDSC-BLUE-2000-4.2-cln.swf.gz")
    w = read_swf(path)
    raw = raw_rows(path)
    assert len(raw) == 243_306
    assert len(w) + w.total_skipped == 243_306
    assert w.max_procs == 1152
    run = raw[:, F["run_time"]]
    assert w.skipped["nonpositive_run_time"] == int((run <= 0).sum())
    assert w.header[0] == "Version: 2.2"
    assert swf_header_value(w, "MaxRecords") == "243306"
    assert np.all(np.diff(w.submit_time) >= 0)


@pytest.mark.trace
def test_llnl_thunder_out_of_order_lines_end_sorted(workloads_dir: Path) -> None:
    """LLNL-Thunder: 808 lines go back in time; the workload is a stable submit sort."""
    path = trace(workloads_dir, "LLNL-Thunder-2007-1.1-cln.swf.gz")
    raw = raw_rows(path)
    assert int((np.diff(raw[:, F["submit_time"]]) < 0).sum()) == 808
    w = read_swf(path)
    assert len(w) + w.total_skipped == 121_039
    assert np.all(np.diff(w.submit_time) >= 0)
    kept = raw[(raw[:, F["run_time"]] > 0)]
    expected = kept[np.argsort(kept[:, F["submit_time"]], kind="stable")]
    assert np.array_equal(w.fields, expected)


@pytest.mark.trace
def test_real_trace_round_trip(workloads_dir: Path, tmp_path: Path) -> None:
    """SDSC-BLUE (with non-integer fields) survives write + read bit for bit."""
    first = read_swf(trace(workloads_dir, "SDSC-BLUE-2000-4.2-cln.swf.gz"))
    out = tmp_path / "sdsc.swf.gz"
    write_swf(first, out)
    assert same_workload(read_swf(out), first)
