"""No import cycles among ``iceberg_doris`` modules (pure: reads the source with ``ast``).

Every import counts, at module level or inside a function: a function-level import is how a cycle
hides, not how it is broken. Only imports under ``if TYPE_CHECKING:`` are left out (they never run).
An edge goes to the module an import names: ``from a.b import c`` points at ``a.b.c`` when that is
a module, else at ``a.b`` (the package's ``__init__`` is a module like any other). Importing
``a.b.c`` also runs the ``__init__`` of ``a.b``, so an edge goes to each package on the way too,
except the importer's own packages (they are always initialised before it runs).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "iceberg_doris"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE  # the source, not imported

# Every cycle is a failure: none is allowed.
ALLOWED_CYCLES: set[frozenset[str]] = set()


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node`` except those guarded by ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if _is_type_checking_block(child):
            for orelse in child.orelse:  # the else branch does run
                yield from _imports_in(orelse)
            continue
        yield from _imports_in(child)


def _imports_in(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    else:
        yield from _imports(node)


def _base_of(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join(anchor + ([node.module] if node.module else []))


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the ``iceberg_doris`` modules it imports."""
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base_of(node, name, is_package)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            for target in targets:
                # "import a.b.c" names a.b.c; walk up to the deepest part that is one of our modules
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target.startswith(PACKAGE) or target == name:
                    continue
                graph[name].add(target)
                graph[name].update(_packages_run_by(target, name, modules))
    return graph


def _packages_run_by(target: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """The packages whose ``__init__`` importing ``target`` runs, less the importer's own."""
    parts = target.split(".")
    packages = {".".join(parts[:depth]) for depth in range(1, len(parts))}
    return {
        package
        for package in packages
        if package in modules and importer != package and not importer.startswith(package + ".")
    }


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def one_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, as a path that returns to it."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return paths[node] + [start]
            if child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    raise AssertionError(f"{component} is not a cycle")  # Tarjan said it is: a bug here


def test_the_graph_sees_function_level_imports_and_skips_type_checking_ones(tmp_path):
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from iceberg_doris import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from iceberg_doris.c import x\nfrom .a import f\n"
    )
    (package / "c.py").write_text("import iceberg_doris.b.nothing\n")
    # d.e is run after d's __init__; f imports d.e, so it runs d's __init__ too
    (package / "d").mkdir()
    (package / "d" / "__init__.py").write_text("from iceberg_doris.d.e import g\n")
    (package / "d" / "e.py").write_text("from iceberg_doris.c import x\n")
    (package / "f.py").write_text("from iceberg_doris.d.e import g\n")
    modules = {f"{PACKAGE}.{name}": package / f"{name}.py" for name in ("a", "b", "c", "f")}
    modules[PACKAGE] = package / "__init__.py"
    modules[f"{PACKAGE}.d"] = package / "d" / "__init__.py"
    modules[f"{PACKAGE}.d.e"] = package / "d" / "e.py"
    graph = import_graph(modules)
    assert graph[f"{PACKAGE}.a"] == {f"{PACKAGE}.b"}
    assert graph[f"{PACKAGE}.b"] == {f"{PACKAGE}.a"}
    assert graph[f"{PACKAGE}.c"] == {f"{PACKAGE}.b"}
    assert graph[f"{PACKAGE}.d.e"] == {f"{PACKAGE}.c"}
    assert graph[f"{PACKAGE}.f"] == {f"{PACKAGE}.d", f"{PACKAGE}.d.e"}
    assert strongly_connected(graph) == [[f"{PACKAGE}.a", f"{PACKAGE}.b"]]
    assert one_cycle(graph, [f"{PACKAGE}.a", f"{PACKAGE}.b"]) == [f"{PACKAGE}.a", f"{PACKAGE}.b", f"{PACKAGE}.a"]


def test_no_import_cycles():
    graph = import_graph(module_files())
    cycles = [c for c in strongly_connected(graph) if frozenset(c) not in ALLOWED_CYCLES]
    described = "\n".join(
        " -> ".join(one_cycle(graph, component)) + f"   (component of {len(component)}: {', '.join(component)})"
        for component in cycles
    )
    assert not cycles, f"iceberg_doris has import cycles (break each with a module both sides import):\n{described}"
