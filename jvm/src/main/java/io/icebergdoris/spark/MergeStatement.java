package io.icebergdoris.spark;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.analysis.UnresolvedStar;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SubqueryExpression;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;
import org.apache.spark.sql.catalyst.plans.logical.DeleteAction;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.InsertAction;
import org.apache.spark.sql.catalyst.plans.logical.InsertStarAction;
import org.apache.spark.sql.catalyst.plans.logical.Join;
import org.apache.spark.sql.catalyst.plans.logical.JoinHint;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.MergeAction;
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.UpdateAction;
import org.apache.spark.sql.catalyst.plans.logical.UpdateStarAction;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import scala.Option;

/**
 * {@code MERGE INTO} a UNIQUE KEY table, as Doris 4.0 runs it (Doris's {@code MergeIntoCommand}):
 * the source is joined to the table ({@code source LEFT OUTER JOIN target ON <condition>}), each
 * joined row takes the first clause whose condition holds (WHEN MATCHED clauses for rows that found
 * a stored row, WHEN NOT MATCHED for the others), rows that take none are dropped, and every row
 * that is left becomes one whole row of the table: an update keeps the stored values of the columns
 * it does not set, a delete carries the stored row with {@code __DORIS_DELETE_SIGN__ = 1}, an insert
 * gives the columns it does not list their default. Those rows are then one {@code doris.load}
 * (one commit, merge-on-write; a sequence column decides between rows of one key, as in Doris).
 *
 * <p>Built here, before Spark resolves the statement (see {@link DorisStatementRule}), from the
 * parsed clauses; the rows are resolved when the statement runs. When {@code ON} equates the unique
 * key with source values, the statement also carries {@link MergeRows}: the same rows joined to the
 * stored rows of the source's keys only, which the load finds through the key index.
 */
final class MergeStatement {

  static final String DELETE_SIGN = "__DORIS_DELETE_SIGN__";
  static final String HIDDEN_SEQUENCE = "__DORIS_SEQUENCE_COL__";
  private static final String BRANCH = "__doris_merge_branch";
  private static final String MATCHED = "__doris_merge_matched";
  private static final String SEQUENCE_COL = "doris.sequence-col";
  private static final String MERGE_ON_WRITE = "doris.merge-on-write";
  private static final Pattern CURRENT_DATE = Pattern.compile("(?i)CURRENT_DATE\\s*(\\(\\s*\\))?");

  private final SparkSession session;
  private final DorisTarget target;
  private final MergeIntoTable merge;
  private final List<String> targetQualifier;
  private final List<StructField> fields;
  private final List<String> keys;

  private MergeStatement(SparkSession session, DorisTarget target, MergeIntoTable merge) {
    this.session = session;
    this.target = target;
    this.merge = merge;
    this.targetQualifier = qualifier(merge.targetTable());
    this.fields = List.of(target.relation().schema().fields());
    this.keys = target.keyColumns();
  }

  /** The statement that runs {@code merge} on {@code target}, or a failure naming what Doris refuses. */
  static LogicalPlan of(SparkSession session, DorisTarget target, MergeIntoTable merge) {
    if (!target.unique()) {
      throw failure(
          "MERGE INTO " + target.name() + " is refused: Doris runs MERGE INTO on UNIQUE KEY tables only, and this is a "
              + target.model() + " KEY table. Load the rows instead: CALL doris.load(table => '...', query => 'SELECT ... "
              + "FROM source', merge_type => 'MERGE', delete_on => '<condition for rows that delete their key>') "
              + "(INSERT INTO loads too).");
    }
    if ("false".equals(target.relation().table().properties().get(MERGE_ON_WRITE))) {
      throw failure("MERGE INTO " + target.name() + " is refused: merge into command only support MOW unique key "
          + "olapTable (Doris), and this UNIQUE KEY table is merge-on-read (enable_unique_key_merge_on_write = false).");
    }
    if (!merge.notMatchedBySourceActions().isEmpty()) {
      throw failure(
          "MERGE INTO " + target.name() + ": WHEN NOT MATCHED BY SOURCE is refused, as Doris's MERGE INTO has no such "
              + "clause. Delete those rows with DELETE FROM " + target.name() + " WHERE <key> NOT IN (SELECT <key> FROM "
              + "source).");
    }
    return new MergeStatement(session, target, merge).statement();
  }

  private LogicalPlan statement() {
    List<MergeAction> matched = SparkCompat.javaList(merge.matchedActions());
    List<MergeAction> notMatched = SparkCompat.javaList(merge.notMatchedActions());
    lastUnconditional(matched, "matched");
    lastUnconditional(notMatched, "not matched");

    List<List<Expression>> branches = new ArrayList<>(); // per clause: one value per table column, then the delete sign
    for (MergeAction action : matched) {
      branches.add(action instanceof DeleteAction ? deleted() : updated(action));
    }
    for (MergeAction action : notMatched) {
      branches.add(inserted(action));
    }

    Expression matchedRow = new IsNotNull(UnresolvedAttribute.quoted(MATCHED));
    Expression branch = new If(matchedRow, firstTaken(matched, 0), firstTaken(notMatched, matched.size()));
    Function<LogicalPlan, LogicalPlan> joinedTo = stored -> rowsJoinedTo(stored, branch, branches);
    return new DorisStatement("MERGE INTO", "load", target, joinedTo.apply(merge.targetTable()),
        JsonNodeFactory.instance.objectNode(), keyedRows(joinedTo));
  }

  /** The statement's rows: the source joined to {@code stored} (the table, or some of its rows), each row as its clause makes it. */
  private LogicalPlan rowsJoinedTo(LogicalPlan stored, Expression branch, List<List<Expression>> branches) {
    // A marker on the target's rows tells a matched row: a key column can be NULL (a key declared
    // NULL is one key, as in Doris), so a NULL key column cannot.
    List<NamedExpression> marked = new ArrayList<>();
    marked.add(new UnresolvedStar(Option.empty()));
    marked.add(SparkCompat.alias(Literal.create(true, DataTypes.BooleanType), MATCHED));
    LogicalPlan joined = new Join(merge.sourceTable(), SparkCompat.project(marked, stored), LeftOuter$.MODULE$,
        Option.apply(merge.mergeCondition()), JoinHint.NONE());
    List<NamedExpression> labelled = new ArrayList<>();
    labelled.add(new UnresolvedStar(Option.empty()));
    labelled.add(SparkCompat.alias(branch, BRANCH));
    LogicalPlan taken = new Filter(new IsNotNull(UnresolvedAttribute.quoted(BRANCH)), SparkCompat.project(labelled, joined));

    List<NamedExpression> columns = new ArrayList<>();
    for (int column = 0; column <= fields.size(); column++) {
      Expression value = Literal.create(null, DataTypes.NullType);
      for (int clause = branches.size() - 1; clause >= 0; clause--) {
        Expression isClause = new EqualTo(UnresolvedAttribute.quoted(BRANCH), Literal.create(clause, DataTypes.IntegerType));
        value = new If(isClause, branches.get(clause).get(column), value);
      }
      columns.add(SparkCompat.alias(value, column < fields.size() ? fields.get(column).name() : DELETE_SIGN));
    }
    return SparkCompat.project(columns, taken);
  }

  /**
   * The rows joined to the stored rows of the source's keys only, when {@code ON} allows it
   * (else null: the statement joins the whole table). It does when {@code ON} is a conjunction
   * holding, for each unique-key column, {@code <table>.<key> = <expression>} (either way round)
   * where the expression reads the source only, has the key column's type exactly and is
   * deterministic, as is the source itself. Its other conjuncts may be anything: a stored row
   * matching {@code ON} has one of the source's keys, so the join finds the same rows.
   */
  private MergeRows keyedRows(Function<LogicalPlan, LogicalPlan> joinedTo) {
    try {
      LogicalPlan resolvedTarget = SparkCompat.ofRows(session, merge.targetTable()).queryExecution().analyzed();
      if (!(resolvedTarget instanceof SubqueryAlias alias)) {
        return null;
      }
      List<String> targetNames = new ArrayList<>(SparkCompat.javaList(alias.identifier().qualifier()));
      targetNames.add(alias.identifier().name());
      Map<String, Expression> keyValues = new LinkedHashMap<>();
      for (Expression conjunct : conjuncts(merge.mergeCondition(), new ArrayList<>())) {
        if (conjunct instanceof EqualTo equal) {
          keyValue(equal.left(), equal.right(), targetNames, keyValues);
          keyValue(equal.right(), equal.left(), targetNames, keyValues);
        }
      }
      List<NamedExpression> values = new ArrayList<>();
      for (String key : keys) {
        Expression value = keyValues.get(lower(key));
        if (value == null) {
          return null;
        }
        values.add(SparkCompat.alias(value, key));
      }
      LogicalPlan sourceKeys = SparkCompat.project(values, merge.sourceTable());
      LogicalPlan resolved = SparkCompat.ofRows(session, sourceKeys).queryExecution().analyzed();
      for (int i = 0; i < keys.size(); i++) {
        if (!resolved.schema().fields()[i].dataType().equals(field(keys.get(i)).dataType())) {
          return null; // "=" would compare after a cast, which keys compared as stored need not match
        }
      }
      return deterministic(resolved) ? new MergeRows(session, sourceKeys, alias, joinedTo) : null;
    } catch (Exception unresolvable) { // Spark's AnalysisException is a checked one, thrown undeclared
      return null; // e.g. a key value that does not resolve against the source alone: the whole join decides
    }
  }

  private static List<Expression> conjuncts(Expression condition, List<Expression> into) {
    if (condition instanceof And and) {
      conjuncts(and.left(), into);
      conjuncts(and.right(), into);
    } else {
      into.add(condition);
    }
    return into;
  }

  /** Records {@code value} for the key {@code column} names, if it names one of the table's and {@code value} reads the source only. */
  private void keyValue(Expression column, Expression value, List<String> targetNames, Map<String, Expression> keyValues) {
    if (!(column instanceof UnresolvedAttribute attribute)) {
      return;
    }
    List<String> parts = SparkCompat.javaList(attribute.nameParts());
    // A qualified name only: an unqualified one could be the source's column of that name.
    if (parts.size() < 2 || !endsWith(targetNames, parts.subList(0, parts.size() - 1))) {
      return;
    }
    String key = parts.get(parts.size() - 1);
    if (isKey(key) && readsSourceOnly(value, targetNames)) {
      keyValues.putIfAbsent(lower(key), value);
    }
  }

  /** No column of {@code value} is the table's: none qualified by its name, none unqualified that it has. */
  private boolean readsSourceOnly(Expression value, List<String> targetNames) {
    if (value instanceof SubqueryExpression) {
      return false;
    }
    if (value instanceof UnresolvedAttribute attribute) {
      List<String> parts = SparkCompat.javaList(attribute.nameParts());
      return parts.size() == 1 ? field(parts.get(0)) == null : !endsWith(targetNames, parts.subList(0, parts.size() - 1));
    }
    for (Expression child : SparkCompat.javaList(value.children())) {
      if (!readsSourceOnly(child, targetNames)) {
        return false;
      }
    }
    return true;
  }

  private static boolean endsWith(List<String> names, List<String> suffix) {
    if (suffix.size() > names.size()) {
      return false;
    }
    int offset = names.size() - suffix.size();
    for (int i = 0; i < suffix.size(); i++) {
      if (!names.get(offset + i).equalsIgnoreCase(suffix.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** The source is read twice (its keys, then the join): both reads must give the same rows. */
  private static boolean deterministic(LogicalPlan plan) {
    for (Expression expression : SparkCompat.javaList(plan.expressions())) {
      if (!expression.deterministic()) {
        return false;
      }
    }
    for (LogicalPlan child : SparkCompat.javaList(plan.children())) {
      if (!deterministic(child)) {
        return false;
      }
    }
    return true;
  }

  /** Doris: a clause without a condition must be the last of its kind (a later one could never run). */
  private void lastUnconditional(List<MergeAction> actions, String kind) {
    for (int i = 0; i < actions.size() - 1; i++) {
      if (actions.get(i).condition().isEmpty()) {
        throw failure("MERGE INTO " + target.name() + ": Only the last " + kind + " clause could without case predicate "
            + "(Doris): give the earlier WHEN " + kind.toUpperCase(Locale.ROOT) + " clauses a condition (AND ...).");
      }
    }
  }

  /** The number of the first of {@code actions} whose condition holds (numbered from {@code first}), or NULL. */
  private static Expression firstTaken(List<MergeAction> actions, int first) {
    Expression taken = Literal.create(null, DataTypes.IntegerType);
    for (int i = actions.size() - 1; i >= 0; i--) {
      Expression number = Literal.create(first + i, DataTypes.IntegerType);
      Option<Expression> condition = actions.get(i).condition();
      taken = condition.isDefined() ? new If(condition.get(), number, taken) : number;
    }
    return taken;
  }

  /** WHEN MATCHED THEN DELETE: the stored row, with the delete sign. */
  private List<Expression> deleted() {
    List<Expression> values = new ArrayList<>();
    for (StructField field : fields) {
      values.add(targetColumn(field.name()));
    }
    values.add(Literal.create(1, DataTypes.IntegerType));
    return values;
  }

  /** WHEN MATCHED THEN UPDATE SET ...: the stored row with the columns set; keys cannot be set. */
  private List<Expression> updated(MergeAction action) {
    Map<String, Expression> assigned = new LinkedHashMap<>();
    if (action instanceof UpdateStarAction) {
      for (StructField field : fields) {
        if (!isKey(field.name()) && sourceHas(field.name())) {
          assigned.put(lower(field.name()), sourceColumn(field.name()));
        }
      }
    } else {
      for (Assignment assignment : SparkCompat.javaList(((UpdateAction) action).assignments())) {
        String column = columnName(assignment.key());
        if (assigned.put(lower(column), assignment.value()) != null) {
          throw failure("MERGE INTO " + target.name() + ": Duplicate column name in update: " + column + " (Doris): set "
              + "each column once.");
        }
        StructField field = field(column);
        if (field == null) {
          throw failure("MERGE INTO " + target.name() + ": unknown column in assignment list: " + column + " (Doris). "
              + "The table's columns: " + columnList() + ".");
        }
        if (isKey(field.name())) {
          throw failure("MERGE INTO " + target.name() + " cannot set " + field.name() + ": Only value columns of unique "
              + "table could be updated (Doris). Delete the row and insert it with the new key.");
        }
        if (target.generated(field.name())) {
          throw target.generatedValue(field.name());
        }
      }
    }
    List<Expression> values = new ArrayList<>();
    for (StructField field : fields) {
      Expression value = assigned.get(lower(field.name()));
      if (value == null) {
        value = target.setOnUpdate(field.name()) ? DorisTarget.updateTime(session, field.dataType()) : targetColumn(field.name());
      }
      values.add(value);
    }
    values.add(Literal.create(0, DataTypes.IntegerType));
    return values;
  }

  /** WHEN NOT MATCHED THEN INSERT: the listed columns, and each other column's default (or NULL). */
  private List<Expression> inserted(MergeAction action) {
    Map<String, Expression> listed = new LinkedHashMap<>();
    if (action instanceof InsertStarAction) {
      for (StructField field : fields) {
        if (sourceHas(field.name())) {
          listed.put(lower(field.name()), sourceColumn(field.name()));
        }
      }
    } else {
      for (Assignment assignment : SparkCompat.javaList(((InsertAction) action).assignments())) {
        String column = columnName(assignment.key());
        if (listed.put(lower(column), assignment.value()) != null) {
          throw failure("MERGE INTO " + target.name() + ": insert has duplicate column names (Doris): " + column + ".");
        }
        if (field(column) == null) {
          throw failure("MERGE INTO " + target.name() + ": unknown column in target table: " + column + " (Doris). "
              + "The table's columns: " + columnList() + ".");
        }
        if (target.generated(column)) {
          throw target.generatedValue(field(column).name());
        }
      }
    }
    String sequence = sequenceColumn();
    if (sequence != null && !listed.containsKey(lower(sequence)) && !DorisTarget.CURRENT_TIMESTAMP.matcher(target.defaultOf(sequence)).matches()) {
      throw failure("MERGE INTO " + target.name() + ": Table " + target.name() + " has sequence column, need to specify "
          + "the sequence column (Doris): list " + sequence + " in WHEN NOT MATCHED THEN INSERT (" + sequence + ", ...).");
    }
    List<Expression> values = new ArrayList<>();
    for (StructField field : fields) {
      Expression value = listed.get(lower(field.name()));
      values.add(value != null ? value : defaultValue(field));
    }
    values.add(Literal.create(0, DataTypes.IntegerType));
    return values;
  }

  /** A column an INSERT does not list: its default, or NULL; a NOT NULL column without one fails. */
  private Expression defaultValue(StructField field) {
    if (target.generated(field.name())) {
      return Literal.create(null, field.dataType());  // a placeholder: the load computes the column
    }
    String text = target.defaultOf(field.name());
    if (text.isEmpty()) {
      if (!field.nullable()) {
        throw failure("MERGE INTO " + target.name() + ": Column has no default value, column=" + field.name() + " (Doris): "
            + "it is NOT NULL, so list it in WHEN NOT MATCHED THEN INSERT (..., " + field.name() + ") VALUES (...).");
      }
      return Literal.create(null, field.dataType());
    }
    String type = field.dataType().sql();
    if (DorisTarget.CURRENT_TIMESTAMP.matcher(text).matches()) {
      return DorisTarget.updateTime(session, field.dataType());
    }
    if (CURRENT_DATE.matcher(text).matches()) {
      return parse("CAST(current_date() AS " + type + ")");
    }
    return parse("CAST(" + Literal.create(text, DataTypes.StringType).sql() + " AS " + type + ")");
  }

  private Expression parse(String sql) {
    try {
      return session.sessionState().sqlParser().parseExpression(sql);
    } catch (Exception unparsable) {
      throw failure("MERGE INTO " + target.name() + ": a column default cannot be read as SQL (" + sql + "); it was "
          + "changed by hand? See CALL doris.describe.");
    }
  }

  /** The column holding the sequence value: the hidden one, or the one function_column.sequence_col names. */
  private String sequenceColumn() {
    String mapped = target.relation().table().properties().get(SEQUENCE_COL);
    if (mapped != null && !mapped.isEmpty()) {
      return mapped;
    }
    return field(HIDDEN_SEQUENCE) != null ? HIDDEN_SEQUENCE : null;
  }

  private boolean sourceHas(String column) {
    for (StructField field : sourceFields()) {
      if (field.name().equalsIgnoreCase(column)) {
        return true;
      }
    }
    return false;
  }

  private List<StructField> sourceFieldsCache;

  /** UPDATE SET * / INSERT * take the source's columns of the table's names: the source, resolved on its own. */
  private List<StructField> sourceFields() {
    if (sourceFieldsCache == null) {
      sourceFieldsCache = List.of(SparkCompat.ofRows(session, merge.sourceTable()).schema().fields());
    }
    return sourceFieldsCache;
  }

  private Expression sourceColumn(String column) {
    List<String> qualifier = qualifier(merge.sourceTable());
    List<String> parts = new ArrayList<>(qualifier == null ? List.of() : qualifier);
    parts.add(column);
    return SparkCompat.attribute(parts);
  }

  private Expression targetColumn(String column) {
    List<String> parts = new ArrayList<>(targetQualifier);
    parts.add(column);
    return SparkCompat.attribute(parts);
  }

  /** How the statement names a relation's columns: its alias, or the table name as written; null if neither. */
  private static List<String> qualifier(LogicalPlan plan) {
    if (plan instanceof SubqueryAlias alias) {
      return List.of(alias.alias());
    }
    if (plan instanceof UnresolvedRelation relation) {
      return SparkCompat.javaList(relation.multipartIdentifier());
    }
    return null;
  }

  private StructField field(String column) {
    for (StructField field : fields) {
      if (field.name().equalsIgnoreCase(column)) {
        return field;
      }
    }
    return null;
  }

  private boolean isKey(String column) {
    return keys.stream().anyMatch(key -> key.equalsIgnoreCase(column));
  }

  private String columnList() {
    List<String> names = new ArrayList<>();
    for (StructField field : fields) {
      names.add(field.name());
    }
    return String.join(", ", names);
  }

  /** The column an assignment names (its last name part); a nested field is refused. */
  private String columnName(Expression key) {
    if (key instanceof UnresolvedAttribute attribute) {
      return attribute.nameParts().last();
    }
    if (key instanceof org.apache.spark.sql.catalyst.expressions.AttributeReference attribute) {
      return attribute.name();
    }
    throw failure("MERGE INTO " + target.name() + " sets whole columns only: " + key.sql() + " is part of a column.");
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  private static DorisProcedureException failure(String message) {
    return SparkCompat.procedureFailure("ProcedureArgumentError", message);
  }
}
