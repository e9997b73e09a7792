"""Doris's semantic checks of a parsed ``CREATE TABLE`` (what the frontend refuses after parsing):
engine, columns, key model and key columns, merge-on-write, cluster keys, partitions, distribution
and the sequence column. Errors raise :class:`~iceberg_doris.errors.InvalidTableDefinitionError`
with Doris's own message where it has one.
"""

from __future__ import annotations

from iceberg_doris.ddl.model import (
    MAXVALUE,
    SUPPORTED_AGGREGATIONS,
    ColumnDef,
    DistributionDesc,
    DorisType,
    KeysModel,
    PartitionDesc,
    PartitionItemDef,
    PartitionValue,
    TableDefinition,
    lookup_property,
)
from iceberg_doris.ddl.features import check_clauses, check_partition_properties, check_properties
from iceberg_doris.ddl.format_version import format_version
from iceberg_doris.ddl.raw_statement import RawPartition, RawTable
from iceberg_doris.ddl.tokens import IDENT, QIDENT, tokenize
from iceberg_doris.ddl.types import (
    UNSUPPORTED_TYPES,
    doris_type_from_sql,
    index_size,
    is_complex_type,
    is_float_type,
    is_integer_type,
    is_string_like,
    spark_type_for,
)
from iceberg_doris.errors import DdlSyntaxError, InvalidTableDefinitionError

__all__ = ["sequence_type_from_text", "validate"]

_SHORTKEY_MAX_COLUMN_COUNT = 3
_SHORTKEY_MAX_SIZE_BYTES = 36
_AUTO_RANGE_FUNCTION = "date_trunc"


def validate(raw: RawTable) -> TableDefinition:
    """The validated table definition of a parsed statement, as Doris's frontend checks it."""
    return _Validator(raw).validate()


class _Validator:
    def __init__(self, raw: RawTable):
        self.raw = raw
        self.by_name: dict[str, ColumnDef] = {}

    def validate(self) -> TableDefinition:
        raw = self.raw
        self._engine()
        # Before the refusals: Doris names a generated column that is also AUTO_INCREMENT as such.
        self._generated_attributes()
        # Nothing Doris accepts is stored and ignored: a refused clause, column attribute or
        # property fails here, by name (ddl.features has the decisions).
        check_clauses(raw.clauses, raw.column_attributes)
        check_properties(raw.properties)
        if raw.partition is not None:
            for item in raw.partition.items:
                check_partition_properties(item.name, item.properties)
            for properties in raw.partition.step_properties:
                check_partition_properties("FROM ... TO ... INTERVAL", properties)
        self._columns()
        keys_model, keys, defaulted = self._keys()
        self._key_columns(keys_model, keys)
        self._auto_increment(keys_model)
        props = raw.properties
        mow = self._merge_on_write(keys_model)
        self._on_update(keys_model, mow)
        self._generated_expressions(keys_model)
        cluster_by = self._cluster_keys(keys_model, keys, mow)
        partition = self._partition(keys_model, keys)
        distribution = self._distribution(keys_model, keys)
        self._sequence(keys_model, keys)
        format_version(props)  # refuses a version Iceberg tables here cannot have
        return TableDefinition(
            database=raw.database,
            table=raw.table,
            if_not_exists=raw.if_not_exists,
            external=raw.external,
            columns=tuple(raw.columns),
            indexes=tuple(raw.indexes),
            engine=raw.engine,
            keys_model=keys_model,
            key_columns=tuple(keys),
            cluster_by=tuple(cluster_by),
            comment=raw.comment,
            partition=partition,
            distribution=distribution,
            rollups=tuple(raw.rollups),
            properties=dict(props),
            keys_defaulted=defaulted,
            catalog=raw.catalog,
            temporary=raw.temporary,
        )

    # -- helpers -------------------------------------------------------------------------------
    def _resolve(self, name: str) -> ColumnDef | None:
        return self.by_name.get(name.lower())

    def _prop(self, name: str) -> str | None:
        return lookup_property(self.raw.properties, name)

    # -- checks --------------------------------------------------------------------------------
    def _engine(self) -> None:
        raw = self.raw
        engine = raw.engine or "olap"
        if engine != "olap":
            raise InvalidTableDefinitionError(
                f"Do not support table with engine name = {engine}: iceberg-doris creates OLAP tables only"
            )
        if raw.external:
            raise InvalidTableDefinitionError("Do not support external table with engine name = olap")

    def _columns(self) -> None:
        for col in self.raw.columns:
            lowered = col.name.lower()
            if lowered in self.by_name:
                raise InvalidTableDefinitionError(f"Duplicate column name '{col.name}'")
            self.by_name[lowered] = col
        for col in self.raw.columns:
            if col.aggregation is not None and col.aggregation not in SUPPORTED_AGGREGATIONS:
                raise InvalidTableDefinitionError(
                    f"Aggregate type {col.aggregation} (column {col.name}) is not supported on Iceberg tables "
                    f"by iceberg-doris; supported aggregate types are {', '.join(SUPPORTED_AGGREGATIONS)}"
                )
            unsupported = _find_unsupported(col.type)
            if unsupported is not None:
                raise InvalidTableDefinitionError(
                    f"Type {unsupported} (column {col.name}) is not supported on Iceberg tables by iceberg-doris; "
                    "Doris aggregate-state types (HLL, BITMAP, QUANTILE_STATE, AGG_STATE) have no Iceberg representation"
                )
            try:
                spark_type_for(col.type)
            except InvalidTableDefinitionError as exc:
                raise InvalidTableDefinitionError(f"Column {col.name}: {exc}") from None
            if col.aggregation is not None:
                _check_aggregation_type(col)

    def _keys(self) -> tuple[KeysModel, list[str], bool]:
        raw = self.raw
        without_keys = (self._prop("enable_duplicate_without_keys_by_default") or "").strip().lower() == "true"
        if raw.keys_model is not None:
            if without_keys:
                raise InvalidTableDefinitionError(
                    "table property 'enable_duplicate_without_keys_by_default' only can set 'true' "
                    "when create olap table by default."
                )
            return raw.keys_model, list(raw.key_columns), False

        keys: list[str] = []
        if any(c.aggregation is not None for c in raw.columns):
            for col in raw.columns:
                if col.aggregation is not None:
                    break
                keys.append(col.name)
            model = KeysModel.AGGREGATE
        else:
            model = KeysModel.DUPLICATE
            if not without_keys:
                keys = _default_duplicate_keys(raw.columns)
        if not keys and (model is not KeysModel.DUPLICATE or not without_keys):
            raise InvalidTableDefinitionError(
                "The olap table first column could not be float, double, string or array, struct, map, "
                "please use decimal or varchar instead."
            )
        return model, keys, True

    def _key_columns(self, model: KeysModel, keys: list[str]) -> None:
        columns = self.raw.columns
        model_name = {KeysModel.DUPLICATE: "DUP_KEYS", KeysModel.UNIQUE: "UNIQUE_KEYS", KeysModel.AGGREGATE: "AGG_KEYS"}[model]
        if len(keys) > len(columns):
            raise InvalidTableDefinitionError("The number of key columns should be less than the number of columns.")
        seen: set[str] = set()
        for i, key in enumerate(keys):
            if key.lower() in seen:
                raise InvalidTableDefinitionError(f"Duplicate key column[{key}].")
            seen.add(key.lower())
            col = columns[i]
            if col.name.lower() != key.lower():
                if self._resolve(key) is None:
                    raise InvalidTableDefinitionError(f"Key column[{key}] doesn't exist.")
                raise InvalidTableDefinitionError(
                    "Key columns should be a ordered prefix of the schema. "
                    f"KeyColumns[{i}] (starts from zero) is {key}, but corresponding column is {col.name} "
                    "in the previous columns declaration."
                )
            if col.aggregation is not None:
                raise InvalidTableDefinitionError(f"Key column[{col.name}] should not specify aggregate type.")
            _check_key_type(col)
            keys[i] = col.name  # as declared
        for col in columns[len(keys):]:
            if col.key:
                raise InvalidTableDefinitionError(
                    f"Column {col.name} is marked KEY but is not a key column of the table (keys: "
                    f"{', '.join(keys) or 'none'}): add it to the KEY clause or remove KEY"
                )
        for col in columns[len(keys):]:
            if model is KeysModel.AGGREGATE and col.aggregation is None:
                raise InvalidTableDefinitionError(
                    f"{model_name} table should specify aggregate type for non-key column[{col.name}]"
                )
            if model is not KeysModel.AGGREGATE and col.aggregation is not None:
                raise InvalidTableDefinitionError(
                    f"{model_name} table should not specify aggregate type for non-key column[{col.name}]"
                )

    def _merge_on_write(self, model: KeysModel) -> bool:
        value = self._prop("enable_unique_key_merge_on_write")
        if value is not None and model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("enable_unique_key_merge_on_write property only support unique key table")
        if model is not KeysModel.UNIQUE:
            return False
        if value is None:
            return True
        lowered = value.strip().lower()
        if lowered not in ("true", "false"):
            raise InvalidTableDefinitionError(
                f"Invalid enable_unique_key_merge_on_write value: {value}. Expected true or false"
            )
        return lowered == "true"

    def _auto_increment(self, model: KeysModel) -> None:
        """``AUTO_INCREMENT[(start)]``: Doris's checks, in its order, and its messages (the table's
        count first, then each column: NOT NULL, BIGINT, no default, a start >= 0), from
        regression-test/suites/data_model_p0/duplicate/storage/test_dup_tab_auto_inc_col.groovy and
        test_dup_tab_auto_inc_start_value_col.groovy."""
        columns = [col for col in self.raw.columns if col.auto_increment]
        if not columns:
            return
        if len(columns) > 1:
            raise InvalidTableDefinitionError("there can be at most one auto increment column in OlapTable.")
        col = columns[0]
        if col.nullable:
            raise InvalidTableDefinitionError("the auto increment column should be NOT NULL.")
        if col.type.name != "BIGINT":
            raise InvalidTableDefinitionError("the auto increment must be BIGINT type.")
        if col.default_kind is not None:
            raise InvalidTableDefinitionError("the auto increment column can't have default value.")
        if col.auto_increment_start is not None and col.auto_increment_start < 0:
            raise InvalidTableDefinitionError("AUTO_INCREMENT start value can not be negative.")
        if model is KeysModel.AGGREGATE:
            # Doris's documentation: only DUPLICATE KEY and UNIQUE KEY tables have auto-increment columns.
            raise InvalidTableDefinitionError(
                f"AUTO_INCREMENT (column {col.name}) is supported on DUPLICATE KEY and UNIQUE KEY tables only, as in "
                "Doris: an AGGREGATE KEY table cannot have an auto-increment column"
            )

    def _on_update(self, model: KeysModel, mow: bool) -> None:
        """``ON UPDATE CURRENT_TIMESTAMP``: Doris's checks and messages (ColumnDefinition.validate,
        regression-test/suites/nereids_p0/insert_into_table/update_on_current_timestamp.groovy)."""
        for col in self.raw.columns:
            if not col.on_update_current_timestamp:
                continue
            # CURRENT_TIMESTAMP and CURRENT_TIMESTAMP(p) are different defaults to Doris: the
            # column's default must be the same one as its ON UPDATE value.
            if col.default_kind != "current_timestamp" or (col.default_precision is None) != (col.on_update_precision is None):
                raise InvalidTableDefinitionError(
                    f"You must set the default value of the column[{col.name}] to CURRENT_TIMESTAMP when using "
                    "'ON UPDATE CURRENT_TIMESTAMP'."
                )
            if col.default_precision != col.on_update_precision:
                raise InvalidTableDefinitionError(
                    f"The precision of the default value of column[{col.name}] should be the same with the precision "
                    "in 'ON UPDATE CURRENT_TIMESTAMP'."
                )
            if model is not KeysModel.UNIQUE or not mow:
                # Doris's text, its spelling included.
                raise InvalidTableDefinitionError(
                    "'ON UPDATE CURRENT_TIMESTAMP' is only supportted in unique table with merge-on-write enabled."
                )

    def _generated_attributes(self) -> None:
        """A generated column takes no other value: Doris's messages (ColumnDefinition.validate,
        regression-test/suites/ddl_p0/test_create_table_generated_column/fault_tolerance_nereids.groovy)."""
        for col in self.raw.columns:
            if col.generated is None:
                continue
            if col.auto_increment:
                raise InvalidTableDefinitionError("Generated columns cannot be auto_increment.")
            if col.default_kind is not None or col.on_update_current_timestamp:
                raise InvalidTableDefinitionError("Generated columns cannot have default value.")

    def _generated_expressions(self, model: KeysModel) -> None:
        """The checks of a generated column's expression that need no engine (Doris's messages);
        create_table has Spark analyse the expression for the rest (unknown columns, aggregate,
        window and non-deterministic functions, UDFs, a type that does not cast)."""
        columns = self.raw.columns
        generated_at = {c.name.lower(): i for i, c in enumerate(columns) if c.generated is not None}
        auto_increment = {c.name.lower() for c in columns if c.auto_increment}
        for index, col in enumerate(columns):
            if col.generated is None:
                continue
            if model is KeysModel.AGGREGATE and col.aggregation and col.aggregation.upper() not in (
                "REPLACE", "REPLACE_IF_NOT_NULL"
            ):
                raise InvalidTableDefinitionError(
                    "The generated columns can be key columns, or value columns of replace and replace_if_not_null "
                    "aggregation type."
                )
            tokens = tokenize(col.generated)
            for position, token in enumerate(tokens):
                after = tokens[position + 1] if position + 1 < len(tokens) else None
                if token.is_op("@"):
                    raise InvalidTableDefinitionError("Generated column expression cannot contain variable.")
                if token.is_keyword("SELECT"):
                    raise InvalidTableDefinitionError("Generated column does not support subquery.")
                if token.is_op("-") and after is not None and after.is_op(">") and after.start == token.end:
                    raise InvalidTableDefinitionError("Generated column does not support lambda.")
                if token.kind not in (IDENT, QIDENT) or (after is not None and after.is_op("(")):
                    continue  # a function's name is not a column
                if position > 0 and tokens[position - 1].is_op("."):
                    continue  # a struct field
                if token.value.lower() in auto_increment:
                    # its values are given after the row is computed
                    raise InvalidTableDefinitionError(f"Generated column '{col.name}' cannot refer to auto-increment column.")
                referred = generated_at.get(token.value.lower())
                if referred is not None and referred >= index:
                    raise InvalidTableDefinitionError(
                        "Generated column can refer only to generated columns defined prior to it."
                    )

    def _cluster_keys(self, model: KeysModel, keys: list[str], mow: bool) -> list[str]:
        names = self.raw.cluster_by
        if not names:
            return []
        if model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("Cluster keys only support unique keys table.")
        resolved: list[str] = []
        for name in names:
            col = self._resolve(name)
            if any(r.lower() == name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicate cluster key column[{name}].")
            if col is None:
                raise InvalidTableDefinitionError(f"Key cluster column[{name}] doesn't exist.")
            resolved.append(col.name)
        if all(a.lower() == b.lower() for a, b in zip(keys, resolved)):
            raise InvalidTableDefinitionError("Unique keys and cluster keys should be different.")
        if not mow:
            raise InvalidTableDefinitionError(
                "Cluster keys only support unique keys table which enabled enable_unique_key_merge_on_write"
            )
        return resolved

    # -- partitions ----------------------------------------------------------------------------
    def _partition(self, model: KeysModel, keys: list[str]) -> PartitionDesc | None:
        raw = self.raw.partition
        if raw is None:
            return None
        key_set = {k.lower() for k in keys}
        has_function = any(e.kind == "function" for e in raw.exprs)
        for expr in raw.exprs:
            if expr.kind in ("string", "number"):
                raise InvalidTableDefinitionError(f"Partition expression {expr.text} is not a column or a function call")

        auto_function = auto_unit = None
        if raw.kind == "RANGE" and (raw.auto_keyword or has_function):
            columns, auto_function, auto_unit = self._auto_range(raw)
            auto = True
        else:
            if has_function:
                # LIST with a function call
                expr = next(e for e in raw.exprs if e.kind == "function")
                raise InvalidTableDefinitionError(
                    f"auto create partition only support slotRef in list partitions. {expr.text}"
                )
            columns = [e.value for e in raw.exprs]
            auto = raw.auto_keyword

        # columns: existence, duplicates, types, key-ness
        resolved: list[str] = []
        for name in columns:
            col = self._resolve(name)
            if col is None:
                raise InvalidTableDefinitionError(f"partition key {name} is not exists")
            if any(r.lower() == col.name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicated partition column {name}")
            resolved.append(col.name)
            is_key = col.name.lower() in key_set
            if not is_key and (model is KeysModel.AGGREGATE or model is KeysModel.UNIQUE):
                # non-key columns of AGGREGATE tables carry an aggregation; those of UNIQUE tables are
                # implicitly REPLACE (merge-on-read) or must not move between partitions (merge-on-write)
                raise InvalidTableDefinitionError("The partition column could not be aggregated column")
            if is_float_type(col.type):
                raise InvalidTableDefinitionError("Floating point type column can not be partition column")
            if col.type.name == "STRING":
                raise InvalidTableDefinitionError(f"String Type should not be used in partition column[{col.name}].")
            if is_complex_type(col.type) or col.type.name in ("JSON", "VARIANT"):
                raise InvalidTableDefinitionError(f"Complex type column can't be partition column: {col.type.sql}")
            if auto and raw.kind == "RANGE" and col.nullable:
                raise InvalidTableDefinitionError("AUTO RANGE PARTITION doesn't support NULL column")

        # partition definitions
        if raw.kind == "RANGE":
            mixed_ok = (not raw.has_in) and not (raw.steps and raw.has_less_than)
        else:
            mixed_ok = not (raw.has_less_than or raw.has_fixed or raw.steps)
        if raw.kind == "LIST":
            for item in raw.items:
                for value in item.values_in:
                    if MAXVALUE in value.values:
                        raise InvalidTableDefinitionError("MAXVALUE is not allowed in LIST partition")
        if not mixed_ok:
            raise InvalidTableDefinitionError(
                "partitions types is invalid, expected FIXED or LESS in range partitions and IN in list partitions"
            )
        names: set[str] = set()
        width = len(resolved)
        for item in raw.items:
            if item.name.lower() in names:
                raise InvalidTableDefinitionError(f"Duplicated named partition: {item.name}")
            names.add(item.name.lower())
            _check_item_width(item, width)
        if raw.steps and width != 1:
            raise InvalidTableDefinitionError(
                "Batch partitions (FROM ... TO ... INTERVAL) only support a single partition column"
            )
        return PartitionDesc(
            kind=raw.kind,  # type: ignore[arg-type]
            columns=tuple(resolved),
            auto=auto,
            auto_function=auto_function,
            auto_unit=auto_unit,
            items=tuple(raw.items),
            steps=tuple(raw.steps),
        )

    def _auto_range(self, raw: RawPartition) -> tuple[list[str], str, str]:
        exprs = raw.exprs
        functions = [e for e in exprs if e.kind == "function"]
        if not functions:
            raise InvalidTableDefinitionError("Auto Range Partition need FunctionCallExpr")
        if len(exprs) != 1:
            raise InvalidTableDefinitionError(
                "auto create partition only support one slotRef in expr of RANGE partition. "
                + ", ".join(e.text for e in exprs)
            )
        expr = exprs[0]
        if expr.value.lower() != _AUTO_RANGE_FUNCTION:
            raise InvalidTableDefinitionError(
                f"auto create partition only support function call expr is date_trunc. {expr.text}"
            )
        slots = [a for a in expr.args if a.kind == "column"]
        if len(slots) > 1:
            raise InvalidTableDefinitionError(
                f"auto create partition only support one slotRef in function expr. {expr.text}"
            )
        illegal = InvalidTableDefinitionError(f"partition expr {expr.value} is illegal!")
        if len(expr.args) != 2 or expr.args[0].kind != "column" or expr.args[1].kind != "string":
            raise illegal
        column = expr.args[0].value
        col = self._resolve(column)
        if col is None:
            raise InvalidTableDefinitionError(f"partition key {column} is not exists")
        if col.type.name not in ("DATE", "DATETIME"):
            raise illegal
        return [column], _AUTO_RANGE_FUNCTION, expr.args[1].value.lower()

    # -- distribution --------------------------------------------------------------------------
    def _distribution(self, model: KeysModel, keys: list[str]) -> DistributionDesc | None:
        dist = self.raw.distribution
        if dist is None:
            return None
        key_set = {k.lower() for k in keys}
        resolved: list[str] = []
        for name in dist.columns:
            col = self._resolve(name)
            if col is None:
                raise InvalidTableDefinitionError(f"Distribution column({name}) doesn't exist.")
            if any(r.lower() == col.name.lower() for r in resolved):
                raise InvalidTableDefinitionError(f"Duplicated distribution column {name}")
            resolved.append(col.name)
            t = col.type
            if t.name == "STRING":
                raise InvalidTableDefinitionError(f"String Type should not be used in distribution column[{col.name}].")
            if t.name == "JSON":
                raise InvalidTableDefinitionError(f"JsonType type should not be used in distribution column[{col.name}].")
            if t.name == "VARIANT":
                raise InvalidTableDefinitionError(f"Variant type should not be used in distribution column[{col.name}].")
            if is_float_type(t):
                raise InvalidTableDefinitionError(
                    f"Floating point type should not be used in distribution column[{col.name}]."
                )
            if is_complex_type(t):
                raise InvalidTableDefinitionError(
                    f"{t.name.capitalize()} type should not be used in distribution column[{col.name}]."
                )
            if model is not KeysModel.DUPLICATE and col.name.lower() not in key_set:
                raise InvalidTableDefinitionError(f"Distribution column[{col.name}] is not key column")
        if dist.buckets is not None and dist.buckets < 1:
            raise InvalidTableDefinitionError(
                f"Cannot assign {dist.kind.lower()} distribution buckets less than 1"
            )
        if dist.kind == "RANDOM":
            if model is KeysModel.UNIQUE:
                raise InvalidTableDefinitionError("Should not be distributed by random when keys type is unique")
            if model is KeysModel.AGGREGATE:
                for col in self.raw.columns:
                    if col.aggregation in ("REPLACE", "REPLACE_IF_NOT_NULL"):
                        raise InvalidTableDefinitionError(
                            "Should not be distributed by random when keys type is agg and column is in replace, "
                            f"[{col.name}] is invalid"
                        )
        return DistributionDesc(
            kind=dist.kind, columns=tuple(resolved), buckets=dist.buckets, auto_buckets=dist.auto_buckets
        )

    # -- sequence ------------------------------------------------------------------------------
    def _sequence(self, model: KeysModel, keys: list[str]) -> None:
        seq_col = self._prop("function_column.sequence_col")
        seq_type = self._prop("function_column.sequence_type")
        if seq_col is None and seq_type is None:
            return
        if model is not KeysModel.UNIQUE:
            raise InvalidTableDefinitionError("sequence column only support UNIQUE_KEYS")
        if seq_col is not None and seq_type is not None:
            raise InvalidTableDefinitionError("The sequence_col and sequence_type cannot be set at the same time")
        if seq_col is not None:
            col = self._resolve(seq_col.strip())
            if col is None:
                raise InvalidTableDefinitionError(f"The specified sequence column[{seq_col}] not exists")
            if col.name.lower() in {k.lower() for k in keys}:
                raise InvalidTableDefinitionError(
                    f"The sequence column[{col.name}] must be a value column, not a key column"
                )
            if not _is_sequence_type(col.type):
                raise InvalidTableDefinitionError("Sequence type only support integer types and date types")
            return
        assert seq_type is not None
        sequence_type_from_text(seq_type)


# ==========================================================================================
# helpers
# ==========================================================================================
def _default_duplicate_keys(columns: list[ColumnDef]) -> list[str]:
    """Doris's default duplicate keys: up to 3 leading columns within 36 bytes of short key,
    stopping before a FLOAT/DOUBLE/STRING/JSON/complex column and after the first VARCHAR."""
    keys: list[str] = []
    key_length = 0
    for col in columns:
        t = col.type
        key_length += index_size(t)
        if len(keys) >= _SHORTKEY_MAX_COLUMN_COUNT or key_length > _SHORTKEY_MAX_SIZE_BYTES:
            if not keys and is_string_like(t):
                keys.append(col.name)
            break
        if (
            is_float_type(t)
            or t.name in ("STRING", "JSON", "VARIANT")
            or is_complex_type(t)
            or t.name in UNSUPPORTED_TYPES
        ):
            break
        keys.append(col.name)
        if t.name == "VARCHAR":
            break
    return keys


def _find_unsupported(t: DorisType) -> str | None:
    if t.name in UNSUPPORTED_TYPES:
        return t.name
    for child in t.children:
        found = _find_unsupported(child)
        if found:
            return found
    return None


def _check_aggregation_type(col: ColumnDef) -> None:
    t = col.type
    agg = col.aggregation
    numeric = is_integer_type(t) or is_float_type(t) or t.name == "DECIMAL"
    if agg == "SUM" and not numeric:
        raise InvalidTableDefinitionError(
            f"Aggregate type SUM is not compatible with primitive type {t.sql} (column {col.name})"
        )
    if agg in ("MAX", "MIN") and (is_complex_type(t) or t.name in ("JSON", "VARIANT")):
        raise InvalidTableDefinitionError(
            f"Aggregate type {agg} is not compatible with primitive type {t.sql} (column {col.name})"
        )


def _check_key_type(col: ColumnDef) -> None:
    t = col.type
    if is_float_type(t):
        raise InvalidTableDefinitionError("Float or double can not used as a key, use decimal instead.")
    if t.name == "STRING":
        raise InvalidTableDefinitionError(f"String Type should not be used in key column[{col.name}].")
    if t.name == "JSON":
        raise InvalidTableDefinitionError(f"JsonType type should not be used in key column[{col.name}].")
    if t.name == "VARIANT":
        raise InvalidTableDefinitionError(f"Variant type should not be used in key column[{col.name}].")
    if is_complex_type(t):
        raise InvalidTableDefinitionError(
            f"{t.name.capitalize()} can only be used in the non-key column at present (column {col.name})."
        )


def sequence_type_from_text(text: str) -> DorisType:
    """The type ``function_column.sequence_type`` names (at CREATE TABLE, or ALTER TABLE ... ENABLE
    FEATURE "SEQUENCE_LOAD"), refused with Doris's message unless an integer or date type
    (PropertyAnalyzer.analyzeSequenceType)."""
    try:
        parsed = doris_type_from_sql(text)
    except (DdlSyntaxError, InvalidTableDefinitionError):
        parsed = None
    if parsed is None or not _is_sequence_type(parsed):
        raise InvalidTableDefinitionError("sequence type only support integer types and date types")
    return parsed


def _is_sequence_type(t: DorisType) -> bool:
    return is_integer_type(t) or t.name in ("DATE", "DATETIME")


def _check_item_width(item: PartitionItemDef, width: int) -> None:
    def check(value: PartitionValue | None, exact: bool) -> None:
        if value is None:
            return
        n = len(value.values)
        if n > width or (exact and n != width):
            raise InvalidTableDefinitionError(
                f"Partition {item.name} has {n} value(s) in ({', '.join('NULL' if v is None else v for v in value.values)}) "
                f"but the table has {width} partition column(s)"
            )

    check(item.less_than, exact=False)
    check(item.lower, exact=False)
    check(item.upper, exact=False)
    for value in item.values_in:
        check(value, exact=True)
    for value in (item.less_than, item.lower, item.upper):
        if value is not None and None in value.values:
            raise InvalidTableDefinitionError(
                f"Partition {item.name}: NULL is not allowed in a RANGE partition bound"
            )
