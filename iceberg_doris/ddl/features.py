"""Which Doris DDL clauses, column attributes and properties iceberg-doris implements, and which
it refuses: the rule is that nothing Doris accepts is stored and ignored.

Every clause and column attribute the parser knows (``ddl.parser.CLAUSES`` and
``ddl.parser.COLUMN_ATTRIBUTES``) and every property name ``create_table`` / ``set_properties``
accept has one decision here:

- ``AS_DORIS``: implemented with Doris's behaviour;
- ``STORAGE_ONLY``: in Doris it decides only where and how the data is stored or how fast it is
  read (replicas, media, compression, indexes), never which rows a query returns; Iceberg's own
  storage decides those here, so the rows are the same as Doris's. It is kept in the table's
  properties and shown by ``describe``;
- ``REFUSED``: refused by name at ``create_table`` / ``set_properties``, with the reason.

A property that is not listed is refused as Doris refuses it (``Unknown properties: {k=v}``,
``InternalCatalog.createOlapTable``). docs/doris-features.md is the table for users; a test
checks that it lists every entry here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from iceberg_doris.errors import InvalidTableDefinitionError

__all__ = [
    "Support",
    "Feature",
    "CLAUSE_FEATURES",
    "COLUMN_FEATURES",
    "PROPERTY_FEATURES",
    "PROPERTY_PREFIX_FEATURES",
    "PARTITION_PROPERTIES",
    "property_feature",
    "check_clauses",
    "check_properties",
    "check_partition_properties",
]


class Support(str, Enum):
    AS_DORIS = "as Doris"
    STORAGE_ONLY = "storage only"
    REFUSED = "refused"


@dataclass(frozen=True)
class Feature:
    """One clause, column attribute or property, its decision, and how (or why not)."""

    name: str
    support: Support
    note: str


def _as_doris(name: str, note: str) -> Feature:
    return Feature(name, Support.AS_DORIS, note)


def _storage(name: str, note: str) -> Feature:
    return Feature(name, Support.STORAGE_ONLY, note)


def _refused(name: str, note: str) -> Feature:
    return Feature(name, Support.REFUSED, note)


def _table(*features: Feature) -> dict[str, Feature]:
    return {f.name: f for f in features}


#: The statement's clauses, by the names ``ddl.parser.CLAUSES`` records.
CLAUSE_FEATURES: dict[str, Feature] = _table(
    _refused("EXTERNAL", "iceberg-doris creates OLAP tables only; an Iceberg table is already readable by every engine"),
    _refused(
        "TEMPORARY",
        "a Doris temporary table lives for one session and is invisible to others; an Iceberg table is "
        "shared by every session and engine. Create a normal table and drop it when done",
    ),
    _as_doris("IF NOT EXISTS", "an existing table is left alone (status EXISTS)"),
    _refused(
        "LIKE",
        "the other table's Doris model would have to be copied, which iceberg-doris does not do; write the full "
        "column list",
    ),
    _refused(
        "AS SELECT",
        "a Doris model (keys, partitions) cannot be read from a query; create the table with a column list, then "
        "load it (doris.load(..., query => ...))",
    ),
    _as_doris("catalog.db.tbl", "the catalog must be this session's catalog"),
    _storage(
        "INDEX",
        "inverted, bitmap, n-gram and ANN indexes only speed up Doris's reads; Spark reads the same rows without them",
    ),
    _as_doris("ENGINE", "OLAP only, as Doris's default; other engines are refused"),
    _as_doris("DUPLICATE KEY", "rows are appended; the key columns are the sort order"),
    _as_doris("UNIQUE KEY", "one row per key; merge-on-write (the default) or merge-on-read"),
    _as_doris("AGGREGATE KEY", "one row per key; SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL"),
    _storage(
        "CLUSTER BY",
        "merge-on-write cluster keys decide how Doris sorts a segment, not which rows a query returns; "
        "Doris's checks are applied",
    ),
    _as_doris("COMMENT", "the Iceberg table's comment"),
    _as_doris("PARTITION BY RANGE", "Doris partitions on an Iceberg partition spec"),
    _as_doris("PARTITION BY LIST", "Doris partitions on an Iceberg partition spec"),
    _as_doris("AUTO PARTITION", "partitions are created by the loads that need them, named as Doris names them"),
    _as_doris("FROM TO INTERVAL", "batch partitions, one per interval"),
    _as_doris("DISTRIBUTED BY HASH", "an Iceberg bucket transform of the distribution columns"),
    _as_doris("DISTRIBUTED BY RANDOM", "no bucket transform"),
    _storage("ROLLUP", "a rollup is a materialized index Doris may read instead of the base table, with the same rows"),
    _as_doris("PROPERTIES", "each property as the property table says"),
)

#: Column attributes, by the names ``ddl.parser.COLUMN_ATTRIBUTES`` records.
COLUMN_FEATURES: dict[str, Feature] = _table(
    _as_doris("KEY", "marks a key column; it must agree with the table's KEY clause"),
    _as_doris(
        "aggregate type",
        "SUM, MAX, MIN, REPLACE, REPLACE_IF_NOT_NULL; HLL_UNION, BITMAP_UNION, QUANTILE_UNION and GENERIC are refused",
    ),
    _as_doris(
        "generated expression",
        "[GENERATED ALWAYS] AS (expr), a Spark SQL expression checked by Spark at create_table with Doris's "
        "rules; every load computes the column, in column order (a value a load gives it is not used; INSERT "
        "naming it is refused)",
    ),
    _as_doris(
        "NULL/NOT NULL",
        "as written; a UNIQUE or AGGREGATE key column declared NULL holds one NULL key, as in Doris (the table "
        "then has no Iceberg identifier fields); a key column written without either is NOT NULL (an Iceberg "
        "identifier field), where Doris makes it nullable",
    ),
    _as_doris(
        "AUTO_INCREMENT",
        "one BIGINT NOT NULL column of a DUPLICATE or UNIQUE KEY table; a load that does not supply it, or "
        "supplies NULL, gets values unique across concurrent loads (not dense), from blocks reserved in the JDBC "
        "catalog's database (SQLite or PostgreSQL catalogs only)",
    ),
    _as_doris("DEFAULT", "loads that do not supply the column write the default (CURRENT_TIMESTAMP at the load's time)"),
    _as_doris(
        "ON UPDATE CURRENT_TIMESTAMP",
        "on merge-on-write UNIQUE KEY tables: a partial update, UPDATE or MERGE INTO that does not set the "
        "column sets it to the load's time",
    ),
    _as_doris("COMMENT", "the Iceberg column's doc"),
)

#: Table properties (lower case), exact names.
PROPERTY_FEATURES: dict[str, Feature] = _table(
    _as_doris("enable_unique_key_merge_on_write", "merge-on-write (true, the default) or merge-on-read"),
    _as_doris("function_column.sequence_col", "the sequence column decides which row of a key wins"),
    _as_doris("function_column.sequence_type", "a hidden sequence column fed by each load's sequence_col"),
    _as_doris(
        "enable_duplicate_without_keys_by_default",
        "a table without a KEY clause is a duplicate table without sort keys",
    ),
    _as_doris("replace_version_column", "REPLACE columns of an AGGREGATE KEY table follow this column's order"),
    _as_doris("use_simple_auto_partition_name", "auto RANGE partitions get Doris's short names"),
    _as_doris("disable_auto_compaction", "turns off the automatic compaction of this table"),
    _as_doris(
        "catalog_trash_expire_second",
        "how long dropped partitions stay recoverable (Doris's FE setting, per table here)",
    ),
    _as_doris("format-version", "the Iceberg format version (2 or 3) of the new table"),
    _as_doris(
        "partition.retention_count",
        "AUTO RANGE tables only, not with dynamic_partition.*, a count > 0 (Doris's messages); each "
        "doris.run_dynamic_partition pass drops the history partitions beyond the newest N into the recycle bin",
    ),
    _as_doris(
        "enable_unique_key_skip_bitmap_column",
        "true on a merge-on-write UNIQUE KEY table lets doris.load take unique_key_update_mode => "
        "'UPDATE_FLEXIBLE_COLUMNS' (each JSON row updating the columns it names); shown by describe as Doris's SHOW "
        "CREATE TABLE shows it (false is left out)",
    ),
    _storage("replication_num", "replicas are the storage system's business on Iceberg"),
    _storage("replication_allocation", "replicas are the storage system's business on Iceberg"),
    _storage("storage_medium", "the medium of the files is the storage system's business on Iceberg"),
    _storage("storage_cooldown_time", "the medium of the files is the storage system's business on Iceberg"),
    _storage("storage_policy", "cold storage is the storage system's business on Iceberg"),
    _storage("storage_format", "Iceberg writes Parquet"),
    _storage("storage_vault_name", "the warehouse decides where files go"),
    _storage("in_memory", "a cache hint"),
    _storage("compression", "Iceberg's write.parquet.compression-codec decides"),
    _storage("bloom_filter_columns", "a read index; the rows are the same"),
    _storage("bloom_filter_fpp", "a read index; the rows are the same"),
    _storage("light_schema_change", "how Doris applies schema changes; Iceberg's schema evolution is always light"),
    _storage("store_row_column", "a row store for point lookups; the rows are the same"),
    _storage("row_store_columns", "a row store for point lookups; the rows are the same"),
    _storage("row_store_page_size", "a row store for point lookups; the rows are the same"),
    _storage("skip_write_index_on_load", "when Doris builds its indexes"),
    _storage("compaction_policy", "how Doris compacts its segments; doris.compact decides here"),
    _storage("time_series_compaction_goal_size_mbytes", "how Doris compacts its segments"),
    _storage("time_series_compaction_file_count_threshold", "how Doris compacts its segments"),
    _storage("time_series_compaction_time_threshold_seconds", "how Doris compacts its segments"),
    _storage("time_series_compaction_empty_rowsets_threshold", "how Doris compacts its segments"),
    _storage("time_series_compaction_level_threshold", "how Doris compacts its segments"),
    _storage("enable_single_replica_compaction", "how Doris compacts its replicas"),
    _storage("estimate_partition_size", "a hint for Doris's automatic bucket count"),
    _storage("min_load_replica_num", "how many replicas a Doris load waits for"),
    _storage("group_commit_interval_ms", "how Doris batches small loads; each load here is one commit"),
    _storage("group_commit_data_bytes", "how Doris batches small loads; each load here is one commit"),
    _storage("colocate_with", "where Doris places buckets for colocated joins"),
    _storage("enable_mow_light_delete", "how Doris writes deletes on merge-on-write tables; the rows are the same"),
    _storage("inverted_index_storage_format", "how Doris stores inverted indexes"),
    _storage("storage_page_size", "Doris's segment page size"),
    _storage("short_key", "how many key columns Doris's short-key index holds"),
    _storage("storage_dict_page_size", "Doris's segment page size"),
)

#: Table properties matched by prefix.
PROPERTY_PREFIX_FEATURES: dict[str, Feature] = _table(
    _as_doris(
        "dynamic_partition.",
        "on a table partitioned by RANGE on one column, refused elsewhere with Doris's CREATE TABLE and ALTER TABLE "
        "messages; validated with Doris's messages; partitions are created and dropped as Doris does",
    ),
)

#: Properties a single partition (``PARTITION p VALUES ... ("k" = "v")``, ``FROM .. TO .. ("k" = "v")``)
#: may carry: Doris's per-partition storage settings.
PARTITION_PROPERTIES = frozenset({
    "replication_num", "replication_allocation", "storage_medium", "storage_cooldown_time", "storage_policy",
    "in_memory",
})


def property_feature(name: str) -> Feature | None:
    """The decision for the table property ``name`` (case-insensitive), None for an unknown one."""
    key = name.strip().lower()
    found = PROPERTY_FEATURES.get(key)
    if found is not None:
        return found
    for prefix, feature in PROPERTY_PREFIX_FEATURES.items():
        if key.startswith(prefix):
            return feature
    return None


def _not_supported(what: str, feature: Feature) -> InvalidTableDefinitionError:
    return InvalidTableDefinitionError(f"{what} is not supported by iceberg-doris: {feature.note}")


def check_clauses(clauses: Iterable[str], column_attributes: Iterable[tuple[str, str]]) -> None:
    """Refuses, by name, the first refused clause or column attribute of a statement."""
    for clause in clauses:
        feature = CLAUSE_FEATURES[clause]
        if feature.support is Support.REFUSED:
            raise _not_supported(f"The {clause} clause of CREATE TABLE", feature)
    for column, attribute in column_attributes:
        feature = COLUMN_FEATURES[attribute]
        if feature.support is Support.REFUSED:
            raise _not_supported(f"{feature.name} (column {column})", feature)


def check_properties(properties: Mapping[str, str]) -> None:
    """Refuses refused and unknown table properties, naming them (Doris's message for unknown ones)."""
    unknown: dict[str, str] = {}
    for key, value in properties.items():
        feature = property_feature(key)
        if feature is None:
            unknown[key] = value
        elif feature.support is Support.REFUSED:
            raise _not_supported(f'Property "{key}"', feature)
    if unknown:
        raise InvalidTableDefinitionError(
            f"Unknown properties: {_java_map(unknown)}; the properties iceberg-doris knows are listed in "
            "docs/doris-features.md"
        )


def check_partition_properties(partition: str, properties: Mapping[str, str]) -> None:
    """A partition's own properties: Doris's per-partition storage settings only."""
    unknown = {k: v for k, v in properties.items() if k.strip().lower() not in PARTITION_PROPERTIES}
    if unknown:
        raise InvalidTableDefinitionError(
            f"Unknown properties: {_java_map(unknown)} (partition {partition}); a partition takes only "
            + ", ".join(sorted(PARTITION_PROPERTIES))
        )


def _java_map(values: Mapping[str, str]) -> str:
    """A map as Java's ``Map.toString`` prints it, as in Doris's message."""
    return "{" + ", ".join(f"{k}={v}" for k, v in values.items()) + "}"
