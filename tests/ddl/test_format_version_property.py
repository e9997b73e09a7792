"""The Doris ``"format-version"`` property: "2" and "3" are taken, anything else refused at parse."""

from __future__ import annotations

import pytest

from iceberg_doris.ddl import parse_create_table
from iceberg_doris.ddl.format_version import format_version
from iceberg_doris.errors import InvalidTableDefinitionError

DDL = 'CREATE TABLE db.t (k INT NOT NULL, v STRING) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ({})'


@pytest.mark.parametrize(("properties", "version"), [
    ('"format-version" = "2"', "2"),
    ('"format-version" = "3"', "3"),
    ('"FORMAT-VERSION" = " 2 "', "2"),
    ('"replication_num" = "1"', "3"),
])
def test_format_version_two_and_three_are_taken_and_three_is_the_default(properties, version):
    assert format_version(parse_create_table(DDL.format(properties)).properties) == version


@pytest.mark.parametrize("value", ["1", "4", "v2", "", "2.0"])
def test_any_other_format_version_is_refused_naming_the_fix(value):
    with pytest.raises(InvalidTableDefinitionError) as refused:
        parse_create_table(DDL.format(f'"format-version" = "{value}"'))
    assert str(refused.value) == (
        f'Unsupported property "format-version" = "{value}": tables are Iceberg format 2 (position-delete files) '
        'or 3 (deletion vectors, the default). Write "format-version" = "2" or "3", or leave it out.'
    )
