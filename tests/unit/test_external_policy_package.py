"""The example policy package (examples/policy-package) installs and runs from the CLI.

It is installed the way a user installs a plugin, with pip, but offline and into a folder of
tmp_path (``--target``), never into the environment under test; the CLI then runs in a
subprocess that sees that folder on PYTHONPATH and finds the policy through its entry point.
The package is copied first: building writes ``build/`` and ``*.egg-info`` next to the
sources, and examples/ is an input the session must leave untouched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import schedlab
from schedlab.errors import ConfigError
from schedlab.schedulers.registry import make_params
from schedlab.workload.job import Workload

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "examples" / "policy-package"
MODULE = PACKAGE / "src" / "user_fairshare.py"
META_MODULE = PACKAGE / "src" / "least_queued.py"
META = "least-queued"
DOC = ROOT / "docs" / "policies.md"
NAME = "user-fairshare"
SPEC = "lublin:jobs=300,procs=32,seed=1"


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
    """The example package installed into a fresh folder; returns the folder."""
    assert _setuptools_builds_wheels(), (
        "setuptools >= 70.1 is needed to build the example package offline: "
        "pip install -e '.[test]'"
    )
    base = tmp_path_factory.mktemp("plugin")
    source = base / "policy-package"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = base / "site"
    env = _env(base, pythonpath=None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--no-cache-dir",
            "--no-compile",
            "--quiet",
            "--target",
            str(target),
            str(source),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return target


def _env(base: Path, pythonpath: Path | None) -> dict[str, str]:
    """The current environment, with temporary files kept under ``base``."""
    env = dict(os.environ)
    tmp = base / "tmp"
    tmp.mkdir(exist_ok=True)
    env.update(TMPDIR=str(tmp), PIP_DISABLE_PIP_VERSION_CHECK="1", COLUMNS="200")
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return env


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from schedlab.cli import main; main()", *args],
        env=_env(site.parent, pythonpath=site),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_installed_package_is_listed_by_the_cli(site: Path) -> None:
    assert (site / "user_fairshare.py").is_file()
    done = _cli(site, "policies")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if NAME in line)
    assert "greedy=False" in row


def test_installed_package_runs_from_the_cli(site: Path) -> None:
    done = _cli(site, "run", SPEC, "--policy", NAME, "--check", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["jobs"] == 300
    # the Lublin model has one (unknown) user: least usage first is arrival order, so the
    # policy is FCFS here, which pins that the plugin, not a built-in, did the run
    fcfs = schedlab.simulate(SPEC, "fcfs").summary()
    assert summary["mean_wait_time"] == pytest.approx(fcfs["mean_wait_time"], rel=1e-12)


@pytest.fixture()
def plugin(site: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The installed module, imported in this process (forgotten afterwards)."""
    monkeypatch.syspath_prepend(str(site))
    try:
        import least_queued  # type: ignore[import-not-found]
        import user_fairshare  # type: ignore[import-not-found]
    finally:
        sys.modules.pop("user_fairshare", None)  # the next import finds it afresh
        sys.modules.pop("least_queued", None)
    user_fairshare.least_queued = least_queued  # both example modules, from one fixture
    return user_fairshare


def test_the_policy_puts_the_least_used_user_first(plugin: Any) -> None:
    """Hand-computed: at t=10 user 1 has used 2 x 10 = 20, user 2 nothing, so job 2 (user 2,
    submitted last) starts before job 1 (user 1)."""
    workload = Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 2.0]),
        run_time=np.array([10.0, 10.0, 10.0]),
        procs=np.array([2, 2, 2]),
        requested_time=np.array([10.0, 10.0, 10.0]),
        user_id=np.array([1, 1, 2]),
        max_procs=2,
    )
    jobs = schedlab.simulate(workload, plugin.UserFairShare(), check=True).jobs
    assert jobs["started_at"].tolist() == [0.0, 20.0, 10.0]


def test_greedy_goes_around_a_job_that_does_not_fit(plugin: Any) -> None:
    """P = 2; job 0 (1 proc) runs 0-10; job 1 needs 2 and waits; job 2 (1 proc) fits at
    t=1: greedy starts it then, strict order keeps it behind job 1 (t=20)."""
    workload = Workload.from_columns(
        submit_time=np.array([0.0, 1.0, 1.0]),
        run_time=np.array([10.0, 10.0, 5.0]),
        procs=np.array([1, 2, 1]),
        requested_time=np.array([10.0, 10.0, 5.0]),
        max_procs=2,
    )
    strict = schedlab.simulate(workload, plugin.UserFairShare(), check=True).jobs
    params = make_params(plugin.UserFairShare, {"greedy": True})
    greedy = schedlab.simulate(workload, plugin.UserFairShare(params), check=True).jobs
    assert strict["started_at"].tolist() == [0.0, 10.0, 20.0]
    assert greedy["started_at"].tolist() == [0.0, 10.0, 1.0]


def test_parameters_are_checked_like_built_in_ones(plugin: Any) -> None:
    with pytest.raises(ConfigError, match="greedy"):
        make_params(plugin.UserFairShare, {"greed": True})
    with pytest.raises(ConfigError, match="true or false"):
        make_params(plugin.UserFairShare, {"greedy": "yes"})


def test_the_doc_shows_exactly_the_module() -> None:
    """docs/policies.md's worked example is the package's module, character for character."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert MODULE.read_text(encoding="utf-8") in blocks


def test_the_doc_shows_exactly_the_dispatcher() -> None:
    """docs/policies.md's meta-scheduler example is the package's module, to the character."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert META_MODULE.read_text(encoding="utf-8") in blocks


def test_installed_dispatcher_is_listed_and_runs_from_the_cli(site: Path) -> None:
    """`schedlab grid meta` lists it with its parameter; `grid run` runs it with the
    kernel's checker on, and it dispatched every meta-job once."""
    done = _cli(site, "grid", "meta")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if META in line)
    assert "per_processor=True" in row
    done = _cli(site, "grid", "run", "builtin:dirac", "--meta", META, "--check", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["global_jobs"] == 500 and summary["dispatches"] == 500


TWO_QUEUES = """
[[sites]]
name = "small"
groups = [[1.0, 2]]
[[sites.queues]]
name = "q"
[[sites]]
name = "large"
groups = [[1.0, 4]]
[[sites.queues]]
name = "q"
"""


@pytest.mark.parametrize(("per_processor", "pools"), [(True, [0, 1, 1, 0]), (False, [0, 1, 0, 1])])
def test_the_dispatcher_sends_each_job_to_the_least_queued_pool(
    plugin: Any, tmp_path: Path, per_processor: bool, pools: list[int]
) -> None:
    """Pools of 2 and 4 processors, four 1-processor meta-jobs at t=0, no message time.
    Per processor: depths (0, 0) -> 0, (1/2, 0) -> 1, (1/2, 1/4) -> 1, (1/2, 2/4) -> 0 (tie:
    the lowest). Raw counts: (0, 0) -> 0, (1, 0) -> 1, (1, 1) -> 0, (2, 1) -> 1."""
    from schedlab.workload.grid import GridWorkload

    path = tmp_path / "two.toml"
    path.write_text(TWO_QUEUES)
    platform = schedlab.load_platform(path)
    stream = GridWorkload(
        submit_at=np.zeros(4),
        work=np.full(4, 100.0),
        procs=np.ones(4, dtype=int),
        org=np.zeros(4, dtype=int),
        stream=np.full(4, -1),
        job_id=np.arange(1, 5),
    )
    meta = plugin.least_queued.LeastQueued(
        make_params(plugin.least_queued.LeastQueued, {"per_processor": per_processor})
    )
    result = schedlab.run_grid(platform, stream, meta, check=True)
    assert result.jobs["pool"].tolist() == [["small/q", "large/q"][p] for p in pools]
    assert result.summary()["dispatches"] == 4
