"""Imports point down the layers of DESIGN.md; the template engine stays pure."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "remember"

# Lower rank = lower layer. A module may import its own layer or lower ones.
RANK = {
    "errors": 0, "clock": 0, "caller": 0, "jsontypes": 0, "models": 0, "memory_fields": 0, "preferences": 0,
    "filters": 0, "config": 0, "documents": 0, "nouns": 0, "spelling": 0, "deadline": 0, "space_keys": 0,
    "store": 1, "search": 2, "templates": 2, "service": 3, "schemas": 4, "app": 5, "mcp": 5, "http": 5, "web": 5,
    "cli": 6,
}  # fmt: skip
# The template engine is pure: no database, no search, no I/O layers at all.
PURE = {"templates": {"errors", "clock", "deadline", "templates"}}


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


EDGES = ("cli", "mcp", "web", "http")
# What one edge may import of another: its entry point, never its internals (the layer
# below both is the place for what two edges share: schemas/, service/, caller.py).
ENTRY_POINTS = {
    ("cli", "remember.mcp.server"): "`remember serve` builds the MCP server",
    ("cli", "remember.mcp.stdio"): "`remember serve` runs it over stdio, answering lines the SDK cannot read",
    ("cli", "remember.http.app"): "`serve --http --no-auth` is refused beyond loopback before the database opens",
    ("cli", "remember.http.serve"): "`remember serve --http` and `remember ui` run the HTTP application",
    ("cli", "remember.web"): "`remember ui` issues the dashboard's one-time login link",
    ("http", "remember.mcp.server"): "the HTTP application serves the MCP server on /mcp",
    ("http", "remember.web"): "the HTTP application serves the dashboard on /, with its own way of reading tokens",
}  # fmt: skip


def test_no_edge_imports_another_edge_s_internals() -> None:
    problems, used = [], set()
    for path in SRC.rglob("*.py"):
        module = "remember." + ".".join(path.relative_to(SRC).with_suffix("").parts)
        own = layer_of(module)
        if own not in EDGES:
            continue
        for imported in remember_imports(path):
            target = layer_of(imported)
            if target in EDGES and target != own:
                if (own, imported) in ENTRY_POINTS:
                    used.add((own, imported))
                else:
                    problems.append(f"{module} imports {imported}, an internal of the {target} edge")
    assert problems == []
    assert used == set(ENTRY_POINTS)  # an entry point no longer used leaves the list


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


def _module_graph() -> dict[str, set[str]]:
    """Every module of the package and the modules it imports (at the top, in functions, for types)."""
    modules: dict[str, Path] = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(("remember", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("remember"):
                found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                          for a in node.names}  # fmt: skip
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_two_modules_import_each_other() -> None:
    assert _cycles(_module_graph()) == []


def test_the_cycle_finder_finds_a_loop() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_mcp_edge_is_small_functions() -> None:
    """Tools are plain functions of a screen or less (style: small pieces), not closures in a register()."""
    long = []
    for path in (SRC / "mcp").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > 60:
                    long.append(f"{path.relative_to(SRC)}:{node.name} ({lines} lines)")
    assert long == []
