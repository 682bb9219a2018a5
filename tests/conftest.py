"""Shared test configuration: make modules in tests/ (e.g. ``reference``) importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
