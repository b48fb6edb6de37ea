"""The import graph of the app's code: no loop, no arrow from a lower layer up.

Every import counts, at the top of a module or inside a function (a function-level import
that closes a loop only hides it). The layers, from the bottom: ``core`` (the model package),
``charts``, ``serve``, ``ui``, ``poll``, ``lessons``, ``pages``, ``app.py``: a module may
import its own layer and those below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import APP_PACKAGES, ROOT

LAYERS = ("core", "charts", "serve", "ui", "poll", "lessons", "pages", "app")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    files = [ROOT / "app.py"]
    for package in APP_PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return {_module_name(f): f for f in files}


def _imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The app's modules ``path`` imports (``from a import b`` counts ``a.b`` when it is a
    module, else ``a``); a package's own ``__init__`` is not counted for its submodules."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(path, name, known) for name, path in modules.items()}


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def test_no_import_runs_from_a_lower_layer_up():
    up = sorted(
        f"{a} -> {b}" for a, targets in _graph().items() for b in targets if _layer(b) > _layer(a)
    )
    assert up == [], up


def test_no_module_imports_itself_through_others():
    graph = _graph()
    # a package's __init__ that only hands names on imports its submodules: not a loop of theirs
    loops, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                loops.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert loops == [], loops


def test_the_graph_is_read():
    graph = _graph()
    assert "poll.views" in graph["poll.page"] and "core.zoo" in graph["ui.cache"]
