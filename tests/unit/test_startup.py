"""Start-up: `schedlab --version` answers without building the command line (issue 26), and
says what the full command line says."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from in_process import main_in_process

HEAVY = ("numpy", "typer", "rich", "click", "pandas", "pyarrow", "matplotlib", "scipy", "dask")


def test_version_alone_imports_nothing_heavy(capsys: pytest.CaptureFixture[str]) -> None:
    code = (
        "import json, sys; sys.argv = ['schedlab', '--version']\n"
        "from schedlab.__main__ import main\n"
        "main()\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:]))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *HEAVY], capture_output=True, text=True, check=True
    )
    version, loaded = out.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    assert version.startswith("schedlab ") and "availability profile:" in version
    # the same line as the command line's own --version (given with another option)
    code, stdout, _ = main_in_process(capsys, "-q", "--version")
    assert code == 0 and stdout.strip() == version


def _first_paragraph(text: str | None) -> str:
    return " ".join((text or "").split("\n\n")[0].split())


def test_help_alone_imports_nothing_heavy_and_exits_like_click() -> None:
    code = (
        "import json, sys; sys.argv = ['schedlab'] + sys.argv[1:2]\n"
        "from schedlab.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    loaded = {{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})\n"
        "    print(json.dumps(sorted(loaded)))\n"
    )
    for args, status in ((["--help"], 0), (["-h"], 0), ([], 2)):
        out = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "100"},
        )
        assert out.returncode == status, out.stderr
        page, loaded = out.stdout.rsplit("\n", 2)[0], out.stdout.rsplit("\n", 2)[1]
        assert json.loads(loaded) == []
        from schedlab.top_help import render

        assert page + "\n" == render(100)


def test_top_help_lists_the_command_lines_own_options_and_commands() -> None:
    """The page kept in `schedlab.top_help` says what typer would: every option (names,
    metavar, help) and every command (name, first paragraph of its help), in order."""
    import typer.main

    from schedlab import top_help
    from schedlab.cli import app

    group = typer.main.get_command(app)
    ctx = group.context_class(group, help_option_names=["--help", "-h"])
    options = []
    for param in group.get_params(ctx):
        assert param.param_type_name == "option"
        longs = [o for o in param.opts if o.startswith("--")]
        shorts = [o for o in param.opts if not o.startswith("--")]
        if param.name == "help":
            shorts = ["-h"]
        metavar = param.metavar or ""
        options.append(
            (longs[0], shorts[0] if shorts else "", metavar, " ".join(param.help.split()))
        )
    assert options == [tuple(row) for row in top_help.OPTIONS]
    commands = [
        (name, _first_paragraph(group.get_command(ctx, name).help))  # type: ignore[union-attr]
        for name in group.list_commands(ctx)
    ]
    assert commands == list(top_help.COMMANDS)
    assert _first_paragraph(group.help) == top_help.DESCRIPTION


# what a run of one cluster on the fast path never needs: the kernel, the grid, node types
PLATFORM_ONLY = (
    "schedlab.engine.kernel",
    "schedlab.engine.jobs",
    "schedlab.engine.checker",
    "schedlab.grid.registry",
    "schedlab.grid.context",
    "schedlab.grid.tdcs",
    "schedlab.platform.description",
    "schedlab.platform.cluster",
    "schedlab.node_run",
    "schedlab.workload.grid",
    "schedlab.workload.models.tdcs",
    "schedlab.metrics.nodes",
)


def test_a_cluster_run_imports_neither_the_kernel_nor_the_grid(tmp_path: os.PathLike[str]) -> None:
    trace = os.path.join(tmp_path, "t.swf")
    with open(trace, "w") as f:
        f.write("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 -1 -1 -1\n")
    code = (
        "import json, sys; sys.argv = ['schedlab', '-q', 'run', sys.argv[1], '--json']\n"
        "from schedlab.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "finally:\n"
        f"    print(json.dumps(sorted(set(sys.modules) & set({PLATFORM_ONLY!r}))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, trace], capture_output=True, text=True, check=True
    )
    summary, loaded = out.stdout.strip().splitlines()[-2:]
    assert json.loads(summary)["jobs"] == 1
    assert json.loads(loaded) == []
    # and they are all there for a run that needs them (the list names real modules)
    code = (
        "import json, sys, importlib\n"
        f"[importlib.import_module(m) for m in {PLATFORM_ONLY!r}]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
