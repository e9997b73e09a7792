"""The layering rules, checked on the source (pure and fast: no Spark, no imports of the package).

The layers are :data:`LAYERS`, top down: the entry points (entry/) -> procedures/ (thin: bind, call
one operation, shape rows) -> operations/ (one Doris operation = one commit) -> merge_on_write/ ->
engine/ (the only code that speaks Iceberg's Java API) -> the session plumbing (spark_session/),
over the pure domain core (table_model/, partitioning/, ddl/, names/). Every import, function-level
ones included, is read from the source into one import graph (tests/test_import_cycles.py builds
it; that file also forbids cycles between modules).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_import_cycles import import_graph, one_cycle, strongly_connected

PACKAGE = Path(__file__).resolve().parents[1] / "iceberg_doris"

# What betrays a use of Iceberg's (or Spark's) Java API through py4j.
JAVA_API = re.compile(
    r"_jvm\b|\.jvm\.|Py4JJavaError|\bnewTransaction\(|\bnewAppend\(|\bnewFastAppend\(|\bnewRowDelta\(|"
    r"\bnewDelete\(|\bnewOverwrite\(|\bnewReplacePartitions\(|\bnewRewrite\(|\bmanageSnapshots\(|\.refs\(\)|"
    r"\btoBranch\(|\bupdateProperties\(|\bupdateSpec\(|\.helpers\.|\.expressions\.|org\.apache\.iceberg|"
    r"\boperations\(\)\.current\(|\bcurrentSnapshot\(|\bsnapshotId\(|\bloadTable\(|\brecordCount\(|\.location\(\)|\.properties\(\)"
)
# Outside engine/, only the session plumbing (spark_session/: the Spark session's settings, jars
# and Spark lines, py4j's sockets and name lookups, local mode's file system, the translation of
# Java failures) and the entry points (entry/: the CALL bridge and its callback server) talk to the
# JVM. None of them touches an Iceberg table. No other module is excepted.
JVM_PACKAGES = ("iceberg_doris/engine/", "iceberg_doris/spark_session/", "iceberg_doris/entry/")


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(relative.parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), path


def relative_path(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def all_imports(tree: ast.Module, module: str, is_package: bool) -> Iterator[tuple[str, list[str], int]]:
    """Every import, function-level ones included."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            yield resolve(node, module, is_package), [a.name for a in node.names], node.lineno


def resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def parsed() -> dict[str, tuple[Path, ast.Module]]:
    return {module: (path, ast.parse(path.read_text(), str(path))) for module, path in modules()}


SOURCES = parsed()


# The packages of iceberg_doris, top down. A package imports only packages on a lower line: never
# one above it, nor one on its own line (those are independent of each other). "iceberg_doris" is
# the root's __init__; "doris" and "errors" are the root's modules. docs/architecture.md shows the
# same list (checked below).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli",),  # the iceberg-doris command, over the public face
    ("iceberg_doris", "doris"),  # the public face: session(), install(), catalog(), doris.*
    ("entry",),  # session(), install(), the Python end of CALL doris.* and format("doris")
    ("streaming",),  # doris.stream_to
    ("procedures",),  # CALL doris.*: bind, call one operation, shape rows
    ("operations",),  # one Doris operation, one commit
    ("loading", "merge_on_write"),  # a load's front half; keyed writes
    ("engine",),  # Iceberg's Java API
    ("spark_session",),  # session plumbing: Spark lines, jars, secrets, Java errors, py4j sockets, job groups
    ("lake", "table_model"),  # where tables live (catalog settings, pyiceberg); the Doris model in Iceberg properties
    ("partitioning",),  # Doris partitions (pure)
    ("ddl", "names"),  # CREATE TABLE; which user-supplied names are accepted (pure)
    ("errors",),  # DorisError and its children
)
LAYER_OF = {package: number for number, layer in enumerate(LAYERS, 1) for package in layer}


def package_of(module: str) -> str:
    """The layer unit a module belongs to: its top-level package under iceberg_doris, or the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_graph() -> dict[str, set[str]]:
    return import_graph({module: path for module, (path, _) in SOURCES.items()})


def package_graph(graph: dict[str, set[str]]) -> dict[str, dict[str, list[str]]]:
    """Package -> each package it imports -> the module imports behind that edge."""
    packages: dict[str, dict[str, list[str]]] = {package_of(module): {} for module in graph}
    for module, imported in graph.items():
        for target in sorted(imported):
            if package_of(target) != package_of(module):
                packages[package_of(module)].setdefault(package_of(target), []).append(f"{module} -> {target}")
    return packages


def upward_imports(packages: dict[str, dict[str, list[str]]]) -> list[str]:
    return [
        f"{edge}   ({source} is on layer {LAYER_OF[source]}, {target} on layer {LAYER_OF[target]})"
        for source, targets in sorted(packages.items())
        for target, edges in sorted(targets.items())
        if LAYER_OF[target] <= LAYER_OF[source]
        for edge in edges
    ]


def package_cycles(packages: dict[str, dict[str, list[str]]]) -> list[str]:
    graph = {package: set(targets) for package, targets in packages.items()}
    return [
        " -> ".join(one_cycle(graph, component)) + f"   (one knot of {len(component)}: {', '.join(component)})"
        for component in strongly_connected(graph)
    ]


def test_every_package_has_a_layer():
    packages = {package_of(module) for module in SOURCES}
    assert packages - LAYER_OF.keys() == set(), "a package not in LAYERS: give it its place in the list"
    assert LAYER_OF.keys() - packages == set(), "LAYERS names a package that does not exist"


def test_no_import_goes_up_a_layer():
    offenders = upward_imports(package_graph(module_graph()))
    assert offenders == [], "imports up a layer, or sideways within one (see LAYERS):\n" + "\n".join(offenders)


def test_no_cycle_between_packages():
    cycles = package_cycles(package_graph(module_graph()))
    assert cycles == [], "packages that import each other, through any modules:\n" + "\n".join(cycles)


def test_the_layer_rules_catch_what_they_should():
    graph = {
        "iceberg_doris.engine.commit": {"iceberg_doris.spark_session.secrets"},  # down: fine
        "iceberg_doris.spark_session.bridge": {"iceberg_doris.procedures.registry"},  # up
        "iceberg_doris.procedures.registry": {"iceberg_doris.operations.names"},  # down
        "iceberg_doris.operations.names": {"iceberg_doris.spark_session.secrets"},  # down
        "iceberg_doris.spark_session.secrets": set(),
        "iceberg_doris.loading.source": {"iceberg_doris.merge_on_write.lookup"},  # sideways
        "iceberg_doris.merge_on_write.lookup": set(),
    }
    packages = package_graph(graph)
    assert [line.split("   ")[0] for line in upward_imports(packages)] == [
        "iceberg_doris.loading.source -> iceberg_doris.merge_on_write.lookup",
        "iceberg_doris.spark_session.bridge -> iceberg_doris.procedures.registry",
    ]
    # No module imports itself back, yet three packages form one knot.
    assert package_cycles(packages) == [
        "operations -> spark_session -> procedures -> operations   (one knot of 3: operations, procedures, spark_session)"
    ]


def layers_in_the_docs() -> list[tuple[str, ...]]:
    """The numbered list under ``## Layers`` in docs/architecture.md, as package names."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    listed = []
    for line in section.splitlines():
        if re.match(r"\d+\. ", line):
            names = re.findall(r"`([^`]+)`", line.split(":", 1)[0])
            listed.append(tuple(name.removesuffix("/").removesuffix(".py").removesuffix("/__init__") for name in names))
    return listed


def test_the_docs_show_the_layers():
    assert layers_in_the_docs() == list(LAYERS)


def test_the_layers_exist():
    for package in ("procedures", "operations", "operations.load", "merge_on_write", "engine", "table_model.snapshot_summary"):
        assert f"iceberg_doris.{package}" in SOURCES, package


def test_only_engine_speaks_the_java_api():
    offenders = []
    for module, (path, _) in SOURCES.items():
        where = relative_path(path)
        if where.startswith(JVM_PACKAGES):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if JAVA_API.search(code):
                offenders.append(f"{where}:{number}: {line.strip()}")
    assert offenders == [], "Java API outside engine/ and spark_session/:\n" + "\n".join(offenders)


def test_the_java_pattern_catches_what_it_should():
    for text in ("transaction.newRowDelta()", "spark._jvm.x", "table.refs().get(b)", "from py4j.protocol import Py4JJavaError",
                 "delta.toBranch(b)", "iceberg.helpers.SnapshotHistory"):
        assert JAVA_API.search(text), text
    for text in ("refs = []", "new_rows(decided)", "branch_name(p)"):
        assert not JAVA_API.search(text), text


# A call on a JVM object, found without a list of Java's names. Java names its methods in camelCase;
# the camelCase names Python code may call are those of PySpark's Python API, logging and threading,
# read from those classes here. And a method called on a value typed JavaObject is a Java call,
# whatever its name.
_CAMEL_CASE = re.compile(r"^[a-z][a-z0-9]*[A-Z]")
_JAVA_OBJECT_ANNOTATION = re.compile(r"^['\"]?JavaObject(\s*\|\s*None)?['\"]?$|^Optional\[JavaObject\]$")


def python_camel_case_names() -> frozenset[str]:
    import logging
    import threading

    import pyspark
    import pyspark.errors
    import pyspark.sql
    import pyspark.sql.functions
    import pyspark.sql.streaming
    import pyspark.sql.types
    import pyspark.sql.window
    from pyspark.sql import conf

    owners: list[object] = [
        logging, logging.Logger, logging.LoggerAdapter, logging.Handler, logging.StreamHandler, logging.Formatter,
        threading.Thread, threading.Event, pyspark.SparkContext, pyspark.RDD, pyspark.errors.PySparkException,
        pyspark.sql.functions, pyspark.sql.types, conf.RuntimeConfig, pyspark.sql.window.Window, pyspark.sql.window.WindowSpec,
    ]
    owners += [getattr(pyspark.sql, name) for name in pyspark.sql.__all__]
    owners += [value for name, value in vars(pyspark.sql.streaming).items() if isinstance(value, type)]
    owners += [getattr(pyspark.sql.types, name) for name in pyspark.sql.types.__all__]
    owners.append(pyspark.sql.SparkSession.Builder)
    return frozenset(name for owner in owners for name in dir(owner) if _CAMEL_CASE.match(name))


def java_calls(tree: ast.Module, python_names: frozenset[str]) -> Iterator[tuple[int, str]]:
    """Where a module calls a method of a JVM object: a camelCase method Python does not have, or
    any method of a value annotated JavaObject (a parameter, a variable or a class's field)."""
    fields = {
        statement.target.id
        for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)
        and _JAVA_OBJECT_ANNOTATION.match(ast.unparse(statement.annotation))
    }
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        arguments = function.args.posonlyargs + function.args.args + function.args.kwonlyargs
        java_values = {a.arg for a in arguments if a.annotation is not None and _JAVA_OBJECT_ANNOTATION.match(ast.unparse(a.annotation))}
        java_values |= {
            node.target.id for node in ast.walk(function)
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
            and _JAVA_OBJECT_ANNOTATION.match(ast.unparse(node.annotation))
        }
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            on_java_value = (isinstance(owner, ast.Name) and owner.id in java_values) or (
                isinstance(owner, ast.Attribute) and owner.attr in fields)
            if on_java_value or (_CAMEL_CASE.match(node.func.attr) and node.func.attr not in python_names):
                yield node.lineno, ast.unparse(node.func)


def test_only_engine_and_the_session_plumbing_call_jvm_objects():
    python_names = python_camel_case_names()
    offenders = sorted({
        f"{relative_path(path)}:{number}: {call}(...)"
        for _, (path, tree) in SOURCES.items() if not relative_path(path).startswith(JVM_PACKAGES)
        for number, call in java_calls(tree, python_names)
    })
    assert offenders == [], "calls on JVM objects outside engine/ and the session plumbing:\n" + "\n".join(offenders)


def test_the_jvm_call_rule_catches_what_it_should():
    python_names = python_camel_case_names()
    assert {"getLogger", "isEnabledFor", "writeTo", "withColumn", "createDataFrame", "getOrCreate"} <= python_names

    def calls(source: str) -> list[str]:
        return [call for _, call in java_calls(ast.parse(source), python_names)]

    assert calls("def f(plan):\n    return plan.dataFile(x)") == ["plan.dataFile"]
    assert calls("def f(table: JavaObject):\n    return table.snapshot(1)") == ["table.snapshot"]
    assert calls("def f(t: 'JavaObject | None'):\n    return t.io()") == ["t.io"]
    assert calls("class H:\n    table: JavaObject\ndef f(h):\n    return h.table.refs()") == ["h.table.refs"]
    assert calls("def f(df, log):\n    log.isEnabledFor(10)\n    return df.withColumn('a', c).writeTo('t')") == []
    assert calls("def f(files: list[JavaObject]):\n    return files.append(1)") == []


def test_no_private_names_imported_across_packages():
    offenders = []
    for module, (path, tree) in SOURCES.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for imported, names, line in all_imports(tree, module, path.name == "__init__.py"):
            if not imported.startswith("iceberg_doris"):
                continue
            source_package = imported if imported in SOURCES and SOURCES[imported][0].name == "__init__.py" else imported.rsplit(".", 1)[0]
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private and source_package != package:
                offenders.append(f"{relative_path(path)}:{line}: from {imported} import {', '.join(private)}")
    assert offenders == [], "\n".join(offenders)


def string_constants(module: str) -> set[str]:
    _, tree = SOURCES[module]
    return {
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def summary_keys() -> set[str]:
    """The summary keys, less those that are also table-property keys (``doris.partitions`` names
    both the model's partitions property and, in a summary, the partitions an operation changed)."""
    keys = {k for k in string_constants("iceberg_doris.table_model.snapshot_summary") if k.startswith("doris.")}
    return keys - string_constants("iceberg_doris.table_model.table_properties")


def test_snapshot_summary_keys_are_spelled_in_one_place():
    keys = summary_keys()
    assert {"doris.label", "doris.operation", "doris.loaded-rows", "doris.lookups", "doris.key-index"} <= keys
    offenders = []
    for module, (path, tree) in SOURCES.items():
        if module == "iceberg_doris.table_model.snapshot_summary":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                # A literal key, or a key inside SQL or a message ("summary['doris.label']").
                if node.value in keys or any(f"'{key}'" in node.value for key in keys):
                    offenders.append(f"{relative_path(path)}:{node.lineno}: {node.value!r}")
    assert offenders == [], "snapshot-summary keys outside table_model/snapshot_summary.py:\n" + "\n".join(offenders)


@pytest.mark.parametrize("module", sorted(m for m in SOURCES if m.startswith("iceberg_doris.procedures")))
def test_procedures_do_not_reach_into_the_engine(module):
    path, tree = SOURCES[module]
    reached = [
        f"{imported} (line {line})"
        for imported, _, line in all_imports(tree, module, path.name == "__init__.py")
        if imported.startswith(("iceberg_doris.engine", "iceberg_doris.merge_on_write", "iceberg_doris.loading"))
    ]
    assert reached == [], f"{module} imports {reached}: call an operation (iceberg_doris.operations) instead"


def test_the_package_root_holds_only_the_public_face():
    """``iceberg_doris.session()``, ``catalog()``, ``doris`` and ``errors`` are reached from the root;
    every other module lives in its package (the entry points in entry/, session plumbing in
    spark_session/, the CLI in cli/)."""
    assert sorted(path.name for path in PACKAGE.glob("*.py")) == ["__init__.py", "doris.py", "errors.py"]


# The key index's Java side (io.icebergdoris.keyindex; KeyIndex is its one entry point) is called
# from one Python package only: engine/key_index/, through its typed wire.
KEY_INDEX_JAVA = re.compile(r"io\.icebergdoris\.keyindex|\bKeyIndex\.|\.keyindex\b")


def test_only_the_key_index_package_calls_the_java_index():
    offenders = []
    for module, (path, _) in SOURCES.items():
        where = relative_path(path)
        if where.startswith("iceberg_doris/engine/key_index/"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if KEY_INDEX_JAVA.search(code) and not _in_docstring_or_comment(path, number):
                offenders.append(f"{where}:{number}: {line.strip()}")
    assert offenders == [], "calls into the Java key index outside engine/key_index/:\n" + "\n".join(offenders)


def _in_docstring_or_comment(path: Path, number: int) -> bool:
    """Whether line ``number`` lies in a string constant (docstrings name the Java classes they wrap)."""
    _, tree = SOURCES[next(m for m, (p, _) in SOURCES.items() if p == path)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            if node.lineno <= number <= (node.end_lineno or node.lineno):
                return True
    return False
