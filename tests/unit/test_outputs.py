"""Output files: never onto an input, never over an existing file without --force, never half
written (issue 8, item 2)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedlab.errors import OutputError
from schedlab.outputs import atomic_output, check_output, write_atomic, write_table
from schedlab.workload.models.lublin import generate_lublin
from schedlab.workload.swf import read_swf, write_swf


def test_check_output_refuses_an_input_even_with_force(tmp_path: Path) -> None:
    """The same file under another spelling (./x, a symlink) is still the input."""
    source = tmp_path / "in.swf"
    source.write_text("x")
    link = tmp_path / "link.swf"
    link.symlink_to(source)
    for spelling in (source, tmp_path / "." / "in.swf", link):
        for force in (False, True):
            with pytest.raises(OutputError, match="is an input"):
                check_output(spelling, option="OUTPUT", force=force, inputs=[str(source)])


def test_check_output_refuses_an_existing_file_unless_forced(tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    assert check_output(target, option="--jobs-out") == target  # new: fine
    target.write_text("old")
    with pytest.raises(OutputError, match="already exists; add --force"):
        check_output(target, option="--jobs-out")
    assert check_output(target, option="--jobs-out", force=True) == target


def test_check_output_ignores_model_specs_and_none_among_inputs(tmp_path: Path) -> None:
    target = tmp_path / "out.swf"
    inputs = ["lublin:jobs=10,procs=8", None]
    assert check_output(target, option="-o", inputs=inputs) == target


def test_check_output_needs_an_existing_folder_and_a_file_name(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        check_output(tmp_path / "nope" / "out.csv", option="--jobs-out")
    with pytest.raises(OutputError, match="is a folder"):
        check_output(tmp_path, option="--jobs-out", force=True)


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    """An exception while writing (here: mid-way) keeps the old content, byte for byte."""
    target = tmp_path / "report.html"
    target.write_bytes(b"old content")
    with pytest.raises(RuntimeError), atomic_output(target) as tmp:
        tmp.write_bytes(b"half of the new")
        raise RuntimeError("killed while writing")
    assert target.read_bytes() == b"old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_atomic_writes_replace_whole_and_keep_normal_permissions(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    write_atomic(target, b"first")
    write_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_write_swf_failing_midway_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """write_swf goes through a temporary file: a failure never leaves half a trace."""
    target = tmp_path / "w.swf"
    wl = generate_lublin(jobs=50, procs=16, seed=1)
    write_swf(wl, target)
    before = target.read_bytes()

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(Exception, match="No space left"):
        write_swf(generate_lublin(jobs=80, procs=16, seed=2), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.swf"]
    np.testing.assert_array_equal(read_swf(target).fields, wl.fields)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_write_table_replaces_atomically(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"jobs{suffix}"
    frame = pd.DataFrame({"a": [1, 2, 3]})
    write_table(frame, path)
    write_table(frame.assign(a=[4, 5, 6]), path)
    back = pd.read_csv(path) if suffix == ".csv" else pd.read_parquet(path)
    assert back["a"].tolist() == [4, 5, 6]
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
