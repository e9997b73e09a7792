package io.icebergdoris.spark;

import java.util.Map;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;

/**
 * The Doris table a Spark statement writes: an Iceberg table whose properties carry the Doris
 * model ({@code doris.model-version}, {@code doris.keys-model}; see
 * {@code iceberg_doris/table_model/table_properties.py}).
 */
record DorisTarget(String name, String model, DataSourceV2Relation relation) {

  static final String MODEL_VERSION = "doris.model-version";
  static final String KEYS_MODEL = "doris.keys-model";
  static final String KEY_COLUMNS = "doris.key-columns";
  /** Write option of iceberg-doris's own staged writes: they are never statements to redirect. */
  static final String INTERNAL_WRITE = "iceberg-doris.internal-write";
  /** Iceberg's option naming the file set of a rewrite (our staged writes on Spark 4.0 and 3.5). */
  static final String STAGED_FILE_SET = "rewritten-file-scan-task-set-id";

  /** The Doris table behind {@code plan}, or null (a plain Iceberg table, not a v2 table, ...). */
  static DorisTarget of(LogicalPlan plan) {
    while (plan instanceof SubqueryAlias alias) {
      plan = alias.child();
    }
    if (!(plan instanceof DataSourceV2Relation relation)) {
      return null;
    }
    Map<String, String> properties = relation.table().properties();
    if (properties == null || !properties.containsKey(MODEL_VERSION)) {
      return null;
    }
    if (relation.options().containsKey(INTERNAL_WRITE) || relation.options().containsKey(STAGED_FILE_SET)) {
      return null;
    }
    if (relation.catalog().isEmpty() || relation.identifier().isEmpty()) {
      return null;
    }
    Identifier identifier = relation.identifier().get();
    if (identifier.namespace().length != 1) {
      return null;
    }
    String name = quote(relation.catalog().get().name()) + "." + quote(identifier.namespace()[0]) + "."
        + quote(identifier.name());
    return new DorisTarget(name, properties.getOrDefault(KEYS_MODEL, "DUPLICATE"), relation);
  }

  boolean unique() {
    return "UNIQUE".equals(model);
  }

  boolean keyed() {
    return !"DUPLICATE".equals(model);
  }

  java.util.List<String> keyColumns() {
    String columns = relation.table().properties().getOrDefault(KEY_COLUMNS, "");
    java.util.List<String> keys = new java.util.ArrayList<>();
    for (String column : columns.split(",")) {
      if (!column.isEmpty()) {
        keys.add(column);
      }
    }
    return keys;
  }

  private static String quote(String part) {
    return "`" + part.replace("`", "``") + "`";
  }
}
