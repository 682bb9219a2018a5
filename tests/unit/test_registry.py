"""The one registry (`schedlab.registry`) behind policies and meta-schedulers: lookup,
parameter checks, and third-party plug-ins, where a broken one is skipped with a
`PluginWarning` naming it while schedlab and the other plug-ins keep working."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

import schedlab
from schedlab.errors import ConfigError, PluginWarning
from schedlab.grid.registry import META_SCHEDULERS, available_meta_schedulers, make_meta_scheduler
from schedlab.registry import Registry
from schedlab.schedulers.registry import POLICIES, available_policies, make_policy

SRC = Path(schedlab.__file__).parent

# a plug-in module of each kind of defect, and one good policy and meta-scheduler
PLUGINS = {
    "plugin_raises.py": "raise RuntimeError('plug-in import exploded')\n",
    "plugin_good.py": textwrap.dedent(
        """
        from dataclasses import dataclass
        from typing import ClassVar

        from schedlab.schedulers.fcfs import Fcfs


        @dataclass(frozen=True)
        class GoodParams:
            pass


        class GoodPolicy(Fcfs):
            name: ClassVar[str] = "plugin-good"
            Params: ClassVar[type] = GoodParams

            def __init__(self, params=None):
                super().__init__()


        class GoodMeta:
            name: ClassVar[str] = "plugin-good-meta"
            Params: ClassVar[type] = GoodParams

            def __init__(self, params):
                self.params = params


        class NoName(GoodPolicy):
            name = None


        class Nameless:  # no name: registered under its entry point's name
            Params: ClassVar[type] = GoodParams

            def __init__(self, params):
                self.params = params


        class NoParams:
            name: ClassVar[str] = "plugin-no-params"


        def not_a_class():
            return None
        """
    ),
}

BROKEN = {
    "raises": ("plugin_raises:Policy", "RuntimeError: plug-in import exploded"),
    "missing": ("plugin_missing_module:Policy", "ModuleNotFoundError"),
    "no-attribute": ("plugin_good:Absent", "AttributeError"),
    "no-name": ("plugin_good:NoName", "is None, not a non-empty string"),
    "no-params": ("plugin_good:NoParams", "has no Params"),
    "function": ("plugin_good:not_a_class", "has no Params"),
}


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of plug-in modules on sys.path (removed from sys.modules afterwards)."""
    for name, text in PLUGINS.items():
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in ("plugin_raises", "plugin_good", "plugin_missing_module"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    return tmp_path


def _entry_points(group: str, spec: dict[str, str]) -> list[importlib.metadata.EntryPoint]:
    return [importlib.metadata.EntryPoint(n, v, group) for n, v in spec.items()]


def _serve(monkeypatch: pytest.MonkeyPatch, by_group: dict[str, dict[str, str]]) -> None:
    """``importlib.metadata.entry_points(group=...)``, as the registry module calls it,
    answers ``by_group``."""

    def fake(*, group: str) -> list[importlib.metadata.EntryPoint]:
        return _entry_points(group, by_group.get(group, {}))

    monkeypatch.setattr(importlib.metadata, "entry_points", fake)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The policy and meta-scheduler registries re-read their entry points in this test and
    get their built-ins only back afterwards."""
    for registry in (POLICIES, META_SCHEDULERS):
        monkeypatch.setattr(registry, "_classes", dict(registry._classes))
        monkeypatch.setattr(registry, "_entry_points_loaded", False)
    yield


# -- the generic registry ----------------------------------------------------------------------


@dataclass(frozen=True)
class WidgetParams:
    size: int = 1
    ratio: float = 0.5
    loud: bool = False


class Widget:
    name: ClassVar[str] = "widget"
    Params: ClassVar[type] = WidgetParams

    def __init__(self, params: WidgetParams) -> None:
        self.params = params


def _widgets(monkeypatch: pytest.MonkeyPatch) -> Registry:
    _serve(monkeypatch, {})
    registry = Registry("widget kind", "schedlab.test_widgets")
    registry.register(Widget)
    return registry


def test_register_get_available_make(monkeypatch: pytest.MonkeyPatch) -> None:
    widgets = _widgets(monkeypatch)
    assert widgets.available() == ["widget"]
    assert widgets.get("widget") is Widget
    made = widgets.make("widget", size=3, ratio=2)
    assert isinstance(made, Widget)
    assert made.params == WidgetParams(size=3, ratio=2.0)
    assert isinstance(made.params.ratio, float)


def test_unknown_name_lists_the_names_with_the_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    widgets = _widgets(monkeypatch)
    with pytest.raises(
        ConfigError, match=r"^invalid value 'nope' for widget kind; allowed: widget$"
    ):
        widgets.get("nope")


def test_parameters_checked_by_name_and_type(monkeypatch: pytest.MonkeyPatch) -> None:
    widgets = _widgets(monkeypatch)
    with pytest.raises(
        ConfigError,
        match=r"^invalid value 'colour' for widget parameter; allowed: loud, ratio, size$",
    ):
        widgets.make("widget", colour=1)
    with pytest.raises(ConfigError, match=r"for widget parameter size; allowed: an integer$"):
        widgets.make("widget", size=1.5)
    with pytest.raises(ConfigError, match=r"for widget parameter loud; allowed: true or false$"):
        widgets.make("widget", loud="no")


def test_policy_and_meta_scheduler_messages_name_their_kind() -> None:
    with pytest.raises(ConfigError, match=r"^invalid value 'nope' for policy; allowed: .*\bfcfs\b"):
        make_policy("nope")
    with pytest.raises(
        ConfigError, match=r"^invalid value 'nope' for meta-scheduler; allowed: .*\bpush\b"
    ):
        make_meta_scheduler("nope")
    with pytest.raises(ConfigError, match=r"^invalid value 'x' for push parameter; allowed: "):
        make_meta_scheduler("push", x=1)


# -- plug-ins ----------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", sorted(BROKEN))
def test_a_broken_policy_plugin_is_skipped_with_a_warning_naming_it(
    entry: str, plugin_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    value, error = BROKEN[entry]
    _serve(monkeypatch, {"schedlab.policies": {entry: value, "good": "plugin_good:GoodPolicy"}})
    with pytest.warns(PluginWarning) as caught:
        names = available_policies()
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "schedlab.policies" in message
    assert repr(entry) in message
    assert repr(value) in message
    assert error in message
    assert "plugin-good" in names and "fcfs" in names and "easy" in names
    assert entry not in names
    make_policy("easy")  # the built-ins and the good plug-in keep working
    make_policy("plugin-good")


def test_a_broken_meta_scheduler_plugin_is_skipped_with_a_warning(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    _serve(
        monkeypatch,
        {
            "schedlab.meta_schedulers": {
                "raises": "plugin_raises:Meta",
                "good": "plugin_good:GoodMeta",
            }
        },
    )
    with pytest.warns(PluginWarning, match=r"'raises' = 'plugin_raises:Meta'") as caught:
        names = available_meta_schedulers()
    assert len(caught) == 1
    assert "schedlab.meta_schedulers" in str(caught[0].message)
    assert "plugin-good-meta" in names and "tdcs" in names and "push" in names
    assert make_meta_scheduler("plugin-good-meta").params is not None  # type: ignore[attr-defined]
    make_meta_scheduler("push", refresh=10.0)


def test_entry_points_are_read_once(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    _serve(monkeypatch, {"schedlab.policies": {"raises": "plugin_raises:Policy"}})
    with pytest.warns(PluginWarning):
        available_policies()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        available_policies()  # no second warning, no second import


def test_a_builtin_wins_over_a_plugin_of_the_same_name(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    (plugin_dir / "plugin_fcfs.py").write_text(
        "from plugin_good import GoodPolicy\n\nclass Fcfs(GoodPolicy):\n    name = 'fcfs'\n"
    )
    monkeypatch.delitem(sys.modules, "plugin_fcfs", raising=False)
    _serve(monkeypatch, {"schedlab.policies": {"fcfs": "plugin_fcfs:Fcfs"}})
    from schedlab.schedulers.fcfs import Fcfs

    assert POLICIES.get("fcfs") is Fcfs


def test_a_class_without_a_name_registers_under_its_entry_point_name(
    plugin_dir: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    """As docs/policies.md says; messages then name it by that name too."""
    _serve(monkeypatch, {"schedlab.policies": {"nameless": "plugin_good:Nameless"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "nameless" in available_policies()
    assert make_policy("nameless").params is not None  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"^invalid value 'x' for nameless parameter; "):
        make_policy("nameless", x=1)


def _broken_distribution(site: Path) -> None:
    """An installed distribution (metadata only) whose two entry points cannot load."""
    info = site / "broken_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[schedlab.policies]\nbroken = broken_plugin_absent:Policy\n\n"
        "[schedlab.meta_schedulers]\nbroken-meta = broken_plugin_absent:Meta\n"
    )


@pytest.mark.parametrize(
    ("command", "listed", "group"),
    [
        (["policies"], "conservative", "schedlab.policies"),
        (["grid", "meta"], "pilot_filling", "schedlab.meta_schedulers"),
    ],
)
def test_cli_lists_the_rest_and_warns_about_an_installed_broken_plugin(
    tmp_path: Path, command: list[str], listed: str, group: str
) -> None:
    _broken_distribution(tmp_path)
    path = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), COLUMNS="200")
    done = subprocess.run(
        [sys.executable, "-m", "schedlab", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert listed in done.stdout
    assert "PluginWarning" in done.stderr
    assert group in done.stderr
    assert "broken_plugin_absent" in done.stderr
    assert "ModuleNotFoundError" in done.stderr


def _schedlab(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m schedlab ARGS`` with the distributions installed in ``site``."""
    path = [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), COLUMNS="200")
    return subprocess.run(
        [sys.executable, "-m", "schedlab", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_cli_shows_a_broken_plugin_as_one_warning_line(tmp_path: Path, quiet: list[str]) -> None:
    """Like an error: one ``schedlab: warning:`` line, not Python's ``file:line`` display
    with the source line under it; --quiet silences notes, not this warning."""
    _broken_distribution(tmp_path)
    done = _schedlab(tmp_path, "policies", *quiet)
    assert done.returncode == 0, done.stderr
    assert "conservative" in done.stdout
    assert done.stderr.splitlines() == [
        "schedlab: warning: skipping policy plug-in 'broken' = 'broken_plugin_absent:Policy' "
        "of entry-point group 'schedlab.policies': loading it failed: ModuleNotFoundError: "
        "No module named 'broken_plugin_absent' (PluginWarning)"
    ]


def _docless_distribution(site: Path) -> None:
    """An installed distribution whose policy and meta-scheduler have no docstring."""
    (site / "docless_plugin.py").write_text(
        textwrap.dedent(
            """
            from dataclasses import dataclass
            from typing import ClassVar

            from schedlab.schedulers.fcfs import Fcfs


            @dataclass(frozen=True)
            class NoParams:
                pass


            class Policy(Fcfs):
                name: ClassVar[str] = "docless"
                Params: ClassVar[type] = NoParams


            class Meta:
                name: ClassVar[str] = "docless-meta"
                Params: ClassVar[type] = NoParams

                def __init__(self, params):
                    self.params = params
            """
        )
    )
    info = site / "docless_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: docless-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[schedlab.policies]\ndocless = docless_plugin:Policy\n\n"
        "[schedlab.meta_schedulers]\ndocless-meta = docless_plugin:Meta\n"
    )


@pytest.mark.parametrize(
    ("command", "name"), [(["policies"], "docless"), (["grid", "meta"], "docless-meta")]
)
def test_cli_lists_a_plugin_without_a_docstring(
    tmp_path: Path, command: list[str], name: str
) -> None:
    """A class without a docstring is listed with "-" as its description (no IndexError)."""
    _docless_distribution(tmp_path)
    done = _schedlab(tmp_path, *command)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    rows = [line.split("│")[1:4] for line in done.stdout.splitlines() if "│" in line]
    assert [name, "-", "-"] in [[cell.strip() for cell in row] for row in rows]


# -- layers ------------------------------------------------------------------------------------


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_generic_registry_imports_only_the_bottom_layer() -> None:
    schedlab_imports = {m for m in _imports(SRC / "registry.py") if m.startswith("schedlab")}
    assert schedlab_imports <= {"schedlab.errors", "schedlab.validators"} | {
        f"schedlab.errors.{n}" for n in ("ConfigError", "PluginWarning")
    } | {f"schedlab.validators.{n}" for n in ("is_int", "is_number")}


def test_the_meta_scheduler_registry_imports_no_meta_scheduler() -> None:
    grid_imports = {m for m in _imports(SRC / "grid" / "registry.py") if "grid" in m}
    assert grid_imports == {"schedlab.grid.context", "schedlab.grid.context.GridContext"}


def test_meta_schedulers_are_all_listed_in_a_fresh_interpreter() -> None:
    code = "from schedlab.grid.registry import available_meta_schedulers as a; print(*a())"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == sorted(
        [
            "direct",
            "least_loaded",
            "least_loaded_speed",
            "pilot_filling",
            "pilot_simple",
            "push",
            "push_random",
            "push_round_robin",
            "random",
            "round_robin",
            "static",
            "tdcs",
            "tdcs_no_candidate_rule",
            "tdcs_speed_blind",
            "tdcs_step6_literal",
        ]
    )


def test_errors_cross_process_boundaries_whole() -> None:
    """A SchedlabError raised in a worker process is pickled back to the parent: its class,
    fields and message survive (a ConfigError once broke the pool that unpickled it)."""
    import pickle

    from schedlab.errors import ConfigError, OutputError, WorkloadError

    for error in (
        ConfigError("--jobs", -5, "an integer >= 1"),
        WorkloadError("t.swf", "not a number", line=3, field="run time", value="x"),
        OutputError("--jobs-out", "a.csv", "is an input"),
    ):
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert str(back) == str(error) and vars(back) == vars(error)
