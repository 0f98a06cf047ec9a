"""The house's shape: no import circle in src/covstudy, and no module over 500 lines without a
reason written at its top (docs/architecture.md draws the wings)."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "covstudy"
LONG = 500


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never executed)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    """module -> the covstudy modules it imports, at the top or inside a function: an import of
    ``pkg.mod`` or ``from pkg import mod`` points at ``mod``, ``from pkg import name`` at ``pkg``."""
    modules = {module_name(p, src): p for p in src.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = type_checking_only(tree)
        targets = set()
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                submodules = {f"{base}.{a.name}" for a in node.names} & modules.keys()
                targets |= submodules
                if len(submodules) < len(node.names):
                    targets.add(base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each a circle."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    graph = import_graph()
    assert len(graph) > 50
    assert cycles(graph) == []


def test_the_walk_finds_a_circle(tmp_path):
    # the check itself: a two-module circle through a function-level import is found
    package = tmp_path / "covstudy"
    (package / "wing").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "wing" / "__init__.py").write_text("")
    (package / "wing" / "a.py").write_text("from . import b\n")
    (package / "wing" / "b.py").write_text("def f():\n    from .a import g\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .wing import a\n")
    (package / "wing" / "d.py").write_text("from ..c import x\n")
    assert cycles(import_graph(package)) == [["covstudy.wing.a", "covstudy.wing.b"]]


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_long_modules_say_why(path):
    text = path.read_text(encoding="utf-8")
    if text.count("\n") > LONG:
        doc = ast.get_docstring(ast.parse(text)) or ""
        assert "Long because" in doc, f"{path.name}: {text.count(chr(10))} lines and no 'Long because ...' at its top"
