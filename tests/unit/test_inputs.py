"""Reading a user's files (issue 22, items 1, 4 and 8): regular files only, a cap on what a
file expands to, every file read recorded so that no output replaces it, errors that quote a
bounded amount of text, and --json output that is strict JSON."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest
from test_cli import assert_one_line_error, run_main, swf_line, write_swf_text

from schedlab import inputs
from schedlab.cli.common import json_text
from schedlab.errors import ConfigError, OutputError, WorkloadError
from schedlab.inputs import ENV_LIMIT, parse_size, read_input, tracking
from schedlab.outputs import atomic_output, check_output, write_atomic


@pytest.fixture(autouse=True)
def default_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from the default limit; what a test sets is undone after it."""
    monkeypatch.setattr(inputs, "_limit", None)
    monkeypatch.setenv(ENV_LIMIT, "1G")  # recorded, so the variable is restored (unset) after:
    monkeypatch.delenv(ENV_LIMIT)  # --max-input-size exports the limit to the environment


def bomb(path: Path, size: int) -> Path:
    """A gzip file of ``size`` zero bytes once expanded (about size/1000 on disk)."""
    with gzip.open(path, "wb", compresslevel=9) as gz:
        block = b"0" * (1 << 20)
        for _ in range(size // len(block)):
            gz.write(block)
    return path


# -- what read_input accepts --------------------------------------------------------------


def test_plain_gzip_and_multi_member_gzip_read_whole(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"\xef\xbb\xbfhello\n")
    assert read_input(plain) == b"hello\n"  # the BOM is not part of the first line
    two = tmp_path / "b.gz"
    two.write_bytes(gzip.compress(b"one\n") + gzip.compress(b"two\n"))
    assert read_input(two) == b"one\ntwo\n"


def test_a_device_a_fifo_and_a_folder_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(WorkloadError, match="/dev/zero: is not a regular file"):
        read_input("/dev/zero", kind="an SWF file")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # no writer: opening it would block for ever
    with pytest.raises(WorkloadError, match="pipe: is not a regular file"):
        read_input(fifo)
    with pytest.raises(WorkloadError, match="is a directory, not a platform file"):
        read_input(tmp_path, kind="a platform file")
    with pytest.raises(WorkloadError, match="no such file"):
        read_input(tmp_path / "missing")


def test_a_gzip_bomb_stops_at_the_limit(tmp_path: Path) -> None:
    path = bomb(tmp_path / "bomb.swf.gz", 8 << 20)
    assert path.stat().st_size < 100_000
    with pytest.raises(WorkloadError, match=r"expands to more than 4 MiB.*--max-input-size"):
        read_input(path, limit=4 << 20)
    assert len(read_input(path, limit=8 << 20)) == 8 << 20  # exactly the limit is allowed


def test_a_plain_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.swf"
    path.write_bytes(b"1" * 5000)
    with pytest.raises(WorkloadError, match="holds more than 4 KiB"):
        read_input(path, limit=4096)


def test_corrupt_gzip_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.gz"
    path.write_bytes(gzip.compress(b"x" * 10_000)[:-20])
    with pytest.raises(WorkloadError, match="corrupt gzip data"):
        read_input(path)


def test_the_limit_comes_from_the_environment_and_sizes_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert inputs.input_limit() == inputs.DEFAULT_LIMIT
    monkeypatch.setenv(ENV_LIMIT, "3G")
    assert inputs.input_limit() == 3 * 1024**3
    assert parse_size("512M") == 512 * 1024**2
    assert parse_size("1.5GiB") == int(1.5 * 1024**3)
    assert parse_size("2048") == 2048
    for bad in ("lots", "-1G", "1e400", "0", "10"):
        with pytest.raises(ConfigError, match="--max-input-size"):
            parse_size(bad)


# -- every file read is an input no output may replace ---------------------------------------


def test_inside_a_command_a_file_read_cannot_be_written(tmp_path: Path) -> None:
    source = tmp_path / "times.csv"
    source.write_text("1\n2\n")
    with tracking():
        read_input(source)
        with pytest.raises(OutputError, match="is an input of this command"):
            check_output(source, option="--jobs-out", force=True)
        with pytest.raises(OutputError, match="is an input of this command"):
            write_atomic(source, b"replaced")
        link = tmp_path / "link.csv"
        link.symlink_to(source)
        with pytest.raises(OutputError, match="is an input"):
            check_output(link, option="--jobs-out", force=True)
    assert source.read_text() == "1\n2\n"
    write_atomic(source, b"replaced")  # a library script may rewrite what it read
    assert source.read_bytes() == b"replaced"


def test_a_file_read_while_an_output_is_made_is_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("input\n")
    with tracking(), pytest.raises(OutputError), atomic_output(target) as tmp:
        read_input(target)
        tmp.write_text("output\n")
    assert target.read_text() == "input\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]  # no temporary left


def test_a_deadline_table_is_an_input_of_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "t.swf"
    write_swf_text(trace, [swf_line(1, 0, 10, 1, 20), swf_line(2, 5, 10, 1, 20)], max_procs=2)
    table = tmp_path / "d.csv"
    table.write_text("job_id,deadline\n1,1000\n")
    code, out, err = run_main(
        monkeypatch,
        capsys,
        "run",
        str(trace),
        "--policy",
        "dbf",
        "--deadlines",
        str(table),
        "--jobs-out",
        str(table),
        "--force",
    )
    assert_one_line_error(code, None, err, "d.csv", "is an input of this command")
    assert table.read_text() == "job_id,deadline\n1,1000\n"


# -- special and oversized files at the command line ------------------------------------------


def test_special_files_give_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe.swf"
    os.mkfifo(fifo)
    for args in (
        ("run", "/dev/zero"),
        ("run", str(fifo)),
        ("run", f"slurm:{fifo}"),
        ("workload", "info", "/dev/zero"),
    ):
        code, out, err = run_main(monkeypatch, capsys, *args)
        assert_one_line_error(code, out, err, "is not a regular file")


def test_a_bomb_is_refused_at_the_command_line_and_the_limit_can_be_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = bomb(tmp_path / "bomb.swf.gz", 2 << 20)
    code, out, err = run_main(monkeypatch, capsys, "--max-input-size", "1M", "run", str(path))
    assert_one_line_error(code, out, err, "bomb.swf.gz", "expands to more than 1 MiB")
    monkeypatch.setattr(inputs, "_limit", None)
    monkeypatch.setenv(ENV_LIMIT, "3M")  # raised: now the content itself is judged
    code, out, err = run_main(monkeypatch, capsys, "run", str(path))
    assert_one_line_error(code, out, err, "bomb.swf.gz")
    assert "input size limit" not in err


# -- messages and JSON ---------------------------------------------------------------------


def test_errors_quote_at_most_about_200_characters() -> None:
    long = ConfigError("--x", "9" * 100_000, "a number")
    assert len(str(long)) < 300 and "more characters" in str(long)
    huge_int = WorkloadError("f.csv", "too big", line=2, field="id", value=10**5000)  # type: ignore[arg-type]
    assert "an integer of about 5,001 digits" in str(huge_int)


def test_json_text_is_strict_and_says_what_is_undefined() -> None:
    text = json_text({"jobs": 3, "mean": float("nan"), "by": [{"x": float("inf")}]})

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    data = json.loads(text, parse_constant=refuse)
    assert data["mean"] is None and data["by"][0]["x"] is None
    assert set(data["undefined"]) == {"mean", "by[0].x"}
