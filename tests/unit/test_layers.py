"""Imports run one way (issue 21): every import in src/schedlab, those inside functions and
under TYPE_CHECKING included, goes to the importer's own layer or a lower one of the table in
docs/model.md ("Layers"), and no modules import each other around a circle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src" / "schedlab"
ROW = re.compile(r"^\|\s*(-?\d+)\s*\|(.*)\|\s*$")


def layers() -> dict[str, int]:
    """Package or module -> layer, from the table of docs/model.md."""
    text = (REPO / "docs" / "model.md").read_text(encoding="utf-8")
    table = text.split("### Layers", 1)[1]
    out: dict[str, int] = {}
    for line in table.splitlines():
        match = ROW.match(line)
        if match:
            for name in re.findall(r"`([^`]+)`", match.group(2)):
                out[name] = int(match.group(1))
        elif out and not line.strip():
            break
    return out


def module_of(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def part_of(module: str) -> str:
    """The first name under schedlab (the package's face is ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports() -> dict[str, set[str]]:
    """Module -> the schedlab modules it imports (anywhere in the file)."""
    known = {module_of(p) for p in SRC.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        module = module_of(path)
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                if name.split(".")[0] == "schedlab" and name in known:
                    targets.add(name)
        out[module] = targets - {module}
    return out


def test_the_table_names_every_part_of_the_package() -> None:
    """Every package and top-level module has a layer (a new one must be placed)."""
    table = layers()
    parts = {part_of(module_of(p)) for p in SRC.rglob("*.py")}
    assert parts - set(table) == set()
    assert set(table) - parts == set()


def test_imports_never_run_up_the_layers() -> None:
    table = layers()
    upward = [
        f"{module} (layer {table[part_of(module)]}) imports {target} "
        f"(layer {table[part_of(target)]})"
        for module, targets in imports().items()
        for target in sorted(targets)
        if table[part_of(target)] > table[part_of(module)]
    ]
    assert upward == []


def test_no_modules_import_each_other_around_a_circle() -> None:
    """A package's face importing its own modules (to register them) is not a circle: a
    module importing its package's ``__init__`` would be."""
    graph = imports()
    circles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert circles == []
