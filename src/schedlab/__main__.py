"""``python -m schedlab``: the same command as ``schedlab``."""

from schedlab.cli import main

if __name__ == "__main__":
    main()
