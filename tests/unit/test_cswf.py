"""The C tokenizer of SWF job lines (workload/_cswf.c) against numpy.loadtxt (issue 15 item 5).

The oracle is the reader's fast path without the extension: the byte checks of
`swf._parse_loadtxt`, then `np.loadtxt`, then "18 finite columns". For every body both
reject it (None: the reader then runs its slow path, which names the bad line), or both give
arrays of the same shape and the same bits (-0.0 is not 0.0). Checked on hand-written edge
cases, on hypothesis-generated bodies (valid and broken lines) and on every real trace.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import WorkloadError
from schedlab.workload import swf
from schedlab.workload.job import N_FIELDS
from strategies import fuzz
from workloads import SHARED_WORKLOADS

cswf = pytest.importorskip(
    "schedlab.workload._cswf", reason="C extension schedlab.workload._cswf not compiled"
)


def bits(array: np.ndarray) -> np.ndarray:
    """The raw bits of a float array: equality then also tells -0.0 from 0.0."""
    return np.ascontiguousarray(array, dtype=np.float64).view(np.uint64)


def via_c(body: bytes) -> np.ndarray | None:
    """`swf._parse_fast` with the extension (bodies of whitespace never reach the C code)."""
    assert swf._C_PARSE_JOBS is cswf.parse_jobs
    return swf._parse_fast(body)


def via_loadtxt(body: bytes) -> np.ndarray | None:
    """`swf._parse_fast` without the extension."""
    if not body or body.isspace():
        return np.empty((0, N_FIELDS))
    return swf._parse_loadtxt(body)


def assert_same(body: bytes) -> np.ndarray | None:
    """Both paths reject `body`, or give the same shape and bits; returns the C result."""
    expected = via_loadtxt(body)
    got = via_c(body)
    if expected is None:
        assert got is None, f"C accepted what loadtxt rejects: {body[:200]!r}"
        return None
    assert got is not None, f"C rejected what loadtxt accepts: {body[:200]!r}"
    assert got.shape == expected.shape
    assert np.array_equal(bits(got), bits(expected)), f"values differ: {body[:200]!r}"
    return got


def row(*tokens: str, sep: str = " ") -> str:
    """A job line: `tokens` first, then 1, 2, ... up to 18 fields."""
    rest = [str(i) for i in range(len(tokens) + 1, N_FIELDS + 1)]
    return sep.join([*tokens, *rest])


# -- hand-written cases ---------------------------------------------------------------------


def test_plain_lines_give_their_numbers_row_by_row() -> None:
    body = (row("7", "-1") + "\n" + row("8", "2.5") + "\n").encode()
    got = assert_same(body)
    assert got is not None
    assert got.shape == (2, N_FIELDS)
    assert got[0].tolist() == [7.0, -1.0] + [float(i) for i in range(3, 19)]
    assert got[1, :2].tolist() == [8.0, 2.5]
    assert got.flags.writeable and got.flags.aligned  # as loadtxt's array


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("-.5", -0.5),
        ("2.", 2.0),
        ("+2e+3", 2000.0),
        ("1E-2", 0.01),
        ("00012", 12.0),
        ("12.50", 12.5),
        ("0.1", 0.1),
        ("3e22", 3e22),  # the largest exact power of ten
        ("3e23", 3e23),  # beyond it: the slow conversion
        ("1e-22", 1e-22),
        ("9007199254740993", 9007199254740992.0),  # 2**53 + 1 rounds to even
        ("9007199254740995", 9007199254740996.0),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        ("2.2250738585072011e-308", 2.225073858507201e-308),  # a classic hard case
        ("4.9e-324", 5e-324),
        ("1e-400", 0.0),  # underflows to zero: finite, accepted
        ("1" + "0" * 400 + "e-400", 1.0),  # longer than the stack buffer
        ("0." + "0" * 300 + "1e301", 1.0),
        ("0e999999999", 0.0),
        ("1.7976931348623157e308", 1.7976931348623157e308),
    ],
)
def test_number_forms_give_the_correctly_rounded_double(token: str, value: float) -> None:
    got = assert_same(row(token).encode())
    assert got is not None
    assert bits(got[:1, 0]) == bits(np.array([value]))
    assert bits(got[:1, 0]) == bits(np.array([float(token)]))


def test_negative_zero_keeps_its_sign() -> None:
    got = assert_same(row("-0", "-0.0", "+0", "-0e5").encode())
    assert got is not None
    assert np.signbit(got[0, :4]).tolist() == [True, True, False, True]


@pytest.mark.parametrize(
    ("body", "rows"),
    [
        ((row("1") + "\r\n" + row("2") + "\r\n").encode(), 2),  # Windows line ends
        (("\n\n" + row("1") + "\n \t \n\r\n" + row("2")).encode(), 2),  # blank lines, no \n
        ((" \t" + row("1", sep="\t \t") + " \t\n").encode(), 1),  # tabs, runs of blanks
        (b"", 0),
        (b"\n \t\r\n\n", 0),
    ],
)
def test_separators_and_blank_lines_as_loadtxt(body: bytes, rows: int) -> None:
    got = assert_same(body)
    assert got is not None
    assert got.shape == (rows, N_FIELDS)
    assert got[:, 0].tolist() == [float(i) for i in range(1, rows + 1)]


@pytest.mark.parametrize(
    "body",
    [
        row("1e").encode(),
        row(".").encode(),
        row("+").encode(),
        row("e5").encode(),
        row("-e5").encode(),
        row("1.2.3").encode(),
        row("+-1").encode(),
        row("1e+").encode(),
        row("1e5.").encode(),
        row("1-2").encode(),
        row("1e400").encode(),  # overflows to inf: not finite
        row("-1e400").encode(),
        row("1" + "0" * 400).encode(),
        row("nan").encode(),
        row("inf").encode(),
        row("1_000").encode(),
        row("0x10").encode(),
        row("1,5").encode(),
        row("1;").encode(),
        row("1", "2", sep="\x0b").encode(),  # whitespace to Python, not to the reader
        row("1", "2", sep="\x0c").encode(),
        row("1", "2", sep="\xa0").encode("latin-1"),
        row("1", "2", sep="\x00").encode(),
        (row("1") + "\r" + row("2")).encode(),  # a lone CR
        (row("1") + "\r\r\n").encode(),
        (row("1") + "\r").encode(),
        " ".join(["1"] * 17).encode(),
        " ".join(["1"] * 19).encode(),
        (row("1") + "\n" + " ".join(["1"] * 17)).encode(),
        (row("1") + "\n; a comment").encode(),
        "\u00e9".encode(),
    ],
)
def test_what_loadtxt_rejects_the_tokenizer_rejects(body: bytes) -> None:
    assert cswf.parse_jobs(body) is None
    assert via_loadtxt(body) is None


def test_only_bytes_are_accepted() -> None:
    with pytest.raises(TypeError, match="expects bytes"):
        cswf.parse_jobs(row("1"))
    with pytest.raises(TypeError, match="expects bytes"):
        cswf.parse_jobs(bytearray(row("1").encode()))


# -- the reader uses it, and falls back without it ------------------------------------------


def test_reader_gives_the_same_workload_and_errors_without_the_extension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = tmp_path / "good.swf"
    good.write_text("; MaxProcs: 64\n" + row("1", "0", "-1", "2.5") + "\n" + row("2", "3") + "\n")
    bad = tmp_path / "bad.swf"
    bad.write_text(row("1") + "\n" + row("2", "1e400") + "\n")
    assert swf._C_PARSE_JOBS is cswf.parse_jobs
    with_c = swf.read_swf(good).fields
    with pytest.raises(WorkloadError) as c_error:
        swf.read_swf(bad)
    monkeypatch.setattr(swf, "_C_PARSE_JOBS", None)
    without_c = swf.read_swf(good).fields
    with pytest.raises(WorkloadError) as py_error:
        swf.read_swf(bad)
    assert np.array_equal(bits(with_c), bits(without_c))
    assert with_c[0, 3] == 2.5
    assert str(c_error.value) == str(py_error.value)
    assert "bad.swf:2: field 2 (submit_time)" in str(c_error.value)


def test_version_names_the_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert "; SWF parser: C extension;" in result.stdout  # (the event queue's note follows)
    monkeypatch.setattr(swf, "_C_PARSE_JOBS", None)
    assert "numpy.loadtxt (the C extension was not compiled)" in swf.parser_note()


# -- generated bodies -----------------------------------------------------------------------

EDGE_TOKENS = [
    "0", "-0", "+0", "-1", "1.", ".5", "-.5", "+.5", "1e5", "1E-5", "1e+05", "00", "007",
    "9007199254740993", "123456789012345678901234567890", "0.30000000000000004",
    "2.2250738585072011e-308", "1e-400", "1e308", "1.8e308", "1e400", "nan", "inf",
    "-inf", "NaN", "1e", ".", "+", "-", "e", "1.2.3", "+-1", "1e5.", "--1", "1_0", "0x1",
    "1,0", ";", "\x0b", "\x0c", "\xa0", "\x00", "1d5", "Infinity",
]  # fmt: skip


def _float_texts() -> st.SearchStrategy[str]:
    """The same float written as SWF writers, numpy or C printf might."""
    return st.builds(
        lambda x, form: form % x if form != "repr" else repr(x),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(["repr", "%d", "%.2f", "%.3f", "%e", "%.17g", "%.25e", "%g"]),
    )


VALID_TOKENS = st.one_of(
    st.integers(-(2**63), 2**63).map(str),
    st.integers(-1, 10**6).map(str),
    _float_texts(),
)
ODD_TOKENS = st.one_of(
    st.sampled_from(EDGE_TOKENS), st.text(alphabet="0123456789eE.+-", min_size=1, max_size=8)
)
SEPARATORS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t "])
LINE_ENDS = st.sampled_from(["\n", "\n", "\n", "\r\n", "\r", "\n\n", "\n \t\n"])


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """Job lines of 18 numbers (mostly) with, now and then, an odd token, a line of another
    length, blank lines, odd separators or line ends."""
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        size = draw(st.sampled_from([18, 18, 18, 18, 18, 18, 17, 19, 0, 1]))
        tokens = draw(st.lists(VALID_TOKENS, min_size=size, max_size=size))
        if tokens and draw(st.integers(0, 3)) == 0:
            tokens[draw(st.integers(0, size - 1))] = draw(ODD_TOKENS)
        lead, sep, trail = draw(st.tuples(SEPARATORS, SEPARATORS, SEPARATORS))
        text = sep.join(tokens)
        text = (lead if draw(st.booleans()) else "") + text + (trail if tokens else "")
        lines.append(text + draw(LINE_ENDS))
    body = "".join(lines)
    if draw(st.booleans()):
        body = body.rstrip("\n")
    return body.encode("latin-1", errors="replace")


@fuzz(300)
@given(bodies())
def test_generated_bodies_give_the_same_result(body: bytes) -> None:
    """(About 40 % of these bodies are accepted, the others rejected by both paths.)"""
    assert_same(body)


@fuzz(300)
@given(st.binary(max_size=120), st.sampled_from([b"", b"\n", row("1").encode() + b"\n"]))
def test_arbitrary_bytes_give_the_same_result(junk: bytes, prefix: bytes) -> None:
    assert_same(prefix + junk)
    assert_same(prefix + junk.translate(None, b"\x00") + b" 1" * 17)


@fuzz(300)
@given(
    st.integers(0, 2**54),
    st.integers(0, 25),
    st.integers(-30, 30),
    st.booleans(),
)
def test_exact_decimal_fast_path_is_correctly_rounded(
    mantissa: int, point: int, exponent: int, negative: bool
) -> None:
    """m / 10**k * 10**e over and around the Clinger range (m <= 2**53, |e| <= 22)."""
    digits = str(mantissa).rjust(point + 1, "0")
    whole, fraction = digits[: len(digits) - point], digits[len(digits) - point :]
    token = ("-" if negative else "") + whole + ("." + fraction if point else "")
    token += f"e{exponent}" if exponent else ""
    got = assert_same(row(token).encode())
    assert got is not None
    assert bits(got[:1, 0]) == bits(np.array([float(token)]))


# -- every real trace -----------------------------------------------------------------------

TRACES = sorted(p.name for p in SHARED_WORKLOADS.glob("*.swf.gz"))


@pytest.mark.trace
@pytest.mark.parametrize("name", TRACES or ["(no traces)"])
def test_every_real_trace_parses_to_the_same_bits(name: str) -> None:
    path = SHARED_WORKLOADS / name
    if not path.exists():
        pytest.skip(f"real traces not available: {SHARED_WORKLOADS} is absent")
    _, _, body = swf._split_header(gzip.decompress(path.read_bytes()))
    got = assert_same(body)
    assert got is not None and got.shape[0] > 1000
