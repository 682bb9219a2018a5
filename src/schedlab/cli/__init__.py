"""The ``schedlab`` command: a thin shell over the library (DESIGN.md section 4).

Every user mistake ends as one line on stderr and exit code 2, never a traceback. One
module per command group (`run`, `experiments`, `grid`, `workload`); what they share
(output checks, summary tables) is in `common`.
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated, Any

import typer

from schedlab.cli import experiments, grid, run, workload
from schedlab.cli.common import err, reflow_help
from schedlab.errors import PluginWarning, SchedlabError
from schedlab.inputs import tracking
from schedlab.notes import one_line

__all__ = ["app", "main"]

app = typer.Typer(
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, pwsh)
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    help="Replay job traces and workload models through batch scheduling policies.",
    pretty_exceptions_enable=False,
)
# the order of `schedlab --help`: single runs, then experiments, then the groups
app.add_typer(run.commands)
app.add_typer(experiments.commands)
app.add_typer(workload.workload_app, name="workload")
app.add_typer(grid.grid_app, name="grid")
app.add_typer(grid.tdcs_app, name="tdcs")
reflow_help(app)  # help paragraphs wrap at the terminal's width


def _version(value: bool) -> None:
    if value:
        from schedlab.about import version_line

        print(version_line())
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print the version and which availability profile and SWF parser run.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="No notes, progress bars or 'wrote FILE' lines on stderr; errors and results "
            "still show. May also be given after the command.",
        ),
    ] = False,
    max_input_size: Annotated[
        str | None,
        typer.Option(
            "--max-input-size",
            metavar="SIZE",
            help="The most a file read may hold once decompressed, e.g. 8G (default 1G, or "
            "the SCHEDLAB_MAX_INPUT_SIZE environment variable): bigger files are refused.",
        ),
    ] = None,
) -> None:
    """Replay job traces and workload models through batch scheduling policies."""
    from schedlab.notes import set_quiet

    set_quiet(quiet)
    if max_input_size is not None:
        from schedlab.inputs import parse_size, set_input_limit

        set_input_limit(parse_size(max_input_size))


def _quiet_first(args: list[str]) -> list[str]:
    """``--quiet``/``-q`` anywhere (before a ``--``) moved to the front, where the main
    callback reads it: ``schedlab run X --quiet`` works as ``schedlab --quiet run X``."""
    stop = args.index("--") if "--" in args else len(args)
    quiet = [a for a in args[:stop] if a in ("--quiet", "-q")]
    if not quiet:
        return args
    return ["--quiet", *(a for a in args[:stop] if a not in ("--quiet", "-q")), *args[stop:]]


_python_showwarning = warnings.showwarning


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """A warning schedlab gives on purpose (a broken plug-in skipped) as one line, like its
    errors; any other warning as Python shows it.

    Not silenced by --quiet, which silences notes only: a plug-in the user installed and
    now cannot use is news, not a remark. The usual filters still apply
    (``PYTHONWARNINGS=ignore::schedlab.errors.PluginWarning``).
    """
    if issubclass(category, PluginWarning):
        sys.stderr.write(f"schedlab: warning: {one_line(str(message))} ({category.__name__})\n")
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def main() -> None:
    """Console-script entry point: library errors become one line and exit code 2.

    Usage errors (unknown option, bad value) are click's own: a usage line, exit code 2.
    """
    with warnings.catch_warnings():  # (restores Python's display on the way out)
        warnings.showwarning = _show_warning
        try:
            with tracking():  # every file read is an input no output may replace
                app(args=_quiet_first(sys.argv[1:]), prog_name="schedlab")
        except SchedlabError as exc:
            # plain text: rich would read `file.swf:100:` as an emoji shortcode
            sys.stderr.write(f"schedlab: error: {one_line(str(exc))}\n")
            sys.exit(2)
        except KeyboardInterrupt:
            err.print("schedlab: interrupted", highlight=False)
            sys.exit(130)
