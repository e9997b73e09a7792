package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.source.SparkTable;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.analysis.ResolvedFieldName;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.DropColumns;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.RenameColumn;

/**
 * Doris's refusals of schema changes that would break a generated column (its SchemaChangeHandler
 * and Column.checkSchemaChangeAllowed): dropping or renaming a column a generated column reads, and
 * modifying a generated column. Iceberg would commit these, and every later load of the table would
 * then fail computing the expression, which names the column as it was.
 */
final class GeneratedColumnAlters {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** Field id of each model column when the model was last written (table_properties.py). */
  private static final String COLUMN_IDS = "doris.column-ids";

  private GeneratedColumnAlters() {}

  /** Throws Doris's message when {@code plan} is such an ALTER TABLE on a Doris table; else returns. */
  static void check(LogicalPlan plan) {
    boolean drop = plan instanceof DropColumns;
    boolean rename = plan instanceof RenameColumn;
    // ALTER COLUMN is AlterColumn on Spark 3.5 and 4.0, AlterColumns on 4.1: matched by name
    boolean modify = plan.nodeName().startsWith("AlterColumn");
    if (!(drop || rename || modify) || !plan.resolved() || plan.children().isEmpty()
        || !(plan.children().head() instanceof ResolvedTable table)) {
      return;
    }
    Map<String, String> properties = table.table().properties();
    if (properties == null || !properties.containsKey(DorisTarget.MODEL_VERSION)) {
      return;
    }
    Map<String, Set<String>> readers = readers(properties.get(DorisTarget.COLUMNS), currentNames(table, properties));
    if (readers.isEmpty()) {
      return;  // no generated column
    }
    List<String> columns = topLevelColumns(plan);
    if (modify) {
      for (String column : columns) {
        if (isGenerated(readers, column)) {
          throw failure("Not supporting alter table modify generated columns.");
        }
      }
    } else if (rename) {
      Set<String> dependents = dependents(readers, columns.get(0));
      if (!dependents.isEmpty()) {
        throw failure("Cannot rename column, because column '" + columns.get(0) + "' has a generated column "
            + "dependency on :" + dependents);
      }
    } else {
      // One column after the other, as Doris runs the clauses of one ALTER TABLE.
      for (String column : columns) {
        Set<String> dependents = dependents(readers, column);
        if (!dependents.isEmpty()) {
          throw failure("Column '" + column + "' has a generated column dependency on :" + dependents);
        }
        readers.keySet().removeIf(column::equalsIgnoreCase);
      }
    }
  }

  /**
   * Generated column -> the columns its expression reads (lower case), in column order, by their
   * names now: the model keeps the names it was written with until iceberg-doris next commits it
   * (a plain rename or drop changes only Iceberg's schema; table_model/column_renames.py).
   */
  private static Map<String, Set<String>> readers(String savedColumns, Map<String, String> now) {
    Map<String, Set<String>> readers = new LinkedHashMap<>();
    if (savedColumns == null) {
      return readers;
    }
    try {
      for (JsonNode saved : JSON.readTree(savedColumns)) {
        String name = now.getOrDefault(saved.path("name").asText().toLowerCase(Locale.ROOT), saved.path("name").asText());
        if (saved.hasNonNull("generated") && name != null) {
          Set<String> stored = new LinkedHashSet<>();
          collectColumns(CatalystSqlParser$.MODULE$.parseExpression(saved.get("generated").asText()), stored);
          Set<String> read = new LinkedHashSet<>();
          for (String column : stored) {
            String current = now.getOrDefault(column, column);
            if (current != null) {
              read.add(current.toLowerCase(Locale.ROOT));
            }
          }
          readers.put(name, read);
        }
      }
    } catch (Exception unreadable) {
      throw new IllegalStateException("the table's doris.columns property must be readable", unreadable);
    }
    return readers;
  }

  /**
   * Stored column name (lower case) -> its name now, or null when it was dropped, through Iceberg
   * field ids: those the model recorded ({@code doris.column-ids}), else the oldest schema with the
   * name. Empty when the table is not an Iceberg table Spark loaded (names are then taken as stored).
   */
  private static Map<String, String> currentNames(ResolvedTable resolved, Map<String, String> properties) {
    Map<String, String> now = new HashMap<>();
    if (!(resolved.table() instanceof SparkTable sparkTable)) {
      return now;
    }
    Table table = sparkTable.table();
    Map<String, Integer> recorded = new HashMap<>();
    try {
      JsonNode ids = JSON.readTree(properties.getOrDefault(COLUMN_IDS, "{}"));
      ids.fields().forEachRemaining(e -> recorded.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue().asInt()));
      List<Schema> oldestFirst = new ArrayList<>(table.schemas().values());
      oldestFirst.sort(Comparator.comparingInt(Schema::schemaId));
      for (JsonNode saved : JSON.readTree(properties.getOrDefault(DorisTarget.COLUMNS, "[]"))) {
        String name = saved.path("name").asText().toLowerCase(Locale.ROOT);
        Integer id = recorded.get(name);
        for (int i = 0; id == null && i < oldestFirst.size(); i++) {
          Types.NestedField field = oldestFirst.get(i).caseInsensitiveFindField(name);
          id = field == null ? null : field.fieldId();
        }
        Types.NestedField field = id == null ? null : table.schema().findField(id);
        now.put(name, field == null ? null : field.name());
      }
    } catch (Exception unreadable) {
      throw new IllegalStateException("the table's doris.columns property must be readable", unreadable);
    }
    return now;
  }

  private static void collectColumns(Expression expression, Set<String> into) {
    if (expression instanceof UnresolvedAttribute attribute) {
      into.add(attribute.nameParts().head().toLowerCase(Locale.ROOT));
    }
    scala.collection.Iterator<Expression> children = expression.children().iterator();
    while (children.hasNext()) {
      collectColumns(children.next(), into);
    }
  }

  private static boolean isGenerated(Map<String, Set<String>> readers, String column) {
    return readers.keySet().stream().anyMatch(column::equalsIgnoreCase);
  }

  /** The generated columns that read {@code column}, as Doris lists them ({@code [c, d]}). */
  private static Set<String> dependents(Map<String, Set<String>> readers, String column) {
    Set<String> dependents = new LinkedHashSet<>();
    readers.forEach((generated, read) -> {
      if (read.contains(column.toLowerCase(Locale.ROOT))) {
        dependents.add(generated);
      }
    });
    return dependents;
  }

  /** The top-level columns the statement names (a nested field is no column of the Doris model). */
  private static List<String> topLevelColumns(LogicalPlan plan) {
    List<String> columns = new ArrayList<>();
    scala.collection.Iterator<Expression> expressions = plan.expressions().iterator();
    while (expressions.hasNext()) {
      collectFields(expressions.next(), columns);
    }
    return columns;
  }

  // Spark 4.1's AlterColumns holds each column inside an AlterColumnSpec expression.
  private static void collectFields(Expression expression, List<String> into) {
    if (expression instanceof ResolvedFieldName field) {
      if (field.path().isEmpty()) {
        into.add(field.field().name());
      }
      return;
    }
    scala.collection.Iterator<Expression> children = expression.children().iterator();
    while (children.hasNext()) {
      collectFields(children.next(), into);
    }
  }

  private static DorisProcedureException failure(String message) {
    return SparkCompat.procedureFailure("ProcedureArgumentError", message);
  }
}
