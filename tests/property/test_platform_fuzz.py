"""Fuzzing platform files and grid generators (issue 22, item 10).

The shipped example platforms, mutated as a tester would (values replaced by huge, tiny,
negative, non-finite, wrongly typed or empty ones; keys and lines dropped or duplicated; a
byte-order mark; numbers garbled in the text), and `grid run --generator` specs built from
hostile settings. Property: loading raises a `SchedlabError` (one printable line naming the
file), or a short grid run with the kernel's checker on succeeds with finite metrics (or
stops with a `SchedlabError`); never another exception, a hang or Infinity in ``--json``.

Deterministic (``derandomize=True``, no example database); every run is tiny (a handful of
jobs), so the whole module takes well under a minute on one core.
"""

from __future__ import annotations

import json
import math
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from schedlab.cli import app
from schedlab.cli.common import json_text
from schedlab.errors import SchedlabError
from schedlab.grid.dirac import check_polling
from schedlab.grid.platforms import load_platform
from schedlab.grid.registry import make_meta_scheduler
from schedlab.simulation import run_grid
from schedlab.workload.job import MAX_TIME
from schedlab.workload.streams import platform_stream
from strategies import fuzz

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXAMPLES = Path(__file__).parents[2] / "examples"
NAMES = ("platform-dirac.toml", "platform-heterogeneous.toml", "platform-tdcs.toml")
TEXTS = {name: (EXAMPLES / name).read_text(encoding="utf-8") for name in NAMES}
DATA = {name: tomllib.loads(text) for name, text in TEXTS.items()}

# what a hostile user writes in place of a value
NASTY: list[Any] = [
    0, -1, 1, 2, 7, 1.5, -0.0, 1e-300, 1e-7, 1e7, 1.0000001e7, 1e15, 1e17, 1e300, -1e300,
    math.inf, -math.inf, math.nan, 2**31 - 1, 2**31, 2**63, 2**80, True, False, "", "x",
    "fcfs", "cpa", "pilot", "slowest", "random", "uniform", "exponential", "empirical",
    "\x1b[31m", "a/b", [], [1.0, 2], [[96.0, 4]], [[1e-300, 2]], {}, {"dist": "uniform"},
    {"dist": "exponential", "mean": 1e7}, {"dist": "uniform", "low": 0, "high": 1e308},
    {"dist": "empirical", "values": [1e300]}, {"dist": "empirical", "file": "/dev/zero"},
    {"dist": "empirical", "file": "missing.txt"},
]  # fmt: skip
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w.])")
TOKENS = ["1e300", "-1", "0", "nan", "inf", "1e-300", "99999999999999999999", '"x"', "[]"]


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


# -- writing TOML (every table inline: one line per top-level key) ---------------------------


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def toml_text(data: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in data.items())


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key path of a parsed document (dict keys, list indices)."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in items:
        yield (*prefix, key)
        if isinstance(child, dict | list):
            yield from paths(child, (*prefix, key))


def copy(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: copy(v) for k, v in node.items()}
    if isinstance(node, list):
        return [copy(v) for v in node]
    return node


@st.composite
def mutated_platform(draw: st.DrawFn) -> tuple[str, str]:
    """(example name, mutated TOML text)."""
    name = draw(st.sampled_from(NAMES))
    data = copy(DATA[name])
    for _ in range(draw(st.integers(1, 3))):
        where = list(paths(data))
        path = draw(st.sampled_from(where))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        kind = draw(st.sampled_from(["replace"] * 5 + ["drop", "duplicate", "unknown"]))
        if kind == "replace":
            parent[key] = copy(draw(st.sampled_from(NASTY)))
        elif kind == "drop":
            del parent[key]
        elif kind == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy(parent[key]))
        elif kind == "unknown" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["colour", "nodes", "seed", "groups"]))] = 1
    return name, toml_text(data)


@st.composite
def garbled_text(draw: st.DrawFn) -> tuple[str, str]:
    """(example name, its text with lines duplicated or dropped, numbers garbled)."""
    name = draw(st.sampled_from(NAMES))
    lines = TEXTS[name].splitlines()
    for _ in range(draw(st.integers(1, 4))):
        row = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["number", "number", "duplicate", "drop"]))
        if kind == "duplicate":
            lines.insert(row, lines[row])
        elif kind == "drop":
            del lines[row]
        else:
            token = draw(st.sampled_from(TOKENS))
            lines[row] = NUMBER.sub(token, lines[row], count=1)
    bom = draw(st.sampled_from(["", "", "\ufeff"]))
    return name, bom + "\n".join(lines) + "\n"


# -- the property ------------------------------------------------------------------------------


def small_stream(platform: Any) -> Any:
    """A few jobs of the platform's own generator (its settings kept where they apply)."""
    if platform.stream == "tdcs":
        return platform_stream(platform, {"hours": 0.5, "load": 0.3, "max_jobs": 60}, seed=3)
    return platform_stream(platform, {"meta_jobs": 4, "local_jobs": 1, "max_jobs": 60}, seed=3)


def check_summary(summary: dict[str, Any], kind: str) -> None:
    """Finite numbers within the end of time (a TDCS metric with no job it applies to is
    NaN: undefined, printed as null with a reason); strict JSON."""
    for key, value in summary.items():
        if isinstance(value, float):
            assert not math.isinf(value), key
            assert kind == "tdcs" or math.isfinite(value), key
            assert not abs(value) > MAX_TIME, (key, value)
    json.loads(json_text(summary), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))


def load_or_run(folder: Path, text: str, meta_index: int) -> None:
    path = folder / "fuzzed.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        platform = load_platform(path)
    except SchedlabError as exc:
        message = str(exc)
        assert message.isprintable() and "fuzzed.toml" in message, message
        return
    assert platform.total_nodes <= 1_000_000 and len(platform.queues()) <= 1000
    try:
        stream = small_stream(platform)
        if not len(stream):
            return
        metas = ("tdcs", "least_loaded") if platform.stream == "tdcs" else (
            "push", "static", "pilot_filling", "pilot_simple", "push_random"
        )  # fmt: skip
        name = metas[meta_index % len(metas)]
        params = {"retry": 3600.0} if name in ("static", "pilot_filling", "pilot_simple") else {}
        meta = make_meta_scheduler(name, **params)
        submits = getattr(stream, "grid", stream).submit_at
        check_polling(meta, len(platform.queues()), float(submits.max()))
        result = run_grid(platform, stream, meta, seed=1, check=True)
    except SchedlabError as exc:
        assert str(exc).isprintable(), str(exc)
        return
    check_summary(result.summary(), result.kind)


@fuzz(300)
@given(case=mutated_platform(), meta=st.integers(0, 9))
def test_mutated_platforms_load_and_run_or_raise_a_schedlab_error(
    folder: Path, case: tuple[str, str], meta: int
) -> None:
    load_or_run(folder, case[1], meta)


@fuzz(150)
@given(case=garbled_text(), meta=st.integers(0, 9))
def test_garbled_platform_texts_load_and_run_or_raise_a_schedlab_error(
    folder: Path, case: tuple[str, str], meta: int
) -> None:
    load_or_run(folder, case[1], meta)


# -- grid run --generator ------------------------------------------------------------------------

SETTINGS = (
    "meta_jobs", "local_jobs", "meta_interarrival", "local_interarrival", "size_shape",
    "size_scale", "size_min", "size_max", "max_jobs", "organisations", "seed", "colour",
)  # fmt: skip
VALUES = (
    "0", "1", "3", "-1", "1.5", "1e-300", "1e-9", "0.01", "100", "1e7", "1e14", "1e15",
    "1e300", "inf", "-inf", "nan", "2000000", "99999999999999999999", "x", "", "true",
)  # fmt: skip
PLATFORM = str(EXAMPLES / "platform-dirac.toml")


@st.composite
def generator_spec(draw: st.DrawFn) -> str:
    items = {"meta_jobs": "3", "local_jobs": "1"}
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(SETTINGS))
        value = draw(st.sampled_from(VALUES))
        if key in ("meta_jobs", "local_jobs") and value in ("2000000", "99999999999999999999"):
            value = "2000000"  # beyond the ceiling: refused before a job is drawn
        items[key] = value
    spec = ",".join(f"{k}={v}" for k, v in items.items())
    if draw(st.booleans()) and "," in spec:
        spec += ",meta_jobs=2"  # a key given twice
    return spec


@fuzz(80)
@given(spec=generator_spec(), meta=st.sampled_from(["push", "static", "pilot_filling"]))
def test_generator_specs_run_or_refuse_naming_the_option(spec: str, meta: str) -> None:
    """`grid run --generator SPEC --json --check`: strict JSON with finite metrics, or a
    SchedlabError (the CLI prints it as one line)."""
    args = ["grid", "run", PLATFORM, "--generator", spec, "--meta", meta, "--json", "--check"]
    if meta != "push":
        args += ["--param", "retry=3600"]
    result = CliRunner().invoke(app, args)
    if result.exit_code != 0:
        assert isinstance(result.exception, SchedlabError), (spec, result.exception)
        assert str(result.exception).isprintable()
        return
    data = json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert data["jobs"] >= 1 and "undefined" not in data
    for key, value in data.items():
        if isinstance(value, float):
            assert math.isfinite(value) and abs(value) <= MAX_TIME, (spec, key)
