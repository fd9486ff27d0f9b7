"""Imports point down the layers of DESIGN.md; the template engine stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "remember"

# Lower rank = lower layer. A module may import its own layer or lower ones.
RANK = {
    "errors": 0, "clock": 0, "models": 0, "preferences": 0, "filters": 0, "config": 0,
    "store": 1, "search": 2, "templates": 2, "service": 3, "mcp": 4, "cli": 5,
}  # fmt: skip
# The template engine is pure: no database, no search, no I/O layers at all.
PURE = {"templates": {"errors", "clock", "templates"}}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def remember_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("remember"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("remember"))
    return found


def test_imports_point_down() -> None:
    problems = []
    for path in SRC.rglob("*.py"):
        module = "remember." + ".".join(path.relative_to(SRC).with_suffix("").parts)
        own = layer_of(module)
        if own not in RANK:
            continue
        for imported in remember_imports(path):
            target = layer_of(imported)
            if target in RANK and RANK[target] > RANK[own]:
                problems.append(f"{module} imports {imported} (layer {target} is above {own})")
            if own in PURE and target and target not in PURE[own]:
                problems.append(f"{module} imports {imported}: the template engine must stay pure")
    assert problems == []


def test_every_top_level_module_has_a_layer() -> None:
    names = {p.stem for p in SRC.glob("*.py")} | {
        p.name for p in SRC.iterdir() if p.is_dir() and p.name != "__pycache__"
    }
    assert names - {"__init__", "__main__", "py"} <= set(RANK)


def test_every_module_has_a_docstring() -> None:
    missing = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p.stat().st_size > 0 and ast.get_docstring(ast.parse(p.read_text())) is None
    ]
    assert missing == []
