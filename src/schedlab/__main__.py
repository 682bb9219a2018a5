"""The ``schedlab`` command (and ``python -m schedlab``).

``schedlab --version``, ``schedlab --help`` (``-h``) and ``schedlab`` alone are answered
here, before the command line is built: building it imports typer and rich, several times
the cost of the answer (`schedlab.about`, `schedlab.top_help`). Everything else goes to
`schedlab.cli.main`.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point: `schedlab.cli.main`, except for a lone ``--version``,
    ``--help`` or nothing (the command line's answers: help without a command exits 2,
    as click's ``no_args_is_help`` does)."""
    args = sys.argv[1:]
    if args == ["--version"]:
        from schedlab.about import version_line

        print(version_line())
        return
    if args in ([], ["--help"], ["-h"]):
        from schedlab.top_help import render

        sys.stdout.write(render())
        if not args:
            sys.exit(2)
        return
    from schedlab.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
