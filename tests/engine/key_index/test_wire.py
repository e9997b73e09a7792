"""The typed boundary with the Java index: requests as the JVM parses them, answers read back (pure)."""

from __future__ import annotations

import ast
import base64
import inspect
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from pyroaring import BitMap64

from iceberg_doris.engine.key_index import jvm, wire


def encoded(*positions: int) -> str:
    return base64.b64encode(BitMap64(positions).serialize()).decode()


def test_a_request_is_one_json_object_with_none_as_null():
    asked = wire.IndexRequest(("k1", "k2"), None, 10, True, False)
    assert json.loads(asked.to_json()) == {
        "key_columns": ["k1", "k2"], "sequence_column": None, "max_rows": 10, "persist": True, "keys_per_hit": False,
    }
    assert json.loads(wire.IndexRequest(("k",), "seq", keys_per_hit=True).to_json())["sequence_column"] == "seq"
    # no budget: each executor sizes its cache by its own heap
    assert json.loads(wire.IndexRequest(("k",), max_rows=None).to_json())["max_rows"] is None


@pytest.mark.parametrize("bad", [dict(key_columns=()), dict(key_columns=("k",), sequence_column=""), dict(key_columns=("k",), max_rows=-1)])
def test_a_malformed_request_is_refused_before_it_crosses(bad):
    with pytest.raises(ValueError):
        wire.IndexRequest(**bad)


def test_a_lookup_answer_names_each_files_positions():
    answer = wire.LookupAnswer.from_json(json.dumps({
        "probed_files": 3, "built_files": 1, "read_files": 1, "unindexable": ["s3://b/n.parquet"],
        "problems": ["s3://b/x.parquet: entry not stored (IOException: full)"], "one_live_row_per_key": True,
        "hits": [{"location": "s3://b/a\nb.parquet", "upserts": encoded(1, 5), "deletes": encoded()}],
    }))
    assert (answer.probed_files, answer.built_files, answer.read_files) == (3, 1, 1)
    assert answer.unindexable == ("s3://b/n.parquet",)
    assert answer.one_live_row_per_key
    (hit,) = answer.hits
    assert hit.location == "s3://b/a\nb.parquet"  # a location is a JSON string: no separator to collide with
    assert list(hit.upserts) == [1, 5] and list(hit.deletes) == []


def test_a_sequence_answer_and_the_new_files_answers():
    decision = wire.SequenceAnswer.from_json(json.dumps({
        "replaced": [{"location": "f", "upserts": encoded(2), "deletes": encoded(7)}], "deleted_rows": 1, "any_delete_wins": True,
    }))
    assert decision.deleted_rows == 1 and decision.any_delete_wins and list(decision.replaced[0].deletes) == [7]
    assert wire.IndexingAnswer.from_json('{"problems": []}').problems == ()
    repeats = wire.RepeatsAnswer.from_json('{"verdict": "distinct", "problems": ["f: entry not stored (x)"]}')
    assert repeats.verdict == "distinct" and repeats.problems == ("f: entry not stored (x)",)
    with pytest.raises(ValueError):
        wire.RepeatsAnswer.from_json('{"verdict": "maybe", "problems": []}')


def test_a_batch_summary_reads_decimals_back():
    summary = wire.BatchSummary.from_json(json.dumps({
        "count": 2, "has_duplicates": False, "first_column_range": [{"decimal": "1.50"}, {"decimal": "2.00"}],
        "first_column_values": None,
    }))
    assert summary.first_column_range == [Decimal("1.50"), Decimal("2.00")]
    assert summary.first_column_values is None


def test_column_lists_cross_as_json_arrays():
    assert json.loads(wire.columns_json(["a", "b\nc"])) == ["a", "b\nc"]


# ------------------------------------------------------------------ the typed face of KeyIndex.java
_ROOT = Path(__file__).resolve().parents[3]
_KEY_INDEX_JAVA = _ROOT / "jvm/src/main/java/io/icebergdoris/keyindex/KeyIndex.java"
_KEY_INDEX_PY = _ROOT / "iceberg_doris/engine/key_index"


def _java_methods() -> dict[str, int]:
    """KeyIndex.java's public static methods and how many parameters each takes."""
    text = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>", "", _KEY_INDEX_JAVA.read_text())  # generics' commas are no parameters
    found = {}
    for name, parameters in re.findall(r"public static [\w.\[\]]+ (\w+)\(([^)]*)\)", text):
        found[name] = len([p for p in parameters.split(",") if p.strip()])
    return found


def _face() -> dict[str, int]:
    return {
        name: len(inspect.signature(method).parameters) - 1  # less self
        for name, method in vars(jvm.KeyIndexJvm).items() if callable(method) and not name.startswith("_")
    }


def _calls_through_the_face() -> set[str]:
    """The methods Python calls on KeyIndex: on jvm.index(...) / index_of(...), on a name bound
    to one, on self._index(...) or on a field typed KeyIndexJvm."""
    called = set()
    for path in _KEY_INDEX_PY.glob("*.py"):
        tree = ast.parse(path.read_text())
        handles = {"index"}  # the name every module binds the handle to
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            through_call = isinstance(owner, ast.Call) and ast.unparse(owner.func).split(".")[-1] in ("index", "index_of", "_index")
            through_name = isinstance(owner, ast.Name) and owner.id in handles
            through_field = isinstance(owner, ast.Attribute) and owner.attr == "index"
            if through_call or through_name or through_field:
                called.add(node.func.attr)
    return called


def test_the_python_face_of_the_key_index_is_keyindex_java_s():
    java, face = _java_methods(), _face()
    assert face and set(face) <= set(java), f"not in KeyIndex.java: {sorted(set(face) - set(java))}"
    assert {name: java[name] for name in face} == face  # the same number of parameters


def test_python_calls_the_key_index_only_through_its_face():
    called = _calls_through_the_face()
    assert {"lookup", "lookupAnswer", "decideBySequence", "awaitIndexing", "cachedRows"} <= called
    assert called <= set(_face()), f"called but not on KeyIndexJvm: {sorted(called - set(_face()))}"
