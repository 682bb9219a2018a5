"""Where a sweep finds its traces and writes its results (issue 23, item 3).

A relative trace path is looked for in the trace folder (``--traces``, else
``$SCHEDLAB_TRACES``), then beside the sweep file; a trace found nowhere is an error that says
exactly what to do. ``--dry-run`` says where the results would go.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.errors import ConfigError
from schedlab.experiments.sweep import TRACES_ENV, load_sweep, trace_folder

POLICY = '[[policies]]\nname = "fcfs"\n'


def write_trace(path: Path, jobs: int = 40, procs: int = 8) -> Path:
    """A small valid SWF trace (gzipped when the name ends in .gz)."""
    lines = [f"; MaxProcs: {procs}"]
    for i in range(1, jobs + 1):
        fields = [i, 10 * i, -1, 30 + i % 7, 1 + i % procs, -1, -1, 1 + i % procs, 60]
        fields += [-1, 1, 1, 1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    data = ("\n".join(lines) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


def sweep_file(folder: Path, path: str, name: str = "s.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / name
    file.write_text(f'[[workloads]]\npath = "{path}"\n{POLICY}')
    return file


@pytest.fixture(autouse=True)
def _no_trace_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TRACES_ENV, raising=False)


def test_a_file_name_is_found_in_the_trace_folder(tmp_path: Path) -> None:
    """Stored relative to the sweep file, as if the folder were written in the path: the
    same run as writing the path out, loadable through `workload_source`."""
    write_trace(tmp_path / "traces" / "t.swf.gz")
    file = sweep_file(tmp_path / "study", "t.swf.gz")
    sweep = load_sweep(file, traces=tmp_path / "traces")
    (run,) = sweep.runs
    assert run.workload == "../traces/t.swf.gz"
    assert run.workload_label == "t"
    assert sweep.workload_source(run) == str(tmp_path / "traces" / "t.swf.gz")
    written = sweep_file(tmp_path / "study", "../traces/t.swf.gz", name="w.toml")
    assert load_sweep(written).runs[0].run_id == run.run_id


def test_the_trace_folder_comes_before_the_sweep_files_folder(tmp_path: Path) -> None:
    write_trace(tmp_path / "traces" / "t.swf")
    write_trace(tmp_path / "study" / "t.swf")
    file = sweep_file(tmp_path / "study", "t.swf")
    assert load_sweep(file, traces=tmp_path / "traces").runs[0].workload == "../traces/t.swf"
    assert load_sweep(file).runs[0].workload == "t.swf"


def test_a_trace_beside_the_file_is_found_when_the_trace_folder_lacks_it(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    write_trace(tmp_path / "study" / "t.swf")
    file = sweep_file(tmp_path / "study", "t.swf")
    assert load_sweep(file, traces=tmp_path / "traces").runs[0].workload == "t.swf"


def test_a_missing_trace_says_where_it_looked_and_what_to_do(tmp_path: Path) -> None:
    file = sweep_file(tmp_path / "study", "KTH.swf.gz")
    with pytest.raises(ConfigError) as info:
        load_sweep(file)
    assert (info.value.option, info.value.value) == ("workloads[0].path", "KTH.swf.gz")
    message = str(info.value)
    assert str(tmp_path / "study") in message
    assert "--traces DIR" in message and f"{TRACES_ENV}=DIR" in message
    (tmp_path / "traces").mkdir()
    with pytest.raises(ConfigError) as info:
        load_sweep(file, traces=tmp_path / "traces")
    assert str(tmp_path / "traces") in str(info.value) and "--traces" in str(info.value)


def test_trace_folder_is_the_option_else_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert trace_folder(None) is None
    monkeypatch.setenv(TRACES_ENV, str(tmp_path))
    assert trace_folder(None) == tmp_path.resolve()
    (tmp_path / "other").mkdir()
    assert trace_folder(tmp_path / "other") == (tmp_path / "other").resolve()
    with pytest.raises(ConfigError) as info:
        trace_folder(tmp_path / "absent")
    assert info.value.option == "--traces"
    # the variable is set once for every command: it only matters to a sweep naming a trace
    monkeypatch.setenv(TRACES_ENV, str(tmp_path / "absent"))
    assert trace_folder(None) == (tmp_path / "absent").resolve()
    model = (
        sweep_file(tmp_path / "m", "x")
        .read_text()
        .replace('path = "x"', 'model = "lublin:jobs=20,procs=4"')
    )
    (tmp_path / "m" / "s.toml").write_text(model)
    assert len(load_sweep(tmp_path / "m" / "s.toml", traces=trace_folder(None)).runs) == 1
    file = sweep_file(tmp_path / "study", "t.swf")
    with pytest.raises(ConfigError) as info:
        load_sweep(file, traces=trace_folder(None))
    assert f"{tmp_path / 'absent'} is not a folder" in str(info.value)
    assert TRACES_ENV in str(info.value)


def _sweep(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, ["sweep", *args], env={"COLUMNS": "80"})
    return result.exit_code, result.stdout, result.exception


def test_cli_traces_option_and_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_trace(tmp_path / "traces" / "t.swf.gz")
    file = sweep_file(tmp_path / "study", "t.swf.gz")
    code, _, exc = _sweep(str(file), "--dry-run")
    assert code != 0 and isinstance(exc, ConfigError) and "--traces DIR" in str(exc)
    code, text, exc = _sweep(str(file), "--dry-run", "--json", "--traces", str(tmp_path / "traces"))
    assert code == 0, exc
    assert json.loads(text)["runs"][0]["workload"] == "t"
    monkeypatch.setenv(TRACES_ENV, str(tmp_path / "traces"))
    code, text, exc = _sweep(str(file), "--dry-run", "--json")
    assert code == 0, exc


def test_dry_run_says_where_the_results_would_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`out` is relative to the sweep file's folder: with the file in the current folder, the
    results go under it, and the dry run says so (relative to the current folder)."""
    model = '[[workloads]]\nmodel = "lublin:jobs=50,procs=8"\n'
    (tmp_path / "s.toml").write_text(f'out = "results/s"\n{model}{POLICY}')
    monkeypatch.chdir(tmp_path)
    code, text, exc = _sweep("s.toml", "--dry-run")
    assert code == 0, exc
    assert "results would go to results/s (the file's `out`)" in text
    code, text, exc = _sweep("s.toml", "--dry-run", "--out", "elsewhere")
    assert "results would go to elsewhere (--out)" in text
    code, text, exc = _sweep("s.toml", "--dry-run", "--json")
    assert json.loads(text)["out"] == str(tmp_path / "results" / "s")
    (tmp_path / "n.toml").write_text(model + POLICY)
    code, text, exc = _sweep("n.toml", "--dry-run")
    assert code == 0 and "pass --out DIR" in text
    assert not (tmp_path / "results").exists()


def test_dry_run_table_keeps_whole_labels_at_80_columns(tmp_path: Path) -> None:
    """Workload labels and policies are wrapped, never cut; transforms shared by every run
    are said once under the table."""
    for name in ("HPC2N-2002-2.1-cln.swf.gz", "KTH-SP2-1996-2.swf.gz"):
        write_trace(tmp_path / name)
    (tmp_path / "s.toml").write_text(
        '[[workloads]]\npath = "HPC2N-2002-2.1-cln.swf.gz"\nfirst = 10\n'
        '[[workloads]]\npath = "KTH-SP2-1996-2.swf.gz"\nfirst = 10\n'
        '[[policies]]\nname = "conservative"\n[grid]\nload_factor = [0.9, 1.1]\n'
    )
    code, text, exc = _sweep(str(tmp_path / "s.toml"), "--dry-run")
    assert code == 0, exc
    assert "…" not in text
    assert "HPC2N-2002-2.1-cln" in text and "KTH-SP2-1996-2" in text
    assert "transforms of every run: first_jobs(n=10)" in text
    assert max(len(line) for line in text.splitlines()) <= 80
