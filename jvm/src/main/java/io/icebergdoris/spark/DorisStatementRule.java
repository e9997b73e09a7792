package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.analysis.UnresolvedInlineTable;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.analysis.UnresolvedStar;
import org.apache.spark.sql.catalyst.analysis.UnresolvedSubqueryColumnAliases;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.logical.AppendData;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;
import org.apache.spark.sql.catalyst.plans.logical.DeleteFromTable;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.InsertIntoStatement;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.OverwriteByExpression;
import org.apache.spark.sql.catalyst.plans.logical.OverwritePartitionsDynamic;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.UnresolvedWith;
import org.apache.spark.sql.catalyst.plans.logical.UpdateTable;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.Option;
import scala.runtime.AbstractPartialFunction;

/**
 * Spark's own write statements on a Doris table become the Doris operation that does the same
 * work (a {@link DorisStatement}): {@code INSERT INTO} / {@code writeTo().append()} is
 * {@code doris.load} (an upsert into a UNIQUE KEY table, aggregated into an AGGREGATE KEY table,
 * routed to partitions in a DUPLICATE KEY table), {@code INSERT OVERWRITE} is
 * {@code doris.insert_overwrite}, {@code DELETE FROM} marks the matching keys deleted on a UNIQUE
 * KEY table and is {@code doris.delete} on the others, {@code UPDATE} on a UNIQUE KEY table
 * upserts the matching rows as updated (Doris's {@code UPDATE ... FROM}, which Spark's grammar
 * lacks, is parsed by {@link UpdateFromParser} and built by {@link #updateFrom}), {@code MERGE
 * INTO} a UNIQUE KEY table is one load of the rows its clauses make, as Doris 4.0 runs it ({@link
 * MergeStatement}).
 *
 * <p>Used twice (see the constructor): for INSERT / writeTo with the resolution rules, once the
 * write's columns are aligned with the table; for DELETE / UPDATE / MERGE before Spark rewrites them
 * into Iceberg row deltas: on Spark 4 in the analyzer's hint batch, on Spark 3.5 (which has no hint
 * rules to inject) on the parsed statement, in {@code DorisCallParser}. Plain Iceberg tables and
 * iceberg-doris's own staged writes ({@link DorisTarget#of}) pass untouched. Shared by every Spark
 * line: what differs (Scala collections, the plan node) is in each line's {@code SparkCompat} and
 * {@code DorisStatement}.
 */
public final class DorisStatementRule extends Rule<LogicalPlan> {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final SparkSession session;
  private final boolean rowLevel;

  /**
   * {@code rowLevel}: the rule for DELETE, UPDATE and MERGE, run before resolution (Spark 4: the
   * analyzer's hint batch; Spark 3.5: the parser): Spark rewrites these into Iceberg row deltas in
   * the same batch iteration that resolves them, so a resolution rule never sees them resolved. The target table is
   * resolved here on its own to learn whether it is a Doris table; the statement's rows are
   * resolved when it runs. Otherwise the rule for INSERT / writeTo, run with the resolution rules.
   */
  public DorisStatementRule(SparkSession session, boolean rowLevel) {
    this.session = session;
    this.rowLevel = rowLevel;
  }

  /** Session setting that turns the rule off: Spark's statements then write plain Iceberg rows. */
  public static final String ENABLED = "spark.doris.sparkStatements.enabled";

  private boolean enabled() {
    return !"false".equalsIgnoreCase(session.conf().get(ENABLED, "true").trim());
  }

  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    // Not gated on a registered Python handler: in a driver without one (spark-sql, the Thrift
    // server) the statement starts it, where a plain Iceberg write would store a key twice.
    if (plan instanceof DorisStatement || !enabled()) {
      return plan;
    }
    if (rowLevel) {
      return rowLevel(plan);
    }
    GeneratedColumnAlters.check(plan);
    if (plan instanceof AppendData append && append.resolved()) {
      DorisTarget target = DorisTarget.of(staged(append.table(), append.writeOptions()));
      if (target != null) {
        return new DorisStatement("INSERT INTO", "load", target, append.query(), JSON.objectNode());
      }
    } else if (plan instanceof OverwriteByExpression overwrite && overwrite.resolved()) {
      DorisTarget target = DorisTarget.of(staged(overwrite.table(), overwrite.writeOptions()));
      if (target != null) {
        if (!(overwrite.deleteExpr() instanceof Literal literal && Boolean.TRUE.equals(literal.value()))) {
          throw failure(
              "INSERT OVERWRITE " + target.name() + " PARTITION (column = value) names Iceberg partition values; a "
                  + "Doris table replaces Doris partitions: CALL doris.insert_overwrite(table => '...', query => "
                  + "'SELECT ...', partitions => array('p1', ...)), or array('*') for the partitions the rows land in.");
        }
        return new DorisStatement("INSERT OVERWRITE", "insert_overwrite", target, overwrite.query(), JSON.objectNode());
      }
    } else if (plan instanceof OverwritePartitionsDynamic overwrite && overwrite.resolved()) {
      DorisTarget target = DorisTarget.of(staged(overwrite.table(), overwrite.writeOptions()));
      if (target != null) {
        ObjectNode arguments = JSON.objectNode();
        arguments.putArray("partitions").add("*");
        return new DorisStatement("INSERT OVERWRITE (dynamic)", "insert_overwrite", target, overwrite.query(), arguments);
      }
    }
    return plan;
  }

  private LogicalPlan rowLevel(LogicalPlan plan) {
    if (plan instanceof InsertIntoStatement insert && writesDefault(insert.query())) {
      DorisTarget target = resolveTarget(insert.table());
      if (target != null) {
        throw failure("INSERT INTO " + target.name() + " ... VALUES (..., DEFAULT) is not supported on a Doris table: "
            + "Spark would write NULL there, not the column's Doris DEFAULT. Leave the column out of the INSERT's column "
            + "list (INSERT INTO t (k, v) VALUES ...): a column not listed takes its DEFAULT, as in Doris, and a "
            + "generated column is computed.");
      }
    }
    if (plan instanceof InsertIntoStatement insert && listsItsColumns(insert)) {
      DorisTarget target = resolveTarget(insert.table());
      if (target != null) {
        return insertListingColumns(target, insert);
      }
    } else if (plan instanceof DeleteFromTable delete) {
      DorisTarget target = resolveTarget(delete.table());
      if (target != null) {
        return deleteStatement(target, delete);
      }
    } else if (plan instanceof UpdateTable update) {
      DorisTarget target = resolveTarget(update.table());
      if (target != null) {
        return updateStatement(target, update);
      }
    } else if (plan instanceof MergeIntoTable merge) {
      DorisTarget target = resolveTarget(merge.targetTable());
      if (target != null) {
        return MergeStatement.of(session, target, merge);
      }
    }
    return plan;
  }

  /** Whether {@code query} has a VALUES list with the keyword DEFAULT for a value (before resolution). */
  private static boolean writesDefault(LogicalPlan query) {
    if (query instanceof UnresolvedInlineTable values) {
      scala.collection.Iterator<Expression> expressions = values.expressions().iterator();
      while (expressions.hasNext()) {
        if (expressions.next() instanceof UnresolvedAttribute attribute && attribute.nameParts().size() == 1
            && "DEFAULT".equalsIgnoreCase(attribute.name())) {
          return true;
        }
      }
    }
    scala.collection.Iterator<LogicalPlan> children = query.children().iterator();
    while (children.hasNext()) {
      if (writesDefault(children.next())) {
        return true;
      }
    }
    return false;
  }

  /** {@code INSERT INTO t (c1, c2, ...) ...}: a plain append that names the columns it writes. */
  private static boolean listsItsColumns(InsertIntoStatement insert) {
    return !insert.userSpecifiedCols().isEmpty() && !insert.overwrite() && !insert.byName()
        && insert.partitionSpec().isEmpty();
  }

  /**
   * Doris: the columns an INSERT does not list take their DEFAULT (CURRENT_TIMESTAMP at the
   * statement's time) or NULL. Spark fills them with NULL when it resolves the statement, so the
   * statement is taken before: a load of the listed columns only, which gives the others their
   * defaults as any load does.
   */
  private static LogicalPlan insertListingColumns(DorisTarget target, InsertIntoStatement insert) {
    LogicalPlan rows = new UnresolvedSubqueryColumnAliases(insert.userSpecifiedCols(), insert.query());
    return new DorisStatement("INSERT INTO", "load", target, rows, JSON.objectNode());
  }

  /** The Doris table an unresolved row-level statement names, resolved on its own; or null. */
  private DorisTarget resolveTarget(LogicalPlan table) {
    LogicalPlan relation = unaliased(table);
    if (!(relation instanceof UnresolvedRelation)) {
      return DorisTarget.of(table);
    }
    LogicalPlan resolved;
    try {
      resolved = SparkCompat.ofRows(session, relation).queryExecution().analyzed();
    } catch (RuntimeException unresolvable) {
      return null; // Spark's own analysis of the statement reports it
    }
    return DorisTarget.of(resolved);
  }

  /** The write's relation, or null when the write is one of our own staged writes. */
  private static LogicalPlan staged(org.apache.spark.sql.catalyst.analysis.NamedRelation table, scala.collection.immutable.Map<String, String> writeOptions) {
    if (writeOptions.contains(DorisTarget.INTERNAL_WRITE) || writeOptions.contains(DorisTarget.STAGED_FILE_SET)) {
      return null;
    }
    return table instanceof LogicalPlan plan ? plan : null;
  }

  /**
   * Doris: DELETE on a merge-on-write UNIQUE KEY table marks the matching rows' keys deleted
   * (a load with the delete sign); on the other models it is a delete by condition.
   */
  private static LogicalPlan deleteStatement(DorisTarget target, DeleteFromTable delete) {
    Expression condition = delete.condition();
    if (target.unique()) {
      ObjectNode arguments = JSON.objectNode();
      arguments.put("merge_type", "DELETE");
      return new DorisStatement("DELETE FROM", "load", target, new Filter(condition, delete.table()), arguments);
    }
    if (containsSubquery(condition)) {
      throw failure(
          "DELETE FROM " + target.name() + " (a " + target.model() + " KEY table) takes a condition on its own columns, "
              + "as Doris's DELETE does; a subquery is not one. Write the values out, or use CALL doris.delete(table => "
              + "'...', where => '...').");
    }
    ObjectNode arguments = JSON.objectNode();
    arguments.put("where", unqualified(condition).sql());
    return new DorisStatement("DELETE FROM", "delete", target, null, arguments);
  }

  /**
   * Doris: UPDATE works on UNIQUE KEY tables only, and changes value columns only; the matching
   * rows are read, the assignments applied, and the rows upserted by key (merge-on-write).
   */
  private LogicalPlan updateStatement(DorisTarget target, UpdateTable update) {
    return updateRows(target, update, update.table(), null);
  }

  /**
   * Doris's {@code [WITH ...] UPDATE t [alias] SET ... [FROM <relations>] [WHERE ...]} ({@link
   * UpdateFromParser}; Doris's UpdateCommand): the table joined to the FROM relations under the
   * condition, each joined row the table's row with the assignments applied, loaded as an upsert.
   * Several joined rows for one stored row are several rows of one key in one load, as in Doris: the
   * larger sequence value wins, and without a sequence column one of them is kept.
   *
   * @param update the statement without its FROM and WITH clauses, as Spark parses {@code UPDATE ... SET ... WHERE ...}
   * @param relations {@code SELECT * FROM <relations>}, as Spark parses it; null without FROM
   * @param cte the WITH clause (over any query), as Spark parses it; null without one
   * @return the statement; null for a {@code WITH ... UPDATE} without FROM that is Spark's to run
   *     (the statements are off, or the table is not a Doris table)
   */
  LogicalPlan updateFrom(UpdateTable update, LogicalPlan relations, LogicalPlan cte) {
    String written = String.join(".", writtenName(update.table()));
    DorisTarget target = enabled() ? resolveTarget(update.table()) : null;
    if (target == null && relations == null) {
      return null;
    }
    if (!enabled()) {
      throw failure("UPDATE " + written + " ... FROM is Doris's statement, and this session runs Spark's statements as "
          + "plain Iceberg writes (" + ENABLED + " = false). Set it to true, or write MERGE INTO " + written
          + " USING ... ON ... WHEN MATCHED THEN UPDATE SET ...");
    }
    if (target == null) {
      SparkCompat.ofRows(session, unaliased(update.table())); // an unknown table: Spark's own error
      throw failure("UPDATE " + written + " ... FROM is Doris's statement and runs on Doris tables; " + written
          + " is not one. Write MERGE INTO " + written + " USING ... ON ... WHEN MATCHED THEN UPDATE SET ...");
    }
    LogicalPlan source = update.table();
    if (relations != null) {
      if (!(relations instanceof Project project)
          || project.projectList().size() != 1 || !(project.projectList().head() instanceof UnresolvedStar)) {
        throw failure("UPDATE " + target.name() + " ... FROM takes tables, subqueries and joins in its FROM clause, as "
            + "Doris's does; a GROUP BY, ORDER BY, LIMIT or set operation there is not one: put it in a subquery, "
            + "FROM (SELECT ...) s.");
      }
      source = new Join(update.table(), project.child(), Inner$.MODULE$, Option.empty(), JoinHint.NONE());
    }
    return updateRows(target, update, source, cte instanceof UnresolvedWith with ? with : null);
  }

  /** The rows an UPDATE loads: the rows of {@code source} its condition keeps, as whole rows of the table. */
  private LogicalPlan updateRows(DorisTarget target, UpdateTable update, LogicalPlan source, LogicalPlan with) {
    if (!target.unique()) {
      throw failure(
          "UPDATE " + target.name() + " is refused: Only unique table could be updated (Doris), and this is a "
              + target.model() + " KEY table. Load the changed rows instead: CALL doris.load(table => '...', "
              + "query => 'SELECT ...').");
    }
    List<String> qualifier = writtenName(update.table());
    java.util.Map<String, Expression> assigned = new java.util.HashMap<>();
    for (Assignment assignment : SparkCompat.javaList(update.assignments())) {
      String column = assignedColumn(target, update.table(), assignment.key());
      assigned.put(column.toLowerCase(java.util.Locale.ROOT), assignment.value());
    }
    Expression condition = update.condition().isDefined()
        ? update.condition().get()
        : Literal.create(true, org.apache.spark.sql.types.DataTypes.BooleanType);
    List<NamedExpression> columns = new ArrayList<>();
    for (org.apache.spark.sql.types.StructField field : target.relation().schema().fields()) {
      Expression value = assigned.get(field.name().toLowerCase(java.util.Locale.ROOT));
      if (value == null) {
        // An ON UPDATE CURRENT_TIMESTAMP column the statement does not set takes its time (Doris's UpdateCommand);
        // the others keep the stored value, named as the statement names the table (a FROM relation may share the name).
        List<String> parts = new ArrayList<>(qualifier);
        parts.add(field.name());
        value = target.setOnUpdate(field.name())
            ? DorisTarget.updateTime(session, field.dataType())
            : SparkCompat.attribute(parts);
      }
      columns.add(SparkCompat.alias(value, field.name()));
    }
    LogicalPlan rows = SparkCompat.project(columns, new Filter(condition, source));
    if (with != null) {
      rows = with.withNewChildren(SparkCompat.seq(List.of(rows)));
    }
    return new DorisStatement("UPDATE", "load", target, rows, JSON.objectNode());
  }

  /**
   * The table column an assignment sets, checked as Doris's UpdateCommand checks it: a qualifier
   * names the table (its alias, or its name as written), the column exists, and it is a value column.
   */
  private static String assignedColumn(DorisTarget target, LogicalPlan table, Expression key) {
    List<String> parts;
    if (key instanceof AttributeReference attribute) {
      parts = List.of(attribute.name());
    } else if (key instanceof UnresolvedAttribute attribute) {
      parts = SparkCompat.javaList(attribute.nameParts());
    } else {
      throw failure("UPDATE " + target.name() + " sets whole columns only: " + key.sql() + " is part of a column.");
    }
    String column = parts.get(parts.size() - 1);
    List<String> qualifier = parts.subList(0, parts.size() - 1);
    if (!namesTable(qualifier, table)) {
      throw failure("UPDATE " + target.name() + ": column in assignment list is invalid, " + String.join(".", parts)
          + " (Doris): SET names columns of the table it updates, as " + column + " or "
          + String.join(".", writtenName(table)) + "." + column + ".");
    }
    org.apache.spark.sql.types.StructField field = null;
    for (org.apache.spark.sql.types.StructField candidate : target.relation().schema().fields()) {
      if (candidate.name().equalsIgnoreCase(column)) {
        field = candidate;
        break;
      }
    }
    if (field == null) {
      throw failure("UPDATE " + target.name() + ": unknown column in assignment list: " + column + " (Doris).");
    }
    for (String keyColumn : target.keyColumns()) {
      if (keyColumn.equalsIgnoreCase(column)) {
        throw failure("UPDATE " + target.name() + " cannot set " + field.name() + ": Only value columns of unique table "
            + "could be updated (Doris). Delete the row and insert it with the new key.");
      }
    }
    if (target.generated(field.name())) {
      throw target.generatedValue(field.name());
    }
    return field.name();
  }

  /** Whether {@code qualifier} names {@code table}: its alias, or the end of its name as written. */
  private static boolean namesTable(List<String> qualifier, LogicalPlan table) {
    if (qualifier.isEmpty()) {
      return true;
    }
    List<String> name = writtenName(table);
    if (table instanceof SubqueryAlias && qualifier.size() != 1) {
      return false;
    }
    if (qualifier.size() > name.size()) {
      return false;
    }
    List<String> tail = name.subList(name.size() - qualifier.size(), name.size());
    for (int i = 0; i < qualifier.size(); i++) {
      if (!tail.get(i).equalsIgnoreCase(qualifier.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** How the statement names its table: the alias, else the name as written. */
  private static List<String> writtenName(LogicalPlan table) {
    if (table instanceof SubqueryAlias alias) {
      return List.of(alias.alias());
    }
    if (table instanceof UnresolvedRelation relation) {
      return SparkCompat.javaList(relation.multipartIdentifier());
    }
    return List.of();
  }

  private static LogicalPlan unaliased(LogicalPlan table) {
    LogicalPlan relation = table;
    while (relation instanceof SubqueryAlias alias) {
      relation = alias.child();
    }
    return relation;
  }

  private static boolean containsSubquery(Expression condition) {
    return condition.find(new scala.runtime.AbstractFunction1<Expression, Object>() {
      @Override
      public Object apply(Expression expression) {
        return expression instanceof SubqueryExpression;
      }
    }).isDefined();
  }

  /** The condition with each column named by its name alone (as doris.delete parses it). */
  private static Expression unqualified(Expression condition) {
    return condition.transform(new AbstractPartialFunction<Expression, Expression>() {
      @Override
      public boolean isDefinedAt(Expression expression) {
        return columnName(expression) != null;
      }

      @Override
      public Expression apply(Expression expression) {
        return UnresolvedAttribute.quoted(columnName(expression));
      }
    });
  }

  /** The column an assignment sets (its last name part), or null when it sets a nested field. */
  private static String columnName(Expression key) {
    if (key instanceof AttributeReference attribute) {
      return attribute.name();
    }
    if (key instanceof UnresolvedAttribute attribute) {
      return attribute.nameParts().last();
    }
    return null;
  }

  private static DorisProcedureException failure(String message) {
    return SparkCompat.procedureFailure("ProcedureArgumentError", message);
  }
}
