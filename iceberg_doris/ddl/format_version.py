"""The ``"format-version"`` property of a Doris CREATE TABLE: which Iceberg format the table gets.

Format 3 (the default) marks deleted rows in deletion vectors, format 2 in position-delete files;
both are written and read by every keyed load, delete and compaction. Format 1 has no row-level
deletes at all, so it cannot hold a unique or aggregate key table, and no other version exists.
"""

from __future__ import annotations

from collections.abc import Mapping

from iceberg_doris.ddl.model import lookup_property
from iceberg_doris.errors import InvalidTableDefinitionError

PROPERTY = "format-version"
DEFAULT_FORMAT_VERSION = "3"
FORMAT_VERSIONS = ("2", "3")


def format_version(properties: Mapping[str, str]) -> str:
    """The Iceberg format version the properties ask for ("2" or "3"); refuses any other value."""
    value = lookup_property(dict(properties), PROPERTY)
    if value is None:
        return DEFAULT_FORMAT_VERSION
    if value.strip() not in FORMAT_VERSIONS:
        raise InvalidTableDefinitionError(
            f'Unsupported property "{PROPERTY}" = "{value}": tables are Iceberg format 2 (position-delete '
            f'files) or 3 (deletion vectors, the default). Write "{PROPERTY}" = "2" or "3", or leave it out.'
        )
    return value.strip()
