"""Every shipped example runs as printed, from an installed (non-editable) schedlab, in an
empty folder (issue 23, item 3).

schedlab is built from a copy of the checkout (building writes ``build/`` and
``*.egg-info`` beside the sources) and installed with pip, offline, into a folder of
tmp_path (``--target``), never into the environment under test; its console script then
runs with that folder on PYTHONPATH. In a fresh, empty folder per example, the test runs
``schedlab example NAME > NAME.toml`` and ``schedlab sweep NAME.toml --dry-run``, then every
command the example's own comments print, as printed (``DIR``, the folder of the traces,
becomes a folder of small stand-in traces with the names the example asks for), and checks
that everything they write lands under that folder.
"""

from __future__ import annotations

import gzip
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
# the files the build reads besides src/ (pyproject: readme, license; setup.py: extensions)
BUILD_FILES = ("pyproject.toml", "setup.py", "README.md", "LICENSE")
TRACES_ENV = "SCHEDLAB_TRACES"
# every example the package ships (a new one must be added here, and so run by this test)
EXAMPLES = (
    "cluster-gpu",
    "grid-sweep",
    "platform-dirac",
    "platform-heterogeneous",
    "platform-tdcs",
    "quick-sweep",
    "sweep",
    "tdcs-sweep",
)

Cli = Callable[..., subprocess.CompletedProcess[str]]


def _setuptools_builds_wheels() -> bool:
    """--no-build-isolation builds with the environment's setuptools: it needs bdist_wheel,
    built in from setuptools 70.1 (pyproject's test extra asks for it)."""
    try:
        from setuptools.command import bdist_wheel  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """schedlab installed from a copy of the checkout into a fresh folder; returns it."""
    if not _setuptools_builds_wheels():
        pytest.skip("building schedlab offline needs setuptools >= 70.1 (bdist_wheel)")
    base = tmp_path_factory.mktemp("installed")
    source = base / "source"
    source.mkdir()
    for name in BUILD_FILES:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "src",
        source / "src",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "*.pyd"),
    )
    target = base / "site"
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation"]
    pip += ["--no-index", "--no-cache-dir", "--no-compile", "--quiet"]
    done = subprocess.run(
        [*pip, "--target", str(target), str(source)],
        env=_env(base, pythonpath=None),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def _env(base: Path, pythonpath: Path | None) -> dict[str, str]:
    """The current environment, temporary files under ``base``, no trace folder set."""
    env = dict(os.environ)
    tmp = base / "tmp"
    tmp.mkdir(exist_ok=True)
    env.update(TMPDIR=str(tmp), PIP_DISABLE_PIP_VERSION_CHECK="1", COLUMNS="120")
    env.pop("PYTHONPATH", None)
    env.pop(TRACES_ENV, None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return env


@pytest.fixture(scope="module")
def cli(site: Path) -> Cli:
    """Runs the installed console script (``schedlab ARGS``) in a folder."""
    script = site / "bin" / "schedlab"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "schedlab"]

    def run(
        *args: str, cwd: Path, stdout: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        environment = {**_env(site.parent, pythonpath=site), **(env or {})}
        with open(stdout, "w") if stdout else open(os.devnull, "w") as sink:
            return subprocess.run(
                [*command, *args],
                cwd=cwd,
                env=environment,
                stdout=sink if stdout else subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                timeout=300,
            )

    return run


def _names(site: Path) -> list[str]:
    return sorted(p.stem for p in (site / "schedlab" / "examples").glob("*.toml"))


def test_the_installed_copy_is_the_one_under_test(site: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import schedlab; print(schedlab.__file__)"],
        env=_env(site.parent, pythonpath=site),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert Path(done.stdout.strip()).is_relative_to(site), done.stdout + done.stderr
    assert _names(site) == sorted(EXAMPLES)


def write_trace(path: Path, jobs: int = 60, procs: int = 16) -> None:
    """A small valid SWF trace standing in for a real one (gzipped for .gz names)."""
    lines = [f"; MaxProcs: {procs}"]
    for i in range(1, jobs + 1):
        fields = [i, 20 * i, -1, 60 + 13 * (i % 11), 1 + i % procs, -1, -1, 1 + i % procs, 300]
        fields += [-1, 1, 1 + i % 3, 1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)


def _printed_commands(text: str) -> list[list[str]]:
    """The commands an example's comments print (``#   schedlab ...``), as argument lists
    (a trailing ``# comment`` dropped)."""
    commands = []
    for line in text.splitlines():
        body = line.lstrip("#").strip()
        if line.startswith("#") and body.startswith("schedlab "):
            commands.append(shlex.split(body, comments=True))
    return commands


def _run_printed(cli: Cli, words: list[str], folder: Path, traces: Path) -> None:
    """Run one printed command in ``folder``, ``> FILE`` as the shell would."""
    args = [str(traces) if w == "DIR" else w for w in words[1:]]
    stdout = None
    if ">" in args:
        at = args.index(">")
        stdout, args = folder / args[at + 1], args[:at]
    done = cli(*args, cwd=folder, stdout=stdout)
    assert done.returncode == 0, (" ".join(words), done.stderr)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_as_printed_in_an_empty_folder(
    site: Path, cli: Cli, tmp_path: Path, name: str
) -> None:
    assert name in _names(site)
    traces = tmp_path / "traces"  # stand-ins, in a folder of their own
    traces.mkdir()
    folder = tmp_path / "work" / name
    folder.mkdir(parents=True)

    saved = folder / f"{name}.toml"
    done = cli("example", name, cwd=folder, stdout=saved)
    assert done.returncode == 0, done.stderr
    text = saved.read_text(encoding="utf-8")
    assert "../" not in text  # no ../shared, no ../results
    data = tomllib.loads(text)
    is_sweep = "workloads" in data
    trace_names = [w["path"] for w in data.get("workloads", []) if "path" in w]
    for trace in trace_names:
        write_trace(traces / trace)

    if is_sweep:  # the flow `schedlab example --help` suggests
        dry = cli("sweep", saved.name, "--dry-run", cwd=folder)
        if trace_names:  # a clear hint, then it works with the traces pointed at
            assert dry.returncode == 2, dry.stdout + dry.stderr
            assert "--traces DIR" in dry.stderr and TRACES_ENV in dry.stderr
            assert trace_names[0] in dry.stderr
            dry = cli("sweep", saved.name, "--dry-run", "--traces", str(traces), cwd=folder)
            assert dry.returncode == 0, dry.stderr
            by_env = cli(
                "sweep", saved.name, "--dry-run", cwd=folder, env={TRACES_ENV: "../../traces"}
            )
            assert by_env.returncode == 0, by_env.stderr
        assert dry.returncode == 0, dry.stderr
        assert f"results would go to results/{name} (the file's `out`)" in dry.stdout

    commands = _printed_commands(text)
    assert commands and commands[0][:3] == ["schedlab", "example", name]
    done_already = [
        ["schedlab", "example", name, ">", saved.name],
        ["schedlab", "sweep", saved.name, "--dry-run"],
    ]
    for words in commands:
        if words not in done_already:
            _run_printed(cli, words, folder, traces)

    assert [p.name for p in (tmp_path / "work").iterdir()] == [name]  # nothing beside it
    made = {p.name for p in folder.iterdir()}
    assert made <= {saved.name, commands[0][-1], "results"}, made
    if is_sweep:
        assert (folder / "results" / name / "catalog.parquet").is_file()
