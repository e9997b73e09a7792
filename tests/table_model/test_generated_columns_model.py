"""The Doris model keeps a generated column's expression and the ordinary columns it reads in
``doris.columns``, so that every later load (from any session) computes the column."""

from __future__ import annotations

import dataclasses
import json

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.table_model import model_from_definition
from iceberg_doris.table_model.table_properties import COLUMNS, model_from_properties, model_to_properties


def test_the_expression_and_its_references_survive_the_table_properties():
    model = model_from_definition(parse_create_table(
        "create table t(a int, c double generated always as (abs(a+b)) not null, b int, d int generated always as (c+1)) "
        "DISTRIBUTED BY HASH(a)"
    ))
    # create_table fills the references from Spark's analysis (operations.generated_columns)
    columns = tuple(
        dataclasses.replace(c, generated_refs=("a", "b")) if c.name == "c" else c for c in model.columns
    )
    properties = model_to_properties(dataclasses.replace(model, columns=columns))
    saved = {c["name"]: c for c in json.loads(properties[COLUMNS])}
    assert saved["c"]["generated"] == "abs(a+b)" and saved["c"]["generated_refs"] == ["a", "b"]
    assert "generated" not in saved["a"]
    back = model_from_properties(properties, [dataclasses.replace(c, generated=None) for c in columns])
    assert [(c.name, c.generated, c.generated_refs) for c in back.columns] == [
        ("a", None, ()), ("c", "abs(a+b)", ("a", "b")), ("b", None, ()), ("d", "c+1", ()),
    ]
