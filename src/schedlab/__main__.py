"""The ``schedlab`` command (and ``python -m schedlab``).

``schedlab --version`` alone is answered here, before the command line is built: building it
imports typer and rich, several times the cost of the answer (`schedlab.about`).
"""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point: `schedlab.cli.main`, except for a lone ``--version``."""
    if sys.argv[1:] == ["--version"]:
        from schedlab.about import version_line

        print(version_line())
        return
    from schedlab.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
