package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Expression;
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
  /** Each column's Doris type, aggregate, default and ON UPDATE flag (table_properties.py). */
  static final String COLUMNS = "doris.columns";
  static final Pattern CURRENT_TIMESTAMP = Pattern.compile("(?i)CURRENT_TIMESTAMP\\s*(\\(\\s*\\d*\\s*\\))?");
  private static final ObjectMapper JSON = new ObjectMapper();
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

  /** The column's DEFAULT as its DDL wrote it (trimmed), or "" when it has none. */
  String defaultOf(String column) {
    JsonNode value = savedColumn(column).get("default");
    return value == null || value.isNull() ? "" : value.asText().trim();
  }

  /**
   * Whether the column is {@code DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP}: an update
   * that does not set it sets it to the statement's time (Doris's BindSink and UpdateCommand).
   */
  boolean setOnUpdate(String column) {
    return savedColumn(column).path("on_update").asBoolean(false);
  }

  /** Whether the column is generated ({@code AS (expr)}): every load computes it from the row. */
  boolean generated(String column) {
    return savedColumn(column).has("generated");
  }

  /** Doris's refusal of a value a statement gives a generated column (its INSERT, UPDATE and MERGE). */
  DorisProcedureException generatedValue(String column) {
    String table = relation.identifier().isDefined() ? relation.identifier().get().name() : name;
    return SparkCompat.procedureFailure("ProcedureArgumentError", "The value specified for generated column '" + column
        + "' in table '" + table + "' is not allowed. Leave it out: every load computes it");
  }

  /** The statement's time as a value of {@code type}: a DEFAULT CURRENT_TIMESTAMP, and what an ON UPDATE CURRENT_TIMESTAMP column takes when an update does not set it. */
  static Expression updateTime(SparkSession session, org.apache.spark.sql.types.DataType type) {
    try {
      return session.sessionState().sqlParser().parseExpression("CAST(current_timestamp() AS " + type.sql() + ")");
    } catch (Exception unparsable) {
      throw new IllegalStateException("current_timestamp() must parse", unparsable);
    }
  }

  private JsonNode savedColumn(String column) {
    String columns = relation.table().properties().get(COLUMNS);
    if (columns == null) {
      return MissingNode.getInstance();
    }
    try {
      for (JsonNode saved : JSON.readTree(columns)) {
        if (saved.path("name").asText().equalsIgnoreCase(column)) {
          return saved;
        }
      }
    } catch (java.io.IOException damaged) {
      throw SparkCompat.procedureFailure("ProcedureArgumentError",
          "The table property " + COLUMNS + " of " + name + " cannot be read; it was changed by hand?");
    }
    return MissingNode.getInstance();
  }

  private static String quote(String part) {
    return "`" + part.replace("`", "``") + "`";
  }
}
